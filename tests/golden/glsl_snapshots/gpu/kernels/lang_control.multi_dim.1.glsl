#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int a_shape1;
    int a_shape2;
    int out_py_shape0;
    int out_py_shape1;
    int out_py_shape2;
};

layout(std430, binding = 0) readonly buffer a_buffer { float a[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };

// test_lang_control.py:165: multi_dim
void main() {
    int i;
    int j;
    int k;
    int _i1;
    // test_lang_control.py:166
    i = int(gl_GlobalInvocationID.x);
    // test_lang_control.py:167
    j = int(gl_GlobalInvocationID.y);
    // test_lang_control.py:168
    if ((i < a_shape0) && (j < a_shape1)) {
        // test_lang_control.py:169
        int _stop1 = a_shape2;
        for (_i1 = 0; _i1 < _stop1; _i1 += 1) {
            k = _i1;
            // test_lang_control.py:170
            out_py[((i) * out_py_shape1 + j) * out_py_shape2 + k] = (((a[((i) * a_shape1 + j) * a_shape2 + k] * 10.0) + a[(((a_shape0 + (-1))) * a_shape1 + 0) * a_shape2 + (a_shape2 + (-1))]) + 3.0) + float(((a_shape0 * a_shape1) * a_shape2));
        }
    }
}
