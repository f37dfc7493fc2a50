"""Running element-wise trees: a Recipe per (function, argument signature), cached.

The first call with a new signature (each argument's kind, dtype, shape, strides and
offset, and `out`'s) builds the tree, resolves its types, checks them, broadcasts, merges
axes, generates and compiles the kernel (vkpersist/_core/elementwise.py) and records where each
kernel parameter comes from: an argument, or an array or number fixed in the function.
Later calls with the same signature go straight to the launch: allocate the result, make
the views, convert the scalars, submit. This keeps a call's host cost to tens of
microseconds, so that a resident launch on a fast GPU is not waiting for Python.

A Python int scalar's value is still checked on every call (NumPy's OverflowError for
300 meeting uint8), and an input that overlaps `out=` in another layout is still replaced
by a copy first (so the copy's layout is the one the signature describes).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from .elementwise import (LOCAL, Node, as_node, bindable_parts, compiled, evaluate, groups_for,
                          resolve, source)
from .._errors import VkPersistError
from .ufunc_table import COMPUTE, PARAM
from ..vk import indexing
from ..vk.array import Array, check_dtype
from ..vk.context import default_context

_MAX_RECIPES = 4096         # per context; the table is cleared when it is full


def describe(x):
    """The part of an argument a Recipe depends on (its values excluded; a view's offset
    is added at launch, so `a[i] * 2` for every row i is one recipe)."""
    if isinstance(x, Array):
        return (Array, x.dtype, x.shape, x._estrides, x._offset == 0, id(x.ctx))
    if isinstance(x, np.ndarray):
        return (np.ndarray, x.dtype, x.shape)
    if type(x) in (bool, int, float, complex):
        return (type(x),)
    if isinstance(x, np.generic):
        return (np.generic, x.dtype)
    as_node(x)                                # the TypeError that names what is accepted
    raise TypeError(f"cannot take {type(x).__name__} here")


def call(fn_key, build, args, out, name: str, sources: set | None = None):
    """`build(*argument_nodes)` evaluated on `args`: a new array (device arrays in: on the
    device; otherwise NumPy), or written into `out` (returned)."""
    args = [np.asarray(a) if isinstance(a, (list, tuple)) else a for a in args]
    if isinstance(out, Array):
        args = [_unaliased(a, out) for a in args]
    # which arguments are the same array object: the kernel binds one array once (`x * x`
    # reads one parameter twice), so `x * x` and `x * y` must not share a recipe
    same = tuple(next(j for j, b in enumerate(args) if b is a)
                 if isinstance(a, (Array, np.ndarray)) else i for i, a in enumerate(args))
    key = (fn_key, tuple(map(describe, args)), None if out is None else describe(out), same)
    recipe = _recipe(key, build, args, out, name)
    values = recipe.scalar_values(args)
    if recipe.folds and recipe.fold_types(values) != recipe.folds:
        # a Python operator's result type that depends on the values (2 ** -1 is a float)
        recipe = _recipe(key + (recipe.fold_types(values),), build, args, out, name)
        values = recipe.scalar_values(args)
    if sources is not None:
        sources.add(recipe.source)
    return recipe.run(args, out, values)


def _recipe(key, build, args, out, name: str):
    """The recipe of `key`, kept on the context it runs on (a recipe holds its context:
    in a module-level table every dropped Context stayed alive)."""
    ctx = next((a.ctx for a in (*args, out) if isinstance(a, Array)), None) \
        or default_context()
    recipes = ctx._caches.setdefault("recipes", {})
    recipe = recipes.get(key)
    if recipe is None:
        nodes = [as_node(a) for a in args]
        recipe = Recipe(build(*nodes), nodes, out, name)
        if len(recipes) >= _MAX_RECIPES:
            recipes.clear()
        recipes[key] = recipe
    return recipe


def _unaliased(a, out: Array):
    """A device view that overlaps `out` in another layout is copied first, as NumPy does,
    so that writing `out` cannot change what is still to be read."""
    if isinstance(a, Array) and a.buffer is out.buffer and \
            (a.shape, a._estrides, a._offset) != (out.shape, out._estrides, out._offset):
        return a.copy()
    return a


def broadcast_shape(shapes) -> tuple:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError("operands could not be broadcast together with shapes "
                         + " ".join(str(tuple(s)) for s in shapes)) from None


def _layout(a):
    """(shape, element strides, offset) of a leaf as the kernel will see it."""
    if isinstance(a, Array):
        return a.shape, a._estrides, a._offset
    return a.shape, indexing.c_strides(a.shape), 0       # NumPy: a contiguous device copy


def _broadcast_strides(layout, shape) -> list:
    own, strides, _ = layout
    pad = len(shape) - len(own)
    return [0] * pad + [0 if n == 1 and shape[pad + k] != 1 else s
                        for k, (n, s) in enumerate(zip(own, strides))]


def _merge_axes(shape, strides: list[list]) -> tuple[list, list[list]]:
    """Drop axes of length 1 and merge neighbours every operand walks as one."""
    keep = [k for k, n in enumerate(shape) if n != 1]
    shape = [shape[k] for k in keep]
    strides = [[s[k] for k in keep] for s in strides]
    k = len(shape) - 2
    while k >= 0:
        if all(s[k] == s[k + 1] * shape[k + 1] for s in strides):
            shape[k:k + 2] = [shape[k] * shape[k + 1]]
            for s in strides:
                s[k:k + 2] = [s[k + 1]]
        k -= 1
    if not shape:
        return [1], [[1] for _ in strides]
    return shape, strides


def leaves(node: Node, found: list) -> list:
    """The tree's leaf arrays, each object once, in first-use order."""
    if node.op == "array" and not any(x is node.value for x in found):
        found.append(node.value)
    for a in node.args:
        leaves(a, found)
    return found


def _nodes(node):
    yield node
    for a in node.args:
        yield from _nodes(a)


def check_device_dtype(dtype, ctx, name):
    try:
        check_dtype(dtype, ctx.info)
    except TypeError as e:
        raise TypeError(f"{name}: {e}") from None


def _context_of(arrays, out):
    ctxs = {id(a.ctx): a.ctx for a in arrays + [out] if isinstance(a, Array)}
    if len(ctxs) > 1:
        raise VkPersistError("element-wise operation on arrays of different Contexts; move "
                             "them to one with ctx.asarray(...)")
    return next(iter(ctxs.values())) if ctxs else default_context(), bool(ctxs)


def _skeleton(node: Node, arg_of: dict):
    """The tree without the first call's arguments: ("array", (argument position, None) or
    (None, an array fixed in the function)), ("scalar", node) or (op, children)."""
    if node.op == "array":
        k = arg_of.get(id(node.value))
        return "array", (k, None if k is not None else node.value)
    if node.op == "scalar":
        return "scalar", node
    return node.op, [_skeleton(a, arg_of) for a in node.args]


def _scalar_leaves(scalars):
    """The scalar nodes the parameters are computed from, folds and their operands."""
    stack = [n for n, _ in scalars]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.args)


def _check_int(value, dtype):
    """A Python int meeting a narrower integer loop: NumPy's OverflowError."""
    if type(value) is int and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} out of bounds for {dtype}")


class Recipe:
    """Everything a call with one argument signature needs but the values (module docs)."""

    def __init__(self, root: Node, nodes: list, out, name: str):
        resolve(root)
        arrays = leaves(root, [])
        self.ctx, self.resident = _context_of(arrays, out)
        self.name = name
        for n in _nodes(root):
            if n.op != "scalar":
                check_device_dtype(n.dtype, self.ctx, name)
        shapes = [tuple(a.shape) for a in arrays]
        if out is not None:
            shape = broadcast_shape(shapes + [out.shape])
            if shape != tuple(out.shape):
                raise ValueError(f"non-broadcastable output operand with shape "
                                 f"{tuple(out.shape)} doesn't match the broadcast shape {shape}")
            if not np.can_cast(root.dtype, out.dtype, "same_kind"):
                raise TypeError(f"Cannot cast ufunc '{name}' output from {root.dtype!r} to "
                                f"{out.dtype!r} with casting rule 'same_kind'")
            check_device_dtype(out.dtype, self.ctx, name)
        else:
            shape = broadcast_shape(shapes)
        self.shape, self.dtype = shape, root.dtype if out is None else out.dtype
        out_layout = _layout(out) if isinstance(out, Array) else \
            (shape, indexing.c_strides(shape), 0)
        strides = [list(out_layout[1])] + [_broadcast_strides(_layout(a), shape) for a in arrays]
        merged, strides = _merge_axes(list(shape), strides)
        outer, self.inner = merged[:-3], tuple(merged[-3:])
        self.source, em = source(root, self.dtype, len(self.inner))
        # an empty result launches nothing, and compiles nothing either
        self.kernel = compiled(self.source, em.functions) if math.prod(shape) else None
        self.groups = groups_for(math.prod(self.inner))
        position = {id(n): k for k, n in enumerate(nodes)}
        arg_of = {id(n.value): k for k, n in enumerate(nodes) if n.op == "array"}
        # per leaf array: (argument position, None) or (None, the array fixed in the
        # function); arguments are not kept, so the recipe holds no memory of its first call
        self.arrays = [(arg_of[id(a)], None) if id(a) in arg_of else (None, a) for a in arrays]
        self.order = [next(i for i, a in enumerate(arrays) if a is x) for x in em.arrays]
        # per scalar parameter: its node (an argument's, a number fixed in the function, or
        # a Python operator on such) and its loop dtype
        self.scalars = em.scalars
        self.position = {id(n): position[id(n)] for n in _scalar_leaves(em.scalars)
                         if id(n) in position}
        self.folds = self.fold_types([n.value for n, _ in em.scalars])
        self.offsets = [out_layout[2]] + [_layout(a)[2] for a in arrays]
        self.dtypes = [self.dtype] + [a.dtype for a in arrays]
        self.layouts = [[(tuple(st[len(outer):]), sum(i * s for i, s in zip(idx, st)))
                         for st in strides] for idx in itertools.product(*map(range, outer))]
        # too many strided operands for the device's push constants (128 bytes on many):
        # the tree runs a node at a time instead, with the same results
        self.split = None
        if self.kernel is not None and any(a.op not in ("array", "scalar") for a in root.args) \
                and self._push_bytes() > self.ctx.info.max_push_constants_size:
            self.split = _skeleton(root, arg_of)

    def scalar_values(self, args) -> list:
        """The scalar parameters' values for a call with `args`."""
        return [evaluate(n, args, self.position) for n, _ in self.scalars]

    def fold_types(self, values) -> tuple:
        """The Python types of the scalars that Python operators compute."""
        return tuple(type(v) for (n, _), v in zip(self.scalars, values) if n.fold)

    def run(self, args, out, values):
        # NumPy in, NumPy out: whatever the default context is now
        ctx = self.ctx if self.resident else default_context()
        if self.split is not None:
            dev_out = self._run_split(self.split, args, out if isinstance(out, Array) else
                                      None, ctx)
        else:
            dev_out = out if isinstance(out, Array) else Array(ctx, self.shape, self.dtype)
        if self.kernel is not None and self.split is None:
            operands = [dev_out] + [self._device(args[k] if k is not None else a, ctx)
                                    for k, a in self.arrays]
            scalars = []
            for v, (_, dtype) in zip(values, self.scalars):
                _check_int(v, dtype)
                if dtype == np.float16:    # NumPy converts the scalar to float16 (NEP 50)
                    v = np.float16(v)
                scalars.append(PARAM[COMPUTE[dtype]](v))
            for per in self.layouts:
                views = [op._view(self.inner, st, op._offset + delta)
                         for op, (st, delta) in zip(operands, per)]
                for part in bindable_parts(views):    # one, unless beyond what binds
                    groups = self.groups if part is views else groups_for(part[0].size)
                    self.kernel[groups, LOCAL](part[0], *[part[1 + j] for j in self.order],
                                               *scalars)
        if isinstance(out, np.ndarray):
            out[...] = dev_out.numpy()
            return out
        if out is not None:
            return out
        if self.resident:
            return dev_out
        host = dev_out.numpy()
        return host[()] if host.ndim == 0 else host

    @staticmethod
    def _device(a, ctx) -> Array:
        """A leaf as a device array: NumPy arrays are copied (contiguous)."""
        if isinstance(a, np.ndarray):
            return ctx.asarray(np.ascontiguousarray(a))
        return a

    def _run_split(self, skeleton, args, out, ctx):
        """The tree of `skeleton` a node at a time on the device (each node a Recipe of its
        own, as the unfused call runs it), the root's result written to `out` if given."""
        if skeleton[0] == "array":
            k, fixed = skeleton[1]
            return self._device(args[k] if k is not None else fixed, ctx)
        if skeleton[0] == "scalar":
            return evaluate(skeleton[1], args, self.position)
        op, children = skeleton
        values = [self._run_split(c, args, None, ctx) for c in children]
        return call(op, lambda *nodes: Node(op, nodes), values, out, self.name)

    def _types(self, per) -> list:
        """The kernel's parameter types for one launch's layout `per`."""
        from ..lang import types as T
        types = []
        for (st, delta), offset, dtype in zip(per, self.offsets, self.dtypes):
            plain = st == indexing.c_strides(self.inner) and offset + delta == 0
            types.append(T.ArrayType(T.value_type_of_dtype(dtype), len(self.inner), not plain))
        types = [types[0]] + [types[1 + j] for j in self.order]
        return types + [T.value_type_of_dtype(np.dtype(PARAM[COMPUTE[d]]))
                        for _, d in self.scalars]

    def _push_bytes(self) -> int:
        """The most push-constant bytes a launch of the kernel needs."""
        kinds = {tuple(self._types(per)) for per in self.layouts}
        return max(self.kernel._compile(self.kernel._types_for(t), self.ctx.target)
                   .glsl_kernel.reflection.push_size for t in kinds)

    def glsl(self) -> str:
        """The GLSL of this recipe's kernel, as its first launch specialises it."""
        return self.kernel.glsl(*self._types(self.layouts[0]))
