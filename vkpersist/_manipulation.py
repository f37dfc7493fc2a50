"""NumPy's array-manipulation functions on device arrays: the shape queries, the `*_like`
constructors, copies between layouts, views (`np.expand_dims`, `np.squeeze`,
`np.swapaxes`, `np.moveaxis`, `np.flip`, `np.broadcast_to`, `np.reshape`, `np.ravel`,
`np.transpose`), and joins and rearrangements that copy (`np.concatenate`, `np.stack`,
`np.vstack`, `np.hstack`, `np.column_stack`, `np.diff`, `np.roll`, `np.take`,
`np.repeat`, `np.copyto`).

A user's NumPy or CuPy code calls these between the math; without them `np.zeros_like(dx)`
raised a TypeError and the code had to copy to the host. Views cost nothing; every copy is
the element-wise kernel of vkpersist/_core/recipe.py (any layout in, any layout out, NumPy's
broadcasting and casting), which is also what `Array.copy_from` and slice assignment use
between device arrays of different layouts (vkpersist/_core/copies.py), instead of a host round
trip.
"""
from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from ._core.copies import assign, converted
from ._core.ufunc import run
from ._errors import OutOfDeviceMemory, VkPersistError
from .vk.array import Array


def device_operand(ctx, x, what: str) -> Array:
    """`x` as a device array on `ctx` (NumPy data is copied there); a device array of
    another Context is refused by name."""
    if isinstance(x, Array):
        if x.ctx is not ctx:
            raise VkPersistError(f"{what}: the arrays belong to different Contexts; move them "
                                 "to one with ctx.asarray(...)")
        return x
    return ctx.asarray(np.asarray(x))


# ---- shape queries ---------------------------------------------------------------------
def shape(a):
    return tuple(a.shape)


def ndim(a):
    return a.ndim


def size(a, axis=None):
    return a.size if axis is None else a.shape[normalize_axis_index(axis, a.ndim)]


# ---- constructors and copies -------------------------------------------------------------
def _like(a: Array, dtype, shape, what: str, order="K", subok=True) -> Array:
    if order not in ("K", "C", "A"):
        raise ValueError(f"np.{what}: vkpersist arrays are row-major; order={order!r} is not "
                         "supported")
    shape = a.shape if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
    return Array(a.ctx, shape, a.dtype if dtype is None else np.dtype(dtype), a.memory)


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None):
    return _like(prototype, dtype, shape, "empty_like", order)


def zeros_like(a, dtype=None, order="K", subok=True, shape=None):
    return _like(a, dtype, shape, "zeros_like", order).fill(0)


def ones_like(a, dtype=None, order="K", subok=True, shape=None):
    return _like(a, dtype, shape, "ones_like", order).fill(1)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    out = _like(a, dtype, shape, "full_like", order)
    if isinstance(fill_value, Array) or np.ndim(fill_value):
        assign(fill_value, out)
        return out
    return out.fill(fill_value)


def copy(a, order="K", subok=False):
    return a.copy()


def copyto(dst, src, casting="same_kind", where=True):
    if not isinstance(dst, Array):
        raise TypeError("np.copyto into a NumPy array from a vkpersist array: copy the "
                        "device array to the host first (np.asarray(src))")
    if where is True:
        assign(src, dst, casting)
        return
    from ._core.ufunc import _select
    value = converted(src, dst.dtype, casting)
    _select(where, value, dst, dst, "copyto")


# ---- views ---------------------------------------------------------------------------------
def reshape(a, *args, **kwargs):
    shape = kwargs.pop("shape", kwargs.pop("newshape", None))
    if shape is None:
        shape, args = args[0], args[1:]
    order = kwargs.pop("order", args[0] if args else "C")
    if kwargs:
        raise TypeError(f"np.reshape: unexpected keywords {sorted(kwargs)}")
    return a.reshape(shape, order=order)


def ravel(a, order="C"):
    return a.reshape(-1, order=order)


def transpose(a, axes=None):
    return a.transpose() if axes is None else a.transpose(*axes)


def swapaxes(a, axis1, axis2):
    axes = list(range(a.ndim))
    i, j = normalize_axis_index(axis1, a.ndim), normalize_axis_index(axis2, a.ndim)
    axes[i], axes[j] = axes[j], axes[i]
    return a.transpose(*axes)


def moveaxis(a, source, destination):
    src = normalize_axis_tuple(source, a.ndim, "source")
    dst = normalize_axis_tuple(destination, a.ndim, "destination")
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number "
                         "of elements")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return a.transpose(*order)


def expand_dims(a, axis):
    nd = a.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    axes = normalize_axis_tuple(axis, nd)
    return a[tuple(None if k in axes else slice(None) for k in range(nd))]


def squeeze(a, axis=None):
    if axis is None:
        axes = tuple(k for k, n in enumerate(a.shape) if n == 1)
    else:
        axes = normalize_axis_tuple(axis, a.ndim)
        for k in axes:
            if a.shape[k] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not "
                                 "equal to one")
    return a[tuple(0 if k in axes else slice(None) for k in range(a.ndim))]


def flip(m, axis=None):
    axes = range(m.ndim) if axis is None else normalize_axis_tuple(axis, m.ndim)
    return m[tuple(slice(None, None, -1) if k in axes else slice(None)
                   for k in range(m.ndim))]


def flipud(m):
    return flip(m, 0)


def fliplr(m):
    return flip(m, 1)


def broadcast_to(array, shape, subok=False):
    """A view with stride 0 along the broadcast axes (as CuPy's, it can be written through:
    every element of a broadcast axis is the same memory)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if len(shape) < array.ndim:
        raise ValueError("input operand has more dimensions than allowed by the axis "
                         "remapping")
    lead = len(shape) - array.ndim
    strides = [0] * lead
    for n, want, s in zip(array.shape, shape[lead:], array._estrides):
        if n != want and n != 1:
            raise ValueError(f"operands could not be broadcast together with remapped shapes "
                             f"[original->remapped]: {array.shape} and requested shape {shape}")
        strides.append(s if n == want else 0)
    return array._view(shape, tuple(strides), array._offset)


# ---- joins and rearrangements that copy ---------------------------------------------------
def _device_arrays(arrays, what: str) -> list:
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    ctx = next((a.ctx for a in arrays if isinstance(a, Array)), None)
    return [device_operand(ctx, a, f"np.{what}") for a in arrays]


def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = _device_arrays(arrays, "concatenate")
    if axis is None:
        arrays, axis = [a.reshape(-1) for a in arrays], 0
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = normalize_axis_index(axis, nd)
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != nd:
            raise ValueError(f"all the input array dimensions except for the concatenation "
                             f"axis must match exactly, but along dimension 0, the array at "
                             f"index 0 has {nd} dimension(s) and the array at index {i} has "
                             f"{a.ndim} dimension(s)")
        for k in range(nd):
            if k != axis and a.shape[k] != arrays[0].shape[k]:
                raise ValueError(f"all the input array dimensions except for the "
                                 f"concatenation axis must match exactly, but along dimension "
                                 f"{k}, the array at index 0 has size {arrays[0].shape[k]} and "
                                 f"the array at index {i} has size {a.shape[k]}")
    shape = list(arrays[0].shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    result = np.result_type(*[a.dtype for a in arrays]) if dtype is None else np.dtype(dtype)
    if out is None:
        out = Array(arrays[0].ctx, tuple(shape), result)
    elif tuple(out.shape) != tuple(shape):
        raise ValueError(f"Output array has wrong dimensionality: {out.shape} instead of "
                         f"{tuple(shape)}")
    start = 0
    for a in arrays:
        key = [slice(None)] * nd
        key[axis] = slice(start, start + a.shape[axis])
        assign(a, out[tuple(key)], casting)
        start += a.shape[axis]
    return out


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    arrays = _device_arrays(arrays, "stack")
    shapes = {tuple(a.shape) for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis_index(axis, arrays[0].ndim + 1)
    return concatenate([expand_dims(a, axis) for a in arrays], axis, out, dtype, casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    arrays = [a.reshape(1, -1) if a.ndim == 1 else a for a in _device_arrays(tup, "vstack")]
    return concatenate(arrays, 0, dtype=dtype, casting=casting)


def hstack(tup, *, dtype=None, casting="same_kind"):
    arrays = _device_arrays(tup, "hstack")
    return concatenate(arrays, 0 if arrays[0].ndim == 1 else 1, dtype=dtype, casting=casting)


def column_stack(tup):
    arrays = [a.reshape(-1, 1) if a.ndim == 1 else a
              for a in _device_arrays(tup, "column_stack")]
    return concatenate(arrays, 1)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    if prepend is not None or append is not None:
        raise TypeError("np.diff: prepend= and append= are not supported on vkpersist "
                        "arrays; np.concatenate them first")
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    axis = normalize_axis_index(axis, a.ndim)
    hi = tuple(slice(1, None) if k == axis else slice(None) for k in range(a.ndim))
    lo = tuple(slice(None, -1) if k == axis else slice(None) for k in range(a.ndim))
    for _ in range(n):
        a = np.not_equal(a[hi], a[lo]) if a.dtype.kind == "b" else a[hi] - a[lo]
    return a


def roll(a, shift, axis=None):
    if axis is None:
        return roll(a.reshape(-1), shift, 0).reshape(a.shape)
    shifts = (shift,) if isinstance(shift, int) else tuple(shift)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    shifts, axes = np.broadcast_arrays(np.asarray(shifts), np.asarray(axes))
    moved = {}
    for s, ax in zip(shifts.tolist(), axes.tolist()):
        ax = normalize_axis_index(ax, a.ndim)
        moved[ax] = moved.get(ax, 0) + s
    out = Array(a.ctx, a.shape, a.dtype)
    parts = [((), ())]                    # (source key, destination key) per axis so far
    for k in range(a.ndim):
        n = a.shape[k]
        s = moved.get(k, 0) % n if n else 0
        pieces = [(slice(None), slice(None))] if s == 0 else \
            [(slice(None, n - s), slice(s, None)), (slice(n - s, None), slice(None, s))]
        parts = [(src + (ps,), dst + (pd,)) for src, dst in parts for ps, pd in pieces]
    for src, dst in parts:
        assign(a[src], out[dst])
    return out


def take(a, indices, axis=None, out=None, mode="raise"):
    if mode != "raise":
        raise TypeError(f"np.take(mode={mode!r}) is not supported on vkpersist arrays; "
                        "only mode='raise'")
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis = normalize_axis_index(axis, a.ndim)
    result = a[(slice(None),) * axis + (indices if isinstance(indices, Array)
                                         else np.asarray(indices),)]
    if out is not None:
        assign(result, out)
        return out
    return result


def repeat(a, repeats, axis=None):
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis = normalize_axis_index(axis, a.ndim)
    counts = np.asarray(repeats.numpy() if isinstance(repeats, Array) else repeats)
    if counts.dtype.kind not in "iu":
        raise TypeError(f"Cannot cast array data from dtype('{counts.dtype}') to "
                        "dtype('int64') according to the rule 'safe'")
    # the result's size before any of it is made: a count of 2**40 asked NumPy for the
    # index of 32 TiB on the host (its MemoryError, from inside vkpersist). Negative counts
    # get NumPy's own error from np.repeat below.
    total = int(np.sum(np.broadcast_to(np.maximum(counts, 0), (a.shape[axis],)),
                       dtype=np.uint64)) if a.shape[axis] else 0
    nbytes = total * (a.size // max(a.shape[axis], 1)) * a.dtype.itemsize
    limit = a.ctx.info.max_allocation_size
    if nbytes > limit:
        raise OutOfDeviceMemory(
            f"np.repeat: the result would hold {total:,} rows along axis {axis} "
            f"({nbytes / 2**30:,.1f} GiB), more than one array on {a.ctx.info.name} can "
            f"(maxMemoryAllocationSize {limit / 2**30:,.1f} GiB)")
    index = np.repeat(np.arange(a.shape[axis]), counts)    # which source row each output is
    return a[(slice(None),) * axis + (index,)]


# ---- padding, tiling, grids, diagonals ----------------------------------------------------
def _pad_widths(pad_width, ndim: int):
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (ndim, 2))
    if np.any(widths < 0):
        raise ValueError("index can't contain negative values")
    return [tuple(int(v) for v in w) for w in widths]


def pad(array, pad_width, mode="constant", **kwargs):
    """np.pad with modes constant (constant_values=), edge, wrap, reflect and symmetric
    (the last three with pads no wider than the axis: NumPy repeats the pattern beyond)."""
    modes = ("constant", "edge", "wrap", "reflect", "symmetric")
    if mode not in modes:
        raise ValueError(f"np.pad(mode={mode!r}) is not supported on vkpersist arrays; "
                         f"modes: {', '.join(modes)}")
    allowed = {"constant": {"constant_values"}, "reflect": {"reflect_type"},
               "symmetric": {"reflect_type"}}.get(mode, set())
    if set(kwargs) - allowed:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': "
                         f"{set(kwargs) - allowed}")
    if kwargs.get("reflect_type", "even") != "even":
        raise ValueError("np.pad(reflect_type='odd') is not supported on vkpersist arrays")
    widths = _pad_widths(pad_width, array.ndim)
    shape = tuple(n + b + a for n, (b, a) in zip(array.shape, widths))
    out = Array(array.ctx, shape, array.dtype)
    centre = tuple(slice(b, b + n) for n, (b, _) in zip(array.shape, widths))
    if mode == "constant":
        values = np.broadcast_to(np.asarray(kwargs.get("constant_values", 0)), (array.ndim, 2))
        for k, (b, a) in enumerate(widths):       # each axis's bands over the whole extent
            lead = tuple(slice(None) for _ in range(k))
            if b:
                out[lead + (slice(0, b),)] = values[k][0]
            if a:
                out[lead + (slice(shape[k] - a, None),)] = values[k][1]
        assign(array, out[centre])
        return out
    assign(array, out[centre])
    for k, (b, a) in enumerate(widths):           # axis by axis, from what is filled
        n = array.shape[k]
        if (b or a) and n == 0:
            raise ValueError(f"can't extend empty axis {k} using modes other than "
                             "'constant' or 'empty'")
        limit = n - 1 if mode == "reflect" else n
        if mode != "edge" and max(b, a) > limit:
            raise ValueError(f"np.pad(mode={mode!r}) wider than axis {k} allows ({limit}) "
                             "is not supported on vkpersist arrays")
        rest = tuple(slice(None) if j < k else centre[j] for j in range(array.ndim))

        def band(lo, hi, step=None):
            return rest[:k] + (slice(lo, hi, step),) + rest[k + 1:]
        for before, w in ((True, b), (False, a)):
            if not w:
                continue
            dst = band(0, b) if before else band(b + n, b + n + a)
            if mode == "edge":
                src = band(b, b + 1) if before else band(b + n - 1, b + n)
            elif mode == "wrap":
                src = band(b + n - w, b + n) if before else band(b, b + w)
            elif mode == "reflect":
                src = band(b + w, b, -1) if before else band(b + n - 2, b + n - 2 - w, -1)
            else:                                  # symmetric
                src = band(b + w - 1, b - 1 if b else None, -1) if before else \
                    band(b + n - 1, b + n - 1 - w, -1)
            assign(out[src], out[dst])
    return out


def tile(A, reps):
    """np.tile: the array repeated `reps` times along each axis (one broadcast copy)."""
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    d = max(len(reps), A.ndim)
    a = A.reshape((1,) * (d - A.ndim) + A.shape)
    reps = (1,) * (d - len(reps)) + reps
    interleaved = a.reshape(tuple(v for n in a.shape for v in (1, n)))
    target = tuple(v for r, n in zip(reps, a.shape) for v in (r, n))
    out = Array(A.ctx, tuple(r * n for r, n in zip(reps, a.shape)), A.dtype)
    assign(broadcast_to(interleaved, target), out.reshape(target))
    return out


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    arrays = _device_arrays(xi, "meshgrid")
    nd = len(arrays)
    shapes = [(1,) * k + (-1,) + (1,) * (nd - k - 1) for k in range(nd)]
    if indexing == "xy" and nd > 1:
        shapes[0], shapes[1] = ((1, -1) + (1,) * (nd - 2)), ((-1, 1) + (1,) * (nd - 2))
    grids = [x.reshape(-1).reshape(s) for x, s in zip(arrays, shapes)]
    if sparse:
        return tuple(g.copy() if copy else g for g in grids)
    full = np.broadcast_shapes(*[g.shape for g in grids])
    return tuple(broadcast_to(g, full).copy() if copy else broadcast_to(g, full)
                 for g in grids)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """A view of the diagonal (the two axes replaced by a last one), as NumPy's."""
    i, j = normalize_axis_index(axis1, a.ndim), normalize_axis_index(axis2, a.ndim)
    if i == j:
        raise ValueError("axis1 and axis2 cannot be the same")
    n = max(0, min(a.shape[i] + min(offset, 0), a.shape[j] - max(offset, 0)))
    start = a._offset + (max(-offset, 0) * a._estrides[i] + max(offset, 0) * a._estrides[j]
                         if n else 0)
    keep = [k for k in range(a.ndim) if k not in (i, j)]
    shape = tuple(a.shape[k] for k in keep) + (n,)
    strides = tuple(a._estrides[k] for k in keep) + (a._estrides[i] + a._estrides[j],)
    return a._view(shape, strides, start)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return np.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype, out=out)


def diag(v, k=0):
    """Of a 1-d array the square matrix with it on diagonal `k`; of a 2-d one a copy of
    that diagonal."""
    if v.ndim == 1:
        n = v.shape[0] + abs(k)
        out = Array(v.ctx, (n, n), v.dtype).fill(0)
        assign(v, diagonal(out, k))
        return out
    if v.ndim == 2:
        return diagonal(v, k).copy()
    raise ValueError("Input must be 1- or 2-d.")


def _triangle(m, k, lower: bool):
    rows = m.ctx.asarray(np.arange(m.shape[-2], dtype=np.int64)[:, None])
    cols = m.ctx.asarray(np.arange(m.shape[-1], dtype=np.int64)[None, :])
    keep = (cols - rows <= k) if lower else (cols - rows >= k)
    return np.where(keep, m, np.zeros((), m.dtype))


def tril(m, k=0):
    return _triangle(m, k, True)


def triu(m, k=0):
    return _triangle(m, k, False)
