#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a8_shape0;
    int a16_shape0;
    int h_shape0;
    int b_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) buffer a8_buffer { int8_t a8[]; };
layout(std430, binding = 1) readonly buffer a16_buffer { int16_t a16[]; };
layout(std430, binding = 2) buffer h_buffer { float16_t h[]; };
layout(std430, binding = 3) buffer b_buffer { uint8_t b[]; };
layout(std430, binding = 4) buffer out_py_buffer { float out_py[]; };

// test_lang_kernels.py:324: storage_types
void main() {
    int i;
    // test_lang_kernels.py:325
    i = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:326
    if (i < a8_shape0) {
        // test_lang_kernels.py:327
        out_py[i] = (float((int(a8[i]) + int(a16[i]))) + float(h[i])) + float((b[i] != uint8_t(0)));
        // test_lang_kernels.py:328
        a8[i] = int8_t((int(a8[i]) + 1));
        // test_lang_kernels.py:329
        h[i] = float16_t((float(h[i]) * 2.0));
        // test_lang_kernels.py:330
        b[i] = uint8_t(!((b[i] != uint8_t(0))) ? 1 : 0);
    }
}
