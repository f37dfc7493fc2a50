"""var/std and the NaN-ignoring reductions against NumPy on every device (vkpersist/
statistics.py): values (float32 within 1e-5 relative: both sum in tree/pairwise order;
float64 within 1e-12), result dtypes, keepdims/out, the warnings NumPy gives for empty
and all-NaN slices, and NumPy in -> NumPy out."""
import warnings

import numpy as np
import pytest

import vkpersist as vkp

RTOL = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}


def _close(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=RTOL[want.dtype], atol=0, equal_nan=True)


@pytest.mark.parametrize("fn", ["var", "std"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2), -1])
def test_var_and_std_match_numpy(ctx, fn, axis):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((12, 9, 17)) * 3 + 1000).astype(np.float32)   # a large mean
    dx = ctx.asarray(x)
    for ddof in (0, 1):
        want = getattr(np, fn)(x, axis=axis, ddof=ddof)
        _close(getattr(vkp, fn)(dx, axis=axis, ddof=ddof), want)
        _close(getattr(np, fn)(dx, axis=axis, ddof=ddof), want)           # __array_function__
        _close(getattr(dx, fn)(axis=axis, ddof=ddof), want)               # the method
    got = getattr(vkp, fn)(dx, axis=axis, keepdims=True)
    assert isinstance(got, vkp.Array) and got.shape == getattr(np, fn)(
        x, axis=axis, keepdims=True).shape


def test_var_of_integers_is_float64_and_numpy_in_gives_numpy_out(ctx, device_info):
    if not device_info.float64:
        pytest.skip("NumPy's var of integers is float64")
    x = np.random.default_rng(2).integers(-50, 50, (30, 8)).astype(np.int32)
    got = vkp.var(x, axis=0)
    assert isinstance(got, np.ndarray)
    _close(got, np.var(x, axis=0))
    _close(vkp.std(ctx.asarray(x), dtype=np.float32), np.std(x, dtype=np.float32))
    out = ctx.zeros(8, np.float64)
    assert vkp.var(ctx.asarray(x), axis=0, out=out) is out
    _close(out.numpy(), np.var(x, axis=0))


def test_variance_with_too_few_degrees_of_freedom_warns_as_numpy(ctx):
    x = np.ones((1, 4), np.float32)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):
        got = vkp.var(ctx.asarray(x), axis=0, ddof=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.var(x, axis=0, ddof=1)
    _close(got, want)


def _with_nans():
    x = np.random.default_rng(3).standard_normal((20, 11)).astype(np.float32)
    x[2, :] = np.nan          # an all-NaN row
    x[:, 4] = np.nan          # an all-NaN column
    x[5, 7] = x[9, 1] = np.nan
    return x


@pytest.mark.parametrize("fn", ["nansum", "nanprod", "nanmin", "nanmax", "nanmean",
                                "nanvar", "nanstd"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nan_functions_match_numpy_with_its_warnings(ctx, fn, axis):
    x = _with_nans()
    if fn == "nanprod":
        x = 1 + x / 10         # a product of 200 factors near 1
    with warnings.catch_warnings(record=True) as numpy_said:
        warnings.simplefilter("always")
        want = getattr(np, fn)(x, axis=axis)
    with warnings.catch_warnings(record=True) as we_said:
        warnings.simplefilter("always")
        got = getattr(vkp, fn)(ctx.asarray(x), axis=axis)
    _close(got, np.asarray(want))
    assert [str(w.message).rstrip(".") for w in we_said] == \
        [str(w.message).rstrip(".") for w in numpy_said]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _close(getattr(np, fn)(ctx.asarray(x), axis=axis), np.asarray(want))


def test_nan_functions_of_integers_are_the_plain_reductions(ctx):
    x = np.arange(24, dtype=np.int32).reshape(4, 6)
    dx = ctx.asarray(x)
    assert int(vkp.nansum(dx)) == x.sum() and int(vkp.nanmax(dx)) == 23
    np.testing.assert_array_equal(np.asarray(vkp.nanmin(dx, axis=0)), x.min(axis=0))


def test_unsupported_arguments_are_refused_by_name(ctx):
    dx = ctx.asarray(np.ones(4, np.float32))
    with pytest.raises(vkp.UnsupportedError, match=r"vkpersist.var\(where=...\)"):
        vkp.var(dx, where=np.ones(4, bool))
    with pytest.raises(vkp.UnsupportedError, match=r"vkpersist.nansum\(initial=...\)"):
        vkp.nansum(dx, initial=1.0)
