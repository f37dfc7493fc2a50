"""Python AST -> typed IR: one visitor method per Python node, every error positioned.

A FunctionCompiler turns one Python function, specialised on its parameter types, into an
ir.Function. Names resolve, in order, to locals/parameters, then to the function's closure
and module globals at compile time: numbers become constants, `vkp`/`math` members become
builtins, @vkp.func objects become calls. Locals have one type for the whole function: the
body is walked until every local's type is stable, unifying the types assigned to it
(int then float -> float), so branches may assign different numeric types.

The typing rules themselves (promotion, conversions, comparisons, literal folding) live in
semantics.py and work on IR alone; this module applies them and positions what they refuse
at the Python node being compiled.
"""
from __future__ import annotations

import ast
import builtins as py_builtins

import numpy as np

from .._errors import CompileError
from . import ir
from . import types as T
from . import calls
from .channels import ChannelValue, channel_frontend, channel_frontends
from .statements import BINOPS, Restart, StatementLowering, elem_type
from .semantics import Semantics, TypingError, const, literal
from .source import describe_expr, describe_stmt, glsl_name, parse_function
from .values import (ArrayHandle, CompileTimeArg, KernelValue, PyValue, describe_value,
                     pydescribe)

class FunctionCompiler(StatementLowering):
    MAX_PASSES = 8

    def __init__(self, unit, pyfunc, param_types: list, *, is_kernel: bool, glsl_fn_name: str,
                 bound_arrays: dict | None = None):
        self.unit = unit
        self.pyfunc = pyfunc
        self.node, self.src = parse_function(pyfunc)
        self.param_types = param_types
        self.is_kernel = is_kernel
        self.glsl_fn_name = glsl_fn_name
        self.bound_arrays = bound_arrays or {}
        self.local_types: dict[str, T.Type] = {}
        self.tuple_locals: dict[str, int] = {}     # name -> items of the tuple it holds
        self.static_args: dict = {}
        self.return_types: list | None = None
        self.temps = 0
        self.constant_locals = _constant_locals(self.node)

    # ---- driver -----------------------------------------------------------------------
    def compile(self) -> ir.Function:
        fn = self.node
        args = fn.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
            raise self.src.error(fn, "kernel parameters must be plain positional names (no "
                                 "defaults, *args, **kwargs or keyword-only parameters)")
        for _ in range(self.MAX_PASSES):
            try:
                fn = self._build()
            except Restart:
                continue
            # declared by the pass that settled the types (each pass declares them again)
            self.unit.shared_arrays.extend(self.declared_shared)
            return fn
        raise self.src.error(fn, "could not settle the types of the locals (they keep widening)")

    def _build(self) -> ir.Function:
        self.vars: dict[str, ir.Var] = {}
        self.static_names: dict[str, object] = {}     # names bound by unrolled loops
        self.declared_shared: list[ir.Var] = []
        self.loop_depth = 0
        self.temps = 0
        self._temp_vars = []
        self.sem = Semantics(self.unit.require, self._temp)
        self.callees = []
        self.channel_notes = {}     # what channels note while lowering, by their IR type
        self.has_return = False
        self.returns_seen = []
        params, arrays = [], []
        names = [a.arg for a in self.node.args.args]
        if len(names) != len(self.param_types):
            raise self.src.error(self.node, f"{self.pyfunc.__name__} takes {len(names)} "
                                 f"parameters, {len(self.param_types)} types were given")
        self.static_args = {}
        for name, t in zip(names, self.param_types):
            if isinstance(t, CompileTimeArg):        # a type, builtin, function, tuple
                self.static_args[name] = t.value
                continue
            channel = channel_frontend(t)
            if channel is not None:          # controls, memsocks, queues: their own
                var = channel.parameter(self, name, t)
                arrays.append(var)
            elif isinstance(t, T.ArrayType):
                var = self.bound_arrays.get(name) or ir.Var(glsl_name(name), t, "array_param")
                arrays.append(var)
            elif isinstance(t, (T.Scalar, T.Vector)):
                var = ir.Var(glsl_name(name), T.arithmetic(t) if isinstance(t, T.Scalar) else t,
                             "scalar_param")
                params.append(var)
            elif isinstance(t, T.FixedArray):
                var = self.bound_arrays[name]
                arrays.append(var)
            else:
                raise self.src.error(self.node, f"parameter {name!r}: unsupported type {t}")
            self.vars[name] = var
        body = self.block(self.node.body)
        for channel in channel_frontends():
            channel.finish(self, body)
        locals_ = []
        for v in self.vars.values():
            if v.role == "local":
                v.type = self.local_types[v.py_name]
                locals_.append(v)
            elif v.role == "local_array":
                locals_.append(v)
        returns = self.return_types or []
        return ir.Function(self.glsl_fn_name, self.pyfunc.__name__, params, arrays, returns, body,
                           locals_ + self._temp_vars, self.is_kernel, self.src.loc(self.node),
                           self.callees)

    # ---- statements ---------------------------------------------------------------------
    def block(self, stmts) -> list:
        out = []
        for s in stmts:
            method = getattr(self, "stmt_" + type(s).__name__, None)
            if method is None:
                raise self.src.error(s, f"{describe_stmt(s)} is not supported in kernels")
            result = self._visit(method, s)
            if result is None:
                continue
            out.extend(result if isinstance(result, list) else [result])
        return out

    def _visit(self, method, node):
        """Every error leaves the compiler positioned at the innermost node it arose in:
        arithmetic on constants (int(1e400), 10.0 ** 400) as what it is, anything else as
        an internal error of ours, with its cause chained for the report."""
        try:
            return method(node)
        except (CompileError, Restart):
            raise
        except (ArithmeticError, ValueError, TypingError) as exc:
            raise self.src.error(node, f"{exc}") from None
        except Exception as exc:
            raise self.src.error(node, f"internal error while compiling this (please report "
                                 f"it): {type(exc).__name__}: {exc}") from exc

    # ---- expressions ---------------------------------------------------------------------
    def expr(self, node, allow_void=False):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.src.error(node, f"{describe_expr(node)} is not supported in kernels")
        out = self._visit(method, node)
        if not allow_void and isinstance(out, ir.Expr) and out.type == T.void:
            raise self.src.error(node, "this call returns nothing; it cannot be used as a value")
        return out

    def value(self, e, node) -> ir.Expr:
        """A runtime value: compile-time numbers become constants, anything else is an error."""
        if isinstance(e, ir.Expr):
            return e
        return self.pyconst(e.value, node)

    def pyconst(self, v, node) -> ir.Expr:
        if isinstance(v, (bool, int, float, complex, np.generic)) and not isinstance(v, np.void):
            return self.rule(node, literal, v, self.src.loc(node))
        if isinstance(v, ir.Expr):
            return v
        raise self.src.error(node, f"{pydescribe(v)} cannot be used as a value on the GPU")

    def expr_Constant(self, node):
        v = node.value
        if v is None or isinstance(v, (str, bytes)) or v is Ellipsis:
            raise self.src.error(node, f"constant {v!r} is not supported in kernels (numbers and "
                                 "booleans only)")
        return self.pyconst(v, node)

    def expr_Name(self, node):
        if node.id in self.static_names:          # an unrolled loop's item
            value = self.static_names[node.id]
            return value if isinstance(value, ir.Expr) else PyValue(value)
        if node.id in self.vars:
            var = self.vars[node.id]
            if isinstance(var.type, (T.ArrayType, T.FixedArray)) \
                    or channel_frontend(var.type) is not None:
                return PyValue(ArrayHandle(var))
            return ir.Ref(var.type, self.src.loc(node), var)
        if node.id in self.static_args:
            return PyValue(self.static_args[node.id])
        if node.id in self.tuple_locals:
            return self.tuple_local(node.id, node)
        if node.id in self.local_types:
            raise self.src.error(node, f"local {node.id!r} is used before it is assigned")
        value = self.lookup_global(node.id, node)
        if isinstance(value, KernelValue):
            return value.lower(self, node)
        if isinstance(value, np.ndarray) and not self.unit.resources:
            return PyValue(ArrayHandle(self.const_array(value, node.id, node)))
        if getattr(value, "_vkp_device_array", False) and not self.unit.resources:
            return PyValue(ArrayHandle(self.captured_array(value, node.id, node)))
        return value if isinstance(value, ir.Expr) else PyValue(value)

    def captured_array(self, value, name: str, node) -> ir.Var:
        """A device array the kernel reads from its globals or closure: bound by reference,
        as numba binds a global device array (a buffer after the kernel's parameters; the
        launch binds this very array, so later writes to it are seen)."""
        entry = self.unit.captured_arrays.get(id(value))
        if entry is not None:
            return entry[0]
        try:
            elem = T.value_type_of_dtype(value.dtype)
        except TypeError:
            raise self.src.error(node, f"{name!r} is a device array of {value.dtype}, which "
                                 "kernels do not compute with") from None
        if not 1 <= value.ndim <= 3:
            raise self.src.error(node, f"{name!r} is a {value.ndim}-d device array; kernels "
                                 "index arrays of 1-3 dimensions")
        self.require(elem.elem if isinstance(elem, T.Complex) else elem, node)
        var = ir.Var(f"{glsl_name(name)}_global{len(self.unit.captured_arrays)}",
                     T.ArrayType(elem, value.ndim, not value._plain), "array_param")
        self.unit.captured_arrays[id(value)] = (var, value)
        return var

    CONST_ARRAY_LIMIT = 4096

    def const_array(self, value: np.ndarray, name: str, node) -> ir.Var:
        """A host NumPy array the kernel reads from its globals or closure: copied into the
        shader as a constant array, its values as they are at the first compilation (as
        numba copies them), up to CONST_ARRAY_LIMIT elements."""
        var = self.unit.const_arrays.get(id(value))
        if var is not None:
            return var
        if value.size > self.CONST_ARRAY_LIMIT or not 1 <= value.ndim <= 3:
            raise self.src.error(node, f"{name!r} is a host array of shape {value.shape}; "
                                 f"kernels copy captured arrays of 1-3 dimensions and at most "
                                 f"{self.CONST_ARRAY_LIMIT} elements into their code. Pass it "
                                 "as an argument instead (cuda.to_device(data) once, reused "
                                 "by every launch)")
        try:
            elem = T.value_type_of_dtype(value.dtype)
        except TypeError:
            raise self.src.error(node, f"{name!r} is a host array of {value.dtype}, which "
                                 "kernels do not compute with") from None
        elem = T.arithmetic(elem) if isinstance(elem, T.Scalar) else elem
        self.require(elem.elem if isinstance(elem, T.Complex) else elem, node)
        var = ir.Var(f"{glsl_name(name)}_const{len(self.unit.const_arrays)}",
                     T.FixedArray(elem, tuple(value.shape), "const"), "const_array",
                     init=tuple(value.ravel().tolist()))
        self.unit.const_arrays[id(value)] = var
        return var

    def program_resource(self, value, node):
        """A program's arrays and controls are globals of its stages: the handle of the
        buffer the program binds for `value`, or None when `value` is not one of them."""
        resources = self.unit.resources
        if not resources:
            return None
        var = resources.get(id(value))
        if var is None:
            if getattr(value, "_program_resource", False):
                raise self.src.error(node, f"{pydescribe(value)} belongs to another Program")
            return None
        if var == "step":
            return ir.Intrinsic(T.u32, self.src.loc(node), "program_step", [])
        return ArrayHandle(var)

    def lookup_global(self, name, node):
        fn = self.pyfunc
        if fn.__closure__:
            for cell_name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                if cell_name == name:
                    try:
                        value = cell.cell_contents
                    except ValueError:
                        raise self.src.error(node, f"{name!r} is not bound yet") from None
                    resource = self.program_resource(value, node)
                    if resource is not None:
                        return resource
                    if (isinstance(value, np.ndarray) or getattr(value, "_vkp_device_array",
                                                                 False)) \
                            and not self.unit.resources:
                        return value     # copied into / bound to the kernel (expr_Name)
                    if isinstance(value, np.ndarray) or hasattr(value, "buffer"):
                        if self.unit.resources:
                            raise self.src.error(node, f"{name!r} is an array the program does "
                                                 "not hold; stages index the program's arrays: "
                                                 "declare it with prog.array(name, shape, "
                                                 "init=data)")
                        raise self.src.error(node, f"{name!r} is an array captured from an "
                                             "enclosing function; pass arrays as kernel arguments")
                    return value
        if name in fn.__globals__:
            value = fn.__globals__[name]
            resource = self.program_resource(value, node)
            return value if resource is None else resource
        if hasattr(py_builtins, name):
            return getattr(py_builtins, name)
        raise self.src.error(node, f"name {name!r} is not defined")

    def _resolves_to(self, node, obj) -> bool:
        try:
            v = self.expr(node)
        except CompileError:
            return False
        return isinstance(v, PyValue) and v.value is obj

    def expr_Attribute(self, node):
        base = self.expr(node.value)
        if isinstance(base, PyValue):
            obj = base.value
            if isinstance(obj, ArrayHandle):
                channel = channel_frontend(obj.var.type)
                if channel is not None:     # ctrl.freq, sock.frame, q.push: the channel's own
                    return channel.attribute(self, obj.var, node)
                return self.array_attribute(obj.var, node)
            if isinstance(obj, tuple):
                raise self.src.error(node, f"tuples have no attribute {node.attr!r}")
            try:
                value = getattr(obj, node.attr)
            except AttributeError:
                raise self.src.error(node, f"{pydescribe(obj)} has no attribute {node.attr!r}") from None
            if isinstance(value, KernelValue):                 # cuda.threadIdx.x
                return value.lower(self, node)
            resource = self.program_resource(value, node)      # prog.step, self.field...
            if resource is None:
                return PyValue(value)
            return resource if isinstance(resource, ir.Expr) else PyValue(resource)
        if isinstance(base.type, T.Complex):
            return calls.complex_attribute(self, base, node)
        if isinstance(base.type, T.Vector):
            comps = self._swizzle_check(base.type, node.attr, node)
            t = base.type.elem if len(comps) == 1 else T.Vector(base.type.elem, len(comps))
            return ir.Swizzle(t, self.src.loc(node), base, comps)
        raise self.src.error(node, f"{base.type} values have no attribute {node.attr!r}")

    def _swizzle_check(self, vt: T.Vector, attr: str, node) -> str:
        valid = "xyzw"[:vt.n]
        if not attr or len(attr) > 4 or any(c not in valid for c in attr):
            raise self.src.error(node, f"{vt} has components {', '.join(valid)}; "
                                 f"{attr!r} is not a swizzle of them")
        return attr

    def array_attribute(self, var, node):
        t = var.type
        loc = self.src.loc(node)
        ndim = t.ndim if isinstance(t, T.ArrayType) else len(t.shape)
        if node.attr == "shape":
            return PyValue(tuple(self.shape_of(var, axis, loc) for axis in range(ndim)))
        if node.attr == "ndim":
            return PyValue(ndim)
        if node.attr == "size":
            size = self.shape_of(var, 0, loc)
            for axis in range(1, ndim):
                size = self.binary("*", size, self.shape_of(var, axis, loc), node)
            return size
        raise self.src.error(node, f"arrays have .shape, .size and .ndim, not .{node.attr}")

    def shape_of(self, var, axis, loc):
        if isinstance(var.type, T.FixedArray):
            return const(var.type.shape[axis], loc, T.i32)
        return ir.Shape(T.i32, loc, var, axis)

    def expr_Tuple(self, node):
        items = (self.expr(e) for e in node.elts)
        return PyValue(tuple(i.value if isinstance(i, PyValue) else i for i in items))

    def expr_Subscript(self, node):
        base = self.expr(node.value)
        if isinstance(base, PyValue) and isinstance(base.value, ArrayHandle):
            var = base.value.var
            index = self.array_index(var, node.slice, node)
            t = T.arithmetic(elem_type(var.type)) if isinstance(elem_type(var.type), T.Scalar) \
                else elem_type(var.type)
            return ir.Load(t, self.src.loc(node), var, index)
        if isinstance(base, PyValue) and isinstance(base.value, ChannelValue) \
                and hasattr(base.value, "load"):           # ctrl.gains[i]
            return base.value.load(self, node)
        if isinstance(base, PyValue) and isinstance(base.value, tuple):
            i = self.constant_value(node.slice, "a tuple index")
            try:
                item = base.value[i]
            except (IndexError, TypeError):
                raise self.src.error(node, f"tuple index {i!r} out of range for {len(base.value)} items") from None
            return item if isinstance(item, ir.Expr) else PyValue(item)
        if isinstance(base, ir.Expr) and isinstance(base.type, T.Vector):
            i = self.constant_value(node.slice, "a vector index")
            n = base.type.n
            if not isinstance(i, int) or not -n <= i < n:
                raise self.src.error(node, f"vector index must be a constant in {-n}..{n - 1}")
            return ir.Swizzle(base.type.elem, self.src.loc(node), base, "xyzw"[i % n])
        if isinstance(base, PyValue) and hasattr(base.value, "shape") \
                and hasattr(base.value, "dtype"):      # a NumPy or vkpersist array global
            name = repr(ast.unparse(node.value))
            if self.unit.resources:
                raise self.src.error(node, f"{name} is an array the program does not hold; "
                                     "stages index the program's arrays: declare it with "
                                     f"prog.array(name, shape, init=data)")
            raise self.src.error(node, f"{name} is an array from the host's globals; pass "
                                 "arrays to kernels as arguments")
        raise self.src.error(node, f"{describe_value(base)} cannot be indexed")

    def subscript_target(self, target):
        base = self.expr(target.value)
        if not (isinstance(base, PyValue) and isinstance(base.value, ArrayHandle)):
            raise self.src.error(target, "only array elements can be assigned by index")
        var = base.value.var
        return var, self.array_index(var, target.slice, target)

    def array_index(self, var, slice_node, node) -> list:
        items = slice_node.elts if isinstance(slice_node, ast.Tuple) else [slice_node]
        values = None
        if not isinstance(slice_node, ast.Tuple) and not isinstance(slice_node, ast.Slice):
            v = self.expr(slice_node)
            if isinstance(v, PyValue) and isinstance(v.value, tuple):   # a[idx], idx a tuple
                values = list(v.value)
                items = [slice_node] * len(values)
            else:
                values = [v]
        t = var.type
        ndim = t.ndim if isinstance(t, T.ArrayType) else len(t.shape)
        if any(isinstance(i, ast.Slice) for i in items):
            raise self.src.error(node, "array slices (a[i:], a[i, :]) are not values in kernels: "
                                 "index elements (a[i + k]), or pass the array and the offset "
                                 "to the device function (f(a, i) instead of f(a[i:]))")
        if len(items) != ndim:
            raise self.src.error(node, f"this array has {ndim} dimension(s), indexed with "
                                 f"{len(items)} index(es)")
        out = []
        for axis, item in enumerate(items):
            e = self.value(values[axis] if values is not None else self.expr(item), item)
            if not (isinstance(e.type, T.Scalar) and (e.type.is_int or e.type == T.bool_)):
                raise self.src.error(item, f"array indices must be integers, got {e.type}")
            known = t.shape if isinstance(t, T.FixedArray) else var.static_shape
            if isinstance(e, ir.Const) and known is not None \
                    and not -known[axis] <= e.value < known[axis]:
                raise self.src.error(item, f"index {e.value} is out of range for axis {axis} of "
                                     f"size {known[axis]} (valid: {-known[axis]}..{known[axis] - 1})")
            if isinstance(e, ir.Const) and e.value < 0:
                # negative constant: count from the end, as in Python
                e = self.binary("+", self.shape_of(var, axis, self.src.loc(item)), e, item)
            out.append(self.convert(e, T.i32, item) if e.type != T.i32 and e.type.bits <= 32 else e)
        return out

    def store(self, var, index, value, node):
        if var.role == "const_array":
            raise self.src.error(node, "this array is a constant copy of a host array the "
                                 "kernel captured; kernels cannot write it (pass the array as "
                                 "an argument to write it)")
        elem = elem_type(var.type)
        target = T.arithmetic(elem) if isinstance(elem, T.Scalar) else elem
        var.written = True
        return ir.Store(self.src.loc(node), var, index, self.convert(value, target, node))

    def expr_UnaryOp(self, node):
        v = self.value(self.expr(node.operand), node.operand)
        loc = self.src.loc(node)
        if isinstance(node.op, ast.Not):
            return self.rule(node, self.sem.unary, "not", self.truth(v, node.operand), loc)
        if isinstance(node.op, ast.UAdd):
            return v
        op = {ast.USub: "-", ast.Invert: "~"}[type(node.op)]
        return self.rule(node, self.sem.unary, op, v, loc)

    def expr_BinOp(self, node):
        op = BINOPS.get(type(node.op))
        if op is None:
            raise self.src.error(node, f"operator {type(node.op).__name__} is not supported")
        return self.binary(op, self.expr(node.left), self.expr(node.right), node)

    def binary(self, op, left, right, node):
        left, right = self.value(left, node), self.value(right, node)
        return self.rule(node, self.sem.binary, op, left, right, self.src.loc(node))

    def expr_BoolOp(self, node):
        op = "and" if isinstance(node.op, ast.And) else "or"
        values = [self.value(self.expr(v), v) for v in node.values]
        result = values[0]
        for v, vnode in zip(values[1:], node.values[1:]):
            result = self.rule(node, self.sem.logical, op, result, v, self.src.loc(node))
        return result

    def expr_Compare(self, node):
        loc = self.src.loc(node)
        for op_node in node.ops:
            if type(op_node) not in _CMPOPS:
                raise self.src.error(node, f"comparison {type(op_node).__name__} is not supported "
                                     "(is/in have no GPU meaning)")
        operands = [self.value(self.expr(node.left), node.left)] + \
                   [self.value(self.expr(c), c) for c in node.comparators]
        result, lets = None, []
        for i, (op_node, right) in enumerate(zip(node.ops, operands[1:])):
            op = _CMPOPS[type(op_node)]
            left = operands[i]
            if i + 1 < len(node.comparators) and not isinstance(right, (ir.Ref, ir.Const)):
                tmp = self._temp(right.type, "c")
                lets.append((tmp, right))
                right = ir.Ref(right.type, loc, tmp)
                operands[i + 1] = right
            cmp = self.compare(op, left, right, node)
            result = cmp if result is None else ir.Logical(T.bool_, loc, "and", result, cmp)
        for tmp, value in reversed(lets):
            result = ir.Let(T.bool_, loc, tmp, value, result)
        return result

    def compare(self, op, left, right, node):
        return self.rule(node, self.sem.compare, op, left, right, self.src.loc(node))

    def expr_IfExp(self, node):
        cond = self.truth(self.value(self.expr(node.test), node.test), node.test)
        a = self.value(self.expr(node.body), node.body)
        b = self.value(self.expr(node.orelse), node.orelse)
        return self.rule(node, self.sem.select, cond, a, b, self.src.loc(node))

    def truth(self, e, node):
        return self.rule(node, self.sem.truth, self.value(e, node))

    def expr_Call(self, node):
        fn = self.expr(node.func)
        if not isinstance(fn, PyValue):
            raise self.src.error(node, f"a {fn.type} value is not callable")
        return calls.lower_call(self, fn.value, node)

    # ---- typing rules (semantics.py), positioned at the node they were applied for ------
    def rule(self, node, rule, *args):
        try:
            return rule(*args)
        except TypingError as exc:
            raise self.src.error(node, str(exc)) from None

    def require(self, t, node) -> None:
        self.rule(node, self.unit.require, t)

    def unify(self, a, b, node):
        return self.rule(node, self.sem.unify, a, b)

    def unify_many(self, exprs, node):
        return self.rule(node, self.sem.unify_many, exprs)

    def convert(self, e, t, node):
        return self.rule(node, self.sem.convert, self.value(e, node), t)

    def constant_value(self, node, what):
        if isinstance(node, ast.Name) and node.id in self.constant_locals:   # N = 100
            return self.constant_locals[node.id]
        e = self.expr(node)
        if isinstance(e, ir.Const):
            return e.value
        if isinstance(e, PyValue) and isinstance(e.value, (int, float, tuple, np.integer)):
            if isinstance(e.value, tuple):
                return tuple(x.value if isinstance(x, ir.Const) else x for x in e.value)
            return e.value
        raise self.src.error(node, f"{what} must be a compile-time constant")

    def _resolve_type_annotation(self, node):
        e = self.expr(node)
        v = e.value if isinstance(e, PyValue) else None
        t = T.resolve_type(v)
        if t is None:
            raise self.src.error(node, f"{pydescribe(v)} is not a kernel type (use vkp.f32, "
                                 "vkp.i32, vkp.vec3, numpy dtypes, ...)")
        return t


_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


def _constant_locals(fn: ast.FunctionDef) -> dict:
    """Locals bound once, to a number or a tuple of numbers, and never rebound (`N = 100`):
    their value is a compile-time constant where one is needed (a shared array's shape, as
    numba allows), while they stay ordinary locals everywhere else."""
    params = {a.arg for a in fn.args.args}
    bound: dict[str, int] = {}
    values = {}
    for n in ast.walk(fn):
        targets = []
        if isinstance(n, ast.Assign):
            targets = n.targets
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
            targets = [n.target]
        for t in targets:
            for name in ast.walk(t):
                if isinstance(name, ast.Name):
                    bound[name.id] = bound.get(name.id, 0) + 1
        if isinstance(n, ast.Assign) and len(n.targets) == 1 \
                and isinstance(n.targets[0], ast.Name):
            try:
                value = ast.literal_eval(n.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            if isinstance(value, int) or isinstance(value, tuple) and value and \
                    all(isinstance(v, int) for v in value):
                values[n.targets[0].id] = value
    return {k: v for k, v in values.items() if bound.get(k) == 1 and k not in params}
