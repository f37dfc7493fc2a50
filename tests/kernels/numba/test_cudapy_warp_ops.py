"""numba-cuda's cudapy/test_warp_ops.py, on one warp of the device's size (a Vulkan
subgroup): syncwarp, shuffles, votes, ballot, activemask and lanemask_lt; and a block
sum the CUDA way beside vkp's own subgroup reductions and scans."""
import numpy as np

from vkpersist import cuda
import vkpersist as vkp
from vkpersist.cuda import float32, float64, int32, int64


def useful_syncwarp(ary):
    i = cuda.grid(1)
    if i == 0:
        ary[0] = 42
    cuda.syncwarp(0xFFFFFFFF)
    ary[i] = ary[0]


def use_shfl_sync_idx(ary, idx):
    i = cuda.grid(1)
    val = cuda.shfl_sync(0xFFFFFFFF, i, idx)
    ary[i] = val


def use_shfl_sync_up(ary, delta):
    i = cuda.grid(1)
    val = cuda.shfl_up_sync(0xFFFFFFFF, i, delta)
    ary[i] = val


def use_shfl_sync_down(ary, delta):
    i = cuda.grid(1)
    val = cuda.shfl_down_sync(0xFFFFFFFF, i, delta)
    ary[i] = val


def use_shfl_sync_xor(ary, xor):
    i = cuda.grid(1)
    val = cuda.shfl_xor_sync(0xFFFFFFFF, i, xor)
    ary[i] = val


def use_shfl_sync_with_val(ary, into):
    i = cuda.grid(1)
    val = cuda.shfl_sync(0xFFFFFFFF, into, 0)
    ary[i] = val


def use_vote_sync_all(ary_in, ary_out):
    i = cuda.grid(1)
    pred = cuda.all_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = pred


def use_vote_sync_any(ary_in, ary_out):
    i = cuda.grid(1)
    pred = cuda.any_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = pred


def use_vote_sync_eq(ary_in, ary_out):
    i = cuda.grid(1)
    pred = cuda.eq_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = pred


def use_vote_sync_ballot(ary):
    i = cuda.threadIdx.x
    ballot = cuda.ballot_sync(0xFFFFFFFF, True)
    ary[i] = ballot


def test_warp_ops(on_device):
    w = on_device.info.subgroup_size
    ary = np.empty(w, dtype=np.int32)
    cuda.jit("void(int32[:])")(useful_syncwarp)[1, w](ary)
    assert np.all(ary == 42)
    lanes = np.arange(w, dtype=np.int32)
    d = min(4, w // 2)
    for fn, arg, want in [(use_shfl_sync_idx, d, np.full(w, d)),
                          (use_shfl_sync_up, d, np.where(lanes >= d, lanes - d, lanes)),
                          (use_shfl_sync_down, d, np.where(lanes + d < w, lanes + d, lanes)),
                          (use_shfl_sync_xor, w // 2, lanes ^ (w // 2))]:
        cuda.jit("void(int32[:], int32)")(fn)[1, w](ary, arg)
        np.testing.assert_array_equal(ary, want, err_msg=fn.__name__)
    for typ, val in zip((int32, int64, float32, float64),
                        (np.int32(-1), np.int64(1 << 42), np.float32(np.pi), np.float64(np.pi))):
        out = np.empty(w, dtype=val.dtype)
        cuda.jit((typ[:], typ))(use_shfl_sync_with_val)[1, w](out, val)
        assert np.all(out == val), typ
    ary_in, ary_out = np.ones(w, np.int32), np.empty(w, np.int32)
    vote_all = cuda.jit("void(int32[:], int32[:])")(use_vote_sync_all)
    vote_all[1, w](ary_in, ary_out)
    assert np.all(ary_out == 1)
    ary_in[-1] = 0
    vote_all[1, w](ary_in, ary_out)
    assert np.all(ary_out == 0)
    ary_in[:] = 0
    vote_any = cuda.jit("void(int32[:], int32[:])")(use_vote_sync_any)
    vote_any[1, w](ary_in, ary_out)
    assert np.all(ary_out == 0)
    ary_in[w // 2] = 1
    vote_any[1, w](ary_in, ary_out)
    assert np.all(ary_out == 1)
    vote_eq = cuda.jit("void(int32[:], int32[:])")(use_vote_sync_eq)
    vote_eq[1, w](ary_in, ary_out)
    assert np.all(ary_out == 0)
    ary_in[:] = 1
    vote_eq[1, w](ary_in, ary_out)
    assert np.all(ary_out == 1)
    ballot = np.empty(w, np.uint32)
    cuda.jit("void(uint32[:])")(use_vote_sync_ballot)[1, w](ballot)
    assert np.all(ballot == np.uint32((1 << min(w, 32)) - 1))


def test_activemask_and_lanemask(on_device):
    @cuda.jit
    def use_activemask(x):
        i = cuda.grid(1)
        if (i % 2) == 0:
            x[i] = cuda.activemask()
        else:
            x[i] = cuda.activemask()

    @cuda.jit
    def use_lanemask_lt(x):
        i = cuda.grid(1)
        x[i] = cuda.lanemask_lt()

    w = on_device.info.subgroup_size
    out = np.zeros(w, dtype=np.uint32)
    use_activemask[1, w](out)
    full = (1 << min(w, 32)) - 1
    np.testing.assert_equal(out, np.tile((0x55555555 & full, 0xAAAAAAAA & full), w // 2))
    use_lanemask_lt[1, w](out)
    np.testing.assert_equal(out, [(1 << i) - 1 for i in range(w)])


def test_warp_reduction_with_subgroups(on_device):
    """A block sum the CUDA way (shfl_down tree per warp, one shared slot per warp) on the
    device's warp size, and vkp's own subgroup reductions and scans, against NumPy."""
    @cuda.jit
    def block_sum(x, out):
        partial = cuda.shared.array(64, float32)
        i = cuda.grid(1)
        v = x[i]
        offset = cuda.warpsize // 2
        while offset > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
            offset //= 2
        if cuda.laneid == 0:
            partial[cuda.threadIdx.x // cuda.warpsize] = v
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            total = float32(0)
            for k in range(cuda.blockDim.x // cuda.warpsize):
                total += partial[k]
            out[cuda.blockIdx.x] = total

    @cuda.jit
    def scans(x, out):
        i = cuda.grid(1)
        out[0, i] = vkp.subgroup_add(x[i])
        out[1, i] = vkp.subgroup_inclusive_add(x[i])
        out[2, i] = vkp.subgroup_exclusive_add(x[i])
        out[3, i] = vkp.subgroup_max(x[i])
        out[4, i] = vkp.subgroup_shuffle(x[i], cuda.laneid + 1)

    w = on_device.info.subgroup_size
    x = np.arange(256, dtype=np.float32) % 7
    out = np.zeros(4, np.float32)
    block_sum[4, 64](x, out)
    np.testing.assert_array_equal(out, x.reshape(4, 64).sum(axis=1))
    got = np.zeros((5, 256), np.float32)
    scans[4, 64](x, got)
    sub = x.reshape(-1, w)
    np.testing.assert_array_equal(got[0], np.repeat(sub.sum(axis=1), w))
    np.testing.assert_array_equal(got[1], np.cumsum(sub, axis=1).ravel())
    np.testing.assert_array_equal(got[2], (np.cumsum(sub, axis=1) - sub).ravel())
    np.testing.assert_array_equal(got[3], np.repeat(sub.max(axis=1), w))
    np.testing.assert_array_equal(got[4], np.roll(sub, -1, axis=1).ravel())
