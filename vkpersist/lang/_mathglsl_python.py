"""Python's (and NumPy's) float arithmetic in GLSL where a GPU's differs, registered in
_mathglsl's table:

- `%` and `//` follow CPython's float divmod on top of the exact fmod there, so that
  `a // b` and `a % b` agree with each other and with Python (GLSL's `floor(a / b)` makes
  `0.5 // 0.1` 5.0 where Python says 4.0, since 0.1 is a little more than a tenth; `mod`
  is not exact either);
- `/` and sqrt correctly rounded on devices whose own are not (Target.exact_division):
  the device's result corrected once by its exact residual, an fma (Markstein's step).
  Measured on the H200 (benchmarks/probes/float_semantics.py): every one of 10^7 random float32
  quotients and square roots then equals NumPy's, against 70 % and 83 % before."""
from __future__ import annotations

from ._mathglsl import _fn

_fn("pymod", ["fmod"], """$F _vkp_pymod${S}($F x, $F y) {
    // Python's (and NumPy's) float %: fmod, moved to the divisor's sign
    $F r = _vkp_fmod${S}(x, y);
    if (r != 0.0) {
        if ((r < 0.0) != (y < 0.0)) r += y;
    } else {
        r = y < 0.0 || (y == 0.0 && _vkp_signbit${S}(y)) ? -0.0 : 0.0;
        if (isnan(y) || isnan(x)) r = $NAN;
    }
    return r;
}""")
_fn("pyfloordiv", ["fmod", "signbit", "div", "pow2i"], """$F _vkp_pyfloordiv${S}($F x, $F y) {
    // CPython's float divmod: the quotient of x minus its exact remainder, moved down where
    // the remainder takes the divisor's sign, then rounded to the integer it is (the
    // division may round); division by zero gives x / y (inf or nan), as NumPy
    if (y == 0.0) return x / y;
    $F m = _vkp_fmod${S}(x, y);
    // correctly rounded, whatever the device's / is: from 2**24 (float32) on a quotient is
    // an integer that a division 2.5 ulp off would miss; _vkp_div corrects quotients up to
    // 2**(IEMAX - 32), so larger ones are scaled down and back up (exactly: powers of two)
    $F num = x - m;
    bool huge = abs(num) > abs(y) * _vkp_pow2i${S}(IEMAX - 40);
    $F d = huge ? _vkp_div${S}(num * _vkp_pow2i${S}(-48), y) * _vkp_pow2i${S}(48)
                : _vkp_div${S}(num, y);
    if (m != 0.0 && ((m < 0.0) != (y < 0.0))) d -= 1.0;
    if (d == 0.0) return _vkp_signbit${S}(x) != _vkp_signbit${S}(y) ? -0.0 : 0.0;
    $F f = floor(d);
    if (d - f > 0.5) f += 1.0;
    return f;
}""")
_fn("div_rn", ["unflush"], """$F _vkp_div_rn${S}($F a, $F b) {
    // a / b correctly rounded: the device's quotient q (Vulkan allows 2.5 ulp) plus the
    // exact residual a - q * b (one fma) over b; zeros, infinities and NaN as the device's
    // (IEEE's where it keeps them: SignedZeroInfNanPreserve). A divisor whose reciprocal
    // is subnormal is scaled first, with the dividend (NVIDIA flushes that reciprocal)
    _vkp_unflush${S}(a, b);
    precise $F q = a / b;
    if (q == 0.0 || isinf(q) || isnan(q)) return q;
    precise $F r = 1.0 / b;
    precise $F e = fma(-q, b, a);
    precise $F res = fma(e, r, q);
    return res;
}""")
_fn("sqrt_rn", [], """$F _vkp_sqrt_rn${S}($F a) {
    // sqrt(a) correctly rounded: the device's root s corrected by (a - s * s) / (2 s)
    precise $F s = sqrt(a);
    if (s == 0.0 || isinf(s) || isnan(s)) return s;
    precise $F e = fma(-s, s, a);
    precise $F res = fma(e, 0.5 / s, s);
    return res;
}""")
