"""What each element-wise operation becomes in kernel code for complex64/complex128 loops.

A module of its own, next to vkpersist/_ufunc_table.py (the real and integer loops), so
that neither grows past a readable size, and so that the real loops' generated code stays
exactly what it was: vkpersist/_elementwise.py calls `expression` here only for a node
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

The helpers are `@vkp.func` device functions made once per complex type (`_helpers`),
because a literal such as `complex(1.0, 0.0)` is complex64 in kernel code: each set
builds its constants with its own type (`C(1.0)`).
"""
from __future__ import annotations

import cmath

import numpy as np

from ._kernel import func
from .lang.builtins import (atan2, copysign, cos, cosh, exp, expm1, hypot, isinf, isnan,
                            log, sin, sinh, tan, tanh)
from .lang.builtins import sqrt as real_sqrt
from .lang.builtins import trunc
from .lang.types import i32

# NumPy's complex ufuncs that have no kernel here (NumPy's inverse functions follow
# Hull et al.'s careful algorithms; a naive formula would lose accuracy near the branch
# points, so they are refused rather than approximated)
MISSING = ("arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh")

_NAN = float("nan")
_LN2 = 0.6931471805599453
_LOG2E = 1.4426950408889634


def _helpers(C):
    """The device functions for complex type `C` (vkp.c64 or vkp.c128)."""

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
                return C(complex(ar / abr, ai / abi))
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

    return {k: v for k, v in locals().items() if k not in ("C",)}


_SETS: dict = {}


def _helper(ctype: str, name: str, functions: dict) -> str:
    """The kernel name of helper `name` for compute type `ctype` ("vkp.c64"/"vkp.c128"),
    added to the kernel's `functions` (the namespace its source compiles in)."""
    bits = ctype[len("vkp.c"):]
    if ctype not in _SETS:
        import vkpersist as vkp
        _SETS[ctype] = _helpers(getattr(vkp, ctype[len("vkp."):]))
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


def refuse(name: str, loop) -> None:
    """A TypeError for a complex loop of NumPy's that has no kernel here."""
    if name in MISSING:
        dt = next(d for d in loop if d.kind == "c")
        raise TypeError(f"vkpersist: {name} of {dt} arrays is not supported (the complex "
                        f"inverse trigonometric and hyperbolic functions have no kernel yet); "
                        f"complex functions that run on the device: {', '.join(SUPPORTED)}")


def expression(name: str, args, ins, functions: dict) -> str:
    """The kernel expression of ufunc `name` on operands `args` (kernel expressions
    already converted to the loop's input dtypes `ins`, at least one complex)."""
    refuse(name, ins)
    ctype = "vkp.c64" if np.dtype(ins[0]) == np.complex64 else "vkp.c128"
    if name in _CALLS:
        return f"{_helper(ctype, _CALLS[name], functions)}({', '.join(args)})"
    if name in _LOGICAL:
        a, b = (_nonzero(x, ctype) for x in args)
        return f"({a} {_LOGICAL[name]} {b})"
    if name == "logical_not":
        return f"(not {_nonzero(args[0], ctype)})"
    return _EMIT[name](*args)
