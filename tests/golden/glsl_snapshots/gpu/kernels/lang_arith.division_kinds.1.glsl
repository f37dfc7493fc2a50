#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int b_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer a_buffer { int a[]; };
layout(std430, binding = 1) readonly buffer b_buffer { int b[]; };
layout(std430, binding = 2) buffer out_py_buffer { float out_py[]; };

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

int _vkp_floordiv(int a, int b) {
    int q = a / b;
    if ((a - q * b) != 0 && ((a < 0) != (b < 0))) q -= 1;
    return q;
}

int _vkp_mod(int a, int b) {
    int r = a - (a / b) * b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

// test_lang_arith.py:119: division_kinds
void main() {
    int i;
    // test_lang_arith.py:120
    i = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:121
    if (i < a_shape0) {
        // test_lang_arith.py:122
        out_py[(i) * out_py_shape1 + 0] = _vkp_div_rn(float(a[i]), float(b[i]));
        // test_lang_arith.py:123
        out_py[(i) * out_py_shape1 + 1] = float(_vkp_floordiv(a[i], b[i])) + 0.0;
        // test_lang_arith.py:124
        out_py[(i) * out_py_shape1 + 2] = float(_vkp_mod(a[i], b[i])) + 0.0;
        // test_lang_arith.py:125
        out_py[(i) * out_py_shape1 + 3] = float(a[i]) / 4.0;
    }
}
