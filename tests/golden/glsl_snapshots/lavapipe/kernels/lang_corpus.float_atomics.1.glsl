#version 450
#extension GL_EXT_shader_atomic_float : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int total_shape0;
    int last_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer total_buffer { float total[]; };
layout(std430, binding = 2) buffer last_buffer { float last[]; };
layout(std430, binding = 3) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;
shared float tile[1];

// test_lang_corpus.py:504: float_atomics
void main() {
    int i;
    // test_lang_corpus.py:506
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:507
    if (int(gl_LocalInvocationID.x) == 0) {
        // test_lang_corpus.py:508
        tile[0] = 0.0;
    }
    // test_lang_corpus.py:509
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    // test_lang_corpus.py:510
    if (i < x_shape0) {
        // test_lang_corpus.py:511
        atomicAdd(tile[0], x[i]);
        // test_lang_corpus.py:512
        atomicExchange(last[0], 7.5);
    }
    // test_lang_corpus.py:513
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    // test_lang_corpus.py:514
    if (int(gl_LocalInvocationID.x) == 0) {
        // test_lang_corpus.py:515
        atomicAdd(total[0], tile[0]);
    }
}
