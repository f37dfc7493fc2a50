"""dot, matmul (`@`) and cumsum against NumPy: shapes 1-d and 2-d, views, dtypes, NumPy's
errors for mismatched shapes, and float results within a stated tolerance."""
import numpy as np
import pytest

import vkpersist as vkp

EPS32 = np.finfo(np.float32).eps


def _close(got, a, b):
    """float32 products of K terms: |error| ≤ K·eps·(|a| @ |b|) (each C element is a sum in
    K order; reduction-based products are tree sums, within the same bound)."""
    exact = a.astype(np.float64) @ b.astype(np.float64)
    bound = a.shape[-1] * EPS32 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
    assert np.all(np.abs(np.asarray(got) - exact) <= bound + 1e-30)


@pytest.fixture(scope="module")
def mats():
    rng = np.random.default_rng(4)
    return (rng.standard_normal((37, 50)).astype(np.float32),
            rng.standard_normal((50, 19)).astype(np.float32),
            rng.standard_normal(50).astype(np.float32))


def test_matmul_every_shape_pair(ctx, mats):
    a, b, v = mats
    da, db, dv = ctx.asarray(a), ctx.asarray(b), ctx.asarray(v)
    got = da @ db
    assert isinstance(got, vkp.Array) and got.shape == (37, 19) and got.dtype == np.float32
    _close(got.numpy(), a, b)
    _close(vkp.matmul(da, dv).numpy(), a, v)
    # np.matmul is a ufunc: __array_ufunc__ (the element-wise layer) routes it to the table
    _close(np.asarray(np.matmul(da, dv)), a, v)
    _close(vkp.matmul(dv, db).numpy(), v, b)
    r = dv @ dv
    assert r.shape == () and abs(float(r) - float(v.astype(np.float64) @ v)) <= \
        50 * EPS32 * float(v @ v)
    _close(v @ db, v, b)                                   # __rmatmul__ with NumPy on the left
    _close(np.dot(da, db).numpy(), a, b)
    _close(da.dot(dv).numpy(), a, v)


def test_views_and_transposes(ctx, mats):
    a, b, _ = mats
    da, db = ctx.asarray(a), ctx.asarray(b)
    _close((da[::2, 1::2] @ db[1::2, ::3]).numpy(), a[::2, 1::2], b[1::2, ::3])
    _close((db.T @ da.T).numpy(), b.T, a.T)
    _close(np.dot(da[:, 3], da[:, 5]).numpy(), a[:, 3], a[:, 5])


def test_integer_and_mixed_dtypes(ctx):
    rng = np.random.default_rng(2)
    a = rng.integers(-9, 9, (20, 33)).astype(np.int32)
    b = rng.integers(-9, 9, (33, 7)).astype(np.int32)
    got = ctx.asarray(a) @ ctx.asarray(b)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got.numpy(), a @ b)
    np.testing.assert_array_equal(np.dot(ctx.asarray(a), ctx.asarray(b[:, 0])).numpy(), a @ b[:, 0])
    f = b.astype(np.float32)
    mixed = vkp.matmul(ctx.asarray(a), ctx.asarray(f))
    assert mixed.dtype == np.result_type(np.int32, np.float32)
    np.testing.assert_allclose(mixed.numpy(), a @ f, rtol=1e-6)
    a8, b8 = a.astype(np.int8) * 13, b.astype(np.int8) * 11   # int8 products wrap, as NumPy's
    got8 = ctx.asarray(a8) @ ctx.asarray(b8)
    assert got8.dtype == np.int8
    np.testing.assert_array_equal(got8.numpy(), a8 @ b8)
    np.testing.assert_array_equal(np.dot(ctx.asarray(a8), ctx.asarray(b8[:, 1])).numpy(),
                                  a8 @ b8[:, 1])
    host = vkp.matmul(a, b)                                # NumPy in -> NumPy out
    assert isinstance(host, np.ndarray)
    np.testing.assert_array_equal(host, a @ b)


def test_shape_errors_are_numpys(ctx, mats):
    a, b, v = mats
    da, db = ctx.asarray(a), ctx.asarray(b)
    with pytest.raises(ValueError, match=r"matmul: Input operand 1 has a mismatch in its core "
                                         r"dimension 0.*size 37 is different from 50"):
        da @ da
    with pytest.raises(ValueError, match=r"shapes \(37,50\) and \(37,\) not aligned: "
                                         r"50 \(dim 1\) != 37 \(dim 0\)"):
        np.dot(da, ctx.asarray(a[:, 0]))
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        vkp.matmul(ctx.asarray(np.float32(2)), db)
    with pytest.raises(ValueError, match=r"operands could not be broadcast together with "
                                         r"remapped shapes \[original->remapped\]: "
                                         r"\(2,3,4\)->\(2,newaxis,newaxis\)"):
        vkp.matmul(ctx.zeros((2, 3, 4)), ctx.zeros((3, 4, 2)))


@pytest.mark.parametrize("sa,sb", [((3, 4, 5), (3, 5, 2)), ((2, 1, 4, 5), (3, 5, 6)),
                                   ((4, 5), (2, 5, 3)), ((5,), (2, 5, 3)), ((2, 3, 5), (5,)),
                                   ((2, 3, 4, 5), (1, 5, 2)), ((2, 0, 5), (5, 3)),
                                   ((2, 1, 3, 4, 5), (5, 2)), ((3, 1, 4, 5), (1, 2, 5, 3)),
                                   ((2, 1, 3, 17, 33), (3, 1, 33, 20))])
def test_matmul_of_stacks_broadcasts_as_numpys(ctx, sa, sb):
    rng = np.random.default_rng(12)
    a = rng.integers(-5, 5, sa).astype(np.float32)   # integers: exact in any order
    b = rng.integers(-5, 5, sb).astype(np.float32)
    got = np.matmul(ctx.asarray(a), ctx.asarray(b))
    assert isinstance(got, vkp.Array)
    np.testing.assert_array_equal(got.numpy(), a @ b)
    np.testing.assert_array_equal(vkp.matmul(a, b), a @ b)          # NumPy in, NumPy out


@pytest.mark.parametrize("sa,sb", [((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
                                   ((2, 3, 4), (6, 4, 5)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,)),
                                   ((2, 1, 3, 4), (2, 4, 2))])
def test_dot_of_nd_operands_is_numpys(ctx, sa, sb):
    """dot(a, b)[i, j, k, m] = sum(a[i, j, :] * b[k, :, m]): unlike matmul, no broadcasting,
    every pair of a's rows and b's columns."""
    rng = np.random.default_rng(4)
    a = rng.integers(-5, 5, sa).astype(np.float32)
    b = rng.integers(-5, 5, sb).astype(np.float32)
    got = np.dot(ctx.asarray(a), ctx.asarray(b))
    assert isinstance(got, vkp.Array) and got.shape == np.dot(a, b).shape
    np.testing.assert_array_equal(got.numpy(), np.dot(a, b))
    with pytest.raises(ValueError, match=r"shapes \(2,3,4\) and \(5,6\) not aligned: "
                                         r"4 \(dim 2\) != 5 \(dim 0\)"):
        np.dot(ctx.zeros((2, 3, 4)), ctx.zeros((5, 6)))
    with pytest.raises(ValueError, match=r"shapes \(2,3\) and \(4,5,6\) not aligned: "
                                         r"3 \(dim 1\) != 5 \(dim 1\)"):
        np.dot(ctx.zeros((2, 3)), ctx.zeros((4, 5, 6)))


@pytest.mark.parametrize("micro", [4, 8])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_the_blocked_matmul_is_the_tiled_one(ctx, dtype, micro, monkeypatch):
    """Products whose C is at least 32 x 32 take a blocked kernel (4 x 4 elements an
    invocation; 8 x 8 for larger ones, here for all): the same sums in the same order
    as the 16 x 16 kernel, so the same bits, over ragged edges, views (transposed,
    strided), stacks with a broadcast matrix and K shorter than a tile."""
    from vkpersist.linalg import _kernels as lk
    if dtype == np.float64 and not ctx.info.float64:
        pytest.skip(f"{ctx.info.name} has no float64")
    if lk.blocked_shared_bytes(dtype, micro) > ctx.info.max_shared_memory:
        pytest.skip(f"{ctx.info.name}: the {micro} x {micro} tiles do not fit shared memory")
    monkeypatch.setattr(lk, "BLOCKED8_CELLS", 0 if micro == 8 else 10**18)
    rng = np.random.default_rng(8)

    def operands(shape):
        v = rng.standard_normal(shape) * 8
        return (np.round(v) if dtype == np.int32 else v).astype(dtype)
    a, b = operands((3, 130, 71)), operands((71, 97))
    big = operands((150, 140))
    cases = [(a, b), (a[1], b), (big.T, big[:, ::2]), (big[::2, 5:9], big[5:9, ::3]),
             (big[:33, :], big[:140, :32])]
    for x, y in cases:
        dx, dy = ctx.asarray(np.ascontiguousarray(x)), ctx.asarray(np.ascontiguousarray(y))
        if x is big.T:
            dx = ctx.asarray(big).T                      # a transposed view, read in place
        blocked = (dx @ dy).numpy()
        with monkeypatch.context() as m:
            m.setattr(lk, "BLOCKED_FROM", 10**9)         # every product: the 16 x 16 kernel
            m.setattr(lk, "BLOCKED8_CELLS", 10**18)
            tiled = (dx @ dy).numpy()
        np.testing.assert_array_equal(blocked, tiled)
        if dtype == np.int32:
            np.testing.assert_array_equal(blocked, x @ y)
        elif dtype == np.float32:
            _close(blocked, x, y)
        else:
            np.testing.assert_allclose(blocked, x @ y, rtol=1e-12, atol=1e-12)


def test_matmul_of_more_matrices_than_one_launch_takes(ctx):
    """One launch covers at most maxComputeWorkGroupCount[2] matrices (65,535 on most
    devices): a longer stack runs in chunks, each on its own matrices."""
    count = ctx.info.max_workgroup_count[2] + 7
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 3, (count, 2, 3)).astype(np.float32)
    b = rng.integers(-3, 3, (3, 2)).astype(np.float32)
    np.testing.assert_array_equal((ctx.asarray(a) @ ctx.asarray(b)).numpy(), a @ b)


def test_cumsum_flat_and_along_axes(ctx):
    rng = np.random.default_rng(9)
    x = rng.integers(-5, 5, (3, 700, 4)).astype(np.int32)
    d = ctx.asarray(x)
    for axis in (None, 0, 1, 2, -1):
        got = np.cumsum(d, axis=axis)
        want = np.cumsum(x, axis=axis)
        assert got.dtype == want.dtype == np.int64 and got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want)
    long = rng.integers(0, 3, 70_000).astype(np.uint8)      # three levels of block totals
    np.testing.assert_array_equal(vkp.cumsum(long), np.cumsum(long))
    np.testing.assert_array_equal(d[:, ::3, 1].cumsum(axis=1).numpy(),
                                  x[:, ::3, 1].cumsum(axis=1))


def test_cumsum_float_within_scan_bound(ctx):
    """A scan adds in log2 steps per block plus the block totals: each prefix k is off by at
    most (log2(k) + 2)·eps·Σ|x[:k]| (we check (log2(n) + 2)·eps·cumsum|x|)."""
    x = np.random.default_rng(1).standard_normal(5000).astype(np.float32)
    got = vkp.cumsum(ctx.asarray(x)).numpy()
    exact = np.cumsum(x.astype(np.float64))
    bound = (np.log2(x.size) + 2) * EPS32 * np.cumsum(np.abs(x.astype(np.float64)))
    assert got.dtype == np.float32 and np.all(np.abs(got - exact) <= bound)
    out = ctx.empty(5000, np.float32)
    assert np.cumsum(ctx.asarray(x), out=out) is out
    np.testing.assert_array_equal(out.numpy(), got)
    assert vkp.cumsum(np.zeros((0, 2), np.float32), axis=1).shape == (0, 2)


def test_inner_vdot_outer_are_numpys(ctx):
    rng = np.random.default_rng(44)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    v, w = rng.standard_normal(4), rng.standard_normal(4)
    da, db, dv, dw = map(ctx.asarray, (a, b, v, w))
    for got, want in [(np.inner(dv, dw), np.inner(v, w)), (np.inner(da, dv), np.inner(a, v)),
                      (np.inner(da, db), np.inner(a, b))]:
        assert isinstance(got, vkp.Array) and got.shape == np.shape(want)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    t = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(np.inner(ctx.asarray(t), db).numpy(), np.inner(t, b), rtol=1e-12)
    z = (rng.standard_normal(6) + 1j * rng.standard_normal(6)).astype(np.complex128)
    u = (rng.standard_normal(6) + 1j * rng.standard_normal(6)).astype(np.complex128)
    np.testing.assert_allclose(np.vdot(ctx.asarray(z), ctx.asarray(u)).numpy(), np.vdot(z, u),
                               rtol=1e-12)
    np.testing.assert_allclose(np.outer(dv, dw).numpy(), np.outer(v, w), rtol=0)
    np.testing.assert_allclose(np.outer(da, dv).numpy(), np.outer(a, v), rtol=0)
    with pytest.raises(ValueError, match="not aligned"):
        np.inner(da, ctx.asarray(np.ones(3)))


@pytest.mark.parametrize("ord_", [None, 2, 1, np.inf, -np.inf, 0, 3, 0.5])
def test_vector_norms_are_numpys(ctx, ord_):
    rng = np.random.default_rng(45)
    x = rng.standard_normal((4, 6))
    x[0, 0] = 0.0
    dx = ctx.asarray(x)
    for axis in (1, 0, -1):
        np.testing.assert_allclose(np.linalg.norm(dx, ord_, axis=axis).numpy(),
                                   np.linalg.norm(x, ord_, axis=axis), rtol=1e-12)
    np.testing.assert_allclose(
        np.linalg.norm(dx, ord_, axis=1, keepdims=True).numpy(),
        np.linalg.norm(x, ord_, axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(float(np.linalg.norm(dx[1], ord_)),
                               np.linalg.norm(x[1], ord_), rtol=1e-12)


def test_matrix_and_complex_norms(ctx):
    rng = np.random.default_rng(46)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    z = (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype(np.complex64)
    np.testing.assert_allclose(float(np.linalg.norm(ctx.asarray(x))), np.linalg.norm(x),
                               rtol=1e-6)
    np.testing.assert_allclose(float(np.linalg.norm(ctx.asarray(x), "fro")),
                               np.linalg.norm(x, "fro"), rtol=1e-6)
    np.testing.assert_allclose(float(np.linalg.norm(ctx.asarray(z))), np.linalg.norm(z),
                               rtol=1e-6)
    np.testing.assert_allclose(float(np.linalg.norm(ctx.asarray(np.arange(5)))),
                               np.linalg.norm(np.arange(5)), rtol=1e-12)
    with pytest.raises(vkp.UnsupportedError, match="singular values"):
        np.linalg.norm(ctx.asarray(x), 2)
    with pytest.raises(ValueError, match="'fro' for vectors"):
        np.linalg.norm(ctx.asarray(x[0]), "fro")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.complex64])
def test_cumprod_is_numpys(ctx, dtype):
    rng = np.random.default_rng(47)
    if np.dtype(dtype).kind in "iu":
        x = rng.integers(-2, 3, (3, 700)).astype(dtype)
    else:
        x = (1 + 0.001 * rng.standard_normal((3, 700))).astype(dtype)
    for axis in (None, 0, 1):
        got, want = np.cumprod(ctx.asarray(x), axis=axis), np.cumprod(x, axis=axis)
        assert got.dtype == want.dtype and got.shape == want.shape
        if np.dtype(dtype).kind in "iu":
            np.testing.assert_array_equal(got.numpy(), want)        # wraps as NumPy's
        else:      # products in scan order: 700 factors of ~1, a few ulp each
            tol = 5e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12
            np.testing.assert_allclose(got.numpy(), want, rtol=tol)


def test_matmul_into_a_device_out_through_the_ufunc(ctx):
    """np.matmul is a ufunc: out= reaches the device matmul as NumPy's 1-tuple (it was
    refused as 'not acceptable'), and with both operands NumPy arrays only `out` brings
    the call here (the by-name lookup searched the operands for a device array and let
    StopIteration out)."""
    a = np.arange(4, dtype=np.float32).reshape(2, 2)
    want = a @ a
    for left, right in ((ctx.asarray(a), a), (a, a)):
        out = ctx.zeros((2, 2), np.float32)
        assert np.matmul(left, right, out=out) is out
        np.testing.assert_array_equal(out.numpy(), want)
