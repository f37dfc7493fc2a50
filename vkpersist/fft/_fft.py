"""Discrete Fourier transforms of device arrays: NumPy's `np.fft.fft`, `ifft`, `fft2`,
`ifft2`, `fftn`, `ifftn`, `rfft`, `irfft`, `rfft2`, `irfft2`, `rfftn`, `irfftn`,
`fftshift`, `ifftshift`, with `n=`/`s=`, `axis=`/`axes=` and `norm=`.

Lengths that are powers of two run the Stockham autosort transform, which needs no
bit-reversal pass. Where the device keeps FFT rows in shared memory (vk/target.py
`fft_rows_in_shared`: GPUs), a row of up to 16 KB is transformed whole by one workgroup,
and longer rows take passes of radix up to 256 (three at 2**24 complex64), each a launch
that reads and writes the array once (_fft_kernels.py). Elsewhere (lavapipe) every
factor of two is a launch of n/2 butterflies per row. All passes go in one submission.
The twiddle factors are a table computed on the host in float64 (exp(-2 pi i m / n),
rounded once to the array's precision), not sines computed on the device, so the error
grows like log2(n) roundings. Other lengths go through Bluestein's chirp-z identity: two
power-of-two transforms of length m >= 2n - 1 and products with the chirp
exp(-pi i k^2 / n) (k^2 taken mod 2n on the host before the exponential, so the chirp is
accurate for large k too; the tables are kept per context); where m fits shared memory
the whole of it is one kernel per row. A few times the error of a power-of-two length.

Types are NumPy 2's: float32 and complex64 give complex64 (rfft: of float32), float64,
complex128 and integers complex128. Real transforms are the complex transform of the real
input, keeping the first n // 2 + 1 terms (irfft: the Hermitian spectrum rebuilt, the
real part kept): twice the work of a dedicated real FFT, the same results.
"""
from __future__ import annotations

import weakref

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .._core.elementwise import LOCAL, groups_for
from .._kernel import kernel
from . import _kernels as K
from ..lang.builtins import global_id, global_size
from ..vk.array import Array

_TWIDDLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # ctx -> {(n, type): table}


@kernel
def _stockham(x, y, tw, p, inverse):
    # one radix-2 pass: sub-transforms of length p become length 2p (Stockham autosort)
    g = global_id(0)
    n = x.shape[1]
    h = n // 2
    stride = h // p
    while g < x.shape[0] * h:
        row = g // h
        i = g - row * h
        k = i & (p - 1)
        w = tw[k * stride]
        if inverse != 0:
            w = w.conjugate()
        u0 = x[row, i]
        u1 = x[row, i + h] * w
        j = (i - k) * 2 + k
        y[row, j] = u0 + u1
        y[row, j + p] = u0 - u1
        g += global_size(0)



ROW_MIN = 64                # shorter rows keep the radix-2 passes (few, and a workgroup a
                            # row would idle most of its invocations)
ROW_GROUPS = 65535          # workgroups of a launch; each takes every ROW_GROUPS-th block
_BLUESTEIN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # ctx -> {key: tables}


def _complex_type(dtype: np.dtype) -> np.dtype:
    if dtype.kind == "c":
        return dtype
    return np.dtype(np.complex64 if dtype in (np.float32, np.float16) else np.complex128)


def _twiddles(ctx, n: int, ctype) -> Array:
    tables = _TWIDDLES.setdefault(ctx, {})
    tw = tables.get((n, ctype))
    if tw is None:
        host = np.exp(-2j * np.pi * np.arange(n // 2, dtype=np.float64) / n).astype(ctype)
        tw = tables[(n, ctype)] = ctx.asarray(host if n > 1 else np.ones(1, ctype))
    return tw


def _in_shared(x: Array) -> bool:
    """Whether this device runs the shared-memory kernels (vk/target.py says where)."""
    return x.ctx.target.fft_rows_in_shared and x.ctx.info.max_shared_memory >= K.ROW_BYTES


def _pow2_rows(x: Array, inverse: bool) -> Array:
    """The unnormalised DFT of each row of the contiguous complex (rows, n), n = 2**k."""
    rows, n = x.shape
    if n == 1:
        return x.copy()
    tw = _twiddles(x.ctx, n, x.dtype)
    if _in_shared(x) and n >= ROW_MIN:
        if n <= K.room(x.dtype):
            y = Array(x.ctx, x.shape, x.dtype)
            K.row_kernel(x.dtype)[min(rows, ROW_GROUPS), K.LOCAL](
                x, y, tw, np.int32(n.bit_length() - 1), np.int32(inverse))
            return y
        return _radix_passes(x, tw, inverse)
    # the first pass reads x itself (never written), later ones ping-pong between two
    # buffers of their own
    a, b = x, Array(x.ctx, x.shape, x.dtype)
    p = 1
    with x.ctx.batched():
        while p < n:
            _stockham[groups_for(rows * n // 2), LOCAL](a, b, tw, np.int32(p), np.int32(inverse))
            a, b = b, (Array(x.ctx, x.shape, x.dtype) if a is x else a)
            p *= 2
    return a


def radix_plan(n: int, ctype) -> list[int]:
    """log2 of each pass's radix for rows of n = 2**k too long for shared memory: as few
    passes as shared memory allows while a workgroup still reads runs of
    K.MIN_RUN_BYTES, the bits spread evenly (2**24 complex64: 8, 8, 8)."""
    total = n.bit_length() - 1
    run = max(1, K.MIN_RUN_BYTES // np.dtype(ctype).itemsize)
    cap = (K.room(ctype) // run).bit_length() - 1
    passes = -(-total // cap)
    base, extra = divmod(total, passes)
    return [base + 1] * extra + [base] * (passes - extra)


def _radix_passes(x: Array, tw: Array, inverse: bool) -> Array:
    rows, n = x.shape
    a, b = x, Array(x.ctx, x.shape, x.dtype)
    pbits = 0                   # the sub-transforms' length so far is 2**pbits
    with x.ctx.batched():
        for rbits in radix_plan(n, x.dtype):
            bbits = min(K.room(x.dtype) >> rbits, n >> rbits).bit_length() - 1
            blocks = rows * (n >> (rbits + bbits))
            K.pass_kernel(x.dtype)[min(blocks, ROW_GROUPS), K.LOCAL](
                a, b, tw, np.int32(n.bit_length() - 1), np.int32(pbits), np.int32(rbits),
                np.int32(bbits), np.int32(inverse))
            a, b = b, (Array(x.ctx, x.shape, x.dtype) if a is x else a)
            pbits += rbits
    return a


def _bluestein_tables(ctx, n: int, m: int, ctype, inverse: bool):
    """The chirp exp(-+ pi i k^2 / n) (k^2 taken mod 2n before the exponential, so that it
    is accurate for large k too), the spectrum of its conjugate's circular kernel of length
    m, and the chirp over m; in float64 on the host, rounded once, kept per context."""
    tables = _BLUESTEIN.setdefault(ctx, {})
    key = (n, m, np.dtype(ctype), inverse)
    if key not in tables:
        k = np.arange(n, dtype=np.int64)
        chirp = np.exp((1.0 if inverse else -1.0) * 1j * np.pi * ((k * k) % (2 * n)) / n)
        kernel_ = np.zeros(m, np.complex128)
        kernel_[:n] = np.conj(chirp)
        kernel_[m - n + 1:] = np.conj(chirp[1:][::-1])
        tables[key] = tuple(ctx.asarray(v.astype(ctype))
                            for v in (chirp, np.fft.fft(kernel_), chirp / m))
    return tables[key]


def _bluestein_rows(x: Array, inverse: bool) -> Array:
    """The unnormalised DFT of each row of (rows, n) for any n, through the chirp-z
    identity and power-of-two transforms of length m >= 2n - 1: one kernel per row where
    m fits shared memory."""
    rows, n = x.shape
    m = 1 << (2 * n - 2).bit_length()
    chirp, spectrum, post = _bluestein_tables(x.ctx, n, m, x.dtype, inverse)
    if _in_shared(x) and m <= K.room(x.dtype):
        y = Array(x.ctx, x.shape, x.dtype)
        K.bluestein_kernel(x.dtype)[min(rows, ROW_GROUPS), K.LOCAL](
            x, y, chirp, spectrum, post, _twiddles(x.ctx, m, x.dtype),
            np.int32(m.bit_length() - 1))
        return y
    padded = x.ctx.zeros((rows, m), x.dtype)
    padded[:, :n] = x * chirp
    conv = _pow2_rows(_pow2_rows(padded, False) * spectrum, True)
    return conv[:, :n] * post


def _rows(x: Array, inverse: bool) -> Array:
    n = x.shape[1]
    return _pow2_rows(x, inverse) if n & (n - 1) == 0 else _bluestein_rows(x, inverse)


def _scale(norm, n: int, inverse: bool):
    if norm not in (None, "backward", "ortho", "forward"):
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or '
                         '"forward".')
    if norm == "ortho":
        return 1 / np.sqrt(n)
    if (norm in (None, "backward")) == inverse:
        return 1.0 / n
    return None


def _c2c(a, n, axis, norm, inverse, name):
    if not isinstance(a, Array):
        return getattr(np.fft, name)(a, n, axis, norm)
    axis = normalize_axis_index(axis, a.ndim)
    x = a.astype(_complex_type(a.dtype), copy=False)
    n = x.shape[axis] if n is None else int(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    x = np.moveaxis(x, axis, -1)
    have = x.shape[-1]
    if n < have:
        x = x[..., :n]
    elif n > have:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, n - have)])
    lead = x.shape[:-1]
    rows = x.reshape(-1, n) if x._contiguous else x.copy().reshape(-1, n)
    out = _rows(rows, inverse)
    scale = _scale(norm, n, inverse)
    if scale is not None:
        out = out * x.real.dtype.type(scale)
    return np.moveaxis(out.reshape(lead + (n,)), -1, axis).copy()


def fft(a, n=None, axis=-1, norm=None, out=None):
    _no_out(out, "fft")
    return _c2c(a, n, axis, norm, False, "fft")


def ifft(a, n=None, axis=-1, norm=None, out=None):
    _no_out(out, "ifft")
    return _c2c(a, n, axis, norm, True, "ifft")


def _no_out(out, name):
    if out is not None:
        raise TypeError(f"np.fft.{name}(out=...) is not supported on vkpersist arrays")


def _axes_sizes(a, s, axes, real_last=False):
    if axes is None:
        axes = tuple(range(a.ndim)) if s is None else tuple(range(-len(s), 0))
    axes = tuple(normalize_axis_index(ax, a.ndim) for ax in axes)
    if s is None:
        s = [a.shape[ax] for ax in axes]
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    return list(axes), list(s)


def _cnd(a, s, axes, norm, inverse):
    axes, sizes = _axes_sizes(a, s, axes)
    for ax, n in zip(reversed(axes), reversed(sizes)):
        a = _c2c(a, n, ax, norm, inverse, "ifft" if inverse else "fft")
    return a


def fftn(a, s=None, axes=None, norm=None, out=None):
    _no_out(out, "fftn")
    return _cnd(a, s, axes, norm, False)


def ifftn(a, s=None, axes=None, norm=None, out=None):
    _no_out(out, "ifftn")
    return _cnd(a, s, axes, norm, True)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    _no_out(out, "fft2")
    return _cnd(a, s, axes, norm, False)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    _no_out(out, "ifft2")
    return _cnd(a, s, axes, norm, True)




def rfft(a, n=None, axis=-1, norm=None, out=None):
    _no_out(out, "rfft")
    if a.dtype.kind == "c":
        raise TypeError("ufunc 'rfft' not supported for complex input (np.fft.rfft takes "
                        "real arrays)")
    axis = normalize_axis_index(axis, a.ndim)
    full = _c2c(a, n, axis, norm, False, "fft")
    keep = full.shape[axis] // 2 + 1
    return full[(slice(None),) * axis + (slice(0, keep),)].copy()


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """The real inverse of a half spectrum: the Hermitian spectrum rebuilt (terms beyond
    the first n // 2 + 1 from their conjugates), inverted, the real part kept."""
    _no_out(out, "irfft")
    axis = normalize_axis_index(axis, a.ndim)
    x = np.moveaxis(a.astype(_complex_type(a.dtype), copy=False), axis, -1)
    n = 2 * (x.shape[-1] - 1) if n is None else int(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    half = n // 2 + 1
    have = x.shape[-1]
    x = x[..., :half] if have >= half else np.pad(x, [(0, 0)] * (x.ndim - 1) +
                                                   [(0, half - have)])
    x = x.copy()
    x[..., 0] = x[..., 0].real                    # NumPy's c2r ignores these imaginary parts
    if n % 2 == 0:
        x[..., half - 1] = x[..., half - 1].real
    mirror = np.conjugate(x[..., 1:n - half + 1][..., ::-1])
    spectrum = np.concatenate([x, mirror], axis=-1)
    result = np.moveaxis(_c2c(spectrum, n, -1, norm, True, "ifft").real, -1, axis)
    # NumPy's output dtype is result_type(a.real.dtype, 1.0): float16 input gives float16
    # (computed in float32, as NumPy's loop, and rounded once)
    real = np.result_type(a.real.dtype if a.dtype.kind == "c" else a.dtype, 1.0)
    return result.astype(real) if real != result.dtype else result.copy()


def _rnd(a, s, axes, norm, inverse):
    axes, sizes = _axes_sizes(a, s, axes)
    if not inverse:
        a = rfft(a, sizes[-1], axes[-1], norm)
        for ax, n in zip(reversed(axes[:-1]), reversed(sizes[:-1])):
            a = _c2c(a, n, ax, norm, False, "fft")
        return a
    if s is None:
        sizes[-1] = 2 * (a.shape[axes[-1]] - 1)
    for ax, n in zip(axes[:-1], sizes[:-1]):
        a = _c2c(a, n, ax, norm, True, "ifft")
    return irfft(a, sizes[-1], axes[-1], norm)


def rfftn(a, s=None, axes=None, norm=None, out=None):
    _no_out(out, "rfftn")
    return _rnd(a, s, axes, norm, False)


def irfftn(a, s=None, axes=None, norm=None, out=None):
    _no_out(out, "irfftn")
    return _rnd(a, s, axes, norm, True)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    _no_out(out, "rfft2")
    return _rnd(a, s, axes, norm, False)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    _no_out(out, "irfft2")
    return _rnd(a, s, axes, norm, True)




def _shift(x, axes, inverse):
    axes = tuple(range(x.ndim)) if axes is None else \
        ((axes,) if isinstance(axes, int) else tuple(axes))
    shifts = [(-(x.shape[ax] // 2) if inverse else x.shape[ax] // 2) for ax in axes]
    return np.roll(x, shifts, axes)


def fftshift(x, axes=None):
    return _shift(x, axes, False)


def ifftshift(x, axes=None):
    return _shift(x, axes, True)
