"""The GLSL text of values: literals of every scalar type (exact, with NaN, infinities and
the most negative integers spelled so glslang accepts them), constant arrays, and the
helper functions for Python semantics (floor division, modulo, integer powers) that the
writer adds to a shader only when it uses them."""
from __future__ import annotations

import math

import numpy as np

from . import types as T

HELPERS = {
    "floordiv": """{t} _vkp_floordiv({t} a, {t} b) {{
    {t} q = a / b;
    if ((a - q * b) != {zero} && ((a < {zero}) != (b < {zero}))) q -= {one};
    return q;
}}""",
    "mod": """{t} _vkp_mod({t} a, {t} b) {{
    {t} r = a - (a / b) * b;
    if (r != {zero} && ((r < {zero}) != (b < {zero}))) r += b;
    return r;
}}""",
    "ipow": """{t} _vkp_ipow({t} base, {t} e) {{
    {t} result = {one};{entry}
    while (e > {zero}) {{
        if ((e & {one}) != {zero}) result *= base;
        base *= base;
        e >>= {one};{guard}
    }}
    return result;
}}""",
    "copysign": """{t} _vkp_copysign({t} a, {t} b) {{
    return (b < {zero} || (b == {zero} && {one} / b < {zero})) ? -abs(a) : abs(a);
}}""",
}


def literal(value, t) -> str:
    if isinstance(t, T.Complex):
        return f"{t.glsl}({literal(value.real, t.elem)}, {literal(value.imag, t.elem)})"
    if t == T.bool_:
        return "true" if value else "false"
    if t.is_int:
        v = int(value)
        suffix = {"i": "", "u": "u"}[t.kind] if t.bits <= 32 else {"i": "l", "u": "ul"}[t.kind]
        if t == T.i32 and v == -2**31:
            return "(-2147483647 - 1)"
        if t == T.i64 and v == -2**63:
            return "(-9223372036854775807l - 1l)"
        return f"{v}{suffix}" if v >= 0 else f"({v}{suffix})"
    v = float(value)
    if math.isnan(v):
        return "(0.0 / 0.0)" if t == T.f32 else "(0.0lf / 0.0lf)"
    if math.isinf(v):
        return ("(1.0 / 0.0)" if v > 0 else "(-1.0 / 0.0)") if t == T.f32 else \
            ("(1.0lf / 0.0lf)" if v > 0 else "(-1.0lf / 0.0lf)")
    if t == T.f64:
        text = repr(v)
        return (text if "e" in text or "." in text else text + ".0") + "lf"
    f = np.float32(v)
    if f == 0 or 1e-4 <= abs(f) < 1e7:
        text = np.format_float_positional(f, unique=True, trim="0")
    else:
        text = np.format_float_scientific(f, unique=True, trim="0")
    return text if v >= 0 else f"({text})"


def bare(text: str) -> str:
    """Drop one pair of parentheses that encloses the whole expression."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(text) - 1:
            return text
    return text[1:-1]


def const_init(elem, shape, values) -> str:
    """The GLSL constructor of a constant array of `shape` from its flat `values`."""
    t = glsl_type(elem)
    if len(shape) == 1:
        return f"{t}[]({', '.join(literal(v, elem) for v in values)})"
    step = len(values) // shape[0]
    parts = (const_init(elem, shape[1:], values[i * step:(i + 1) * step]) for i in range(shape[0]))
    return f"{t}{''.join(f'[{n}]' for n in shape)}({', '.join(parts)})"


def glsl_type(t) -> str:
    if isinstance(t, T.Scalar):
        return T.arithmetic(t).glsl
    if isinstance(t, T.Vector):
        return t.glsl
    raise TypeError(f"no GLSL type for {t}")
