"""numba-cuda's cudapy/test_sync.py: syncthreads and syncwarp, static, 2-d and dynamic
shared memory, the thread fences and the syncthreads votes (count, and, or)."""
import numpy as np
import pytest

from vkpersist import cuda
from vkpersist.cuda import float32, int32


def useless_syncthreads(ary):
    i = cuda.grid(1)
    cuda.syncthreads()
    ary[i] = i


def useless_syncwarp(ary):
    i = cuda.grid(1)
    cuda.syncwarp()
    ary[i] = i


def simple_smem(ary):
    N = 100
    sm = cuda.shared.array(N, int32)
    i = cuda.grid(1)
    if i == 0:
        for j in range(N):
            sm[j] = j
    cuda.syncthreads()
    ary[i] = sm[i]


def coop_smem2d(ary):
    i, j = cuda.grid(2)
    sm = cuda.shared.array((10, 20), float32)
    sm[i, j] = (i + 1) / (j + 1)
    cuda.syncthreads()
    ary[i, j] = sm[i, j]


def dyn_shared_memory(ary):
    i = cuda.grid(1)
    sm = cuda.shared.array(0, float32)
    sm[i] = i * 2
    cuda.syncthreads()
    ary[i] = sm[i]


def use_threadfence(ary):
    ary[0] += 123
    cuda.threadfence()
    ary[0] += 321


def use_threadfence_block(ary):
    ary[0] += 123
    cuda.threadfence_block()
    ary[0] += 321


def use_threadfence_system(ary):
    ary[0] += 123
    cuda.threadfence_system()
    ary[0] += 321


def use_syncthreads_count(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_count(ary_in[i])


def use_syncthreads_and(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_and(ary_in[i])


def use_syncthreads_or(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_or(ary_in[i])


@pytest.mark.parametrize("fn", [useless_syncthreads,
                                useless_syncwarp])
def test_useless_sync(fn):
    compiled = cuda.jit("void(int32[::1])")(fn)
    ary = np.empty(10, dtype=np.int32)
    compiled[1, 10](ary)
    np.testing.assert_equal(ary, np.arange(10, dtype=np.int32))


def test_simple_smem():
    ary = np.empty(100, dtype=np.int32)
    cuda.jit("void(int32[::1])")(simple_smem)[1, 100](ary)
    assert np.all(ary == np.arange(100, dtype=np.int32))


def test_coop_smem2d():
    shape = 10, 20
    ary = np.empty(shape, dtype=np.float32)
    cuda.jit("void(float32[:,::1])")(coop_smem2d)[1, shape](ary)
    i, j = np.indices(shape)
    assert np.allclose(ary, (i + 1) / (j + 1))


def test_dyn_shared_memory():
    compiled = cuda.jit("void(float32[::1])")(dyn_shared_memory)
    ary = np.empty(50, dtype=np.float32)
    compiled[1, 50, 0, ary.size * 4](ary)
    assert np.all(ary == 2 * np.arange(ary.size, dtype=np.int32))


@pytest.mark.parametrize("fn", [use_threadfence, use_threadfence_block, use_threadfence_system])
def test_threadfence(fn):
    ary = np.zeros(10, dtype=np.int32)
    cuda.jit("void(int32[:])")(fn)[1, 1](ary)
    assert ary[0] == 123 + 321


def test_syncthreads_votes():
    ary_in = np.ones(72, dtype=np.int32)
    ary_out = np.zeros(72, dtype=np.int32)
    ary_in[31] = 0
    ary_in[42] = 0
    cuda.jit("void(int32[:], int32[:])")(use_syncthreads_count)[1, 72](ary_in, ary_out)
    assert np.all(ary_out == 70)
    cuda.jit("void(float32[:], int32[:])")(use_syncthreads_and)[1, 72](
        ary_in.astype(np.float32), ary_out)
    assert np.all(ary_out == 0)
    cuda.jit("void(int32[:], int32[:])")(use_syncthreads_and)[1, 72](np.ones(72, np.int32),
                                                                     ary_out)
    assert np.all(ary_out == 1)
    cuda.jit("void(int32[:], int32[:])")(use_syncthreads_or)[1, 72](np.zeros(72, np.int32),
                                                                    ary_out)
    assert np.all(ary_out == 0)
    ary_in = np.zeros(72, dtype=np.int32)
    ary_in[31] = 1
    cuda.jit("void(int32[:], int32[:])")(use_syncthreads_or)[1, 72](ary_in, ary_out)
    assert np.all(ary_out == 1)
