"""The methods of NumPy's ufuncs on device arrays: `np.add.reduce`, `np.add.accumulate`,
`np.multiply.outer`, `np.add.at`, ...

reduce is the reduction of the same meaning (vkpersist/_core/reduction.py: `np.add.reduce` is
`np.sum` with the ufunc's default axis 0), accumulate of `add` is `np.cumsum` and of
`multiply` `np.cumprod`, and outer is
the ufunc on the operands broadcast against each other (`a[..., None, None] op b`), so
each keeps the accuracy and speed of what it is built on. The ufuncs a method has no
device form for are refused by name, with the ones it has.

`at` is the unbuffered in-place update, CUDA's scatter-add: `np.add.at(a, idx, v)` adds
every v to a[idx] even where idx repeats (`a[idx] += v` adds once per distinct index, as
NumPy). It is an atomic addition (subtract: of the negated values; maximum/minimum: the
atomic max/min, integers only) at each element's flat position, which comes from
gathering an index array the shape of `a` with the same key, so every key that `a[key]`
takes works. Float additions land in the device's order (within a few ulp of NumPy's
sequential sums where several hit one element).
"""
from __future__ import annotations

import numpy as np

from .ufunc import UFUNC_METHODS
from .elementwise import LOCAL, groups_for
from .._kernel import kernel
from ..lang.builtins import atomic, global_id, global_size
from ..vk.array import Array


# ufunc -> the reduction it means (reduce) and its identity for empty arrays
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
           "logical_and": "all", "logical_or": "any"}


@kernel
def atomic_update(target, positions, values, op):
    # target[positions[g]] op= values[g], atomically: 0 add, 1 max, 2 min
    g = global_id(0)
    while g < positions.shape[0]:
        if op == 0:
            atomic.add(target, positions[g], values[g])
        elif op == 1:
            atomic.max(target, positions[g], values[g])
        else:
            atomic.min(target, positions[g], values[g])
        g += global_size(0)


_AT = {"add": 0, "subtract": 0, "maximum": 1, "minimum": 2}     # the op of atomic_update


def _refuse(name: str, method: str, table) -> None:
    raise TypeError(f"numpy.{name}.{method} has no device implementation for vkpersist "
                    f"arrays; on the device: {', '.join(f'np.{n}.{method}' for n in table)}")


def reduce(ufunc, a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    name = ufunc.__name__
    from . import reduction as reductions
    if name not in _REDUCE:
        _refuse(name, "reduce", _REDUCE)
    if initial is not None or where is not True:
        raise TypeError(f"np.{name}.reduce: initial= and where= are not supported on "
                        "vkpersist arrays")
    fn = getattr(reductions, _REDUCE[name])
    kwargs = {"axis": axis, "out": out, "keepdims": keepdims}
    if name in ("add", "multiply"):
        kwargs["dtype"] = dtype
    elif dtype is not None:
        raise TypeError(f"np.{name}.reduce(dtype=) is not supported on vkpersist arrays")
    return fn(a, **kwargs)


def accumulate(ufunc, a, axis=0, dtype=None, out=None):
    name = ufunc.__name__
    from ..linalg import _product as linalg
    scans = {"add": linalg.cumsum, "multiply": linalg.cumprod}
    if name not in scans:
        _refuse(name, "accumulate", scans)
    return scans[name](a, axis=axis, dtype=dtype, out=out)


def outer(ufunc, a, b, **kwargs):
    """ufunc(a[..., None, ...], b): every pair, shape a.shape + b.shape."""
    b_nd = b.ndim if isinstance(b, Array) else np.ndim(b)
    a = a if isinstance(a, Array) else np.asarray(a)
    return ufunc(a[(Ellipsis,) + (None,) * b_nd], b, **kwargs)


def at(ufunc, a, indices, b=None):
    """np.<ufunc>.at(a, indices, b): unbuffered, every repeated index counts."""
    name = ufunc.__name__
    if name not in _AT:
        _refuse(name, "at", _AT)
    if not isinstance(a, Array):
        raise TypeError(f"np.{name}.at into a NumPy array with device operands: make the "
                        "target a device array")
    if b is None:
        raise TypeError(f"np.{name}.at needs the values (the third argument)")
    if name in ("maximum", "minimum") and a.dtype.kind not in "iu":
        raise TypeError(f"np.{name}.at on {a.dtype} arrays is not supported on the device "
                        "(atomic max/min of integers only); np.add.at works on floats")
    if a.dtype.kind in "bc" or a.dtype.itemsize < 4:
        raise TypeError(f"np.{name}.at on {a.dtype} arrays is not supported on the device: "
                        "atomics need 32- or 64-bit elements")
    from .indexing import broadcast_values
    positions = _flat_index(a)[indices]              # any key a[key] takes
    if name == "subtract":
        b = -b if isinstance(b, Array) else -np.asarray(b)
    values = broadcast_values(a, b, positions.shape)
    target = a if a._contiguous else a.copy()
    flat = target.reshape(-1)
    pos = positions.reshape(-1)
    if pos.size:
        atomic_update[groups_for(pos.size), LOCAL](flat, pos, values.reshape(-1),
                                                   np.int32(_AT[name]))
    if target is not a:
        a[...] = target


def _flat_index(a: Array) -> Array:
    """0, 1, ... a.size - 1 in a's shape, written on a's device (no upload): gathered with a
    key, the flat positions of the elements a[key] names."""
    from .._sorting.sort import iota
    table = Array(a.ctx, (1, a.size), np.int64 if a.ctx.info.int64 else np.int32)
    iota[groups_for(a.size), LOCAL](table)
    return table.reshape(a.shape)


UFUNC_METHODS.update(reduce=reduce, accumulate=accumulate, outer=outer, at=at)
