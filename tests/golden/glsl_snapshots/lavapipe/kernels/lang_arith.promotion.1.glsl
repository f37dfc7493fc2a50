#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int i32s_shape0;
    int f32s_shape0;
    int u32s_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer i32s_buffer { int i32s[]; };
layout(std430, binding = 1) readonly buffer f32s_buffer { float f32s[]; };
layout(std430, binding = 2) readonly buffer u32s_buffer { uint u32s[]; };
layout(std430, binding = 3) buffer out_py_buffer { double out_py[]; };
layout(std430, binding = 4) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_arith.py:155: promotion
void main() {
    int k;
    int a;
    float x;
    // test_lang_arith.py:156
    k = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:157
    if (k < out_py_shape0) {
        // test_lang_arith.py:158
        a = i32s[k];
        // test_lang_arith.py:159
        x = f32s[k];
        // test_lang_arith.py:160
        out_py[(k) * out_py_shape1 + 0] = double((float(a) + x));
        // test_lang_arith.py:161
        out_py[(k) * out_py_shape1 + 1] = double((x * 2.0));
        // test_lang_arith.py:162
        out_py[(k) * out_py_shape1 + 2] = double((float(a) * 0.5));
        // test_lang_arith.py:163
        out_py[(k) * out_py_shape1 + 3] = double((float(a) / 3.0));
        // test_lang_arith.py:164
        out_py[(k) * out_py_shape1 + 4] = double(int(x));
        // test_lang_arith.py:165
        out_py[(k) * out_py_shape1 + 5] = double((int64_t(a) + int64_t(u32s[k])));
    }
}
