#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int b_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer a_buffer { uint a[]; };
layout(std430, binding = 1) readonly buffer b_buffer { uint b[]; };
layout(std430, binding = 2) buffer out_py_buffer { uint out_py[]; };

// test_lang_arith.py:11: int_ops
void main() {
    int i;
    uint x;
    uint y;
    // test_lang_arith.py:12
    i = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:13
    if (i < a_shape0) {
        // test_lang_arith.py:14
        x = a[i];
        // test_lang_arith.py:15
        y = b[i];
        // test_lang_arith.py:16
        out_py[(i) * out_py_shape1 + 0] = x + y;
        // test_lang_arith.py:17
        out_py[(i) * out_py_shape1 + 1] = x - y;
        // test_lang_arith.py:18
        out_py[(i) * out_py_shape1 + 2] = x * y;
        // test_lang_arith.py:19
        out_py[(i) * out_py_shape1 + 3] = (x) / (y);
        // test_lang_arith.py:20
        out_py[(i) * out_py_shape1 + 4] = (x) % (y);
        // test_lang_arith.py:21
        out_py[(i) * out_py_shape1 + 5] = x & y;
        // test_lang_arith.py:22
        out_py[(i) * out_py_shape1 + 6] = x | y;
        // test_lang_arith.py:23
        out_py[(i) * out_py_shape1 + 7] = x ^ y;
        // test_lang_arith.py:24
        out_py[(i) * out_py_shape1 + 8] = -(x);
        // test_lang_arith.py:25
        out_py[(i) * out_py_shape1 + 9] = ~(x);
        // test_lang_arith.py:26
        out_py[(i) * out_py_shape1 + 10] = x;
        // test_lang_arith.py:27
        out_py[(i) * out_py_shape1 + 11] = min(x, y);
        // test_lang_arith.py:28
        out_py[(i) * out_py_shape1 + 12] = max(max(x, y), 3u);
    }
}
