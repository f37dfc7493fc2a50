"""Sorting and searching on device arrays: `np.sort`, `np.argsort`, `np.searchsorted`,
`np.unique` (and the `x.sort()`, `x.argsort()`, `x.searchsorted()` methods).

Sorting is a bitonic network (Batcher): log2(m)(log2(m)+1)/2 passes of compare-exchange over
the rows, m the row length rounded up to a power of two, every pass one kernel launch of
m/2 comparators per row, all passes in one submission (`ctx.batched`). It was chosen for
what it guarantees, not for speed: it runs on every Vulkan device without subgroup or
shared-memory assumptions, its launch count depends only on the size, and comparing
(key, original index) pairs makes it stable, so `np.sort` and `np.argsort` give NumPy's
`kind="stable"` answer for every `kind` (NumPy's own quicksort gives the same sorted values;
its argsort may order equal keys differently, which NumPy does not specify). NaNs go last,
as NumPy sorts them. The rows are padded to m with slots that compare greater than
everything (their index says so), so any length sorts.

Long single rows of 32-bit keys (1-d float32, int32, uint32 arrays of RADIX_MIN elements
or more) take a stable radix sort instead (_radix_sort.py), same results; the network's
launch count is ~210 for a million elements, the radix sort's 34 for any size.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from . import radix as _radix
from .._core.elementwise import LOCAL, groups_for
from .._kernel import kernel
from .._manipulation import device_operand
from ..lang.builtins import global_id, global_size, isnan
from ..vk.array import Array



@kernel
def _bitonic_pass(keys, idx, n, k, j):
    # one pass of the network: the pairs (i, i + j) with bit j of i clear; ascending where
    # bit k of i is clear. Padded slots (idx >= n) and NaNs are greater than the rest, ties
    # are ordered by original index (stability).
    g = global_id(0)
    half = keys.shape[1] // 2
    while g < keys.shape[0] * half:
        p = g // half
        t = g - p * half
        i = (t // j) * (2 * j) + (t - (t // j) * j)
        m = i + j
        ka = keys[p, i]
        kb = keys[p, m]
        ia = idx[p, i]
        ib = idx[p, m]
        greater = False
        if ia >= n or ib >= n:
            greater = ia > ib
        elif isnan(ka) or isnan(kb):
            if isnan(ka) and isnan(kb):
                greater = ia > ib
            else:
                greater = isnan(ka)
        elif ka != kb:
            greater = ka > kb
        else:
            greater = ia > ib
        if greater == ((i & k) == 0):
            keys[p, i] = kb
            keys[p, m] = ka
            idx[p, i] = ib
            idx[p, m] = ia
        g += global_size(0)


@kernel
def iota(idx):
    # idx[p, j] = j: each row counts 0, 1, ... (the original positions a sort carries)
    g = global_id(0)
    while g < idx.shape[0] * idx.shape[1]:
        p = g // idx.shape[1]
        idx[p, g - p * idx.shape[1]] = g - p * idx.shape[1]
        g += global_size(0)


@kernel
def _search(a, v, out, right):
    # out[i] = the insertion point of v[i] in the sorted a (NaN last): the first position
    # whose element is not below v[i] (right: is above v[i])
    g = global_id(0)
    n = a.shape[0]
    while g < v.shape[0]:
        x = v[g]
        lo = 0
        hi = n
        while lo < hi:
            mid = (lo + hi) // 2
            e = a[mid]
            go_right = False
            if right == 0:
                go_right = e < x or (isnan(x) and not isnan(e))
            else:
                go_right = not (x < e or (isnan(e) and not isnan(x)))
            if go_right:
                lo = mid + 1
            else:
                hi = mid
        out[g] = lo
        g += global_size(0)



def _key_dtype(dtype: np.dtype, what: str) -> np.dtype:
    if dtype.kind == "c":
        raise TypeError(f"vkpersist: {what} of {dtype} arrays is not supported (NumPy's "
                        "lexicographic order of complex numbers has no kernel here)")
    if dtype.kind == "b":
        return np.dtype(np.uint8)
    if dtype == np.float16:
        return np.dtype(np.float32)
    return dtype


def _sorted_rows(a: Array, axis: int, what: str, values: bool = True, indices: bool = True):
    """(keys, indices) of `a` sorted along `axis`, both (P, n), and the shape of `a` with
    `axis` moved last. A long single row of 32-bit keys takes the radix sort
    (_radix_sort.py), which gives keys only when `values` asks for them, and indices only
    when `indices` does."""
    keyt = _key_dtype(a.dtype, what)
    moved = np.moveaxis(a, axis, -1)
    n = moved.shape[-1]
    rows = int(np.prod(moved.shape[:-1], dtype=np.int64))
    if _radix.applies(a.ctx.info, keyt, rows, n) and keyt == a.dtype:
        row = moved.reshape(n)
        keys, idx = _radix.sort_row(row if row._plain else row.copy(), values, indices)
        return keys, idx, moved.shape
    m = 1 << max(0, (n - 1).bit_length())
    keys = Array(a.ctx, (rows, m), keyt)
    idx = Array(a.ctx, (rows, m), np.int32)
    ctx = a.ctx
    keys[:, :n] = moved.reshape(rows, n) if n else 0
    with ctx.batched():
        iota[groups_for(rows * m), LOCAL](idx)
        k = 2
        while k <= m:
            j = k // 2
            while j >= 1:
                _bitonic_pass[groups_for(rows * m // 2), LOCAL](
                    keys, idx, np.int32(n), np.int32(k), np.int32(j))
                j //= 2
            k *= 2
    return keys[:, :n], idx[:, :n], moved.shape


def _finish(rows: Array, shape, axis: int, dtype) -> Array:
    out = rows.reshape(shape)
    own = dtype is not None and out.dtype != dtype      # astype makes a new array
    if own:
        out = out.astype(dtype)
    if axis != len(shape) - 1:
        return np.moveaxis(out, -1, axis).copy()
    return out if own else out.copy()


def _axis(a: Array, axis):
    if axis is None:
        return a.reshape(-1), 0
    return a, normalize_axis_index(axis, a.ndim)


def _check_kind(kind, what):
    if kind not in (None, "quicksort", "mergesort", "heapsort", "stable"):
        raise ValueError(f"{what}: kind must be one of 'quicksort', 'mergesort', 'heapsort', "
                         f"'stable', got {kind!r}")


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """np.sort on the device: stable whatever `kind` says (module docstring)."""
    _check_kind(kind, "sort")
    if order is not None:
        raise ValueError("np.sort(order=...) is for structured arrays, which vkpersist "
                         "does not have")
    a, axis = _axis(a, axis)
    if a.ndim == 0:
        raise np.exceptions.AxisError(axis, 0)
    keys, _, shape = _sorted_rows(a, axis, "sort", indices=False)
    return _finish(keys, shape, axis, a.dtype)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """np.argsort on the device (int64 indices): stable whatever `kind` says."""
    _check_kind(kind, "argsort")
    if order is not None:
        raise ValueError("np.argsort(order=...) is for structured arrays, which vkpersist "
                         "does not have")
    a, axis = _axis(a, axis)
    _, idx, shape = _sorted_rows(a, axis, "argsort", values=False)
    return _finish(idx, shape, axis, np.dtype(np.int64) if a.ctx.info.int64 else None)


def searchsorted(a, v, side="left", sorter=None):
    """np.searchsorted: insertion points of `v` in the sorted 1-d `a` (NaN last), int64."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    if not isinstance(a, Array):
        raise TypeError("np.searchsorted with a NumPy array to search and device values: "
                        "make the sorted array a device array (ctx.asarray)")
    if a.ndim != 1:
        raise ValueError("object too deep for desired array" if a.ndim > 1 else
                         "object of too small depth for desired array")
    if sorter is not None:
        a = a[_checked_sorter(sorter, a.size)]
    vv = device_operand(a.ctx, v, "np.searchsorted")
    common = _key_dtype(np.result_type(a.dtype, vv.dtype), "searchsorted")
    sa = a.astype(common, copy=False)
    flat = vv.reshape(-1).astype(common, copy=False)
    out = Array(a.ctx, flat.shape, np.int64 if a.ctx.info.int64 else np.int32)
    if flat.size:
        _search[groups_for(flat.size), LOCAL](sa, flat, out, np.int32(side == "right"))
    return out.reshape(vv.shape) if vv.ndim else out.reshape(())


def _checked_sorter(sorter, n: int):
    """searchsorted's `sorter` refused as NumPy refuses it: a 1-d integer array of a's
    length whose indices are in [0, n) (a shorter one searched a prefix; -1 wrapped)."""
    s = sorter if isinstance(sorter, Array) else np.asarray(sorter)
    if s.ndim != 1:
        raise TypeError(f"could not parse sorter argument: searchsorted's sorter must be a "
                        f"1-d array of indices, got {s.ndim} dimension(s)")
    if s.dtype.kind not in "iu":
        raise TypeError(f"sorter must only contain integers (got {s.dtype})")
    if s.size != n:
        raise ValueError(f"sorter.size must equal a.size ({s.size} != {n})")
    if n and bool(np.any((s < 0) | (s >= n))):
        raise ValueError(f"Sorter index out of range: the indices must be in [0, {n})")
    return s


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, sorted=True):
    """np.unique of the flattened array (axis=None) on the device, with NumPy's optional
    results; NaNs collapse into one (equal_nan=True, NumPy's default)."""
    from .._core.indexing import flatnonzero, take_within
    if axis is not None:
        raise TypeError("np.unique(axis=...) is not supported on vkpersist arrays; only the "
                        "flattened array (axis=None)")
    flat = ar.reshape(-1)
    n = flat.size
    if return_index or return_inverse:           # the values and their order: one sort
        keys, idx, shape = _sorted_rows(flat, 0, "unique")
        s = _finish(keys, shape, 0, flat.dtype)
        order = _finish(idx, shape, 0, np.dtype(np.int64) if ar.ctx.info.int64 else None)
    else:
        order, s = None, sort(flat)
    if n == 0:
        first = Array(ar.ctx, (0,), np.int64)
    else:
        new = s[1:] != s[:-1]
        if equal_nan and s.dtype.kind in "fc":
            new = new & ~(np.isnan(s[1:]) & np.isnan(s[:-1]))
        head = ar.ctx.asarray(np.ones(1, bool))
        mask = np.concatenate([head, new])
        first = flatnonzero(mask)
    result = [take_within(s, first)]           # a compaction's positions: within range
    if return_index:
        result.append(take_within(order, first))
    if return_inverse:
        inverse = Array(ar.ctx, (n,), np.int64)
        if n:
            from ..linalg._product import cumsum
            inverse[order] = cumsum(mask) - 1
        result.append(inverse.reshape(ar.shape))
    if return_counts:
        bounds = np.concatenate([first, ar.ctx.asarray(np.array([n], np.int64))])
        result.append(np.diff(bounds))
    return result[0] if len(result) == 1 else tuple(result)
