"""Advanced indexing of device arrays against NumPy: integer-array gathers and scatters,
boolean masks (selection and assignment), np.nonzero / flatnonzero / argwhere /
count_nonzero / one-argument where; exact (indexing moves elements, it computes nothing),
with NumPy's errors for bad indices."""
import numpy as np
import pytest

import vkpersist as vkp

RNG = np.random.default_rng(21)
X = RNG.standard_normal((5, 6, 4)).astype(np.float32)
IDX = np.array([4, 0, -1, 2, 2])


def _on_device(ctx, key):
    """The key with its NumPy arrays as device arrays."""
    conv = lambda k: ctx.asarray(k) if isinstance(k, np.ndarray) else k     # noqa: E731
    return tuple(map(conv, key)) if isinstance(key, tuple) else conv(key)


KEYS = {
    "axis 0": IDX,
    "list": [1, 3],
    "axis 1": (slice(None), IDX[:3] % 6),
    "ellipsis": (Ellipsis, np.array([1, 3])),
    "2-d index, sliced": (slice(1, 4), slice(None), np.array([[0, 1], [3, 2]])),
    "int next to it": (2, IDX),
    "int after it": (IDX, 3),
    "empty": np.array([], np.int64),
    "uint32": np.array([3, 1], np.uint32),
    "mask, all axes": X > 0,
    "mask, leading axis": X[:, 0, 0] > 0,
    "mask, two leading axes": X[:, :, 0] > 0,
    "mask, middle axis": (slice(None), X[0, :, 0] > 0),
    "mask, none true": X > 100,
}


@pytest.mark.parametrize("name", KEYS)
def test_gathers_and_masks_select_as_numpy(ctx, name):
    key = KEYS[name]
    want = X[key]
    dx = ctx.asarray(X)
    for k in (key, _on_device(ctx, key)):                # indices from the host, the device
        got = dx[k]
        assert isinstance(got, vkp.Array) and got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)


def test_gathers_from_views_and_other_dtypes(ctx):
    x = np.arange(60, dtype=np.int64).reshape(6, 10)
    dx = ctx.asarray(x)
    np.testing.assert_array_equal(dx[::2, 1::3][:, np.array([2, 0])].numpy(),
                                  x[::2, 1::3][:, [2, 0]])
    np.testing.assert_array_equal(dx.T[np.array([9, 0, 4])].numpy(), x.T[[9, 0, 4]])
    b = ctx.asarray(np.array([True, False, True]))
    np.testing.assert_array_equal(b[np.array([2, 2, 1])].numpy(), [True, True, False])
    big = RNG.standard_normal(100_000).astype(np.float32)     # many workgroups
    m = big > 1.0
    np.testing.assert_array_equal(ctx.asarray(big)[ctx.asarray(m)].numpy(), big[m])


def test_bad_indices_raise_numpys_errors(ctx):
    dx = ctx.asarray(X)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 5"):
        dx[np.array([0, 5])]
    with pytest.raises(IndexError, match="index -7 is out of bounds for axis 1 with size 6"):
        dx[:, np.array([-7])]
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 5"):
        dx[ctx.asarray(np.array([1, 9]))]                  # found by the kernel
    with pytest.raises(IndexError, match="boolean index did not match indexed array along "
                                         "axis 0; size of axis is 5 but size of corresponding "
                                         "boolean axis is 4"):
        dx[np.ones(4, bool)]
    with pytest.raises(IndexError, match="integer .or boolean. type, got float64"):
        dx[np.array([1.0])]
    with pytest.raises(IndexError, match="bool as an index"):
        dx[True]


# several index arrays: NumPy broadcasts them together; adjacent indexed axes stay in
# place in the result, separated ones (integers count as index arrays then) go first
SEVERAL = {
    "two arrays": (np.array([0, 4, -1]), np.array([1, 5, 0])),
    "separated": (np.array([0, 2]), slice(None), np.array([1, 3])),
    "int apart": (2, slice(None), np.array([0, 1, 3])),
    "broadcast 2-d": (np.array([[0], [1], [4]]), np.array([0, 1, 2, 5])),
    "last two": (slice(1, 4), np.array([0, 1]), np.array([1, 2])),
    "ellipsis": (Ellipsis, np.array([0, -1]), np.array([1, -2])),
    "mask and array": (X[:, 0, 0] > 0, slice(None), np.array([1] * int((X[:, 0, 0] > 0).sum()))),
    "2-d mask and array": (X[:, :, 0] > 0, np.array([3])),
    "three arrays": (np.array([0, 1]), np.array([1, 2]), np.array([3, 0])),
    "empty": (np.zeros(0, np.int64), np.zeros(0, np.int64)),
    "int, array, slice": (1, np.array([1, 2]), slice(1, 3)),
    "array, int, array": (np.array([3]), 2, np.array([0, 1])),
    "an empty Ellipsis between": (slice(None), np.array([0, 1]), Ellipsis, 1),
    "empty lists": ([], []),
}


@pytest.mark.parametrize("where", ["host", "device"])
@pytest.mark.parametrize("case", list(SEVERAL))
def test_several_index_arrays_gather_and_scatter_as_numpy(ctx, case, where):
    key = SEVERAL[case]
    dkey = _on_device(ctx, key) if where == "device" else key
    want = X[key]
    got = ctx.asarray(X)[dkey]
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)
    # assignment of a broadcast value (distinct targets in every case, so no order matters)
    value = np.arange(want.size, dtype=np.float32).reshape(want.shape)
    y, dy = X.copy(), ctx.asarray(X)
    y[key] = value
    dy[dkey] = value
    np.testing.assert_array_equal(dy.numpy(), y)
    y[key] = -1.0
    dy[dkey] = -1.0
    np.testing.assert_array_equal(dy.numpy(), y)


def test_several_index_arrays_on_a_strided_view(ctx):
    dx = ctx.asarray(X)
    view, dview = X[:, ::2, ::-1], dx[:, ::2, ::-1]
    key = (np.array([4, 0]), slice(None), np.array([1, 3]))
    np.testing.assert_array_equal(dview[key].numpy(), view[key])
    y = X.copy()
    y[:, ::2, ::-1][key] = 7.0
    dview[key] = 7.0                                # written back through the view
    np.testing.assert_array_equal(dx.numpy(), y)


@pytest.mark.parametrize("where", ["host", "device"])
def test_several_index_arrays_raise_numpys_errors(ctx, where):
    dx = ctx.asarray(X)
    conv = (lambda k: ctx.asarray(np.asarray(k))) if where == "device" else np.asarray
    for key in [(conv([0, 5]), conv([0, 0])), (conv([0]), conv([-7])),
                (conv([0, 1]), conv([0, 1, 2])), (0, 0, 0, 0),
                (Ellipsis, Ellipsis, conv([0])), (conv([0]), conv([1.5]))]:
        with pytest.raises(IndexError) as ours:
            dx[key]
        with pytest.raises(IndexError) as numpys:
            X[tuple(np.asarray(k.numpy()) if isinstance(k, vkp.Array) else k for k in key)]
        assert str(ours.value).startswith(str(numpys.value).rstrip())   # ours may add the dtype
    with pytest.raises(IndexError, match="np.newaxis"):
        dx[None, np.array([0]), np.array([1])]


@pytest.mark.parametrize("case", ["mask scalar", "leading mask scalar", "mask array",
                                  "gather scalar", "gather array", "axis 1 broadcast",
                                  "device values", "strided view"])
def test_assignment_through_indices_and_masks(ctx, case):
    y = X.copy()
    dy = ctx.asarray(y)
    if case == "mask scalar":
        y[X > 0] = 0.0
        dy[dy > 0] = 0.0
    elif case == "leading mask scalar":
        m = X[:, 0, 0] > 0
        y[m] = 1.5
        dy[ctx.asarray(m)] = 1.5
    elif case == "mask array":
        m = X > 0.5
        y[m] = -y[m]
        dy[ctx.asarray(m)] = -dy[ctx.asarray(m)]
    elif case == "gather scalar":
        y[[4, 0, -2]] = 7.0
        dy[np.array([4, 0, -2])] = 7.0
    elif case == "gather array":
        v = RNG.standard_normal((2, 6, 4)).astype(np.float32)
        y[[3, 1]] = v
        dy[ctx.asarray(np.array([3, 1]))] = ctx.asarray(v)
    elif case == "axis 1 broadcast":
        y[:, [1, 2]] = np.arange(4, dtype=np.float32)       # broadcast over (5, 2, 4)
        dy[:, np.array([1, 2])] = np.arange(4, dtype=np.float32)
    elif case == "device values":
        y[..., [0, 3]] = y[..., [3, 0]]
        dy[..., np.array([0, 3])] = dy[..., np.array([3, 0])]
    else:                                               # a view that is not contiguous
        y[:, ::2][[0, 2]] = 9.0
        view = dy[:, ::2]
        view[np.array([0, 2])] = 9.0
    np.testing.assert_array_equal(dy.numpy(), y)


def test_assignment_converts_and_checks_as_numpy(ctx):
    a = np.arange(6, dtype=np.int32)
    da = ctx.asarray(a)
    da[da > 2] = 1.9                         # NumPy's assignment casting: truncates
    a[a > 2] = 1.9
    np.testing.assert_array_equal(da.numpy(), a)
    u = ctx.asarray(np.zeros(3, np.uint8))
    with pytest.raises(OverflowError):
        u[np.array([True, False, True])] = 300
    with pytest.raises(ValueError, match="could not be broadcast to indexing result of "
                                         r"shape \(2,6,4\)|shape \(2, 6, 4\)"):
        ctx.asarray(X)[np.array([0, 1])] = np.ones(3, np.float32)
    with pytest.raises(IndexError, match="out of bounds"):
        ctx.asarray(X)[ctx.asarray(np.array([10]))] = 1.0


def test_nonzero_flatnonzero_argwhere_count_nonzero_and_where(ctx):
    x = np.where(X > 0.3, X, 0).astype(np.float32)
    dx = ctx.asarray(x)
    for got, want in zip(np.nonzero(dx), np.nonzero(x)):
        assert isinstance(got, vkp.Array)
        np.testing.assert_array_equal(got.numpy(), want)
    for got, want in zip(dx.nonzero(), x.nonzero()):
        np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(np.flatnonzero(dx).numpy(), np.flatnonzero(x))
    np.testing.assert_array_equal(np.argwhere(dx).numpy(), np.argwhere(x))
    for got, want in zip(np.where(dx > 0), np.where(x > 0)):
        np.testing.assert_array_equal(got.numpy(), want)
    assert np.count_nonzero(dx) == np.count_nonzero(x)
    np.testing.assert_array_equal(np.count_nonzero(dx, axis=1).numpy(),
                                  np.count_nonzero(x, axis=1))
    empty = ctx.asarray(np.zeros((3, 2), np.int16))
    assert all(i.shape == (0,) for i in np.nonzero(empty))
    assert np.argwhere(empty).shape == (0, 2)
    with pytest.raises(ValueError, match="nonzero on 0d arrays"):
        np.nonzero(ctx.asarray(np.float32(1)))
    with pytest.raises(ValueError, match="either both or neither"):
        np.where(dx, dx)
