"""Order statistics and comparisons on device arrays against NumPy: median, quantile,
percentile (NumPy's "linear" method, bit for bit, dtypes included: a Python q keeps
float32, a float32 q float32, a float64 q float64, as NumPy's), ptp, average, and
isclose/allclose/array_equal."""
import numpy as np
import pytest

import vkpersist as vkp

RNG = np.random.default_rng(4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_median_and_quantiles_are_numpys(ctx, dtype, axis):
    x = (RNG.standard_normal((5, 8)) * 10).astype(dtype)
    dx = ctx.asarray(x)
    for kd in (False, True):
        cases = [(np.median(dx, axis=axis, keepdims=kd), np.median(x, axis=axis, keepdims=kd))]
        for q in (0.0, 0.3, 0.5, 0.77, 1.0, [0.1, 0.9], np.float64(0.25)):
            cases.append((np.quantile(dx, q, axis=axis, keepdims=kd),
                          np.quantile(x, q, axis=axis, keepdims=kd)))
        cases.append((np.percentile(dx, [25, 50, 99], axis=axis, keepdims=kd),
                      np.percentile(x, [25, 50, 99], axis=axis, keepdims=kd)))
        for got, want in cases:
            got = np.asarray(got)
            assert got.dtype == want.dtype and got.shape == np.shape(want)
            np.testing.assert_array_equal(got, want)


def test_nan_slices_ptp_and_average(ctx):
    x = RNG.standard_normal((4, 6))
    x[1, 2] = np.nan
    dx = ctx.asarray(x)
    np.testing.assert_array_equal(np.median(dx, axis=1).numpy(), np.median(x, axis=1))
    np.testing.assert_array_equal(np.quantile(dx, 0.4, axis=1).numpy(),
                                  np.quantile(x, 0.4, axis=1))
    y = RNG.integers(-9, 9, (3, 5)).astype(np.int32)
    np.testing.assert_array_equal(np.ptp(ctx.asarray(y), axis=1).numpy(), np.ptp(y, axis=1))
    assert int(np.ptp(ctx.asarray(y))) == np.ptp(y)
    w = RNG.random(6)
    z = RNG.standard_normal((4, 6))
    dz = ctx.asarray(z)
    np.testing.assert_allclose(np.average(dz, axis=1, weights=w).numpy(),
                               np.average(z, axis=1, weights=w), rtol=1e-12)
    np.testing.assert_allclose(np.average(dz, weights=ctx.asarray(np.abs(z))).numpy(),
                               np.average(z, weights=np.abs(z)), rtol=1e-12)
    avg, total = np.average(dz, axis=0, weights=RNG.random(4) + 0.1, returned=True)
    assert avg.shape == total.shape == (6,)
    np.testing.assert_allclose(float(np.average(dz)), np.average(z), rtol=1e-12)
    with pytest.raises(ZeroDivisionError):
        np.average(dz, axis=1, weights=np.zeros(6))
    with pytest.raises(ValueError, match="range \\[0, 1\\]"):
        np.quantile(dz, 1.5)
    with pytest.raises(TypeError, match="method='linear'"):
        np.quantile(dz, 0.5, method="nearest")


def test_isclose_allclose_array_equal(ctx):
    a = np.array([1.0, np.inf, np.nan, 1e-9, -np.inf, 2.0])
    b = np.array([1.0 + 1e-6, np.inf, np.nan, 0.0, np.inf, 2.1])
    da, db = ctx.asarray(a), ctx.asarray(b)
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.1}, {"atol": 0.0}):
        np.testing.assert_array_equal(np.isclose(da, db, **kw).numpy(), np.isclose(a, b, **kw))
        assert np.allclose(da, db, **kw) == np.allclose(a, b, **kw)
    assert np.allclose(da, da, equal_nan=True) and not np.allclose(da, da)
    assert np.array_equal(da, da, equal_nan=True) and not np.array_equal(da, da)
    assert not np.array_equal(da, da[:3])
    assert np.array_equal(ctx.asarray(np.arange(4)), ctx.asarray(np.arange(4)))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint32, np.uint64])
def test_isclose_of_integers_is_computed_in_floating_point(ctx, dtype):
    """NumPy makes the second operand inexact before subtracting: integer operands never
    wrap (isclose(int32 0, int32 -2**31) and isclose(uint64 0, uint64 2**64-1) are False)."""
    info = np.iinfo(dtype)
    a = np.array([0, info.max, info.min, 5, info.max], dtype=dtype)
    b = np.array([info.min, info.min, info.max, 5, info.max - 1], dtype=dtype)
    da, db = ctx.asarray(a), ctx.asarray(b)
    for x, y, dx, dy in ((a, b, da, db), (b, a, db, da)):
        got = np.isclose(dx, dy).numpy()
        np.testing.assert_array_equal(got, np.isclose(x, y))
        assert got.dtype == np.isclose(x, y).dtype
        assert np.allclose(dx, dy) == np.allclose(x, y)
    np.testing.assert_array_equal(np.isclose(da, int(info.min)).numpy(),
                                  np.isclose(a, int(info.min)))


def test_average_returned_weight_sum_has_numpys_dtype(ctx):
    """np.average(weights=, returned=True) computes in result_type(a, w) (at least float64
    for integer or bool data): the weights' sum of an integer or bool array is float64,
    and integer products never wrap, as NumPy's."""
    a = np.array([[1.5, 2.0, -3.0], [4.0, 0.5, 6.0]])
    big = np.array([[2**30, 3, 2**30], [5, 2**30, 7]], dtype=np.int32)
    cases = [(a, np.array([[1, 2, 3], [4, 5, 6]]), {}),
             (a, np.array([[True, False, True], [True, True, False]]), {}),
             (a.astype(np.float32), np.array([1, 2], np.int8), {"axis": 0}),
             (big, np.array([[4, 1, 4], [2, 4, 1]], np.int32), {"axis": 1}),
             (big, np.array([True, False, True]), {"axis": 1, "keepdims": True})]
    for x, w, kw in cases:
        got_avg, got_sum = np.average(ctx.asarray(x), weights=ctx.asarray(w), returned=True, **kw)
        want_avg, want_sum = np.average(x, weights=w, returned=True, **kw)
        for got, want in ((got_avg, want_avg), (got_sum, want_sum)):
            got = np.asarray(got)
            assert got.dtype == want.dtype and got.shape == np.shape(want), (x.dtype, w.dtype)
            np.testing.assert_allclose(got, want, rtol=1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int16, np.int32,
                                   np.uint8])
def test_quantile_dtype_follows_q_as_numpys(ctx, dtype):
    """NumPy's result type comes from the data and q: a float32 (or float16) q keeps
    float32 data and makes int8/int16 data float32, a float64 q gives float64, a Python
    number is weak, an integer q picks the element itself in the data's dtype; q of 2
    dimensions is taken, of 3 refused (ValueError). A NaN in a float slice with one q is
    the data's NaN (float32), as NumPy returns it. Values bit for bit."""
    x = (RNG.standard_normal((5, 7)) * 40).astype(dtype)
    if x.dtype.kind == "f":
        x[2, 4] = np.nan
    dx = ctx.asarray(x)
    qs = (np.float32(0.3), np.float32(0.75), np.float16(0.6), np.float64(0.3), 0.3, 1,
          np.int64(0), np.array([0.1, 0.5, 1.0], np.float32), np.array([0, 1]),
          [[0.1, 0.2], [0.9, 1.0]])
    for axis in (None, 1):
        for q in qs:
            pq = q * 100 if isinstance(q, (int, float)) else np.multiply(q, 100)
            for got, want in ((np.quantile(dx, q, axis=axis), np.quantile(x, q, axis=axis)),
                              (np.percentile(dx, pq, axis=axis),
                               np.percentile(x, pq, axis=axis))):
                got = np.asarray(got)
                assert got.dtype == want.dtype and got.shape == np.shape(want), (q, axis)
                np.testing.assert_array_equal(got, want, err_msg=f"q={q!r} axis={axis}")
    with pytest.raises(ValueError, match="q must be a scalar or 1d"):
        np.quantile(dx, np.full((1, 1, 1), 0.5))
    with pytest.raises(ValueError, match="q must be a scalar or 1d"):
        np.percentile(dx, np.full((1, 2, 1), 50.0))
