#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int total_shape0;
    int partial_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer total_buffer { int total[]; };
layout(std430, binding = 2) buffer partial_buffer { float partial[]; };
shared float tile[64];

int _vkp_floordiv(int a, int b) {
    int q = a / b;
    if ((a - q * b) != 0 && ((a < 0) != (b < 0))) q -= 1;
    return q;
}

// test_lang_kernels.py:51: block_sum
void main() {
    int i;
    int t;
    int stride;
    // test_lang_kernels.py:53
    i = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:54
    t = int(gl_LocalInvocationID.x);
    // test_lang_kernels.py:55
    tile[t] = (i < x_shape0) ? x[i] : 0.0;
    // test_lang_kernels.py:56
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    // test_lang_kernels.py:57
    stride = 32;
    // test_lang_kernels.py:58
    while (stride > 0) {
        // test_lang_kernels.py:59
        if (t < stride) {
            // test_lang_kernels.py:60
            tile[t] = tile[t] + tile[(t + stride)];
        }
        // test_lang_kernels.py:61
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
        // test_lang_kernels.py:62
        stride = _vkp_floordiv(stride, 2);
    }
    // test_lang_kernels.py:63
    if (t == 0) {
        // test_lang_kernels.py:64
        partial[int(gl_WorkGroupID.x)] = tile[0];
        // test_lang_kernels.py:65
        atomicAdd(total[0], int(tile[0]));
    }
}
