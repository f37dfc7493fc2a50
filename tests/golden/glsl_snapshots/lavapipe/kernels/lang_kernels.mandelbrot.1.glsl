#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int max_iter;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) buffer out_py_buffer { int out_py[]; };
layout(std430, binding = 1) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_kernels.py:80: mandelbrot
void main() {
    int px;
    int py;
    int h;
    int w;
    float cx;
    float cy;
    float x;
    float y;
    int n;
    float _t1;
    float _t2;
    // test_lang_kernels.py:81
    px = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:82
    py = int(gl_GlobalInvocationID.y);
    // test_lang_kernels.py:83
    h = out_py_shape0;
    // test_lang_kernels.py:84
    w = out_py_shape1;
    // test_lang_kernels.py:85
    if ((px < w) && (py < h)) {
        // test_lang_kernels.py:86
        cx = (-2.0) + ((3.0 * float(px)) / float(w));
        // test_lang_kernels.py:87
        cy = (-1.25) + ((2.5 * float(py)) / float(h));
        // test_lang_kernels.py:88
        x = 0.0;
        // test_lang_kernels.py:89
        y = 0.0;
        // test_lang_kernels.py:90
        n = 0;
        // test_lang_kernels.py:91
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1971649893u);
        while ((n < max_iter) && (((x * x) + (y * y)) <= 4.0)) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1971649893u);
            // test_lang_kernels.py:92
            _t1 = ((x * x) - (y * y)) + cx;
            _t2 = ((2.0 * x) * y) + cy;
            x = _t1;
            y = _t2;
            // test_lang_kernels.py:93
            n = n + 1;
        }
        // test_lang_kernels.py:94
        out_py[(py) * out_py_shape1 + px] = n;
    }
}
