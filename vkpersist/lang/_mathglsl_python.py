"""Python's (and NumPy's) float `%` and `//` in GLSL, registered in _mathglsl's table: both
follow CPython's float divmod on top of the exact fmod there, so that `a // b` and `a % b`
agree with each other and with Python (GLSL's `floor(a / b)` makes `0.5 // 0.1` 5.0 where
Python says 4.0, since 0.1 is a little more than a tenth; `mod` is not exact either)."""
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
_fn("pyfloordiv", ["fmod", "signbit"], """$F _vkp_pyfloordiv${S}($F x, $F y) {
    // CPython's float divmod: the quotient of x minus its exact remainder, moved down where
    // the remainder takes the divisor's sign, then rounded to the integer it is (the
    // division may round); division by zero gives x / y (inf or nan), as NumPy
    if (y == 0.0) return x / y;
    $F m = _vkp_fmod${S}(x, y);
    $F d = (x - m) / y;
    if (m != 0.0 && ((m < 0.0) != (y < 0.0))) d -= 1.0;
    if (d == 0.0) return _vkp_signbit${S}(x) != _vkp_signbit${S}(y) ? -0.0 : 0.0;
    $F f = floor(d);
    if (d - f > 0.5) f += 1.0;
    return f;
}""")
