#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int x_shape1;
    int lo_shape0;
    int hi_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer lo_buffer { float lo[]; };
layout(std430, binding = 2) buffer hi_buffer { float hi[]; };

// test_lang_corpus.py:259: minmax
void minmax_0(float a, float b, float c, out float _out0, out float _out1) {
    // test_lang_corpus.py:260
    _out0 = min(min(a, b), c);
    _out1 = max(max(a, b), c);
    return;
}

// test_lang_corpus.py:264: minmax_kernel
void main() {
    int i;
    float _r1;
    float _r2;
    // test_lang_corpus.py:265
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:266
    if (i < lo_shape0) {
        // test_lang_corpus.py:267
        minmax_0(x[(i) * x_shape1 + 0], x[(i) * x_shape1 + 1], x[(i) * x_shape1 + 2], _r1, _r2);
        lo[i] = _r1;
        hi[i] = _r2;
    }
}
