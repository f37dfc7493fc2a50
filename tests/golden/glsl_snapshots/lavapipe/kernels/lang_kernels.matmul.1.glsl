#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int a_shape1;
    int b_shape0;
    int b_shape1;
    int c_shape0;
    int c_shape1;
};

layout(std430, binding = 0) readonly buffer a_buffer { float a[]; };
layout(std430, binding = 1) readonly buffer b_buffer { float b[]; };
layout(std430, binding = 2) buffer c_buffer { float c[]; };
layout(std430, binding = 3) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;
shared float sa[8][8];
shared float sb[8][8];

int _vkp_floordiv(int a, int b) {
    int q = a / b;
    if ((a - q * b) != 0 && ((a < 0) != (b < 0))) q -= 1;
    return q;
}

// test_lang_kernels.py:124: matmul
void main() {
    int tx;
    int ty;
    int col;
    int row;
    int n;
    float acc;
    int t;
    int k;
    int kk;
    int _i1;
    int _i2;
    // test_lang_kernels.py:127
    tx = int(gl_LocalInvocationID.x);
    // test_lang_kernels.py:128
    ty = int(gl_LocalInvocationID.y);
    // test_lang_kernels.py:129
    col = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:130
    row = int(gl_GlobalInvocationID.y);
    // test_lang_kernels.py:131
    n = a_shape1;
    // test_lang_kernels.py:132
    acc = 0.0;
    // test_lang_kernels.py:133
    int _stop1 = _vkp_floordiv(((n + 8) - 1), 8);
    if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 286909311u);
    for (_i1 = 0; _i1 < _stop1; _i1 += 1) {
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 286909311u);
        t = _i1;
        // test_lang_kernels.py:134
        k = (t * 8) + tx;
        // test_lang_kernels.py:135
        sa[ty][tx] = ((row < a_shape0) && (k < n)) ? a[(row) * a_shape1 + k] : 0.0;
        // test_lang_kernels.py:136
        k = (t * 8) + ty;
        // test_lang_kernels.py:137
        sb[ty][tx] = ((k < n) && (col < b_shape1)) ? b[(k) * b_shape1 + col] : 0.0;
        // test_lang_kernels.py:138
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
        // test_lang_kernels.py:139
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 286909311u);
        for (_i2 = 0; _i2 < 8; _i2 += 1) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 286909311u);
            kk = _i2;
            // test_lang_kernels.py:140
            acc = acc + (sa[ty][kk] * sb[kk][tx]);
        }
        // test_lang_kernels.py:141
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    }
    // test_lang_kernels.py:142
    if ((row < c_shape0) && (col < c_shape1)) {
        // test_lang_kernels.py:143
        c[(row) * c_shape1 + col] = acc;
    }
}
