#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };

float _vkp_sqrt_rn(float a) {
    // sqrt(a) correctly rounded: the device's root s corrected by (a - s * s) / (2 s)
    precise float s = sqrt(a);
    if (s == 0.0 || isinf(s) || isnan(s)) return s;
    precise float e = fma(-s, s, a);
    precise float res = fma(e, 0.5 / s, s);
    return res;
}

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

float _vkp_logsplit(float x, out float f) {
    // finite x > 0 as 2**e * (1 + f), 1 + f in [sqrt(1/2), sqrt(2)); returns e
    int e;
    int bias = 0;
    if (x < 1.1754944e-38) { x = ldexp(x, 60); bias = 60; }
    float m = frexp(x, e);
    if (m < 7.0710677e-01) { m *= 2.0; e -= 1; }
    f = m - 1.0;
    return float(e - bias);
}

float _vkp_log1pf(float f, float e, float c) {
    // e*ln2 + log(1 + f) + c, f from logsplit, c a small correction
    precise float s = f / (2.0 + f);
    precise float z = s * s;
    precise float R = z * (6.666667e-01 + z * (4.0000123e-01 + z * (2.8550768e-01 + z * (2.3331732e-01))));
    precise float hfsq = 0.5 * f * f;
    precise float res = e * 6.9314575e-01 + (f - (hfsq - (s * (hfsq + R) + (e * 1.4286068e-06 + c))));
    return res;
}

float _vkp_log(float x) {
    if (isnan(x) || x < 0.0) return uintBitsToFloat(0x7fc00000u);
    if (x == 0.0) return -uintBitsToFloat(0x7f800000u);
    if (isinf(x)) return x;
    float f;
    float e = _vkp_logsplit(x, f);
    return _vkp_log1pf(f, e, 0.0);
}

void _vkp_two_sum(float a, float b, out float s, out float e) {
    // Knuth: s + e == a + b exactly
    precise float ss = a + b;
    precise float bb = ss - a;
    precise float ee = (a - (ss - bb)) + (b - bb);
    s = ss;
    e = ee;
}

void _vkp_two_prod(float a, float b, out float p, out float e) {
    // Dekker: p + e == a * b exactly
    precise float pp = a * b;
    precise float ca = 4.097e+03 * a;
    precise float ah = ca - (ca - a);
    precise float al = a - ah;
    precise float cb = 4.097e+03 * b;
    precise float bh = cb - (cb - b);
    precise float bl = b - bh;
    precise float ee = ((ah * bh - pp) + ah * bl + al * bh) + al * bl;
    p = pp;
    e = ee;
}

const uvec4 _vkp_2opi[12] = uvec4[](uvec4(0x00000000u, 0x00000000u, 0xa2f9836eu, 0x4e441529u), uvec4(0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u), uvec4(0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u), uvec4(0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu), uvec4(0xe88235f5u, 0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u), uvec4(0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu), uvec4(0x1ff897ffu, 0xde05980fu, 0xef2f118bu, 0x5a0a6d1fu), uvec4(0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du), uvec4(0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau), uvec4(0x6bfb5fb1u, 0x1f8d5d08u, 0x56033046u, 0xfc7b6babu), uvec4(0xf0cfbc20u, 0x9af4361du, 0x00000000u, 0x00000000u), uvec4(0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u));

int _vkp_rem_big(float x, out float rh, out float rl) {
    uint b = floatBitsToUint(abs(x));
    int E = int((b >> 23) & 0xffu) - 150;
    uint m1 = 0u;
    uint m0 = (b & 0x7fffffu) | 0x800000u;
    int i0 = ((E + 30) >> 5) - 1;
    int sh = E - 32 * (i0 + 1) + 30;
    uint m2 = sh == 0 ? 0u : m1 >> (32 - sh);
    m1 = sh == 0 ? m1 : (m1 << sh) | (m0 >> (32 - sh));
    m0 <<= sh;
    uint w, cb, cy;
    int ii = i0 + 2, j = ii >> 2, o = ii & 3;
    uvec4 q0 = (j == 0 ? _vkp_2opi[0] : _vkp_2opi[1]);
    uvec4 q1 = (j == 0 ? _vkp_2opi[1] : _vkp_2opi[2]);
    uvec4 q2 = (j == 0 ? _vkp_2opi[2] : _vkp_2opi[3]);
    uint a[12] = uint[](q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w, q2.x, q2.y, q2.z, q2.w);
    w = o == 0 ? a[6] : o == 1 ? a[7] : o == 2 ? a[8] : a[9];
    uint t0_0h, t0_0l; umulExtended(m0, w, t0_0h, t0_0l);
    uint t0_1h, t0_1l; umulExtended(m1, w, t0_1h, t0_1l);
    uint t0_2h, t0_2l; umulExtended(m2, w, t0_2h, t0_2l);
    w = o == 0 ? a[5] : o == 1 ? a[6] : o == 2 ? a[7] : a[8];
    uint t1_0h, t1_0l; umulExtended(m0, w, t1_0h, t1_0l);
    uint t1_1h, t1_1l; umulExtended(m1, w, t1_1h, t1_1l);
    uint t1_2h, t1_2l; umulExtended(m2, w, t1_2h, t1_2l);
    w = o == 0 ? a[4] : o == 1 ? a[5] : o == 2 ? a[6] : a[7];
    uint t2_0h, t2_0l; umulExtended(m0, w, t2_0h, t2_0l);
    uint t2_1h, t2_1l; umulExtended(m1, w, t2_1h, t2_1l);
    uint t2_2h, t2_2l; umulExtended(m2, w, t2_2h, t2_2l);
    w = o == 0 ? a[3] : o == 1 ? a[4] : o == 2 ? a[5] : a[6];
    uint t3_0h, t3_0l; umulExtended(m0, w, t3_0h, t3_0l);
    uint t3_1h, t3_1l; umulExtended(m1, w, t3_1h, t3_1l);
    uint t3_2h, t3_2l; umulExtended(m2, w, t3_2h, t3_2l);
    w = o == 0 ? a[2] : o == 1 ? a[3] : o == 2 ? a[4] : a[5];
    uint t4_0h, t4_0l; umulExtended(m0, w, t4_0h, t4_0l);
    uint t4_1h, t4_1l; umulExtended(m1, w, t4_1h, t4_1l);
    uint t4_2h, t4_2l; umulExtended(m2, w, t4_2h, t4_2l);
    w = o == 0 ? a[1] : o == 1 ? a[2] : o == 2 ? a[3] : a[4];
    uint t5_0h, t5_0l; umulExtended(m0, w, t5_0h, t5_0l);
    uint t5_1h, t5_1l; umulExtended(m1, w, t5_1h, t5_1l);
    w = o == 0 ? a[0] : o == 1 ? a[1] : o == 2 ? a[2] : a[3];
    uint t6_0h, t6_0l; umulExtended(m0, w, t6_0h, t6_0l);
    cy = 0u;
    uint P0 = cy; cy = 0u;
    P0 = uaddCarry(P0, t0_0l, cb); cy += cb;
    uint P1 = cy; cy = 0u;
    P1 = uaddCarry(P1, t0_0h, cb); cy += cb;
    P1 = uaddCarry(P1, t0_1l, cb); cy += cb;
    P1 = uaddCarry(P1, t1_0l, cb); cy += cb;
    uint P2 = cy; cy = 0u;
    P2 = uaddCarry(P2, t0_1h, cb); cy += cb;
    P2 = uaddCarry(P2, t0_2l, cb); cy += cb;
    P2 = uaddCarry(P2, t1_0h, cb); cy += cb;
    P2 = uaddCarry(P2, t1_1l, cb); cy += cb;
    P2 = uaddCarry(P2, t2_0l, cb); cy += cb;
    uint P3 = cy; cy = 0u;
    P3 = uaddCarry(P3, t0_2h, cb); cy += cb;
    P3 = uaddCarry(P3, t1_1h, cb); cy += cb;
    P3 = uaddCarry(P3, t1_2l, cb); cy += cb;
    P3 = uaddCarry(P3, t2_0h, cb); cy += cb;
    P3 = uaddCarry(P3, t2_1l, cb); cy += cb;
    P3 = uaddCarry(P3, t3_0l, cb); cy += cb;
    uint P4 = cy; cy = 0u;
    P4 = uaddCarry(P4, t1_2h, cb); cy += cb;
    P4 = uaddCarry(P4, t2_1h, cb); cy += cb;
    P4 = uaddCarry(P4, t2_2l, cb); cy += cb;
    P4 = uaddCarry(P4, t3_0h, cb); cy += cb;
    P4 = uaddCarry(P4, t3_1l, cb); cy += cb;
    P4 = uaddCarry(P4, t4_0l, cb); cy += cb;
    uint P5 = cy; cy = 0u;
    P5 = uaddCarry(P5, t2_2h, cb); cy += cb;
    P5 = uaddCarry(P5, t3_1h, cb); cy += cb;
    P5 = uaddCarry(P5, t3_2l, cb); cy += cb;
    P5 = uaddCarry(P5, t4_0h, cb); cy += cb;
    P5 = uaddCarry(P5, t4_1l, cb); cy += cb;
    P5 = uaddCarry(P5, t5_0l, cb); cy += cb;
    uint P6 = cy; cy = 0u;
    P6 = uaddCarry(P6, t3_2h, cb); cy += cb;
    P6 = uaddCarry(P6, t4_1h, cb); cy += cb;
    P6 = uaddCarry(P6, t4_2l, cb); cy += cb;
    P6 = uaddCarry(P6, t5_0h, cb); cy += cb;
    P6 = uaddCarry(P6, t5_1l, cb); cy += cb;
    P6 = uaddCarry(P6, t6_0l, cb); cy += cb;
    uint quad = P6 >> 30;
    uint f2 = (P6 << 2) | (P5 >> 30), f1 = (P5 << 2) | (P4 >> 30), f0 = (P4 << 2) | (P3 >> 30), g1 = (P3 << 2) | (P2 >> 30), g0 = (P2 << 2) | (P1 >> 30);
    bool negf = (f2 >> 31) != 0u;
    if (negf) {   // fraction >= 1/2: the next quadrant, fraction - 1
        quad += 1u;
        f2 = ~f2; f1 = ~f1; f0 = ~f0; g1 = ~g1; g0 = ~g0;
        g0 = uaddCarry(g0, 1u, cb); g1 = uaddCarry(g1, cb, cb); f0 = uaddCarry(f0, cb, cb); f1 = uaddCarry(f1, cb, cb); f2 += cb;
    }
    int lz = 0;
    if (f2 == 0u) { f2 = f1; f1 = f0; f0 = g1; g1 = g0; g0 = 0u; lz += 32; }
    if (f2 == 0u) { f2 = f1; f1 = f0; f0 = g1; g1 = g0; g0 = 0u; lz += 32; }
    if (f2 == 0u) { f2 = f1; f1 = f0; f0 = g1; g1 = g0; g0 = 0u; lz += 32; }
    if (f2 == 0u) { f2 = f1; f1 = f0; f0 = g1; g1 = g0; g0 = 0u; lz += 32; }
    int n = 31 - findMSB(f2);
    if (n > 0 && n < 32) {
        f2 = (f2 << n) | (f1 >> (32 - n)); f1 = (f1 << n) | (f0 >> (32 - n)); f0 = (f0 << n) | (g1 >> (32 - n)); lz += n;
    }
    float hi = ldexp(float(f2 >> 8), -24 - lz);
    float lo = ldexp(float(((f2 & 0xffu) << 16) | (f1 >> 16)), -48 - lz);
    float ph, pe;
    _vkp_two_prod(hi, 1.5707964e+00, ph, pe);
    precise float pl = pe + (hi * -4.371139e-08 + lo * 1.5707964e+00);
    precise float s = ph + pl;
    pl = pl - (s - ph);
    if (negf) { s = -s; pl = -pl; }
    if (x < 0.0) { s = -s; pl = -pl; quad = (4u - quad) & 3u; }
    rh = s;
    rl = pl;
    return int(quad & 3u);
}

int _vkp_rem_pio2(float x, out float rh, out float rl) {
    // x = k pi/2 + rh + rl with |rh + rl| <= ~pi/4; returns k mod 4 (finite x)
    if (abs(x) <= 7.853982e-01) { rh = x; rl = 0.0; return 0; }
    if (abs(x) >= 6.0e+03) return _vkp_rem_big(x, rh, rl);
    float kf = roundEven(x * 6.3661975e-01);
    precise float y = x - kf * 1.5703125e+00;
    float h, l, h2, l2;
    _vkp_two_sum(y, -(kf * 4.837513e-04), h, l);
    _vkp_two_sum(h, -(kf * 7.5495336e-08), h2, l2);
    precise float lo = (l + l2) - kf * 2.563344e-12;
    precise float s = h2 + lo;
    rl = lo - (s - h2);
    rh = s;
    return int(kf) & 3;
}

float _vkp_sink(float x, float y) {
    // sin(x + y), |x| <= ~pi/4, |y| tiny
    precise float z = x * x;
    precise float res = x + (z * x * (-1.6666667e-01 + z * (8.333332e-03 + z * (-1.9840087e-04 + z * (2.7249962e-06)))) + y * (1.0 - 0.5 * z));
    return res;
}

float _vkp_cosk(float x, float y) {
    // cos(x + y), |x| <= ~pi/4, |y| tiny
    precise float z = x * x;
    precise float hz = 0.5 * z;
    precise float w = 1.0 - hz;
    precise float res = w + (((1.0 - w) - hz) + (z * z * (4.1666668e-02 + z * (-1.3888888e-03 + z * (2.48006e-05 + z * (-2.7300985e-07)))) - x * y));
    return res;
}

float _vkp_sin(float x) {
    if (isinf(x) || isnan(x)) return uintBitsToFloat(0x7fc00000u);
    if (abs(x) < 1.2207031e-04) return x;
    float a, b;
    int n = _vkp_rem_pio2(x, a, b);
    float r = (n & 1) == 0 ? _vkp_sink(a, b) : _vkp_cosk(a, b);
    return n >= 2 ? -r : r;
}

float _vkp_cos(float x) {
    if (isinf(x) || isnan(x)) return uintBitsToFloat(0x7fc00000u);
    float a, b;
    int n = _vkp_rem_pio2(x, a, b);
    float r = (n & 1) == 0 ? _vkp_cosk(a, b) : _vkp_sink(a, b);
    return (n == 1 || n == 2) ? -r : r;
}

bool _vkp_signbit(float x) {
    return (floatBitsToUint(x) >> 31) != 0u;
}

const float _vkp_atan_hi[9] = float[](0.0e+00, 1.24354996e-01, 2.4497867e-01, 3.5877067e-01, 4.636476e-01, 5.585993e-01, 6.435011e-01, 7.1883e-01, 7.853982e-01);
const float _vkp_atan_lo[9] = float[](0.0e+00, -1.2403822e-09, -3.1786778e-09, 1.7639499e-09, 5.0121587e-09, 2.2111598e-08, 5.8689373e-09, 1.01883355e-08, -2.1855694e-08);
const float _vkp_atan_ihi[9] = float[](1.5707964e+00, 1.4464413e+00, 1.3258177e+00, 1.2120256e+00, 1.1071488e+00, 1.012197e+00, 9.272952e-01, 8.519663e-01, 7.853982e-01);
const float _vkp_atan_ilo[9] = float[](-4.371139e-08, 3.948538e-08, -4.053271e-08, 1.4129305e-08, -4.872355e-08, -6.2183436e-09, 1.0024317e-08, 5.7049188e-09, -2.1855694e-08);

float _vkp_atan(float x) {
    if (isnan(x)) return x;
    float ax = abs(x);
    if (ax < 1.2207031e-04) return x;
    bool inv = ax > 1.0;
    float t = inv ? 1.0 / ax : ax;
    // atan(t) = atan(j/8) + atan(u), u = (t - j/8) / (1 + t j/8), |u| <= 1/16 (1/8 for
    // j = 0, so that the table's rounding never weighs on a result half its size)
    float cj = t < 0.125 ? 0.0 : roundEven(t * 8.0);
    int j = int(cj);
    float c = cj * 0.125;
    float u = (t - c) / (1.0 + t * c);
    precise float z = u * u;
    precise float a = u + u * z * (-3.3333334e-01 + z * (1.9999991e-01 + z * (-1.4283007e-01 + z * (1.0832216e-01))));
    precise float r = inv ? (j == 0 ? _vkp_atan_ihi[0] : j == 1 ? _vkp_atan_ihi[1] : j == 2 ? _vkp_atan_ihi[2] : j == 3 ? _vkp_atan_ihi[3] : j == 4 ? _vkp_atan_ihi[4] : j == 5 ? _vkp_atan_ihi[5] : j == 6 ? _vkp_atan_ihi[6] : j == 7 ? _vkp_atan_ihi[7] : _vkp_atan_ihi[8]) + ((j == 0 ? _vkp_atan_ilo[0] : j == 1 ? _vkp_atan_ilo[1] : j == 2 ? _vkp_atan_ilo[2] : j == 3 ? _vkp_atan_ilo[3] : j == 4 ? _vkp_atan_ilo[4] : j == 5 ? _vkp_atan_ilo[5] : j == 6 ? _vkp_atan_ilo[6] : j == 7 ? _vkp_atan_ilo[7] : _vkp_atan_ilo[8]) - a)
                       : (j == 0 ? _vkp_atan_hi[0] : j == 1 ? _vkp_atan_hi[1] : j == 2 ? _vkp_atan_hi[2] : j == 3 ? _vkp_atan_hi[3] : j == 4 ? _vkp_atan_hi[4] : j == 5 ? _vkp_atan_hi[5] : j == 6 ? _vkp_atan_hi[6] : j == 7 ? _vkp_atan_hi[7] : _vkp_atan_hi[8]) + (a + (j == 0 ? _vkp_atan_lo[0] : j == 1 ? _vkp_atan_lo[1] : j == 2 ? _vkp_atan_lo[2] : j == 3 ? _vkp_atan_lo[3] : j == 4 ? _vkp_atan_lo[4] : j == 5 ? _vkp_atan_lo[5] : j == 6 ? _vkp_atan_lo[6] : j == 7 ? _vkp_atan_lo[7] : _vkp_atan_lo[8]));
    return x < 0.0 ? -r : r;
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

float _vkp_quot(float a, float b) {
    // the device's a / b, also for divisors whose reciprocal is subnormal
    _vkp_unflush(a, b);
    precise float q = a / b;
    return q;
}

float _vkp_div(float a, float b) {
    // a / b correctly rounded but for rare ties: Vulkan lets a device's division be off by
    // 2.5 ulp (NVIDIA's is), so the quotient is corrected by its exact residual
    precise float q = _vkp_quot(a, b);
    // (no correction where the residual would under- or overflow: Dekker's split of q * b)
    float big = _vkp_pow2i(127 - 32);
    if (abs(q) < _vkp_pow2i((-126) + 24) || abs(q) > big || abs(b) > big || q == 0.0)
        return q;
    float p, e;
    _vkp_two_prod(q, b, p, e);
    precise float r = (a - p) - e;
    precise float res = q + r / b;
    return res;
}

float _vkp_atan2(float y, float x) {
    if (isnan(x) || isnan(y)) return uintBitsToFloat(0x7fc00000u);
    bool nx = _vkp_signbit(x);
    float r;
    if (y == 0.0) r = nx ? 3.1415927e+00 : 0.0;
    else if (isinf(x)) r = isinf(y) ? (nx ? 2.3561945e+00 : 7.853982e-01) : (nx ? 3.1415927e+00 : 0.0);
    else if (x == 0.0 || isinf(y)) r = 1.5707964e+00;
    else {
        float ay = abs(y), ax = abs(x);
        int ey, ex;
        frexp(ay, ey);
        frexp(ax, ex);
        if (ey - ex > 26) r = 1.5707964e+00;
        else if (ex - ey > 26 && nx) r = 3.1415927e+00;
        else {
            // scaled near 1 (an approximate division of huge numbers can flush the
            // reciprocal to zero), then divided to the last bit
            float a = _vkp_atan(_vkp_div(ldexp(ay, -ex), ldexp(ax, -ex)));
            r = nx ? 3.1415927e+00 - (a - -8.742278e-08) : a;
        }
    }
    return _vkp_signbit(y) ? -r : r;
}

void _vkp_logdd(float x, out float hi, out float lo) {
    // log(x) as hi + lo to about twice the precision, finite x > 0 (for pow)
    float f;
    float e = _vkp_logsplit(x, f);
    precise float dh = 2.0 + f;
    precise float dl = f - (dh - 2.0);
    float sh = f / dh;
    float p, pe;
    _vkp_two_prod(sh, dh, p, pe);
    precise float sl = (((f - p) - pe) - sh * dl) / dh;
    float zh, ze;
    _vkp_two_prod(sh, sh, zh, ze);
    precise float zl = ze + 2.0 * sh * sl;
    float uh, ue;
    _vkp_two_prod(sh, zh, uh, ue);
    precise float ul = ue + sh * zl + sl * zh;
    // (2/3) s^3 in two parts, the rest of the series in one
    float vh, ve;
    _vkp_two_prod(uh, 6.666667e-01, vh, ve);
    precise float vl = ve + uh * -1.9868216e-08 + ul * 6.666667e-01;
    precise float w = uh * zh * (4.0e-01 + zh * (2.857153e-01 + zh * (2.220472e-01 + zh * (1.9121447e-01))));
    float h, l;
    _vkp_two_sum(2.0 * sh, vh, h, l);
    l += 2.0 * sl + vl + w;
    float H, L;
    _vkp_two_sum(e * 6.9314575e-01, h, H, L);
    L += l + e * 1.4286068e-06;
    precise float s = H + L;
    lo = L - (s - H);
    hi = s;
}

float _vkp_pow(float x, float y) {
    // C99 / NumPy: pow(x, +-0) = 1 and pow(1, y) = 1 even for nan
    if (y == 0.0 || x == 1.0) return 1.0;
    if (isnan(x) || isnan(y)) return uintBitsToFloat(0x7fc00000u);
    float ax = abs(x);
    if (isinf(y)) {
        if (ax == 1.0) return 1.0;
        return ((ax < 1.0) == (y < 0.0)) ? uintBitsToFloat(0x7f800000u) : 0.0;
    }
    bool yint = floor(y) == y;
    bool yodd = yint && floor(0.5 * y) != 0.5 * y;
    bool neg = _vkp_signbit(x);
    if (x == 0.0 || isinf(x)) {
        float r = ((x == 0.0) == (y < 0.0)) ? uintBitsToFloat(0x7f800000u) : 0.0;
        return (neg && yodd) ? -r : r;
    }
    if (neg && !yint) return uintBitsToFloat(0x7fc00000u);
    float lh, ll;
    _vkp_logdd(ax, lh, ll);
    float ph, pe;
    _vkp_two_prod(y, lh, ph, pe);
    float r;
    if (ph > 8.872283e+01) r = uintBitsToFloat(0x7f800000u);
    else if (ph < -1.0397208e+02) r = 0.0;
    else {
        precise float pl = pe + y * ll;
        precise float s = ph + pl;
        pl = pl - (s - ph);
        r = _vkp_expdd(s, pl);
    }
    return (neg && yodd) ? -r : r;
}

float _vkp_expm1(float x) {
    if (isnan(x)) return x;
    if (x > 8.872283e+01) return uintBitsToFloat(0x7f800000u);
    if (x < -1.75e+01) return -1.0;
    if (abs(x) < 1.2207031e-04 * 1.2207031e-04) return x;
    float kf = roundEven(x * 1.442695e+00);
    precise float hi = x - kf * 6.9314575e-01;
    precise float lo = kf * 1.4286068e-06;
    precise float r = hi - lo;
    precise float c = (hi - r) - lo;
    precise float p = r + (r * r * (5.0e-01 + r * (1.6666667e-01 + r * (4.1666467e-02 + r * (8.333298e-03 + r * (1.3933651e-03 + r * (1.9899286e-04)))))) + c * (1.0 + r));
    int k = int(kf);
    if (k == 0) return p;
    if (k > 56 || k < -56) return _vkp_scale(1.0 + p, k) - 1.0;
    float t = ldexp(1.0, k);
    precise float res = (t - 1.0) + t * p;
    return res;
}

float _vkp_tanh(float x) {
    if (isnan(x)) return x;
    float ax = abs(x);
    if (ax < 1.2207031e-04) return x;
    float r;
    if (ax >= 9.0e+00) r = 1.0;
    else if (ax >= 1.0) r = 1.0 - 2.0 / (_vkp_expm1(2.0 * ax) + 2.0);
    else {
        float t = _vkp_expm1(-2.0 * ax);
        r = -t / (t + 2.0);
    }
    return x < 0.0 ? -r : r;
}

float _vkp_log10(float x) {
    if (isnan(x) || x < 0.0) return uintBitsToFloat(0x7fc00000u);
    if (x == 0.0) return -uintBitsToFloat(0x7f800000u);
    if (isinf(x)) return x;
    float f;
    float e = _vkp_logsplit(x, f);
    precise float s = f / (2.0 + f);
    precise float z = s * s;
    precise float R = z * (6.666667e-01 + z * (4.0000123e-01 + z * (2.8550768e-01 + z * (2.3331732e-01))));
    precise float hfsq = 0.5 * f * f;
    precise float hi = uintBitsToFloat(floatBitsToUint(f - hfsq) & 0xfffff000u);
    precise float lo = ((f - hi) - hfsq) + s * (hfsq + R);
    // (hi + lo) = log(1 + f); times 1/ln(base), plus e * log_base(2), in two parts
    precise float vhi = hi * 4.342041e-01;
    precise float vlo = (lo + hi) * 9.038034e-05 + lo * 4.342041e-01 + e * 4.605039e-06;
    precise float y = e * 3.010254e-01;
    precise float w = y + vhi;
    vlo += (y - w) + vhi;
    precise float res = vlo + w;
    return res;
}

float _vkp_frexp(float x, out int e) {
    // x = m * 2**e, 0.5 <= |m| < 1; zeros, infinities and nan give (x, 0) as C and Python
    e = 0;
    if (x == 0.0 || isinf(x) || isnan(x)) return x;
    int bias = 0;
    if (abs(x) < 1.1754944e-38) { x *= _vkp_pow2i(24); bias = 24; }
    float m = frexp(x, e);
    e -= bias;
    return m;
}

float _vkp_ldexp(float x, int n) {
    // x * 2**n with one rounding (also to a subnormal): at most three exact products,
    // since GLSL's ldexp leaves overflow and subnormal results undefined
    if (n > 127) {
        x *= _vkp_pow2i(127);
        n -= 127;
        if (n > 127) { x *= _vkp_pow2i(127); n = min(n - 127, 127); }
    } else if (n < (-126)) {
        x *= _vkp_pow2i((-126) + 24);
        n -= (-126) + 24;
        if (n < (-126)) { x *= _vkp_pow2i((-126) + 24); n = max(n - (-126) - 24, (-126)); }
    }
    return x * _vkp_pow2i(n);
}

float _vkp_hypot(float x, float y) {
    // the larger part scaled to [0.5, 1) (no overflow or underflow), the sum of squares to
    // double length, and the driver's sqrt corrected by one Newton step (sqrt may be off
    // by a few ulp, and some drivers compute sqrt(0) as 0 * inversesqrt(0) = nan)
    float a = abs(x), b = abs(y);
    if (isinf(a) || isinf(b)) return uintBitsToFloat(0x7f800000u);
    if (isnan(a) || isnan(b)) return a + b;
    float m = max(a, b), n = min(a, b);
    if (m == 0.0) return m;
    int e;
    _vkp_frexp(m, e);
    m = _vkp_ldexp(m, -e);
    n = _vkp_ldexp(n, -e);
    float p, pe, q, qe, s, se, hh, he;
    _vkp_two_prod(m, m, p, pe);
    _vkp_two_prod(n, n, q, qe);
    _vkp_two_sum(p, q, s, se);
    precise float lo = se + (pe + qe);
    float h = sqrt(s);
    _vkp_two_prod(h, h, hh, he);
    precise float r = h + (((s - hh) - he) + lo) / (2.0 * h);
    return _vkp_ldexp(r, e);
}

float _vkp_copysign(float a, float b) {
    return (b < 0.0 || (b == 0.0 && 1.0 / b < 0.0)) ? -abs(a) : abs(a);
}

float _vkp_trunc(float x) {
    // toward zero (GLSL's trunc)
    return trunc(x);
}

// test_lang_arith.py:231: math_fns
void main() {
    int i;
    float v;
    // test_lang_arith.py:232
    i = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:233
    if (i < x_shape0) {
        // test_lang_arith.py:234
        v = x[i];
        // test_lang_arith.py:235
        out_py[(i) * out_py_shape1 + 0] = _vkp_sqrt_rn(v);
        // test_lang_arith.py:236
        out_py[(i) * out_py_shape1 + 1] = _vkp_exp(-(v));
        // test_lang_arith.py:237
        out_py[(i) * out_py_shape1 + 2] = _vkp_log(v);
        // test_lang_arith.py:238
        out_py[(i) * out_py_shape1 + 3] = _vkp_sin(v) + _vkp_cos(v);
        // test_lang_arith.py:239
        out_py[(i) * out_py_shape1 + 4] = _vkp_atan2(v, 2.0);
        // test_lang_arith.py:240
        out_py[(i) * out_py_shape1 + 5] = float(int(floor(v))) + 0.5;
        // test_lang_arith.py:241
        out_py[(i) * out_py_shape1 + 6] = inversesqrt(v);
        // test_lang_arith.py:242
        out_py[(i) * out_py_shape1 + 7] = _vkp_pow(v, 1.5);
        // test_lang_arith.py:243
        out_py[(i) * out_py_shape1 + 8] = clamp(v, 1.0, 2.0);
        // test_lang_arith.py:244
        out_py[(i) * out_py_shape1 + 9] = mix(0.0, 10.0, 0.25);
        // test_lang_arith.py:245
        out_py[(i) * out_py_shape1 + 10] = fma(v, 2.0, 1.0);
        // test_lang_arith.py:246
        out_py[(i) * out_py_shape1 + 11] = (_vkp_tanh((v - 1.0)) + _vkp_log10(v)) + _vkp_hypot(v, 1.0);
        // test_lang_arith.py:247
        out_py[(i) * out_py_shape1 + 12] = _vkp_pow(-(v), 2.0);
        // test_lang_arith.py:248
        out_py[(i) * out_py_shape1 + 13] = _vkp_copysign(v, (-1.0));
        // test_lang_arith.py:249
        out_py[(i) * out_py_shape1 + 14] = float((int(ceil(v)) + int(_vkp_trunc(-(v)))));
        // test_lang_arith.py:250
        out_py[(i) * out_py_shape1 + 15] = float(((int(isnan(v)) + (int(isinf(v)) * 2)) + 3));
    }
}
