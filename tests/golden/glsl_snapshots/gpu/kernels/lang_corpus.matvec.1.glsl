#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int m_shape0;
    int m_shape1;
    int v_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer m_buffer { float m[]; };
layout(std430, binding = 1) readonly buffer v_buffer { float v[]; };
layout(std430, binding = 2) buffer out_py_buffer { float out_py[]; };

// test_lang_corpus.py:303: matvec
void main() {
    int r;
    float acc;
    int c;
    int _i1;
    // test_lang_corpus.py:304
    r = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:305
    if (r < m_shape0) {
        // test_lang_corpus.py:306
        acc = 0.0;
        // test_lang_corpus.py:307
        int _stop1 = m_shape1;
        for (_i1 = 0; _i1 < _stop1; _i1 += 1) {
            c = _i1;
            // test_lang_corpus.py:308
            acc = acc + (m[(r) * m_shape1 + c] * v[c]);
        }
        // test_lang_corpus.py:309
        out_py[r] = acc;
    }
}
