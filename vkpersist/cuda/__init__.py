"""numba.cuda's API on any Vulkan device: port a numba.cuda program by changing its import.

    from vkpersist import cuda          # was: from numba import cuda

    @cuda.jit
    def add(x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = x[i] + y[i]

    d_x = cuda.to_device(x)
    out = cuda.device_array_like(x)
    add[blocks, threads](d_x, y, out)
    print(out.copy_to_host())

Kernels are vkpersist kernels (@vkp.kernel) and device functions @vkp.func; the kernel
language is vkpersist's (docs/language.md), with numba.cuda's names for indices, barriers,
shared/local arrays and atomics. What differs from numba.cuda: docs/cuda.md.
"""
from __future__ import annotations

import contextlib
import operator
import re

import numpy as np

from .._errors import UnsupportedError, VulkanUnavailable
from .._kernel import Kernel, _Launcher, func
from ..lang import types as T
from ..vk import context as _context
from ..vk.array import Array
from ..vk.context import Context, default_context, synchronize
from ..vk.devices import list_devices
from ..vk.glsl_kernel import launch_dims
from ._builtins import (activemask, all_sync, any_sync, ballot_sync, cbrt, cg, eq_sync,
                        lanemask_lt, laneid,
                        shfl_down_sync, shfl_sync, shfl_up_sync, shfl_xor_sync, syncwarp,
                        warpsize)
from ._builtins import (Dim3, atomic, blockDim, blockIdx, brev, clz, const, ffs, fma, grid,
                        gridDim, gridsize, local, popc, selp, shared, syncthreads,
                        syncthreads_and, syncthreads_count, syncthreads_or, threadfence,
                        threadfence_block, threadfence_system, threadIdx)
from ._events import Event, event, event_elapsed_time
from ._reduce import Reduce, reduce
from ._types import TYPES, Signature

globals().update(TYPES)      # float32, int32[:], void(...): numba's types

DEFAULT_TPB = 64

# cuda.jit options that change nothing here (code generation is the Vulkan driver's)
_IGNORED_OPTIONS = {"debug", "lineinfo", "opt", "cache", "fastmath", "max_registers", "inline",
                    "forceinline", "launch_bounds", "boundscheck", "lto"}


class CudaKernel(Kernel):
    """A @cuda.jit kernel: a vkpersist Kernel launched with numba.cuda's configuration
    `k[blocks, threads]`, `k[blocks, threads, stream]` or `k[blocks, threads, stream,
    dynamic_shared_bytes]`."""

    def __repr__(self) -> str:
        return f"<vkpersist.cuda kernel {self.__name__}>"

    def __getitem__(self, config) -> _Launcher:
        if not (isinstance(config, tuple) and 2 <= len(config) <= 4):
            raise TypeError(f"launch with {self.__name__}[blocks, threads](...), optionally "
                            f"[blocks, threads, stream, shared_bytes]; got [{config!r}]")
        blocks, threads, *rest = config
        _check_stream(rest[0] if rest else 0, self.__name__)
        nbytes = _shared_bytes(rest[1] if len(rest) > 1 else 0, self.__name__)
        return _Launcher(self, launch_dims(blocks, "blocks", self.__name__, 0),
                         launch_dims(threads, "threads per block", self.__name__, 1), nbytes)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0) -> _Launcher:
        """numba's forall: one thread per task along x, `tpb` threads per block."""
        tpb = tpb or DEFAULT_TPB
        launcher = super().forall(ntasks, tpb)
        return self[launcher.groups, launcher.local, stream, sharedmem]


def _check_stream(stream, name):
    if not (stream is None or isinstance(stream, Stream)
            or (isinstance(stream, int) and stream == 0)):
        raise TypeError(f"{name}: the stream of a launch is 0, None or a cuda.stream(); got "
                        f"{stream!r}")


def _shared_bytes(value, name) -> int:
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: dynamic shared memory is a number of bytes, got "
                        f"{value!r}") from None
    if n < 0:
        raise ValueError(f"{name}: dynamic shared memory must not be negative, got {n}")
    return n


# ---- signatures ------------------------------------------------------------------------------
_SCALARS = {"float16": "float16", "f2": "float16", "float32": "float32", "f4": "float32",
            "float64": "float64", "f8": "float64", "double": "float64", "float_": "float32",
            "int8": "int8", "i1": "int8", "int16": "int16", "i2": "int16", "int32": "int32",
            "i4": "int32", "int64": "int64", "i8": "int64", "intp": "int64", "int_": "int64",
            "uint8": "uint8", "u1": "uint8", "uint16": "uint16", "u2": "uint16",
            "uint32": "uint32", "u4": "uint32", "uint64": "uint64", "u8": "uint64",
            "uintp": "uint64", "boolean": "bool", "b1": "bool", "bool_": "bool",
            "complex64": "complex64", "c8": "complex64", "complex128": "complex128",
            "c16": "complex128"}


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch in "[(") - (ch in "])")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [p.strip() for p in parts + [cur] if p.strip()]


def parse_signature(sig: str) -> list:
    """The parameter types of a numba signature string ("void(float32[:], int32)"), as
    kernel types; ValueError when it names a type vkpersist has not."""
    m = re.fullmatch(r"\s*(\w*)\s*\((.*)\)\s*", sig)
    if m is None:
        raise ValueError(f"cannot read the signature {sig!r}: write it as "
                         "'void(float32[:], int32)'")
    out = []
    for arg in _split_top(m.group(2)):
        a = re.fullmatch(r"(\w+)\s*(?:\[([^\]]*)\])?", arg)
        if a is None or a.group(1) not in _SCALARS:
            raise ValueError(f"signature {sig!r}: {arg!r} is not a type vkpersist kernels take "
                             f"(numba's int/uint/float/boolean scalars and arrays of them)")
        elem = T.value_type_of_dtype(np.dtype(_SCALARS[a.group(1)]))
        out.append(elem if a.group(2) is None else T.ArrayType(elem, a.group(2).count(",") + 1))
    return out


def jit(func_or_sig=None, device: bool = False, **options):
    """numba's @cuda.jit: a kernel (`k[blocks, threads](...)`), or with device=True a device
    function (@vkp.func). With one signature string the kernel's parameters take its types
    (else the launch's arguments decide, one compilation per argument types)."""
    unknown = set(options) - _IGNORED_OPTIONS
    if unknown:
        raise UnsupportedError(f"cuda.jit options {sorted(unknown)} are not supported "
                               "(linking CUDA C/PTX code has no Vulkan equivalent)")
    if callable(func_or_sig) and not isinstance(func_or_sig, str):
        return _make(func_or_sig, None, device)
    return lambda fn: _make(fn, func_or_sig, device)


def _make(fn, sig, device):
    k = func(fn) if device else CudaKernel(fn)
    if isinstance(sig, tuple) and all(isinstance(t, (T.Scalar, T.ArrayType)) or
                                      hasattr(t, "scalar") for t in sig):
        sig = Signature(None, [getattr(t, "scalar", t) for t in sig])   # argument types
    elif isinstance(sig, (list, tuple)):
        sig = sig[0] if len(sig) == 1 else None      # several: the arguments choose
    if isinstance(sig, str):
        types = parse_signature(sig)
    elif isinstance(sig, Signature):
        types = sig.args
    elif sig is not None:
        raise TypeError(f"{k.__name__}: a signature is a string ('void(float32[:])') or "
                        f"built from cuda's types (void(float32[:])); got {sig!r}")
    else:
        return k
    if len(types) != len(k.param_names):
        raise TypeError(f"{k.__name__}: signature {sig!r} has {len(types)} parameters, the "
                        f"function {len(k.param_names)}")
    if device:          # the arguments are converted to these types, as numba does
        k.param_types = list(types)
    else:
        k.annotations = [ann if ann is not None else t for ann, t in zip(k.annotations, types)]
    return k


# ---- arrays, streams, devices ------------------------------------------------------------
def to_device(obj, stream=0, copy=True, to=None) -> Array:
    """A device copy of `obj` (or `obj` copied into the device array `to`)."""
    if to is not None:
        return to.copy_from(obj) if copy else to
    if isinstance(obj, Array):
        return obj
    data = np.asarray(obj)
    if not copy:
        return device_array(data.shape, data.dtype)
    return default_context().asarray(np.ascontiguousarray(data))


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0) -> Array:
    if strides is not None or order != "C":
        raise UnsupportedError("device arrays are C-contiguous: strides and order='F' are not "
                               "supported")
    return default_context().empty(shape, dtype)


def device_array_like(ary, stream=0) -> Array:
    return device_array(ary.shape, ary.dtype)


def pinned_array(shape, dtype=np.float64, strides=None, order="C") -> np.ndarray:
    """A host array (Vulkan copies go through vkpersist's own staging memory)."""
    return np.empty(shape, dtype=dtype, order=order)


def pinned_array_like(ary) -> np.ndarray:
    return np.empty_like(ary)


@contextlib.contextmanager
def pinned(*arrays):
    yield


def is_cuda_array(obj) -> bool:
    return isinstance(obj, Array)


class Stream:
    """Launches run in submission order on one queue per device: a stream only waits."""

    def synchronize(self) -> None:
        synchronize()

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self
        synchronize()

    def __repr__(self) -> str:
        return "<vkpersist.cuda.Stream (the device's queue)>"


def stream() -> Stream:
    return Stream()


default_stream = legacy_default_stream = per_thread_default_stream = stream


def is_available() -> bool:
    try:
        return bool(list_devices())
    except VulkanUnavailable:
        return False


def detect() -> bool:
    """Print the Vulkan devices; True if there is one."""
    try:
        devices = list_devices()
    except VulkanUnavailable as exc:
        print(f"No Vulkan devices: {exc}")
        return False
    print(f"Found {len(devices)} Vulkan device(s)")
    for info in devices:
        print(f"id {info.index}    {info.name}")
    return bool(devices)


def select_device(device_id: int) -> Context:
    """Make device `device_id` (an index of vkp.list_devices()) the one arrays and launches
    use; returns its Context."""
    current = _context._default
    if current is not None and not current.closed and current.info.index == device_id:
        return current
    _context._default = Context(device_id)
    return _context._default


def get_current_device():
    """The DeviceInfo of the device in use (`.name`, `.index`, ...)."""
    return default_context().info


def close() -> None:
    """Close the default device's Context (the next use opens a new one)."""
    current = _context._default
    if current is not None and not current.closed:
        current.close()


__all__ = [*TYPES, "CudaKernel", "Dim3", "Event", "event", "event_elapsed_time",
           "Reduce", "reduce", "Signature", "Stream", "atomic", "blockDim", "blockIdx", "brev", "close",
           "cbrt", "cg", "eq_sync", "lanemask_lt", "activemask", "all_sync", "any_sync", "ballot_sync", "laneid",
           "shfl_down_sync", "shfl_sync", "shfl_up_sync", "shfl_xor_sync", "syncwarp",
           "warpsize",
           "clz", "const", "default_stream", "detect", "device_array", "device_array_like",
           "ffs", "fma", "get_current_device", "grid", "gridDim", "gridsize", "is_available",
           "is_cuda_array", "jit", "legacy_default_stream", "local", "parse_signature",
           "per_thread_default_stream", "pinned", "pinned_array", "pinned_array_like", "popc",
           "select_device", "selp", "shared", "stream", "syncthreads", "syncthreads_and",
           "syncthreads_count", "syncthreads_or", "synchronize", "threadIdx", "threadfence",
           "threadfence_block", "threadfence_system", "to_device"]
