"""Lowering of calls inside kernels: the builtins (through the registry in builtins.py),
casts, vector constructors, len, and @vkp.func device functions. Anything else callable is
Python the GPU cannot run."""
from __future__ import annotations

import ast
import builtins as py_builtins

import numpy as np

from . import builtins as B
from . import complexlib  # noqa: F401  (registers complex(), cmath.* and the complex ops)
from . import ir
from . import types as T
from .semantics import const
from .channels import ChannelValue
from .source import parse_function
from .printing import lower_print
from .values import ArrayHandle, CompileTimeArg, DeviceFunction, PyValue


def lower_call(c, target, node):
    if node.keywords and not (target in (B.shared.array, B.local.array)):
        raise c.src.error(node, "keyword arguments are not supported in kernel calls")
    if isinstance(target, ChannelValue) and hasattr(target, "call"):
        return target.call(c, node)             # ctrl.apply(step), q.push(item), sock.commit()
    if isinstance(target, DeviceFunction):
        return _device_call(c, target, node)
    if isinstance(target, _Conjugate):
        return target.lower(c, node)
    found = B.lookup(target)
    if found is not None:
        entry, python_math = found
        if entry.workgroup and c.unit.resources:
            raise c.src.error(node, f"program stages cannot call vkp.{target.name}(): a stage "
                              "is called once per index of its domain (its parameters), with "
                              "no workgroup of its own; the scheduler separates stages by grid "
                              "barriers")
        return entry.lower(c, node, python_math)
    if isinstance(target, T.Complex):
        return _cast(c, target, node)
    if isinstance(target, T.Vector):
        return _vector(c, target, node)
    if target in (py_builtins.int, py_builtins.float, py_builtins.bool):
        return _python_cast(c, target, node)
    if target is py_builtins.len:
        return _len(c, node)
    if target is py_builtins.range:
        raise c.src.error(node, "range() can only be used as the iterable of a for loop")
    if target is py_builtins.print:
        return lower_print(c, node)
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
    if isinstance(a.type, T.Vector) and not isinstance(t, T.Complex):
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


def complex_attribute(c, z, node):
    """z.real, z.imag, z.conjugate of a complex value."""
    loc = c.src.loc(node)
    if node.attr in ("real", "imag"):
        return ir.Swizzle(z.type.elem, loc, z, "x" if node.attr == "real" else "y")
    if node.attr == "conjugate":
        return PyValue(_Conjugate(z))
    raise c.src.error(node, f"complex numbers have .real, .imag and .conjugate(), not "
                      f".{node.attr}")


class _Conjugate:
    """The bound method z.conjugate, met as a call target."""
    __name__ = "conjugate"

    def __init__(self, z):
        self.z = z

    def lower(self, c, node):
        if node.args:
            raise c.src.error(node, "conjugate() takes no arguments")
        z, loc = self.z, c.src.loc(node)
        t = z.type
        ref, tmp = z, None
        if not isinstance(z, (ir.Ref, ir.Const)):
            tmp = c._temp(t, "z")
            ref = ir.Ref(t, loc, tmp)
        out = ir.MakeVector(t, loc, [ir.Swizzle(t.elem, loc, ref, "x"),
                                     ir.Unary(t.elem, loc, "-", ir.Swizzle(t.elem, loc, ref, "y"))])
        return out if tmp is None else ir.Let(t, loc, tmp, z, out)


def _len(c, node):
    if len(node.args) != 1:
        raise c.src.error(node, "len() takes 1 argument")
    v = c.expr(node.args[0])
    if isinstance(v, PyValue) and isinstance(v.value, ArrayHandle):
        return c.shape_of(v.value.var, 0, c.src.loc(node))
    if isinstance(v, PyValue) and isinstance(v.value, tuple):
        return const(len(v.value), c.src.loc(node), T.i32)
    raise c.src.error(node, "len() takes an array or a tuple")


def _device_call(c, devfunc, node):
    loc = c.src.loc(node)
    arg_types, values, bound = [], [], {}
    params = devfunc.param_names
    if len(node.args) != len(params):
        raise c.src.error(node, f"{devfunc.__name__}() takes {len(params)} argument(s), got "
                          f"{len(node.args)}")
    declared = devfunc.param_types or [None] * len(params)
    shapes = _shape_params(devfunc)
    for pname, a, want in zip(params, node.args, declared):
        v = c.expr(a)
        if pname in shapes:     # sizes a shared/local array: the callee needs its value
            arg_types.append(CompileTimeArg(c.constant_value(
                a, f"argument {pname!r} (it sizes an array in {devfunc.__name__})")))
            continue
        if isinstance(v, PyValue) and isinstance(v.value, ArrayHandle):
            var = v.value.var
            if var.role == "local_array":
                raise c.src.error(a, "local arrays cannot be passed to functions yet; use a "
                                  "shared array or a kernel array argument")
            bound[pname] = var
            arg_types.append(var.type)
            continue
        static = _static(v.value) if isinstance(v, PyValue) else _RUNTIME
        if static is not _RUNTIME:
            arg_types.append(CompileTimeArg(static))
            continue
        v = c.value(v, a)
        if isinstance(want, T.Scalar) and isinstance(v.type, T.Scalar):
            v = c.convert(v, T.arithmetic(want), a)
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


_RUNTIME = object()


def _static(value):
    """A Python value met as a call argument, as the compile-time value the callee is
    specialised on; _RUNTIME for numbers (runtime arguments) and tuples holding runtime
    values."""
    if isinstance(value, (bool, int, float, np.generic)):
        return _RUNTIME
    if isinstance(value, tuple):
        items = []
        for x in value:
            if isinstance(x, ir.Const):
                x = x.value
            elif isinstance(x, (ir.Expr, ArrayHandle)):
                return _RUNTIME
            elif isinstance(x, tuple):
                x = _static(x)
                if x is _RUNTIME:
                    return _RUNTIME
            items.append(x)
        return tuple(items)
    return value


_SHAPE_PARAMS: dict = {}


def _shape_params(devfunc) -> frozenset:
    """The parameters of a device function that give the shape of a shared or local array
    it declares (`cuda.shared.array(n, dtype)`): compile-time parameters, whose argument
    must be a constant, as numba makes them."""
    found = _SHAPE_PARAMS.get(devfunc)
    if found is None:
        fn, _ = parse_function(devfunc.pyfunc)
        params = {a.arg for a in fn.args.args}
        names = set()
        for n in ast.walk(fn):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                    and n.func.attr == "array":
                shape = n.args[0] if n.args else next(
                    (k.value for k in n.keywords if k.arg == "shape"), None)
                items = shape.elts if isinstance(shape, ast.Tuple) else [shape]
                names |= {i.id for i in items if isinstance(i, ast.Name)} & params
        found = _SHAPE_PARAMS[devfunc] = frozenset(names)
    return found
