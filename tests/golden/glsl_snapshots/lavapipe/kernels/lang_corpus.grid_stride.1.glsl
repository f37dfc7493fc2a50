#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
};

layout(std430, binding = 0) buffer x_buffer { int x[]; };
layout(std430, binding = 1) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_corpus.py:271: grid_stride
void main() {
    int i;
    // test_lang_corpus.py:272
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:273
    if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1590462753u);
    while (i < x_shape0) {
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1590462753u);
        // test_lang_corpus.py:274
        x[i] = (x[i] * 2) + 1;
        // test_lang_corpus.py:275
        i = i + int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
    }
}
