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
layout(std430, binding = 2) buffer out_py_buffer { int out_py[]; };

// test_lang_arith.py:185: comparisons
void main() {
    int i;
    int x;
    int y;
    int _b1;
    int _b2;
    // test_lang_arith.py:186
    i = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:187
    if (i < a_shape0) {
        // test_lang_arith.py:188
        x = a[i];
        // test_lang_arith.py:189
        y = b[i];
        // test_lang_arith.py:190
        out_py[(i) * out_py_shape1 + 0] = int((x < y));
        // test_lang_arith.py:191
        out_py[(i) * out_py_shape1 + 1] = int(((x <= y) && (y < 10)));
        // test_lang_arith.py:192
        out_py[(i) * out_py_shape1 + 2] = int(((x == y) || (x > 5)));
        // test_lang_arith.py:193
        out_py[(i) * out_py_shape1 + 3] = int(!((x != y)));
        // test_lang_arith.py:194
        out_py[(i) * out_py_shape1 + 4] = int((((0 < x) && (x < y)) && (y <= 8)));
        // test_lang_arith.py:195
        _b1 = x;
        out_py[(i) * out_py_shape1 + 5] = (_b1 != 0) ? y : _b1;
        // test_lang_arith.py:196
        _b2 = x;
        out_py[(i) * out_py_shape1 + 6] = (_b2 != 0) ? _b2 : y;
    }
}
