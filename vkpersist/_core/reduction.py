"""Reductions on device arrays: sum, prod, min, max, mean, argmin, argmax, any, all, as
NumPy's (same arguments, result dtypes and errors), computed on the device
(docs/reductions.md).

    s = vkp.sum(dx, axis=1)          # or np.sum(dx, axis=1), or dx.sum(axis=1)
    float(vkp.max(dx))               # a 0-d device array; float()/.item() read it

Every reduction becomes "reduce the rows of an (M, K) view": the kept axes are moved to
the front (a transposed view, no copy) and merged into one axis of M rows, the reduced axes
into K columns. Views whose axes cannot merge that way are copied contiguous first. The
rows are reduced by the two-level kernel of _reduce_kernels.py. Results are device arrays
(0-d for a whole-array reduction, as CuPy's); NumPy input gives a NumPy result.

Complex min/max/argmin/argmax order as NumPy does (real part, then imaginary part; the
first value with a NaN in either part wins) and return NumPy's element bit for bit: the
kernels carry each candidate's index, so that of equal values (0.0 and -0.0 parts) the
first wins, first in NumPy's iteration order for min/max, which for a view is its memory
order (rows_view's `memory_order`), and first in the logical order for argmin/argmax.
"""
from __future__ import annotations

import builtins as py
import math
import threading
import warnings

import numpy as np

from . import reduce_kernels as rk
from . import reduce_subgroup as sg
from .._errors import UnsupportedError
from ..vk.array import Array, window_room
from ..vk.context import default_context
from ..vk.sequence import batched

try:
    from numpy.lib.array_utils import normalize_axis_tuple
except ImportError:                                  # NumPy < 2
    from numpy.core.numeric import normalize_axis_tuple

_NAMES = {"min": "minimum", "max": "maximum"}        # NumPy's names in its errors
ARG_OPS = ("argmin", "argmax")
_KERNELS: dict = {}
_LOCK = threading.Lock()
# whole-array sums of contiguous arrays use subgroup operations where the device has them
# (_reduce_subgroup.py); False forces the shared-memory kernel everywhere (tests use it)
USE_SUBGROUPS = True
COLUMNS_MIN_ROWS = 32          # kept-axis-contiguous reductions this wide take _columns


# ---- the (M, K) view of a reduction ----------------------------------------------------
def _merge(shape, strides):
    """(size, stride) of axes that walk memory as one axis, or None. Axes of length 1 go."""
    axes = [(n, s) for n, s in zip(shape, strides) if n != 1]
    if not axes:
        return 1, 0
    for (n0, s0), (n1, s1) in zip(axes, axes[1:]):
        if s0 != n1 * s1:
            return None
    return math.prod(n for n, _ in axes), axes[-1][1]


def rows_view(x: Array, axes: tuple, memory_order: bool = False) -> Array:
    """x as (M, K): M = the kept axes (in order), K = the reduced axes (in order; with
    `memory_order`, in NumPy's iteration order instead: by decreasing |stride|, stably,
    each axis by increasing index, which is the order in which NumPy's min/max meet the
    elements of a view, e.g. x.T.max() walks x's memory)."""
    kept = [i for i in range(x.ndim) if i not in axes]
    reduced = sorted(axes)
    if memory_order:
        reduced.sort(key=lambda i: -abs(x._estrides[i]))
    v = x.transpose(*kept, *reduced) if x.ndim else x
    nk = len(kept)
    m = _merge(v.shape[:nk], v._estrides[:nk])
    k = _merge(v.shape[nk:], v._estrides[nk:])
    if m is None or k is None:
        v = v.copy()
        k = (math.prod(v.shape[nk:]), 1)
        m = (math.prod(v.shape[:nk]), k[0])
    return v._view((m[0], k[0]), (m[1], k[1]), v._offset)


def _next_pow2(n: int) -> int:
    return 1 << py.max(0, n - 1).bit_length()


def _kernel(op, acc, product=False, from_index=False, divide=False):
    key = (op, np.dtype(acc), product, from_index, divide)
    kern = _KERNELS.get(key)
    if kern is None:
        kern = _KERNELS[key] = rk.make_reduce(*key)
    return kern


def _identity(op: str, acc: np.dtype):
    if op in ("sum", "any"):
        return acc.type(0)
    if op in ("prod", "all"):
        return acc.type(1)
    low = op in ("min", "argmin")
    if acc.kind == "c":          # any element wins over it: ties go to the smaller index
        return acc.type(complex(np.inf, np.inf) if low else complex(-np.inf, -np.inf))
    if acc.kind == "f":
        return acc.type(np.inf if low else -np.inf)
    info = np.iinfo(acc)
    return acc.type(info.max if low else info.min)


def _scratch(ctx, shape, dtype, role: str = "values") -> Array:
    """A partials array kept per (context, shape, dtype, role): reusing it keeps the first
    pass's recorded command buffer valid, so a repeated reduction records nothing new. Safe
    because every submission waits for the previous ones (vk/commands.py) and _LOCK keeps
    one reduction's two passes together (one submission, reduce_rows). `role` keeps an argmin's int32 values and its
    int32 indices apart."""
    arrays = ctx._caches.setdefault("reduction scratch", {})
    key = (shape, np.dtype(dtype), role)
    a = arrays.get(key)
    if a is None or not a.buffer.alive:
        a = arrays[key] = Array(ctx, shape, dtype)
    return a


def reduce_rows(op: str, src: Array, acc, out_dtype, *, src2: Array | None = None,
                divisor=None, dst: Array | None = None):
    """Reduce each row of the (M, K) view `src` (times `src2`, elementwise, when given):
    (values (M,) of out_dtype, indices (M,) for argmin/argmax, else None). The path: the
    subgroup kernel (whole contiguous arrays, _reduce_subgroup.py), the column kernel
    (short rows; rows that are columns in memory), else the shared-memory kernel: two
    launches when K is large, per-workgroup partials (G a row), then one workgroup a row.
    Either way the launches of one reduction are one submission (vk/sequence.py's
    `batched`), asynchronous like any launch: nothing waits until the result is read."""
    acc = np.dtype(acc)
    info = src.ctx.info
    limit = info.max_storage_buffer_range
    big = src.buffer.size > limit or (src2 is not None and src2.buffer.size > limit)
    if big and py.max(src._span_bytes(), src2._span_bytes() if src2 is not None else 0) > \
            window_room(info):
        return _in_parts(op, src, src2, acc, out_dtype, divisor, dst)
    target = 16 if info.kind == "cpu" else 2048
    with _LOCK:
        # the subgroup kernel binds whole buffers; the others bind a window of a big one
        if USE_SUBGROUPS and not big and src2 is None and \
                sg.applies(op, src, acc, np.dtype(out_dtype)):
            return sg.reduce_all(op, src, _identity(op, acc), divisor, target, _scratch,
                                 dst), None
        with batched(src.ctx):
            return _reduce_rows(op, src, acc, out_dtype, src2, divisor, dst, target)


def _in_parts(op, src, src2, acc, out_dtype, divisor, dst):
    """reduce_rows of views of buffers larger than the device binds per storage buffer:
    blocks of whole rows where a row fits (their results are the rows'), else blocks of
    columns (each reduced as here, in blocks of rows) whose partial results (in the
    accumulator's type) are reduced again, and for argmin/argmax the winning block's index
    offset by its start. Each block binds the window around it (vk/array.py `_window`)."""
    ctx = src.ctx
    M, K = src.shape
    views = [src] if src2 is None else [src, src2]
    info = ctx.info
    room = window_room(info)
    arg = op in ARG_OPS
    values = Array(ctx, (M,), out_dtype) if dst is None else dst
    index = Array(ctx, (M,), np.int64 if info.int64 else np.int32) if arg else None

    def block(r0, r1, k0, k1, out, divide):
        part = [v[r0:r1, k0:k1] for v in views]
        return reduce_rows(op, part[0], acc, out, src2=part[1] if src2 is not None else None,
                           divisor=divide)

    def largest(lo_span, step):        # how many rows/columns fit, given one and the step
        return py.max(1, (room - lo_span) // step + 1) if step else 1 << 62

    one_row = py.max(v[0:1]._span_bytes() for v in views)
    if one_row <= room:
        rows = py.min(largest(one_row, abs(v._estrides[0]) * v.dtype.itemsize) for v in views)
        for r0 in range(0, M, rows):
            got, idx = block(r0, py.min(M, r0 + rows), 0, K, out_dtype, divisor)
            values[r0:r0 + got.size] = got
            if arg:
                index[r0:r0 + idx.size] = idx
        return values, index
    item = py.max(v[0:1, 0:1]._span_bytes() for v in views)
    cols = py.min(largest(item, abs(v._estrides[1]) * v.dtype.itemsize) for v in views)
    starts = list(range(0, K, cols))
    parts = [block(0, M, k0, py.min(K, k0 + cols), acc, None) for k0 in starts]
    stacked = Array(ctx, (M, len(parts)), acc)
    for j, (got, _) in enumerate(parts):
        stacked[:, j] = got
    got, win = reduce_rows(op, stacked, acc, out_dtype, divisor=divisor)
    values[...] = got
    if arg:         # the winning block's index plus its start: a select per block
        for j, (_, idx) in enumerate(parts):
            term = (win == j) * (idx + starts[j])
            index[...] = term if j == 0 else index + term
    return values, index


def _reduce_rows(op, src, acc, out_dtype, src2, divisor, dst, target):
    ctx = src.ctx
    M, K = src.shape
    local = py.min(rk.LOCAL, _next_pow2(K))
    groups = py.max(1, py.min(-(-K // local), target // py.max(M, 1), 65535))
    pair = src2 if src2 is not None else src
    if K <= rk.SHORT and M >= rk.LOCAL:              # one invocation a row
        return _columns(op, acc, src, pair, out_dtype, dst, divisor, src2 is not None, 0)
    if M >= COLUMNS_MIN_ROWS and src._estrides[0] == 1 and src._estrides[1] != 1:
        return _columns(op, acc, src, pair, out_dtype, dst, divisor, src2 is not None,
                        target * rk.LOCAL)
    if groups == 1:
        return _last_pass(op, acc, (src, pair, src), out_dtype, dst, divisor,
                          product=src2 is not None, from_index=False)
    indexed = rk.indexed(op, acc)
    part = _scratch(ctx, (M, groups), acc)
    part_idx = _scratch(ctx, (M, groups), np.int32, "indices") if indexed else part
    _kernel(op, acc, src2 is not None)[(groups, py.min(M, 65535)), local](
        src, pair, src, part.reshape(-1), part_idx.reshape(-1), _identity(op, acc),
        acc.type(1))
    return _last_pass(op, acc, (part, part, part_idx), out_dtype, dst, divisor,
                      product=False, from_index=indexed)


def _column_kernel(op, acc, product, from_index, divide):
    key = ("columns", op, acc, product, from_index, divide)
    kern = _KERNELS.get(key)
    if kern is None:
        kern = _KERNELS[key] = rk.make_columns(*key[1:])
    return kern


def _columns(op, acc, src, src2, out_dtype, dst, divisor, product, invocations):
    """Rows that are columns in memory: G chunks of each row in parallel, then the (G, M)
    partials over G. G keeps about `invocations` busy (0: G = 1, for short rows) and each
    chunk under ~60,000 elements (lavapipe's loop limit)."""
    ctx = src.ctx
    M, K = src.shape
    arg, indexed = op in ARG_OPS, rk.indexed(op, acc)
    chunks = py.min(65535, py.max(1, invocations // M, -(-K // 60000)), py.max(1, K // 16))
    x_groups = py.min(-(-M // rk.LOCAL), 65535)
    div = acc.type(divisor if divisor is not None else 1)
    if chunks == 1:
        dst, idx = _outputs(ctx, M, out_dtype, dst, arg, indexed)
        _column_kernel(op, acc, product, False, divisor is not None)[
            (x_groups, 1), rk.LOCAL](src, src2, src, dst, idx, _identity(op, acc), div)
        return dst, (idx if arg else None)
    part = _scratch(ctx, (chunks, M), acc)
    part_idx = _scratch(ctx, (chunks, M), np.int32, "indices") if indexed else part
    _column_kernel(op, acc, product, False, False)[(x_groups, chunks), rk.LOCAL](
        src, src2, src, part.reshape(-1), part_idx.reshape(-1), _identity(op, acc),
        acc.type(1))
    dst, idx = _outputs(ctx, M, out_dtype, dst, arg, indexed)
    _column_kernel(op, acc, False, indexed, divisor is not None)[(x_groups, 1), rk.LOCAL](
        part.T, part.T, part_idx.T, dst, idx, _identity(op, acc), div)
    return dst, (idx if arg else None)


def _outputs(ctx, M, out_dtype, dst, arg, indexed=False):
    """The (M,) result array (`dst` when given) and, for argmin/argmax, the index array
    (int64, int32 on devices without it); for complex min/max (`indexed`, whose kernels
    write indices too) an int32 scratch array nobody reads; else `dst` again, bound but
    never written."""
    dst = Array(ctx, (M,), out_dtype) if dst is None else dst
    if arg:
        return dst, Array(ctx, (M,), np.int64 if ctx.info.int64 else np.int32)
    return dst, (_scratch(ctx, (M,), np.int32, "unread indices") if indexed else dst)


def _last_pass(op, acc, sources, out_dtype, dst, divisor, *, product, from_index):
    """One workgroup a row reduces (src, src2, srci) into a new (M,) array (or `dst`)."""
    src = sources[0]
    ctx = src.ctx
    M, K = src.shape
    arg = op in ARG_OPS
    dst, idx = _outputs(ctx, M, out_dtype, dst, arg, rk.indexed(op, acc))
    div = acc.type(divisor if divisor is not None else 1)
    _kernel(op, acc, product, from_index, divisor is not None)[
        (1, py.min(M, 65535)), py.min(rk.LOCAL, _next_pow2(K))](
        *sources, dst, idx, _identity(op, acc), div)
    return dst, (idx if arg else None)


# ---- NumPy's front ---------------------------------------------------------------------
def inexact(x: Array) -> Array:
    """`x` if it holds floats or complex numbers, else converted to float64 (float32 on a
    device without float64), as NumPy's statistics and calculus turn integers to floats."""
    if x.dtype.kind in "fc":
        return x
    return x.astype(np.float64 if x.ctx.info.float64 else np.float32)


def _device(a, keep_order: bool = False):
    """(Array, whether the caller gave host data and wants NumPy back). `keep_order`
    (complex min/max): a complex NumPy view goes up in its memory order and comes back as
    the same view of it, since NumPy's min/max follow that order (rows_view)."""
    if isinstance(a, Array):
        a._check_alive()
        return a, False
    host = np.asarray(a)
    if keep_order and host.dtype.kind == "c" and not host.flags.c_contiguous:
        order = sorted(range(host.ndim), key=lambda i: -abs(host.strides[i]))
        up = default_context().asarray(np.ascontiguousarray(host.transpose(order)))
        return up.transpose(*np.argsort(order)), True
    return default_context().asarray(np.ascontiguousarray(host)), True


def _result_dtype(op: str, dtype: np.dtype, requested):
    """NumPy's own answer for the result dtype (sum of int32 is int64, mean of ints
    float64, ...), from a one-element host array."""
    probe = np.ones(1, dtype)
    if op in ("sum", "prod"):
        return (np.sum if op == "sum" else np.prod)(probe, dtype=requested).dtype
    if op == "mean":
        return np.mean(probe, dtype=requested).dtype
    if op in ("any", "all"):
        return np.dtype(np.bool_)
    return np.dtype(dtype)


def _acc_dtype(op: str, result: np.dtype) -> np.dtype:
    """What the kernel accumulates in: the result dtype, widened to 32 bits where the
    kernel language only stores it (8/16-bit ints, float16: NumPy too adds float16 in
    float); uint32 for booleans. Integer results narrow back with NumPy's wrap-around."""
    if op in ("any", "all") or result.kind == "b":
        return np.dtype(np.uint32)
    if result.itemsize < 4:
        return np.dtype({"f": np.float32, "i": np.int32, "u": np.uint32}[result.kind])
    return result


def _finish(values: Array, shape, keepdims_shape, out, host: bool):
    res = values.reshape(keepdims_shape if keepdims_shape is not None else shape)
    if out is not None:
        if isinstance(out, Array):
            if out.shape != res.shape:
                raise ValueError(f"output parameter has the wrong shape {out.shape}; the result "
                                 f"has shape {res.shape}")
            if res.buffer is not out.buffer:
                out.copy_from(res if res.dtype == out.dtype else res.astype(out.dtype))
            return out
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out must be a vkpersist.Array or a NumPy array, got "
                            f"{type(out).__name__}")
        out[...] = res.numpy()
        return out
    if host:
        r = res.numpy()
        return r[()] if r.ndim == 0 else r
    return res


def _check_unsupported(name: str, **extra) -> None:
    for key, value in extra.items():
        if value is not None and value is not np._NoValue:
            raise UnsupportedError(f"vkpersist.{name}({key}=...) is not supported on device "
                                   f"arrays; reduce first, then combine on the result (see "
                                   f"docs/reductions.md)")


def _reduce(op, a, axis, dtype, out, keepdims, divide=False, name=None):
    name = name or op
    if axis is None and dtype is None and out is None and not keepdims \
            and a.__class__ is Array and a._plain and a.size and USE_SUBGROUPS:
        # a whole array again: its recorded plan, without the front end (_reduce_subgroup)
        key = (name, op, divide, a.dtype, a.shape)
        with _LOCK:
            again = sg.repeat(key, a)
        if again is not None:
            return again
        with sg.capture(key, a):
            return _reduce_all_ways(op, a, axis, dtype, out, keepdims, divide, name)
    return _reduce_all_ways(op, a, axis, dtype, out, keepdims, divide, name)


def _reduce_all_ways(op, a, axis, dtype, out, keepdims, divide, name):
    x, host = _device(a, keep_order=op in ("min", "max"))
    if op in ("any", "all") and x.dtype.kind == "c":
        x = x != 0                           # nonzero: either part (NaN counts), as NumPy
    axes = tuple(range(x.ndim)) if axis is None else normalize_axis_tuple(axis, x.ndim)
    count = math.prod(x.shape[i] for i in axes)
    if op in ("min", "max") and count == 0:
        raise ValueError(f"zero-size array to reduction operation {_NAMES[op]} which has no "
                         "identity")
    kept_shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    keep_shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape)) \
        if keepdims else None
    result = _result_dtype(name, x.dtype, dtype)
    if result.kind == "b" and op in ("sum", "prod"):
        op = "any" if op == "sum" else "all"            # NumPy's sum(dtype=bool) is an or
    acc = _acc_dtype(op, result)
    if divide and count == 0:
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=3)
    _check_dtype_on_device(x.ctx, result, name)
    direct = out if (isinstance(out, Array) and out.dtype == result and out._plain
                     and out.shape == (keep_shape or kept_shape)) else None
    # complex min/max return the first of equal values (signed zeros, NaNs) in NumPy's
    # order, which for a view is its memory's (argmin/argmax: the logical order, as NumPy's)
    order = op in ("min", "max") and x.dtype.kind == "c"
    values, _ = reduce_rows(op, rows_view(x, axes, memory_order=order), acc, result,
                            divisor=count if divide else None,
                            dst=direct.reshape(-1) if direct is not None else None)
    return _finish(values, kept_shape, keep_shape, out, host)


def _check_dtype_on_device(ctx, dtype, name):
    from ..vk.array import check_dtype
    try:
        check_dtype(dtype, ctx.info)
    except UnsupportedError as exc:
        raise UnsupportedError(f"vkpersist.{name}: NumPy's result dtype here is {dtype}, "
                               f"and {exc}; pass dtype= with a dtype the device has "
                               "(e.g. dtype=np.int32, dtype=np.float32)") from None


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """The sum over `axis` (None: all), as np.sum; float sums in tree order (docs)."""
    _check_unsupported("sum", initial=initial, where=where)
    return _reduce("sum", a, axis, dtype, out, keepdims)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """The product over `axis`, as np.prod."""
    _check_unsupported("prod", initial=initial, where=where)
    return _reduce("prod", a, axis, dtype, out, keepdims)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """The minimum over `axis`, as np.min (NaN propagates; empty raises ValueError;
    complex values in NumPy's lexicographic order)."""
    _check_unsupported("min", initial=initial, where=where)
    return _reduce("min", a, axis, None, out, keepdims)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """The maximum over `axis`, as np.max (NaN propagates; empty raises ValueError;
    complex values in NumPy's lexicographic order)."""
    _check_unsupported("max", initial=initial, where=where)
    return _reduce("max", a, axis, None, out, keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """The mean over `axis`, as np.mean: the sum in the accumulator dtype (float64 for
    integers, float32 for float32), divided by the count on the device."""
    _check_unsupported("mean", where=where)
    return _reduce("sum", a, axis, dtype, out, keepdims, divide=True, name="mean")


def any(a, axis=None, out=None, keepdims=False, where=None):
    """Whether any element is nonzero (NaN counts as nonzero), as np.any."""
    _check_unsupported("any", where=where)
    return _reduce("any", a, axis, None, out, keepdims)


def all(a, axis=None, out=None, keepdims=False, where=None):
    """Whether every element is nonzero, as np.all."""
    _check_unsupported("all", where=where)
    return _reduce("all", a, axis, None, out, keepdims)


def _arg(op, a, axis, out, keepdims):
    x, host = _device(a)
    if x.size == 0 and (axis is None or x.shape[axis] == 0):
        raise ValueError(f"attempt to get {op} of an empty sequence")
    if axis is None:
        axes = tuple(range(x.ndim))
        kept_shape, keep_shape = (), ((1,) * x.ndim if keepdims else None)
    else:
        axes = normalize_axis_tuple(axis, x.ndim)       # one int: NumPy refuses tuples
        kept_shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
        keep_shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape)) \
            if keepdims else None
    acc = _acc_dtype(op, x.dtype)
    _, index = reduce_rows(op, rows_view(x, axes), acc, x.dtype)
    return _finish(index, kept_shape, keep_shape, out, host)


def _int_axis(op, axis):
    if axis is not None and not isinstance(axis, (int, np.integer)):
        raise TypeError(f"vkpersist.{op}: axis must be an int or None, got {axis!r} "
                        "(NumPy takes one axis here)")


def argmin(a, axis=None, out=None, *, keepdims=False):
    """Indices of the minima along `axis` (None: into the flattened array); the first
    occurrence wins, as NumPy's (a NaN over any number: the first NaN; complex values by
    real, then imaginary part, either part NaN counting as NaN). int64 (int32 on devices
    without int64)."""
    _int_axis("argmin", axis)
    return _arg("argmin", a, axis, out, keepdims)


def argmax(a, axis=None, out=None, *, keepdims=False):
    """Indices of the maxima along `axis`, as np.argmax (first occurrence wins)."""
    _int_axis("argmax", axis)
    return _arg("argmax", a, axis, out, keepdims)


amin, amax = min, max          # vkp.amin/vkp.amax: vkp.min/vkp.max are kernel builtins

__all__ = ["sum", "prod", "min", "max", "amin", "amax", "mean", "argmin", "argmax", "any",
           "all"]
