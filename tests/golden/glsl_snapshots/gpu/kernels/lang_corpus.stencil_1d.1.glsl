#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };

// test_lang_corpus.py:20: stencil_1d
void main() {
    int i;
    int n;
    // test_lang_corpus.py:21
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:22
    n = x_shape0;
    // test_lang_corpus.py:23
    if ((0 < i) && (i < (n - 1))) {
        // test_lang_corpus.py:24
        out_py[i] = ((0.25 * x[(i - 1)]) + (0.5 * x[i])) + (0.25 * x[(i + 1)]);
    } else if ((i == 0) || (i == (n - 1))) {
        // test_lang_corpus.py:26
        out_py[i] = x[i];
    }
}
