#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int img_shape0;
    int img_shape1;
};

layout(std430, binding = 0) buffer img_buffer { uint8_t img[]; };
layout(std430, binding = 1) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_corpus.py:212: invert_u8
void main() {
    int i;
    int j;
    // test_lang_corpus.py:213
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:214
    j = int(gl_GlobalInvocationID.y);
    // test_lang_corpus.py:215
    if ((i < img_shape0) && (j < img_shape1)) {
        // test_lang_corpus.py:216
        img[(i) * img_shape1 + j] = uint8_t((255u - uint(img[(i) * img_shape1 + j])));
    }
}
