#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer a_buffer { int a[]; };
layout(std430, binding = 1) buffer out_py_buffer { int out_py[]; };

int _vkp_ipow(int base, int e) {
    int result = 1;
    while (e > 0) {
        if ((e & 1) != 0) result *= base;
        base *= base;
        e >>= 1;
    }
    return result;
}

// test_lang_arith.py:284: int_power
void main() {
    int i;
    int _p1;
    // test_lang_arith.py:285
    i = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:286
    if (i < a_shape0) {
        // test_lang_arith.py:287
        _p1 = a[i];
        out_py[(i) * out_py_shape1 + 0] = (_p1 * _p1) * _p1;
        // test_lang_arith.py:288
        out_py[(i) * out_py_shape1 + 1] = _vkp_ipow(a[i], a[i]);
        // test_lang_arith.py:289
        out_py[(i) * out_py_shape1 + 2] = _vkp_ipow(2, a[i]);
    }
}
