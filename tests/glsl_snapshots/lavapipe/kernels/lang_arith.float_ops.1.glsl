#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int b_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer a_buffer { float a[]; };
layout(std430, binding = 1) readonly buffer b_buffer { float b[]; };
layout(std430, binding = 2) buffer out_py_buffer { float out_py[]; };
layout(std430, binding = 3) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_arith.py:78: float_ops
void main() {
    int i;
    float x;
    float y;
    // test_lang_arith.py:79
    i = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:80
    if (i < a_shape0) {
        // test_lang_arith.py:81
        x = a[i];
        // test_lang_arith.py:82
        y = b[i];
        // test_lang_arith.py:83
        out_py[(i) * out_py_shape1 + 0] = x + y;
        // test_lang_arith.py:84
        out_py[(i) * out_py_shape1 + 1] = x - y;
        // test_lang_arith.py:85
        out_py[(i) * out_py_shape1 + 2] = x * y;
        // test_lang_arith.py:86
        out_py[(i) * out_py_shape1 + 3] = x / y;
        // test_lang_arith.py:87
        out_py[(i) * out_py_shape1 + 4] = floor((x) / (y));
        // test_lang_arith.py:88
        out_py[(i) * out_py_shape1 + 5] = mod(x, y);
        // test_lang_arith.py:89
        out_py[(i) * out_py_shape1 + 6] = -(x);
        // test_lang_arith.py:90
        out_py[(i) * out_py_shape1 + 7] = abs(x);
        // test_lang_arith.py:91
        out_py[(i) * out_py_shape1 + 8] = x * x;
        // test_lang_arith.py:92
        out_py[(i) * out_py_shape1 + 9] = ((x * x) * x) - y;
        // test_lang_arith.py:93
        out_py[(i) * out_py_shape1 + 10] = min(x, y);
        // test_lang_arith.py:94
        out_py[(i) * out_py_shape1 + 11] = max(x, y);
    }
}
