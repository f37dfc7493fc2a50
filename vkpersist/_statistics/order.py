"""Order statistics and comparisons on device arrays: `np.median`, `np.quantile`,
`np.percentile`, `np.ptp`, `np.average`, and `np.isclose`, `np.allclose`,
`np.array_equal`.

The order statistics sort along the axis on the device (vkpersist/_sorting/sort.py, NaN last)
and read the elements they need with NumPy's own formulas: the median is the middle
element or the mean of the two middle ones, `quantile`'s default "linear" method NumPy's
`_lerp` (a + (b - a) t, from the upper neighbour when t >= 1/2), so the results are
NumPy's bit for bit where the arithmetic is the same. A slice holding a NaN gives NaN, as
NumPy's.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .._core.reduction import inexact
from ..vk.array import Array


def _sorted_last(a: Array, axis):
    """(a sorted along `axis` with that axis moved last, the normalised axis or None for
    the flattened array)."""
    if axis is None:
        return np.sort(a.reshape(-1)), None
    if isinstance(axis, (tuple, list)):
        raise TypeError("vkpersist: median/quantile take one axis or None, not a tuple")
    ax = normalize_axis_index(axis, a.ndim)
    return np.moveaxis(np.sort(a, axis=ax), ax, -1), ax


def _keep(result, a: Array, ax, keepdims: bool):
    if not keepdims:
        return result
    if ax is None:
        return result.reshape((1,) * a.ndim)
    return np.expand_dims(result, ax)


def _nan_where_any(s: Array, value):
    """NaN where the sorted slice holds one (NaNs sort last), else `value`."""
    if s.dtype.kind != "f":
        return value
    return np.where(np.isnan(s[..., -1]), s[..., -1], value)


def _check(name, a, out):
    if out is not None:
        raise TypeError(f"np.{name}(out=...) is not supported on vkpersist arrays")
    if a.size == 0:
        raise ValueError(f"np.{name} of an empty array (NumPy warns and gives NaN)")
    if a.dtype.kind == "c":
        raise TypeError(f"vkpersist: {name} of complex arrays is not supported")


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    _check("median", a, out)
    s, ax = _sorted_last(inexact(a), axis)
    n = s.shape[-1]
    if n % 2:
        value = s[..., n // 2]
    else:
        value = np.mean(s[..., n // 2 - 1:n // 2 + 1], axis=-1)
    return _keep(_nan_where_any(s, value), a, ax, keepdims)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    """np.quantile with NumPy's default method ("linear"); q a number or an array of
    numbers in [0, 1] (then the result has q's axes first)."""
    if method != "linear" or interpolation is not None or weights is not None:
        raise TypeError("np.quantile on vkpersist arrays: only method='linear' (NumPy's "
                        "default), without weights")
    _check("quantile", a, out)
    qs = np.asarray(q.numpy() if isinstance(q, Array) else q, dtype=np.float64)
    if np.any((qs < 0) | (qs > 1)) or np.any(np.isnan(qs)):
        raise ValueError("Quantiles must be in the range [0, 1]")
    s, ax = _sorted_last(inexact(a), axis)
    n = s.shape[-1]
    # NumPy's interpolation weight has q's type: a Python number is weak (float32 data
    # stays float32), an array or NumPy float64 promotes the result to float64 (NEP 50)
    weak = type(q) in (int, float)           # np.float64 is a float subclass, and strong
    results = []
    for qv in qs.reshape(-1).tolist():
        virtual = qv * (n - 1)
        lo = int(np.floor(virtual))
        hi = min(lo + 1, n - 1)
        t = virtual - lo if weak else np.float64(virtual - lo)
        below, above = s[..., lo], s[..., hi]
        diff = above - below
        value = (above - diff * (1 - t)) if t >= 0.5 else (below + diff * t)
        results.append(_keep(_nan_where_any(s, value), a, ax, keepdims))
    if qs.ndim == 0:
        return results[0]
    return np.stack(results).reshape(qs.shape + results[0].shape)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    qs = np.asarray(q.numpy() if isinstance(q, Array) else q, dtype=np.float64)
    if np.any((qs < 0) | (qs > 100)):
        raise ValueError("Percentiles must be in the range [0, 100]")
    return quantile(a, qs / 100, axis, out, overwrite_input, method, keepdims,
                    weights=weights, interpolation=interpolation)


def ptp(a, axis=None, out=None, keepdims=False):
    """max - min along `axis`, as np.ptp."""
    return np.subtract(np.max(a, axis=axis, keepdims=keepdims),
                       np.min(a, axis=axis, keepdims=keepdims), out=out)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """np.average: the mean, or sum(a * w) / sum(w) with weights (broadcast along `axis`
    when 1-d, as NumPy's)."""
    if weights is None:
        avg = np.mean(a, axis=axis, keepdims=keepdims)
        scale = a.size // max(avg.size, 1)
        if returned:
            return avg, np.full_like(avg, scale)
        return avg
    w = weights if isinstance(weights, Array) else a.ctx.asarray(np.asarray(weights))
    if w.shape != a.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if w.ndim != 1:
            raise TypeError("1D weights expected when shapes of a and weights differ.")
        ax = normalize_axis_index(axis, a.ndim)
        if w.shape[0] != a.shape[ax]:
            raise ValueError("Length of weights not compatible with specified axis.")
        w = w.reshape((1,) * ax + (w.shape[0],) + (1,) * (a.ndim - ax - 1))
    # NumPy's result dtype: at least float64 for integer or bool data, and both the
    # weights' sum and the products computed in it (so the returned sum of integer or
    # bool weights is float64, and a * w never wraps in an integer type)
    if a.dtype.kind in "biu":
        dtype = np.result_type(a.dtype, w.dtype, "f8")
    else:
        dtype = np.result_type(a.dtype, w.dtype)
    total = np.sum(w.astype(dtype, copy=False), axis=axis, keepdims=keepdims)
    if bool(np.any(total == 0)):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    products = np.multiply(a.astype(dtype, copy=False), w.astype(dtype, copy=False))
    avg = np.sum(products, axis=axis, keepdims=keepdims) / total
    return (avg, np.broadcast_to(total, avg.shape).copy()) if returned else avg


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol |b|, infinities equal only to themselves, as np.isclose.

    As NumPy's, `b` is first made inexact (result_type(b, 1.0): integers become
    float64), so integer operands subtract in floating point, never wrapping
    (isclose(int32 0, int32 -2**31) is False, as NumPy's)."""
    dtype = getattr(b, "dtype", None)
    if dtype is not None and dtype.kind != "m":
        inexact_b = np.result_type(dtype, 1.0)
        if inexact_b != dtype:
            b = b.astype(inexact_b) if isinstance(b, Array) else np.asarray(b, inexact_b)
    elif isinstance(b, int):
        b = float(b)
    result = (np.abs(a - b) <= atol + rtol * np.abs(b)) & np.isfinite(b) | (a == b)
    if equal_nan:
        result = result | (np.isnan(a) & np.isnan(b))
    return result


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return bool(np.all(isclose(a, b, rtol, atol, equal_nan)))


def array_equal(a1, a2, equal_nan=False) -> bool:
    if np.shape(a1) != np.shape(a2):
        return False
    same = a1 == a2
    if equal_nan:
        same = same | (np.isnan(a1) & np.isnan(a2))
    return bool(np.all(same))
