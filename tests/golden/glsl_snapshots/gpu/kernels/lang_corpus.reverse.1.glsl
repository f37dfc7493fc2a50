#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };

// test_lang_corpus.py:13: reverse
void main() {
    int i;
    // test_lang_corpus.py:14
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:15
    if (i < x_shape0) {
        // test_lang_corpus.py:16
        out_py[i] = x[((x_shape0 - 1) - i)];
    }
}
