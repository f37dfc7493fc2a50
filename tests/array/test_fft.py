"""np.fft on device arrays against NumPy's pocketfft: every transform, power-of-two and
other lengths (Bluestein), both precisions, n=/s= truncation and padding, axes, norms.
Tolerance: the largest error over the largest |result|, 2e-6 in single precision and
4e-15 in double (measured: 2.5e-7 and 1.0e-15 at n = 1000)."""
import numpy as np
import pytest

import vkpersist as vkp

RNG = np.random.default_rng(9)
TOL = {np.dtype(np.complex64): 2e-6, np.dtype(np.complex128): 4e-15,
       np.dtype(np.float32): 2e-6, np.dtype(np.float64): 4e-15}


def _data(dtype, shape):
    x = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def _close(got, want, tol):
    assert isinstance(got, vkp.Array)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                 got.shape, want.shape)
    err = np.abs(got.numpy() - want).max() / max(np.abs(want).max(), 1e-300)
    assert err <= tol, err


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 16, 1024, 3, 12, 100, 1000])
def test_fft_and_ifft_along_rows(ctx, dtype, n):
    x = _data(dtype, (3, n))
    dx = ctx.asarray(x)
    tol = TOL[np.dtype(dtype)]
    _close(np.fft.fft(dx), np.fft.fft(x), tol)
    _close(np.fft.ifft(dx), np.fft.ifft(x), tol)


@pytest.mark.parametrize("dtype", [np.complex64, np.float64])
def test_lengths_axes_and_norms(ctx, dtype):
    x = _data(dtype, (6, 10, 8))
    dx = ctx.asarray(x)
    tol = TOL[np.dtype(dtype)]
    for kw in [dict(n=16, axis=1), dict(n=5, axis=0), dict(axis=0, norm="ortho"),
               dict(norm="forward"), dict(n=7, norm="backward")]:
        _close(np.fft.fft(dx, **kw), np.fft.fft(x, **kw), tol)
        _close(np.fft.ifft(dx, **kw), np.fft.ifft(x, **kw), tol)
    _close(np.fft.fft(dx[:, ::2, 1]), np.fft.fft(x[:, ::2, 1]), tol)      # a strided view


def test_multidimensional_and_real_transforms(ctx):
    x = _data(np.float64, (6, 10, 8))
    dx = ctx.asarray(x)
    tol = TOL[np.dtype(np.float64)]
    _close(np.fft.fft2(dx), np.fft.fft2(x), tol)
    _close(np.fft.ifft2(dx, axes=(0, 2)), np.fft.ifft2(x, axes=(0, 2)), tol)
    _close(np.fft.fftn(dx), np.fft.fftn(x), tol)
    _close(np.fft.ifftn(dx, s=(4, 12), axes=(0, 1)), np.fft.ifftn(x, s=(4, 12), axes=(0, 1)),
           tol)
    for axis in (-1, 0):
        _close(np.fft.rfft(dx, axis=axis), np.fft.rfft(x, axis=axis), tol)
    half = np.fft.rfft(x)
    for n in (None, 14, 15):
        _close(np.fft.irfft(ctx.asarray(half), n=n), np.fft.irfft(half, n=n), tol)
    _close(np.fft.rfft2(dx), np.fft.rfft2(x), tol)
    _close(np.fft.rfftn(dx), np.fft.rfftn(x), tol)
    spec = np.fft.rfftn(x)
    _close(np.fft.irfftn(ctx.asarray(spec), s=x.shape, axes=(0, 1, 2)),
           np.fft.irfftn(spec, s=x.shape, axes=(0, 1, 2)), tol)
    _close(np.fft.irfft2(ctx.asarray(np.fft.rfft2(x))), np.fft.irfft2(np.fft.rfft2(x)), tol)
    f = _data(np.float32, (5, 6))
    _close(np.fft.rfft(ctx.asarray(f)), np.fft.rfft(f), TOL[np.dtype(np.float32)])


def test_irfft_output_dtype_is_numpys(ctx):
    """np.fft.irfft's output dtype is result_type(a.real.dtype, 1.0): float16 input stays
    float16 (NumPy computes in float32 and rounds once; tolerance one float16 rounding),
    int8 and bool give float64; irfftn of one axis is irfft, of two (a complex pass
    first) float32, as NumPy's."""
    h = np.array([[1.5, -2.0, 0.25, 3.0, 1.0], [0.0, 1.0, -1.0, 0.5, 2.0]], np.float16)
    dh = ctx.asarray(h)
    for got, want in ((np.fft.irfft(dh), np.fft.irfft(h)),
                      (np.fft.irfft(dh, n=7, axis=0), np.fft.irfft(h, n=7, axis=0)),
                      (np.fft.irfftn(dh[0]), np.fft.irfftn(h[0])),
                      (np.fft.irfft2(dh), np.fft.irfft2(h))):
        _close(got, want, 1e-3)
    for dtype in (np.int8, np.bool_):
        x = h.astype(dtype)
        _close(np.fft.irfft(ctx.asarray(x)), np.fft.irfft(x), TOL[np.dtype(np.float64)])


def test_shifts_and_round_trip(ctx):
    x = _data(np.complex128, (5, 8))
    dx = ctx.asarray(x)
    np.testing.assert_array_equal(np.fft.fftshift(dx).numpy(), np.fft.fftshift(x))
    np.testing.assert_array_equal(np.fft.ifftshift(dx, axes=1).numpy(),
                                  np.fft.ifftshift(x, axes=1))
    back = np.fft.ifft(np.fft.fft(dx, axis=0), axis=0)
    np.testing.assert_allclose(back.numpy(), x, atol=1e-14)
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        np.fft.fft(dx, n=0)
    with pytest.raises(ValueError, match="Invalid norm value"):
        np.fft.fft(dx, norm="unit")
    with pytest.raises(TypeError, match="complex input"):
        np.fft.rfft(dx)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_rows_in_shared_memory_equal_the_radix2_passes(ctx, dtype, monkeypatch):
    """Rows of 64 up to ROW_BYTES bytes are transformed whole by one workgroup in shared
    memory (vkpersist/fft/_fft.py; on GPUs, forced here): the same butterflies and twiddles as
    the radix-2 passes in another order, so the same bits on lavapipe (a GPU compiler may
    contract differently: a few ulp there); with 3 workgroups a launch, each takes several
    rows."""
    if np.dtype(dtype) == np.complex128 and not ctx.info.float64:
        pytest.skip("no float64 on this device")
    import dataclasses
    from vkpersist.fft import _fft, _kernels as _fft_kernels
    monkeypatch.setattr(_fft, "ROW_GROUPS", 3)
    monkeypatch.setattr(ctx, "target", dataclasses.replace(ctx.target, fft_rows_in_shared=True))
    for n in (64, 256, _fft_kernels.room(dtype)):
        x = ctx.asarray(_data(dtype, (7, n)))
        rows = [np.fft.fft(x).numpy(), np.fft.ifft(x).numpy()]
        monkeypatch.setattr(_fft, "ROW_MIN", 1 << 30)            # the passes
        passes = [np.fft.fft(x).numpy(), np.fft.ifft(x).numpy()]
        monkeypatch.setattr(_fft, "ROW_MIN", 64)
        for got, want in zip(rows, passes):
            if ctx.info.kind == "cpu":
                np.testing.assert_array_equal(got, want)
            else:           # two kernels a GPU compiler may contract to FMA differently
                eps = np.finfo(np.dtype(dtype).char.lower()).eps
                np.testing.assert_allclose(got, want, rtol=0,
                                           atol=8 * eps * np.abs(want).max())
        _close(np.fft.fft(x), np.fft.fft(x.numpy()), TOL[np.dtype(dtype)])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_large_radix_passes_and_fused_bluestein_rows(ctx, dtype, monkeypatch):
    """Rows longer than shared memory take Stockham passes of radix up to 256 (three at
    2**24 complex64), and Bluestein lengths whose padded rows fit run whole in one kernel
    (vkpersist/fft/_kernels.py; GPUs only, forced here). Shared memory is shrunk to 1 KB
    so that small rows take 2-4 passes of radix 8 or 16 (both ways of writing a pass's
    results: sub-transforms shorter and longer than a workgroup's block), and 3
    workgroups each take several blocks."""
    if np.dtype(dtype) == np.complex128 and not ctx.info.float64:
        pytest.skip("no float64 on this device")
    import dataclasses
    from vkpersist.fft import _fft, _kernels as _fft_kernels
    monkeypatch.setattr(_fft, "ROW_GROUPS", 3)
    monkeypatch.setattr(_fft_kernels, "ROW_BYTES", 1024)
    monkeypatch.setattr(ctx, "target", dataclasses.replace(ctx.target, fft_rows_in_shared=True))
    assert _fft.radix_plan(8192, dtype) == [4, 3, 3, 3]          # radix 16, then 8s
    tol = TOL[np.dtype(dtype)]
    for shape in [(3, 4096), (2, 8192), (1, 1 << 15), (5, 17), (4, 30), (2, 100), (3, 1000)]:
        x = _data(dtype, shape)
        dx = ctx.asarray(x)
        _close(np.fft.fft(dx), np.fft.fft(x), tol)
        _close(np.fft.ifft(dx), np.fft.ifft(x), tol)
    x = _data(dtype, (4096, 6))      # along axis 0: the moved axis is copied contiguous
    _close(np.fft.fft(ctx.asarray(x), axis=0), np.fft.fft(x, axis=0), tol)
