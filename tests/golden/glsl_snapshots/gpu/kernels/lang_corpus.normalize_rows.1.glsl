#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int v_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer v_buffer { vec4 v[]; };
layout(std430, binding = 1) buffer out_py_buffer { vec4 out_py[]; };

// test_lang_corpus.py:176: normalize_rows
void main() {
    int i;
    // test_lang_corpus.py:177
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:178
    if (i < v_shape0) {
        // test_lang_corpus.py:179
        out_py[i] = normalize(v[i]);
    }
}
