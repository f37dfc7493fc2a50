"""Variance, standard deviation and the NaN-ignoring reductions on device arrays, as NumPy's
(same arguments, result dtypes, warnings and errors), composed on the device from the
reductions (reductions.py) and the element-wise functions (_array_math.py):

    vkp.var(dx, axis=0, ddof=1)      # or np.var(dx, axis=0, ddof=1), or dx.var(...)
    np.nanmean(dx)                   # NaNs left out of the sum and the count

`var` is NumPy's two-pass algorithm: the mean (kept as a broadcastable array), then the mean
of the squared deviations, each sum in the reductions' tree order, so float32 results
agree with NumPy's (pairwise) to the tolerance docs/reductions.md states, and a large
mean does not cancel the variance as a one-pass sum of squares would. `std` is its
square root. `nansum`/`nanprod` replace NaN by the identity, `nanmin`/`nanmax` by the
other end of the range and put NaN back where a whole slice was NaN (warning as NumPy
does), `nanmean`/`nanvar`/`nanstd` count the non-NaN elements. Integer and bool arrays
have no NaN: there the nan-functions are the plain ones, as in NumPy.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._core import reduction as R
from .._core.ufunc import FUNCTIONS as F, where
from .._errors import UnsupportedError
from ..vk.array import Array


def _float_result(x: Array, dtype) -> np.dtype:
    """NumPy's result dtype of var/std/nanmean: float64 for integers and bools, the float
    dtype itself for floats, `dtype=` when given."""
    if dtype is not None:
        return np.dtype(dtype)
    return x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)


def _count(x: Array, axis) -> int:
    shape = x.shape
    axes = range(x.ndim) if axis is None else \
        R.normalize_axis_tuple(axis, x.ndim)
    n = 1
    for i in axes:
        n *= shape[i]
    return n


def _checked(name: str, a, where_):
    R._check_unsupported(name, where=where_)
    x, host = R._device(a)
    if x.dtype.kind == "c":
        raise UnsupportedError(f"vkpersist.{name}: complex arrays are not supported")
    return x, host


def _deliver(result: Array, out, host: bool):
    if out is not None:
        return R._finish(result, result.shape, None, out, host=False)
    if host:
        r = result.numpy()
        return r[()] if r.ndim == 0 else r
    return result


def _variance(x: Array, axis, dtype, ddof, keepdims) -> Array:
    """sum((x - mean)**2) / (n - ddof) in NumPy's result dtype."""
    acc = _float_result(x, dtype)
    m = R.mean(x, axis=axis, dtype=acc, keepdims=True)
    d = F["subtract"](x.astype(acc) if x.dtype != acc else x, m)
    dof = _count(x, axis) - ddof
    if dof <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=4)
    s = R.sum(F["multiply"](d, d), axis=axis, dtype=acc, keepdims=keepdims)
    with np.errstate(invalid="ignore", divide="ignore"):
        return F["true_divide"](s, acc.type(max(dof, 0)))


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """The variance over `axis`, as np.var: mean((x - x.mean())**2) * n / (n - ddof)."""
    R._check_unsupported("var", mean=mean, correction=correction)
    x, host = _checked("var", a, where)
    v = _variance(x, axis, dtype, ddof, keepdims)
    return _deliver(v, out, host)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """The standard deviation over `axis`, as np.std: the square root of var."""
    R._check_unsupported("std", mean=mean, correction=correction)
    x, host = _checked("std", a, where)
    v = _variance(x, axis, dtype, ddof, keepdims)
    return _deliver(F["sqrt"](v), out, host)


def _without_nan(x: Array, fill):
    return where(F["isnan"](x), x.dtype.type(fill), x)


def _has_nan(x: Array) -> bool:
    return x.dtype.kind == "f"


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """The sum over `axis` with NaN counted as zero, as np.nansum."""
    R._check_unsupported("nansum", initial=initial)
    x, host = _checked("nansum", a, where)
    y = _without_nan(x, 0) if _has_nan(x) else x
    return _deliver(R.sum(y, axis=axis, dtype=dtype, keepdims=keepdims), out, host)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """The product over `axis` with NaN counted as one, as np.nanprod."""
    R._check_unsupported("nanprod", initial=initial)
    x, host = _checked("nanprod", a, where)
    y = _without_nan(x, 1) if _has_nan(x) else x
    return _deliver(R.prod(y, axis=axis, dtype=dtype, keepdims=keepdims), out, host)


def _nan_extreme(op, name, a, axis, out, keepdims, initial, where_):
    R._check_unsupported(name, initial=initial)
    x, host = _checked(name, a, where_)
    if not _has_nan(x):
        return _deliver(op(x, axis=axis, keepdims=keepdims), out, host)
    fill = np.inf if op is R.amin else -np.inf
    result = op(_without_nan(x, fill), axis=axis, keepdims=keepdims)
    valid = R.any(F["logical_not"](F["isnan"](x)), axis=axis, keepdims=keepdims)
    if not bool(R.all(valid)):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
        result = where(valid, result, x.dtype.type(np.nan))
    return _deliver(result, out, host)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """The minimum over `axis` ignoring NaN, as np.nanmin (NaN where a slice is all NaN)."""
    return _nan_extreme(R.amin, "nanmin", a, axis, out, keepdims, initial, where)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """The maximum over `axis` ignoring NaN, as np.nanmax (NaN where a slice is all NaN)."""
    return _nan_extreme(R.amax, "nanmax", a, axis, out, keepdims, initial, where)


def _nan_count(x: Array, axis, keepdims, acc) -> Array:
    return R.sum(F["logical_not"](F["isnan"](x)), axis=axis, dtype=acc, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """The mean over `axis` of the non-NaN elements, as np.nanmean (NaN for a slice with
    none, with NumPy's RuntimeWarning)."""
    x, host = _checked("nanmean", a, where)
    if not _has_nan(x):
        return _deliver(R.mean(x, axis=axis, dtype=dtype, keepdims=keepdims), out, host)
    acc = _float_result(x, dtype)
    total = R.sum(_without_nan(x, 0), axis=axis, dtype=acc, keepdims=keepdims)
    count = _nan_count(x, axis, keepdims, acc)
    if not bool(R.all(count)):
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _deliver(F["true_divide"](total, count), out, host)


def _nan_variance(name, a, axis, dtype, out, ddof, keepdims, where_, root):
    x, host = _checked(name, a, where_)
    if not _has_nan(x):
        v = _variance(x, axis, dtype, ddof, keepdims)
        return _deliver(F["sqrt"](v) if root else v, out, host)
    acc = _float_result(x, dtype)
    count = _nan_count(x, axis, True, acc)
    m = F["true_divide"](R.sum(_without_nan(x, 0), axis=axis, dtype=acc, keepdims=True),
                         count)
    d = F["subtract"](x.astype(acc) if x.dtype != acc else x, m)
    sq = F["multiply"](d, d)
    s = R.sum(_without_nan(sq, 0), axis=axis, dtype=acc, keepdims=keepdims)
    dof = F["subtract"](count if keepdims else count.reshape(s.shape), acc.type(ddof))
    if not bool(R.all(F["greater"](dof, acc.type(0)))):
        warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning, stacklevel=3)
        dof = where(F["greater"](dof, acc.type(0)), dof, acc.type(np.nan))
    v = F["true_divide"](s, dof)
    return _deliver(F["sqrt"](v) if root else v, out, host)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
           mean=None, correction=None):
    """The variance over `axis` of the non-NaN elements, as np.nanvar."""
    R._check_unsupported("nanvar", mean=mean, correction=correction)
    return _nan_variance("nanvar", a, axis, dtype, out, ddof, keepdims, where, root=False)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
           mean=None, correction=None):
    """The standard deviation over `axis` of the non-NaN elements, as np.nanstd."""
    R._check_unsupported("nanstd", mean=mean, correction=correction)
    return _nan_variance("nanstd", a, axis, dtype, out, ddof, keepdims, where, root=True)
