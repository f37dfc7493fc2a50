"""Arrays larger than a device binds per storage buffer (maxStorageBufferRange: 128 MiB on
lavapipe, 4 GiB on NVIDIA): a kernel binds the window of the buffer around the view it is
given, element-wise math and copies launch once per part that binds, reductions reduce the
parts and then their results. Most cases run against a Context whose recorded limit is
lowered to 64 KiB (windows within it are valid on the real device), so small arrays take
the same paths; one case allocates past lavapipe's real limit."""
import dataclasses

import numpy as np
import pytest

import vkpersist as vkp

LIMIT = 1 << 16
RNG = np.random.default_rng(5)
A = RNG.standard_normal((300, 257)).astype(np.float32)       # 308 kB: several windows


@pytest.fixture(scope="module")
def small(device_info):
    """A Context that binds at most LIMIT bytes per storage buffer."""
    with vkp.Context(device_info.index) as c:
        c.info = c._core.info = dataclasses.replace(c.info, max_storage_buffer_range=LIMIT)
        yield c


@vkp.kernel
def add_one(x, y):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        y[i] = x[i] + 1


def test_kernels_bind_the_window_around_a_view(small):
    n = 100_000
    x = small.asarray(np.arange(n, dtype=np.float32))
    y = small.zeros(n)
    for s in range(0, n, 9_999):                     # unaligned starts, offsets rebased
        e = min(n, s + 9_999)
        add_one.forall(e - s)(x[s:e], y[s:e])
    np.testing.assert_array_equal(y.numpy(), np.arange(n) + 1)
    z = small.zeros(10)
    add_one.forall(10)(x[n - 30::3], z)              # a strided view near the end
    window, _ = x[n:]._window(LIMIT)                 # an empty view binds a non-empty range
    assert window.size > 0
    np.testing.assert_array_equal(z.numpy(), np.arange(n - 30, n, 3) + 1)
    with pytest.raises(vkp.UnsupportedError,
                       match=r"spans 400000 bytes .* binds at most 65536 bytes per storage "
                             r"buffer .*parts of at most"):
        add_one.forall(n)(x, y)


def test_views_moving_along_a_buffer_share_a_few_windows(small, monkeypatch):
    """A loop over x[i:i + n] binds windows at multiples of half the limit, not one per
    offset (each distinct window is a descriptor set kept until the buffer dies)."""
    from vkpersist.vk import array as array_module
    seen = set()

    class Counted(array_module.Window):
        __slots__ = ()

        def __init__(self, *args):
            super().__init__(*args)
            seen.add(self.serial)
    monkeypatch.setattr(array_module, "Window", Counted)
    n = 60_000                                       # 240 kB: about 8 windows of 32 kB steps
    x = small.asarray(np.arange(n, dtype=np.float32))
    y = small.zeros(n)
    for s in range(0, n - 1000, 250):                # 236 distinct offsets
        add_one.forall(1000)(x[s:s + 1000], y[s:s + 1000])
    np.testing.assert_array_equal(y.numpy()[:n - 1000 + 750], np.arange(n - 250) + 1)
    assert len(seen) <= 2 * (2 * n * 4 // LIMIT + 1)


@pytest.mark.parametrize("case", ["broadcast", "strided", "transposed", "jit", "out",
                                  "astype", "copy of a view", "assign"])
def test_elementwise_math_and_copies_run_in_parts(small, case):
    b = RNG.standard_normal(257).astype(np.float32)
    da, db = small.asarray(A), small.asarray(b)
    if case == "broadcast":
        got, want = da * db + 1, A * b + 1
    elif case == "strided":
        got, want = da[::-3, ::2] - 2, A[::-3, ::2] - 2
    elif case == "transposed":
        got, want = vkp.maximum(da.T, 0), np.maximum(A.T, 0)
    elif case == "jit":
        f = vkp.jit(lambda x, y: vkp.where(x > y, x, y * 2))
        got, want = f(da, db), np.where(A > b, A, b * 2)
    elif case == "out":
        got, want = small.zeros(A.shape), A + b
        np.add(da, db, out=got)
    elif case == "astype":
        got, want = da.astype(np.int32), A.astype(np.int32)
    elif case == "copy of a view":
        got, want = da[:, ::-2].copy(), A[:, ::-2].copy()
    else:
        got, want = small.zeros(A.shape), A.copy()
        got[...] = da
        got[10:200, 5:] = -1.0
        want[10:200, 5:] = -1.0
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "mean", "argmin", "argmax",
                                  "any", "all"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reductions_run_in_parts(small, name, axis):
    host = {"any": A > 1, "all": A > -3, "prod": 1 + A / 1000}.get(name, A)
    dev = small.asarray(host)
    got = getattr(np, name)(dev, axis=axis)
    got = got.numpy() if isinstance(got, vkp.Array) else got
    want = getattr(np, name)(host, axis=axis)
    if name in ("argmin", "argmax", "min", "max", "any", "all"):
        np.testing.assert_array_equal(got, want)       # exact: no arithmetic
    else:
        # float32 sums in another order: documented bound (docs/reductions.md) at most
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_whole_array_reduction_of_one_long_row(small):
    b = RNG.standard_normal(40_000).astype(np.float32)      # one row of 160 kB
    b[12_345] = 9.0
    db = small.asarray(b)
    bound = 20 * np.finfo(np.float32).eps * float(np.abs(b).sum())
    assert abs(float(db.sum()) - b.sum(dtype=np.float64)) <= bound
    assert abs(float(np.dot(db, db)) - np.dot(b.astype(np.float64), b)) <= 2 * bound * 9
    assert int(np.argmax(db)) == 12_345 and int(np.argmin(db)) == int(np.argmin(b))


def test_past_the_real_limit(ctx):
    limit = ctx.info.max_storage_buffer_range
    if limit > 256 << 20:
        pytest.skip(f"{ctx.info.name} binds {limit >> 20} MiB per buffer: the arrays past "
                    "it would be too large for a test")
    n = limit // 4 + 1_000_003
    x = ctx.empty(n)
    x.fill(0.5)
    y = x * 2 + 1
    assert float(y[n - 1]) == 2.0 and float(y[0]) == 2.0
    assert abs(float(y.sum()) - 2.0 * n) <= 2.0 * n * 1e-6   # float32 result, tree order
    assert int(np.argmax(y[::7] + 0)) == 0
