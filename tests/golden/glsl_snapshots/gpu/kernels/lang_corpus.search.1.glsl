#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    float threshold;
    int x_shape0;
    int x_shape1;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer out_py_buffer { int out_py[]; };

// test_lang_corpus.py:244: first_above
int first_above_0(int r, float threshold) {
    int k;
    int _i1;
    // test_lang_corpus.py:245
    int _stop1 = x_shape1;
    for (_i1 = 0; _i1 < _stop1; _i1 += 1) {
        k = _i1;
        // test_lang_corpus.py:246
        if (x[(r) * x_shape1 + k] > threshold) {
            // test_lang_corpus.py:247
            return k;
        }
    }
    // test_lang_corpus.py:248
    return -1;
}

// test_lang_corpus.py:252: search
void main() {
    int r;
    // test_lang_corpus.py:253
    r = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:254
    if (r < x_shape0) {
        // test_lang_corpus.py:255
        out_py[r] = first_above_0(r, threshold);
    }
}
