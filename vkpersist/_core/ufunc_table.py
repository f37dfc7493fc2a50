"""What each element-wise operation becomes in kernel code: one emitter per NumPy ufunc name.

An emitter takes the operands as kernel-language expressions already converted to the
ufunc loop's input dtypes (NumPy picks the loop: `ufunc.resolve_dtypes`, in
vkpersist/_core/elementwise.py) and returns the expression of the result. Operands are local
variables, so an emitter may name one several times. The semantics are NumPy's where the
GPU's differ: minimum/maximum propagate NaN (fmin/fmax ignore it), sign(nan) is nan, bool
`+` is `or` and `*` is `and`, and integer division or remainder by 0 gives 0 (a GPU may
trap or return anything) and by -1 wraps as NumPy's does.

Float math calls the kernel language's own functions (lang/mathlib.py), float32 and
float64, with the accuracy of docs/language.md's table.
"""
from __future__ import annotations

import numpy as np

# dtype -> the kernel type its values compute in (narrow types load widened)
COMPUTE = {
    np.dtype(np.bool_): "bool", np.dtype(np.int8): "vkp.i32", np.dtype(np.int16): "vkp.i32",
    np.dtype(np.int32): "vkp.i32", np.dtype(np.uint8): "vkp.u32",
    np.dtype(np.uint16): "vkp.u32", np.dtype(np.uint32): "vkp.u32",
    np.dtype(np.int64): "vkp.i64", np.dtype(np.uint64): "vkp.u64",
    np.dtype(np.float16): "vkp.f32", np.dtype(np.float32): "vkp.f32",
    np.dtype(np.float64): "vkp.f64",
    np.dtype(np.complex64): "vkp.c64", np.dtype(np.complex128): "vkp.c128",
}
# the numpy scalar type a scalar parameter of that dtype is passed as
PARAM = {"bool": np.bool_, "vkp.i32": np.int32, "vkp.u32": np.uint32, "vkp.i64": np.int64,
         "vkp.u64": np.uint64, "vkp.f32": np.float32, "vkp.f64": np.float64,
         "vkp.c64": np.complex64, "vkp.c128": np.complex128}


def wrap(dtype: np.dtype, expr: str) -> str | None:
    """The statement-free expression that wraps a widened int8/int16/uint8/uint16 value to
    its dtype, as NumPy's arithmetic in that dtype would; None for the other dtypes."""
    if dtype.kind in "iu" and dtype.itemsize < 4:
        m = 1 << (8 * dtype.itemsize)
        if dtype.kind == "u":
            return f"({expr} & {m - 1})"
        return f"((({expr} + {m // 2}) & {m - 1}) - {m // 2})"
    return None


def _is_float(dt) -> bool:
    return dt.kind == "f"


def _int_div(op):
    """a // b or a % b for integers, with NumPy's results for b == 0 (0) and, for signed
    types, b == -1 (no trap on the most negative value)."""
    def emit(a, b, ins, out):
        zero = f"{COMPUTE[out]}(0)"            # typed: a bare 0 is int32 in kernel code
        if ins[0].kind == "u":
            return f"(({a} {op} {b}) if {b} != 0 else {zero})"
        minus1 = f"(-{a})" if op == "//" else zero
        return (f"(({a} {op} {b}) if ({b} != 0 and {b} != -1) else "
                f"({minus1} if {b} == -1 else {zero}))")
    return emit


def _unary(fn):
    return lambda a, ins, out: f"{fn}({a})"


def _float_only(fn, int_value=None):
    """A float function; `int_value`: what it is for an integer or bool loop (floor of an
    int is itself), None where NumPy has no such loop (it refuses first)."""
    def emit(a, ins, out):
        if _is_float(ins[0]):
            return f"{fn}({a})"
        return int_value(a)
    return emit


def _minmax(cmp, nan_wins):
    """minimum/maximum (NaN wins) and fmin/fmax (NaN loses) for floats; plain for ints."""
    def emit(a, b, ins, out):
        if not _is_float(ins[0]):
            return f"({a} if {a} {cmp} {b} else {b})"
        if nan_wins:
            return f"({a} if ({a} {cmp} {b} or vkp.isnan({a})) else {b})"
        return f"({a} if ({a} {cmp} {b} or vkp.isnan({b})) else {b})"
    return emit


def _sign(a, ins, out):
    if _is_float(ins[0]):
        return f"({a} if vkp.isnan({a}) else vkp.sign({a}))"
    one, zero = f"{COMPUTE[out]}(1)", f"{COMPUTE[out]}(0)"
    if ins[0].kind == "u":
        return f"({one} if {a} > 0 else {zero})"
    return f"({one} if {a} > 0 else ({COMPUTE[out]}(-1) if {a} < 0 else {zero}))"


def _compare(op):
    """a OP b; NumPy compares int64 with uint64 exactly (no common integer type exists)."""
    def emit(a, b, ins, out):
        if {ins[0].kind, ins[1].kind} != {"i", "u"}:
            return f"({a} {op} {b})"
        signed = a if ins[0].kind == "i" else b
        exact = f"(vkp.u64({a}) {op} {b})" if ins[0].kind == "i" else f"({a} {op} vkp.u64({b}))"
        # a negative signed operand is below every unsigned one
        below = ("<", "<=") if ins[0].kind == "i" else (">", ">=")
        if op == "!=" or op in below:
            return f"({signed} < 0 or {exact})"
        return f"({signed} >= 0 and {exact})"
    return emit


def _bool_or(op, bool_op):
    return lambda a, b, ins, out: (f"({a} {bool_op} {b})" if ins[0].kind == "b"
                                   else f"({a} {op} {b})")


def _reciprocal(a, ins, out):
    if not _is_float(ins[0]):
        raise TypeError("vkpersist: reciprocal of integers (NumPy's 1 // x) is not supported; "
                        "convert to float first (x.astype(np.float32))")
    return f"(1.0 / {a})"


def _power(a, b, ins, out):
    if ins[0].kind == "b":
        raise TypeError("ufunc 'power' not supported for bool inputs")
    return f"({a} ** {b})"


def _invert(a, ins, out):
    return f"(not {a})" if ins[0].kind == "b" else f"(~{a})"


def _bool(x, ins):
    return x if ins.kind == "b" else f"({x} != 0)"


def _division(op):
    """// or % (`op`): on floats the kernel language's own, CPython's (and NumPy's) divmod on
    an exact fmod (lang/_mathglsl_python.py), NumPy's results bit for bit where division
    rounds correctly (GLSL's floor(a / b) rounds a / b first: 0.5 // 0.1 would be 5.0,
    NumPy's is 4.0; its mod(a, b) = a - b * floor(a / b) rounds twice)."""
    def emit(a, b, ins, out):
        if _is_float(ins[0]):
            return f"({a} {op} {b})"
        return _int_div(op)(a, b, ins, out)
    return emit

def _fmod(a, b, ins, out):
    """C's fmod: the remainder takes the dividend's sign. Floats: the kernel language's
    exact fmod. Integers: the floored remainder (`_int_div`, 0 for b == 0 or -1, as NumPy)
    moved to the dividend's side when their signs differ."""
    if _is_float(ins[0]):
        return f"math.fmod({a}, {b})"
    r = _int_div("%")(a, b, ins, out)
    if ins[0].kind == "u":
        return r
    return f"(({r} - {b}) if ({r} != 0 and (({r} < 0) != ({a} < 0))) else {r})"


def _logaddexp(base2: bool):
    """log(exp(a) + exp(b)) (base 2: log2(2**a + 2**b)) without overflow, as NumPy's
    npy_logaddexp: equal arguments (infinities of one sign too) give a + log(2), else the
    larger plus log1p of the smaller's excess; a NaN gives NaN."""
    ln2, log2e = 0.6931471805599453, 1.4426950408889634

    def emit(a, b, ins, out):
        if base2:
            tail = lambda d: f"({log2e!r} * vkp.log1p(vkp.exp2({d})))"     # noqa: E731
            same = f"({a} + 1.0)"
        else:
            tail = lambda d: f"vkp.log1p(vkp.exp({d}))"                    # noqa: E731
            same = f"({a} + {ln2!r})"
        return (f"({same} if {a} == {b} else (({a} + {tail(f'{b} - {a}')}) if {a} > {b} "
                f"else (({b} + {tail(f'{a} - {b}')}) if {a} < {b} else ({a} - {b}))))")
    return emit


def _heaviside(a, b, ins, out):
    """0 below zero, `b` at zero, 1 above; NaN stays NaN (NumPy's npy_heaviside)."""
    t = COMPUTE[out]
    return (f"({a} if vkp.isnan({a}) else ({b} if {a} == 0 else "
            f"({t}(0) if {a} < 0 else {t}(1))))")


# ufunc name -> emitter(*operands, ins, out)
EMIT = {
    "add": _bool_or("+", "or"),
    "subtract": lambda a, b, ins, out: f"({a} - {b})",
    "multiply": _bool_or("*", "and"),
    "true_divide": lambda a, b, ins, out: f"({a} / {b})",
    "floor_divide": _division("//"),
    "remainder": _division("%"),
    "power": _power,
    "negative": lambda a, ins, out: f"(-{a})",
    "positive": lambda a, ins, out: a,
    "conjugate": lambda a, ins, out: a,          # of a real number: itself
    "absolute": lambda a, ins, out: a if ins[0].kind in "bu" else f"abs({a})",
    "fabs": _unary("vkp.fabs"),
    "square": lambda a, ins, out: f"({a} * {a})",
    "reciprocal": _reciprocal,
    "sign": _sign,
    "sqrt": _unary("vkp.sqrt"),
    "exp": _unary("vkp.exp"), "exp2": _unary("vkp.exp2"), "expm1": _unary("vkp.expm1"),
    "log": _unary("vkp.log"), "log2": _unary("vkp.log2"), "log10": _unary("vkp.log10"),
    "log1p": _unary("vkp.log1p"),
    "sin": _unary("vkp.sin"), "cos": _unary("vkp.cos"), "tan": _unary("vkp.tan"),
    "arcsin": _unary("vkp.asin"), "arccos": _unary("vkp.acos"), "arctan": _unary("vkp.atan"),
    "sinh": _unary("vkp.sinh"), "cosh": _unary("vkp.cosh"), "tanh": _unary("vkp.tanh"),
    "arcsinh": _unary("vkp.asinh"), "arccosh": _unary("vkp.acosh"),
    "arctanh": _unary("vkp.atanh"),
    "deg2rad": lambda a, ins, out: f"({a} * {np.pi / 180!r})",
    "rad2deg": lambda a, ins, out: f"({a} * {180 / np.pi!r})",
    "floor": _float_only("vkp.floor", lambda a: a),
    "ceil": _float_only("vkp.ceil", lambda a: a),
    "trunc": _float_only("vkp.trunc", lambda a: a),
    "rint": _float_only("vkp.rint", lambda a: a),
    "cbrt": _unary("math.cbrt"),
    "fmod": _fmod,
    "logaddexp": _logaddexp(False), "logaddexp2": _logaddexp(True),
    "heaviside": _heaviside,
    "signbit": _unary("vkp.signbit"),
    "float_power": _power,
    "ldexp": lambda a, b, ins, out: f"math.ldexp({a}, {b})",
    "arctan2": lambda a, b, ins, out: f"vkp.atan2({a}, {b})",
    "hypot": lambda a, b, ins, out: f"vkp.hypot({a}, {b})",
    "copysign": lambda a, b, ins, out: f"vkp.copysign({a}, {b})",
    "minimum": _minmax("<=", True), "maximum": _minmax(">=", True),
    "fmin": _minmax("<=", False), "fmax": _minmax(">=", False),
    "isnan": _float_only("vkp.isnan", lambda a: "False"),
    "isinf": _float_only("vkp.isinf", lambda a: "False"),
    "isfinite": lambda a, ins, out: (f"(not (vkp.isnan({a}) or vkp.isinf({a})))"
                                     if _is_float(ins[0]) else "True"),
    "equal": _compare("=="),
    "not_equal": _compare("!="),
    "less": _compare("<"),
    "less_equal": _compare("<="),
    "greater": _compare(">"),
    "greater_equal": _compare(">="),
    "logical_and": lambda a, b, ins, out: f"({_bool(a, ins[0])} and {_bool(b, ins[1])})",
    "logical_or": lambda a, b, ins, out: f"({_bool(a, ins[0])} or {_bool(b, ins[1])})",
    "logical_xor": lambda a, b, ins, out: f"({_bool(a, ins[0])} != {_bool(b, ins[1])})",
    "logical_not": lambda a, ins, out: f"(not {_bool(a, ins[0])})",
    "bitwise_and": _bool_or("&", "and"),
    "bitwise_or": _bool_or("|", "or"),
    "bitwise_xor": _bool_or("^", "!="),
    "invert": _invert,
    "left_shift": lambda a, b, ins, out: f"({a} << {b})",
    "right_shift": lambda a, b, ins, out: f"({a} >> {b})",
}

UFUNCS = {name: getattr(np, name) for name in EMIT}
# NumPy's ufunc object -> our name (np.true_divide.__name__ is "divide")
BY_UFUNC = {ufunc: name for name, ufunc in UFUNCS.items()}
# NumPy's other names for the same ufuncs
ALIASES = {"divide": "true_divide", "conj": "conjugate", "mod": "remainder", "abs": "absolute",
           "degrees": "rad2deg", "radians": "deg2rad"}
