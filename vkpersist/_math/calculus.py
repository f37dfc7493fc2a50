"""Numerical calculus on device arrays, as NumPy's: `np.interp`, `np.gradient`,
`np.trapezoid`, `np.cross`, `np.convolve`, `np.correlate`.

interp, gradient, trapezoid and cross are NumPy's formulas written with the device's
element-wise operations, gathers and reductions, so each step rounds as NumPy's does
(interp: the slope times the offset plus the left value, in float64; gradient: second-order
central differences, first- or second-order one-sided at the edges, uniform or coordinate
spacing); sums (trapezoid) are in the reductions' tree order.

convolve and correlate sum directly, one invocation per output in index order, while the
shorter operand has at most 4,096 elements; longer ones go through the FFT
(vkpersist/fft/_fft.py) of the full length, which is faster there and accurate to the FFT's
relative error of the largest output. NumPy sums with its dot product either way, so the
device's sums agree with it to rounding, not bit for bit.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .._core.elementwise import LOCAL, groups_for
from .._kernel import kernel
from .._core.indexing import take_within
from .._manipulation import device_operand
from .._core.reduction import inexact
from ..lang.builtins import global_id, global_size
from ..vk.array import Array

DIRECT_MAX = 4096          # longer: through the FFT (also below lavapipe's loop limit)


@kernel
def _correlate_full(a, v, out, zero):
    # out[k] = sum_j a[k + j - (m - 1)] * v[j] over the j that stay inside a
    g = global_id(0)
    n = a.shape[0]
    m = v.shape[0]
    while g < out.shape[0]:
        lo = max(0, m - 1 - g)
        hi = min(m, n + m - 1 - g)
        acc = zero
        for j in range(lo, hi):
            acc += a[g + j - (m - 1)] * v[j]
        out[g] = acc
        g += global_size(0)


def _dev(ctx, x, what: str = "vkpersist"):
    return device_operand(ctx, x, what)


def interp(x, xp, fp, left=None, right=None, period=None):
    """np.interp in float64 (complex128 for complex fp), NumPy's formula and NaN rules."""
    if period is not None:
        raise TypeError("np.interp(period=...) is not supported on vkpersist arrays")
    ctx = next(z.ctx for z in (x, xp, fp) if isinstance(z, Array))
    xp, fp = _dev(ctx, xp, "np.interp"), _dev(ctx, fp, "np.interp")
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("Data points must be 1-D sequences" if xp.ndim != 1 else
                         "object too deep for desired array")
    if xp.shape != fp.shape:
        raise ValueError("fp and xp are not of the same length.")
    if xp.size == 0:
        raise ValueError("array of sample points is empty")
    wide = np.complex128 if fp.dtype.kind == "c" else np.float64
    x = _dev(ctx, x, "np.interp").astype(np.float64, copy=False)
    xp, fp = xp.astype(np.float64, copy=False), fp.astype(wide, copy=False)
    n = xp.size
    f_first, f_last = fp[0], fp[n - 1]
    if n == 1:
        value = np.zeros_like(x, dtype=wide) + f_first
    else:
        j = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, n - 2)
        j1 = j + 1                       # both within [0, n): no bounds record to wait for
        x0, x1 = take_within(xp, j), take_within(xp, j1)
        f0, f1 = take_within(fp, j), take_within(fp, j1)
        if fp.dtype.kind == "c":
            # NumPy's complex loop: each part on its own, its slope times 1 / (x1 - x0)
            # (the parts written into the result's .real and .imag views: no complex
            # arithmetic, which would mix an infinite part into the other, as r + 1j * i)
            inv_dx = 1.0 / (x1 - x0)
            value = Array(ctx, x.shape, wide)
            value.real[...] = _lerp_part(f0.real, f1.real, x, x0, x1, inv_dx)
            value.imag[...] = _lerp_part(f0.imag, f1.imag, x, x0, x1, inv_dx)
        else:
            value = _lerp_part(f0, f1, x, x0, x1)
        value = np.where(x == x0, f0, value)     # at a knot: its value, as NumPy's (also
        value = np.where(x == xp[n - 1], f_last, value)    # when a neighbour is infinite)
        value = np.where(np.isnan(x), x.astype(wide), value)   # a NaN query: NaN (+0j)
    below = f_first if left is None else left
    above = f_last if right is None else right
    value = np.where(x < xp[0], below, value)
    return np.where(x > xp[n - 1], above, value)


def _lerp_part(f0, f1, x, x0, x1, inv_dx=None):
    """NumPy's interpolation between real f0 at x0 and f1 at x1: slope (x - x0) + f0, the
    slope (f1 - f0) / (x1 - x0) (a complex part's: (f1 - f0) * inv_dx); a NaN (from an
    infinite slope) is tried from the right end, then taken flat where f0 == f1."""
    slope = (f1 - f0) / (x1 - x0) if inv_dx is None else (f1 - f0) * inv_dx
    value = slope * (x - x0) + f0
    value = np.where(np.isnan(value), slope * (x - x1) + f1, value)
    return np.where(np.isnan(value) & (f0 == f1), f0, value)


def _edges(f, axis, lo, hi):
    key = [slice(None)] * f.ndim
    key[axis] = slice(lo, hi)
    return f[tuple(key)]


def _along(d, axis, ndim):
    """A 1-d spacing array shaped to broadcast along `axis`."""
    return d.reshape((1,) * axis + (-1,) + (1,) * (ndim - axis - 1))


def gradient(f, *varargs, axis=None, edge_order=1):
    """np.gradient: second-order central differences inside, `edge_order` (1 or 2)
    one-sided at the ends; spacings as scalars or coordinate arrays."""
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    axes = list(range(f.ndim)) if axis is None else \
        [normalize_axis_index(a, f.ndim) for a in ((axis,) if isinstance(axis, int) else axis)]
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    boolean = f.dtype.kind == "b"
    f = inexact(f)
    out = []
    for ax, h in zip(axes, spacing):
        n = f.shape[ax]
        if n < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        if boolean:                   # NumPy subtracts the booleans themselves, and refuses
            raise TypeError("numpy boolean subtract, the `-` operator, is not supported "
                            "(np.gradient of a bool array); convert it first, e.g. "
                            "np.gradient(f.astype(np.int8)) or f.astype(float)")
        g = np.empty_like(f)
        if np.ndim(h) == 0:
            h = float(h)
            _edges(g, ax, 1, -1)[...] = (_edges(f, ax, 2, None) - _edges(f, ax, None, -2)) \
                / (2.0 * h)
            if edge_order == 1:
                _edges(g, ax, 0, 1)[...] = (_edges(f, ax, 1, 2) - _edges(f, ax, 0, 1)) / h
                _edges(g, ax, -1, None)[...] = (_edges(f, ax, -1, None) -
                                                _edges(f, ax, -2, -1)) / h
            else:
                a, b, c = -1.5 / h, 2.0 / h, -0.5 / h
                _edges(g, ax, 0, 1)[...] = a * _edges(f, ax, 0, 1) + \
                    b * _edges(f, ax, 1, 2) + c * _edges(f, ax, 2, 3)
                a, b, c = 0.5 / h, -2.0 / h, 1.5 / h
                _edges(g, ax, -1, None)[...] = a * _edges(f, ax, -3, -2) + \
                    b * _edges(f, ax, -2, -1) + c * _edges(f, ax, -1, None)
        else:
            # NumPy's coefficients are float64 whatever f is (then stored in f's dtype)
            x = _dev(f.ctx, h).astype(np.float64 if f.ctx.info.float64 else f.dtype,
                                      copy=False)
            if x.ndim != 1 or x.size != n:
                raise ValueError("when 1d, distances must match the length of the "
                                 "corresponding dimension")
            dx = np.diff(x)
            d1, d2 = _along(dx[:-1], ax, f.ndim), _along(dx[1:], ax, f.ndim)
            a = -d2 / (d1 * (d1 + d2))
            b = (d2 - d1) / (d1 * d2)
            c = d1 / (d2 * (d1 + d2))
            _edges(g, ax, 1, -1)[...] = a * _edges(f, ax, None, -2) + \
                b * _edges(f, ax, 1, -1) + c * _edges(f, ax, 2, None)
            first, last = dx[0], dx[n - 2]
            if edge_order == 1:
                _edges(g, ax, 0, 1)[...] = (_edges(f, ax, 1, 2) - _edges(f, ax, 0, 1)) / first
                _edges(g, ax, -1, None)[...] = (_edges(f, ax, -1, None) -
                                                _edges(f, ax, -2, -1)) / last
            else:
                e1, e2 = dx[0], dx[1]
                a = -(2.0 * e1 + e2) / (e1 * (e1 + e2))
                b = (e1 + e2) / (e1 * e2)
                c = -e1 / (e2 * (e1 + e2))
                _edges(g, ax, 0, 1)[...] = a * _edges(f, ax, 0, 1) + \
                    b * _edges(f, ax, 1, 2) + c * _edges(f, ax, 2, 3)
                e1, e2 = dx[n - 3], dx[n - 2]
                a = e2 / (e1 * (e1 + e2))
                b = -(e2 + e1) / (e1 * e2)
                c = (2.0 * e2 + e1) / (e2 * (e1 + e2))
                _edges(g, ax, -1, None)[...] = a * _edges(f, ax, -3, -2) + \
                    b * _edges(f, ax, -2, -1) + c * _edges(f, ax, -1, None)
        out.append(g)
    return out[0] if len(out) == 1 else tuple(out)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The trapezoidal rule along `axis`: sum(d * (y[1:] + y[:-1]) / 2)."""
    axis = normalize_axis_index(axis, y.ndim)
    hi, lo = _edges(y, axis, 1, None), _edges(y, axis, None, -1)
    if x is None:
        d = dx
    else:
        xd = _dev(y.ctx, x)
        d = np.diff(xd, axis=-1 if xd.ndim == 1 else axis)
        if xd.ndim == 1:
            d = _along(d, axis, y.ndim)
    return np.sum(d * (hi + lo) / 2.0, axis=axis)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross products of 3-vectors (and the z component for 2-vectors) along the axis."""
    if axis is not None:
        axisa = axisb = axisc = axis
    ctx = next(z.ctx for z in (a, b) if isinstance(z, Array))
    a = np.moveaxis(_dev(ctx, a, "np.cross"), axisa, -1)
    b = np.moveaxis(_dev(ctx, b, "np.cross"), axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 "
                         "or 3)")
    if 2 in (a.shape[-1], b.shape[-1]):
        # 2-vectors: NumPy 2.0 deprecates them and later versions refuse them; the
        # installed NumPy's own warning or error, from a call on vectors of the same sizes
        np.cross(np.zeros(a.shape[-1]), np.zeros(b.shape[-1]))
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else None
    b2 = b[..., 2] if b.shape[-1] == 3 else None
    z = a0 * b1 - a1 * b0
    if a2 is None and b2 is None:
        return z
    if a2 is None:
        parts = [a1 * b2, -(a0 * b2), z]
    elif b2 is None:
        parts = [-(a2 * b1), a2 * b0, z]
    else:
        parts = [a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z]
    return np.moveaxis(np.stack(parts, axis=-1), -1, axisc)


def _full_correlation(a: Array, v: Array) -> Array:
    """c[k] = sum_j a[k + j - (m - 1)] v[j], k in [0, n + m - 1)."""
    n, m = a.size, v.size
    dtype = np.result_type(a.dtype, v.dtype)
    a, v = a.astype(dtype, copy=False), v.astype(dtype, copy=False)
    if min(n, m) <= DIRECT_MAX:
        out = Array(a.ctx, (n + m - 1,), dtype)
        _correlate_full[groups_for(out.size), LOCAL](a, v, out, dtype.type(0))
        return out
    length = n + m - 1                 # through the FFT: the product of the spectra
    spec = np.fft.fft(a, n=length) * np.fft.fft(v[::-1], n=length)
    full = np.fft.ifft(spec)
    return (full if dtype.kind == "c" else full.real).astype(dtype, copy=False)


def _mode(full: Array, n: int, m: int, mode: str) -> Array:
    short, long_ = min(n, m), max(n, m)
    if mode == "full":
        return full
    if mode == "same":
        return full[(short - 1) // 2:(short - 1) // 2 + long_].copy()
    if mode == "valid":
        return full[short - 1:long_].copy()
    raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")


def _operands_1d(a, v, name):
    ctx = next(z.ctx for z in (a, v) if isinstance(z, Array))
    a, v = _dev(ctx, a, f"np.{name}"), _dev(ctx, v, f"np.{name}")
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("object too deep for desired array")
    if a.size == 0:
        raise ValueError(f"{name}: a cannot be empty")
    if v.size == 0:
        raise ValueError(f"{name}: v cannot be empty")
    return a, v


def convolve(a, v, mode="full"):
    a, v = _operands_1d(a, v, "convolve")
    return _mode(_full_correlation(a, v[::-1]), a.size, v.size, mode)


def correlate(a, v, mode="valid"):
    """np.correlate: z[k] = sum_n a[n + k] conj(v[n])."""
    a, v = _operands_1d(a, v, "correlate")
    if v.dtype.kind == "c":
        v = np.conjugate(v)
    return _mode(_full_correlation(a, v), a.size, v.size, mode)
