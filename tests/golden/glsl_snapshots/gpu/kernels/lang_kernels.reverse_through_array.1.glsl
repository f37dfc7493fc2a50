#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int scratch_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer a_buffer { float a[]; };
layout(std430, binding = 1) buffer scratch_buffer { float scratch[]; };
layout(std430, binding = 2) buffer out_py_buffer { float out_py[]; };

// test_lang_kernels.py:156: reverse_through_array
void main() {
    int i;
    int base;
    // test_lang_kernels.py:158
    i = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:159
    scratch[i] = a[i] * 2.0;
    // test_lang_kernels.py:160
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    // test_lang_kernels.py:161
    base = int(gl_WorkGroupID.x) * int(gl_WorkGroupSize.x);
    // test_lang_kernels.py:162
    out_py[i] = scratch[(((base + int(gl_WorkGroupSize.x)) - 1) - int(gl_LocalInvocationID.x))];
}
