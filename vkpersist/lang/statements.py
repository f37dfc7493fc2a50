"""Lowering of Python statements inside kernels: assignment (names, elements, components,
unpacking), augmented assignment, if/while/for-range, break/continue, return, and the
declarations of shared and local arrays. A mixin of FunctionCompiler (frontend.py), which
dispatches each statement node to its stmt_ method and provides the expression side."""
from __future__ import annotations

import ast

import numpy as np

from .._errors import CompileError
from . import builtins as B
from . import ir
from . import types as T
from .semantics import literal
from .source import glsl_name
from .channels import ChannelValue, channel_frontend, indexable
from .values import ArrayHandle, PyValue, describe_value


class Restart(Exception):
    """A local's type widened: walk the function again."""


BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
           ast.LShift: "<<", ast.RShift: ">>"}


UNROLL_LIMIT = 256     # items a compile-time loop may unroll into; past it, use an array


def elem_type(t):
    return t.elem


class StatementLowering:
    """FunctionCompiler's statement visitors (it provides self.src, self.unit, self.vars,
    self.expr, self.value, self.convert, self.binary, self.truth...)."""

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
        op = BINOPS.get(type(node.op))
        if op is None:
            raise self.src.error(node, f"operator {type(node.op).__name__} is not supported")
        target = node.target
        if isinstance(target, ast.Subscript) and not self._is_channel_indexed(target.value):
            # Evaluate the index once: a[i] += v  ->  idx = i; a[idx] = a[idx] + v
            var, index = self.subscript_target(target)
            current = ir.Load(T.arithmetic(elem_type(var.type)), self.src.loc(target), var, index)
            value = self.binary(op, current, self.expr(node.value), node)
            return self.store(var, index, value, node)
        current = self.expr(target)
        value = self.binary(op, current, self.expr(node.value), node)
        return self.assign_to(target, value, node)

    def _is_channel_indexed(self, node) -> bool:
        """Whether `node` is a channel member read and written by index (ctrl.gains):
        its augmented assignment loads and stores through the channel."""
        try:
            base = self.expr(node)
        except CompileError:
            return False
        return isinstance(base, PyValue) and indexable(base.value)

    def stmt_If(self, node):
        cond = self.truth(self.expr(node.test), node.test)
        if isinstance(cond, ir.Const):
            # A compile-time condition (`if DEBUG:`, `if HAS_PML:` on captured constants)
            # compiles only the branch taken: the other may name things that do not exist
            # in this configuration, as with Taichi's ti.static(if) or Triton's constexpr.
            return self.block(node.body if cond.value else node.orelse)
        body = self.block(node.body)
        orelse = self.block(node.orelse)
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
        static = self._static_sequence(it)
        if static is not None:
            return self._unrolled_for(node, static)
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and self._resolves_to(it.func, range)):
            raise self.src.error(it, "kernels loop over range(...) (for i in range(n)), or "
                                 "over a tuple or list of constants captured from Python, "
                                 "which is unrolled")
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.src.error(it, "range() takes 1 to 3 positional arguments")
        if not isinstance(node.target, ast.Name):
            raise self.src.error(node.target, "the loop variable must be a plain name")
        args = [self.value(self.expr(a), a) for a in it.args]
        for a, n in zip(args, it.args):
            if not (isinstance(a, ir.Expr) and isinstance(a.type, T.Scalar) and a.type.is_int):
                raise self.src.error(n, f"range() arguments must be integers, got {describe_value(a)}")
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

    def _static_sequence(self, it):
        """The items of a compile-time tuple or list the loop iterates over, else None."""
        if isinstance(it, ast.Call):
            return None
        try:
            v = self.expr(it)
        except CompileError:
            return None
        if isinstance(v, PyValue) and isinstance(v.value, (tuple, list)):
            return list(v.value)
        return None

    def _unrolled_for(self, node, items):
        """`for p in POINTS:` over a captured tuple or list: the body is compiled once per
        item with the loop name bound to that item, a compile-time value (numbers fold,
        tuples index with constants). Python decides the trip count, so break and continue
        have no meaning here."""
        if len(items) > UNROLL_LIMIT:
            raise self.src.error(node.iter, f"this loop unrolls over {len(items)} items, more "
                                 f"than {UNROLL_LIMIT}; put the items in an array and loop "
                                 "over range(len)")
        for sub in ast.walk(ast.Module(body=node.body, type_ignores=[])):
            if isinstance(sub, (ast.Break, ast.Continue)):
                raise self.src.error(sub, f"'{type(sub).__name__.lower()}' in a loop over "
                                     "compile-time items (it is unrolled); loop over range() "
                                     "to stop early")
        if not isinstance(node.target, (ast.Name, ast.Tuple)):
            raise self.src.error(node.target, "the loop variable must be a name or a tuple of names")
        names = [node.target] if isinstance(node.target, ast.Name) else node.target.elts
        if not all(isinstance(n, ast.Name) for n in names):
            raise self.src.error(node.target, "the loop variable must be a name or a tuple of names")
        saved = {n.id: self.static_names.get(n.id) for n in names}
        out = []
        try:
            for item in items:
                if len(names) == 1 and isinstance(node.target, ast.Name):
                    bound = [item]
                else:
                    if not isinstance(item, (tuple, list)) or len(item) != len(names):
                        raise self.src.error(node.target, f"cannot unpack {item!r} into "
                                             f"{len(names)} names")
                    bound = list(item)
                for n, v in zip(names, bound):
                    if n.id in self.vars or n.id in self.local_types:
                        raise self.src.error(n, f"{n.id!r} is also a local of this function; "
                                             "name the unrolled loop's variable differently")
                    self.static_names[n.id] = v
                out.extend(self.block(node.body))
        finally:
            for name, v in saved.items():
                if v is None:
                    self.static_names.pop(name, None)
                else:
                    self.static_names[name] = v
        return out

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
                raise Restart()
        values = [self.convert(v, t, node) for v, t in zip(values, self.return_types)]
        return ir.Return(loc, values)

    # ---- assignment ---------------------------------------------------------------------
    def assign_to(self, target, value, node):
        loc = self.src.loc(node)
        if isinstance(target, ast.Name):
            if isinstance(value, PyValue) and isinstance(value.value, tuple):
                return self._assign_tuple(target.id, value.value, node)
            if isinstance(value, PyValue) and isinstance(value.value, ArrayHandle) \
                    and value.value.var.role == "const_array":     # C = const.array_like(A)
                if self.vars.get(target.id, value.value.var) is not value.value.var:
                    raise self.src.error(node, f"{target.id!r} already names another value; "
                                         "give this array its own name")
                self.vars[target.id] = value.value.var
                return None
            if target.id in self.tuple_locals:
                raise self.src.error(node, f"{target.id!r} holds a tuple; it cannot also hold "
                                     "a single value: use a new name")
            value = self.value(value, node)
            var = self.assign_var(target.id, value.type, target)
            if var.fixed and isinstance(var.type, T.Scalar) and var.type.is_int \
                    and isinstance(value.type, T.Scalar) and value.type.is_float:
                raise self.src.error(node, f"{target.id!r} is annotated {var.type}; a "
                                     f"{value.type} would be truncated into it (the host "
                                     "refuses 2.5 for an int parameter too): write "
                                     "int(...) to truncate on purpose")
            return ir.Assign(loc, var, self.convert(value, var.type, node))
        if isinstance(target, ast.Subscript):
            base = self.expr(target.value)
            if isinstance(base, PyValue) and isinstance(base.value, ChannelValue) \
                    and hasattr(base.value, "store"):      # sock.frame[i] = v, ctrl.gains[i] = v
                return base.value.store(self, target, value, node)
            var, index = self.subscript_target(target)
            return self.store(var, index, self.value(value, node), node)
        if isinstance(target, ast.Attribute):
            base = self.expr(target.value)
            if isinstance(base, PyValue) and isinstance(base.value, ArrayHandle):
                channel = channel_frontend(base.value.var.type)
                if channel is not None:                  # ctrl.freq = v, sock.energy = v
                    stmt = channel.store_attribute(self, base.value.var, target, value, node)
                    if stmt is not None:
                        return stmt
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
                raise Restart()
        return self._local(name, node)

    def _assign_tuple(self, name, items, node) -> list:
        """`idx = (i, j)`: a local tuple is one local per item ("idx.0", "idx.1"), each
        with its own type; the items are evaluated before any is assigned."""
        if name in self.local_types or name in self.vars:
            raise self.src.error(node, f"{name!r} holds a single value; it cannot also hold a "
                                 "tuple: use a new name")
        if self.tuple_locals.get(name, len(items)) != len(items):
            raise self.src.error(node, f"{name!r} holds a tuple of {self.tuple_locals[name]} "
                                 f"items; here it is given {len(items)}")
        values = []
        for item in items:
            if isinstance(item, PyValue) or not isinstance(item, (ir.Expr, bool, int, float,
                                                                   np.generic)):
                raise self.src.error(node, "local tuples hold numbers only (not arrays, "
                                     "nested tuples or functions)")
            values.append(item if isinstance(item, ir.Expr) else self.pyconst(item, node))
        self.tuple_locals[name] = len(items)
        loc = self.src.loc(node)
        out, refs = [], []
        for v in values:
            if isinstance(v, ir.Const):
                refs.append(v)
                continue
            tmp = self._temp(v.type, "t")
            out.append(ir.Assign(loc, tmp, v))
            refs.append(ir.Ref(tmp.type, loc, tmp))
        for i, v in enumerate(refs):
            var = self.assign_var(f"{name}.{i}", v.type, node)
            out.append(ir.Assign(loc, var, self.convert(v, var.type, node)))
        return out

    def tuple_local(self, name, node):
        loc = self.src.loc(node)
        items = [self.vars.get(f"{name}.{i}") for i in range(self.tuple_locals[name])]
        if any(v is None for v in items):
            raise self.src.error(node, f"local {name!r} is used before it is assigned")
        return PyValue(tuple(ir.Ref(v.type, loc, v) for v in items))

    def _local(self, name, node) -> ir.Var:
        var = self.vars.get(name)
        if var is None:
            base, _, item = name.partition(".")      # "idx.0": item 0 of a local tuple
            gname = f"{glsl_name(base)}_t{item}" if item else glsl_name(name)
            var = ir.Var(gname, self.local_types[name], "local", py_name=name)
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
        elem = self._resolve_type_annotation(dtype_node)
        if space == "shared" and shape == (0,):
            shape = self._dynamic_shared_shape(call, elem)
        if not shape or not all(isinstance(n, (int, np.integer)) and n > 0 for n in shape):
            raise self.src.error(shape_node, f"{space}.array shape must be positive integer "
                                 f"constants, got {shape!r}")
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
        gname = glsl_name(name)
        if space == "shared" and not self.is_kernel:
            # one per workgroup and function specialisation, as CUDA's __shared__ in a
            # __device__ function
            gname = f"{self.glsl_fn_name}_{gname}"
        var = ir.Var(gname, t, role)
        self.vars[name] = var
        if space == "shared":
            self.declared_shared.append(var)
        return None

    def _dynamic_shared_shape(self, call, elem) -> tuple:
        """numba.cuda's dynamic shared memory: shared.array(0, dtype) takes the bytes the
        launch gives (vkpersist.cuda: k[blocks, threads, stream, nbytes])."""
        nbytes = self.unit.dynamic_shared
        size = elem.dtype.itemsize if isinstance(elem, T.Scalar) else 0
        if not nbytes:
            raise self.src.error(call, "shared.array(0, dtype) is dynamic shared memory: its "
                                 "size comes from the launch, which gave none; launch with "
                                 "k[blocks, threads, 0, nbytes] (vkpersist.cuda), or give a "
                                 "constant shape")
        if not size or nbytes % size:
            raise self.src.error(call, f"dynamic shared memory of {nbytes} bytes does not hold "
                                 f"a whole number of {elem} elements")
        return (nbytes // size,)
