#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int a_shape1;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer a_buffer { float a[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;
shared float tile[8][9];

// test_lang_corpus.py:74: transpose
void main() {
    int x;
    int y;
    int x2;
    int y2;
    // test_lang_corpus.py:76
    x = (int(gl_WorkGroupID.x) * 8) + int(gl_LocalInvocationID.x);
    // test_lang_corpus.py:77
    y = (int(gl_WorkGroupID.y) * 8) + int(gl_LocalInvocationID.y);
    // test_lang_corpus.py:78
    if ((y < a_shape0) && (x < a_shape1)) {
        // test_lang_corpus.py:79
        tile[int(gl_LocalInvocationID.y)][int(gl_LocalInvocationID.x)] = a[(y) * a_shape1 + x];
    }
    // test_lang_corpus.py:80
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    // test_lang_corpus.py:81
    x2 = (int(gl_WorkGroupID.y) * 8) + int(gl_LocalInvocationID.x);
    // test_lang_corpus.py:82
    y2 = (int(gl_WorkGroupID.x) * 8) + int(gl_LocalInvocationID.y);
    // test_lang_corpus.py:83
    if ((y2 < out_py_shape0) && (x2 < out_py_shape1)) {
        // test_lang_corpus.py:84
        out_py[(y2) * out_py_shape1 + x2] = tile[int(gl_LocalInvocationID.x)][int(gl_LocalInvocationID.y)];
    }
}
