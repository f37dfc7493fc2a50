"""NumPy's array-manipulation functions on device arrays against NumPy, exactly (they move
and convert elements, they compute nothing): shape queries, *_like, copies between
layouts, views, joins and rearrangements, with NumPy's errors."""
import numpy as np
import pytest

import vkpersist as vkp

RNG = np.random.default_rng(8)
X = RNG.standard_normal((3, 4, 5)).astype(np.float32)


def _same(got, want):
    assert isinstance(got, vkp.Array), type(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype,
                                                                 want.shape, want.dtype)
    np.testing.assert_array_equal(got.numpy(), want)


def test_shape_queries(ctx):
    dx = ctx.asarray(X)
    assert np.shape(dx) == (3, 4, 5) and np.ndim(dx) == 3 and np.size(dx) == 60
    assert np.size(dx, 1) == 4 and np.size(dx, -1) == 5


def test_like_constructors_and_copies(ctx):
    dx = ctx.asarray(X)
    _same(np.zeros_like(dx), np.zeros_like(X))
    _same(np.ones_like(dx, dtype=np.int16), np.ones_like(X, dtype=np.int16))
    _same(np.full_like(dx, 2.5), np.full_like(X, 2.5))
    _same(np.full_like(dx, 7, shape=(2, 3)), np.full_like(X, 7, shape=(2, 3)))
    _same(np.full_like(dx, np.arange(5, dtype=np.float32)),
          np.full_like(X, np.arange(5, dtype=np.float32)))
    e = np.empty_like(dx, dtype=np.uint8)
    assert e.shape == X.shape and e.dtype == np.uint8
    c = np.copy(dx[:, ::2])
    _same(c, X[:, ::2].copy())
    assert c._contiguous
    _same(dx[::-1].flatten(), X[::-1].flatten())
    with pytest.raises(ValueError, match="row-major"):
        np.zeros_like(dx, order="F")


def test_copyto_between_layouts_with_where_and_casting(ctx):
    dst, y = ctx.asarray(np.zeros((4, 5), np.float64)), np.zeros((4, 5), np.float64)
    np.copyto(dst, ctx.asarray(X[0]))
    np.copyto(y, X[0])
    _same(dst, y)
    np.copyto(dst[:, ::2], ctx.asarray(X[1]).T[:3].T, where=X[1][:, :3].T.T > 0)
    np.copyto(y[:, ::2], X[1].T[:3].T, where=X[1][:, :3].T.T > 0)
    _same(dst, y)
    np.copyto(dst, 3)                                    # a scalar broadcasts
    np.copyto(y, 3)
    _same(dst, y)
    i = ctx.asarray(np.zeros(4, np.int32))
    with pytest.raises(TypeError, match="according to the rule 'same_kind'"):
        np.copyto(i, ctx.asarray(np.ones(4, np.float32)))
    np.copyto(i, ctx.asarray(np.full(4, 2.7, np.float32)), casting="unsafe")
    _same(i, np.full(4, 2, np.int32))


def test_assignment_between_device_layouts_stays_on_the_device(ctx, monkeypatch):
    a, b = X.copy(), ctx.asarray(X.copy())
    monkeypatch.setattr(vkp.Array, "numpy", lambda self: pytest.fail("went through the host"))
    b[:, 1] = b[:, 2][::-1]                   # strided views, same dtype
    b[0] = ctx.asarray(np.arange(5, dtype=np.float64))      # broadcast, converted
    b[:, :, 0].copy_from(b[:, :, 1])
    monkeypatch.undo()
    a[:, 1] = a[:, 2][::-1]
    a[0] = np.arange(5)
    a[:, :, 0] = a[:, :, 1]
    _same(b, a)


@pytest.mark.parametrize("name, call", [
    ("reshape", lambda m, x: m.reshape(x, (4, 15))),
    ("reshape newshape kw", lambda m, x: m.reshape(x, shape=(-1, 5))),
    ("ravel", lambda m, x: m.ravel(x[:, 1])),
    ("transpose", lambda m, x: m.transpose(x, (2, 0, 1))),
    ("swapaxes", lambda m, x: m.swapaxes(x, 0, -1)),
    ("moveaxis", lambda m, x: m.moveaxis(x, 0, -1)),
    ("moveaxis several", lambda m, x: m.moveaxis(x, [0, 1], [-1, 0])),
    ("expand_dims", lambda m, x: m.expand_dims(x, 1)),
    ("expand_dims tuple", lambda m, x: m.expand_dims(x, (0, -1))),
    ("squeeze", lambda m, x: m.squeeze(m.expand_dims(x, (0, 2)))),
    ("squeeze axis", lambda m, x: m.squeeze(m.expand_dims(x, 0), axis=0)),
    ("flip", lambda m, x: m.flip(x)),
    ("flip axis", lambda m, x: m.flip(x, 1)),
    ("flipud", lambda m, x: m.flipud(x)),
    ("fliplr", lambda m, x: m.fliplr(x)),
    ("broadcast_to", lambda m, x: m.broadcast_to(x[:, :1], (2, 3, 4, 5))),
    ("concatenate", lambda m, x: m.concatenate([x, x[:1] * 2], axis=0)),
    ("concatenate axis -1", lambda m, x: m.concatenate((x, x[:, :, :2]), axis=-1)),
    ("concatenate None", lambda m, x: m.concatenate([x, x[0]], axis=None)),
    ("concatenate dtype", lambda m, x: m.concatenate([x, (x > 0)], axis=1)),
    ("stack", lambda m, x: m.stack([x[0], x[1], x[2]], axis=1)),
    ("vstack", lambda m, x: m.vstack([x[0, 0], x[1, 0]])),
    ("hstack", lambda m, x: m.hstack([x[0], x[1]])),
    ("column_stack", lambda m, x: m.column_stack([x[0, 0], x[1, 0]])),
    ("diff", lambda m, x: m.diff(x)),
    ("diff n=2 axis 0", lambda m, x: m.diff(x, n=2, axis=0)),
    ("diff bool", lambda m, x: m.diff(x > 0, axis=1)),
    ("roll", lambda m, x: m.roll(x, 7)),
    ("roll axis", lambda m, x: m.roll(x, -2, axis=1)),
    ("roll axes", lambda m, x: m.roll(x, (1, 3), axis=(0, 2))),
    ("take", lambda m, x: m.take(x, [4, 0, 4], axis=2)),
    ("take flat", lambda m, x: m.take(x, [[1, 59], [0, 3]])),
    ("take scalar", lambda m, x: m.take(x, 3, axis=1)),
    ("repeat", lambda m, x: m.repeat(x, 2)),
    ("repeat axis counts", lambda m, x: m.repeat(x, [1, 0, 3], axis=0)),
    ("pad constant", lambda m, x: m.pad(x, ((1, 2), (0, 1), (3, 0)), constant_values=7)),
    ("pad edge", lambda m, x: m.pad(x, ((2, 3), (1, 1), (0, 6)), "edge")),
    ("pad wrap", lambda m, x: m.pad(x, ((3, 3), (4, 1), (2, 5)), "wrap")),
    ("pad reflect", lambda m, x: m.pad(x, ((2, 2), (3, 1), (4, 4)), "reflect")),
    ("pad symmetric", lambda m, x: m.pad(x, ((3, 1), (4, 4), (1, 5)), "symmetric")),
    ("tile", lambda m, x: m.tile(x, (2, 1, 3))),
    ("tile longer reps", lambda m, x: m.tile(x[0], (2, 2, 1))),
    ("diagonal", lambda m, x: m.diagonal(x, 1, 1, 2)),
    ("diagonal negative", lambda m, x: m.diagonal(x, -2, 2, 0)),
    ("trace", lambda m, x: m.trace(x[0], -1)),
    ("diag of 1-d", lambda m, x: m.diag(x[0, 0], 2)),
    ("diag of 2-d", lambda m, x: m.diag(x[1], -1)),
    ("tril", lambda m, x: m.tril(x, -1)),
    ("triu", lambda m, x: m.triu(x[0], 2)),
])
def test_views_joins_and_rearrangements_are_numpys(ctx, name, call):
    want = call(np, X)
    got = call(np, ctx.asarray(X))
    _same(got, want)


def test_methods_and_views_share_memory(ctx):
    dx = ctx.asarray(X)
    _same(dx.squeeze(), X.squeeze())
    _same(dx[None].squeeze(0), X[None].squeeze(0))
    _same(dx.swapaxes(1, 2), X.swapaxes(1, 2))
    _same(dx.take([1, 0], axis=1), X.take([1, 0], axis=1))
    _same(dx.repeat(2, axis=2), X.repeat(2, axis=2))
    f = np.flip(dx, 0)
    f[0, 0, 0] = 100.0                       # a view: writes reach the original
    assert float(dx[2, 0, 0]) == 100.0


def test_manipulation_errors_are_numpys(ctx):
    dx = ctx.asarray(X)
    with pytest.raises(ValueError, match="along dimension 1, the array at index 0 has size 4 "
                                         "and the array at index 1 has size 3"):
        np.concatenate([dx, dx[:, :3]], axis=0)
    with pytest.raises(ValueError, match="zero-dimensional"):
        np.concatenate([dx[0, 0, 0], dx[0, 0, 1]])
    with pytest.raises(ValueError, match="same shape"):
        np.stack([dx, dx[:1]])
    with pytest.raises(ValueError, match="size not equal to one"):
        np.squeeze(dx, axis=0)
    with pytest.raises(ValueError, match="could not be broadcast"):
        np.broadcast_to(dx, (3, 3, 5))
    with pytest.raises(np.exceptions.AxisError):
        np.swapaxes(dx, 0, 3)
    with pytest.raises(TypeError, match="prepend"):
        np.diff(dx, prepend=0)


def test_arrays_made_on_the_default_context_or_a_given_one(ctx):
    _same(vkp.arange(7, ctx=ctx), np.arange(7))
    _same(vkp.arange(1.0, 2.0, 0.25, ctx=ctx), np.arange(1.0, 2.0, 0.25))
    _same(vkp.arange(5, dtype=np.float32, ctx=ctx), np.arange(5, dtype=np.float32))
    _same(vkp.linspace(0, 1, 11, ctx=ctx), np.linspace(0, 1, 11))
    values, step = vkp.linspace(0, 2, 5, endpoint=False, retstep=True, ctx=ctx)
    assert step == 0.4 and values.shape == (5,)
    _same(vkp.zeros((2, 3), ctx=ctx), np.zeros((2, 3), np.float32))
    _same(vkp.ones(4, np.int16, ctx=ctx), np.ones(4, np.int16))
    _same(vkp.full(3, 7, ctx=ctx), np.full(3, 7))
    assert vkp.empty((2, 2), np.uint8, ctx=ctx).dtype == np.uint8
    d = vkp.asarray([1, 2, 3], ctx=ctx)
    assert vkp.asarray(d, ctx=ctx) is d
    _same(vkp.asarray(d, np.float32, ctx=ctx), np.array([1, 2, 3], np.float32))
    assert vkp.zeros(3).ctx is vkp.default_context()
    with pytest.raises(TypeError, match="ctx must be a vkpersist.Context"):
        vkp.zeros(3, ctx="gpu")


def test_meshgrid_eye_and_diagonal_views(ctx):
    a, b, c = np.arange(3.0), np.arange(4.0), np.arange(2.0)
    for indexing in ("xy", "ij"):
        for sparse in (False, True):
            got = np.meshgrid(*map(ctx.asarray, (a, b, c)), indexing=indexing, sparse=sparse)
            for g, w in zip(got, np.meshgrid(a, b, c, indexing=indexing, sparse=sparse)):
                _same(g, w)
    _same(vkp.eye(3, 5, k=1, ctx=ctx), np.eye(3, 5, k=1, dtype=np.float32))
    _same(vkp.identity(4, np.int32, ctx=ctx), np.identity(4, np.int32))
    m = ctx.asarray(np.zeros((3, 3), np.float32))
    np.diagonal(m)[...] = 5.0                 # a writable view (NumPy's is read-only)
    _same(m, np.eye(3, dtype=np.float32) * 5)
    with pytest.raises(ValueError, match="not supported on vkpersist arrays; modes"):
        np.pad(m, 1, "median")
    with pytest.raises(ValueError, match="wider than axis"):
        np.pad(m, 3, "reflect")


def test_numpy_and_cupy_spellings_of_array_methods(ctx):
    x = np.arange(12.0).reshape(3, 4) - 5
    dx = ctx.asarray(x)
    assert dx.tolist() == x.tolist() and dx.itemsize == 8
    np.testing.assert_array_equal(dx.get(), x)
    np.testing.assert_array_equal(vkp.asnumpy(dx), x)
    np.testing.assert_array_equal(vkp.asnumpy([1, 2]), [1, 2])
    host = np.empty((3, 4))
    assert vkp.asnumpy(dx, out=host) is host and np.array_equal(host, x)
    _same(dx.clip(-2, 3), x.clip(-2, 3))
    _same(dx.diagonal(1), x.diagonal(1))
    assert float(dx.trace()) == x.trace()
    assert 3.0 in dx and 100.0 not in dx
    assert [1, 2, 3][ctx.asarray(np.int32(1))] == 2                 # __index__
    assert complex(ctx.asarray(np.complex64(1 + 2j))) == 1 + 2j
    with pytest.raises(TypeError, match="integer scalar arrays"):
        [1, 2][dx[0, 0]]


def test_repeat_beyond_the_device_says_so_before_anything_is_made(ctx):
    """Issue 53: np.repeat(v, 2**40) raised NumPy's 32 TiB MemoryError from inside
    vkpersist (the host index); now vkpersist's own error, naming the limit."""
    v = ctx.asarray(np.arange(4, dtype=np.float32))
    with pytest.raises(vkp.OutOfDeviceMemory, match="np.repeat: the result would hold "
                       "4,398,046,511,104 rows along axis 0 .*maxMemoryAllocationSize"):
        np.repeat(v, 2**40)
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        np.repeat(v, -1)                                # NumPy's own message
