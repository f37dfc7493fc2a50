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

// test_lang_corpus.py:150: is_prime
bool is_prime_0(int n) {
    int d;
    // test_lang_corpus.py:151
    if (n < 2) {
        // test_lang_corpus.py:152
        return false;
    }
    // test_lang_corpus.py:153
    d = 2;
    // test_lang_corpus.py:154
    if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1532924057u);
    while ((d * d) <= n) {
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1532924057u);
        // test_lang_corpus.py:155
        if (_vkp_mod(n, d) == 0) {
            // test_lang_corpus.py:156
            return false;
        }
        // test_lang_corpus.py:157
        d = d + 1;
    }
    // test_lang_corpus.py:158
    return true;
}

// test_lang_corpus.py:162: primes
void main() {
    int i;
    // test_lang_corpus.py:163
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:164
    if (i < x_shape0) {
        // test_lang_corpus.py:165
        out_py[i] = int(is_prime_0(x[i]));
    }
}
