"""numba-cuda's cudapy/test_atomics.py: add, sub, and/or/xor, inc, dec, exch, max, min
and compare-and-swap on shared and global memory; then histograms in numba.cuda's usual
form (an atomic add per bin, and per-block shared bins merged with global atomics)."""
import numpy as np
import pytest

from vkpersist import cuda
from vkpersist.cuda import float32, float64, int32, uint32, uint64


@cuda.jit(device=True)
def atomic_cast_to_uint64(num):
    return uint64(num)


@cuda.jit(device=True)
def atomic_cast_to_int(num):
    return int(num)


@cuda.jit(device=True)
def atomic_cast_none(num):
    return num


@cuda.jit(device=True)
def atomic_binary_1dim_shared(
    ary, idx, op2, ary_dtype, ary_nelements, binop_func, cast_func, initializer, neg_idx
):
    tid = cuda.threadIdx.x
    sm = cuda.shared.array(ary_nelements, ary_dtype)
    sm[tid] = initializer
    cuda.syncthreads()
    bin = cast_func(idx[tid] % ary_nelements)
    if neg_idx:
        bin = bin % ary_nelements
    binop_func(sm, bin, op2)
    cuda.syncthreads()
    ary[tid] = sm[tid]


@cuda.jit(device=True)
def atomic_binary_2dim_shared(ary, op2, ary_dtype, ary_shape, binop_func, y_cast_func, neg_idx):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    sm = cuda.shared.array(ary_shape, ary_dtype)
    sm[tx, ty] = ary[tx, ty]
    cuda.syncthreads()
    bin = (tx, y_cast_func(ty))
    if neg_idx:
        bin = (bin[0] - ary_shape[0], bin[1] - ary_shape[1])
    binop_func(sm, bin, op2)
    cuda.syncthreads()
    ary[tx, ty] = sm[tx, ty]


@cuda.jit(device=True)
def atomic_binary_1dim_global(ary, idx, ary_nelements, op2, binop_func, neg_idx):
    tid = cuda.threadIdx.x
    bin = int(idx[tid] % ary_nelements)
    if neg_idx:
        bin = bin % ary_nelements
    binop_func(ary, bin, op2)


def atomic_add(ary):
    atomic_binary_1dim_shared(ary, ary, 1, uint32, 32, cuda.atomic.add, atomic_cast_none, 0,
                              False)


def atomic_add2(ary):
    atomic_binary_2dim_shared(ary, 1, uint32, (4, 8), cuda.atomic.add, atomic_cast_none, False)


def atomic_add_float(ary):
    atomic_binary_1dim_shared(ary, ary, 1.0, float32, 32, cuda.atomic.add, atomic_cast_to_int,
                              0.0, False)


def atomic_add_double(idx, ary):
    atomic_binary_1dim_shared(ary, idx, 1.0, float64, 32, cuda.atomic.add, atomic_cast_none,
                              0.0, False)


def atomic_add_double_global(idx, ary):
    atomic_binary_1dim_global(ary, idx, 32, 1.0, cuda.atomic.add, False)


def atomic_sub(ary):
    atomic_binary_1dim_shared(ary, ary, 1, int32, 32, cuda.atomic.sub, atomic_cast_none, 0,
                              False)


def atomic_and(ary, op2):
    atomic_binary_1dim_shared(ary, ary, op2, uint32, 32, cuda.atomic.and_, atomic_cast_none, 1,
                              False)


def atomic_or(ary, op2):
    atomic_binary_1dim_shared(ary, ary, op2, uint32, 32, cuda.atomic.or_, atomic_cast_none, 0,
                              False)


def atomic_xor(ary, op2):
    atomic_binary_1dim_shared(ary, ary, op2, uint32, 32, cuda.atomic.xor, atomic_cast_none, 0,
                              False)


def atomic_and_global(idx, ary, op2):
    atomic_binary_1dim_global(ary, idx, 32, op2, cuda.atomic.and_, False)


def atomic_inc32(ary, idx, op2):
    atomic_binary_1dim_shared(ary, idx, op2, uint32, 32, cuda.atomic.inc, atomic_cast_none, 0,
                              False)


def atomic_exch_global(idx, ary, op2):
    atomic_binary_1dim_global(ary, idx, 32, op2, cuda.atomic.exch, False)


def atomic_max(res, ary):
    tx = cuda.threadIdx.x
    bx = cuda.blockIdx.x
    cuda.atomic.max(res, 0, ary[tx, bx])


def atomic_min(res, ary):
    tx = cuda.threadIdx.x
    bx = cuda.blockIdx.x
    cuda.atomic.min(res, 0, ary[tx, bx])


def atomic_compare_and_swap(res, old, ary, fill_val):
    gid = cuda.grid(1)
    if gid < res.size:
        old[gid] = cuda.atomic.compare_and_swap(res[gid:], fill_val, ary[gid])


def atomic_cas_1dim(res, old, ary, fill_val):
    gid = cuda.grid(1)
    if gid < res.size:
        old[gid] = cuda.atomic.cas(res, gid, fill_val, ary[gid])


def atomic_cas_2dim(res, old, ary, fill_val):
    gid = cuda.grid(2)
    if gid[0] < res.shape[0] and gid[1] < res.shape[1]:
        old[gid] = cuda.atomic.cas(res, gid, fill_val, ary[gid])


def _histogram(values, n):
    gold = np.zeros(n, dtype=values.dtype)
    for v in values:
        gold[int(v) % n] += 1
    return gold


@pytest.mark.parametrize("fn,sig,dtype", [
    (atomic_add, "void(uint32[:])", np.uint32),
    (atomic_add_float, "void(float32[:])", np.float32),
])
def test_atomic_add_shared(fn, sig, dtype):
    np.random.seed(0)
    ary = np.random.randint(0, 32, size=32).astype(dtype)
    orig = ary.copy()
    cuda.jit(sig)(fn)[1, 32](ary)
    np.testing.assert_array_equal(ary, _histogram(orig, 32))


def test_atomic_add2():
    ary = np.random.randint(0, 32, size=32).astype(np.uint32).reshape(4, 8)
    orig = ary.copy()
    cuda.jit("void(uint32[:,:])")(atomic_add2)[1, (4, 8)](ary)
    np.testing.assert_array_equal(ary, orig + 1)


def test_atomic_add_double():
    idx = np.random.randint(0, 32, size=32, dtype=np.int64)
    ary = np.zeros(32, np.float64)
    cuda.jit("void(int64[:], float64[:])")(atomic_add_double)[1, 32](idx, ary)
    np.testing.assert_array_equal(ary, _histogram(idx, 32))


def test_atomic_add_double_global():
    idx = np.random.randint(0, 32, size=32, dtype=np.int64)
    ary = np.zeros(32, np.float64)
    cuda.jit("void(int64[:], float64[:])")(atomic_add_double_global)[1, 32](idx, ary)
    np.testing.assert_array_equal(ary, _histogram(idx, 32))


def test_atomic_sub():
    ary = np.random.randint(0, 32, size=32).astype(np.int32)
    orig = ary.copy()
    cuda.jit("void(int32[:])")(atomic_sub)[1, 32](ary)
    np.testing.assert_array_equal(ary, -_histogram(orig, 32))


@pytest.mark.parametrize("fn,init,op", [(atomic_and, 1, np.bitwise_and),
                                        (atomic_or, 0, np.bitwise_or),
                                        (atomic_xor, 0, np.bitwise_xor)])
def test_atomic_bitwise(fn, init, op):
    rand_const = np.random.randint(500)
    ary = np.random.randint(0, 32, size=32).astype(np.uint32)
    orig = ary.copy()
    cuda.jit("void(uint32[:], uint32)")(fn)[1, 32](ary, rand_const)
    gold = np.full(32, init, dtype=np.uint32)
    for i in range(32):
        gold[orig[i]] = op(gold[orig[i]], rand_const)
    np.testing.assert_array_equal(ary, gold)


def test_atomic_and_global():
    rand_const = np.random.randint(500)
    idx = np.random.randint(0, 32, size=32, dtype=np.int32)
    ary = np.random.randint(0, 32, size=32, dtype=np.int32)
    gold = ary.copy()
    cuda.jit("void(int32[:], int32[:], int32)")(atomic_and_global)[1, 32](idx, ary, rand_const)
    for i in range(32):
        gold[idx[i]] &= rand_const
    np.testing.assert_array_equal(ary, gold)


def test_atomic_inc():
    ary = np.random.randint(0, 32, size=32).astype(np.uint32)
    orig = ary.copy()
    idx = np.arange(32, dtype=np.uint32)
    cuda.jit("void(uint32[:], uint32[:], uint32)")(atomic_inc32)[1, 32](ary, idx, 10)
    np.testing.assert_array_equal(ary, np.ones(32))     # shared zeros, each bin once
    orig[:] = [0, 9, 10, 11] * 8
    ary = orig.copy()
    cuda.jit("void(uint32[:], uint32)")(atomic_inc_global)[1, 32](ary, 10)
    np.testing.assert_array_equal(ary, np.where(orig >= 10, 0, orig + 1))


def atomic_dec32(ary, idx, op2):
    atomic_binary_1dim_shared(ary, idx, op2, uint32, 32, cuda.atomic.dec, atomic_cast_none, 0,
                              False)


def test_atomic_dec():
    ary = np.random.randint(0, 32, size=32).astype(np.uint32)
    orig = ary.copy()
    idx = np.arange(32, dtype=np.uint32)
    cuda.jit("void(uint32[:], uint32[:], uint32)")(atomic_dec32)[1, 32](ary, idx, 10)
    np.testing.assert_array_equal(ary, np.full(32, 10))  # shared zeros wrap to the bound
    orig[:] = [0, 9, 10, 11] * 8
    ary = orig.copy()
    cuda.jit("void(uint32[:], uint32)")(atomic_dec_global)[1, 32](ary, 10)
    np.testing.assert_array_equal(ary, np.where((orig == 0) | (orig > 10), 10, orig - 1))


def atomic_inc_global(ary, op2):
    cuda.atomic.inc(ary, cuda.grid(1), op2)


def atomic_dec_global(ary, op2):
    cuda.atomic.dec(ary, cuda.grid(1), op2)


def test_atomic_exch_global():
    rand_const = np.random.randint(50, 100)
    idx = np.arange(32, dtype=np.int32)
    ary = np.random.randint(0, 32, size=32, dtype=np.int32)
    cuda.jit("void(int32[:], int32[:], int32)")(atomic_exch_global)[1, 32](idx, ary, rand_const)
    assert np.all(ary == rand_const)


@pytest.mark.parametrize("fn,ref", [(atomic_max, np.max), (atomic_min, np.min)])
def test_atomic_max_min_int(fn, ref):
    vals = np.random.randint(0, 1000, size=(32, 32)).astype(np.int32)
    res = np.array([500 if fn is atomic_max else 500], dtype=np.int32)
    cuda.jit("void(int32[:], int32[:,:])")(fn)[32, 32](res, vals)
    assert res[0] == (max if fn is atomic_max else min)(500, ref(vals))


def test_atomic_max_double():
    vals = np.random.randint(0, 128, size=(32, 32)).astype(np.float64)
    res = np.zeros(1, np.float64)
    cuda.jit("void(float64[:], float64[:,:])")(atomic_max)[32, 32](res, vals)
    assert res[0] == vals.max()


@pytest.mark.parametrize("fn,shape,sig", [
    (atomic_cas_1dim, 32, "void(int32[:], int32[:], int32[:], int32)"),
    (atomic_cas_2dim, (4, 8), "void(int32[:,:], int32[:,:], int32[:,:], int32)"),
    (atomic_compare_and_swap, 32, "void(int32[:], int32[:], int32[:], int32)"),
], ids=["cas_1dim", "cas_2dim", "compare_and_swap"])
def test_atomic_cas(fn, shape, sig):
    fill = -1
    n = int(np.prod(shape))
    res = np.random.randint(0, 2, size=n).astype(np.int32).reshape(shape) * -1 - 0
    res[res == 0] = 5
    expect_res = np.full_like(res, fill)
    ary = np.random.randint(1, 10, size=n).astype(np.int32).reshape(shape)
    expect_res[:] = np.where(res == fill, ary, res)
    gold_old = res.copy()
    old = np.zeros_like(res)
    blocks, threads = (1, shape) if isinstance(shape, int) else (1, shape)
    cuda.jit(sig)(fn)[blocks, threads](res, old, ary, fill)
    np.testing.assert_array_equal(res, expect_res)
    np.testing.assert_array_equal(old, gold_old)


# ---- histograms (numba.cuda's usual form, not a port of one test file) --------------------
def histogram_kernel(values, bins, counts):
    """A histogram with atomics, numba.cuda's usual form (cuda.atomic.add on a bin)."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    for j in range(i, values.shape[0], stride):
        b = int(values[j] * bins)
        if b >= bins:
            b = bins - 1
        cuda.atomic.add(counts, b, 1)


def test_histogram():
    np.random.seed(3)
    values = np.random.random(10000).astype(np.float32)
    counts = np.zeros(16, dtype=np.int32)
    cuda.jit(histogram_kernel)[4, 64](values, 16, counts)
    want = np.bincount(np.minimum((values * 16).astype(int), 15), minlength=16)
    np.testing.assert_array_equal(counts, want)


def test_shared_histogram_with_sync():
    """A per-block shared-memory histogram merged with global atomics."""
    @cuda.jit
    def hist(values, counts):
        local_counts = cuda.shared.array(16, int32)
        tx = cuda.threadIdx.x
        if tx < 16:
            local_counts[tx] = 0
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < values.size:
            cuda.atomic.add(local_counts, values[i] % 16, 1)
        cuda.syncthreads()
        if tx < 16:
            cuda.atomic.add(counts, tx, local_counts[tx])

    values = np.random.randint(0, 1000, size=3000).astype(np.int32)
    counts = np.zeros(16, dtype=np.int32)
    hist[(values.size + 127) // 128, 128](values, counts)
    np.testing.assert_array_equal(counts, np.bincount(values % 16, minlength=16))
