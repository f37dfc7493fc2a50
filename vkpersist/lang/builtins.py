"""Functions usable inside kernels: `vkp.global_id(0)`, `vkp.barrier()`, `vkp.shared.array`,
`vkp.atomic.add`, `vkp.sqrt`, ... Outside a kernel they only explain where they belong;
inside, the front end recognises them by identity and lowers them (see frontend.py)."""
from __future__ import annotations

import types


class Builtin:
    def __init__(self, name: str, doc: str):
        self.name = name
        self.__doc__ = doc
        self.__name__ = name.rsplit(".", 1)[-1]

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"vkp.{self.name}() can only be used inside a @vkp.kernel or "
                           "@vkp.func (it compiles to GPU code)")

    def __repr__(self) -> str:
        return f"<vkpersist kernel builtin vkp.{self.name}>"


def _b(name, doc):
    return Builtin(name, doc)


# ids and sizes, per axis 0..2 (int32)
global_id = _b("global_id", "Index of this invocation in the whole launch along an axis.")
local_id = _b("local_id", "Index of this invocation within its workgroup along an axis.")
group_id = _b("group_id", "Index of this workgroup along an axis.")
num_groups = _b("num_groups", "Number of workgroups in the launch along an axis.")
local_size = _b("local_size", "Invocations per workgroup along an axis.")
global_size = _b("global_size", "Invocations in the whole launch along an axis.")
barrier = _b("barrier", "Workgroup barrier: every invocation of the workgroup waits here, "
             "and its shared-memory and array writes before it are visible to the "
             "workgroup after it (CUDA's __syncthreads).")

shared = types.SimpleNamespace(array=_b("shared.array", "shared.array(shape, dtype): an array "
                                        "in workgroup-shared memory (constant shape)."))
local = types.SimpleNamespace(array=_b("local.array", "local.array(shape, dtype): a private "
                                       "array per invocation (constant shape)."))

_ATOMICS = ("add", "sub", "min", "max", "and_", "or_", "xor", "exchange", "compare_exchange")
atomic = types.SimpleNamespace(**{
    n: _b(f"atomic.{n}", f"atomic.{n}(array, index, value{', new' if n == 'compare_exchange' else ''})"
                         ": atomically update array[index]; returns the old value.")
    for n in _ATOMICS})

_MATH = ("sqrt", "rsqrt", "exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "asin",
         "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "pow",
         "floor", "ceil", "trunc", "fabs", "abs", "min", "max", "clamp", "mix", "fma", "isnan",
         "isinf", "copysign", "hypot", "sign", "select", "dot", "cross", "length", "normalize",
         "distance")
math_functions = {n: _b(n, f"{n}(...) on the GPU, elementwise for vectors.") for n in _MATH}
globals().update(math_functions)

__all__ = ["Builtin", "atomic", "barrier", "global_id", "global_size", "group_id", "local",
           "local_id", "local_size", "math_functions", "num_groups", "shared", *_MATH]
