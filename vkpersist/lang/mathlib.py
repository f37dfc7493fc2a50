"""The math functions of the kernel language, as GLSL helper functions, float32 and float64.

GLSL has float32 transcendental functions only, of a precision each driver picks (lavapipe's
float32 asin is off by 4e-4, NVIDIA's sin by 1e-5). vkpersist writes its own, for both
types, so that every device gives the accuracy docs/language.md states (tested by
tests/lang/test_lang_math.py, measured by tools/math_accuracy.py) and the special values of C99
Annex F / NumPy (inf, nan, signed zeros, overflow and underflow).

The algorithms are the classic ones: Cody-Waite argument reduction (pi/2 in four parts,
ln2 in two), Payne-Hanek reduction with the bits of 2/pi for huge trigonometric arguments,
polynomials economized from Taylor series (tools/math_coefficients.py writes them into
_mathcoef.py), log through atanh's series in s = f / (2 + f), double-length arithmetic
(Dekker's exact product, Knuth's two-sum, under `precise` so that no driver contracts or
reorders it) where one rounding would cost more than an ulp: pow computes log|x| to about
64 bits. Each function is emitted only when the kernel uses it, after the helpers it calls.

Subnormal float32 results and arguments may be flushed to zero by the device (Vulkan lets
float32 do so); float64 keeps them where the device does.
"""
from __future__ import annotations

import math
import re
from decimal import Decimal, localcontext
from fractions import Fraction
from string import Template

import numpy as np

from . import types as T
from ._mathcoef import CONST, POLY, TWO_OVER_PI
from ._mathglsl import FUNCTIONS
from . import _mathglsl_python  # noqa: F401  (registers pymod, pyfloordiv, div_rn, sqrt_rn)

UNARY = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
         "acosh", "atanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "cbrt",
         "erf", "erfc", "gamma", "lgamma")
BINARY = ("pow", "atan2", "hypot", "fmod", "remainder", "pymod", "pyfloordiv")
# arithmetic the code generator calls on devices whose own is not correctly rounded
ROUNDED = {"/": "div_rn", "sqrt": "sqrt_rn"}


def _erf_series(prec: str) -> list:
    """erf(x) = x + x * Q(x**2): Q's Maclaurin coefficients, (2/sqrt(pi)) (-1)**n /
    (n! (2n + 1)) less 1 for n = 0, to where they stop mattering for |x| < 1."""
    with localcontext() as ctx:
        ctx.prec = 50
        k = 2 / Decimal(CONST["pi"]).sqrt()
        out, n = [], 0
        while True:
            c = k * (-1) ** n / (math.factorial(n) * (2 * n + 1))
            out.append(float(c - 1 if n == 0 else c))
            if abs(c) < (Decimal(2) ** (-60 if prec == "f64" else -30)):
                return out
            n += 1


def _stirling_series(prec: str) -> list:
    """lgamma's Stirling series B_2k / (2k (2k - 1) y**(2k - 1)) as y**-1 P(y**-2)."""
    terms = [(1, 12), (-1, 360), (1, 1260), (-1, 1680), (1, 1188), (-691, 360360), (1, 156),
             (-3617, 122400)]
    return [n / d for n, d in terms[:8 if prec == "f64" else 4]]


def _lgamma2_series(prec: str) -> list:
    """lgamma(2 + t) = t P(t): P's coefficients, 1 - Euler's gamma, then (-1)**k
    (zeta(k) - 1) / k at t**(k - 1), to where they stop mattering for |t| <= 1/2 (zeta(k) - 1
    by its sum to N and the Euler-Maclaurin tail)."""
    with localcontext() as ctx:
        ctx.prec = 50
        euler = Decimal("0.57721566490153286060651209008240243104215933593992")
        out, k = [float(1 - euler)], 2
        n_max = 200
        while True:
            d = [Decimal(n) for n in range(2, n_max + 1)]
            big = Decimal(n_max)
            zeta1 = sum(n ** -k for n in d) + big ** (1 - k) / (k - 1) - big ** -k / 2 + \
                k * big ** (-k - 1) / 12 - k * (k + 1) * (k + 2) * big ** (-k - 3) / 720
            c = (-1) ** k * zeta1 / k
            out.append(float(c))
            if abs(c) * Decimal(2) ** (1 - k) < Decimal(2) ** (-58 if prec == "f64" else -28):
                return out
            k += 1


_SERIES = {"erf": _erf_series, "stirling": _stirling_series, "lgamma2": _lgamma2_series}


def _c(name) -> Fraction:
    return Fraction(CONST[name])


def _round(v: Fraction, prec: str) -> float:
    return float(np.float32(float(v))) if prec == "f32" else float(v)


def _hi_lo(v: Fraction, prec: str) -> tuple[float, float]:
    hi = _round(v, prec)
    return hi, _round(v - Fraction(hi), prec)


def _bits(v: Fraction, bits: int) -> Fraction:
    """v truncated to `bits` significant bits (so that small multiples of it are exact)."""
    e = 0
    while abs(v) >= 2 ** (e + 1):
        e += 1
    while abs(v) < 2 ** e:
        e -= 1
    scale = Fraction(2) ** (bits - 1 - e)
    return Fraction(int(v * scale)) / scale


def _constants(prec: str) -> dict:
    pi, ln2 = _c("pi"), _c("ln2")
    f64 = prec == "f64"
    c = {}
    c["PI_HI"], c["PI_LO"] = _hi_lo(pi, prec)
    c["PIO2_HI"], c["PIO2_LO"] = _hi_lo(pi / 2, prec)
    c["PIO4_HI"] = c["PIO2_HI"] / 2
    c["PIO4"] = _round(pi / 4, prec)
    c["PI3O4"] = _round(3 * pi / 4, prec)
    c["TWO_OVER_PI"] = _round(2 / pi, prec)
    part, rest = (33 if f64 else 12), pi / 2
    for i in (1, 2, 3):
        p = _bits(rest, part)
        c[f"PIO2_{i}"] = float(p)
        rest -= p
    c["PIO2_4"] = _round(rest, prec)
    c["CW_MAX"] = 1.5e6 if f64 else 6000.0     # |k| < 2**20 (2**12): k * PIO2_i exact
    hi = _bits(ln2, 42 if f64 else 16)        # k * LN2_HI exact for every exponent k
    c["LN2_HI"], c["LN2_LO"] = float(hi), _round(ln2 - hi, prec)
    c["LN2_FHI"], c["LN2_FLO"] = _hi_lo(ln2, prec)
    c["INV_LN2"] = _round(_c("log2e"), prec)
    for name, key, bits in (("LOG2E", "log2e", 32 if f64 else 12),
                            ("LOG10E", "log10e", 32 if f64 else 12),
                            ("LOG10_2", "log10_2", 42 if f64 else 16)):
        hi = _bits(_c(key), bits)
        c[f"{name}_HI"], c[f"{name}_LO"] = float(hi), _round(_c(key) - hi, prec)
    c["SQRT_HALF"] = _round(Fraction(7071067811865476, 10 ** 16), prec)
    c["EXP_OVER"] = 709.782712893384 if f64 else 88.72283
    c["EXP_UNDER"] = -745.1332191019412 if f64 else -103.97208
    c["EXPM1_LOW"] = -38.0 if f64 else -17.5
    c["SPLIT"] = 134217729.0 if f64 else 4097.0
    c["TINY"] = 2.0 ** (-28 if f64 else -13)
    c["BIG"] = 2.0 ** (28 if f64 else 13)
    c["HUGE_EXP"] = 22.0 if f64 else 9.0
    c["HALF_E2"] = _round(Fraction(3694528049465325, 10 ** 15), prec)   # e**2 / 2
    c["MIN_NORMAL"] = 2.0 ** (-1022 if f64 else -126)
    c["HALF_LOG_2PI"] = _round(Fraction(9189385332046727418, 10 ** 19), prec)
    c["SQRT_2PI"] = _round(Fraction(25066282746310005024, 10 ** 19), prec)
    c["GAMMA_OVER"] = 171.62437695630272 if f64 else 35.040095
    c["INV_SQRTPI"] = _round(Fraction(5641895835477562869, 10 ** 19), prec)
    c["TWO_OVER_SQRTPI"] = _round(Fraction(11283791670955125739, 10 ** 19), prec)
    c["HALF_MAX"] = float(np.finfo(np.float64 if f64 else np.float32).max) / 2
    return c


class _Prec:
    def __init__(self, prec: str):
        self.prec = prec
        self.t = T.f64 if prec == "f64" else T.f32
        self.F = "double" if prec == "f64" else "float"
        self.S = "_float64" if prec == "f64" else ""
        self.consts = _constants(prec)

    def lit(self, v: float) -> str:
        if self.prec == "f64":
            text = repr(float(v))
            return (text if "e" in text or "." in text else text + ".0") + "lf"
        text = np.format_float_scientific(np.float32(v), unique=True, trim=".")
        text = text.replace(".e", ".0e")
        return text if "." in text else text.replace("e", ".0e")

    def horner(self, name: str, var: str) -> str:
        coeffs = POLY.get((name, self.prec)) or _SERIES[name](self.prec)
        out = self.lit(coeffs[-1])
        for c in reversed(coeffs[:-1]):
            out = f"{self.lit(c)} + {var} * ({out})"
        return f"({out})"

    def render(self, template: str) -> str:
        text = re.sub(r"POLY<(\w+)>\((\w+)\)", lambda m: self.horner(m.group(1), m.group(2)),
                      template)
        values = {k: self.lit(v) for k, v in self.consts.items()}
        values.update(F=self.F, S=self.S, INF=self.special("inf"), NAN=self.special("nan"))
        return Template(text).substitute(values)

    def special(self, which: str) -> str:
        if self.prec == "f64":
            hi = {"inf": "0x7ff00000u", "nan": "0x7ff80000u"}[which]
            return f"packDouble2x32(uvec2(0u, {hi}))"
        return f"uintBitsToFloat({ {'inf': '0x7f800000u', 'nan': '0x7fc00000u'}[which] })"


_F = FUNCTIONS


def _rem_big_code(p: _Prec) -> str:
    """Payne-Hanek: |x| * 2/pi modulo 4 from the bits of 2/pi, in 32-bit integer limbs
    (unrolled: no loops for lavapipe's loop counter), for arguments past Cody-Waite's."""
    if p.prec == "f64":
        mant = ["uvec2 b = unpackDouble2x32(abs(x));",
                "int E = int((b.y >> 20) & 0x7ffu) - 1075;",
                "uint m1 = (b.y & 0xfffffu) | 0x100000u;", "uint m0 = b.x;"]
        conv = ["double hi = ldexp(double(f2 >> 11) * 4294967296.0 + "
                "double((f2 << 21) | (f1 >> 11)), -53 - lz);",
                "double lo = ldexp(double((f1 << 21) | (f0 >> 11)), -85 - lz);"]
    else:
        mant = ["uint b = floatBitsToUint(abs(x));", "int E = int((b >> 23) & 0xffu) - 150;",
                "uint m1 = 0u;", "uint m0 = (b & 0x7fffffu) | 0x800000u;"]
        conv = ["float hi = ldexp(float(f2 >> 8), -24 - lz);",
                "float lo = ldexp(float(((f2 & 0xffu) << 16) | (f1 >> 16)), -48 - lz);"]
    # the window of 2/pi starts at word i0 so that the product's point sits 30..61 bits
    # into its word; the mantissa shifted by the rest puts it at bit 222 of P, always
    # (constant indices only: lavapipe's LLVM takes seconds over a dynamically indexed P)
    body = mant + ["int i0 = ((E + 30) >> 5) - 1;", "int sh = E - 32 * (i0 + 1) + 30;",
                   "uint m2 = sh == 0 ? 0u : m1 >> (32 - sh);",
                   "m1 = sh == 0 ? m1 : (m1 << sh) | (m0 >> (32 - sh));", "m0 <<= sh;",
                   "uint w, cb, cy;",
                   # words i0 .. i0 + 6 from three uvec4 of the table, which starts at word
                   # -2, picked by selects (_pick)
                   "int ii = i0 + 2, j = ii >> 2, o = ii & 3;",
                   *(f"uvec4 q{q} = {_pick('_vkp_2opi', 'j', _last_quad(p), q)};"
                     for q in range(3)),
                   "uint a[12] = uint[](q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w, "
                   "q2.x, q2.y, q2.z, q2.w);"]
    # P = (m2:m1:m0) * (seven words of 2/pi from i0), column by column, up to word 6
    terms: dict[int, list[str]] = {c: [] for c in range(7)}
    for m in range(7):
        k = 6 - m
        body.append(f"w = o == 0 ? a[{k}] : o == 1 ? a[{k + 1}] : o == 2 ? a[{k + 2}] : a[{k + 3}];")
        for limb in range(3):
            if m + limb > 6:
                continue
            v = f"t{m}_{limb}"
            body.append(f"uint {v}h, {v}l; umulExtended(m{limb}, w, {v}h, {v}l);")
            terms[m + limb].append(f"{v}l")
            if m + limb + 1 <= 6:
                terms[m + limb + 1].append(f"{v}h")
    body.append("cy = 0u;")
    for col in range(7):
        body.append(f"uint P{col} = cy; cy = 0u;")
        for t in terms[col]:
            body.append(f"P{col} = uaddCarry(P{col}, {t}, cb); cy += cb;")
    # the fraction's 160 bits below the point, f2 first (a float64 within 2**-61 of a
    # multiple of pi/2 leaves ~60 of them zero)
    body += ["uint quad = P6 >> 30;",
             "uint f2 = (P6 << 2) | (P5 >> 30), f1 = (P5 << 2) | (P4 >> 30), "
             "f0 = (P4 << 2) | (P3 >> 30), g1 = (P3 << 2) | (P2 >> 30), "
             "g0 = (P2 << 2) | (P1 >> 30);",
             "bool negf = (f2 >> 31) != 0u;",
             "if (negf) {   // fraction >= 1/2: the next quadrant, fraction - 1",
             "    quad += 1u;",
             "    f2 = ~f2; f1 = ~f1; f0 = ~f0; g1 = ~g1; g0 = ~g0;",
             "    g0 = uaddCarry(g0, 1u, cb); g1 = uaddCarry(g1, cb, cb); "
             "f0 = uaddCarry(f0, cb, cb); f1 = uaddCarry(f1, cb, cb); f2 += cb;",
             "}",
             "int lz = 0;"]
    body += ["if (f2 == 0u) { f2 = f1; f1 = f0; f0 = g1; g1 = g0; g0 = 0u; lz += 32; }"] * 4
    body += ["int n = 31 - findMSB(f2);",
             "if (n > 0 && n < 32) {",
             "    f2 = (f2 << n) | (f1 >> (32 - n)); f1 = (f1 << n) | (f0 >> (32 - n)); "
             "f0 = (f0 << n) | (g1 >> (32 - n)); lz += n;",
             "}"] + conv + [
             "$F ph, pe;",
             "_vkp_two_prod${S}(hi, $PIO2_HI, ph, pe);",
             "precise $F pl = pe + (hi * $PIO2_LO + lo * $PIO2_HI);",
             "precise $F s = ph + pl;",
             "pl = pl - (s - ph);",
             "if (negf) { s = -s; pl = -pl; }",
             "if (x < 0.0) { s = -s; pl = -pl; quad = (4u - quad) & 3u; }",
             "rh = s;", "rl = pl;", "return int(quad & 3u);"]
    code = "\n    ".join(body)
    return f"int _vkp_rem_big${{S}}($F x, out $F rh, out $F rl) {{\n    {code}\n}}"


def _last_quad(p: _Prec) -> int:
    """The largest quad index `j` of _rem_big_code for precision `p`: from the largest
    exponent E of a finite argument (its window starts at word i0 = (E + 30) / 32 - 1)."""
    e_max = 971 if p.prec == "f64" else 104
    return (((e_max + 30) >> 5) - 1 + 2) >> 2


def _pick(array: str, index: str, last: int, offset: int = 0) -> str:
    """array[index + offset] for index in 0..last, as a chain of selects between constant
    indices. lavapipe (Mesa 22) runs every branch of its SIMD code and lowers a dynamic index
    into a constant array to work that grows with the array on every invocation: sin's three
    lookups into 2/pi's table cost ~45 ns each where its whole common path costs ~20, though
    only huge arguments need them; a few selects cost a few instructions on every device."""
    out = f"{array}[{last + offset}]"
    for j in range(last - 1, -1, -1):
        out = f"{index} == {j} ? {array}[{j + offset}] : {out}"
    return f"({out})" if last else out


def _table_code() -> str:
    """2/pi's words, two zero words first (windows that start before the point), in uvec4s."""
    words = [0, 0, *TWO_OVER_PI]
    words += [0] * (-len(words) % 4 + 4)
    quads = ", ".join("uvec4(" + ", ".join(f"0x{w:08x}u" for w in words[i:i + 4]) + ")"
                      for i in range(0, len(words), 4))
    return f"const uvec4 _vkp_2opi[{len(words) // 4}] = uvec4[]({quads});"


def _atan_tables(p: _Prec) -> str:
    hi, lo, ihi, ilo = [], [], [], []
    for j in range(9):
        a = _c(f"atan{j}")
        h, l = _hi_lo(a, p.prec)
        hi.append(h)
        lo.append(l)
        h, l = _hi_lo(_c("pi") / 2 - a, p.prec)
        ihi.append(h)
        ilo.append(l)
    out = []
    for name, vals in (("hi", hi), ("lo", lo), ("ihi", ihi), ("ilo", ilo)):
        out.append(f"const {p.F} _vkp_atan_{name}{p.S}[9] = {p.F}[]("
                   f"{', '.join(p.lit(v) for v in vals)});")
    return "\n".join(out)


_PRECS = {"f32": _Prec("f32"), "f64": _Prec("f64")}


def _code(name: str, p: _Prec) -> str:
    deps, template = _F[name]
    if name == "two_over_pi":
        return _table_code()
    if name == "rem_big":
        template = _rem_big_code(p)
    if name == "atan":        # the tables' entry j (0..8) through selects, as in _pick
        template = _atan_tables(p) + "\n\n" + re.sub(
            r"(_vkp_atan_\w+\$\{S\})\[j\]", lambda m: _pick(m.group(1), "j", 8), template)
    template = template.replace("SIGNBIT", "(unpackDouble2x32(x).y >> 31) != 0u"
                                if p.prec == "f64" else "(floatBitsToUint(x) >> 31) != 0u")
    template = template.replace("TRUNC(f - hfsq)", "packDouble2x32(uvec2(0u, "
                                "unpackDouble2x32(f - hfsq).y))" if p.prec == "f64" else
                                "uintBitsToFloat(floatBitsToUint(f - hfsq) & 0xfffff000u)")
    template = template.replace("GAP", "60" if p.prec == "f64" else "26")
    # lavapipe's float64 roundEven and trunc return x itself from |x| >= 2**31 on, and
    # roundEven rounds ties toward zero (1.5 -> 1.0) and drops the sign of zero (Mesa
    # 22.3.6, LLVM 15; its floor and ceil, and its float32 functions, are right): float64
    # rounds through floor and exact differences on every device, float32 keeps the
    # instructions
    template = template.replace("RINT", """$F f = floor(x);
    $F d = x - f;
    $F r = (d > 0.5 || (d == 0.5 && f - 2.0 * floor(0.5 * f) != 0.0)) ? f + 1.0 : f;
    // a zero result keeps x's sign (-0.4 -> -0.0)
    return r != 0.0 ? r : packDouble2x32(uvec2(0u, unpackDouble2x32(x).y & 0x80000000u));"""
                                if p.prec == "f64" else "return roundEven(x);")
    template = template.replace("TRUNCATE", "return x < 0.0 ? -floor(-x) : floor(x);"
                                if p.prec == "f64" else "return trunc(x);")
    f64 = p.prec == "f64"
    for token, v64, v32 in (("IEMAX", "1023", "127"), ("IEMIN", "(-1022)", "(-126)"),
                            ("IMANT", "53", "24"), ("IFMODN", "2100", "280"),
                            ("IDIGITS", "330", "50"), ("ICBRTK", "180", "25"),
                            ("ICFN", "180", "40"), ("ICFMIN", "20", "10"),
                            ("IGAMMAX", "12.0", "8.0"),
                            ("POW2BITS", "packDouble2x32(uvec2(0u, uint(n + 1023) << 20))",
                             "uintBitsToFloat(uint(n + 127) << 23)")):
        template = template.replace(token, v64 if f64 else v32)
    consts = p.consts
    if name == "logdd":
        consts = dict(consts)
        consts["TWO3_HI"], consts["TWO3_LO"] = _hi_lo(Fraction(2, 3), p.prec)
        saved, p.consts = p.consts, consts
        try:
            return p.render(template)
        finally:
            p.consts = saved
    return p.render(template)


def _add(helpers: dict, name: str, p: _Prec) -> None:
    key = f"math_{name}{p.S if name != 'two_over_pi' else ''}"
    if key in helpers:
        return
    for dep in _F[name][0]:
        _add(helpers, dep, p)
    helpers[key] = _code(name, p)


def function(helpers: dict, name: str, t) -> str:
    """The GLSL name of math function `name` for type `t` (float32/float64 or a vector of
    them), adding it and the helpers it calls to `helpers` (a Writer's, emitted in order)."""
    elem = t.elem if isinstance(t, T.Vector) else t
    p = _PRECS["f64" if elem == T.f64 else "f32"]
    _add(helpers, name, p)
    scalar = f"_vkp_{name}{p.S}"
    if not isinstance(t, T.Vector):
        return scalar
    vt = t.glsl
    key = f"math_{name}_{vt}"
    if key not in helpers:
        comps = "xyzw"[:t.n]
        if name in BINARY or name == ROUNDED["/"]:
            args = f"{vt} a, {vt} b"
            parts = ", ".join(f"{scalar}(a.{c}, b.{c})" for c in comps)
        else:
            args = f"{vt} a"
            parts = ", ".join(f"{scalar}(a.{c})" for c in comps)
        helpers[key] = f"{vt} _vkp_{name}_{vt}({args}) {{\n    return {vt}({parts});\n}}"
    return f"_vkp_{name}_{vt}"
