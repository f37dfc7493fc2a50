"""np.linalg.solve, inv, det and slogdet on device arrays against NumPy's LAPACK: within
n·eps-scaled tolerances (LU with partial pivoting, unblocked, orders its sums differently
from LAPACK's blocked getrf), matrices and stacks, real and complex, and NumPy's
LinAlgError for singular and non-square input."""
import numpy as np
import pytest

import vkpersist as vkp

RNG = np.random.default_rng(1)


def _matrix(n, dtype, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(batch + (n, n))
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("n", [1, 2, 7, 40])
def test_solve_inv_det_are_numpys(ctx, dtype, n):
    a = _matrix(n, dtype)
    b = _matrix(n, dtype)[:, :3]
    v = b[:, 0].copy()
    eps = np.finfo(a.real.dtype).eps
    tol = 50 * n * eps * np.linalg.cond(a)
    da = ctx.asarray(a)
    for got, want in [(np.linalg.solve(da, ctx.asarray(v)), np.linalg.solve(a, v)),
                      (np.linalg.solve(da, ctx.asarray(b)), np.linalg.solve(a, b)),
                      (np.linalg.inv(da), np.linalg.inv(a))]:
        assert isinstance(got, vkp.Array) and got.shape == want.shape and got.dtype == want.dtype
        assert np.abs(got.numpy() - want).max() <= tol * np.abs(want).max()
    d, want = np.asarray(np.linalg.det(da)), np.linalg.det(a)
    assert d.dtype == want.dtype and abs(d - want) <= tol * abs(want)
    sign, logdet = np.linalg.slogdet(da)
    w_sign, w_log = np.linalg.slogdet(a)
    assert abs(np.asarray(sign) - w_sign) <= 10 * tol and abs(float(np.asarray(logdet)) - w_log) \
        <= tol * max(1.0, abs(w_log))


def test_stacks_singular_and_bad_shapes(ctx):
    s = _matrix(6, np.float64, (4,))
    ds = ctx.asarray(s)
    np.testing.assert_allclose(np.linalg.inv(ds).numpy(), np.linalg.inv(s), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(np.linalg.det(ds).numpy(), np.linalg.det(s), rtol=1e-9)
    rhs = RNG.standard_normal((6, 2))
    np.testing.assert_allclose(np.linalg.solve(ds, ctx.asarray(rhs)).numpy(),
                               np.linalg.solve(s, rhs), rtol=1e-9, atol=1e-9)
    ones = ctx.asarray(np.ones((3, 3)))
    assert float(np.linalg.det(ones)) == np.linalg.det(np.ones((3, 3))) == 0.0
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        np.linalg.inv(ones)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        np.linalg.solve(ones, ctx.asarray(np.ones(3)))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        np.linalg.inv(ctx.asarray(np.ones((2, 3))))
    with pytest.raises(np.linalg.LinAlgError, match="at least two-dimensional"):
        np.linalg.det(ctx.asarray(np.ones(3)))
