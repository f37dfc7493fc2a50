"""np.interp, np.gradient, np.trapezoid, np.cross, np.convolve and np.correlate on device
arrays against NumPy: interp and gradient bit for bit (NumPy's formulas, the same
roundings), trapezoid to the reductions' order (1e-15 relative), cross exactly,
convolve/correlate to 3e-6 (single) and 1e-12 (double) of the largest output, both the
direct sums and the FFT path (operands longer than 4,096)."""
import itertools
import re
import warnings

import numpy as np
import pytest

import vkpersist as vkp

RNG = np.random.default_rng(3)


def test_interp_is_numpys(ctx):
    xp = np.sort(RNG.uniform(0, 10, 20))
    fp = np.sin(xp)
    x = np.concatenate([RNG.uniform(-1, 11, 50), xp[:3], [np.nan, xp[-1]]])
    for kw in ({}, {"left": -5.0, "right": 5}):
        got = np.interp(ctx.asarray(x), ctx.asarray(xp), ctx.asarray(fp), **kw)
        want = np.interp(x, xp, fp, **kw)
        assert isinstance(got, vkp.Array) and got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)
    zf = fp + 1j * np.cos(xp)
    np.testing.assert_array_equal(np.interp(ctx.asarray(x), xp, zf).numpy(), np.interp(x, xp, zf))
    np.testing.assert_array_equal(np.interp(ctx.asarray(x[:5]), [2.0], [7.0]).numpy(),
                                  np.interp(x[:5], [2.0], [7.0]))
    with pytest.raises(ValueError, match="same length"):
        np.interp(ctx.asarray(x), xp, fp[:3])


def test_interp_special_values_are_numpys(ctx):
    """NumPy's special cases, bit for bit: a query at a knot is the knot's value (it was
    NaN where a neighbour is infinite); complex fp is interpolated part by part, each part
    repaired on its own (an infinite real part left the imaginary part NaN), and a NaN in
    xp gives NaN between its neighbours (complex fp gave finite values); a NaN query is
    NaN. fp of every combination of 1, 5, +-inf and NaN at three knots."""
    x = np.array([-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, np.nan, np.inf, -np.inf])
    special = [1.0, 5.0, np.inf, -np.inf, np.nan]
    with np.errstate(all="ignore"):
        for xp, queries in (([0.0, 1.0, 2.0], x), ([0.0, np.nan, 2.0], np.array([0.5, 1.5]))):
            dxp, dx = ctx.asarray(np.array(xp)), ctx.asarray(queries)
            for fp in itertools.product(special, repeat=3):
                fp = np.array(fp)
                zf = np.array([complex(a, b) for a, b in zip(fp, fp[::-1])])
                for f in (fp, zf):
                    got = np.interp(dx, dxp, ctx.asarray(f)).numpy()
                    want = np.interp(queries, np.array(xp), f)
                    assert got.dtype == want.dtype
                    np.testing.assert_array_equal(got.real, want.real, err_msg=f"{xp} {f}")
                    np.testing.assert_array_equal(got.imag, want.imag, err_msg=f"{xp} {f}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_gradient_is_numpys(ctx, dtype):
    f = (RNG.standard_normal((6, 7)) * 10).astype(dtype)
    df = ctx.asarray(f)
    rows, cols = np.cumsum(RNG.random(6) + 0.1), np.cumsum(RNG.random(7) + 0.1)
    for args, kw in [((), {}), ((0.5,), {}), ((0.5, 2.0), {}), ((), {"edge_order": 2}),
                     ((), {"axis": 1}), ((rows,), {"axis": 0, "edge_order": 2}),
                     ((cols,), {"axis": 1}), ((rows, cols), {"edge_order": 2})]:
        got, want = np.gradient(df, *args, **kw), np.gradient(f, *args, **kw)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g.numpy(), w)
    with pytest.raises(ValueError, match="too small"):
        np.gradient(ctx.asarray(np.ones(2)), edge_order=2)


def test_gradient_of_booleans_is_refused_as_numpys(ctx):
    """NumPy's gradient subtracts a bool array's elements as booleans and raises TypeError
    (vkpersist converted them to float64 and answered); too short an array is still the
    ValueError first, as NumPy's. Other dtypes are unchanged: int8 as NumPy's."""
    f = np.array([[True, False, True], [False, False, True]])
    for kw in ({}, {"axis": 1}, {"axis": 1, "edge_order": 2}):
        with pytest.raises(TypeError) as want:
            np.gradient(f, **kw)
        with pytest.raises(TypeError, match="boolean subtract") as got:
            np.gradient(ctx.asarray(f), **kw)
        assert str(want.value).split(",")[0] in str(got.value)
    with pytest.raises(ValueError, match="too small"):
        np.gradient(np.array([True]))
    with pytest.raises(ValueError, match="too small"):
        np.gradient(ctx.asarray(np.array([True])))
    i = f.astype(np.int8)
    for g, w in zip(np.gradient(ctx.asarray(i)), np.gradient(i)):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g.numpy(), w)


def test_trapezoid_and_cross(ctx):
    y = RNG.standard_normal((4, 9))
    x = np.cumsum(RNG.random(9))
    dy = ctx.asarray(y)
    np.testing.assert_allclose(np.trapezoid(dy, x).numpy(), np.trapezoid(y, x), rtol=1e-14)
    np.testing.assert_allclose(np.trapezoid(dy, dx=0.3, axis=0).numpy(),
                               np.trapezoid(y, dx=0.3, axis=0), rtol=1e-14, atol=1e-15)
    a, b = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 3))
    da, db = ctx.asarray(a), ctx.asarray(b)
    np.testing.assert_array_equal(np.cross(da, db).numpy(), np.cross(a, b))
    np.testing.assert_array_equal(np.cross(da.T, db.T, axis=0).numpy(),
                                  np.cross(a.T, b.T, axis=0))
    for ka, kb in ((2, 2), (2, 3)):
        # NumPy 2.0 deprecates 2-vectors and later versions refuse them: as NumPy does
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                want = np.cross(a[:, :ka], b[:, :kb])
            except ValueError as refused:
                with pytest.raises(ValueError, match=re.escape(str(refused))):
                    np.cross(da[:, :ka], db[:, :kb])
            else:
                np.testing.assert_array_equal(np.cross(da[:, :ka], db[:, :kb]).numpy(), want)


@pytest.mark.parametrize("sizes", [(50, 7), (7, 50), (1, 1), (10, 10), (5000, 4200)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_convolve_and_correlate_are_numpys(ctx, sizes, dtype):
    n, m = sizes
    u, v = RNG.standard_normal(n), RNG.standard_normal(m)
    if np.dtype(dtype).kind == "c":
        u, v = u + 1j * RNG.standard_normal(n), v + 1j * RNG.standard_normal(m)
    u, v = u.astype(dtype), v.astype(dtype)
    tol = 1e-12 if dtype == np.float64 else 3e-6
    for f in (np.convolve, np.correlate):
        for mode in ("full", "same", "valid"):
            got, want = f(ctx.asarray(u), ctx.asarray(v), mode), f(u, v, mode)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.abs(got.numpy() - want).max() <= tol * np.abs(want).max()
    with pytest.raises(ValueError, match="mode must be one of"):
        np.convolve(ctx.asarray(u), ctx.asarray(v), "middle")


def test_operands_of_two_contexts_are_refused_by_name(ctx):
    other = vkp.Context(ctx.info.index)
    a, b = ctx.asarray(np.arange(6.0)), other.asarray(np.arange(6.0))
    for name, call in [("np.interp", lambda: np.interp(a, b, b)),
                       ("np.convolve", lambda: np.convolve(a, b)),
                       ("np.searchsorted", lambda: np.searchsorted(a, b)),
                       ("np.einsum", lambda: np.einsum("i,i", a, b))]:
        with pytest.raises(vkp.VkPersistError, match=f"{name}.*different Contexts"):
            call()
    other.close()
