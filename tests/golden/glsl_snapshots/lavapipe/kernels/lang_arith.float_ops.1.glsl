#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int b_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer a_buffer { float a[]; };
layout(std430, binding = 1) readonly buffer b_buffer { float b[]; };
layout(std430, binding = 2) buffer out_py_buffer { float out_py[]; };
layout(std430, binding = 3) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

bool _vkp_signbit(float x) {
    return (floatBitsToUint(x) >> 31) != 0u;
}

float _vkp_pow2i(int n) {
    // 2**n, exactly, for n in [(-126), 127]
    return uintBitsToFloat(uint(n + 127) << 23);
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

float _vkp_fmod(float x, float y) {
    // C's fmod, exactly: subtract |y| * 2**k from |x|, largest k first; each subtraction
    // is exact (Sterbenz), at most one per binade between |x| and |y|
    if (isnan(x) || isnan(y) || isinf(x) || y == 0.0) return uintBitsToFloat(0x7fc00000u);
    float r = abs(x), ay = abs(y);
    if (r < ay || isinf(y)) return x;
    int ey, er;
    _vkp_frexp(ay, ey);
    for (int i = 0; i < 280 && r >= ay; i++) {
        _vkp_frexp(r, er);
        float s = _vkp_ldexp(ay, er - ey);
        if (s > r) s *= 0.5;
        r -= s;
    }
    return _vkp_signbit(x) ? -r : r;
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

float _vkp_pyfloordiv(float x, float y) {
    // CPython's float divmod: the quotient of x minus its exact remainder, moved down where
    // the remainder takes the divisor's sign, then rounded to the integer it is (the
    // division may round); division by zero gives x / y (inf or nan), as NumPy
    if (y == 0.0) return x / y;
    float m = _vkp_fmod(x, y);
    // correctly rounded, whatever the device's / is: from 2**24 (float32) on a quotient is
    // an integer that a division 2.5 ulp off would miss; _vkp_div corrects quotients up to
    // 2**(127 - 32), so larger ones are scaled down and back up (exactly: powers of two)
    float num = x - m;
    bool huge = abs(num) > abs(y) * _vkp_pow2i(127 - 40);
    float d = huge ? _vkp_div(num * _vkp_pow2i(-48), y) * _vkp_pow2i(48)
                : _vkp_div(num, y);
    if (m != 0.0 && ((m < 0.0) != (y < 0.0))) d -= 1.0;
    if (d == 0.0) return _vkp_signbit(x) != _vkp_signbit(y) ? -0.0 : 0.0;
    float f = floor(d);
    if (d - f > 0.5) f += 1.0;
    return f;
}

float _vkp_pymod(float x, float y) {
    // Python's (and NumPy's) float %: fmod, moved to the divisor's sign
    float r = _vkp_fmod(x, y);
    if (r != 0.0) {
        if ((r < 0.0) != (y < 0.0)) r += y;
    } else {
        r = y < 0.0 || (y == 0.0 && _vkp_signbit(y)) ? -0.0 : 0.0;
        if (isnan(y) || isnan(x)) r = uintBitsToFloat(0x7fc00000u);
    }
    return r;
}

// test_lang_arith.py:78: float_ops
void main() {
    int i;
    float x;
    float y;
    // test_lang_arith.py:79
    i = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:80
    if (i < a_shape0) {
        // test_lang_arith.py:81
        x = a[i];
        // test_lang_arith.py:82
        y = b[i];
        // test_lang_arith.py:83
        out_py[(i) * out_py_shape1 + 0] = x + y;
        // test_lang_arith.py:84
        out_py[(i) * out_py_shape1 + 1] = x - y;
        // test_lang_arith.py:85
        out_py[(i) * out_py_shape1 + 2] = x * y;
        // test_lang_arith.py:86
        out_py[(i) * out_py_shape1 + 3] = x / y;
        // test_lang_arith.py:87
        out_py[(i) * out_py_shape1 + 4] = _vkp_pyfloordiv(x, y);
        // test_lang_arith.py:88
        out_py[(i) * out_py_shape1 + 5] = _vkp_pymod(x, y);
        // test_lang_arith.py:89
        out_py[(i) * out_py_shape1 + 6] = -(x);
        // test_lang_arith.py:90
        out_py[(i) * out_py_shape1 + 7] = abs(x);
        // test_lang_arith.py:91
        out_py[(i) * out_py_shape1 + 8] = x * x;
        // test_lang_arith.py:92
        out_py[(i) * out_py_shape1 + 9] = ((x * x) * x) - y;
        // test_lang_arith.py:93
        out_py[(i) * out_py_shape1 + 10] = min(x, y);
        // test_lang_arith.py:94
        out_py[(i) * out_py_shape1 + 11] = max(x, y);
    }
}
