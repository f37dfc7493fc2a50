#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int b_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer a_buffer { double a[]; };
layout(std430, binding = 1) readonly buffer b_buffer { double b[]; };
layout(std430, binding = 2) buffer out_py_buffer { double out_py[]; };
layout(std430, binding = 3) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

bool _vkp_signbit_float64(double x) {
    return (unpackDouble2x32(x).y >> 31) != 0u;
}

double _vkp_pow2i_float64(int n) {
    // 2**n, exactly, for n in [(-1022), 1023]
    return packDouble2x32(uvec2(0u, uint(n + 1023) << 20));
}

double _vkp_frexp_float64(double x, out int e) {
    // x = m * 2**e, 0.5 <= |m| < 1; zeros, infinities and nan give (x, 0) as C and Python
    e = 0;
    if (x == 0.0 || isinf(x) || isnan(x)) return x;
    int bias = 0;
    if (abs(x) < 2.2250738585072014e-308lf) { x *= _vkp_pow2i_float64(53); bias = 53; }
    double m = frexp(x, e);
    e -= bias;
    return m;
}

double _vkp_ldexp_float64(double x, int n) {
    // x * 2**n with one rounding (also to a subnormal): at most three exact products,
    // since GLSL's ldexp leaves overflow and subnormal results undefined
    if (n > 1023) {
        x *= _vkp_pow2i_float64(1023);
        n -= 1023;
        if (n > 1023) { x *= _vkp_pow2i_float64(1023); n = min(n - 1023, 1023); }
    } else if (n < (-1022)) {
        x *= _vkp_pow2i_float64((-1022) + 53);
        n -= (-1022) + 53;
        if (n < (-1022)) { x *= _vkp_pow2i_float64((-1022) + 53); n = max(n - (-1022) - 53, (-1022)); }
    }
    return x * _vkp_pow2i_float64(n);
}

double _vkp_fmod_float64(double x, double y) {
    // C's fmod, exactly: subtract |y| * 2**k from |x|, largest k first; each subtraction
    // is exact (Sterbenz), at most one per binade between |x| and |y|
    if (isnan(x) || isnan(y) || isinf(x) || y == 0.0) return packDouble2x32(uvec2(0u, 0x7ff80000u));
    double r = abs(x), ay = abs(y);
    if (r < ay || isinf(y)) return x;
    int ey, er;
    _vkp_frexp_float64(ay, ey);
    for (int i = 0; i < 2100 && r >= ay; i++) {
        _vkp_frexp_float64(r, er);
        double s = _vkp_ldexp_float64(ay, er - ey);
        if (s > r) s *= 0.5;
        r -= s;
    }
    return _vkp_signbit_float64(x) ? -r : r;
}

void _vkp_two_prod_float64(double a, double b, out double p, out double e) {
    // Dekker: p + e == a * b exactly
    precise double pp = a * b;
    precise double ca = 134217729.0lf * a;
    precise double ah = ca - (ca - a);
    precise double al = a - ah;
    precise double cb = 134217729.0lf * b;
    precise double bh = cb - (cb - b);
    precise double bl = b - bh;
    precise double ee = ((ah * bh - pp) + ah * bl + al * bh) + al * bl;
    p = pp;
    e = ee;
}

void _vkp_unflush_float64(inout double a, inout double b) {
    // a divisor whose reciprocal is subnormal, and the dividend, scaled by 1/4 (exactly; a
    // dividend that loses bits to it has a quotient below the normal range anyway): NVIDIA
    // divides as a * (1 / b) and flushes that reciprocal to zero (FLT_MAX / FLT_MAX gave 0)
    if (abs(b) > _vkp_pow2i_float64(1023 - 2)) {
        a *= 0.25;
        b *= 0.25;
    }
}

double _vkp_quot_float64(double a, double b) {
    // the device's a / b, also for divisors whose reciprocal is subnormal
    _vkp_unflush_float64(a, b);
    precise double q = a / b;
    return q;
}

double _vkp_div_float64(double a, double b) {
    // a / b correctly rounded but for rare ties: Vulkan lets a device's division be off by
    // 2.5 ulp (NVIDIA's is), so the quotient is corrected by its exact residual
    precise double q = _vkp_quot_float64(a, b);
    // (no correction where the residual would under- or overflow: Dekker's split of q * b)
    double big = _vkp_pow2i_float64(1023 - 32);
    if (abs(q) < _vkp_pow2i_float64((-1022) + 53) || abs(q) > big || abs(b) > big || q == 0.0)
        return q;
    double p, e;
    _vkp_two_prod_float64(q, b, p, e);
    precise double r = (a - p) - e;
    precise double res = q + r / b;
    return res;
}

double _vkp_pyfloordiv_float64(double x, double y) {
    // CPython's float divmod: the quotient of x minus its exact remainder, moved down where
    // the remainder takes the divisor's sign, then rounded to the integer it is (the
    // division may round); division by zero gives x / y (inf or nan), as NumPy
    if (y == 0.0) return x / y;
    double m = _vkp_fmod_float64(x, y);
    // correctly rounded, whatever the device's / is: from 2**24 (float32) on a quotient is
    // an integer that a division 2.5 ulp off would miss; _vkp_div corrects quotients up to
    // 2**(1023 - 32), so larger ones are scaled down and back up (exactly: powers of two)
    double num = x - m;
    bool huge = abs(num) > abs(y) * _vkp_pow2i_float64(1023 - 40);
    double d = huge ? _vkp_div_float64(num * _vkp_pow2i_float64(-48), y) * _vkp_pow2i_float64(48)
                : _vkp_div_float64(num, y);
    if (m != 0.0 && ((m < 0.0) != (y < 0.0))) d -= 1.0;
    if (d == 0.0) return _vkp_signbit_float64(x) != _vkp_signbit_float64(y) ? -0.0 : 0.0;
    double f = floor(d);
    if (d - f > 0.5) f += 1.0;
    return f;
}

double _vkp_pymod_float64(double x, double y) {
    // Python's (and NumPy's) float %: fmod, moved to the divisor's sign
    double r = _vkp_fmod_float64(x, y);
    if (r != 0.0) {
        if ((r < 0.0) != (y < 0.0)) r += y;
    } else {
        r = y < 0.0 || (y == 0.0 && _vkp_signbit_float64(y)) ? -0.0 : 0.0;
        if (isnan(y) || isnan(x)) r = packDouble2x32(uvec2(0u, 0x7ff80000u));
    }
    return r;
}

// test_lang_arith.py:78: float_ops
void main() {
    int i;
    double x;
    double y;
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
        out_py[(i) * out_py_shape1 + 4] = _vkp_pyfloordiv_float64(x, y);
        // test_lang_arith.py:88
        out_py[(i) * out_py_shape1 + 5] = _vkp_pymod_float64(x, y);
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
