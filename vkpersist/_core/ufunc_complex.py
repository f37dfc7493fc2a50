"""What each element-wise operation becomes in kernel code for complex64/complex128 loops.

A module of its own, next to vkpersist/_core/ufunc_table.py (the real and integer loops), so
that neither grows past a readable size, and so that the real loops' generated code stays
exactly what it was: vkpersist/_core/elementwise.py calls `expression` here only for a node
whose loop (NumPy's `ufunc.resolve_dtypes`) has a complex dtype.

Values are the kernel language's complex numbers (types.Complex, docs/language.md: a
(real, imag) pair stored as NumPy stores them), so `+ - *`, `==`, `abs`, `conjugate()` and
cmath's exp/log/log10/sqrt are the language's own. Where NumPy's loop has an algorithm of
its own, the device function below follows it, so that results match NumPy's where the
arithmetic is the same: division is NumPy's Smith's algorithm with its scale factor and
NaN cases (numpy/_core/src/umath/loops.c.src), reciprocal, sign (z/|z|, NumPy 2), the
lexicographic ordering of `<`, maximum, fmax (NaN rules included), power (npy_cpow:
small integer exponents by repeated squaring, else exp(b log a); 0 ** b is 0 for
b.real > 0), expm1, log1p, exp2 and
log2 (funcs.inc.src). sin, cos, tan, sinh, cosh and tanh are the textbook formulas on the
real functions (tanh by Kahan's formula, as FreeBSD's ctanh), keeping the real axis real.
arcsin, arccos, arcsinh, arccosh are Hull, Fairgrieve & Tang's algorithm (ACM TOMS 1997)
and arctan, arctanh log1p/atan2 forms of Kahan's, both arranged as in FreeBSD's catrig.c,
which npymath ports (glibc's, which NumPy calls on Linux, is another careful algorithm: the
two agree within 3 ulp of |result|, each within 2 of the exact value); the branch cuts are
C99's (the sign of a zero part picks the side), the special values C99's, with the signs
C99 leaves open taken as glibc's (a NaN's sign bit), as NumPy on Linux has them.

The helpers are `@vkp.func` device functions made once per complex type (`_helpers`),
because a literal such as `complex(1.0, 0.0)` is complex64 in kernel code: each set
builds its constants with its own type (`C(1.0)`).
"""
from __future__ import annotations

import cmath

import numpy as np

from .._kernel import func
from ..lang.builtins import (acos, asin, atan, atan2, atanh, copysign, cos, cosh, exp, expm1,
                             hypot, isinf, isnan, log, log1p, signbit, sin, sinh, tan, tanh)
from ..lang.builtins import sqrt as real_sqrt
from ..lang.builtins import trunc
from ..lang import types as T
from ..lang.types import i32

_NAN = float("nan")
_INF = float("inf")
_LN2 = 0.6931471805599453
_PIO2 = 1.5707963267948966
_LOG2E = 1.4426950408889634


def _arithmetic(C):
    """Division, reciprocals, sign and power for complex type `C`: NumPy's npy_math."""

    @func
    def div(a, b):
        ar = a.real
        ai = a.imag
        br = b.real
        bi = b.imag
        abr = abs(br)
        abi = abs(bi)
        nr = isnan(ar)
        ni = isnan(ai)
        if (not isnan(br)) and (not isnan(bi)) and (nr or ni) and (
                (((not nr) and isinf(ar)) or ((not ni) and isinf(ai))) and
                (br != 0 or bi != 0) or (isinf(br) and isinf(bi))):
            nan = ar if nr else ai
            return C(complex(nan, nan))
        if abr >= abi:
            if abr == 0 and abi == 0:
                if (nr and (ai == 0 or ni)) or (ar == 0 and ni):
                    return C(complex(ar if nr else ai, ai if ni else ar))
                # x / +0 written out (NaN for 0 or NaN, else inf of x's sign): a real
                # operand's imaginary part is the constant 0, and lavapipe folds 0.0 / x
                # to 0 (int / 0j gave -inf+0j; NumPy's is -inf+nanj)
                return C(complex(ar if nr else (_NAN if ar == 0 else copysign(_INF, ar)),
                                 ai if ni else (_NAN if ai == 0 else copysign(_INF, ai))))
            rat = bi / br
            scl = 1.0 / (br + bi * rat)
            return C(complex((ar + ai * rat) * scl, (ai - ar * rat) * scl))
        rat = br / bi
        scl = 1.0 / (bi + br * rat)
        return C(complex((ar * rat + ai) * scl, (ai * rat - ar) * scl))

    @func
    def inverse(b):
        # npy_math's cdiv(1, b) (power's negative exponents: Smith's algorithm, no NaN
        # cases), with its products by the constants 1 and 0 written out, so that the
        # compiler's folding of `0 - x` into `-x` cannot flip the sign of a zero
        br = b.real
        bi = b.imag
        abr = abs(br)
        abi = abs(bi)
        if abr >= abi:
            if abr == 0 and abi == 0:
                return C(complex(1.0 / abr, 0.0 / abi))
            rat = bi / br
            scl = 1.0 / (br + bi * rat)
            return C(complex(scl, (abs(rat) if rat == 0 else -rat) * scl))
        rat = br / bi
        scl = 1.0 / (bi + br * rat)
        return C(complex((abs(rat) if rat == 0 else rat) * scl, -scl))

    @func
    def recip(a):
        ar = a.real
        ai = a.imag
        if abs(ai) <= abs(ar):
            r = ai / ar
            d = ar + ai * r
            return C(complex(1.0 / d, -r / d))
        r = ar / ai
        d = ar * r + ai
        return C(complex(r / d, -1.0 / d))

    @func
    def sign(a):
        ar = a.real
        ai = a.imag
        m = hypot(ar, ai)
        if isnan(m) or (isinf(ar) and isinf(ai)):
            return C(complex(_NAN, _NAN))
        if isinf(m):
            if isinf(ar):
                return C(complex(copysign(1.0, ar), 0.0))
            return C(complex(0.0, copysign(1.0, ai)))
        if m == 0:
            return C(0.0)
        return C(complex(ar / m, ai / m))

    @func
    def power(a, b):
        ar = a.real
        ai = a.imag
        br = b.real
        bi = b.imag
        if br == 0 and bi == 0:
            return C(1.0)
        if ar == 0 and ai == 0:
            if br > 0:
                return C(0.0)
            return C(complex(_NAN, _NAN))
        if bi == 0 and abs(br) < 100.0 and br == trunc(br):
            n = i32(br)
            if n == 1:
                return a
            if n == 2:
                return a * a
            if n == 3:
                return a * (a * a)
            k = n if n > 0 else -n
            acc = C(1.0)
            p = a
            mask = 1
            while True:
                if (k & mask) != 0:
                    acc = acc * p
                mask = mask << 1
                if k < mask:
                    break
                p = p * p
            if br < 0:
                return inverse(acc)
            return acc
        return cmath.exp(b * cmath.log(a))

    return {k: v for k, v in locals().items() if k not in ("C", "part") and not k.isupper()}


def _elementary(C):
    """The exponentials, logarithms and trigonometric functions for complex type `C`."""

    @func
    def csinh(z):
        x = z.real
        y = z.imag
        if y == 0:
            return C(complex(sinh(x), y))
        return C(complex(sinh(x) * cos(y), cosh(x) * sin(y)))

    @func
    def ccosh(z):
        x = z.real
        y = z.imag
        if y == 0:
            return C(complex(cosh(x), copysign(0.0, x) * y))
        return C(complex(cosh(x) * cos(y), sinh(x) * sin(y)))

    @func
    def ctanh(z):
        x = z.real
        y = z.imag
        if y == 0:
            return C(complex(tanh(x), y))
        if abs(x) >= 22.0:
            e = exp(-abs(x))
            return C(complex(copysign(1.0, x), 4.0 * sin(y) * cos(y) * e * e))
        t = tan(y)
        beta = 1.0 + t * t
        s = sinh(x)
        rho = real_sqrt(1.0 + s * s)
        den = 1.0 + beta * s * s
        return C(complex(beta * rho * s / den, t / den))

    @func
    def csin(z):
        w = csinh(C(complex(-z.imag, z.real)))        # sin z = -i sinh(iz)
        return C(complex(w.imag, -w.real))

    @func
    def ccos(z):
        return ccosh(C(complex(-z.imag, z.real)))     # cos z = cosh(iz)

    @func
    def ctan(z):
        w = ctanh(C(complex(-z.imag, z.real)))        # tan z = -i tanh(iz)
        return C(complex(w.imag, -w.real))

    @func
    def cexpm1(z):
        x = z.real
        y = z.imag
        h = sin(y / 2.0)
        return C(complex(expm1(x) * cos(y) - 2.0 * h * h, exp(x) * sin(y)))

    @func
    def clog1p(z):
        x = z.real + 1.0
        y = z.imag
        return C(complex(log(hypot(x, y)), atan2(y, x)))

    @func
    def cexp2(z):
        return cmath.exp(C(complex(z.real * _LN2, z.imag * _LN2)))

    @func
    def clog2(z):
        w = cmath.log(z)
        return C(complex(w.real * _LOG2E, w.imag * _LOG2E))

    @func
    def csqrt(z):
        return cmath.sqrt(z)

    @func
    def cexp(z):
        return cmath.exp(z)

    @func
    def clog(z):
        return cmath.log(z)

    @func
    def clog10(z):
        return cmath.log10(z)

    return {k: v for k, v in locals().items() if k not in ("C", "part") and not k.isupper()}


def _inverse(C):
    """The inverse trigonometric and hyperbolic functions for complex type `C`."""
    # ---- the inverse functions: Hull, Fairgrieve & Tang's algorithm (ACM TOMS 23, 1997)
    # as FreeBSD's catrig.c arranges it, which NumPy's npy_casinh ... npy_catanh follow;
    # its thresholds are the part type's (EPS, RECIP_EPS, ...: float32's for complex64)
    part = np.float64 if np.dtype(C.dtype) == np.complex128 else np.float32
    EPS = float(np.finfo(part).eps)
    RECIP_EPS = 1.0 / EPS                     # |z| beyond: the asymptotic formulas
    SQRT_MIN = float(np.sqrt(np.finfo(part).tiny))
    FOUR_SQRT_MIN = 4.0 * SQRT_MIN
    TINY_ASIN = float(np.sqrt(6.0 * EPS) / 4.0)   # |z| below: asin z = z (acos: pi/2 - z)
    TINY_ATAN = float(np.sqrt(3.0 * EPS) / 2.0)   # and atanh z = z
    PIO2_HI = float(part(_PIO2))
    PIO2_LO = float(np.float64(_PIO2) - np.float64(PIO2_HI)) if part is np.float32 \
        else 6.123233995736766e-17            # pi/2 - PIO2_HI
    LN4 = 2.0 * _LN2
    A_CROSS = 10.0                            # Hull et al.: 1.5; catrig.c: 10 works better
    B_CROSS = 0.6417
    UP1 = 2.0 / EPS                           # exact power-of-two scalings
    UP2 = 4.0 / (EPS * EPS)

    @func
    def half_gap(a, b, h):
        # (h - b) / 2 for h = hypot(a, b), without cancellation when b > 0
        if b < 0:
            return (h - b) * 0.5
        if b == 0:
            return a * 0.5
        return a * a / (h + b) * 0.5

    @func
    def asinh_parts(x, y):
        # x, y >= 0 and below RECIP_EPS: (re, b, s, t) for asinh(x + iy) = re + i im, where
        # im = asin(b) if b >= 0, else atan2(t, s) (s = sqrt(A*A - y*y), scaled with t = y
        # where it would underflow). A = (|z + i| + |z - i|) / 2 >= 1 and B = y / A; the
        # differences A - 1 and A - y come from half_gap where they would cancel.
        rp = hypot(x, y + 1.0)                # |z + i|
        rm = hypot(x, y - 1.0)                # |z - i|
        a = (rp + rm) * 0.5
        if a < 1.0:                           # rounding
            a = 1.0
        if a < A_CROSS:                       # re = log1p((A-1) + sqrt((A-1)(A+1)))
            if y == 1.0 and x < EPS * EPS / 128.0:
                re = real_sqrt(x)             # A - 1 ~ x/2: half_gap(x, 2) would underflow
            elif x >= EPS * abs(y - 1.0):
                am1 = half_gap(x, 1.0 + y, rp) + half_gap(x, 1.0 - y, rm)
                re = log1p(am1 + real_sqrt(am1 * (a + 1.0)))
            elif y < 1.0:                     # A - 1 ~ x*x / (2 (1 - y*y))
                re = x / real_sqrt((1.0 - y) * (1.0 + y))
            else:                             # A - 1 ~ y - 1
                re = log1p((y - 1.0) + real_sqrt((y - 1.0) * (y + 1.0)))
        else:
            re = log(a + real_sqrt(a * a - 1.0))
        if y < FOUR_SQRT_MIN:                 # y / A may underflow: atan2 of scaled parts
            return re, -1.0, a * UP1, y * UP1
        b = y / a
        if b <= B_CROSS:
            return re, b, a, y
        # asin(B) near pi/2 is ill-conditioned in B: atan2(y, sqrt((A - y)(A + y)))
        if y == 1.0 and x < EPS / 128.0:
            s = real_sqrt(x) * real_sqrt((a + y) * 0.5)
        elif x >= EPS * abs(y - 1.0):
            amy = half_gap(x, y + 1.0, rp) + half_gap(x, y - 1.0, rm)
            s = real_sqrt(amy * (a + y))
        elif y > 1.0:                         # A - y ~ x*x / (2 (y*y - 1)), scaled up
            s = x * UP2 * y / real_sqrt((y + 1.0) * (y - 1.0))
            y = y * UP2
        else:                                 # A ~ 1
            s = real_sqrt((1.0 - y) * (1.0 + y))
        return re, -1.0, s, y

    @func
    def log_large(ax, ay):
        # log(2|z|) for |z| > RECIP_EPS (asinh z ~ log 2z there); halved parts: no overflow
        return log(hypot(ax * 0.5, ay * 0.5)) + LN4

    @func
    def casinh(z):
        x = z.real
        y = z.imag
        ax = abs(x)
        ay = abs(y)
        if isnan(x) or isnan(y):
            # C99's where it fixes them; where it leaves a sign open, glibc's (NumPy's
            # on Linux): the NaN's sign bit
            if isinf(x):
                return C(complex(x, y + y))
            if isinf(y):
                return C(complex(-_INF if signbit(x) else _INF, x + x))
            if y == 0:
                return C(complex(x + x, y))
            return C(complex(_NAN, _NAN))
        if ax > RECIP_EPS or ay > RECIP_EPS:
            return C(complex(copysign(log_large(ax, ay), x), copysign(atan2(ay, ax), y)))
        if ax < TINY_ASIN and ay < TINY_ASIN:     # zeros too: their signs kept
            return z
        re, b, s, t = asinh_parts(ax, ay)
        im = asin(b) if b >= 0 else atan2(t, s)
        return C(complex(copysign(re, x), copysign(im, y)))

    @func
    def casin(z):
        w = casinh(C(complex(z.imag, z.real)))    # asin z = swap(asinh(swap z))
        return C(complex(w.imag, w.real))

    @func
    def cacos(z):
        x = z.real
        y = z.imag
        ax = abs(x)
        ay = abs(y)
        if isnan(x) or isnan(y):
            if isinf(x):                          # the infinity's sign: as casinh's
                return C(complex(y + y, _INF if signbit(y) else -_INF))
            if isinf(y):
                return C(complex(x + x, -y))
            if x == 0:
                return C(complex(_PIO2, y + y))
            return C(complex(_NAN, _NAN))
        if ax > RECIP_EPS or ay > RECIP_EPS:      # acos z ~ -i sign(y) log 2z
            im = log_large(ax, ay)
            return C(complex(atan2(ay, x), im if signbit(y) else -im))
        if x == 1 and y == 0:
            return C(complex(0.0, -y))
        if ax < TINY_ASIN and ay < TINY_ASIN:
            return C(complex(PIO2_HI - (x - PIO2_LO), -y))
        # acos z = pi/2 - asin z, with asin's parts for the swapped quadrant-one argument
        im, b, s, t = asinh_parts(ay, ax)
        if b >= 0:
            re = acos(-b if signbit(x) else b)
        else:
            re = atan2(s, -t if signbit(x) else t)
        return C(complex(re, im if signbit(y) else -im))

    @func
    def cacosh(z):
        w = cacos(z)                              # acosh z = +-i acos z, re >= 0
        re = w.real
        im = w.imag
        if isnan(re) and isnan(im):
            return C(complex(im, re))
        if isnan(re):
            return C(complex(abs(im), re))
        if isnan(im):                             # z = 0 + i NaN: NaN + i pi/2 (C11)
            return C(complex(im, re))
        return C(complex(abs(im), copysign(re, z.imag)))

    @func
    def recip_re(x, y):
        # Re(1 / (x + iy)) = x / (x*x + y*y) for |z| > RECIP_EPS: by the ratio of the parts,
        # as Smith's division, so that neither square overflows
        ax = abs(x)
        ay = abs(y)
        if isinf(ax) or isinf(ay):
            return copysign(0.0, x)
        if ax >= ay:
            r = ay / ax
            return (1.0 / x) / (1.0 + r * r)
        r = x / y
        return (r / y) / (1.0 + r * r)

    @func
    def catanh(z):
        x = z.real
        y = z.imag
        ax = abs(x)
        ay = abs(y)
        if y == 0 and ax <= 1:                    # the real segment, +-1 included
            return C(complex(atanh(x), y))
        if x == 0:                                # i atan(y), NaN included
            return C(complex(x, atan(y)))
        if isnan(x) or isnan(y):
            if isinf(x):
                return C(complex(copysign(0.0, x), y + y))
            if isinf(y):                          # the zero's sign: the NaN's
                return C(complex(-0.0 if signbit(x) else 0.0, copysign(_PIO2, y)))
            return C(complex(_NAN, _NAN))
        if ax > RECIP_EPS or ay > RECIP_EPS:      # atanh z ~ 1/z + i sign(y) pi/2
            return C(complex(recip_re(x, y), copysign(_PIO2, y)))
        if ax < TINY_ATAN and ay < TINY_ATAN:
            return z
        # re = log1p(4|x| / |z - 1|^2) / 4, im = atan2(2y, (1 - x)(1 + x) - y*y) / 2
        if ax == 1 and ay < EPS:
            re = (_LN2 - log(ay)) * 0.5
        else:
            d = ax - 1.0
            dd = d * d
            if ay >= SQRT_MIN:                    # else y*y would underflow: negligible
                dd = dd + ay * ay
            re = log1p(4.0 * ax / dd) * 0.25
        if ax == 1:
            im = atan2(2.0, -ay) * 0.5
        elif ay < EPS:
            im = atan2(2.0 * ay, (1.0 - ax) * (1.0 + ax)) * 0.5
        else:
            im = atan2(2.0 * ay, (1.0 - ax) * (1.0 + ax) - ay * ay) * 0.5
        return C(complex(copysign(re, x), copysign(im, y)))

    @func
    def catan(z):
        w = catanh(C(complex(z.imag, z.real)))    # atan z = swap(atanh(swap z))
        return C(complex(w.imag, w.real))

    return {k: v for k, v in locals().items() if k not in ("C", "part") and not k.isupper()}


def _helpers(C):
    """The device functions for complex type `C` (vkp.c64 or vkp.c128)."""
    return {**_arithmetic(C), **_elementary(C), **_inverse(C)}


_SETS: dict = {}


def _helper(ctype: str, name: str, functions: dict) -> str:
    """The kernel name of helper `name` for compute type `ctype` ("vkp.c64"/"vkp.c128"),
    added to the kernel's `functions` (the namespace its source compiles in)."""
    bits = ctype[len("vkp.c"):]
    if ctype not in _SETS:
        _SETS[ctype] = _helpers(getattr(T, ctype[len("vkp."):]))
    glsl_name = f"cx{bits}_{name}"
    functions[glsl_name] = _SETS[ctype][name]
    return glsl_name


def _parts(a, b):
    return f"{a}.real", f"{a}.imag", f"{b}.real", f"{b}.imag"


def _order(op):
    """NumPy's lexicographic complex comparison `op` (CGT, CGE, CLT, CLE in loops.c.src):
    a real-part decision counts only when neither imaginary part is NaN."""
    def emit(a, b):
        ar, ai, br, bi = _parts(a, b)
        return (f"(({ar} {op[0]} {br} and not vkp.isnan({ai}) and not vkp.isnan({bi})) or "
                f"({ar} == {br} and {ai} {op} {bi}))")
    return emit


def _nan(z):
    return f"(vkp.isnan({z}.real) or vkp.isnan({z}.imag))"


def _extremum(op, nan_wins):
    """maximum/minimum (a NaN operand wins, the first one first) and fmax/fmin (a NaN
    loses), as NumPy's complex loops."""
    def emit(a, b):
        if nan_wins:
            return f"({a} if ({_nan(a)} or {_order(op)(a, b)}) else {b})"
        return f"({a} if ({_nan(b)} or {_order(op)(a, b)}) else {b})"
    return emit


def _nonzero(z, ctype):
    return f"({z} != {ctype}(0))"


# ufunc name -> what it calls: a helper of _helpers (by name), or an emitter(*operands)
_CALLS = {
    "true_divide": "div", "power": "power", "reciprocal": "recip", "sign": "sign",
    "sqrt": "csqrt", "exp": "cexp", "log": "clog", "log10": "clog10", "log2": "clog2",
    "exp2": "cexp2", "expm1": "cexpm1", "log1p": "clog1p", "sin": "csin", "cos": "ccos",
    "tan": "ctan", "sinh": "csinh", "cosh": "ccosh", "tanh": "ctanh",
    "arcsin": "casin", "arccos": "cacos", "arctan": "catan", "arcsinh": "casinh",
    "arccosh": "cacosh", "arctanh": "catanh",
}
_EMIT = {
    "add": lambda a, b: f"({a} + {b})",
    "subtract": lambda a, b: f"({a} - {b})",
    "multiply": lambda a, b: f"({a} * {b})",
    "negative": lambda a: f"(-{a})",
    "positive": lambda a: a,
    "conjugate": lambda a: f"{a}.conjugate()",
    "absolute": lambda a: f"abs({a})",
    "square": lambda a: f"({a} * {a})",
    "isnan": _nan,
    "isinf": lambda z: f"(vkp.isinf({z}.real) or vkp.isinf({z}.imag))",
    "isfinite": lambda z: (f"(not (vkp.isnan({z}.real) or vkp.isinf({z}.real) or "
                           f"vkp.isnan({z}.imag) or vkp.isinf({z}.imag)))"),
    "equal": lambda a, b: f"({a} == {b})",
    "not_equal": lambda a, b: f"({a} != {b})",
    "less": _order("<"), "less_equal": _order("<="),
    "greater": _order(">"), "greater_equal": _order(">="),
    "maximum": _extremum(">=", True), "minimum": _extremum("<=", True),
    "fmax": _extremum(">=", False), "fmin": _extremum("<=", False),
}
_LOGICAL = {"logical_and": "and", "logical_or": "or", "logical_xor": "!="}
# the ufuncs with complex loops here (what docs/arrays.md lists)
SUPPORTED = sorted(set(_CALLS) | set(_EMIT) | set(_LOGICAL) | {"logical_not"})


def expression(name: str, args, ins, functions: dict) -> str:
    """The kernel expression of ufunc `name` on operands `args` (kernel expressions
    already converted to the loop's input dtypes `ins`, at least one complex; a ufunc of
    SUPPORTED: vkpersist/_core/elementwise.py refuses the others by name)."""
    ctype = "vkp.c64" if np.dtype(ins[0]) == np.complex64 else "vkp.c128"
    if name in _CALLS:
        return f"{_helper(ctype, _CALLS[name], functions)}({', '.join(args)})"
    if name in _LOGICAL:
        a, b = (_nonzero(x, ctype) for x in args)
        return f"({a} {_LOGICAL[name]} {b})"
    if name == "logical_not":
        return f"(not {_nonzero(args[0], ctype)})"
    return _EMIT[name](*args)
