#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { int x[]; };
layout(std430, binding = 1) buffer out_py_buffer { int out_py[]; };

// test_lang_corpus.py:102: popcount
void main() {
    int i;
    int v;
    int c;
    // test_lang_corpus.py:103
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:104
    if (i < x_shape0) {
        // test_lang_corpus.py:105
        v = x[i];
        // test_lang_corpus.py:106
        c = 0;
        // test_lang_corpus.py:107
        while (v != 0) {
            // test_lang_corpus.py:108
            c = c + (v & 1);
            // test_lang_corpus.py:109
            v = v >> 1;
        }
        // test_lang_corpus.py:110
        out_py[i] = c;
    }
}
