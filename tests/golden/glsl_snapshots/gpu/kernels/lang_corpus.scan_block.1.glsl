#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { int x[]; };
layout(std430, binding = 1) buffer out_py_buffer { int out_py[]; };
shared int buf[64];

// test_lang_corpus.py:53: scan_block
void main() {
    int t;
    int i;
    int offset;
    int v;
    // test_lang_corpus.py:55
    t = int(gl_LocalInvocationID.x);
    // test_lang_corpus.py:56
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:57
    buf[t] = (i < x_shape0) ? x[i] : 0;
    // test_lang_corpus.py:58
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    // test_lang_corpus.py:59
    offset = 1;
    // test_lang_corpus.py:60
    while (offset < 64) {
        // test_lang_corpus.py:61
        v = (t >= offset) ? buf[(t - offset)] : 0;
        // test_lang_corpus.py:62
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
        // test_lang_corpus.py:63
        buf[t] = buf[t] + v;
        // test_lang_corpus.py:64
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
        // test_lang_corpus.py:65
        offset = offset * 2;
    }
    // test_lang_corpus.py:66
    if (i < out_py_shape0) {
        // test_lang_corpus.py:67
        out_py[i] = buf[t];
    }
}
