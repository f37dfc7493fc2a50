#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int b_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer a_buffer { int a[]; };
layout(std430, binding = 1) readonly buffer b_buffer { int b[]; };
layout(std430, binding = 2) buffer out_py_buffer { float out_py[]; };
layout(std430, binding = 3) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

int _vkp_floordiv(int a, int b) {
    int q = a / b;
    if ((a - q * b) != 0 && ((a < 0) != (b < 0))) q -= 1;
    return q;
}

int _vkp_mod(int a, int b) {
    int r = a - (a / b) * b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

// test_lang_arith.py:119: division_kinds
void main() {
    int i;
    // test_lang_arith.py:120
    i = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:121
    if (i < a_shape0) {
        // test_lang_arith.py:122
        out_py[(i) * out_py_shape1 + 0] = float(a[i]) / float(b[i]);
        // test_lang_arith.py:123
        out_py[(i) * out_py_shape1 + 1] = float(_vkp_floordiv(a[i], b[i])) + 0.0;
        // test_lang_arith.py:124
        out_py[(i) * out_py_shape1 + 2] = float(_vkp_mod(a[i], b[i])) + 0.0;
        // test_lang_arith.py:125
        out_py[(i) * out_py_shape1 + 3] = float(a[i]) / 4.0;
    }
}
