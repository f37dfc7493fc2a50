#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int p_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer p_buffer { vec2 p[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_corpus.py:190: distances
void main() {
    int i;
    int j;
    // test_lang_corpus.py:191
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:192
    j = int(gl_GlobalInvocationID.y);
    // test_lang_corpus.py:193
    if ((i < p_shape0) && (j < p_shape0)) {
        // test_lang_corpus.py:194
        out_py[(i) * out_py_shape1 + j] = distance(p[i], p[j]);
    }
}
