#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int x_shape1;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer out_py_buffer { int out_py[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_corpus.py:292: argmax_rows
void main() {
    int r;
    int best;
    int k;
    int _i1;
    // test_lang_corpus.py:293
    r = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:294
    if (r < x_shape0) {
        // test_lang_corpus.py:295
        best = 0;
        // test_lang_corpus.py:296
        int _stop1 = x_shape1;
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1529068875u);
        for (_i1 = 1; _i1 < _stop1; _i1 += 1) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1529068875u);
            k = _i1;
            // test_lang_corpus.py:297
            if (x[(r) * x_shape1 + k] > x[(r) * x_shape1 + best]) {
                // test_lang_corpus.py:298
                best = k;
            }
        }
        // test_lang_corpus.py:299
        out_py[r] = best;
    }
}
