#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int b_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer a_buffer { int a[]; };
layout(std430, binding = 1) readonly buffer b_buffer { int b[]; };
layout(std430, binding = 2) buffer out_py_buffer { int out_py[]; };

// test_lang_corpus.py:313: logic_mix
void main() {
    int i;
    int x;
    int y;
    // test_lang_corpus.py:314
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:315
    if (i < a_shape0) {
        // test_lang_corpus.py:316
        x = a[i];
        // test_lang_corpus.py:317
        y = b[i];
        // test_lang_corpus.py:318
        out_py[i] = int(((!((x > 2)) && (y < 3)) || ((x == y) && !((y == 0)))));
    }
}
