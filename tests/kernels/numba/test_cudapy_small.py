"""numba-cuda's small cudapy tests, one kernel or two each: test_idiv, test_boolean,
test_freevar, test_py2_div_issue, test_powi, test_minmax, test_forall, test_localmem,
test_device_func (add2f, casting to a device function's signature) and test_constmem
(cudapy/test_<name>.py)."""
import math

import numpy as np
import pytest

from vkpersist import cuda
from vkpersist.cuda import float32, float64, int8, int32, void


def test_idiv():
    @cuda.jit(void(float32[:, :], int32, int32))
    def div(grid, l_x, l_y):
        for x in range(l_x):
            for y in range(l_y):
                grid[x, y] /= 2.0

    @cuda.jit(void(float64[:, :], int32, int32))
    def div_double(grid, l_x, l_y):
        for x in range(l_x):
            for y in range(l_y):
                grid[x, y] /= 2.0

    for kernel, dtype in ((div, np.float32), (div_double, np.float64)):
        grid = cuda.to_device(np.ones((2, 2), dtype=dtype))
        kernel[1, 1](grid, 2, 2)
        assert np.all(grid.copy_to_host() == 0.5)


def boolean_func(A, vertial):
    if vertial:
        A[0] = 123
    else:
        A[0] = 321


def test_boolean():
    func = cuda.jit("void(float64[:], bool_)")(boolean_func)
    A = np.array([0], dtype="float64")
    func[1, 1](A, True)
    assert A[0] == 123
    func[1, 1](A, False)
    assert A[0] == 321


def test_freevar():
    size = 1024
    nbtype = float32

    @cuda.jit("(float32[::1], intp)")
    def foo(A, i):
        "Dummy function"
        sdata = cuda.shared.array(size, dtype=nbtype)  # size, nbtype are freevars
        A[i] = sdata[i]

    A = np.arange(2, dtype="float32")
    foo[1, 1](A, 0)


def test_py2_div_issue():
    @cuda.jit(void(float32[:], float32[:], float32[:], int32))
    def preCalc(y, yA, yB, numDataPoints):
        i = cuda.grid(1)
        k = i % numDataPoints  # noqa: F841

        ans = float32(1.001 * float32(i))
        y[i] = ans
        yA[i] = ans * 1.0
        yB[i] = ans / 1.0

    numDataPoints = 15
    y, yA, yB = (np.zeros(numDataPoints, dtype=np.float32) for _ in range(3))
    preCalc[1, 15](y, yA, yB, numDataPoints)
    assert np.all(y == yA) and np.all(y == yB)


def cu_mat_power(A, power, power_A):
    y, x = cuda.grid(2)

    m, n = power_A.shape
    if x >= n or y >= m:
        return

    power_A[y, x] = math.pow(A[y, x], int32(power))


def cu_mat_power_binop(A, power, power_A):
    y, x = cuda.grid(2)

    m, n = power_A.shape
    if x >= n or y >= m:
        return

    power_A[y, x] = A[y, x] ** power


@pytest.mark.parametrize("fn", [cu_mat_power, cu_mat_power_binop])
def test_powi(fn):
    kernel = cuda.jit(void(float64[:, :], int8, float64[:, :]))(fn)
    power = 2
    A = np.arange(10, dtype=np.float64).reshape(2, 5)
    Aout = np.empty_like(A)
    kernel[1, A.shape](A, power, Aout)
    assert np.allclose(Aout, A ** power)


def builtin_max(A, B, C):
    i = cuda.grid(1)

    if i >= len(C):
        return

    C[i] = float64(max(A[i], B[i]))


def builtin_min(A, B, C):
    i = cuda.grid(1)

    if i >= len(C):
        return

    C[i] = float64(min(A[i], B[i]))


@pytest.mark.parametrize("left,right", [(np.float64, np.float64), (np.float32, np.float64),
                                        (np.float32, np.float32)])
def test_minmax(left, right):
    for fn, ref in ((builtin_max, np.maximum), (builtin_min, np.minimum)):
        kernel = cuda.jit(fn)
        c = np.zeros(5, dtype=np.float64)
        a = np.arange(5, dtype=left) + 0.5
        b = np.full(5, fill_value=2, dtype=right)
        kernel[1, c.shape](a, b, c)
        np.testing.assert_allclose(c, ref(a, b))


@cuda.jit
def forall_foo(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += 1


def test_forall():
    arr = np.arange(11)
    orig = arr.copy()
    forall_foo.forall(arr.size)(arr)
    np.testing.assert_array_almost_equal(arr, orig + 1)

    @cuda.jit("void(float32, float32[:], float32[:])")
    def bar(a, x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = a * x[i] + y[i]

    x = np.arange(13, dtype=np.float32)
    y = np.arange(13, dtype=np.float32)
    oldy = y.copy()
    a = 1.234
    bar.forall(y.size)(a, x, y)
    np.testing.assert_array_almost_equal(y, a * x + oldy, decimal=3)
    forall_foo.forall(0)(arr)       # no work


def culocal(A, B):
    C = cuda.local.array(1000, dtype=int32)
    for i in range(C.shape[0]):
        C[i] = A[i]
    for i in range(C.shape[0]):
        B[i] = C[i]


def culocal1tuple(A, B):
    C = cuda.local.array((5,), dtype=int32)
    for i in range(C.shape[0]):
        C[i] = A[i]
    for i in range(C.shape[0]):
        B[i] = C[i]


@pytest.mark.parametrize("fn,n", [(culocal, 1000), (culocal1tuple, 5)])
def test_local_array(fn, n):
    sig = (int32[:], int32[:]) if n == 1000 else "void(int32[:], int32[:])"
    jculocal = cuda.jit(sig)(fn)
    A = np.arange(n, dtype="int32")
    B = np.zeros_like(A)
    jculocal[1, 1](A, B)
    assert np.all(A == B)


def test_device_func_add2f():
    @cuda.jit("float32(float32, float32)", device=True)
    def add2f(a, b):
        return a + b

    @cuda.jit("float32(float32, float32)", device=True)
    def indirect(a, b):
        return add2f(a, b)

    def use_add2f(ary):
        i = cuda.grid(1)
        ary[i] = add2f(ary[i], ary[i])

    def indirect_add2f(ary):
        i = cuda.grid(1)
        ary[i] = indirect(ary[i], ary[i])

    for fn in (use_add2f, indirect_add2f):
        compiled = cuda.jit("void(float32[:])")(fn)
        nelem = 10
        ary = np.arange(nelem, dtype=np.float32)
        exp = ary + ary
        compiled[1, nelem](ary)
        assert np.all(ary == exp)


def test_device_casting():
    # Ensure that casts to the signature types of a device function are applied
    @cuda.jit("int32(int32, int32, int32, int32)", device=True)
    def rgba(r, g, b, a):
        return (
            ((r & 0xFF) << 16)
            | ((g & 0xFF) << 8)
            | ((b & 0xFF) << 0)
            | ((a & 0xFF) << 24)
        )

    @cuda.jit
    def rgba_caller(x, channels):
        x[0] = rgba(channels[0], channels[1], channels[2], channels[3])

    x = cuda.device_array(1, dtype=np.int32)
    channels = cuda.to_device(np.asarray([1.0, 2.0, 3.0, 4.0], dtype=np.float32))
    rgba_caller[1, 1](x, channels)
    assert 0x04010203 == x.copy_to_host()[0]


# ---- cudapy/test_constmem.py -------------------------------------------------------------
CONST1D = np.arange(10, dtype=np.float64) / 2.0


def cuconst(A):
    C = cuda.const.array_like(CONST1D)
    i = cuda.grid(1)

    # +1 or it'll be loaded & stored as a u32
    A[i] = C[i] + 1.0


def test_const_array():
    A = np.zeros_like(CONST1D)
    cuda.jit("void(float64[:])")(cuconst)[2, 5](A)
    np.testing.assert_array_equal(A, CONST1D + 1)
