#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int u_shape0;
    int u_shape1;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer u_buffer { float u[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };

// test_lang_corpus.py:30: laplace_2d
void main() {
    int i;
    int j;
    // test_lang_corpus.py:31
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:32
    j = int(gl_GlobalInvocationID.y);
    // test_lang_corpus.py:33
    if (((0 < i) && (i < (u_shape0 - 1))) && ((0 < j) && (j < (u_shape1 - 1)))) {
        // test_lang_corpus.py:34
        out_py[(i) * out_py_shape1 + j] = (((u[((i - 1)) * u_shape1 + j] + u[((i + 1)) * u_shape1 + j]) + u[(i) * u_shape1 + (j - 1)]) + u[(i) * u_shape1 + (j + 1)]) - (4.0 * u[(i) * u_shape1 + j]);
    }
}
