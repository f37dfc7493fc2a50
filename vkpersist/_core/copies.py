"""Device-side copies that need a kernel: a strided view made contiguous, and dtype
conversions (`Array.copy()`, `Array.astype()`, `Array.reshape()` of a view that is not
contiguous). The runtime layer below (vk/array.py) cannot compile kernels, so this module
installs itself as its `Array._kernel_copy`.

The kernels are ordinary vkpersist kernels, specialised per dtype pair and per layout
like any other: the source takes the view through its strides, the store converts as the
kernel language does on assignment, which is NumPy's astype for every supported pair
(float to int truncates toward zero, to bool is `!= 0`). A grid-stride loop covers any
size with at most 65,535 workgroups.
"""
from __future__ import annotations

from .elementwise import LOCAL, bindable_parts, groups_for
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


Array._kernel_copy = staticmethod(kernel_copy)
