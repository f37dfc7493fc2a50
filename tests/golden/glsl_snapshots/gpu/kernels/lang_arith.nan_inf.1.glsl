#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer out_py_buffer { int out_py[]; };

// test_lang_arith.py:267: nan_inf
void main() {
    int i;
    // test_lang_arith.py:268
    i = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:269
    if (i < x_shape0) {
        // test_lang_arith.py:270
        out_py[(i) * out_py_shape1 + 0] = int(isnan(x[i]));
        // test_lang_arith.py:271
        out_py[(i) * out_py_shape1 + 1] = int(isinf(x[i]));
        // test_lang_arith.py:272
        out_py[(i) * out_py_shape1 + 2] = int((x[i] != x[i]));
    }
}
