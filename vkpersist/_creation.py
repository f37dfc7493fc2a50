"""Arrays made on the default context (or `ctx=`), under NumPy's names: `vkp.zeros`,
`vkp.ones`, `vkp.empty`, `vkp.full`, `vkp.asarray`, `vkp.arange`, `vkp.linspace`,
`vkp.eye`, `vkp.identity`, as
CuPy's `cp.zeros` and friends. NumPy's own `np.arange(10)` has no array argument to
dispatch on, so it cannot return a device array; these can.

The dtype defaults are the Context methods' (float32, what every GPU computes fast), not
NumPy's float64, except where the values decide it: `vkp.arange(10)` is int64 and
`vkp.asarray(data)` keeps data's dtype, as NumPy. arange and linspace compute their values
on the host with NumPy itself and upload them, so they are NumPy's bit for bit.
"""
from __future__ import annotations

import numpy as np

from .vk.array import Array
from .vk.context import Context, default_context


def _ctx(ctx: Context | None) -> Context:
    if ctx is not None and not isinstance(ctx, Context):
        raise TypeError(f"ctx must be a vkpersist.Context or None, got {type(ctx).__name__}")
    return ctx if ctx is not None else default_context()


def empty(shape, dtype=np.float32, *, ctx: Context | None = None,
          memory: str = "device") -> Array:
    """An uninitialised device array."""
    return _ctx(ctx).empty(shape, dtype, memory)


def zeros(shape, dtype=np.float32, *, ctx: Context | None = None,
          memory: str = "device") -> Array:
    return _ctx(ctx).zeros(shape, dtype, memory)


def ones(shape, dtype=np.float32, *, ctx: Context | None = None,
         memory: str = "device") -> Array:
    return _ctx(ctx).full(shape, 1, dtype, memory)


def full(shape, fill_value, dtype=None, *, ctx: Context | None = None,
         memory: str = "device") -> Array:
    """`fill_value` everywhere; the dtype is NumPy's for the value when not given
    (np.full's rule: 7 gives int64, 2.5 float64)."""
    dtype = np.asarray(fill_value).dtype if dtype is None else dtype
    return _ctx(ctx).full(shape, fill_value, dtype, memory)


def asarray(data, dtype=None, *, ctx: Context | None = None, memory: str = "device") -> Array:
    """A device array of `data` (anything NumPy accepts, or a device array, returned as it
    is when nothing changes)."""
    return _ctx(ctx).asarray(data, dtype, memory)


def arange(start, stop=None, step=None, dtype=None, *, ctx: Context | None = None,
           memory: str = "device") -> Array:
    """np.arange's values on the device (NumPy's dtype rules: int64 for ints)."""
    host = np.arange(start, stop, step, dtype=dtype) if stop is not None or step is not None \
        else np.arange(start, dtype=dtype)
    return _ctx(ctx).asarray(host, memory=memory)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             ctx: Context | None = None, memory: str = "device"):
    """np.linspace's values on the device (float64 unless `dtype`)."""
    host = np.linspace(start, stop, num, endpoint, retstep, dtype, axis)
    if retstep:
        values, step = host
        return _ctx(ctx).asarray(values, memory=memory), step
    return _ctx(ctx).asarray(host, memory=memory)


def eye(N, M=None, k=0, dtype=np.float32, *, ctx: Context | None = None,
        memory: str = "device") -> Array:
    """Ones on diagonal `k` of an N x M matrix, zeros elsewhere (np.eye)."""
    out = _ctx(ctx).zeros((N, N if M is None else M), dtype, memory)
    np.diagonal(out, k)[...] = 1
    return out


def identity(n, dtype=np.float32, *, ctx: Context | None = None,
             memory: str = "device") -> Array:
    return eye(n, dtype=dtype, ctx=ctx, memory=memory)


def asnumpy(a, out=None) -> np.ndarray:
    """A NumPy copy of a device array (anything else: np.asarray of it), CuPy's
    `cupy.asnumpy`."""
    if isinstance(a, Array):
        return a.get(out=out)
    host = np.asarray(a)
    if out is not None:
        out[...] = host
        return out
    return host
