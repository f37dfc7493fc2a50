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


def _nan_where_any(s: Array, value, whole: bool = False):
    """NaN where the sorted slice holds one (NaNs sort last), else `value`. `whole`: one
    slice and one q, where NumPy returns the slice's NaN itself, in the data's dtype
    (np.quantile(float32 data holding a NaN, np.float64(q)) is a float32 NaN)."""
    if s.dtype.kind != "f":
        return value
    if whole and value.ndim == 0 and bool(np.isnan(s[..., -1])):
        return s[..., -1]
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
    numbers in [0, 1] of at most 2 dimensions (then the result has q's axes first)."""
    q = q.numpy() if isinstance(q, Array) else q
    return _quantile(a, np.asarray(q), type(q) in (int, float), axis, out, method, keepdims,
                     weights, interpolation, "Quantiles must be in the range [0, 1]")


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    """np.percentile: np.quantile of q / 100, divided as NumPy divides it (a float32 q
    stays float32, a Python number stays weak)."""
    q = q.numpy() if isinstance(q, Array) else q
    return _quantile(a, np.asarray(np.true_divide(q, 100)), type(q) in (int, float), axis,
                     out, method, keepdims, weights, interpolation,
                     "Percentiles must be in the range [0, 100]")


def _quantile(a, qs, weak, axis, out, method, keepdims, weights, interpolation, range_msg):
    """NumPy's "linear" quantile of sorted `a`, with NumPy's numbers: the virtual index
    (n - 1) q and its fraction t in q's dtype, t a weak Python float when q was a Python
    number (NEP 50: float32 data stays float32), else of q's dtype (float32 q with float32
    or int8/int16 data gives float32, float64 q gives float64); NumPy's `_lerp`
    (a + (b - a) t, or b - (b - a)(1 - t) from t >= 1/2) in the data's dtype, so integer
    data with an integer q gives the element itself, in the data's dtype, as NumPy's."""
    if method != "linear" or interpolation is not None or weights is not None:
        raise TypeError("np.quantile on vkpersist arrays: only method='linear' (NumPy's "
                        "default), without weights")
    _check("quantile", a, out)
    if np.any((qs < 0) | (qs > 1)) or np.any(np.isnan(qs)):
        raise ValueError(range_msg)
    if qs.ndim > 2:
        raise ValueError(f"q must be a scalar or 1d (NumPy takes q of at most 2 dimensions); "
                         f"got q of shape {qs.shape}")
    s, ax = _sorted_last(a, axis)
    n = s.shape[-1]
    virtual = (n - 1) * qs                  # q's dtype, as NumPy's (n a weak Python int)
    results = []
    for v in virtual.reshape(-1):
        lo = n - 1 if v >= n - 1 else int(np.floor(v))
        below = s[..., lo]
        if virtual.dtype.kind in "biu":     # an integer index: the element itself
            value = below
        else:
            hi = min(lo + 1, n - 1)
            t = v - (-1 if v >= n - 1 else np.floor(v))      # NumPy's gamma
            t = float(t) if weak else virtual.dtype.type(t)
            above = s[..., hi]
            diff = above - below
            value = (above - diff * (1 - t)) if t >= 0.5 else (below + diff * t)
        results.append(_keep(_nan_where_any(s, value, qs.ndim == 0), a, ax, keepdims))
    if qs.ndim == 0:
        return results[0]
    return np.stack(results).reshape(qs.shape + results[0].shape)


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
