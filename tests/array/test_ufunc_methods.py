"""NumPy's ufunc methods on device arrays against NumPy: reduce (the reductions, with the
ufunc's axis 0 default), accumulate of add (cumsum), outer, and the unbuffered at
(atomic scatter-add, -subtract, -max, -min; every repeated index counts)."""
import numpy as np
import pytest

import vkpersist as vkp

RNG = np.random.default_rng(12)
X = RNG.standard_normal((4, 5)).astype(np.float32)


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum])
def test_reduce_is_the_reduction_with_axis_0_by_default(ctx, ufunc):
    dx = ctx.asarray(X)
    got = ufunc.reduce(dx)
    assert isinstance(got, vkp.Array) and got.shape == (5,)
    np.testing.assert_allclose(got.numpy(), ufunc.reduce(X), rtol=2e-6)   # tree order
    np.testing.assert_allclose(ufunc.reduce(dx, axis=1, keepdims=True).numpy(),
                               ufunc.reduce(X, axis=1, keepdims=True), rtol=2e-6)
    np.testing.assert_allclose(np.asarray(ufunc.reduce(dx, axis=None)),
                               ufunc.reduce(X, axis=None), rtol=2e-6)


def test_logical_reduce_accumulate_and_outer(ctx):
    dx = ctx.asarray(X)
    assert bool(np.logical_and.reduce(dx > -10, axis=None)) is True
    np.testing.assert_array_equal(np.logical_or.reduce(dx > 1).numpy(),
                                  np.logical_or.reduce(X > 1))
    np.testing.assert_allclose(np.add.accumulate(dx).numpy(), np.add.accumulate(X),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(np.add.accumulate(ctx.asarray(np.arange(6)), axis=0).numpy(),
                                  np.add.accumulate(np.arange(6)))
    np.testing.assert_array_equal(np.multiply.accumulate(ctx.asarray(np.arange(1, 8))).numpy(),
                                  np.multiply.accumulate(np.arange(1, 8)))
    np.testing.assert_array_equal(np.subtract.outer(dx[0], dx[1]).numpy(),
                                  np.subtract.outer(X[0], X[1]))
    got = np.multiply.outer(dx, np.arange(3, dtype=np.float32))
    assert got.shape == (4, 5, 3)
    np.testing.assert_array_equal(got.numpy(), np.multiply.outer(X, np.arange(3, dtype=np.float32)))
    np.testing.assert_array_equal(np.greater.outer(dx[:, 0], dx[0]).numpy(),
                                  np.greater.outer(X[:, 0], X[0]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_add_at_counts_every_repeated_index(ctx, dtype):
    a = np.zeros(7, dtype)
    da = ctx.asarray(a)
    idx = np.array([0, 1, 1, 6, 6, 6, -1])
    v = np.arange(7).astype(dtype)
    np.add.at(a, idx, v)
    np.add.at(da, ctx.asarray(idx), ctx.asarray(v))
    np.testing.assert_array_equal(da.numpy(), a)
    np.subtract.at(a, idx, 2)
    np.subtract.at(da, idx, 2)
    np.testing.assert_array_equal(da.numpy(), a)
    b = ctx.asarray(np.zeros(7, dtype))
    b[idx] += 1                               # buffered: once per distinct index, as NumPy
    c = np.zeros(7, dtype)
    c[idx] += 1
    np.testing.assert_array_equal(b.numpy(), c)


def test_at_with_slices_masks_views_and_max_min(ctx):
    m = np.zeros((3, 4), np.int32)
    dm = ctx.asarray(m)
    key = (slice(None), np.array([1, 1, 3]))
    vals = np.array([5, 9, -2], np.int32)
    np.maximum.at(m, key, vals)
    np.maximum.at(dm, key, vals)
    np.minimum.at(m, (0, slice(None)), -3)
    np.minimum.at(dm, (0, slice(None)), -3)
    np.testing.assert_array_equal(dm.numpy(), m)
    g = np.zeros(8)
    dg = ctx.asarray(g)
    mask = RNG.random(8) > 0.5
    np.add.at(g, mask, 2.0)
    np.add.at(dg, mask, 2.0)
    np.testing.assert_array_equal(dg.numpy(), g)
    h = np.zeros((4, 6), np.float32)
    dh = ctx.asarray(h)
    np.add.at(h[:, ::2], np.array([0, 0, 2]), 1.0)        # a strided view as the target
    view = dh[:, ::2]
    np.add.at(view, np.array([0, 0, 2]), 1.0)
    np.testing.assert_array_equal(dh.numpy(), h)


def test_methods_without_a_device_form_say_which_have_one(ctx):
    dx = ctx.asarray(X)
    with pytest.raises(TypeError, match="numpy.power.reduce .* np.add.reduce"):
        np.power.reduce(dx)
    with pytest.raises(TypeError, match="np.add.accumulate, np.multiply.accumulate"):
        np.subtract.accumulate(dx)
    with pytest.raises(TypeError, match="numpy.multiply.at .* np.add.at"):
        np.multiply.at(dx, [0], 2.0)
    with pytest.raises(TypeError, match="integers only"):
        np.maximum.at(dx, [0], 2.0)
    with pytest.raises(TypeError, match="32- or 64-bit"):
        np.add.at(ctx.asarray(np.zeros(3, np.int16)), [0], 1)
