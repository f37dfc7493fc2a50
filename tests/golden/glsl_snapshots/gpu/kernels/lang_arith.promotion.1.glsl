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

float _vkp_pow2i(int n) {
    // 2**n, exactly, for n in [(-126), 127]
    return uintBitsToFloat(uint(n + 127) << 23);
}

void _vkp_unflush(inout float a, inout float b) {
    // a divisor whose reciprocal is subnormal, and the dividend, scaled by 1/4 (exactly; a
    // dividend that loses bits to it has a quotient below the normal range anyway): NVIDIA
    // divides as a * (1 / b) and flushes that reciprocal to zero (FLT_MAX / FLT_MAX gave 0)
    if (abs(b) > _vkp_pow2i(127 - 2)) {
        a *= 0.25;
        b *= 0.25;
    }
}

float _vkp_div_rn(float a, float b) {
    // a / b correctly rounded: the device's quotient q (Vulkan allows 2.5 ulp) plus the
    // exact residual a - q * b (one fma) over b; zeros, infinities and NaN as the device's
    // (IEEE's where it keeps them: SignedZeroInfNanPreserve). A divisor whose reciprocal
    // is subnormal is scaled first, with the dividend (NVIDIA flushes that reciprocal)
    _vkp_unflush(a, b);
    precise float q = a / b;
    if (q == 0.0 || isinf(q) || isnan(q)) return q;
    precise float r = 1.0 / b;
    precise float e = fma(-q, b, a);
    precise float res = fma(e, r, q);
    return res;
}

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
        out_py[(k) * out_py_shape1 + 3] = double(_vkp_div_rn(float(a), 3.0));
        // test_lang_arith.py:164
        out_py[(k) * out_py_shape1 + 4] = double(int(x));
        // test_lang_arith.py:165
        out_py[(k) * out_py_shape1 + 5] = double((int64_t(a) + int64_t(u32s[k])));
    }
}
