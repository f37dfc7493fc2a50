#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };

float _vkp_expr(float r, float rl) {
    // e**(r + rl), |r| <= ln2/2, |rl| tiny
    precise float p = r + (r * r * (5.0e-01 + r * (1.6666667e-01 + r * (4.1666467e-02 + r * (8.333298e-03 + r * (1.3933651e-03 + r * (1.9899286e-04)))))) + rl * (1.0 + r));
    return 1.0 + p;
}

float _vkp_scale(float x, int k) {
    // x * 2**k in two steps, so that neither overflows nor leaves the normal range early
    int k1 = k / 2;
    return ldexp(ldexp(x, k1), k - k1);
}

float _vkp_expdd(float a, float b) {
    // e**(a + b), a in [EXP_UNDER, EXP_OVER], |b| tiny
    float kf = roundEven(a * 1.442695e+00);
    precise float hi = a - kf * 6.9314575e-01;
    precise float lo = kf * 1.4286068e-06 - b;
    precise float r = hi - lo;
    precise float rl = (hi - r) - lo;
    return _vkp_scale(_vkp_expr(r, rl), int(kf));
}

float _vkp_exp(float x) {
    if (isnan(x)) return x;
    if (x > 8.872283e+01) return uintBitsToFloat(0x7f800000u);
    if (x < -1.0397208e+02) return 0.0;
    return _vkp_expdd(x, 0.0);
}

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

// test_lang_corpus.py:198: sigmoid
void main() {
    int i;
    // test_lang_corpus.py:199
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:200
    if (i < x_shape0) {
        // test_lang_corpus.py:201
        out_py[i] = _vkp_div_rn(1.0, (1.0 + _vkp_exp(-(x[i]))));
    }
}
