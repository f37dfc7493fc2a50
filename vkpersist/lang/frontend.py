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
from . import builtins as B
from . import ir
from . import types as T
from .channels import ChannelLowering
from .semantics import Semantics, TypingError, const, literal
from .source import describe_expr, describe_stmt, glsl_name, parse_function
from .values import ArrayHandle, ControlArray, PyValue, SocketFrame, pydescribe

class _Restart(Exception):
    """A local's type widened: walk the function again."""


class FunctionCompiler(ChannelLowering):
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
        self.return_types: list | None = None
        self.temps = 0

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
            except _Restart:
                continue
            # declared by the pass that settled the types (each pass declares them again)
            self.unit.shared_arrays.extend(self.declared_shared)
            return fn
        raise self.src.error(fn, "could not settle the types of the locals (they keep widening)")

    def _build(self) -> ir.Function:
        self.vars: dict[str, ir.Var] = {}
        self.declared_shared: list[ir.Var] = []
        self.loop_depth = 0
        self.temps = 0
        self._temp_vars = []
        self.sem = Semantics(self.unit.require, self._temp)
        self.callees = []
        self.commits = []
        self.has_return = False
        self.returns_seen = []
        params, arrays = [], []
        names = [a.arg for a in self.node.args.args]
        if len(names) != len(self.param_types):
            raise self.src.error(self.node, f"{self.pyfunc.__name__} takes {len(names)} "
                                 f"parameters, {len(self.param_types)} types were given")
        for name, t in zip(names, self.param_types):
            if isinstance(t, T.ArrayType):
                var = self.bound_arrays.get(name) or ir.Var(glsl_name(name), t, "array_param")
                arrays.append(var)
            elif isinstance(t, (T.Scalar, T.Vector)):
                var = ir.Var(glsl_name(name), T.arithmetic(t) if isinstance(t, T.Scalar) else t,
                             "scalar_param")
                params.append(var)
            elif isinstance(t, (T.FixedArray, T.QueueType)):
                var = self.bound_arrays[name]
                arrays.append(var)
            elif isinstance(t, T.ControlsType):
                var = self.bound_arrays.get(name) or ir.Var(glsl_name(name), t, "controls")
                arrays.append(var)
            elif isinstance(t, T.SocketType):
                if not self.is_kernel:
                    raise self.src.error(self.node, f"parameter {name!r}: MemSocks are written by "
                                         "kernels, not passed to device functions")
                var = ir.Var(glsl_name(name), t, "socket")
                arrays.append(var)
            else:
                raise self.src.error(self.node, f"parameter {name!r}: unsupported type {t}")
            self.vars[name] = var
        body = self.block(self.node.body)
        self._check_commits(body)
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
        except (CompileError, _Restart):
            raise
        except (ArithmeticError, ValueError, TypingError) as exc:
            raise self.src.error(node, f"{exc}") from None
        except Exception as exc:
            raise self.src.error(node, f"internal error while compiling this (please report "
                                 f"it): {type(exc).__name__}: {exc}") from exc

    def stmt_Pass(self, node):
        return None

    def stmt_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return None  # docstring
        value = self.expr(node.value, allow_void=True)
        if isinstance(value, PyValue):
            raise self.src.error(node, "this expression does nothing on the GPU")
        return ir.ExprStmt(self.src.loc(node), value)

    def stmt_Assign(self, node):
        if len(node.targets) != 1:
            raise self.src.error(node, "chained assignment (a = b = ...) is not supported; "
                                 "assign each name separately")
        target = node.targets[0]
        if isinstance(node.value, ast.Call):
            special = self._array_allocation(node.value)
            if special is not None:
                return self._declare_fixed_array(target, node.value, special)
        if isinstance(target, ast.Tuple):
            return self._unpack(target, node.value, node)
        value = self.expr(node.value)
        return self.assign_to(target, value, node)

    def stmt_AnnAssign(self, node):
        declared = self._resolve_type_annotation(node.annotation)
        if node.value is None:
            raise self.src.error(node, "annotated locals need a value (x: vkp.f32 = 0.0)")
        if not isinstance(node.target, ast.Name):
            raise self.src.error(node, "only plain names can be annotated")
        name = node.target.id
        prev = self.local_types.get(name)
        if prev is not None and prev != declared:
            raise self.src.error(node, f"{name!r} is annotated {declared} but also holds {prev}")
        self.local_types[name] = declared
        var = self._local(name, node)
        var.fixed = True
        return ir.Assign(self.src.loc(node), var, self.convert(self.expr(node.value), declared, node))

    def stmt_AugAssign(self, node):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.src.error(node, f"operator {type(node.op).__name__} is not supported")
        target = node.target
        if isinstance(target, ast.Subscript) and not self._is_control_array(target.value):
            # Evaluate the index once: a[i] += v  ->  idx = i; a[idx] = a[idx] + v
            var, index = self.subscript_target(target)
            current = ir.Load(T.arithmetic(_elem_type(var.type)), self.src.loc(target), var, index)
            value = self.binary(op, current, self.expr(node.value), node)
            return self.store(var, index, value, node)
        current = self.expr(target)
        value = self.binary(op, current, self.expr(node.value), node)
        return self.assign_to(target, value, node)

    def _is_control_array(self, node) -> bool:
        try:
            base = self.expr(node)
        except CompileError:
            return False
        return isinstance(base, PyValue) and isinstance(base.value, ControlArray)

    def stmt_If(self, node):
        cond = self.truth(self.expr(node.test), node.test)
        body = self.block(node.body)
        orelse = self.block(node.orelse)
        if isinstance(cond, ir.Const):   # fold `if DEBUG:` on module constants
            return body if cond.value else orelse
        return ir.If(self.src.loc(node), cond, body, orelse)

    def stmt_While(self, node):
        if node.orelse:
            raise self.src.error(node, "while ... else is not supported")
        cond = self.truth(self.expr(node.test), node.test)
        self.loop_depth += 1
        body = self.block(node.body)
        self.loop_depth -= 1
        return ir.While(self.src.loc(node), cond, body)

    def stmt_For(self, node):
        if node.orelse:
            raise self.src.error(node, "for ... else is not supported")
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and self._resolves_to(it.func, range)):
            raise self.src.error(it, "kernels loop only over range(...): for i in range(n)")
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.src.error(it, "range() takes 1 to 3 positional arguments")
        if not isinstance(node.target, ast.Name):
            raise self.src.error(node.target, "the loop variable must be a plain name")
        args = [self.value(self.expr(a), a) for a in it.args]
        for a, n in zip(args, it.args):
            if not (isinstance(a, ir.Expr) and isinstance(a.type, T.Scalar) and a.type.is_int):
                raise self.src.error(n, f"range() arguments must be integers, got {_tname(a)}")
        if len(args) == 1:
            args = [literal(0, self.src.loc(it))] + args
        if len(args) == 2:
            args.append(literal(1, self.src.loc(it)))
        if isinstance(args[2], ir.Const) and args[2].value == 0:
            raise self.src.error(it.args[2], "range() step must not be zero")
        t = self.unify_many(args, it)
        start, stop, step = (self.convert(a, t, it) for a in args)
        var = self.assign_var(node.target.id, t, node.target)
        counter = self._temp(t, "i")
        self.loop_depth += 1
        body = self.block(node.body)
        self.loop_depth -= 1
        return ir.ForRange(self.src.loc(node), var, counter, start, stop, step, body)

    def stmt_Break(self, node):
        if not self.loop_depth:
            raise self.src.error(node, "'break' outside a loop")
        return ir.Break(self.src.loc(node))

    def stmt_Continue(self, node):
        if not self.loop_depth:
            raise self.src.error(node, "'continue' outside a loop")
        return ir.Continue(self.src.loc(node))

    def stmt_Return(self, node):
        loc = self.src.loc(node)
        self.has_return = True
        if node.value is None or isinstance(node.value, ast.Constant) and node.value.value is None:
            values = []
        elif self.is_kernel:
            raise self.src.error(node, "kernels cannot return values; write results into an "
                                 "array argument")
        elif isinstance(node.value, ast.Tuple):
            values = [self.value(self.expr(e), e) for e in node.value.elts]
        else:
            values = [self.value(self.expr(node.value), node.value)]
        types_ = [v.type for v in values]
        if self.return_types is None:
            self.return_types = types_
        elif len(self.return_types) != len(types_):
            raise self.src.error(node, f"this return gives {len(types_)} value(s), an earlier one "
                                 f"gave {len(self.return_types)}")
        else:
            merged = [self.unify(a, b, node) for a, b in zip(self.return_types, types_)]
            if merged != self.return_types:
                self.return_types = merged
                raise _Restart()
        values = [self.convert(v, t, node) for v, t in zip(values, self.return_types)]
        return ir.Return(loc, values)

    def _check_commits(self, body) -> None:
        """sock.commit() contains a workgroup barrier: every invocation must reach it, so it
        must close the kernel body (after any branches) and the kernel must not return early."""
        committed = {id(v) for v, _ in self.commits}
        for var in self.vars.values():
            if var.role == "socket" and id(var) not in committed:
                raise self.src.error(self.node, f"MemSock parameter {var.name!r} is never "
                                     f"committed: end the kernel with {var.name}.commit()")
        if not self.commits:
            return
        trailing = []
        for s in reversed(body):
            if isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.Intrinsic) \
                    and s.expr.name == "socket_commit":
                trailing.append(s.expr.args[0])
            else:
                break
        for var, node in self.commits:
            if trailing.count(var) != 1 or sum(v is var for v, _ in self.commits) != 1:
                raise self.src.error(node, f"{var.name}.commit() must be called exactly once, as "
                                     "one of the last statements of the kernel, outside any "
                                     "if/loop (every invocation must reach it)")
        if self.has_return:
            raise self.src.error(self.node, "a kernel that commits a MemSock frame must not "
                                 "return early (every invocation must reach commit())")

    # ---- assignment ---------------------------------------------------------------------
    def assign_to(self, target, value, node):
        loc = self.src.loc(node)
        if isinstance(target, ast.Name):
            value = self.value(value, node)
            var = self.assign_var(target.id, value.type, target)
            return ir.Assign(loc, var, self.convert(value, var.type, node))
        if isinstance(target, ast.Subscript):
            base = self.expr(target.value)
            if isinstance(base, PyValue) and isinstance(base.value, SocketFrame):
                var = base.value.var
                items = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
                if len(items) != var.type.frame_ndim:
                    raise self.src.error(target, f"frames of {var.name!r} have {var.type.frame_ndim} "
                                         f"dimension(s), indexed with {len(items)}")
                index = [self.convert(self.value(self.expr(i), i), T.i32, i) for i in items]
                value = self.convert(self.value(value, node), var.type.elem, node)
                var.written = True
                return ir.ExprStmt(loc, ir.Intrinsic(T.void, loc, "socket_store", [var, index, value]))
            if isinstance(base, PyValue) and isinstance(base.value, ControlArray):
                h = base.value
                return self.control_store(h.var, h.field, self._control_index(h, target.slice, target),
                                          value, node)
            var, index = self.subscript_target(target)
            return self.store(var, index, self.value(value, node), node)
        if isinstance(target, ast.Attribute):
            base = self.expr(target.value)
            if isinstance(base, PyValue) and isinstance(base.value, ArrayHandle) \
                    and isinstance(base.value.var.type, T.SocketType):
                var = base.value.var
                f = var.type.payload_field(target.attr)
                if f is None:
                    raise self.src.error(target, f"{var.name!r} has no payload field "
                                         f"{target.attr!r}; payload: "
                                         f"{', '.join(x.name for x in var.type.payload) or 'none'}")
                value = self.convert(self.value(value, node), f.type, node)
                return ir.ExprStmt(loc, ir.Intrinsic(T.void, loc, "socket_payload", [var, f, value]))
            if isinstance(base, PyValue) and isinstance(base.value, ArrayHandle) \
                    and isinstance(base.value.var.type, T.ControlsType):
                var = base.value.var
                f = self._control_field_spec(var, target)
                if f.count:
                    raise self.src.error(target, f"control field {f.name!r} is an array; assign "
                                         "its elements")
                return self.control_store(var, f, None, value, node)
            if not (isinstance(base, ir.Ref) and isinstance(base.type, T.Vector)
                    and base.var.role == "local"):
                raise self.src.error(target, "only components of local vectors can be assigned "
                                     "(v.x = ...)")
            comps = self._swizzle_check(base.type, target.attr, target)
            if len(set(comps)) != len(comps):
                raise self.src.error(target, f"swizzle {comps!r} repeats a component")
            want = base.type.elem if len(comps) == 1 else T.Vector(base.type.elem, len(comps))
            return ir.AssignComponent(loc, base.var, comps, self.convert(self.value(value, node), want, node))
        raise self.src.error(target, "cannot assign to this expression")

    def _unpack(self, target, value_node, node):
        names = target.elts
        if isinstance(value_node, ast.Tuple):
            if len(value_node.elts) != len(names):
                raise self.src.error(node, f"cannot unpack {len(value_node.elts)} values into "
                                     f"{len(names)} names")
            values = [self.value(self.expr(e), e) for e in value_node.elts]
            # evaluate every right-hand value before assigning (a, b = b, a)
            temps, out = [], []
            for v in values:
                t = self._temp(v.type, "t")
                out.append(ir.Assign(self.src.loc(node), t, v))
                temps.append(ir.Ref(t.type, self.src.loc(node), t))
            for tgt, tv in zip(names, temps):
                out.append(self.assign_to(tgt, tv, node))
            return out
        value = self.expr(value_node, allow_void=True)
        if isinstance(value, ir.Call) and value.outs:
            if len(value.outs) != len(names):
                raise self.src.error(node, f"{value.func.python_name} returns {len(value.outs)} "
                                     f"values, unpacked into {len(names)} names")
            out = [ir.ExprStmt(self.src.loc(node), value)]
            for tgt, o in zip(names, value.outs):
                out.append(self.assign_to(tgt, ir.Ref(o.type, self.src.loc(node), o), node))
            return out
        if isinstance(value, PyValue) and isinstance(value.value, tuple):
            if len(value.value) != len(names):
                raise self.src.error(node, f"cannot unpack {len(value.value)} values into "
                                     f"{len(names)} names")
            return [self.assign_to(t, v if isinstance(v, ir.Expr) else self.pyconst(v, node), node)
                    for t, v in zip(names, value.value)]
        raise self.src.error(node, "only tuples, shapes and multi-value @vkp.func results can be "
                             "unpacked")

    def assign_var(self, name: str, t: T.Type, node) -> ir.Var:
        existing = self.vars.get(name)
        if existing is not None and existing.role == "scalar_param":
            # parameters may be reassigned, but keep their type (the caller's value is typed)
            if t != existing.type and self.unify(existing.type, t, node) != existing.type:
                raise self.src.error(node, f"parameter {name!r} is a {existing.type}; assigning "
                                     f"a {t} would change its type: use a new name")
            existing.assigned = True
            return existing
        if existing is not None and existing.role != "local":
            raise self.src.error(node, f"cannot assign to {name!r}: it is a "
                                 f"{existing.role.replace('_', ' ')}")
        prev = self.local_types.get(name)
        if prev is None:
            self.local_types[name] = t
        elif prev != t:
            var = self.vars.get(name)
            if var is not None and var.fixed:
                return var
            merged = self.unify(prev, t, node)
            if merged != prev:
                self.local_types[name] = merged
                raise _Restart()
        return self._local(name, node)

    def _local(self, name, node) -> ir.Var:
        var = self.vars.get(name)
        if var is None:
            var = ir.Var(glsl_name(name), self.local_types[name], "local", py_name=name)
            self.vars[name] = var
        var.type = self.local_types[name]
        return var

    def _temp(self, t, hint) -> ir.Var:
        self.temps += 1
        var = ir.Var(f"_{hint}{self.temps}", t, "temp")
        self._temp_vars.append(var)
        return var

    # ---- shared and local arrays ---------------------------------------------------------
    def _array_allocation(self, call):
        fn = self.expr(call.func)
        if isinstance(fn, PyValue) and fn.value in (B.shared.array, B.local.array):
            return "shared" if fn.value is B.shared.array else "local"
        return None

    def _declare_fixed_array(self, target, call, space):
        if not isinstance(target, ast.Name):
            raise self.src.error(target, f"assign {space}.array(...) to a plain name")
        args = list(call.args)
        kw = {k.arg: k.value for k in call.keywords}
        if len(args) + len(kw) != 2 or set(kw) - {"shape", "dtype"}:
            raise self.src.error(call, f"{space}.array takes (shape, dtype)")
        shape_node = args[0] if args else kw["shape"]
        dtype_node = args[1] if len(args) > 1 else kw["dtype"]
        shape = self.constant_value(shape_node, "the shape")
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        if not shape or not all(isinstance(n, (int, np.integer)) and n > 0 for n in shape):
            raise self.src.error(shape_node, f"{space}.array shape must be positive integer "
                                 f"constants, got {shape!r}")
        elem = self._resolve_type_annotation(dtype_node)
        if not isinstance(elem, (T.Scalar, T.Vector)):
            raise self.src.error(dtype_node, f"{space}.array dtype must be a scalar or vector type")
        name = target.id
        t = T.FixedArray(elem, tuple(int(n) for n in shape), space)
        existing = self.vars.get(name)
        if existing is not None:
            if existing.type != t:
                raise self.src.error(target, f"{name!r} is already a {existing.type}")
            return None
        role = "shared" if space == "shared" else "local_array"
        if space == "shared" and self.unit.resources:
            raise self.src.error(call, "program stages cannot use shared arrays: a stage runs "
                                 "once per index, with no workgroup to share with")
        if space == "shared" and not self.is_kernel:
            raise self.src.error(call, "shared arrays must be declared in the kernel and passed "
                                 "to functions")
        var = ir.Var(glsl_name(name), t, role)
        self.vars[name] = var
        if space == "shared":
            self.declared_shared.append(var)
        return None

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
        if isinstance(v, (bool, int, float, np.generic)) and not isinstance(v, np.void):
            return self.rule(node, literal, v, self.src.loc(node))
        if isinstance(v, ir.Expr):
            return v
        raise self.src.error(node, f"{pydescribe(v)} cannot be used as a value on the GPU")

    def expr_Constant(self, node):
        v = node.value
        if v is None or isinstance(v, (str, bytes, complex)) or v is Ellipsis:
            raise self.src.error(node, f"constant {v!r} is not supported in kernels (numbers and "
                                 "booleans only)")
        return self.pyconst(v, node)

    def expr_Name(self, node):
        if node.id in self.vars:
            var = self.vars[node.id]
            if isinstance(var.type, (T.ArrayType, T.FixedArray, T.ControlsType, T.SocketType,
                                     T.QueueType)):
                return PyValue(ArrayHandle(var))
            return ir.Ref(var.type, self.src.loc(node), var)
        if node.id in self.local_types:
            raise self.src.error(node, f"local {node.id!r} is used before it is assigned")
        value = self.lookup_global(node.id, node)
        return value if isinstance(value, ir.Expr) else PyValue(value)

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
            if isinstance(obj, ArrayHandle) and isinstance(obj.var.type, T.ControlsType):
                return self.control_field(obj.var, node)
            if isinstance(obj, ArrayHandle) and isinstance(obj.var.type, T.SocketType):
                return self.socket_attribute(obj.var, node)
            if isinstance(obj, ArrayHandle) and isinstance(obj.var.type, T.QueueType):
                return self.queue_attribute(obj.var, node)
            if isinstance(obj, ArrayHandle):
                return self.array_attribute(obj.var, node)
            if isinstance(obj, tuple):
                raise self.src.error(node, f"tuples have no attribute {node.attr!r}")
            try:
                value = getattr(obj, node.attr)
            except AttributeError:
                raise self.src.error(node, f"{pydescribe(obj)} has no attribute {node.attr!r}") from None
            resource = self.program_resource(value, node)      # prog.step, self.field...
            if resource is None:
                return PyValue(value)
            return resource if isinstance(resource, ir.Expr) else PyValue(resource)
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
            t = T.arithmetic(_elem_type(var.type)) if isinstance(_elem_type(var.type), T.Scalar) \
                else _elem_type(var.type)
            return ir.Load(t, self.src.loc(node), var, index)
        if isinstance(base, PyValue) and isinstance(base.value, ControlArray):
            h = base.value
            index = self._control_index(h, node.slice, node)
            return ir.Intrinsic(h.field.type, self.src.loc(node), "control_load", [h.var, h.field, index])
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
        raise self.src.error(node, f"{_tname(base)} cannot be indexed")

    def subscript_target(self, target):
        base = self.expr(target.value)
        if not (isinstance(base, PyValue) and isinstance(base.value, ArrayHandle)):
            raise self.src.error(target, "only array elements can be assigned by index")
        var = base.value.var
        return var, self.array_index(var, target.slice, target)

    def array_index(self, var, slice_node, node) -> list:
        items = slice_node.elts if isinstance(slice_node, ast.Tuple) else [slice_node]
        t = var.type
        ndim = t.ndim if isinstance(t, T.ArrayType) else len(t.shape)
        if any(isinstance(i, ast.Slice) for i in items):
            raise self.src.error(node, "slices are not supported in kernels; index one element")
        if len(items) != ndim:
            raise self.src.error(node, f"this array has {ndim} dimension(s), indexed with "
                                 f"{len(items)} index(es)")
        out = []
        for axis, item in enumerate(items):
            e = self.value(self.expr(item), item)
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
        elem = _elem_type(var.type)
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
        op = _BINOPS.get(type(node.op))
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
        target = fn.value
        from . import calls
        return calls.lower_call(self, target, node)

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
        t = resolve_type(v)
        if t is None:
            raise self.src.error(node, f"{pydescribe(v)} is not a kernel type (use vkp.f32, "
                                 "vkp.i32, vkp.vec3, numpy dtypes, ...)")
        return t


def resolve_type(v):
    if isinstance(v, (T.Scalar, T.Vector, T.ArrayType, T.ControlsType, T.SocketType)):
        return v
    if v is T.Controls:
        return T.ANY_CONTROLS
    if v is T.Socket:
        return T.ANY_SOCKET
    if v is float:
        return T.f32
    if v is int:
        return T.i32
    if v is bool:
        return T.bool_
    try:
        return T.scalar_of_dtype(np.dtype(v)) if v is not None else None
    except TypeError:
        return None


def _elem_type(t):
    return t.elem


def _tname(e) -> str:
    if isinstance(e, ir.Expr):
        return str(e.type)
    if isinstance(e, PyValue):
        return pydescribe(e.value)
    return type(e).__name__


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
           ast.LShift: "<<", ast.RShift: ">>"}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
