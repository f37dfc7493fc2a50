"""vkp.vectorize and vkp.guvectorize on the examples of numba's documentation (shapes,
signatures, dispatch), against NumPy: integer results exactly, float ones to float32/64
rounding."""
import math

import numpy as np
import pytest

import vkpersist as vkp


@vkp.vectorize(["int32(int32, int32)", "int64(int64, int64)", "float32(float32, float32)",
                "float64(float64, float64)"])
def add(x, y):
    return x + y


def test_dispatch_picks_the_first_safe_signature(ctx):
    a = np.arange(12).reshape(3, 4)                   # int64
    for x, y, dtype in [(a, a, np.int64), (a.astype(np.int32), 1, np.int32),
                        (a.astype(np.int16), a.astype(np.int32), np.int32),
                        (a.astype(np.float32), 0.5, np.float32),
                        (a.astype(np.int32), 1.5, np.float64),       # int32 -> float32 unsafe
                        (a.astype(np.float32), a, np.float64)]:
        got = add(x, y)
        assert type(got) is np.ndarray and got.dtype == dtype, (x.dtype, y, got.dtype)
        np.testing.assert_array_equal(got, (np.asarray(x) + np.asarray(y)).astype(dtype))
    with pytest.raises(TypeError, match=r"no signature takes inputs of types \(complex128"):
        add(np.ones(2, np.complex128), 1)


def test_broadcasting_out_and_device_arrays(ctx):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    da = ctx.asarray(a)
    got = add(da, ctx.asarray(np.float32([10, 20, 30, 40])))
    assert isinstance(got, vkp.Array)
    np.testing.assert_array_equal(got.numpy(), a + [10, 20, 30, 40])
    out = ctx.empty((3, 4), np.float32)
    assert add(da[:, ::-1], 1.0, out=out) is out
    np.testing.assert_array_equal(out.numpy(), a[:, ::-1] + 1)
    with pytest.raises(ValueError, match="could not be broadcast together"):
        add(a, np.ones(3, np.float32))


def test_reduce_and_accumulate_along_axes_as_numba(ctx):
    a = np.arange(12).reshape(3, 4)                   # numba's docs: f.reduce(a, axis=0)
    np.testing.assert_array_equal(add.reduce(a, axis=0), [12, 15, 18, 21])
    np.testing.assert_array_equal(add.reduce(a, axis=1), [6, 22, 38])
    np.testing.assert_array_equal(add.reduce(a, axis=-1), [6, 22, 38])
    assert add.reduce(a, axis=None) == 66
    np.testing.assert_array_equal(add.accumulate(a), np.add.accumulate(a))   # numba's docs
    np.testing.assert_array_equal(add.accumulate(a, axis=1), np.add.accumulate(a, axis=1))
    d = ctx.asarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    got = add.reduce(d, axis=1)
    assert isinstance(got, vkp.Array)
    np.testing.assert_array_equal(got.numpy(), np.arange(24, dtype=np.float32).reshape(2, 3, 4)
                                  .sum(axis=1))

    @vkp.vectorize(["float64(float64, float64)"])
    def keep_second(x, y):            # not associative: the order must be numba's
        return 0.5 * x + y
    v = np.array([1.0, 2.0, 4.0, 8.0])
    assert keep_second.reduce(v) == ((1.0 * 0.5 + 2.0) * 0.5 + 4.0) * 0.5 + 8.0
    with pytest.raises(np.exceptions.AxisError):
        add.reduce(a, axis=2)
    with pytest.raises(ValueError, match="zero-size array to reduction operation add"):
        add.reduce(np.zeros((0, 3), np.int64))


def test_lazy_vectorize_specialises_on_first_call(ctx):
    @vkp.vectorize
    def hyp(x, y):
        return math.sqrt(x * x + y * y)
    got32 = hyp(np.float32([3, 5]), np.float32([4, 12]))
    assert got32.dtype == np.float32
    np.testing.assert_array_equal(got32, [5, 13])
    got64 = hyp(np.array([3.0]), 4.0)
    assert got64.dtype == np.float64 and got64[0] == 5.0
    assert len(hyp.types) == 2


def test_signature_mistakes_are_explained():
    with pytest.raises(TypeError, match="has 1 inputs, the function 2"):
        vkp.vectorize(["float32(float32)"])(lambda x, y: x)
    with pytest.raises(TypeError, match="unknown type 'float33'"):
        vkp.vectorize(["float32(float33, float32)"])(lambda x, y: x)
    with pytest.raises(TypeError, match="array types are guvectorize's"):
        vkp.vectorize(["float32(float32[:], float32)"])(lambda x, y: x)


@vkp.guvectorize(["void(int64[:], int64, int64[:])", "void(float32[:], float32, float32[:])"],
                 "(n),()->(n)")
def add_scalar(x, y, res):
    for i in range(x.shape[0]):
        res[i] = x[i] + y


@vkp.guvectorize(["void(float32[:, :], float32[:, :], float32[:, :])"], "(m,n),(n,p)->(m,p)")
def matmul(A, B, C):
    m, n = A.shape
    n, p = B.shape
    for i in range(m):
        for j in range(p):
            C[i, j] = 0
            for k in range(n):
                C[i, j] += A[i, k] * B[k, j]


@vkp.guvectorize(["void(float64[:], intp[:], float64[:])"], "(n),()->(n)")
def move_mean(a, window_arr, out):
    window_width = window_arr[0]
    asum = 0.0
    count = 0
    for i in range(window_width):
        asum += a[i]
        count += 1
        out[i] = asum / count
    for i in range(window_width, len(a)):
        asum += a[i] - a[i - window_width]
        out[i] = asum / count


@vkp.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()")
def dot(a, b, res):
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    res[0] = acc


def test_guvectorize_numba_examples(ctx):
    a = np.arange(5, dtype=np.int64)
    np.testing.assert_array_equal(add_scalar(a, 2), a + 2)       # numba's docs
    b = np.arange(6, dtype=np.int64).reshape(2, 3)
    np.testing.assert_array_equal(add_scalar(b, np.array([10, 20])), b + [[10], [20]])
    A = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    B = np.arange(2 * 4 * 5, dtype=np.float32).reshape(2, 4, 5)
    np.testing.assert_array_equal(matmul(A, B), A @ B)
    dA = ctx.asarray(A)
    got = matmul(dA, ctx.asarray(B[0]))             # the second operand broadcast
    assert isinstance(got, vkp.Array)
    np.testing.assert_array_equal(got.numpy(), A @ B[0])
    arr = np.arange(20, dtype=np.float64).reshape(2, 10)
    want = np.array([[0, 0.5, 1, 2, 3, 4, 5, 6, 7, 8],
                     [10, 10.5, 11, 12, 13, 14, 15, 16, 17, 18]])
    np.testing.assert_array_equal(move_mean(arr, 3), want)        # numba's docs
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(dot(x, x[::-1]), (x * x[::-1]).sum(axis=1))
    out = ctx.empty(3, np.float32)
    assert dot(ctx.asarray(x), ctx.asarray(x[0]), out=out) is out
    np.testing.assert_array_equal(out.numpy(), x @ x[0])


def test_guvectorize_shape_errors_are_numpys(ctx):
    with pytest.raises(ValueError, match=r"Input operand 1 has a mismatch in its core dimension 0"):
        matmul(np.ones((3, 4), np.float32), np.ones((3, 4), np.float32))
    with pytest.raises(ValueError, match=r"Input operand 0 does not have enough dimensions "
                                         r"\(has 1, gufunc core with signature"):
        matmul(np.ones(4, np.float32), np.ones((4, 4), np.float32))
    with pytest.raises(TypeError, match="layout '.*' names 3 operands, the function takes 2"):
        vkp.guvectorize(["void(float32[:], float32[:])"], "(n),(n)->()")(lambda a, b: None)
