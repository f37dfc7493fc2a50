"""Element-wise array math: an expression tree over arrays and scalars, compiled into one
kernel through the kernel language and launched as a grid-stride loop.

`vkp.sin(x) + 1` builds and runs two one-node trees (two launches); `vkp.jit` traces a
whole function into one tree, and so one kernel (vkpersist/_core/fusion.py). Either way:

- Types are NumPy's: every node's loop dtypes come from `ufunc.resolve_dtypes` (NEP 50:
  a Python float meeting a float32 array stays float32), each operand is converted to its
  loop dtype in the kernel, and the result is stored as NumPy's `same_kind` cast to `out`.
  int8/int16/uint8/uint16 compute widened and wrap to their dtype after each node;
  float16 computes in float32 and is rounded to float16 after each node (as NumPy's
  float16 loops round every result; `_f16_round`), a weak Python scalar in a float16 loop
  rounded to float16 first (NEP 50), as NumPy converts it.
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
import operator
import types

import numpy as np

from . import ufunc_complex as _ufunc_complex
from .ufunc_table import BY_UFUNC, COMPUTE, EMIT, UFUNCS, wrap
from .._kernel import func, kernel
from ..lang import builtins as B, subgroups, types as T
from ..lang.builtins import copysign, rint
from ..lang.source import compile_source
from ..vk.array import Array, window_room

LOCAL = 256
MAX_GROUPS = 65535
_PY_SCALARS = (bool, int, float, complex)
_INF = float("inf")
_F16 = np.dtype(np.float16)


@func
def _f16_round(x):
    # x (float32) rounded to the nearest float16, ties to even, as a float32: Veltkamp's
    # split with 2**13 + 1 keeps 11 significant bits (checked against NumPy's conversion
    # for every float32 in [2**-14, 65520)); float16's subnormals are multiples of 2**-24;
    # from 65520 on, inf; NaN stays NaN (both tests fail)
    a = abs(x)
    if a < 6.103515625e-05:
        return rint(x * 16777216.0) * 5.960464477539063e-08
    if a >= 65520.0:
        return copysign(_INF, x)
    c = x * 8193.0
    return c - (c - x)


def groups_for(n: int, local: int = LOCAL) -> int:
    """Workgroups of `local` invocations for a grid-stride loop over `n` items: enough for
    one item each, at most MAX_GROUPS (65,535, the limit every device takes), at least 1."""
    return max(1, min(MAX_GROUPS, -(-n // local)))


def bindable_parts(views: list):
    """`views` (arrays of one shape, one launch's operands) split along their axes, from
    the first, into parts in which every view spans at most what the device binds per
    storage buffer, less a window's alignment: kernels bind a view of a larger buffer as
    the window around it (vk/array.py `_window`), so an operation on arrays of any size is
    a launch per part. Views of buffers that fit are one part, themselves."""
    info = views[0].ctx.info
    if all(v.buffer.size <= info.max_storage_buffer_range for v in views):
        return (views,)
    return _parts(views, 0, window_room(info))


def _parts(views: list, axis: int, room: int):
    if all(v._span_bytes() <= room for v in views):
        yield views
        return
    n = views[0].shape[axis]
    first = [_part(v, axis, 0, 1) for v in views]
    if any(v._span_bytes() > room for v in first):
        piece = 1                               # split the axes after this one as well
    else:
        piece = min([(room - f._span_bytes()) // (abs(v._estrides[axis]) * v.dtype.itemsize) + 1
                     for v, f in zip(views, first) if v._estrides[axis]] or [n])
    for start in range(0, n, piece):
        yield from _parts([_part(v, axis, start, min(piece, n - start)) for v in views],
                          axis + 1, room)


def _part(view: Array, axis: int, start: int, count: int) -> Array:
    shape = view.shape[:axis] + (count,) + view.shape[axis + 1:]
    return view._view(shape, view._estrides, view._offset + start * view._estrides[axis])


def weak(node) -> bool:
    """A Python bool, int, float or complex operand (NumPy's own scalars are typed: NEP
    50)."""
    return node.op == "scalar" and type(node.value) in _PY_SCALARS


class Node(np.lib.mixins.NDArrayOperatorsMixin):
    """One operation of an expression tree (`op` a ufunc name, "where", or a vectorized
    function's call), a leaf array (`op` "array") or a scalar (`op` "scalar").

    Operators and NumPy ufuncs on a Node make bigger trees: that is how `vkp.jit` traces a
    function. `dtype` is set by `resolve`. A scalar with `fold` set is an operator or NumPy
    ufunc on numbers only (`args`), computed on the host (see `_on_numbers`); its `value`
    is the traced one."""

    __slots__ = ("op", "args", "value", "dtype", "loop", "fold")

    def __init__(self, op, args=(), value=None, fold=None):
        self.op, self.args, self.value, self.fold = op, tuple(args), value, fold
        self.dtype = self.loop = None

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs or ufunc not in BY_UFUNC:
            return NotImplemented
        folded = _on_numbers(ufunc, inputs)
        return Node(BY_UFUNC[ufunc], [as_node(x) for x in inputs]) if folded is None else folded

    @property
    def real(self):
        return Node("real", [self])

    @property
    def imag(self):
        return Node("imag", [self])

    def conjugate(self):
        return Node("conjugate", [self])

    conj = conjugate

    def __bool__(self):
        if self.op == "scalar":
            raise TypeError("a number argument has no truth value while vkp.jit traces the "
                            "function (its kernel serves every value): decide outside the "
                            "function, or use vkp.where(cond, a, b)")
        raise TypeError("a traced array has no truth value while vkp.jit traces the function: "
                        "use vkp.where(cond, a, b) instead of if/else on array values")

    def __float__(self):
        raise TypeError("vkp.jit traces the function with stand-ins of its arguments, which "
                        "the math module cannot take: use vkp.sqrt, vkp.exp, ... (NumPy "
                        "types), or compute the number outside and pass it in")

    def __repr__(self):
        return f"<vkpersist element-wise expression {self.op}>"


def _on_numbers(fn, operands):
    """`fn` (a Python operator or a NumPy ufunc) on numbers only (number arguments of a
    jitted function, numbers, or such results): a scalar computed on the host at every
    call by `fn` itself, as the function run op by op computes it, reaching the kernel as
    one number. So `s * 2.0` stays a weak Python float (NEP 50: `x / (s * 2.0)` keeps a
    float32 `x`'s dtype), `True + True` is 2, `np.exp(np.float32(s))` is NumPy's float32.
    None where an operand is an array."""
    if not all(isinstance(x, Node) and x.op == "scalar" or
               not isinstance(x, Node) and is_number(x) for x in operands):
        return None
    nodes = [as_node(x) for x in operands]
    value = fn(*[n.value for n in nodes])
    if not is_number(value):
        raise TypeError(f"vkpersist element-wise operations take numbers, got "
                        f"{type(value).__name__} {value!r}")
    return Node("scalar", nodes, value, fn)


def _operator(name: str, op, reflected: bool = False):
    """Node's operator `name`: on numbers, `op` itself (`_on_numbers`); else NumPy's
    ufunc, through the mixin."""
    mixin = getattr(np.lib.mixins.NDArrayOperatorsMixin, name)

    def method(self, *other):
        folded = _on_numbers(op, (*other, self) if reflected else (self, *other))
        return mixin(self, *other) if folded is None else folded
    method.__name__ = name
    return method


def _in_place(name: str, op):
    """Node's in-place operator `name` (`y += s` while tracing). Numbers are immutable, so
    on numbers it is `op` (`_on_numbers`); on an expression, its ufunc with the result
    kept in the expression's dtype, as op by op writes it into the array it computed
    (the same dtype only: the tree has no cast node). An argument cannot be written."""
    binary = _operator(name.replace("__i", "__", 1), op)

    def method(self, other):
        if self.op == "array":
            raise TypeError(f"vkp.jit: {name} would write into an array argument of the "
                            "function, which a jitted function cannot; write `a = a + b` "
                            "and return the result (or give out= to the call)")
        result = binary(self, other)
        if self.op == "scalar" and result.op == "scalar":
            return result
        resolve(result)
        if result.dtype != self.dtype:
            if not np.can_cast(result.dtype, self.dtype, "same_kind"):
                raise TypeError(f"Cannot cast ufunc {result.op!r} output from "
                                f"{result.dtype!r} to {self.dtype!r} with casting rule "
                                "'same_kind'")
            raise TypeError(f"vkp.jit: {name} would cast its {result.dtype} result back to "
                            f"{self.dtype}, which vkp.jit does not do; write `y = y + s` "
                            f"(a {result.dtype} result) or convert an operand first")
        return result
    method.__name__ = name
    return method


for _name, _op in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("floordiv", operator.floordiv),
                   ("mod", operator.mod), ("pow", operator.pow), ("lshift", operator.lshift),
                   ("rshift", operator.rshift), ("and", operator.and_),
                   ("xor", operator.xor), ("or", operator.or_)):
    setattr(Node, f"__{_name}__", _operator(f"__{_name}__", _op))
    setattr(Node, f"__r{_name}__", _operator(f"__r{_name}__", _op, reflected=True))
    setattr(Node, f"__i{_name}__", _in_place(f"__i{_name}__", _op))
for _name, _op in (("lt", operator.lt), ("le", operator.le), ("eq", operator.eq),
                   ("ne", operator.ne), ("gt", operator.gt), ("ge", operator.ge),
                   ("neg", operator.neg), ("pos", operator.pos), ("abs", operator.abs),
                   ("invert", operator.invert)):
    setattr(Node, f"__{_name}__", _operator(f"__{_name}__", _op))


def is_number(x) -> bool:
    """A Python or NumPy number (bool, int, float, complex)."""
    return isinstance(x, (*_PY_SCALARS, np.number, np.bool_))


def evaluate(node: Node, args: list, position: dict):
    """A scalar node's value for this call: an argument's, a fold's on its operands'
    values (`_on_numbers`), or the number fixed in the function."""
    if id(node) in position:
        return args[position[id(node)]]
    if node.fold is not None:
        return node.fold(*[evaluate(a, args, position) for a in node.args])
    return node.value


def as_node(x) -> Node:
    if isinstance(x, Node):
        return x
    if isinstance(x, (Array, np.ndarray)):
        return Node("array", value=x)
    if is_number(x):
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


def _no_loop(node: Node, error: TypeError):
    """NumPy's TypeError for a ufunc without a loop for these operands (floor_divide of
    complex numbers), with the dtypes named when one is complex."""
    dtypes = [a.dtype for a in node.args]
    if not any(d.kind == "c" for d in dtypes):
        return error
    return type(error)(f"{error} (got {', '.join(map(str, dtypes))}; NumPy has no complex "
                       f"loop for {node.op!r} either; the complex functions that run on the "
                       f"device: {', '.join(_ufunc_complex.SUPPORTED)})")


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
    elif node.op in _PARTS:
        dt = node.args[0].dtype
        node.loop = (dt,)
        node.dtype = np.dtype(f"f{dt.itemsize // 2}") if dt.kind == "c" else dt
    elif isinstance(node.op, str):
        # Python numbers only: NumPy's call converts them to arrays (np.greater(1, 2) runs
        # its int64 loop, where two weak ints would resolve to the object loop)
        probe = (lambda a: a.dtype) if all(weak(a) for a in node.args) else _dtype_probe
        try:
            dts = UFUNCS[node.op].resolve_dtypes(tuple(probe(a) for a in node.args) + (None,))
        except TypeError as e:
            raise _no_loop(node, e) from None
        node.loop, node.dtype = dts[:-1], dts[-1]
        if any(d.kind == "c" for d in node.loop):
            if _COMPLEX_AS.get(node.op, node.op) not in _ufunc_complex.SUPPORTED:
                dt = next(d for d in node.loop if d.kind == "c")
                raise TypeError(f"vkpersist: {node.op} of {dt} arrays is not supported; the "
                                "complex functions that run on the device: "
                                f"{', '.join(_ufunc_complex.SUPPORTED)}")
    else:                                        # a vectorized function's call
        node.loop, node.dtype = node.op.resolve(node.args)


# ---- code ----------------------------------------------------------------------------------
# complex loops that are another ufunc's (float_power is power in complex128)
_COMPLEX_AS = {"float_power": "power"}
# `.real` and `.imag` of a traced value (not ufuncs: NumPy's are views or attributes)
_PARTS = {
    "real": lambda a, src, dst: f"{a}.real" if src.kind == "c" else a,
    "imag": lambda a, src, dst: f"{a}.imag" if src.kind == "c" else f"{COMPUTE[dst]}(0)",
}


def _cast(expr: str, src: np.dtype, dst: np.dtype) -> str:
    s, d = COMPUTE[src], COMPUTE[dst]
    if s == d:
        return expr
    if src.kind == "c" and dst.kind != "c":
        if d == "bool":
            return f"({expr} != {s}(0))"
        return _cast(f"{expr}.real", np.dtype(f"f{src.itemsize // 2}"), dst)
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

    def __init__(self, index: str, root: Node | None = None):
        self.index = index
        self.root = root             # the node the kernel stores (rounded by the store)
        self.zeros: dict = {}        # part dtype -> the zero parameter of real operands
        self.lines: list[str] = []
        self.arrays: list = []       # leaf arrays, one parameter each (deduplicated)
        self.scalars: list = []      # (scalar Node, loop dtype) per use of a scalar
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
            args = [self._scalar(a, want) if a.op == "scalar" else
                    self._complex_of_real(self.emit(a), a.dtype, want)
                    if want.kind == "c" and a.dtype.kind != "c" else
                    _cast(self.emit(a), a.dtype, want) for a, want in zip(node.args, node.loop)]
            if node.op == "where":
                expr = f"({args[1]} if {args[0]} else {args[2]})"
            elif node.op in _PARTS:
                expr = _PARTS[node.op](args[0], node.loop[0], node.dtype)
            elif isinstance(node.op, str) and any(d.kind == "c" for d in node.loop):
                expr = _ufunc_complex.expression(_COMPLEX_AS.get(node.op, node.op), args,
                                                 node.loop, self.functions)
            elif isinstance(node.op, str):
                expr = EMIT[node.op](*args, node.loop, node.dtype)
            else:
                self.functions[node.op.glsl_name] = node.op.device_function
                expr = node.op.call_expr(args, node.dtype)
            name = self._let(expr)
            narrowed = wrap(node.dtype, name)
            if narrowed:
                self.lines.append(f"{name} = {narrowed}")
            elif node.dtype == _F16 and node is not self.root:   # the root: by its store
                self.functions["_f16_round"] = _f16_round
                self.lines.append(f"{name} = _f16_round({name})")
        self.seen[id(node)] = name
        return name

    def _complex_of_real(self, expr: str, src: np.dtype, dst: np.dtype) -> str:
        """A real operand of a complex loop, its imaginary part a zero passed as a
        parameter: with the constant 0 there, a driver folds 0 * x and 0 / x to 0 (lavapipe
        does, SignedZeroInfNanPreserve notwithstanding), where NumPy's complex loop gets NaN
        from an infinite or NaN part (complex * real, complex / real)."""
        part = np.dtype(f"f{dst.itemsize // 2}")
        if part not in self.zeros:
            self.zeros[part] = self._scalar(Node("scalar", value=0.0), part)
        return f"{COMPUTE[dst]}(complex({_cast(expr, src, part)}, {self.zeros[part]}))"

    def _scalar(self, node, dtype) -> str:
        """A scalar operand: a parameter (a push constant) of its loop dtype, per use."""
        self.scalars.append((node, dtype))
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
    """The kernel source (`elementwise(out, a0.., s0..)`) of a resolved tree over `ndim`
    axes."""
    count, unravel, index = _INDEX[ndim]
    em = _Emitter(index, root if root.dtype == out_dtype else None)
    result = _cast(em.emit(root), root.dtype, out_dtype)
    params = ["out"] + [f"a{i}" for i in range(len(em.arrays))] + \
        [f"s{i}" for i in range(len(em.scalars))]
    body = [f"n{k} = out.shape[{k}]" for k in range(1, ndim)]
    body += [f"while g < {count}:"]
    inner = unravel + em.lines + [f"out[{index}] = {result}", "g += vkp.global_size(0)"]
    text = "\n".join(["@vkp.kernel", f"def elementwise({', '.join(params)}):",
                      "    g = vkp.global_id(0)"] + ["    " + b for b in body] +
                     ["        " + b for b in inner]) + "\n"
    return text, em


_KERNELS: dict = {}


def _kernel_names() -> types.SimpleNamespace:
    """What generated kernel text calls `vkp`: the kernel language's builtins, types and
    decorators. Not the package, which sits above the array layer and imports it."""
    names = {n: v for n, v in vars(B).items() if isinstance(v, B.Builtin)}
    names.update({n: v for n, v in vars(T).items() if not n.startswith("_")})
    names.update({n: getattr(subgroups, n) for n in subgroups.FUNCTIONS})
    return types.SimpleNamespace(**names, kernel=kernel, func=func)


def compiled(text: str, functions: dict):
    """The kernel of a generated source (one `@vkp.kernel`, named in its second line),
    compiled once per process."""
    kern = _KERNELS.get(text)
    if kern is None:
        name = text.split("\n")[1].split("def ")[1].split("(")[0]
        namespace = {"vkp": _kernel_names(), "math": math, **functions}
        kern = compile_source(text, name, namespace)[name]
        _KERNELS[text] = kern
    return kern
