#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int x_shape1;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { double x[]; };
layout(std430, binding = 1) buffer out_py_buffer { double out_py[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_corpus.py:220: kahan_rows
void main() {
    int r;
    double s;
    double c;
    int k;
    double y;
    double t;
    int _i1;
    // test_lang_corpus.py:221
    r = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:222
    if (r < x_shape0) {
        // test_lang_corpus.py:223
        s = 0.0lf;
        // test_lang_corpus.py:224
        c = 0.0lf;
        // test_lang_corpus.py:225
        int _stop1 = x_shape1;
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 969219582u);
        for (_i1 = 0; _i1 < _stop1; _i1 += 1) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 969219582u);
            k = _i1;
            // test_lang_corpus.py:226
            y = x[(r) * x_shape1 + k] - c;
            // test_lang_corpus.py:227
            t = s + y;
            // test_lang_corpus.py:228
            c = (t - s) - y;
            // test_lang_corpus.py:229
            s = t;
        }
        // test_lang_corpus.py:230
        out_py[r] = s;
    }
}
