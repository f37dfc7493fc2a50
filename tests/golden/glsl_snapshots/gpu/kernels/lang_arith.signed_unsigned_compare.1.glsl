#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int s_shape0;
    int u_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer s_buffer { int s[]; };
layout(std430, binding = 1) readonly buffer u_buffer { uint u[]; };
layout(std430, binding = 2) buffer out_py_buffer { int out_py[]; };

// test_lang_arith.py:318: signed_unsigned_compare
void main() {
    int i;
    int a;
    uint b;
    // test_lang_arith.py:319
    i = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:320
    if (i < s_shape0) {
        // test_lang_arith.py:321
        a = s[i];
        // test_lang_arith.py:322
        b = u[i];
        // test_lang_arith.py:323
        out_py[(i) * out_py_shape1 + 0] = int(((a < 0) || (uint(a) < b)));
        // test_lang_arith.py:324
        out_py[(i) * out_py_shape1 + 1] = int(((a < 0) || (uint(a) <= b)));
        // test_lang_arith.py:325
        out_py[(i) * out_py_shape1 + 2] = int((!((a < 0)) && (uint(a) > b)));
        // test_lang_arith.py:326
        out_py[(i) * out_py_shape1 + 3] = int((!((a < 0)) && (uint(a) >= b)));
        // test_lang_arith.py:327
        out_py[(i) * out_py_shape1 + 4] = int((!((a < 0)) && (uint(a) == b)));
        // test_lang_arith.py:328
        out_py[(i) * out_py_shape1 + 5] = int(((a < 0) || (uint(a) != b)));
        // test_lang_arith.py:329
        out_py[(i) * out_py_shape1 + 6] = int((!((a < 0)) && (uint(a) > b)));
    }
}
