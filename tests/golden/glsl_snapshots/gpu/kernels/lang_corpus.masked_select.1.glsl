#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int mask_shape0;
    int a_shape0;
    int b_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer mask_buffer { uint8_t mask[]; };
layout(std430, binding = 1) readonly buffer a_buffer { float a[]; };
layout(std430, binding = 2) readonly buffer b_buffer { float b[]; };
layout(std430, binding = 3) buffer out_py_buffer { float out_py[]; };

// test_lang_corpus.py:205: masked_select
void main() {
    int i;
    // test_lang_corpus.py:206
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:207
    if (i < mask_shape0) {
        // test_lang_corpus.py:208
        out_py[i] = (mask[i] != uint8_t(0)) ? a[i] : b[i];
    }
}
