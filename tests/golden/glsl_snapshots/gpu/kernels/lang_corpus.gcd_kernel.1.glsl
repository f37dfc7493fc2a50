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

int _vkp_mod(int a, int b) {
    int r = a - (a / b) * b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

// test_lang_corpus.py:114: gcd
int gcd_0(int a, int b) {
    int _t1;
    int _t2;
    // test_lang_corpus.py:115
    while (b != 0) {
        // test_lang_corpus.py:116
        _t1 = b;
        _t2 = _vkp_mod(a, b);
        a = _t1;
        b = _t2;
    }
    // test_lang_corpus.py:117
    return a;
}

// test_lang_corpus.py:121: gcd_kernel
void main() {
    int i;
    // test_lang_corpus.py:122
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:123
    if (i < a_shape0) {
        // test_lang_corpus.py:124
        out_py[i] = gcd_0(a[i], b[i]);
    }
}
