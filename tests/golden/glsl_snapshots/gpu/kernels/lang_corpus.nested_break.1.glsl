#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { int x[]; };
layout(std430, binding = 1) buffer out_py_buffer { int out_py[]; };

// test_lang_corpus.py:279: nested_break
void main() {
    int i;
    int count;
    int a;
    int b;
    int _i1;
    int _i2;
    // test_lang_corpus.py:280
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:281
    if (i < x_shape0) {
        // test_lang_corpus.py:282
        count = 0;
        // test_lang_corpus.py:283
        for (_i1 = 0; _i1 < 10; _i1 += 1) {
            a = _i1;
            // test_lang_corpus.py:284
            for (_i2 = 0; _i2 < 10; _i2 += 1) {
                b = _i2;
                // test_lang_corpus.py:285
                if ((a * b) > x[i]) {
                    // test_lang_corpus.py:286
                    break;
                }
                // test_lang_corpus.py:287
                count = count + 1;
            }
        }
        // test_lang_corpus.py:288
        out_py[i] = count;
    }
}
