#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int b_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer a_buffer { ivec4 a[]; };
layout(std430, binding = 1) readonly buffer b_buffer { int b[]; };
layout(std430, binding = 2) buffer out_py_buffer { int out_py[]; };

// test_lang_corpus.py:183: int_vectors
void main() {
    int i;
    // test_lang_corpus.py:184
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:185
    if (i < a_shape0) {
        // test_lang_corpus.py:186
        { ivec3 _v1 = (((a[i].wzy * 2) - ivec3(b[((i) * 3)], b[((i) * 3) + 1], b[((i) * 3) + 2])) + ivec3(a[i].x)); int _b = (i) * 3; out_py[_b] = _v1.x; out_py[_b + 1] = _v1.y; out_py[_b + 2] = _v1.z; }
    }
}
