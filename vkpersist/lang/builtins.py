"""The kernel language's builtins, one registry entry each: the name of its IR intrinsic, how a
call in kernel code is typed and lowered to IR (`lower`), the GLSL it becomes (`emit`),
what it does to the buffer its first argument names (`accesses`, for the scheduler's
barrier analysis), and the Python objects that call it (`vkp.sqrt`, `math.sqrt`).

Adding a builtin is one `_register(...)` here: e.g. an erf would be
`_float_fn("erf", helper=...)` with the GLSL of its helper function. Channel operations
(control fields, memsock frames, queue pushes) are entries too, made by the front end's
channel lowering rather than by a call, and emitted by the writer that knows the channel's
layout (a kernel's or a program's).

Outside a kernel the Python objects only explain where they belong.
"""
from __future__ import annotations

import builtins as py_builtins
import math
import types
from dataclasses import dataclass, field
from typing import Callable

from . import ir
from . import mathlib
from . import types as T
from .values import ArrayHandle, PyValue


class Builtin:
    """The Python object kernel code calls (`vkp.sqrt`); on the host it explains itself."""

    def __init__(self, name: str, doc: str):
        self.name = name
        self.__doc__ = doc
        self.__name__ = name.rsplit(".", 1)[-1]

    # (name, args, kwargs) -> result or NotImplemented: the array operation a call outside
    # a kernel means (`vkp.sin(x)` of an array); installed by the array layer above
    # this one (vkpersist/_core)
    host_call = None

    def __call__(self, *args, **kwargs):
        if Builtin.host_call is not None:
            result = Builtin.host_call(self.name, args, kwargs)
            if result is not NotImplemented:
                return result
        raise RuntimeError(f"vkp.{self.name}() can only be used inside a @vkp.kernel or "
                           "@vkp.func (it compiles to GPU code)")

    def __repr__(self) -> str:
        return f"<vkpersist kernel builtin vkp.{self.name}>"


@dataclass(frozen=True)
class Entry:
    name: str                        # the IR intrinsic's name
    emit: Callable                   # (writer, ir.Intrinsic) -> GLSL text
    lower: Callable | None = None    # (compiler, call node, python_math) -> IR; None: IR only
    accesses: str | None = None      # "read" | "write" of the buffer args[0] names
    workgroup: bool = False          # needs a workgroup of its own: not in program stages
    python: tuple = field(default=())  # Python objects besides vkp.<name> that call it


REGISTRY: dict[str, Entry] = {}
_BY_OBJECT: dict[int, tuple[Entry, bool]] = {}   # id(callable) -> (entry, Python math rules)
_KEEP: list = []                                 # the objects _BY_OBJECT is keyed on


def _register(entry: Entry, obj=None) -> Entry:
    REGISTRY[entry.name] = entry
    if obj is not None:
        _BY_OBJECT[id(obj)] = (entry, False)
        _KEEP.append(obj)
    for extra in entry.python:
        _BY_OBJECT[id(extra)] = (entry, True)
        _KEEP.append(extra)
    return entry


def lookup(obj) -> tuple[Entry, bool] | None:
    """(entry, follows Python's math module) of a callable met in kernel code, or None."""
    return _BY_OBJECT.get(id(obj))


def _glsl_call(fn: str) -> Callable:
    return lambda w, e: f"{fn}({', '.join(w.expr(a) for a in e.args)})"


def _args(c, node, count: int, name: str) -> list:
    args = [c.value(c.expr(a), a) for a in node.args]
    if len(args) != count:
        raise c.src.error(node, f"{name}() takes {count} argument{'s' if count != 1 else ''}"
                          + ("" if count != 1 else f", got {len(args)}"))
    return args


def _float_type(c, t, node):
    """The float type a math function of `t` computes in: floats keep theirs, 64-bit
    integers give float64 (as numba does), other integers float32 (the GPU rule); the
    target must have it (float64 needs shaderFloat64)."""
    out = _float_type_of(c, t, node)
    c.require(out.elem if isinstance(out, T.Vector) else out, node)
    return out


def _float_type_of(c, t, node):
    if isinstance(t, T.Complex):
        raise c.src.error(node, f"this math function takes real numbers, got a {t}; cmath "
                          "has the complex ones (cmath.sqrt, cmath.exp, cmath.log, ...), "
                          "abs(z) the modulus")
    if isinstance(t, T.Vector):
        if not t.elem.is_float:
            raise c.src.error(node, f"this function needs float vectors, got {t}")
        return t
    if t.is_float:
        return T.arithmetic(t)
    if t in (T.i64, T.u64):
        return T.f64
    return T.f32


def _math_call(name: str) -> Callable:
    """Emit through vkpersist's own implementation (lang/mathlib.py), float32 and float64."""
    def emit(w, e):
        fn = mathlib.function(w.helpers, name, e.type)
        return f"{fn}({', '.join(w.expr(a) for a in e.args)})"
    return emit


# ---- ids and sync ------------------------------------------------------------------------------
def _lower_id(c, node, _python_math, name):
    if len(node.args) > 1:
        raise c.src.error(node, f"{name}(axis) takes one axis argument")
    axis = c.constant_value(node.args[0], "the axis") if node.args else 0
    if axis not in (0, 1, 2):
        raise c.src.error(node, f"{name}(axis): axis must be the constant 0, 1 or 2, got {axis!r}")
    return ir.Intrinsic(T.i32, c.src.loc(node), name, [int(axis)])


def _id_builtin(name: str, glsl: str, doc: str) -> Builtin:
    obj = Builtin(name, doc)
    _register(Entry(name, lambda w, e: f"int({glsl}.{'xyz'[e.args[0]]})",
                    lambda c, node, pm: _lower_id(c, node, pm, name), workgroup=True), obj)
    return obj


global_id = _id_builtin("global_id", "gl_GlobalInvocationID",
                        "Index of this invocation in the whole launch along an axis.")
local_id = _id_builtin("local_id", "gl_LocalInvocationID",
                       "Index of this invocation within its workgroup along an axis.")
group_id = _id_builtin("group_id", "gl_WorkGroupID", "Index of this workgroup along an axis.")
num_groups = _id_builtin("num_groups", "gl_NumWorkGroups",
                         "Number of workgroups in the launch along an axis.")
local_size = _id_builtin("local_size", "gl_WorkGroupSize",
                         "Invocations per workgroup along an axis.")
global_size = Builtin("global_size", "Invocations in the whole launch along an axis.")
_register(Entry("global_size", lambda w, e: "int(gl_NumWorkGroups.{0} * gl_WorkGroupSize.{0})"
                .format("xyz"[e.args[0]]),
                lambda c, node, pm: _lower_id(c, node, pm, "global_size"), workgroup=True),
          global_size)


def _lower_barrier(c, node, _python_math):
    if node.args:
        raise c.src.error(node, "barrier() takes no arguments")
    return ir.Intrinsic(T.void, c.src.loc(node), "barrier", [])


def _emit_barrier(w, e):
    w.uses_barrier = True       # like CUDA's __syncthreads: shared and buffer writes
    return ("controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, "
            "gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease)")


barrier = Builtin("barrier", "Workgroup barrier: every invocation of the workgroup waits here, "
                  "and its shared-memory and array writes before it are visible to the "
                  "workgroup after it (CUDA's __syncthreads).")
_register(Entry("barrier", _emit_barrier, _lower_barrier, workgroup=True), barrier)


def _must_assign(c, node, _python_math):
    raise c.src.error(node, "shared/local arrays must be assigned to a name: "
                      "tile = vkp.shared.array((16, 16), vkp.f32)")


shared = types.SimpleNamespace(array=Builtin("shared.array", "shared.array(shape, dtype): an "
                                             "array in workgroup-shared memory (constant shape)."))
local = types.SimpleNamespace(array=Builtin("local.array", "local.array(shape, dtype): a private "
                                            "array per invocation (constant shape)."))
_register(Entry("shared.array", None, _must_assign), shared.array)
_register(Entry("local.array", None, _must_assign), local.array)


# ---- math --------------------------------------------------------------------------------------
math_functions: dict[str, Builtin] = {}


def _math_builtin(name, lower, emit, python=()):
    obj = Builtin(name, f"{name}(...) on the GPU, elementwise for vectors.")
    math_functions[name] = obj
    globals()[name] = obj
    _register(Entry(name, emit, lower, python=tuple(python)), obj)


def _py(name):
    return (getattr(math, name),) if hasattr(math, name) else ()


def _float_fn(name, glsl=None, *, int_result=False, emit=None):
    """float -> float, elementwise for vectors; math.floor/ceil/trunc give ints."""
    def lower(c, node, python_math):
        (a,) = _args(c, node, 1, name)
        t = _float_type(c, a.type, node)
        out = ir.Intrinsic(t, c.src.loc(node), name, [c.convert(a, t, node)])
        if python_math and int_result:
            return c.convert(out, T.i32 if t.bits <= 32 else T.i64, node)
        return out
    _math_builtin(name, lower, emit or _glsl_call(glsl or name), _py(name))


def _emit_sqrt(w, e):
    """GLSL's sqrt, correctly rounded where the device's float32 one is not."""
    if w.rounds_f32(e.type):
        return _math_call(mathlib.ROUNDED["sqrt"])(w, e)
    return _glsl_call("sqrt")(w, e)


_float_fn("sqrt", emit=_emit_sqrt)
for _name, _glsl in [("rsqrt", "inversesqrt"), ("fabs", "abs"), ("sign", None)]:
    _float_fn(_name, _glsl)
for _name in mathlib.UNARY:
    _float_fn(_name, emit=_math_call(_name))
for _name in ("floor", "ceil"):
    _float_fn(_name, int_result=True)
_float_fn("trunc", int_result=True, emit=_math_call("trunc"))   # float64: see mathlib
_float_fn("rint", emit=_math_call("rint"))   # NumPy's rint: nearest integer, ties to even


def _float_test(name, emit=None):
    def lower(c, node, _python_math):
        if len(node.args) != 1:
            raise c.src.error(node, f"{name}() takes 1 argument")
        (a,) = [c.value(c.expr(x), x) for x in node.args]
        t = _float_type(c, a.type, node)
        if isinstance(t, T.Vector):
            raise c.src.error(node, f"{name}() takes a scalar")
        return ir.Intrinsic(T.bool_, c.src.loc(node), name, [c.convert(a, t, node)])
    _math_builtin(name, lower, emit or _glsl_call(name), _py(name))


_float_test("isnan")
_float_test("isinf")
_float_test("isfinite", lambda w, e: f"!(isinf({w.expr(e.args[0])}) || isnan({w.expr(e.args[0])}))")
# the sign bit, of -0.0 and negative NaNs too (NumPy's signbit; from the bits, as no
# comparison sees a NaN's sign)
_float_test("signbit", lambda w, e: f"{mathlib.function(w.helpers, 'signbit', e.args[0].type)}"
            f"({w.expr(e.args[0])})")


def _lower_abs(c, node, _python_math):
    if len(node.args) != 1:
        raise c.src.error(node, "abs() takes 1 argument")
    a = c.value(c.expr(node.args[0]), node.args[0])
    if a.type == T.bool_:
        a = c.convert(a, T.i32, node)
    if isinstance(a, ir.Const):
        return ir.Const(a.type, c.src.loc(node), py_builtins.abs(a.value))   # not vkp.abs
    if isinstance(a.type, T.Scalar) and a.type.kind == "u":
        return a
    if isinstance(a.type, T.Complex):
        return ir.Intrinsic(a.type.elem, c.src.loc(node), "cabs", [a])
    return ir.Intrinsic(a.type, c.src.loc(node), "abs", [a])


_math_builtin("abs", _lower_abs, _glsl_call("abs"), (py_builtins.abs,))


def _min_max(name):
    def lower(c, node, _python_math):
        args = [c.value(c.expr(a), a) for a in node.args]
        if any(isinstance(a.type, T.Complex) for a in args):
            raise c.src.error(node, f"{name}() of complex numbers: they are not ordered "
                              "(compare abs(z) or the .real parts)")
        if len(args) < 2:
            raise c.src.error(node, f"{name}() needs at least 2 arguments in kernels")
        t = c.unify_many(args, node) if all(isinstance(a.type, T.Scalar) for a in args) else \
            next(a.type for a in args if isinstance(a.type, T.Vector))
        if t == T.bool_:
            t = T.i32
        out = c.convert(args[0], t, node)
        for a in args[1:]:
            out = ir.Intrinsic(t, c.src.loc(node), name, [out, c.convert(a, t, node)])
        return out
    _math_builtin(name, lower, _glsl_call(name), (getattr(py_builtins, name),))


_min_max("min")
_min_max("max")


def _float_binary(name, emit):
    def lower(c, node, _python_math):
        args = [c.value(c.expr(a), a) for a in node.args]
        if len(args) != 2:
            raise c.src.error(node, f"{name}() takes 2 arguments")
        t = _float_type(c, c.unify_many(args, node), node)
        a, b = (c.convert(x, t, node) for x in args)
        return ir.Intrinsic(t, c.src.loc(node), name, [a, b])
    _math_builtin(name, lower, emit, _py(name))


_float_binary("atan2", _math_call("atan2"))
_float_binary("pow", _math_call("pow"))
_float_binary("copysign", lambda w, e: f"{w.helper('copysign', e.type)}"
              f"({w.expr(e.args[0])}, {w.expr(e.args[1])})")
for _name in ("hypot", "fmod", "remainder"):
    _float_binary(_name, _math_call(_name))


def _lower_ldexp(c, node, _python_math):
    args = [c.value(c.expr(a), a) for a in node.args]
    if len(args) != 2:
        raise c.src.error(node, "ldexp(x, n) takes 2 arguments")
    if not (isinstance(args[1].type, T.Scalar) and args[1].type.is_int):
        raise c.src.error(node.args[1], f"ldexp(x, n): n must be an integer, got {args[1].type}")
    t = _float_type(c, args[0].type, node)
    if isinstance(t, T.Vector):
        raise c.src.error(node, "ldexp() takes a scalar")
    n, loc = args[1], c.src.loc(node)
    nt = T.arithmetic(n.type)
    if nt != T.i32:         # clamped in its own type first, so that int32 cannot wrap it
        lo = 0 if nt.kind == "u" else -3000
        n = ir.Intrinsic(nt, loc, "clamp", [n, ir.Const(nt, loc, lo), ir.Const(nt, loc, 3000)])
    return ir.Intrinsic(t, c.src.loc(node), "ldexp", [c.convert(args[0], t, node),
                                                      c.convert(n, T.i32, node)])


_math_builtin("ldexp", _lower_ldexp, _math_call("ldexp"), _py("ldexp"))


def _scalar_float_arg(c, node, name):
    if len(node.args) != 1:
        raise c.src.error(node, f"{name}() takes 1 argument")
    a = c.value(c.expr(node.args[0]), node.args[0])
    t = _float_type(c, a.type, node)
    if isinstance(t, T.Vector):
        raise c.src.error(node, f"{name}() takes a scalar")
    return c.convert(a, t, node), t


def _pair(c, x, loc, first, second):
    """(first(ref), second(ref)) of x evaluated once: two-result functions (frexp, modf)."""
    tmp, ref = (None, x) if isinstance(x, (ir.Ref, ir.Const)) else \
        (lambda v: (v, ir.Ref(x.type, loc, v)))(c._temp(x.type, "m"))
    a = first(ref)
    return PyValue((a if tmp is None else ir.Let(a.type, loc, tmp, x, a), second(ref)))


def _lower_frexp(c, node, _python_math):
    x, t = _scalar_float_arg(c, node, "frexp")
    loc = c.src.loc(node)
    return _pair(c, x, loc, lambda r: ir.Intrinsic(t, loc, "frexpm", [r]),
                 lambda r: ir.Intrinsic(T.i32, loc, "frexpe", [r]))


def _lower_modf(c, node, _python_math):
    x, t = _scalar_float_arg(c, node, "modf")
    loc = c.src.loc(node)
    return _pair(c, x, loc, lambda r: ir.Intrinsic(t, loc, "modff", [r]),
                 lambda r: ir.Intrinsic(t, loc, "trunc", [r]))


_math_builtin("frexp", _lower_frexp, None, _py("frexp"))
_math_builtin("modf", _lower_modf, None, _py("modf"))
for _name in ("frexpm", "modff"):
    _register(Entry(_name, _math_call(_name)))
_register(Entry("frexpe", lambda w, e: f"{mathlib.function(w.helpers, 'frexpe', e.args[0].type)}"
                f"({w.expr(e.args[0])})"))


def _lower_round(c, node, python_math):
    """round(x) -> the nearest integer, ties to even (Python's, numba's: an int);
    round(x, n) -> x rounded to n decimals, a float."""
    args = [c.value(c.expr(a), a) for a in node.args]
    if not 1 <= len(args) <= 2:
        raise c.src.error(node, f"round() takes 1 or 2 arguments, got {len(args)}")
    loc = c.src.loc(node)
    x = args[0]
    if isinstance(x.type, T.Scalar) and (x.type.is_int or x.type == T.bool_) and len(args) == 1:
        return c.convert(x, T.i32 if x.type == T.bool_ else T.arithmetic(x.type), node)
    t = _float_type(c, x.type, node)
    if isinstance(t, T.Vector):
        raise c.src.error(node, "round() takes a scalar; vkp.rint is elementwise")
    x = c.convert(x, t, node)
    if len(args) == 1:
        out = ir.Intrinsic(t, loc, "rint", [x])
        return c.convert(out, T.i32 if t.bits <= 32 else T.i64, node) if python_math else out
    if not (isinstance(args[1].type, T.Scalar) and args[1].type.is_int):
        raise c.src.error(node.args[1], "round(x, ndigits): ndigits must be an integer")
    return ir.Intrinsic(t, loc, "roundn", [x, c.convert(args[1], T.i32, node)])


_math_builtin("round", _lower_round, None, (py_builtins.round,))
_register(Entry("roundn", _math_call("roundn")))


def _angle(name, factor):
    def lower(c, node, _python_math):
        x, t = _scalar_float_arg(c, node, name)
        return ir.Binary(t, c.src.loc(node), "*", x, ir.Const(t, c.src.loc(node), factor))
    _math_builtin(name, lower, None, _py(name))


_angle("degrees", 180.0 / math.pi)
_angle("radians", math.pi / 180.0)
# the integer power Semantics makes for int ** int (no Python object calls it)
_register(Entry("ipow", lambda w, e: f"{w.helper('ipow', e.type)}"
                f"({w.expr(e.args[0])}, {w.expr(e.args[1])})"))


def _ternary(name, float_only):
    def lower(c, node, _python_math):
        args = [c.value(c.expr(a), a) for a in node.args]
        if len(args) != 3:
            raise c.src.error(node, f"{name}() takes 3 arguments")
        t = args[0].type if isinstance(args[0].type, T.Vector) else c.unify_many(args, node)
        if float_only:
            t = _float_type(c, t, node)
        return ir.Intrinsic(t, c.src.loc(node), name, [c.convert(a, t, node) for a in args])
    _math_builtin(name, lower, _glsl_call(name), _py(name))


_ternary("fma", True)
_ternary("clamp", False)
_ternary("mix", True)


def _lower_select(c, node, _python_math):
    args = [c.value(c.expr(a), a) for a in node.args]
    if len(args) != 3:
        raise c.src.error(node, "select(cond, a, b) takes 3 arguments")
    return c.rule(node, c.sem.select, c.truth(args[0], node), args[1], args[2], c.src.loc(node))


_math_builtin("select", _lower_select, None)


def _geometric(name, count, vector_result):
    def lower(c, node, _python_math):
        args = [c.value(c.expr(a), a) for a in node.args]
        if len(args) != count:
            raise c.src.error(node, f"{name}() takes {count} argument(s)")
        vt = args[0].type
        if not (isinstance(vt, T.Vector) and vt.elem.is_float) or any(a.type != vt for a in args):
            raise c.src.error(node, f"{name}() takes float vectors of one type")
        if name == "cross" and vt.n != 3:
            raise c.src.error(node, "cross() takes 3-component vectors")
        return ir.Intrinsic(vt if vector_result else vt.elem, c.src.loc(node), name, args)
    _math_builtin(name, lower, _glsl_call(name))


for _name, _count, _vector in [("dot", 2, False), ("cross", 2, True), ("length", 1, False),
                               ("normalize", 1, True), ("distance", 2, False)]:
    _geometric(_name, _count, _vector)


# ---- atomics -----------------------------------------------------------------------------------
_ATOMIC_GLSL = {"add": "atomicAdd", "min": "atomicMin", "max": "atomicMax", "and": "atomicAnd",
                "or": "atomicOr", "xor": "atomicXor", "exchange": "atomicExchange",
                "compare_exchange": "atomicCompSwap"}


def _lower_atomic(c, node, name):
    loc = c.src.loc(node)
    n_values = 2 if name == "compare_exchange" else 1
    if len(node.args) != 2 + n_values:
        extra = "expected, new" if n_values == 2 else "value"
        raise c.src.error(node, f"atomic.{name}(array, index, {extra}) takes {2 + n_values} arguments")
    arr = c.expr(node.args[0])
    if not (isinstance(arr, PyValue) and isinstance(arr.value, ArrayHandle)):
        raise c.src.error(node.args[0], f"atomic.{name} needs an array (a kernel array argument "
                          "or a shared array) as its first argument")
    var = arr.value.var
    if var.role in ("local_array", "const_array"):
        raise c.src.error(node.args[0], "atomics need a kernel array argument or a shared "
                          "array (local arrays are private, captured host arrays constant)")
    idx_node = node.args[1]
    index = c.array_index(var, idx_node, idx_node)
    elem = var.type.elem
    ok = {T.i32, T.u32}
    if c.unit.target.atomic_int64:
        ok |= {T.i64, T.u64}
    if name in ("add", "exchange") and c.unit.target.atomic_float:
        ok |= {T.f32}
    if name in ("inc", "dec"):
        ok = {T.u32, T.u64} & ok
    if elem in (T.f32, T.f64) and elem not in ok and name in _CAS_FLOAT:
        return _lower_float_cas(c, node, name, var, index, elem)
    if elem not in ok:
        raise c.src.error(node, f"atomic.{name} is not available for {elem} arrays on this "
                          f"device; supported: {', '.join(sorted(map(str, ok)))}")
    if elem == T.f32:
        c.unit.uses_atomic_float = True
    if elem in (T.i64, T.u64):
        c.unit.uses_atomic_int64 = True
    values = [c.convert(c.value(c.expr(a), a), elem, a) for a in node.args[2:]]
    var.written = True
    return ir.Intrinsic(elem, loc, f"atomic_{name}", [ir.Load(elem, loc, var, index), *values])


# float atomics GLSL lacks, as compare-and-swap loops on the element's bits, and CUDA's
# wrapping unsigned increments: the new value from the old one (o) and the operand (v)
_CAS_FLOAT = {"add": "{o} + {v}", "sub": "{o} - {v}", "max": "({v} > {o} ? {v} : {o})",
              "min": "({v} < {o} ? {v} : {o})", "exchange": "{v}"}
_CAS_INT = {"inc": "({o} >= {v} ? {t}(0) : {o} + {t}(1))",
            "dec": "(({o} == {t}(0) || {o} > {v}) ? {v} : {o} - {t}(1))"}


def _lower_float_cas(c, node, name, var, index, elem):
    """A float atomic as a compare-and-swap loop on the element's bits: a buffer is also
    declared as words (bits_alias); a shared array is then held as words throughout (its
    loads and stores convert), since shared memory cannot be declared twice."""
    shared = var.role == "shared"
    if elem == T.f64:
        have = c.unit.target.atomic_int64_shared if shared else c.unit.target.atomic_int64
        if not have:
            where = "shared memory (shaderSharedInt64Atomics)" if shared else \
                "buffers (shaderBufferInt64Atomics)"
            raise c.src.error(node, f"atomic.{name} on float64 needs 64-bit integer atomics "
                              f"on {where} for its compare-and-swap, which "
                              f"{c.unit.target.name} lacks; use a float32 array")
        c.unit.uses_atomic_int64 = True
        c.require(T.u64, node)
    var.bits_alias = True
    var.written = True
    loc = c.src.loc(node)
    value = c.convert(c.value(c.expr(node.args[2]), node.args[2]), elem, node.args[2])
    return ir.Intrinsic(elem, loc, f"atomic_cas_{name}", [ir.Load(elem, loc, var, index), value])


def _emit_cas_loop(w, target, value, t, word, update, to_word, from_word):
    """`t old = target; target = update(old, value)` atomically; returns old."""
    o, v, seen = w._tmp("o"), w._tmp("v"), w._tmp("seen")
    w.pre += [f"{t} {v} = {value};", f"{word} {o} = {target};",
              f"for (;;) {{ {word} {seen} = atomicCompSwap({target}, {o}, "
              f"{to_word(update.format(o=from_word(o), v=v, t=t))}); "
              f"if ({seen} == {o}) break; {o} = {seen}; }}"]
    return from_word(o)


def _emit_float_cas(name):
    def emit(w, e):
        var = e.args[0].var
        target = w.element(var, e.args[0].index)
        if var.role != "shared":          # a buffer's word view (a shared array is words)
            target = f"{var.name}_bits{target[len(var.name):]}"
        f64 = e.type == T.f64
        to_word = (lambda x: f"doubleBitsToUint64({x})") if f64 else \
            (lambda x: f"floatBitsToUint({x})")
        from_word = (lambda x: f"uint64BitsToDouble({x})") if f64 else \
            (lambda x: f"uintBitsToFloat({x})")
        return _emit_cas_loop(w, target, w.expr(e.args[1]), w.glsl_type(e.type),
                              "uint64_t" if f64 else "uint", _CAS_FLOAT[name], to_word, from_word)
    return emit


def _emit_int_cas(name):
    def emit(w, e):
        target = w.element(e.args[0].var, e.args[0].index)
        t = w.glsl_type(e.type)
        return _emit_cas_loop(w, target, w.expr(e.args[1]), t, t, _CAS_INT[name], str, str)
    return emit


for _name in _CAS_FLOAT:
    _register(Entry(f"atomic_cas_{_name}", _emit_float_cas(_name), accesses="write"))


def _emit_atomic(name):
    def emit(w, e):
        if name in _CAS_INT:
            return _emit_int_cas(name)(w, e)
        target = w.element(e.args[0].var, e.args[0].index)
        values = [w.expr(a) for a in e.args[1:]]
        if name == "sub":
            return f"atomicAdd({target}, -({values[0]}))"
        return f"{_ATOMIC_GLSL[name]}({target}, {', '.join(values)})"
    return emit


atomic = types.SimpleNamespace()
for _py_name in ("add", "sub", "min", "max", "and_", "or_", "xor", "exchange",
                 "compare_exchange", "inc", "dec"):
    _name = _py_name.rstrip("_")
    _obj = Builtin(f"atomic.{_py_name}", f"atomic.{_py_name}(array, index, value"
                   f"{', new' if _py_name == 'compare_exchange' else ''}): atomically update "
                   "array[index]; returns the old value.")
    setattr(atomic, _py_name, _obj)
    _register(Entry(f"atomic_{_name}", _emit_atomic(_name),
                    (lambda n: lambda c, node, pm: _lower_atomic(c, node, n))(_name),
                    accesses="write"), _obj)


# ---- channels and program resources (made by the front end's channel lowering) ----------------
_register(Entry("program_step", lambda w, e: w.program_step(e)))
for _name, _accesses in [("control_load", "read"), ("control_store", "write"),
                         ("control_apply", "write"), ("queue_push", "write"),
                         ("socket_slot", None), ("socket_seq", None), ("socket_store", "write"),
                         ("socket_payload", "write"), ("socket_commit", None)]:
    # emitted by the channel's own GPU side (control/_device.py, memsock/_device.py; a
    # program's writer takes over the operations it lays out itself)
    _register(Entry(_name, (lambda op: lambda w, e: w.channel_op(op, e))(_name),
                    accesses=_accesses))


def accessed(e: ir.Intrinsic) -> tuple[str | None, object]:
    """("read" | "write" | None, the Var of the buffer) for the scheduler's analysis."""
    entry = REGISTRY[e.name]
    if entry.accesses is None:
        return None, None
    target = e.args[0]
    return entry.accesses, target.var if isinstance(target, ir.Load) else target


__all__ = ["Builtin", "Entry", "REGISTRY", "accessed", "atomic", "barrier", "global_id",
           "global_size", "group_id", "local", "local_id", "local_size", "lookup",
           "math_functions", "num_groups", "shared", *math_functions]


def alias(obj, name: str) -> None:
    """Make `obj` call builtin `name` in kernel code: the NumPy-named array functions
    (vkp.arctan2, vkp.power, ...) mean the kernel builtins of the same math there."""
    _BY_OBJECT[id(obj)] = (REGISTRY[name], False)
    _KEEP.append(obj)
