"""Which NumPy functions have a device implementation: the table behind
`Array.__array_function__` (NEP 18). `np.sum(dx)` finds `HANDLED[np.sum]` here and runs on
the device; a NumPy function that is not in the table raises a TypeError that names it and
says to call `np.asarray(dx)` first, instead of copying silently.

Modules that implement array functions (element-wise math, reductions, linear algebra)
register them with `@implements(np.sum)`; the runtime layer below (vk/array.py) only
looks them up, so it never imports the kernel language.
"""
from __future__ import annotations

HANDLED: dict = {}


def implements(*numpy_functions):
    """Register the decorated function as the device implementation of `numpy_functions`."""
    def register(function):
        for numpy_function in numpy_functions:
            HANDLED[numpy_function] = function
        return function
    return register
