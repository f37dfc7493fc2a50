"""The array layer's machinery, below its NumPy chapters: element-wise expression trees
and their generated kernels (elementwise, recipe, ufunc and its tables, fusion, vectorize,
gufunc), copies, index arrays, the reduction kernels, and how `np.f(dx)` finds its
implementation (dispatch).

The runtime's `Array` (vk/array.py) and the kernel builtins (lang/builtins.py) sit below
this layer and cannot import it; `install` is the one place that gives them their NumPy
behaviour.
"""
from __future__ import annotations

import types

from . import copies, dispatch, indexing, ufunc
from ..lang import builtins as B
from ..vk.array import Array, NumPyBehaviour


def install(package: types.ModuleType) -> None:
    """Give device arrays NumPy's behaviour and the kernel builtins their meaning on
    arrays; `package` is the namespace NumPy's functions are looked up in by name."""
    Array._numpy = NumPyBehaviour(
        function=dispatch.Functions(package), ufunc=ufunc.array_ufunc,
        kernel_copy=copies.kernel_copy, assign=copies.assign,
        indexing=types.SimpleNamespace(is_advanced=indexing.is_advanced,
                                       get=indexing.getitem, set=indexing.setitem))
    B.Builtin.host_call = staticmethod(ufunc.host_call)
