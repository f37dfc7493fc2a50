#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int values_shape0;
    int bins_shape0;
};

layout(std430, binding = 0) readonly buffer values_buffer { int values[]; };
layout(std430, binding = 1) buffer bins_buffer { int bins[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

int _vkp_mod(int a, int b) {
    int r = a - (a / b) * b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

// test_lang_kernels.py:231: histogram
void main() {
    int i;
    // test_lang_kernels.py:232
    i = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:233
    if (i < values_shape0) {
        // test_lang_kernels.py:234
        atomicAdd(bins[_vkp_mod(values[i], bins_shape0)], 1);
    }
}
