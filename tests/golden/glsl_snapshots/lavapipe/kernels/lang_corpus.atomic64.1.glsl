#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int total_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { int64_t x[]; };
layout(std430, binding = 1) buffer total_buffer { int64_t total[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_corpus.py:488: atomic64
void main() {
    int i;
    // test_lang_corpus.py:489
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:490
    if (i < x_shape0) {
        // test_lang_corpus.py:491
        atomicAdd(total[0], x[i]);
    }
}
