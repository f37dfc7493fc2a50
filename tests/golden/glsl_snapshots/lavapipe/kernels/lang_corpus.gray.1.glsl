#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int rgb_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer rgb_buffer { float rgb[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_corpus.py:169: gray
void main() {
    int i;
    // test_lang_corpus.py:170
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:171
    if (i < rgb_shape0) {
        // test_lang_corpus.py:172
        out_py[i] = dot(vec3(rgb[((i) * 3)], rgb[((i) * 3) + 1], rgb[((i) * 3) + 2]), vec3(0.299, 0.587, 0.114));
    }
}
