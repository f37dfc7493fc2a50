"""vkpersist.linalg: NumPy's np.linalg on device arrays, its names and its semantics.

    x = vkp.linalg.solve(a, b)           # or np.linalg.solve(a, b) of device arrays
    d = vkp.linalg.det(a)

Products (`matmul`, `outer`) and the norm; LU-based `solve`, `inv`, `det`, `slogdet` for
matrices and stacks of them (vkpersist/linalg/_solve.py says how). vkp.dot, vkp.inner,
vkp.vdot and the scans are in vkp itself, as in NumPy.
"""
import warnings as _warnings

from ._product import matmul, norm, outer
from ._solve import det, inv, slogdet, solve

__all__ = ["det", "inv", "matmul", "norm", "outer", "slogdet", "solve"]

# spellings this namespace had that np.linalg has not: they keep working, with a warning
_MOVED = {"cumsum": "vkp.cumsum", "cumprod": "vkp.cumprod", "dot": "np.dot",
          "inner": "vkp.inner", "vdot": "vkp.vdot"}


def __getattr__(name: str):
    if name in _MOVED:
        from . import _product
        _warnings.warn(f"vkp.linalg.{name} is deprecated: NumPy's np.linalg has no {name}; "
                       f"use {_MOVED[name]}", DeprecationWarning, stacklevel=2)
        return getattr(_product, name)
    raise AttributeError(f"module 'vkpersist.linalg' has no attribute {name!r}; it has "
                         f"{', '.join(__all__)} (as np.linalg)")


def __dir__() -> list[str]:
    return list(__all__)
