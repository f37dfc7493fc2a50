"""Copies on the device: a strided view made contiguous and dtype conversions through a
kernel (`Array.copy()`, `Array.astype()`, `Array.reshape()` of a view that is not
contiguous), and `dst[...] = src` between any layouts, broadcast and converted
(`Array.copy_from`, slice assignment, np.copyto). The runtime layer below (vk/array.py)
cannot compile kernels; vkpersist/_core's install() gives it these.

The kernels are ordinary vkpersist kernels, specialised per dtype pair and per layout
like any other: the source takes the view through its strides, the store converts as the
kernel language does on assignment, which is NumPy's astype for every supported pair
(float to int truncates toward zero, to bool is `!= 0`). A grid-stride loop covers any
size with at most 65,535 workgroups.
"""
from __future__ import annotations

import numpy as np

from .elementwise import LOCAL, bindable_parts, groups_for
from .ufunc import run
from .._kernel import kernel
from ..lang.builtins import global_id, global_size
from ..vk.array import Array



@kernel
def _copy1(src, dst):
    g = global_id(0)
    while g < dst.shape[0]:
        dst[g] = src[g]
        g += global_size(0)


@kernel
def _copy2(src, dst):
    g = global_id(0)
    n1 = dst.shape[1]
    while g < dst.shape[0] * n1:
        i = g // n1
        j = g - i * n1
        dst[i, j] = src[i, j]
        g += global_size(0)


@kernel
def _copy3(src, dst):
    g = global_id(0)
    n1 = dst.shape[1]
    n2 = dst.shape[2]
    while g < dst.shape[0] * n1 * n2:
        i = g // (n1 * n2)
        r = g - i * (n1 * n2)
        j = r // n2
        dst[i, j, r - j * n2] = src[i, j, r - j * n2]
        g += global_size(0)


_BY_NDIM = {1: _copy1, 2: _copy2, 3: _copy3}


def kernel_copy(src: Array, dst: Array) -> None:
    """dst[...] = src (same shape, 1-3 axes, dst contiguous; a launch per part that the
    device binds, each fewer than 2**31 elements)."""
    for part in bindable_parts([src, dst]):
        _BY_NDIM[src.ndim][groups_for(part[0].size), LOCAL](*part)


def converted(src, dtype: np.dtype, casting: str):
    """`src` (a device array, NumPy data or a number) in `dtype`, if `casting` allows it,
    with NumPy's TypeError otherwise."""
    have = src.dtype if isinstance(src, (Array, np.ndarray)) else np.asarray(src).dtype
    if have == dtype:
        return src
    if not np.can_cast(have, dtype, casting):
        raise TypeError(f"Cannot cast array data from dtype('{have}') to "
                        f"dtype('{dtype}') according to the rule '{casting}'")
    return src.astype(dtype) if isinstance(src, Array) else np.asarray(src).astype(dtype)


def assign(src, dst: Array, casting: str = "unsafe") -> None:
    """dst[...] = src on the device: broadcast, converted with `casting` (assignment is
    NumPy's unsafe casting; np.copyto's default is same_kind)."""
    run("copy", lambda x: x, (converted(src, dst.dtype, casting),), dst, "copy")
