#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int n_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer n_buffer { int n[]; };
layout(std430, binding = 1) buffer out_py_buffer { int64_t out_py[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_corpus.py:234: factorial64
void main() {
    int i;
    int64_t f;
    int k;
    int _i1;
    // test_lang_corpus.py:235
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:236
    if (i < n_shape0) {
        // test_lang_corpus.py:237
        f = 1l;
        // test_lang_corpus.py:238
        int _stop1 = (n[i] + 1);
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 158037787u);
        for (_i1 = 2; _i1 < _stop1; _i1 += 1) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 158037787u);
            k = _i1;
            // test_lang_corpus.py:239
            f = f * int64_t(k);
        }
        // test_lang_corpus.py:240
        out_py[i] = f;
    }
}
