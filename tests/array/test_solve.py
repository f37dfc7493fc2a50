"""np.linalg.solve, inv, det and slogdet on device arrays against NumPy's LAPACK: within
n·eps-scaled tolerances (LU with partial pivoting, unblocked, orders its sums differently
from LAPACK's blocked getrf), matrices and stacks, real and complex, and NumPy's
LinAlgError for singular and non-square input."""
import dataclasses

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


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex64])
def test_one_workgroup_a_matrix_takes_the_launch_paths_steps(ctx, dtype, monkeypatch):
    """Matrices up to Target.solve_group_max are factored and solved by one workgroup
    each (GPUs), with the launch path's steps in its order: the same pivots, and the same
    bits on lavapipe (a few ulp elsewhere, where a compiler may fuse multiply-adds
    differently per kernel).
    Stacks, ties of magnitude, a NaN pivot, a singular matrix, and a matrix taller than a
    workgroup (two rows an invocation in the pivot search and the updates)."""
    from vkpersist.linalg import _solve
    if np.dtype(dtype) == np.float64 and not ctx.info.float64:
        pytest.skip("no float64 on this device")
    target = ctx.target
    ties = RNG.integers(-2, 3, (3, 33, 33)).astype(dtype)
    ties[1, 0, 0] = np.nan
    ties[2, :, 5] = 0                                       # singular
    tall = _matrix(_solve.GROUP + 4, dtype, (1,))
    tall[0, 259, 0] = tall[0, 3, 0] = 100               # a tie one invocation's stride apart
    tall[0, 9, 1] = np.nan                              # a NaN below the diagonal
    cases = [_matrix(40, dtype, (3,)), ties, tall]
    for a in cases:
        rhs = _matrix(a.shape[-1], dtype, (a.shape[0],))[..., :2]
        got = {}
        for path, limit in (("launches", 0), ("groups", 10_000)):
            monkeypatch.setattr(ctx, "target", dataclasses.replace(target,
                                                                   solve_group_max=limit))
            work = ctx.asarray(a)
            piv = _solve._lu(work)
            x = _solve._substitute(work, piv, ctx.asarray(rhs))
            got[path] = work.numpy(), piv.numpy(), x.numpy()
        (lu1, p1, x1), (lu2, p2, x2) = got["launches"], got["groups"]
        np.testing.assert_array_equal(p1, p2)
        if ctx.info.is_lavapipe:
            for u, v in ((lu1, lu2), (x1, x2)):
                np.testing.assert_array_equal(u.view(np.uint8), v.view(np.uint8))
        else:
            eps = np.finfo(lu1.real.dtype).eps
            for u, v in ((lu1, lu2), (x1, x2)):
                ok = np.isfinite(u) & np.isfinite(v)
                assert (ok == (np.isfinite(u) | np.isfinite(v))).all()
                assert np.allclose(u[ok], v[ok], rtol=1e3 * eps, atol=1e3 * eps)
    monkeypatch.undo()
    a = _matrix(12, dtype, (5,))
    np.testing.assert_allclose(np.linalg.solve(ctx.asarray(a), ctx.asarray(a[..., :1])).numpy(),
                               np.broadcast_to(np.eye(12, 1), (5, 12, 1)),
                               atol=1e4 * np.finfo(a.real.dtype).eps)


@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (0, 3, 3), (2, 4, 0, 0)])
def test_empty_matrices_and_stacks_are_numpys(ctx, shape):
    """NumPy's answers for empty inputs (issue 53: det of 0x0 raised a reshape error):
    the determinant of a 0x0 matrix is 1, its inverse 0x0, an empty stack empty results."""
    a = np.zeros(shape, np.float32)
    da = ctx.asarray(a)
    np.testing.assert_array_equal(np.asarray(np.linalg.det(da)), np.linalg.det(a))
    sign, logdet = np.linalg.slogdet(da)
    want = np.linalg.slogdet(a)
    np.testing.assert_array_equal(np.asarray(sign), want.sign)
    np.testing.assert_array_equal(np.asarray(logdet), want.logabsdet)
    assert np.linalg.inv(da).shape == np.linalg.inv(a).shape
    b = np.zeros(shape[:-1] + (3,), np.float32)
    assert np.linalg.solve(da, ctx.asarray(b)).shape == np.linalg.solve(a, b).shape
