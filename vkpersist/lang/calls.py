"""Lowering of calls inside kernels: builtins, math, casts, vector constructors, atomics and
@vkp.func device functions. Anything else callable is Python the GPU cannot run."""
from __future__ import annotations

import builtins as py_builtins
import math

import numpy as np

from . import builtins as B
from . import ir
from . import types as T
from .semantics import const
from .values import ArrayHandle, ControlApply, DeviceFunction, PyValue, QueuePush, SocketCommit

_IDS = {B.global_id: "global_id", B.local_id: "local_id", B.group_id: "group_id",
        B.num_groups: "num_groups", B.local_size: "local_size", B.global_size: "global_size"}

# float -> float functions: vkp.<name> and math.<name> (math.floor/ceil/trunc return ints)
_FLOAT_UNARY = {"sqrt", "rsqrt", "exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan",
                "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
                "floor", "ceil", "trunc", "fabs", "sign"}
_MATH_MODULE = {getattr(math, n): n for n in ("sqrt", "exp", "log", "log2", "log10", "sin", "cos",
                                              "tan", "asin", "acos", "atan", "atan2", "sinh",
                                              "cosh", "tanh", "asinh", "acosh", "atanh", "pow",
                                              "floor", "ceil", "trunc", "fabs", "isnan", "isinf",
                                              "copysign", "hypot", "fma")
                if hasattr(math, n)}
_MATH_INT_RESULT = {"floor", "ceil", "trunc"}
_ATOMIC_NAMES = {getattr(B.atomic, n): n.rstrip("_") for n in vars(B.atomic)}


def lower_call(c, target, node):
    if node.keywords and not (target in (B.shared.array, B.local.array)):
        raise c.src.error(node, "keyword arguments are not supported in kernel calls")
    if isinstance(target, ControlApply):
        if len(node.args) != 1:
            raise c.src.error(node, "apply(step) takes the step number to acknowledge with")
        step = c.convert(c.value(c.expr(node.args[0]), node.args[0]), T.u32, node)
        target.var.written = True
        return ir.Intrinsic(T.void, c.src.loc(node), "control_apply", [target.var, step])
    if isinstance(target, QueuePush):
        if len(node.args) != 1:
            raise c.src.error(node, "push(item) takes one item")
        var = target.var
        item = c.convert(c.value(c.expr(node.args[0]), node.args[0]), var.type.elem, node)
        var.written = True
        return ir.Intrinsic(T.bool_, c.src.loc(node), "queue_push", [var, item])
    if isinstance(target, SocketCommit):
        if node.args:
            raise c.src.error(node, "commit() takes no arguments")
        return c.socket_commit(target.var, node)
    if isinstance(target, DeviceFunction):
        return _device_call(c, target, node)
    if c.unit.resources and (target in _IDS or target is B.barrier):
        raise c.src.error(node, f"program stages cannot call vkp.{target.name}(): a stage is "
                          "called once per index of its domain (its parameters), with no "
                          "workgroup of its own; the scheduler separates stages by grid barriers")
    if target in _IDS:
        return _id(c, _IDS[target], node)
    if target is B.barrier:
        if node.args:
            raise c.src.error(node, "barrier() takes no arguments")
        return ir.Intrinsic(T.void, c.src.loc(node), "barrier", [])
    if target in _ATOMIC_NAMES:
        return _atomic(c, _ATOMIC_NAMES[target], node)
    if target in (B.shared.array, B.local.array):
        raise c.src.error(node, "shared/local arrays must be assigned to a name: "
                          "tile = vkp.shared.array((16, 16), vkp.f32)")
    if isinstance(target, B.Builtin) and target.name in B.math_functions:
        return _math(c, target.name, node, python_math=False)
    if target in _MATH_MODULE:
        return _math(c, _MATH_MODULE[target], node, python_math=True)
    if isinstance(target, T.Vector):
        return _vector(c, target, node)
    if target in (py_builtins.int, py_builtins.float, py_builtins.bool):
        return _python_cast(c, target, node)
    if target is py_builtins.abs:
        return _math(c, "abs", node, python_math=True)
    if target in (py_builtins.min, py_builtins.max):
        return _math(c, target.__name__, node, python_math=True)
    if target is py_builtins.len:
        return _len(c, node)
    if target is py_builtins.range:
        raise c.src.error(node, "range() can only be used as the iterable of a for loop")
    if target is py_builtins.print:
        raise c.src.error(node, "print() is not available on the GPU; write values into an "
                          "array (or a MemSock) and print them on the host")
    t = T.resolve_type(target) if not isinstance(target, (type(len),)) else None
    if isinstance(target, T.Scalar) or (t is not None and isinstance(target, type)
                                         and issubclass(target, np.generic)):
        return _cast(c, t if t is not None else target, node)
    name = getattr(target, "__name__", type(target).__name__)
    raise c.src.error(node, f"cannot call {name!r} on the GPU: kernels may call @vkp.func "
                      "functions, vkp/math builtins, casts and vector constructors")


def _args(c, node, n=None, what=""):
    if n is not None and len(node.args) not in (n if isinstance(n, tuple) else (n,)):
        raise c.src.error(node, f"{what} takes {n if not isinstance(n, tuple) else ' or '.join(map(str, n))} "
                          f"argument(s), got {len(node.args)}")
    return [c.value(c.expr(a), a) for a in node.args]


def _id(c, name, node):
    if len(node.args) > 1:
        raise c.src.error(node, f"{name}(axis) takes one axis argument")
    axis = c.constant_value(node.args[0], "the axis") if node.args else 0
    if axis not in (0, 1, 2):
        raise c.src.error(node, f"{name}(axis): axis must be the constant 0, 1 or 2, got {axis!r}")
    return ir.Intrinsic(T.i32, c.src.loc(node), name, [int(axis)])


def _float_type(c, t, node):
    if isinstance(t, T.Vector):
        if not t.elem.is_float:
            raise c.src.error(node, f"this function needs float vectors, got {t}")
        return t
    if t.is_float:
        return T.arithmetic(t)
    return T.f32


def _math(c, name, node, *, python_math):
    loc = c.src.loc(node)
    args = [c.value(c.expr(a), a) for a in node.args]
    if name in _FLOAT_UNARY:
        if len(args) != 1:
            raise c.src.error(node, f"{name}() takes 1 argument, got {len(args)}")
        t = _float_type(c, args[0].type, node)
        out = ir.Intrinsic(t, loc, name, [c.convert(args[0], t, node)])
        if python_math and name in _MATH_INT_RESULT:
            return c.convert(out, T.i32 if t.bits <= 32 else T.i64, node)
        return out
    if name in ("isnan", "isinf"):
        if len(args) != 1:
            raise c.src.error(node, f"{name}() takes 1 argument")
        t = _float_type(c, args[0].type, node)
        if isinstance(t, T.Vector):
            raise c.src.error(node, f"{name}() takes a scalar")
        return ir.Intrinsic(T.bool_, loc, name, [c.convert(args[0], t, node)])
    if name in ("abs",):
        if len(args) != 1:
            raise c.src.error(node, "abs() takes 1 argument")
        a = args[0]
        if a.type == T.bool_:
            a = c.convert(a, T.i32, node)
        if isinstance(a, ir.Const):
            return ir.Const(a.type, loc, abs(a.value))
        if isinstance(a.type, T.Scalar) and a.type.kind == "u":
            return a
        return ir.Intrinsic(a.type, loc, "abs", [a])
    if name in ("min", "max"):
        if len(args) < 2:
            raise c.src.error(node, f"{name}() needs at least 2 arguments in kernels")
        t = c.unify_many(args, node) if all(isinstance(a.type, T.Scalar) for a in args) else \
            next(a.type for a in args if isinstance(a.type, T.Vector))
        if t == T.bool_:
            t = T.i32
        out = c.convert(args[0], t, node)
        for a in args[1:]:
            out = ir.Intrinsic(t, loc, name, [out, c.convert(a, t, node)])
        return out
    if name in ("atan2", "pow", "copysign", "hypot"):
        if len(args) != 2:
            raise c.src.error(node, f"{name}() takes 2 arguments")
        t = _float_type(c, c.unify_many(args, node), node)
        a, b = (c.convert(x, t, node) for x in args)
        return ir.Intrinsic(t, loc, name, [a, b])
    if name in ("fma", "clamp", "mix"):
        if len(args) != 3:
            raise c.src.error(node, f"{name}() takes 3 arguments")
        if name == "clamp":
            t = args[0].type if isinstance(args[0].type, T.Vector) else c.unify_many(args, node)
        else:
            t = _float_type(c, args[0].type if isinstance(args[0].type, T.Vector)
                            else c.unify_many(args, node), node)
        return ir.Intrinsic(t, loc, name, [c.convert(a, t, node) for a in args])
    if name == "select":
        if len(args) != 3:
            raise c.src.error(node, "select(cond, a, b) takes 3 arguments")
        t = c.unify(args[1].type, args[2].type, node)
        return ir.Select(t, loc, c.truth(args[0], node), c.convert(args[1], t, node),
                         c.convert(args[2], t, node))
    if name in ("dot", "cross", "length", "normalize", "distance"):
        want = {"dot": 2, "cross": 2, "length": 1, "normalize": 1, "distance": 2}[name]
        if len(args) != want:
            raise c.src.error(node, f"{name}() takes {want} argument(s)")
        vt = args[0].type
        if not (isinstance(vt, T.Vector) and vt.elem.is_float) or any(a.type != vt for a in args):
            raise c.src.error(node, f"{name}() takes float vectors of one type")
        if name == "cross" and vt.n != 3:
            raise c.src.error(node, "cross() takes 3-component vectors")
        t = vt if name in ("cross", "normalize") else vt.elem
        return ir.Intrinsic(t, loc, name, args)
    raise c.src.error(node, f"{name}() is not supported in kernels")


def _python_cast(c, target, node):
    args = _args(c, node, 1, f"{target.__name__}()")
    a = args[0]
    if target is py_builtins.bool:
        return c.truth(a, node)
    if not isinstance(a.type, T.Scalar):
        raise c.src.error(node, f"{target.__name__}() takes a scalar, got {a.type}")
    if target is py_builtins.int:
        t = T.i64 if a.type in (T.i64, T.u64, T.f64) and a.type.bits == 64 else T.i32
        if a.type.is_int and a.type.kind == "i":
            t = a.type
        return c.convert(a, t, node)
    t = T.f64 if a.type == T.f64 else T.f32
    return c.convert(a, t, node)


def _cast(c, t, node):
    args = _args(c, node, 1, f"{t}()")
    t = T.arithmetic(t)
    c.require(t, node)
    a = args[0]
    if t == T.bool_:
        return c.truth(a, node)
    if isinstance(a.type, T.Vector):
        raise c.src.error(node, f"cannot convert {a.type} to {t}")
    return c.convert(a, t, node)


def _vector(c, vt, node):
    loc = c.src.loc(node)
    args = _args(c, node)
    if len(args) == 1 and isinstance(args[0].type, T.Scalar):
        return ir.MakeVector(vt, loc, [c.convert(args[0], vt.elem, node)])
    if len(args) == 1 and isinstance(args[0].type, T.Vector) and args[0].type.n == vt.n:
        return c.convert(args[0], vt, node)
    parts, count = [], 0
    for a in args:
        if isinstance(a.type, T.Vector):
            parts.append(c.convert(a, T.Vector(vt.elem, a.type.n), node))
            count += a.type.n
        elif isinstance(a.type, T.Scalar):
            parts.append(c.convert(a, vt.elem, node))
            count += 1
        else:
            raise c.src.error(node, f"{vt}() takes scalars and vectors")
    if count != vt.n:
        raise c.src.error(node, f"{vt}() needs {vt.n} components, got {count}")
    return ir.MakeVector(vt, loc, parts)


def _len(c, node):
    if len(node.args) != 1:
        raise c.src.error(node, "len() takes 1 argument")
    v = c.expr(node.args[0])
    if isinstance(v, PyValue) and isinstance(v.value, ArrayHandle):
        return c.shape_of(v.value.var, 0, c.src.loc(node))
    if isinstance(v, PyValue) and isinstance(v.value, tuple):
        return const(len(v.value), c.src.loc(node), T.i32)
    raise c.src.error(node, "len() takes an array or a tuple")


def _atomic(c, name, node):
    loc = c.src.loc(node)
    n_values = 2 if name == "compare_exchange" else 1
    if len(node.args) != 2 + n_values:
        extra = "expected, new" if n_values == 2 else "value"
        raise c.src.error(node, f"atomic.{name}(array, index, {extra}) takes {2 + n_values} arguments")
    arr = c.expr(node.args[0])
    if not (isinstance(arr, PyValue) and isinstance(arr.value, ArrayHandle)):
        raise c.src.error(node.args[0], f"atomic.{name} needs an array (a kernel array argument or "
                          "a shared array) as its first argument")
    var = arr.value.var
    if var.role == "local_array":
        raise c.src.error(node.args[0], "atomics on local arrays make no sense: they are private")
    idx_node = node.args[1]
    index = c.array_index(var, idx_node, idx_node)
    elem = var.type.elem
    ok = {T.i32, T.u32}
    if c.unit.target.atomic_int64:
        ok |= {T.i64, T.u64}
    if name in ("add", "exchange") and c.unit.target.atomic_float:
        ok |= {T.f32}
    if elem not in ok:
        raise c.src.error(node, f"atomic.{name} is not available for {elem} arrays on this "
                          f"device; supported: {', '.join(sorted(map(str, ok)))}")
    if elem == T.f32:
        c.unit.uses_atomic_float = True
    if elem in (T.i64, T.u64):
        c.unit.uses_atomic_int64 = True
    values = [c.convert(c.value(c.expr(a), a), elem, a) for a in node.args[2:]]
    var.written = True
    target = ir.Load(elem, loc, var, index)
    return ir.Intrinsic(elem, loc, f"atomic_{name}", [target, *values])


def _device_call(c, devfunc, node):
    loc = c.src.loc(node)
    arg_types, values, bound = [], [], {}
    params = devfunc.param_names
    if len(node.args) != len(params):
        raise c.src.error(node, f"{devfunc.__name__}() takes {len(params)} argument(s), got "
                          f"{len(node.args)}")
    for pname, a in zip(params, node.args):
        v = c.expr(a)
        if isinstance(v, PyValue) and isinstance(v.value, ArrayHandle):
            var = v.value.var
            if var.role == "local_array":
                raise c.src.error(a, "local arrays cannot be passed to functions yet; use a "
                                  "shared array or a kernel array argument")
            bound[pname] = var
            arg_types.append(var.type)
            continue
        v = c.value(v, a)
        t = v.type
        arg_types.append(t)
        values.append(v)
    fn = c.unit.compile_function(devfunc, arg_types, bound, c.src, node)
    c.callees.append(fn)
    values = [c.convert(v, p.type, node) for v, p in zip(values, fn.params)]
    if len(fn.returns) <= 1:
        return ir.Call(fn.returns[0] if fn.returns else T.void, loc, fn, values)
    outs = [c._temp(t, "r") for t in fn.returns]
    return ir.Call(T.void, loc, fn, values, outs)
