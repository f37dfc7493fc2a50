"""numba-cuda's cudapy/test_intrinsics.py: thread and grid indices, grid sizes, strided
loops, the bit intrinsics (popc, brev, clz, ffs), fma, selp, round, cbrt and laneid."""
import numpy as np
import pytest

from vkpersist import cuda


def fill3d_threadidx(ary):
    i = cuda.threadIdx.x
    j = cuda.threadIdx.y
    k = cuda.threadIdx.z

    ary[i, j, k] = (i + 1) * (j + 1) * (k + 1)


def test_fill3d_threadidx():
    X, Y, Z = 4, 5, 6
    ary = np.zeros((X, Y, Z), dtype=np.int32)
    cuda.jit("void(int32[:,:,::1])")(fill3d_threadidx)[1, (X, Y, Z)](ary)
    i, j, k = np.indices((X, Y, Z))
    np.testing.assert_array_equal(ary, (i + 1) * (j + 1) * (k + 1))


def simple_grid2d(ary):
    i, j = cuda.grid(2)
    ary[i, j] = i + j


def simple_gridsize2d(ary):
    i, j = cuda.grid(2)
    x, y = cuda.gridsize(2)
    if i == 0 and j == 0:
        ary[0] = x
        ary[1] = y


def intrinsic_forloop_step(c):
    startX, startY = cuda.grid(2)
    gridX = cuda.gridDim.x * cuda.blockDim.x
    gridY = cuda.gridDim.y * cuda.blockDim.y
    height, width = c.shape

    for x in range(startX, width, gridX):
        for y in range(startY, height, gridY):
            c[y, x] = x + y


def test_grid_intrinsics():
    ary = np.zeros((4, 6), dtype=np.int32)
    cuda.jit("void(int32[:,::1])")(simple_grid2d)[(2, 3), (2, 2)](ary)
    i, j = np.indices(ary.shape)
    np.testing.assert_array_equal(ary, i + j)
    sizes = np.zeros(2, dtype=np.int32)
    cuda.jit("void(int32[::1])")(simple_gridsize2d)[(3, 2), (4, 5)](sizes)
    np.testing.assert_array_equal(sizes, [12, 10])
    c = np.zeros((21, 33), dtype=np.float32)
    cuda.jit("void(float32[:,::1])")(intrinsic_forloop_step)[(2, 3), (4, 5)](c)
    y, x = np.indices(c.shape)
    np.testing.assert_array_equal(c, x + y)


def simple_popc(ary, c):
    ary[0] = cuda.popc(c)


def simple_brev(ary, c):
    ary[0] = cuda.brev(c)


def simple_clz(ary, c):
    ary[0] = cuda.clz(c)


def simple_ffs(ary, c):
    ary[0] = cuda.ffs(c)


def simple_fma(ary, a, b, c):
    ary[0] = cuda.fma(a, b, c)


@pytest.mark.parametrize("fn,sig,arg,want", [
    (simple_popc, "void(int32[:], uint32)", 0xF00000FF, 12),
    (simple_brev, "void(uint32[:], uint32)", 0x000030F0, 0x0F0C0000),
    (simple_clz, "void(int32[:], uint32)", 0x00100000, 11),
    (simple_clz, "void(int32[:], int32)", 0, 32),
    (simple_ffs, "void(uint32[:], uint32)", 0x00100000, 21),
    (simple_ffs, "void(uint32[:], uint32)", 0, 0),
], ids=["popc", "brev", "clz", "clz0", "ffs", "ffs0"])
def test_bit_intrinsics(fn, sig, arg, want):
    ary = np.zeros(1, dtype=np.dtype(sig.split("(")[1].split("[")[0]))
    cuda.jit(sig)(fn)[1, 1](ary, arg)
    assert ary[0] == want


def test_fma():
    ary = np.zeros(1, dtype=np.float32)
    cuda.jit("void(f4[:], f4, f4, f4)")(simple_fma)[1, 1](ary, 2.0, 3.0, 4.0)
    np.testing.assert_allclose(ary[0], 2 * 3 + 4)


def branching_with_ifs(a, b, c):
    i = cuda.grid(1)

    if a[i] > 4:
        if b % 2 == 0:
            a[i] = c[i]
        else:
            a[i] = 13
    else:
        a[i] = 3


def branching_with_selps(a, b, c):
    i = cuda.grid(1)

    inner = cuda.selp(b % 2 == 0, c[i], 13)
    a[i] = cuda.selp(a[i] > 4, inner, 3)


def test_selp():
    sig = "void(i8[:], i8, i8[:])"
    n = 32
    b = 6
    c = np.full(shape=32, fill_value=17, dtype=np.int64)
    expected = c.copy()
    expected[:5] = 3
    for fn in (branching_with_ifs, branching_with_selps):
        a = np.arange(n, dtype=np.int64)
        cuda.jit(sig)(fn)[n, 1](a, b, c)
        np.testing.assert_array_equal(expected, a)


def simple_round(ary, c):
    ary[0] = round(c)


def test_round():
    ary = np.zeros(1, dtype=np.int64)
    cuda.jit("void(int64[:], float32)")(simple_round)[1, 1](ary, 2.5)
    assert ary[0] == 2


def simple_cbrt(ary, a):
    ary[0] = cuda.cbrt(a)


def test_cbrt():
    ary = np.zeros(1, dtype=np.float32)
    cuda.jit("void(float32[:], float32)")(simple_cbrt)[1, 1](ary, 27.0)
    np.testing.assert_allclose(ary[0], 3.0, rtol=1e-6)


def simple_laneid(ary):
    i = cuda.grid(1)
    ary[i] = cuda.laneid


def test_laneid(on_device):
    ary = np.zeros(32, dtype=np.int32)
    cuda.jit("void(int32[:])")(simple_laneid)[1, 32](ary)
    warp = on_device.info.subgroup_size        # a warp is a Vulkan subgroup
    np.testing.assert_array_equal(ary, np.arange(32) % warp)
