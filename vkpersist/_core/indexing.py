"""Advanced indexing of device arrays, NumPy's way: integer arrays gather and scatter,
boolean masks select and assign; and the functions built on the same compaction
(`np.nonzero`, `np.flatnonzero`, one-argument `np.where`, `np.argwhere`,
`np.count_nonzero`).

    y = x[idx]            # gather along axis 0 (x[:, idx], x[..., idx]: along that axis)
    y = x[x > 0]          # the selected elements, 1-d (a leading-axes mask: rows)
    x[x < 0] = 0          # masked assignment, in place
    x[idx] = v            # scatter (repeated indices: which value lands is unspecified)
    y = x[i, j]           # several index arrays: broadcast together, one gather
    y = x[2, :, idx]      # integers count as index arrays then (NumPy's rule)

The runtime layer below (vk/array.py) cannot compile kernels; vkpersist/_core's install()
gives it these. Every form is one or two kernels of the kernel language
over a (P, n, Q) view of the source: P the axes before the indexed one, Q those after.
Several index arrays (masks among them become their `nonzero` arrays, integers 0-d arrays)
are one flat index over the indexed axes, merged into one: adjacent indexed axes stay where
they are in the result, separated ones go first, as NumPy places them.

A mask's selection has a size that only the device knows: the mask's running count
(vkpersist.cumsum) is read back for its last element, so `x[mask]` and `np.nonzero`
wait for the device once, as CuPy's do. Indices from the host are checked there, as NumPy
checks them; indices already on the device are checked by the kernel, which records an
out-of-range one, and the gather waits to read that record (a device-side IndexError
cannot be raised later without losing where it came from).
"""
from __future__ import annotations

import math
import weakref

import numpy as np

from .copies import assign
from .elementwise import LOCAL, groups_for
from .._kernel import kernel
from ..lang.builtins import global_id, global_size
from ..vk.array import Array



@kernel
def _move(indexed, idx, packed, err, scatter):
    # gather (scatter 0): packed[p, j, q] = indexed[p, idx[j], q]; scatter (1): the other
    # way. An index outside [-n, n) is recorded in err and moves nothing.
    g = global_id(0)
    m = packed.shape[1]
    nq = packed.shape[2]
    n = indexed.shape[1]
    while g < packed.shape[0] * m * nq:
        p = g // (m * nq)
        r = g - p * (m * nq)
        j = r // nq
        q = r - j * nq
        k = idx[j]
        if k < 0:
            k += n
        if k < 0 or k >= n:
            err[0] = 1
            err[1] = idx[j]
        elif scatter == 0:
            packed[p, j, q] = indexed[p, k, q]
        else:
            indexed[p, k, q] = packed[p, j, q]
        g += global_size(0)


@kernel
def _compact(flags, running, out):
    # out[running[i] - 1] = i where flags[i]: the positions of the nonzero flags, in order
    g = global_id(0)
    while g < flags.shape[0]:
        if flags[g]:
            out[running[g] - 1] = g
        g += global_size(0)



_UNREAD: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # ctx -> {dtype: (2,)}


def _error_record(ctx, dtype, checked: bool) -> Array:
    """Where the kernel records an index out of range. Indices checked on the host never
    are: they get a record kept per Context and never read, so the gather needs no zeroed
    array, whose fill (ctx.zeros) would wait for all pending work."""
    if not checked:
        return ctx.zeros(2, dtype)
    records = _UNREAD.setdefault(ctx, {})
    if dtype not in records:
        records[dtype] = Array(ctx, (2,), dtype)
    return records[dtype]


def _intp(ctx):
    return np.dtype(np.int64) if ctx.info.int64 else np.dtype(np.int32)


# ---- recognising the key ------------------------------------------------------------------
def _is_index_array(k) -> bool:
    return isinstance(k, (Array, np.ndarray, list)) or (
        hasattr(k, "__array__") and not isinstance(k, (int, float, complex, np.generic)))


def is_advanced(key) -> bool:
    """Whether `key` holds an index array or mask (NumPy's advanced indexing)."""
    parts = key if isinstance(key, tuple) else (key,)
    return any(_is_index_array(k) or isinstance(k, (bool, np.bool_)) for k in parts)


def _single(key) -> bool:
    """Whether `key` has one index array or mask, and its integers (applied as basic
    indices) are adjacent to it: the result is then the same as NumPy's. Refuses bools."""
    parts = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, (bool, np.bool_)) for k in parts):
        raise IndexError("a Python bool as an index (x[True]) is not supported on vkpersist "
                         "arrays; use a boolean array mask")
    arrays = [i for i, k in enumerate(parts) if _is_index_array(k)]
    if len(arrays) != 1:
        return False
    block = sorted([i for i, p in enumerate(parts) if isinstance(p, (int, np.integer))]
                   + arrays)
    return block[-1] - block[0] + 1 == len(block)


def _split(a: Array, key):
    """(basic view, axis of the view the index array applies to, the index array): the
    key (a `_single` one) with its index array replaced by `:`."""
    parts = key if isinstance(key, tuple) else (key,)
    arrays = [i for i, k in enumerate(parts) if _is_index_array(k)]
    pos = arrays[0]
    k = parts[pos]
    rest = parts[:pos] + (slice(None),) + parts[pos + 1:]
    # the view's axis that the replaced `:` became: the axes the parts before it make
    # (adjacent integers, applied as basic indices, make none: NumPy's result is the same)
    named = sum(p is not None and p is not Ellipsis for p in parts)
    axis = sum(0 if isinstance(p, (int, np.integer)) else
               a.ndim - named if p is Ellipsis else 1 for p in parts[:pos])
    return a[rest], axis, k


def _as_indices(ctx, k, n: int, axis: int):
    """(device index array (1-d, contiguous), its shape, whether it was checked on the
    host) for an integer index array; a bool array gives its True positions."""
    if isinstance(k, Array):
        if k.ctx is not ctx:
            raise ValueError("the index array lives on another Context than the array")
        if k.dtype.kind == "b":
            return None, k.shape, True
        if k.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type, "
                             f"got {k.dtype}")
        flat = k.reshape(-1) if k._contiguous else k.copy().reshape(-1)
        return flat, k.shape, False
    host = _host_index(k)
    if host.dtype.kind == "b":
        return None, host.shape, True
    if host.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type, "
                         f"got {host.dtype}")
    _check_bounds(host, n, axis)
    return ctx.asarray(np.ascontiguousarray(host.reshape(-1)).astype(_intp(ctx))), host.shape, True


def _pnq(view: Array, axis: int):
    """The (P, n, Q) form of `view` around `axis` (a view where the layout allows, else a
    contiguous copy), and whether it is a view."""
    p = math.prod(view.shape[:axis])
    q = math.prod(view.shape[axis + 1:])
    shape = (p, view.shape[axis], q)
    if view._contiguous:
        return view.reshape(shape), True
    return view.copy().reshape(shape), False


def _check_bounds(host: np.ndarray, n: int, axis: int) -> None:
    """NumPy's IndexError for the first of the host indices outside [-n, n)."""
    bad = (host < -n) | (host >= n)
    if bad.any():
        raise IndexError(f"index {host[bad].flat[0]} is out of bounds for axis {axis} with "
                         f"size {n}")


def _check_err(err: Array, n: int, axis: int) -> None:
    flag, value = (int(v) for v in err.numpy())
    if flag:
        _check_bounds(np.array([value]), n, axis)


def _mask_positions(view: Array, mask, axis: int):
    """The mask's True positions as indices over the axes it covers, and that count of
    axes; the mask must match the view's shape from `axis` on, as NumPy requires."""
    m = mask if isinstance(mask, Array) else np.asarray(mask)
    _check_mask_shape(view, m, axis)
    return flatnonzero(m if isinstance(m, Array) else view.ctx.asarray(m)), m.ndim


def _merge(view: Array, axis: int, count: int) -> Array:
    """`view` with the `count` axes from `axis` merged into one (a copy if they are not
    contiguous)."""
    shape = view.shape[:axis] + (math.prod(view.shape[axis:axis + count]),) + \
        view.shape[axis + count:]
    return view.reshape(shape)


def _is_mask(p) -> bool:
    return isinstance(p, (Array, np.ndarray)) and p.dtype.kind == "b"


def _several(a: Array, key):
    """NumPy's indexing with several index arrays, or one apart from integer indices:
    (the basic view with the indexed axes adjacent from `axis` on (moved first when the
    key separates them), axis, how many, the flat device indices into those axes merged,
    the index arrays' broadcast shape). Masks become their `nonzero` arrays and integers
    0-d index arrays, as in NumPy."""
    parts = [(p if isinstance(p, Array) else _host_index(p)) if _is_index_array(p) else p
             for p in (key if isinstance(key, tuple) else (key,))]
    # NumPy keeps the indexed axes in place only when the key names them side by side;
    # anything between them, an Ellipsis of no axes too, separates them
    named = [i for i, p in enumerate(parts)
             if isinstance(p, (Array, np.ndarray)) or isinstance(p, (int, np.integer))]
    side_by_side = named == list(range(named[0], named[-1] + 1))
    if any(p is None for p in parts):
        raise IndexError("np.newaxis (None) together with several index arrays is not "
                         "supported on vkpersist arrays; add the axis to the result "
                         "(y[:, None]) instead")
    if sum(p is Ellipsis for p in parts) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(p.ndim if _is_mask(p) else p is not Ellipsis for p in parts)
    if used > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but "
                         f"{used} were indexed")
    fill = [slice(None)] * (a.ndim - used)
    if Ellipsis in [p for p in parts if not isinstance(p, (Array, np.ndarray))]:
        at = next(i for i, p in enumerate(parts)
                  if not isinstance(p, (Array, np.ndarray)) and p is Ellipsis)
        parts = parts[:at] + fill + parts[at + 1:]
    else:
        parts = parts + fill
    per_axis = []                            # one part per axis of `a`
    for p in parts:
        if _is_mask(p):
            _check_mask_shape(a, p, len(per_axis))
            per_axis.extend(nonzero(p) if isinstance(p, Array) else np.nonzero(p))
        elif isinstance(p, (slice, Array, np.ndarray)) or isinstance(p, (int, np.integer)):
            per_axis.append(p)
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                             "(`None`) and integer or boolean arrays are valid indices")
    indexed = [i for i, p in enumerate(per_axis) if not isinstance(p, slice)]
    for i in indexed:
        dtype = per_axis[i].dtype if isinstance(per_axis[i], (Array, np.ndarray)) else None
        if dtype is not None and dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type, "
                             f"got {dtype}")
    view = a[tuple(p if isinstance(p, slice) else slice(None) for p in per_axis)]
    if side_by_side:
        axis = indexed[0]
    else:                                    # separated: NumPy puts the indexed axes first
        view = view.transpose(indexed + [i for i in range(a.ndim) if i not in indexed])
        axis = 0
    index = [per_axis[i] for i in indexed]
    shapes = [tuple(np.shape(i)) if not isinstance(i, Array) else i.shape for i in index]
    try:
        ishape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                         "with shapes " + " ".join(str(sh) for sh in shapes) + " ") from None
    dims = view.shape[axis:axis + len(index)]
    flat = _flat_index(a.ctx, index, dims, indexed, ishape)
    return view, axis, len(index), flat, ishape


def _host_index(p) -> np.ndarray:
    """A host index as an array; an empty one that is no mask (a `[]`, float64 to NumPy)
    as integers."""
    host = np.asarray(p)
    return host.astype(np.intp) if host.size == 0 and host.dtype.kind != "b" else host


def _flat_index(ctx, index, dims, axes, ishape) -> Array:
    """The row-major flat positions (1-d, contiguous, on the device) that the broadcast
    index arrays `index` name in axes of sizes `dims`; an index out of range raises NumPy's
    IndexError (indices on the device: after one wait for their check)."""
    intp = _intp(ctx)
    strides = [math.prod(dims[i + 1:]) for i in range(len(dims))]
    if not any(isinstance(i, Array) for i in index):
        flat = np.zeros(ishape, np.int64)
        for i, n, axis, stride in zip(index, dims, axes, strides):
            h = np.asarray(i).astype(np.int64)
            _check_bounds(h, n, axis)
            flat = flat + np.where(h < 0, h + n, h) * stride
        return ctx.asarray(np.ascontiguousarray(flat.reshape(-1)).astype(intp))
    from . import reduction as reductions
    from .ufunc import where
    flat, bad = None, None
    for i, n, stride in zip(index, dims, strides):
        d = (i if isinstance(i, Array) else ctx.asarray(np.asarray(i))).astype(intp, copy=False)
        hit = reductions.any((d < -n) | (d >= n))         # 0-d, on the device
        bad = hit if bad is None else bad | hit
        term = where(d < 0, d + n, d) * stride
        flat = term if flat is None else flat + term
    if bool(bad):                                 # waits for the device, once
        for i, n, axis in zip(index, dims, axes):
            _check_bounds(i.numpy() if isinstance(i, Array) else np.asarray(i), n, axis)
    full = Array(ctx, tuple(ishape), intp)
    assign(flat, full)                     # broadcast to the index shape
    return full.reshape(-1)


# ---- x[key] --------------------------------------------------------------------------------
def getitem(a: Array, key) -> Array:
    if not _single(key):
        view, axis, count, flat, ishape = _several(a, key)
        src = view if view._contiguous else view.copy()
        return _gather(_merge(src, axis, count), axis, flat, ishape, True)
    view, axis, k = _split(a, key)
    flat, ishape, checked = _as_indices(a.ctx, k, view.shape[axis] if axis < view.ndim else 0,
                                        axis)
    if flat is None:                                  # a mask: its True positions
        flat, covered = _mask_positions(view, k, axis)
        view, ishape, checked = _merge(view, axis, covered), (flat.size,), True
    return _gather(view, axis, flat, ishape, checked)


def _gather(view: Array, axis: int, flat: Array, ishape, checked: bool) -> Array:
    """view gathered along `axis` at the 1-d device indices `flat` (shaped `ishape` in the
    result); unless `checked`, an index out of range raises NumPy's IndexError (a wait)."""
    src, _ = _pnq(view, axis)
    out = Array(view.ctx, (src.shape[0], flat.size, src.shape[2]), view.dtype)
    err = _error_record(view.ctx, np.int64 if flat.dtype.itemsize == 8 else np.int32,
                        checked)
    if out.size:
        _move[groups_for(out.size), LOCAL](src, flat, out, err, np.int32(0))
        if not checked:
            _check_err(err, view.shape[axis], axis)
    return out.reshape(view.shape[:axis] + tuple(ishape) + view.shape[axis + 1:])


def take_within(a: Array, idx: Array) -> Array:
    """a[idx] along a's first axis for device indices the caller computed within range
    (a search result, a compaction's positions): no bounds record to read, so no wait."""
    flat = idx.reshape(-1) if idx._contiguous else idx.copy().reshape(-1)
    return _gather(a, 0, flat, idx.shape, True)


# ---- x[key] = value ------------------------------------------------------------------------
def setitem(a: Array, key, value) -> None:
    if not _single(key):
        view, axis, count, flat, ishape = _several(a, key)
        dst = view if view._contiguous else view.copy()
        _scatter(a, _merge(dst, axis, count), axis, flat, ishape, True, value)
        if dst is not view:               # the view was not contiguous: write the copy back
            view[...] = dst
        return
    view, axis, k = _split(a, key)
    is_mask = (k.dtype.kind == "b") if isinstance(k, Array) else np.asarray(k).dtype.kind == "b"
    if is_mask and _is_scalar(value):
        _masked_fill(view, axis, k, value)
        return
    flat, ishape, checked = _as_indices(a.ctx, k, view.shape[axis], axis)
    if flat is None:
        flat, covered = _mask_positions(view, k, axis)
        view, ishape, checked = _merge(view, axis, covered), (flat.size,), True
    _scatter(a, view, axis, flat, ishape, checked, value)


def _scatter(a: Array, view: Array, axis: int, flat: Array, ishape, checked: bool,
             value) -> None:
    """view[..., flat, ...] = value along `axis` (value broadcast to the indexing result)."""
    dst, in_place = _pnq(view, axis)
    shape = (dst.shape[0], flat.size, dst.shape[2])
    target = view.shape[:axis] + tuple(ishape) + view.shape[axis + 1:]
    values = broadcast_values(a, value, target).reshape(shape)
    err = _error_record(a.ctx, np.int64 if flat.dtype.itemsize == 8 else np.int32, checked)
    if values.size:
        _move[groups_for(values.size), LOCAL](dst, flat, values, err, np.int32(1))
        if not checked:
            _check_err(err, view.shape[axis], axis)
    if not in_place:                      # the view was not contiguous: write the copy back
        view[...] = dst.reshape(view.shape)


def _is_scalar(value) -> bool:
    return value.ndim == 0 if isinstance(value, Array) else np.ndim(value) == 0


def _masked_fill(view: Array, axis: int, mask, value) -> None:
    """view[..., mask, ...] = scalar: one element-wise select in place (no compaction)."""
    from .ufunc import _select
    m = mask if isinstance(mask, Array) else view.ctx.asarray(np.asarray(mask))
    _check_mask_shape(view, m, axis)
    cond = m.reshape((1,) * axis + m.shape + (1,) * (view.ndim - axis - m.ndim))
    value = value.numpy()[()] if isinstance(value, Array) else value
    # NumPy's assignment casting: the value converts to the array's dtype first
    cast = np.empty((), view.dtype)
    cast[()] = value
    _select(cond, cast, view, view, "setitem")


def _check_mask_shape(view: Array, m, axis: int) -> None:
    """A mask covers axes `axis`, `axis + 1`, ... of the view with their exact sizes."""
    if m.ndim == 0 or tuple(m.shape) != tuple(view.shape[axis:axis + m.ndim]):
        for i, (have, want) in enumerate(zip(m.shape, view.shape[axis:])):
            if have != want:
                raise IndexError(f"boolean index did not match indexed array along axis "
                                 f"{axis + i}; size of axis is {want} but size of "
                                 f"corresponding boolean axis is {have}")
        raise IndexError(f"too many boolean indices: a {m.ndim}-d mask on the "
                         f"{view.ndim - axis} axes from axis {axis} on")


def broadcast_values(a: Array, value, shape) -> Array:
    """`value` as a contiguous device array of `shape` and a's dtype, broadcast as NumPy
    broadcasts an assigned value (converted as NumPy's assignment converts)."""
    if isinstance(value, Array):
        if value.ctx is not a.ctx:
            raise ValueError("the assigned array lives on another Context than the array")
        if tuple(value.shape) == tuple(shape) and value.dtype == a.dtype and value._contiguous:
            return value
        try:
            np.broadcast_shapes(value.shape, shape)
        except ValueError:
            raise ValueError(f"shape mismatch: value array of shape {value.shape} could not "
                             f"be broadcast to indexing result of shape {tuple(shape)}") from None
        out = Array(a.ctx, tuple(shape), a.dtype)
        assign(value, out)             # broadcast and converted on the device
        return out
    host = np.asarray(value)
    try:
        full = np.empty(shape, a.dtype)
        full[...] = host
    except ValueError:
        raise ValueError(f"shape mismatch: value array of shape {host.shape} could not be "
                         f"broadcast to indexing result of shape {tuple(shape)}") from None
    return a.ctx.asarray(full)


# ---- the compaction and what is built on it -----------------------------------------------
def flatnonzero(a) -> Array:
    """The flat positions of the nonzero elements (np.flatnonzero), int64 (int32 where the
    device has no 64-bit integers), on the device."""
    from ..linalg import _product as linalg
    if not isinstance(a, Array):
        return np.flatnonzero(a)
    flags = a.reshape(-1) if a.dtype.kind == "b" else (a != 0).reshape(-1)
    if not flags._contiguous:
        flags = flags.copy()
    intp = _intp(a.ctx)
    if flags.size == 0:
        return Array(a.ctx, (0,), intp)
    running = linalg.cumsum(flags).astype(intp, copy=False)
    count = int(running[flags.size - 1])              # waits for the device, once
    out = Array(a.ctx, (count,), intp)
    if count:
        _compact[groups_for(flags.size), LOCAL](flags, running, out)
    return out


def nonzero(a) -> tuple:
    """np.nonzero: a tuple of index arrays, one per axis, on the device."""
    if not isinstance(a, Array):
        return np.nonzero(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d("
                         "scalar).nonzero() instead.")
    flat = flatnonzero(a)
    out, stride = [], a.size
    for n in a.shape:
        stride //= max(n, 1)
        out.append((flat // stride) % n if a.ndim > 1 else flat)
    return tuple(out)


def argwhere(a) -> Array:
    """np.argwhere: (count, ndim) indices of the nonzero elements, on the device."""
    if not isinstance(a, Array):
        return np.argwhere(a)
    parts = nonzero(a) if a.ndim else ()
    count = parts[0].size if parts else int(bool(a.numpy()))
    out = Array(a.ctx, (count, a.ndim), parts[0].dtype if parts else _intp(a.ctx))
    for i, p in enumerate(parts):
        out[:, i] = p
    return out


def count_nonzero(a, axis=None, *, keepdims=False):
    """np.count_nonzero: of the whole array a Python int, along axes an int64 array."""
    from . import reduction as reductions
    if not isinstance(a, Array):
        return np.count_nonzero(a, axis=axis, keepdims=keepdims)
    counted = reductions.sum(a != 0 if a.dtype.kind != "b" else a, axis=axis,
                             keepdims=keepdims)
    if axis is None and not keepdims:
        return int(counted)
    return counted.astype(np.intp) if isinstance(counted, Array) else counted
