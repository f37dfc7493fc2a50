"""The complex functions of the kernel language, as GLSL helpers on vec2/dvec2 (complex64 and
complex128 are (re, im) pairs, types.Complex), built on the real functions of mathlib.py so
that they inherit its accuracy on every device instead of the driver's.

Here too are the builtins that make and take complex values (`complex(x, y)`, cmath's
functions; the IR intrinsics semantics.py makes for products, quotients and powers), as
entries of the registry in builtins.py.

The algorithms are the textbook ones: products in four multiplications, quotients by
Smith's algorithm (no overflow of |b|**2), moduli scaled by the larger part (no overflow or
underflow of re**2 + im**2), square roots by the stable half-angle formula, powers as
exp(w log z) with the small integer powers of z ** n unrolled into products by
semantics.py. C99 Annex G's special values are kept where they cost one test (zeros, the
real axis, infinite parts of sqrt and abs); products and quotients of infinities and NaNs
give what the formula gives (NaN parts), as in numba's fast path.
"""
from __future__ import annotations

import cmath
from string import Template

from . import builtins as B
from . import ir
from . import mathlib
from . import types as T
from .values import PyValue

# name -> (complex helpers it calls, real mathlib functions it calls, GLSL template):
# $F the float type, $V the vector type, ${S} the name suffix
_FUNCTIONS = {
    # precise: no fused multiply-add, so a product is Python's and NumPy's C formula bit
    # for bit on every driver (NVIDIA's compiler contracts a*b - c*d otherwise)
    "cmul": ((), (), """$V _vkp_cmul${S}($V a, $V b) {
    precise $F re = a.x * b.x - a.y * b.y;
    precise $F im = a.x * b.y + a.y * b.x;
    return $V(re, im);
}"""),
    "cdiv": ((), (), """$V _vkp_cdiv${S}($V a, $V b) {
    // Smith: divide by the larger part of b first
    if (abs(b.x) >= abs(b.y)) {
        if (b.x == 0.0) return $V(a.x / abs(b.x), a.y / abs(b.x));   // b == 0: inf/nan
        $F r = b.y / b.x, d = b.x + b.y * r;
        return $V((a.x + a.y * r) / d, (a.y - a.x * r) / d);
    }
    $F r = b.x / b.y, d = b.y + b.x * r;
    return $V((a.x * r + a.y) / d, (a.y * r - a.x) / d);
}"""),
    "cabs": ((), ("hypot",), """$F _vkp_cabs${S}($V z) {
    return _vkp_hypot${S}(z.x, z.y);
}"""),
    "cexp": ((), ("exp", "sin", "cos"), """$V _vkp_cexp${S}($V z) {
    if (z.y == 0.0) return $V(_vkp_exp${S}(z.x), z.y);     // the real axis stays real
    $F e = _vkp_exp${S}(z.x);
    return $V(e * _vkp_cos${S}(z.y), e * _vkp_sin${S}(z.y));
}"""),
    "clog": (("cabs",), ("log", "atan2"), """$V _vkp_clog${S}($V z) {
    return $V(_vkp_log${S}(_vkp_cabs${S}(z)), _vkp_atan2${S}(z.y, z.x));
}"""),
    "clog10": (("clog",), (), """$V _vkp_clog10${S}($V z) {
    return _vkp_clog${S}(z) * $LOG10E;
}"""),
    "csqrt": (("cabs",), ("signbit",), """$V _vkp_csqrt${S}($V z) {
    $F a = z.x, b = z.y;
    if (isinf(b)) return $V(abs(b), b);
    if (isinf(a) && a > 0.0) return $V(a, isnan(b) ? b : (_vkp_signbit${S}(b) ? -0.0 : 0.0));
    if (isinf(a)) return $V(isnan(b) ? b : 0.0, _vkp_signbit${S}(b) ? a : -a);
    if (a == 0.0 && b == 0.0) return $V(0.0, b);
    $F t = sqrt(0.5 * abs(a) + 0.5 * _vkp_cabs${S}(z));
    if (a >= 0.0) return $V(t, b / (2.0 * t));
    return $V(abs(b) / (2.0 * t), _vkp_signbit${S}(b) ? -t : t);
}"""),
    "cpow": (("clog", "cexp", "cmul"), (), """$V _vkp_cpow${S}($V z, $V w) {
    if (w.x == 0.0 && w.y == 0.0) return $V(1.0, 0.0);      // z ** 0 == 1, as Python
    if (z.x == 0.0 && z.y == 0.0)
        return (w.y == 0.0 && w.x > 0.0) ? $V(0.0, 0.0) : $V($NAN, $NAN);
    return _vkp_cexp${S}(_vkp_cmul${S}(w, _vkp_clog${S}(z)));
}"""),
}

# the kernel-language name of each helper that cmath (or abs) calls
CMATH = {"exp": "cexp", "log": "clog", "log10": "clog10", "sqrt": "csqrt"}


def _render(name: str, t: T.Complex) -> str:
    f64 = t.elem == T.f64
    template = _FUNCTIONS[name][2]
    inf = "packDouble2x32(uvec2(0u, 0x7ff00000u))" if f64 else "uintBitsToFloat(0x7f800000u)"
    nan = "packDouble2x32(uvec2(0u, 0x7ff80000u))" if f64 else "uintBitsToFloat(0x7fc00000u)"
    return Template(template).substitute(
        F=t.elem.glsl, V=t.glsl, S="_float64" if f64 else "", INF=inf, NAN=nan,
        LOG10E="0.4342944819032518lf" if f64 else "0.4342945")


def function(helpers: dict, name: str, t: T.Complex) -> str:
    """The GLSL name of complex helper `name` for complex type `t`, adding it (and the
    helpers and real functions it calls, first) to `helpers`, a Writer's, emitted in order."""
    suffix = "_float64" if t.elem == T.f64 else ""
    key = f"complex_{name}{suffix}"
    if key not in helpers:
        deps, real, _ = _FUNCTIONS[name]
        for dep in deps:
            function(helpers, dep, t)
        for fn in real:
            mathlib.function(helpers, fn, t.elem)
        helpers[key] = _render(name, t)
    return f"_vkp_{name}{suffix}"


# ---- complex numbers (types.Complex; the GLSL in complexlib.py) -------------------------
def _complex_emit(name):
    def emit(w, e):
        t = e.args[0].type
        fn = function(w.helpers, name, t)
        return f"{fn}({', '.join(w.expr(a) for a in e.args)})"
    return emit


for _name in ("cmul", "cdiv", "cpow", "cabs", *CMATH.values()):
    B._register(B.Entry(_name, _complex_emit(_name)))


def _complex_arg(c, node, name, count=1):
    """The arguments of a cmath function as one complex type (reals become complex)."""
    args = [c.value(c.expr(a), a) for a in node.args]
    if len(args) != count:
        raise c.src.error(node, f"cmath.{name}() takes {count} argument"
                          f"{'s' if count != 1 else ''} in kernels, got {len(args)}")
    t = c.unify_many(args, node)
    t = t if isinstance(t, T.Complex) else T.complex_of(B._float_type(c, t, node))
    return [c.convert(a, t, node) for a in args], t


def _lower_cmath(name):
    def lower(c, node, _python_math):
        (z,), t = _complex_arg(c, node, name)
        return ir.Intrinsic(t, c.src.loc(node), CMATH[name], [z])
    return lower


def _once(c, z, loc):
    """(binding or None, a reference to z) so that z can be used twice."""
    if isinstance(z, (ir.Ref, ir.Const)):
        return None, z
    tmp = c._temp(z.type, "z")
    return tmp, ir.Ref(z.type, loc, tmp)


def _phase(z, loc):
    return ir.Intrinsic(z.type.elem, loc, "atan2", [ir.Swizzle(z.type.elem, loc, z, "y"),
                                                    ir.Swizzle(z.type.elem, loc, z, "x")])


def _lower_phase(c, node, _python_math):
    (z,), _ = _complex_arg(c, node, "phase")
    return _phase(z, c.src.loc(node))


def _lower_polar(c, node, _python_math):
    loc = c.src.loc(node)
    (z,), t = _complex_arg(c, node, "polar")
    tmp, ref = _once(c, z, loc)
    modulus = ir.Intrinsic(t.elem, loc, "cabs", [ref])
    if tmp is not None:
        modulus = ir.Let(t.elem, loc, tmp, z, modulus)
    return PyValue((modulus, _phase(ref, loc)))


def _lower_rect(c, node, _python_math):
    loc = c.src.loc(node)
    args = [c.value(c.expr(a), a) for a in node.args]
    if len(args) != 2:
        raise c.src.error(node, "cmath.rect(r, phi) takes 2 arguments")
    elem = B._float_type(c, c.unify_many(args, node), node)
    r, phi = (c.convert(a, elem, node) for a in args)
    tmp, ref = _once(c, phi, loc)
    cos = ir.Intrinsic(elem, loc, "cos", [ref])
    if tmp is not None:
        cos = ir.Let(elem, loc, tmp, phi, cos)
    rt, rref = _once(c, r, loc)
    re = ir.Binary(elem, loc, "*", rref, cos)
    if rt is not None:
        re = ir.Let(elem, loc, rt, r, re)
    im = ir.Binary(elem, loc, "*", rref, ir.Intrinsic(elem, loc, "sin", [ref]))
    return ir.MakeVector(T.complex_of(elem), loc, [re, im])


def _lower_complex_test(name):
    def lower(c, node, _python_math):
        (z,), t = _complex_arg(c, node, name)
        loc = c.src.loc(node)
        tmp, ref = _once(c, z, loc)
        parts = [ir.Intrinsic(T.bool_, loc, "isfinite" if name == "isfinite" else name,
                              [ir.Swizzle(t.elem, loc, ref, comp)]) for comp in "xy"]
        out = ir.Logical(T.bool_, loc, "and" if name == "isfinite" else "or", *parts)
        return out if tmp is None else ir.Let(T.bool_, loc, tmp, z, out)
    return lower


for _name in CMATH:
    B._register(B.Entry(f"cmath.{_name}", None, _lower_cmath(_name), python=(getattr(cmath, _name),)))
for _name, _lower in [("phase", _lower_phase), ("polar", _lower_polar), ("rect", _lower_rect),
                      ("isnan", _lower_complex_test("isnan")),
                      ("isinf", _lower_complex_test("isinf")),
                      ("isfinite", _lower_complex_test("isfinite"))]:
    B._register(B.Entry(f"cmath.{_name}", None, _lower, python=(getattr(cmath, _name),)))


def _lower_complex(c, node, _python_math):
    """complex(re, im) / complex(x): complex64 from float32 parts, complex128 from float64."""
    args = [c.value(c.expr(a), a) for a in node.args]
    if not 1 <= len(args) <= 2:
        raise c.src.error(node, f"complex() takes 1 or 2 arguments, got {len(args)}")
    t = c.unify_many(args, node)
    t = t if isinstance(t, T.Complex) else T.complex_of(B._float_type(c, t, node))
    if len(args) == 1:
        return c.convert(args[0], t, node)
    if any(isinstance(a.type, T.Complex) for a in args):
        raise c.src.error(node, "complex(re, im) takes real parts; write re + im * 1j")
    return ir.MakeVector(t, c.src.loc(node), [c.convert(a, t.elem, node) for a in args])


B._register(B.Entry("complex", None, _lower_complex, python=(complex,)))
