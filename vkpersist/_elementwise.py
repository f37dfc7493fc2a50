"""Element-wise array math: an expression tree over arrays and scalars, compiled into one
kernel through the kernel language and launched as a grid-stride loop.

`vkp.sin(x) + 1` builds and runs two one-node trees (two launches); `vkp.jit` traces a
whole function into one tree, and so one kernel (vkpersist/_fusion.py). Either way:

- Types are NumPy's: every node's loop dtypes come from `ufunc.resolve_dtypes` (NEP 50:
  a Python float meeting a float32 array stays float32), each operand is converted to its
  loop dtype in the kernel, and the result is stored as NumPy's `same_kind` cast to `out`.
  int8/int16/uint8/uint16 compute widened and wrap to their dtype after each node;
  float16 computes in float32 and is rounded only where stored.
- Broadcasting is NumPy's; a broadcast operand is a view with stride 0, so nothing is
  copied. Axes that every operand walks contiguously are merged, so most launches index a
  1-d range; at most 3 axes reach the kernel (more are looped over here, one launch each).
- The kernel's source is a function of the tree's shape, the loop dtypes and the number
  of axes only; it is compiled once and cached (here, and by the kernel language per
  argument signature: plain or strided views, element dtypes), and its scalars travel as
  push constants, so `x * 2.0` and `x * 3.0` share one kernel.
- Device arrays in, device arrays out, in the same Context (resident: nothing is read
  back); NumPy arrays in (no device array), NumPy arrays out, through the default Context.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ._ufunc_table import BY_UFUNC, COMPUTE, EMIT, PARAM, UFUNCS, wrap
from .vk.array import Array, check_dtype
from .vk.context import default_context

LOCAL = 256
MAX_GROUPS = 65535
_PY_SCALARS = (bool, int, float)


def weak(node) -> bool:
    """A Python bool, int or float operand (NumPy's own scalars are typed: NEP 50)."""
    return node.op == "scalar" and type(node.value) in _PY_SCALARS


class Node(np.lib.mixins.NDArrayOperatorsMixin):
    """One operation of an expression tree (`op` a ufunc name, "where", or a vectorized
    function's call), a leaf array (`op` "array") or a scalar (`op` "scalar").

    Operators and NumPy ufuncs on a Node make bigger trees: that is how `vkp.jit` traces a
    function. `dtype` is set by `resolve`."""

    __slots__ = ("op", "args", "value", "dtype", "loop")

    def __init__(self, op, args=(), value=None):
        self.op, self.args, self.value = op, tuple(args), value
        self.dtype = self.loop = None

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs or ufunc not in BY_UFUNC:
            return NotImplemented
        return Node(BY_UFUNC[ufunc], [as_node(x) for x in inputs])

    def __bool__(self):
        raise TypeError("a traced array has no truth value while vkp.jit traces the function: "
                        "use vkp.where(cond, a, b) instead of if/else on array values")

    def __repr__(self):
        return f"<vkpersist element-wise expression {self.op}>"


def as_node(x) -> Node:
    if isinstance(x, Node):
        return x
    if isinstance(x, (Array, np.ndarray)):
        return Node("array", value=x)
    if isinstance(x, (*_PY_SCALARS, np.generic)) and not isinstance(x, (complex, np.complexfloating)):
        return Node("scalar", value=x)
    if isinstance(x, (list, tuple)):
        return Node("array", value=np.asarray(x))
    raise TypeError(f"vkpersist element-wise operations take device arrays, NumPy arrays and "
                    f"numbers, got {type(x).__name__} {x!r}")


# ---- types ---------------------------------------------------------------------------------
def _dtype_probe(node: Node):
    """What NumPy's type resolution sees for `node`: a dtype, or for a Python scalar its
    type (weak, NEP 50)."""
    if weak(node) and type(node.value) is not bool:
        return type(node.value)
    return node.dtype


def resolve(node: Node) -> None:
    """Set `dtype` (result) and `loop` (operand dtypes) on every node, NumPy's way."""
    if node.dtype is not None:
        return
    for a in node.args:
        resolve(a)
    if node.op == "array":
        node.dtype = node.value.dtype
    elif node.op == "scalar":
        v = node.value
        node.dtype = np.result_type(v) if weak(node) else np.asarray(v).dtype
    elif node.op == "where":
        out = np.result_type(*[a.value if weak(a) else a.dtype for a in node.args[1:]])
        node.loop, node.dtype = (np.dtype(np.bool_), out, out), out
    elif isinstance(node.op, str):
        dts = UFUNCS[node.op].resolve_dtypes(tuple(_dtype_probe(a) for a in node.args) + (None,))
        node.loop, node.dtype = dts[:-1], dts[-1]
    else:                                        # a vectorized function's call
        node.loop, node.dtype = node.op.resolve(node.args)


# ---- code ----------------------------------------------------------------------------------
def _cast(expr: str, src: np.dtype, dst: np.dtype) -> str:
    s, d = COMPUTE[src], COMPUTE[dst]
    if s == d:
        return expr
    if d == "bool":
        return f"({expr} != 0)"
    if dst.kind in "iu" and src.kind == "b":
        return f"{d}(1 if {expr} else 0)"
    return f"{d}({expr})"


def convert(expr: str, dst: np.dtype) -> str:
    """`expr` (any kernel type) converted to the compute type of `dst`."""
    d = COMPUTE[dst]
    return f"bool({expr})" if d == "bool" else f"{d}({expr})"


class _Emitter:
    """Kernel source for one tree: each node a local, in evaluation order."""

    def __init__(self, index: str):
        self.index = index
        self.lines: list[str] = []
        self.arrays: list = []       # leaf arrays, one parameter each (deduplicated)
        self.scalars: list = []      # (value, loop dtype) per use of a scalar
        self.functions: dict = {}    # name -> vectorized device function
        self.temps = itertools.count()
        self.seen: dict = {}

    def emit(self, node: Node) -> str:
        if id(node) in self.seen:
            return self.seen[id(node)]
        if node.op == "array":
            k = next((i for i, a in enumerate(self.arrays) if a is node.value), None)
            if k is None:
                k = len(self.arrays)
                self.arrays.append(node.value)
            name = self._let(f"a{k}[{self.index}]")
        else:
            args = [self._scalar(a.value, want) if a.op == "scalar" else
                    _cast(self.emit(a), a.dtype, want) for a, want in zip(node.args, node.loop)]
            if node.op == "where":
                expr = f"({args[1]} if {args[0]} else {args[2]})"
            elif isinstance(node.op, str):
                expr = EMIT[node.op](*args, node.loop, node.dtype)
            else:
                self.functions[node.op.glsl_name] = node.op.device_function
                expr = node.op.call_expr(args, node.dtype)
            name = self._let(expr)
            narrowed = wrap(node.dtype, name)
            if narrowed:
                self.lines.append(f"{name} = {narrowed}")
        self.seen[id(node)] = name
        return name

    def _scalar(self, value, dtype) -> str:
        """A scalar operand: a parameter (a push constant) of its loop dtype, per use."""
        self.scalars.append((value, dtype))
        return f"s{len(self.scalars) - 1}"

    def _let(self, expr: str) -> str:
        name = f"t{next(self.temps)}"
        self.lines.append(f"{name} = {expr}")
        return name


_INDEX = {
    1: ("out.shape[0]", [], "g"),
    2: ("out.shape[0] * n1", ["i0 = g // n1", "i1 = g - i0 * n1"], "i0, i1"),
    3: ("out.shape[0] * n1 * n2", ["i0 = g // (n1 * n2)", "r = g - i0 * (n1 * n2)",
                                   "i1 = r // n2", "i2 = r - i1 * n2"], "i0, i1, i2"),
}


def source(root: Node, out_dtype: np.dtype, ndim: int) -> tuple[str, _Emitter]:
    """The kernel source (`_ew(out, a0.., s0..)`) of a resolved tree over `ndim` axes."""
    count, unravel, index = _INDEX[ndim]
    em = _Emitter(index)
    result = _cast(em.emit(root), root.dtype, out_dtype)
    params = ["out"] + [f"a{i}" for i in range(len(em.arrays))] + \
        [f"s{i}" for i in range(len(em.scalars))]
    body = [f"n{k} = out.shape[{k}]" for k in range(1, ndim)]
    body += [f"while g < {count}:"]
    inner = unravel + em.lines + [f"out[{index}] = {result}", "g += vkp.global_size(0)"]
    text = "\n".join(["@vkp.kernel", f"def _ew({', '.join(params)}):",
                      "    g = vkp.global_id(0)"] + ["    " + b for b in body] +
                     ["        " + b for b in inner]) + "\n"
    return text, em


_KERNELS: dict = {}


def compiled(text: str, functions: dict):
    """The kernel of a generated source, compiled once per process."""
    kern = _KERNELS.get(text)
    if kern is None:
        import vkpersist as vkp
        from .lang.source import compile_source
        kern = compile_source(text, "elementwise", {"vkp": vkp, **functions})["_ew"]
        _KERNELS[text] = kern
    return kern


# ---- shapes --------------------------------------------------------------------------------
def broadcast_shape(shapes) -> tuple:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError("operands could not be broadcast together with shapes "
                         + " ".join(str(tuple(s)) for s in shapes)) from None


def _broadcast_strides(a: Array, shape) -> list:
    pad = len(shape) - a.ndim
    return [0] * pad + [0 if n == 1 and shape[pad + k] != 1 else s
                        for k, (n, s) in enumerate(zip(a.shape, a._estrides))]


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


# ---- running -------------------------------------------------------------------------------
def _context_of(leaves, out):
    ctxs = {id(a.ctx): a.ctx for a in leaves + [out] if isinstance(a, Array)}
    if len(ctxs) > 1:
        from ._errors import VkPersistError
        raise VkPersistError("element-wise operation on arrays of different Contexts; move "
                             "them to one with ctx.asarray(...)")
    return next(iter(ctxs.values())) if ctxs else default_context(), bool(ctxs)


def _leaves(node: Node, found: list) -> list:
    if node.op == "array":
        if not any(x is node.value for x in found):
            found.append(node.value)
    for a in node.args:
        _leaves(a, found)
    return found


def _check_scalars(node: Node) -> None:
    """Python ints meeting a narrower integer loop: NumPy's OverflowError."""
    for a, want in zip(node.args, node.loop or ()):
        if weak(a) and type(a.value) is int and want.kind in "iu":
            info = np.iinfo(want)
            if not info.min <= a.value <= info.max:
                raise OverflowError(f"Python integer {a.value} out of bounds for {want}")
        _check_scalars(a)


def evaluate(root: Node, out=None, *, name: str = "operation", sources: set | None = None):
    """Run a tree: the result as a new array (device or NumPy, see the module docs), or
    written into `out` (a device or NumPy array, views included) and `out` returned."""
    plan = prepare(root, out, name=name)
    if sources is not None:
        sources.add(plan.source)
    for args in plan.launches:
        plan.kernel[plan.groups, LOCAL](*args)
    if isinstance(out, np.ndarray):
        out[...] = plan.out.numpy()
        return out
    if out is not None:
        return out
    if plan.resident:
        return plan.out
    host = plan.out.numpy()
    return host[()] if host.ndim == 0 else host


class Plan:
    """A resolved tree ready to launch: its kernel source and kernel, the output array,
    and the arguments of each launch (one, unless more than 3 axes stay unmerged)."""

    def __init__(self, root, dev: dict, out: Array, shape, resident: bool):
        self.out, self.resident, self.launches = out, resident, []
        arrays = _leaves(root, [])
        strides = [list(out._estrides)] + [_broadcast_strides(dev[id(a)], shape)
                                           for a in arrays]
        merged, strides = _merge_axes(list(shape), strides)
        outer, inner = merged[:-3], merged[-3:]
        self.source, em = source(root, out.dtype, len(inner))
        # an empty result launches nothing, and compiles nothing either
        self.kernel = compiled(self.source, em.functions) if out.size else None
        self.groups = max(1, min(MAX_GROUPS, -(-math.prod(inner) // LOCAL)))
        order = [next(i for i, a in enumerate(arrays) if a is x) for x in em.arrays]
        scalars = [PARAM[COMPUTE[d]](v) for v, d in em.scalars]
        operands = [out] + [dev[id(a)] for a in arrays]
        for idx in itertools.product(*map(range, outer)) if out.size else ():
            views = []
            for op, st in zip(operands, strides):
                offset = op._offset + sum(i * s for i, s in zip(idx, st))
                views.append(op._view(inner, st[len(outer):], offset))
            self.launches.append((views[0], *[views[1 + k] for k in order], *scalars))

    def glsl(self) -> str:
        from ._kernel import _type_of_value
        args = self.launches[0] if self.launches else ()
        return self.kernel.glsl(*[_type_of_value(a) for a in args])


def prepare(root: Node, out=None, *, name: str = "operation") -> Plan:
    """Resolve types, check them against NumPy's rules and the device, broadcast, and
    allocate the result: everything but the launch."""
    resolve(root)
    _check_scalars(root)
    leaves = _leaves(root, [])
    ctx, resident = _context_of(leaves, out)
    for n in _all_nodes(root):
        if n.op != "scalar":
            _check_device_dtype(n.dtype, ctx, name)
    shapes = [tuple(a.shape) for a in leaves]
    if out is not None:
        shape = broadcast_shape(shapes + [out.shape])
        if shape != tuple(out.shape):
            raise ValueError(f"non-broadcastable output operand with shape {tuple(out.shape)} "
                             f"doesn't match the broadcast shape {shape}")
        if not np.can_cast(root.dtype, out.dtype, "same_kind"):
            raise TypeError(f"Cannot cast ufunc '{name}' output from {root.dtype!r} to "
                            f"{out.dtype!r} with casting rule 'same_kind'")
        _check_device_dtype(out.dtype, ctx, name)
    else:
        shape = broadcast_shape(shapes)
    dev_out = out if isinstance(out, Array) else Array(ctx, shape, root.dtype if out is None
                                                       else out.dtype)
    dev = {id(a): _to_device(a, ctx, dev_out) for a in leaves}
    return Plan(root, dev, dev_out, shape, resident)


def _all_nodes(node):
    yield node
    for a in node.args:
        yield from _all_nodes(a)


def _check_device_dtype(dtype, ctx, name):
    try:
        check_dtype(dtype, ctx.info)
    except TypeError as e:
        raise TypeError(f"{name}: {e}") from None


def _to_device(a, ctx, out: Array) -> Array:
    """A leaf as a device array: NumPy arrays are copied (contiguous); a device view that
    overlaps `out` in another layout is copied first, as NumPy does, so that writing `out`
    cannot change what is still to be read."""
    if isinstance(a, np.ndarray):
        return ctx.asarray(np.ascontiguousarray(a))
    if a.buffer is out.buffer and (a.shape, a._estrides, a._offset) != \
            (out.shape, out._estrides, out._offset):
        return a.copy()
    return a
