"""Basic indexing of N-d arrays as NumPy does it, on (shape, strides, offset) alone: what
`a[key]`, `a.T`, `a.transpose(...)` and `a.reshape(...)` make of an array's layout. Strides
and offsets count elements, not bytes (kernels index elements). Nothing here touches
memory, so device arrays get views without a copy.

Advanced indexing (integer arrays, boolean masks) gathers, which is a kernel, not a view:
vkpersist/_core/indexing.py does it above this layer (Array._numpy); without it (this
layer alone) such keys are refused with the way to do it instead.
"""
from __future__ import annotations

import math
import operator

import numpy as np


def c_strides(shape) -> tuple[int, ...]:
    """Row-major element strides of `shape`."""
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def is_c_contiguous(shape, strides) -> bool:
    """Whether elements lie row-major without gaps (axes of length 1 may have any stride)."""
    if math.prod(shape) == 0:
        return True
    step = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != step:
            return False
        step *= n
    return True


def span(shape, strides, offset) -> tuple[int, int]:
    """[lo, hi): the smallest element range of the buffer that holds every element."""
    if math.prod(shape) == 0:
        return offset, offset
    lo = offset + sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
    hi = offset + sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) + 1
    return lo, hi


def _refuse_advanced(item):
    raise IndexError(
        f"vkpersist arrays take basic indices only (integers, slices, ..., None); got "
        f"{type(item).__name__} {item!r}, which NumPy reads as advanced indexing (a gather or "
        "a boolean mask). Take a host copy with np.asarray(a)[...], or select on the device "
        "with vkp.where")


def index(shape, strides, offset, key):
    """(shape, strides, offset) of `a[key]` for a basic-indexing `key`, with NumPy's errors."""
    key = key if isinstance(key, tuple) else (key,)
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    named = sum(k is not None and k is not Ellipsis for k in key)
    if named > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {named} were indexed")
    out_shape, out_strides = [], []
    axis = 0
    for k in key:
        if k is Ellipsis:
            for _ in range(len(shape) - named):
                out_shape.append(shape[axis])
                out_strides.append(strides[axis])
                axis += 1
        elif k is None:
            out_shape.append(1)
            out_strides.append(0)
        elif isinstance(k, slice):
            start, stop, step = k.indices(shape[axis])
            n = len(range(start, stop, step))
            if n:
                offset += start * strides[axis]
            out_shape.append(n)
            out_strides.append(strides[axis] * step)
            axis += 1
        elif isinstance(k, (bool, np.bool_)) or isinstance(k, (list, np.ndarray)) \
                or hasattr(k, "__array__") or hasattr(k, "shape"):
            _refuse_advanced(k)
        else:
            try:
                i = operator.index(k)
            except TypeError:
                raise IndexError("only integers, slices (`:`), ellipsis (`...`) and "
                                 f"numpy.newaxis (`None`) are valid indices, got {k!r}") from None
            n = shape[axis]
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            offset += (i % n) * strides[axis]
            axis += 1
    out_shape += shape[axis:]
    out_strides += strides[axis:]
    return tuple(out_shape), tuple(out_strides), offset


def transpose(shape, strides, axes):
    """(shape, strides) with the axes permuted: `axes` empty means reversed, as NumPy."""
    n = len(shape)
    if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
        axes = tuple(axes[0])
    if not axes:
        axes = tuple(range(n - 1, -1, -1))
    try:
        axes = tuple(operator.index(a) for a in axes)
    except TypeError:
        raise TypeError(f"transpose() takes integer axes, got {axes!r}") from None
    norm = []
    for a in axes:
        if not -n <= a < n:
            raise np.exceptions.AxisError(a, n)
        norm.append(a % n)
    if sorted(norm) != list(range(n)):
        raise ValueError("axes don't match array" if len(norm) != n
                         else f"repeated axis in transpose: {tuple(axes)}")
    return tuple(shape[a] for a in norm), tuple(strides[a] for a in norm)


MAXDIMS = 64           # NumPy's NPY_MAXDIMS (NumPy 2)


def reshape_shape(size: int, shape) -> tuple[int, ...]:
    """The new shape (one -1 inferred) with NumPy's errors."""
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = tuple(shape[0])
    if len(shape) > MAXDIMS:
        raise ValueError(f"maximum supported dimension for an ndarray is currently "
                         f"{MAXDIMS}, found {len(shape)} (NumPy's limit)")
    try:
        shape = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"reshape() takes integers, got {shape!r}") from None
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    if any(n < -1 for n in shape):
        raise ValueError(f"negative dimensions not allowed in reshape, got {shape}")
    known = math.prod(n for n in shape if n != -1)
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape "
                             f"{_shape_text(shape)}")
        shape = tuple(size // known if n == -1 else n for n in shape)
    if math.prod(shape) != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {_shape_text(shape)}")
    return shape


def _shape_text(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
