"""How `np.f(dx)` finds its device implementation (NEP 18's `__array_function__`): by
NumPy's name, in vkpersist's namespace. `np.sort(dx)` runs `vkp.sort`,
`np.linalg.solve(dx, b)` runs `vkp.linalg.solve`, `np.fft.fft(dx)` runs `vkp.fft.fft`; so a
NumPy function runs on the device exactly when `vkp` has it under the same name, and
adding `vkp.X` is all it takes. A NumPy function vkpersist lacks raises a TypeError that
names it and says to call `np.asarray(dx)` first, instead of copying silently.

Four names belong to the kernel language, whose builtins work inside kernels and on
arrays: `vkp.min`, `vkp.max` (the scalar minimum of their arguments), `vkp.dot` and
`vkp.cross` (of vectors). `np.min(dx)`, `np.max`, `np.dot` and `np.cross` take the array
functions of those meanings (EXCEPTIONS). NumPy's creation functions called with `like=dx`
make their array on dx's Context, with NumPy's default dtype (float64, where vkp.zeros
and its kin default to float32).
"""
from __future__ import annotations

import types

import numpy as np

from ..lang.builtins import Builtin

# np.<name> whose vkp.<name> is a kernel builtin of another meaning -> where the array
# function is, as (module path under vkpersist, name)
EXCEPTIONS = {"min": ("_core.reduction", "min"), "max": ("_core.reduction", "max"),
              "dot": ("linalg._product", "dot"), "cross": ("_math.calculus", "cross")}
# NumPy's namespaces that have a vkpersist counterpart of the same shape
NAMESPACES = {"numpy": "", "numpy.linalg": "linalg", "numpy.fft": "fft"}
# creation functions NumPy dispatches through like= (NEP 35): made on the like array's
# Context; those whose dtype NumPy defaults to float64 -> the position of their dtype
LIKE = frozenset({"arange", "asarray", "empty", "eye", "full", "identity", "ones", "zeros"})
FLOAT64_DEFAULT = {"empty": 1, "eye": 3, "identity": 1, "ones": 1, "zeros": 1}


def _like(impl, name: str, ctx):
    """`impl` as NumPy's `name(..., like=array)`: on the array's Context, NumPy's dtype."""
    def made(*args, **kwargs):
        order, device = kwargs.pop("order", "C"), kwargs.pop("device", None)
        if order not in ("C", "K", "A", None) or device not in (None, "cpu"):
            raise TypeError(f"np.{name}(like=<vkpersist array>): order={order!r}, "
                            f"device={device!r} are not supported; device arrays are "
                            "C-ordered and on the like array's Context")
        if name in FLOAT64_DEFAULT and len(args) <= FLOAT64_DEFAULT[name] \
                and "dtype" not in kwargs:
            kwargs["dtype"] = np.float64
        return impl(*args, ctx=ctx, **kwargs)
    return made


class Functions:
    """NumPy function -> device implementation, looked up by name once and kept."""

    def __init__(self, package: types.ModuleType):
        self.package = package
        self.found: dict = {}

    def _lookup(self, func):
        name = getattr(func, "__name__", None)
        where = NAMESPACES.get(getattr(func, "__module__", None))
        if name is None or where is None or name.startswith("_"):
            return None
        if where == "" and name in EXCEPTIONS:
            module, attr = EXCEPTIONS[name]
            namespace = self.package
            for part in module.split("."):
                namespace = getattr(namespace, part)
            return getattr(namespace, attr)
        namespace = self.package if where == "" else getattr(self.package, where)
        # vars(), not getattr(): a deprecated spelling (a module __getattr__) is not a match
        impl = vars(namespace).get(name)
        if isinstance(impl, (type, types.ModuleType, Builtin)) or not callable(impl):
            return None     # a class, a module, a kernel builtin: not NumPy's function
        return impl

    def __call__(self, func, array):
        """The implementation of `func` for a call that dispatched on `array`, or None."""
        try:
            impl = self.found[func]
        except KeyError:
            impl = self.found[func] = self._lookup(func)
        if impl is not None and func.__name__ in LIKE and func.__module__ == "numpy":
            return _like(impl, func.__name__, array.ctx)
        return impl
