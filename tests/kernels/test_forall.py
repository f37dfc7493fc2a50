"""`k.forall(shape)`: one invocation per index of a 1-3 d shape, as the domains of program
stages; invocations beyond the shape do not run (no guard needed in the kernel), except in
kernels that need every invocation of a workgroup (barrier(), shared arrays)."""
import numpy as np
import pytest

import vkpersist as vkp


@vkp.kernel
def mark(out: vkp.Array[vkp.i32, 1], ny: vkp.i32, nz: vkp.i32):
    i = vkp.global_id(0)
    j = vkp.global_id(1)
    k = vkp.global_id(2)
    vkp.atomic.add(out, (i * ny + j) * nz + k, 1)      # no guard: forall bounds it


@pytest.mark.parametrize("shape", [(37,), (13, 21), (5, 6, 7)])
def test_forall_runs_each_index_of_the_shape_once(ctx, shape):
    full = shape + (1,) * (3 - len(shape))
    out = ctx.zeros(int(np.prod(full)) + 64, np.int32)   # room past the end: must stay 0
    mark.forall(shape if len(shape) > 1 else shape[0])(out, full[1], full[2])
    got = out.numpy()
    assert (got[:np.prod(full)] == 1).all() and (got[np.prod(full):] == 0).all()


@vkp.kernel
def outer(x: vkp.Array[vkp.f32, 1], y: vkp.Array[vkp.f32, 1], out: vkp.Array[vkp.f32, 2]):
    i = vkp.global_id(0)
    j = vkp.global_id(1)
    out[i, j] = x[i] * y[j]


def test_forall_2d_matches_numpy_with_its_local_size(ctx):
    x = np.linspace(0, 1, 19, dtype=np.float32)
    y = np.linspace(1, 2, 11, dtype=np.float32)
    for local in (None, (4, 2), (16, 1)):
        out = ctx.zeros((19, 11), np.float32)
        launcher = outer.forall((19, 11)) if local is None else outer.forall((19, 11), local)
        launcher(x, y, out)
        np.testing.assert_array_equal(out.numpy(), np.outer(x, y))
    assert outer.forall((19, 11)).local == (8, 8, 1)
    assert outer.forall((19, 11)).groups == (3, 2, 1)
    assert outer.forall((3, 4, 5)).local == (4, 4, 4)


@vkp.kernel
def block_sum(x: vkp.Array[vkp.f32, 1], out: vkp.Array[vkp.f32, 1]):
    buf = vkp.shared.array(64, vkp.f32)
    i = vkp.global_id(0)
    t = vkp.local_id(0)
    buf[t] = x[i] if i < x.shape[0] else 0.0
    vkp.barrier()
    if t == 0:
        s = 0.0
        for k in range(64):
            s += buf[k]
        out[vkp.group_id(0)] = s


def test_forall_keeps_every_invocation_of_a_kernel_with_barriers(ctx):
    x = np.arange(100, dtype=np.float32)
    out = np.zeros(2, np.float32)
    block_sum.forall(100)(x, out)            # the kernel guards its reads itself
    np.testing.assert_array_equal(out, [x[:64].sum(), x[64:].sum()])


def test_forall_shape_mistakes():
    with pytest.raises(ValueError, match=r"forall\(n\): n is an int or a shape of 1-3 ints"):
        mark.forall((2, 2, 2, 2))
    with pytest.raises(TypeError, match=r"n has 2 axes, so local is a tuple of 2 ints"):
        mark.forall((8, 8), 64)
    with pytest.raises(TypeError, match=r"local takes one int per axis of n \(2 for"):
        mark.forall((8, 8), (4, 4, 4))
    with pytest.raises(ValueError, match="must not be negative"):
        mark.forall((8, -1))
    with pytest.raises(TypeError, match="an int, got float"):
        mark.forall((8, 2.0))


def test_forall_past_a_32_bit_index_is_refused(ctx):
    @vkp.kernel
    def touch(x: vkp.Array[vkp.f32]):
        x[0] = 1.0
    x = ctx.zeros(1, np.float32)
    with pytest.raises(ValueError, match=r"2,147,483,648 invocations on axis 0 are more than "
                                         r"a kernel's index"):
        touch.forall(2**31)(x)
    with pytest.raises(ValueError, match="axis 1"):
        touch.forall((4, 2**31))(x)
