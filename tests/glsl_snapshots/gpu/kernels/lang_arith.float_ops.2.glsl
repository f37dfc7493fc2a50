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

double _vkp_pyfloordiv_float64(double x, double y) {
    // CPython's float divmod: the quotient of x minus its exact remainder, moved down where
    // the remainder takes the divisor's sign, then rounded to the integer it is (the
    // division may round); division by zero gives x / y (inf or nan), as NumPy
    if (y == 0.0) return x / y;
    double m = _vkp_fmod_float64(x, y);
    double d = (x - m) / y;
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
