#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int x_shape1;
    int x_shape2;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer out_py_buffer { int out_py[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_corpus.py:322: size_ndim
void main() {
    int i;
    // test_lang_corpus.py:323
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:324
    if (i == 0) {
        // test_lang_corpus.py:325
        out_py[0] = (x_shape0 * x_shape1) * x_shape2;
        // test_lang_corpus.py:326
        out_py[1] = 3;
        // test_lang_corpus.py:327
        out_py[2] = x_shape0;
    }
}
