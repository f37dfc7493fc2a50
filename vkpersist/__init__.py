"""vkpersist: long-running, steerable GPU simulations in Python on any Vulkan device.

    import vkpersist as vkp
    ctx = vkp.Context()                         # best device; lavapipe (CPU) when no GPU
    x = ctx.asarray(np.arange(8, dtype=np.float32))
    print(x.numpy())
"""
import inspect as _inspect
import sys as _sys

import numpy as _np

from ._errors import (CheckpointError, CompileError, DeviceLimitError, DeviceLost, DeviceNotFound, DeviceTimeout,
                      OutOfDeviceMemory, UnsupportedError, VkPersistError, VulkanUnavailable)
from ._errors import BoundsError
from .vk.context import Context, default_context, synchronize
from .vk.devices import list_devices

from .control import Ack, ControlBuffer, ControlField
from .memsock import Frame, MemSock, Relay
from .vk.shared_pages import SharedPages
from ._kernel import Kernel, func, kernel
from .lang import source as _source
from .scheduler import Checkpoints, OccupancyWarning, Program, QueueOverflow, every, when
from ._render import render_in_thread
from . import lowlevel
from . import cuda

# ---- the array layer: `vkp.f` wherever NumPy's `np.f(dx)` runs on the device ------------
from ._creation import (arange, asarray, asnumpy, empty, eye, full, identity, linspace, ones,
                        zeros)
from ._core.ufunc import (absolute, add, angle, arccos, arccosh,
                          arcsin, arcsinh, arctan, arctan2, arctanh, around, bitwise_and,
                          bitwise_or, bitwise_xor, cbrt, clip, conj, conjugate, deg2rad,
                          degrees, divide, equal, float_power, floor_divide, fmax, fmin, fmod,
                          greater, greater_equal, heaviside, imag, invert, isfinite, ldexp,
                          left_shift, less, less_equal, logaddexp, logaddexp2, logical_and,
                          logical_not, logical_or, logical_xor, maximum, minimum, mod, multiply,
                          negative, not_equal, positive, power, rad2deg, radians, real,
                          reciprocal, remainder, right_shift, rint, signbit, square, subtract,
                          true_divide, where)
from ._core.ufunc import round  # noqa: F401,A004  (not in __all__: Python's own stays)
from ._core.fusion import jit
from ._core.vectorize import vectorize
from ._core.gufunc import guvectorize
from ._core.indexing import argwhere, count_nonzero, flatnonzero, nonzero
from ._core.reduction import amax, amin, argmax, argmin, mean, prod
# vkp.sum/any/all: not in __all__, so `import *` keeps Python's own (vkp.min/vkp.max stay
# the kernel builtins; vkp.amin/vkp.amax, np.min(x) and x.min() are the reductions)
from ._core.reduction import all, any, sum  # noqa: F401,A004
from ._manipulation import (broadcast_to, column_stack, concatenate, copy, copyto, diag,
                            diagonal, diff, empty_like, expand_dims, flip, fliplr, flipud,
                            full_like, hstack, meshgrid, moveaxis, ndim, ones_like, pad, ravel,
                            repeat, reshape, roll, shape, size, squeeze, stack, swapaxes, take,
                            tile, trace, transpose, tril, triu, vstack, zeros_like)
from ._math.calculus import convolve, correlate, gradient, interp, trapezoid
from ._sorting.sort import argsort, searchsorted, sort, unique
from ._statistics.histogram import bincount, histogram
from ._statistics.meanvar import (nanmax, nanmean, nanmin, nanprod, nanstd, nansum, nanvar,
                                  std, var)
from ._statistics.order import (allclose, array_equal, average, isclose, median, percentile,
                                ptp, quantile)
from .linalg._product import cumprod, cumsum, inner, matmul, outer, vdot
from .linalg._einsum import einsum, tensordot
from . import fft, linalg, random
from ._core import install as _install, ufunc_methods as _ufunc_methods  # noqa: F401
# vkp.dot and vkp.cross stay the kernel builtins (of vectors, also on arrays); np.dot(x, y)
# and np.cross(a, b) are the array functions
from .lang.builtins import (acos, acosh, asin, asinh, atan, atan2, atanh, atomic, barrier, ceil,
                            clamp, copysign, cos, cosh, cross, distance, dot, exp, exp2, expm1,
                            fabs,
                            floor, fma, global_id, global_size, group_id, hypot, isinf, isnan,
                            length, local, local_id, local_size, log, log1p, log2, log10, mix,
                            normalize, num_groups, rsqrt, select, shared, sign, sin, sinh, sqrt,
                            tan, tanh, trunc)
# vkp.abs/min/max/pow for kernels; not in __all__, so `import *` keeps Python's own
from .lang.builtins import abs, max, min, pow  # noqa: F401
from .lang.types import (Array, Controls, Socket, bool_, bvec2, bvec3, bvec4, dvec2, dvec3, dvec4, f16, f32, f64,
                         i8, i16, i32, i64, ivec2, ivec3, ivec4, u8, u16, u32, u64, uvec2, uvec3,
                         uvec4, vec2, vec3, vec4)
from .lang.types import c64, c128
from .lang.subgroups import (subgroup_add, subgroup_all, subgroup_all_equal, subgroup_any,
                             subgroup_ballot,
                             subgroup_barrier, subgroup_exclusive_add, subgroup_inclusive_add,
                             subgroup_lane, subgroup_max, subgroup_min, subgroup_mul,
                             subgroup_shuffle, subgroup_shuffle_down, subgroup_shuffle_up,
                             subgroup_shuffle_xor, subgroup_size)

float16, float32, float64 = f16, f32, f64
complex64, complex128 = c64, c128
int8, int16, int32, int64, uint8, uint16, uint32, uint64 = i8, i16, i32, i64, u8, u16, u32, u64

__version__ = "0.1.0"

__all__ = [
    # devices, arrays, errors
    "Array", "BoundsError", "CheckpointError", "CompileError", "Context", "DeviceLimitError",
    "DeviceLost", "DeviceNotFound",
    "DeviceTimeout", "OutOfDeviceMemory", "UnsupportedError", "VkPersistError",
    "VulkanUnavailable", "default_context", "list_devices", "synchronize", "to_device",
    # device arrays made on the default context (or ctx=), NumPy's names
    "arange", "asarray", "asnumpy", "empty", "eye", "full", "identity", "linspace", "ones",
    "zeros",
    # kernels, programs and the channels to running kernels
    "Kernel", "kernel", "func", "compile_source", "Program", "Checkpoints", "every", "when",
    "QueueOverflow", "OccupancyWarning",
    "render_in_thread",      # frames drawn with matplotlib off the trio event loop
    "Ack", "ControlBuffer", "ControlField", "Controls", "MemSock", "Frame", "Socket",
    # host pages several devices share, and pipelines between devices (docs/pipelines.md)
    "SharedPages", "Relay",
    # kernel language: types and builtins (usable inside @vkp.kernel / @vkp.func). vkp.abs,
    # vkp.min, vkp.max and vkp.pow exist too but stay out of `import *`, which would
    # shadow Python's own.
    "bool_", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
    "float32", "float64", "vec2", "vec3", "vec4", "ivec2", "ivec3", "ivec4", "uvec2", "uvec3",
    "uvec4", "dvec2", "dvec3", "dvec4", "bvec2", "bvec3", "bvec4",
    "c64", "c128", "complex64", "complex128",
    "subgroup_add", "subgroup_all", "subgroup_all_equal", "subgroup_any", "subgroup_ballot", "subgroup_barrier",
    "subgroup_exclusive_add", "subgroup_inclusive_add", "subgroup_lane", "subgroup_max",
    "subgroup_min", "subgroup_mul", "subgroup_shuffle", "subgroup_shuffle_down",
    "subgroup_shuffle_up", "subgroup_shuffle_xor", "subgroup_size",
    "global_id", "local_id", "group_id", "num_groups", "local_size", "global_size", "barrier",
    "shared", "local", "atomic", "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log1p", "log2",
    "log10", "sin",
    "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "floor", "ceil", "trunc", "fabs", "clamp", "mix", "fma", "isnan", "isinf",
    "copysign", "hypot", "sign", "select", "dot", "cross", "length", "normalize", "distance",
    # arrays: element-wise math and its fusion (docs/arrays.md)
    "jit", "vectorize", "guvectorize", "where", "clip", "real", "imag", "angle", "around",
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder", "mod",
    "power", "negative", "positive", "absolute", "square", "reciprocal", "arcsin", "arccos",
    "arctan", "arctan2", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "degrees",
    "radians", "minimum", "maximum", "fmin", "fmax", "isfinite", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
    "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift",
    "right_shift", "conjugate", "conj", "rint", "cbrt", "fmod", "ldexp", "logaddexp",
    "logaddexp2", "heaviside", "signbit", "float_power",
    # NumPy's functions on device arrays, by NumPy's chapters (docs/arrays.md)
    "argwhere", "count_nonzero", "flatnonzero", "nonzero",
    "broadcast_to", "column_stack", "concatenate", "copy", "copyto", "diag", "diagonal",
    "diff", "empty_like", "expand_dims", "flip", "fliplr", "flipud", "full_like", "hstack",
    "meshgrid", "moveaxis", "ndim", "ones_like", "pad", "ravel", "repeat", "reshape", "roll",
    "shape", "size", "squeeze", "stack", "swapaxes", "take", "tile", "trace", "transpose",
    "tril", "triu", "vstack", "zeros_like",
    "convolve", "correlate", "gradient", "interp", "trapezoid", "argsort", "searchsorted",
    "sort", "unique", "bincount", "histogram",
    "allclose", "array_equal", "average", "isclose", "median", "percentile", "ptp", "quantile",
    "cumprod", "inner", "outer", "vdot", "einsum", "tensordot",
    # NumPy's namespaces of the same names: vkp.linalg.solve, vkp.fft.fft
    "fft", "linalg",
    # the layer underneath: raw GLSL kernels, host pages, device details
    "lowlevel",
    # numba.cuda's API (`from vkpersist import cuda`, docs/cuda.md)
    "cuda",
    # reductions, products, scans, random numbers (docs/reductions.md)
    "amax", "amin", "argmax", "argmin", "mean", "prod", "cumsum", "matmul", "random",
    "var", "std", "nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd",
]


def to_device(data, ctx: Context | None = None, *, memory: str = "device") -> Array:
    """A device copy of `data` (anything NumPy accepts), numba.cuda style: on `ctx`, else
    the default context. The same as `ctx.asarray(data, memory=memory)`."""
    return (ctx if ctx is not None else default_context()).asarray(data, memory=memory)


def compile_source(source: str, name: str = "source", namespace: dict | None = None) -> dict:
    """Run Python source text that defines kernels, device functions or programs, and return
    its namespace: `vkp.compile_source(text)["saxpy"]` is a kernel like one from a file.
    The text is kept in the line cache under `<vkpersist:NAME:N>` (as IPython keeps its
    cells), so kernels compile from it and errors point at its lines. `namespace`: the
    globals the text runs in (default: a fresh one with `vkp` and `np` imported)."""
    if namespace is None:
        namespace = {"vkp": _sys.modules[__name__], "np": _np}
    return _source.compile_source(source, name, namespace)


def _public_names() -> None:
    """Public classes and functions say `vkpersist.X` (`vkpersist.lowlevel.X`) in reprs and
    tracebacks, not the private module that defines them (as trio does)."""
    for module, namespace, names in ((__name__, globals(), __all__),
                                     (lowlevel.__name__, vars(lowlevel), lowlevel.__all__)):
        for name in names:
            obj = namespace[name]
            if (isinstance(obj, type) or _inspect.isfunction(obj)) \
                    and obj.__module__.startswith("vkpersist."):
                obj.__module__ = module


_public_names()
_install(_sys.modules[__name__])

# outside __all__ so that `import *` keeps Python's own; vkp.min/max/abs/pow are the kernel
# builtins (on arrays too), vkp.sum/any/all/round NumPy's
_PYTHON_NAMES = ["abs", "all", "any", "max", "min", "pow", "round", "sum"]


def __dir__() -> list[str]:
    """The public names only: not the private modules, nor the layers' packages that
    importing them leaves behind (vkp.vk, vkp.lang, vkp.scheduler, ...)."""
    return sorted([*__all__, *_PYTHON_NAMES, "__version__"])
