#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { int x[]; };
layout(std430, binding = 1) buffer out_py_buffer { int out_py[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

int _vkp_mod(int a, int b) {
    int r = a - (a / b) * b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

int _vkp_floordiv(int a, int b) {
    int q = a / b;
    if ((a - q * b) != 0 && ((a < 0) != (b < 0))) q -= 1;
    return q;
}

// test_lang_corpus.py:128: collatz
void main() {
    int i;
    int n;
    int steps;
    // test_lang_corpus.py:129
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:130
    if (i < x_shape0) {
        // test_lang_corpus.py:131
        n = x[i];
        // test_lang_corpus.py:132
        steps = 0;
        // test_lang_corpus.py:133
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1655242392u);
        while (n != 1) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1655242392u);
            // test_lang_corpus.py:134
            n = (_vkp_mod(n, 2) == 0) ? _vkp_floordiv(n, 2) : ((3 * n) + 1);
            // test_lang_corpus.py:135
            steps = steps + 1;
        }
        // test_lang_corpus.py:136
        out_py[i] = steps;
    }
}
