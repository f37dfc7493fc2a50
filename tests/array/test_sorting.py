"""Sorting, searching and counting on device arrays against NumPy: np.sort/argsort (stable,
NaN last), searchsorted (both sides, NaN), unique with its optional results, bincount and
histogram; exact, except weighted sums (atomic additions in the device's order: within
1e-12 relative of NumPy's float64 sums)."""
import numpy as np
import pytest

import vkpersist as vkp

RNG = np.random.default_rng(5)


def _data(dtype, shape):
    x = (RNG.standard_normal(shape) * 5).astype(dtype)
    if np.dtype(dtype).kind == "f" and x.size > 4:      # NaN, signed zeros, ties
        x.flat[1], x.flat[2], x.flat[3], x.flat[4] = np.nan, -0.0, 0.0, x.flat[0]
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8,
                                   np.bool_, np.float16])
@pytest.mark.parametrize("shape, axis", [((37,), -1), ((4, 9, 6), 1), ((4, 9, 6), -1),
                                         ((5, 8), 0), ((6, 7), None), ((1,), 0), ((0,), 0)])
def test_sort_and_argsort_are_numpys_stable_sort(ctx, dtype, shape, axis):
    x = _data(dtype, shape)
    dx = ctx.asarray(x)
    got = np.sort(dx, axis=axis)
    assert isinstance(got, vkp.Array) and got.dtype == x.dtype
    np.testing.assert_array_equal(got.numpy(), np.sort(x, axis=axis))
    order = np.argsort(dx, axis=axis)
    assert order.dtype == np.int64
    np.testing.assert_array_equal(order.numpy(), np.argsort(x, axis=axis, kind="stable"))


def test_sort_many_rows_and_long_rows(ctx):
    x = RNG.standard_normal((3, 5000)).astype(np.float32)       # padded to 8192
    np.testing.assert_array_equal(np.sort(ctx.asarray(x)).numpy(), np.sort(x))
    y = RNG.integers(0, 50, 100_000).astype(np.int32)            # many ties, many workgroups
    np.testing.assert_array_equal(np.argsort(ctx.asarray(y)).numpy(),
                                  np.argsort(y, kind="stable"))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32])
def test_the_radix_sort_is_numpys_stable_sort(ctx, dtype, monkeypatch):
    """Long 1-d rows of 32-bit keys take the radix sort (vkpersist/_sorting/radix.py): every
    size around a tile's edge, ties, NaNs of both signs, signed zeros, infinities and the
    extremes, strided and offset views; with 3 workgroups a grid axis here, so the 2-d grid
    and the grid-stride loops of large arrays run too."""
    from vkpersist._sorting import radix
    monkeypatch.setattr(radix, "RADIX_MIN", 1)
    monkeypatch.setattr(radix, "MAX_X", 3)
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    for n in (1, 5, radix.TILE - 1, radix.TILE, radix.TILE + 1, 3 * radix.TILE + 77,
              7 * radix.TILE + 5):
        if info is None:
            x = (RNG.standard_normal(n) * 1e3).astype(dtype)
            special = np.array([np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, 3.0, 3.0,
                                np.finfo(dtype).max, -np.finfo(dtype).max,
                                np.finfo(dtype).tiny, -np.finfo(dtype).smallest_subnormal],
                               dtype)
        else:
            x = RNG.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
            special = np.array([info.min, info.max, 0, 1, 7, 7, 7], dtype)
        k = min(n, special.size)
        x[RNG.choice(n, k, replace=False)] = special[:k]
        dx = ctx.asarray(x)
        order = np.argsort(dx)
        want = np.argsort(x, kind="stable")
        np.testing.assert_array_equal(order.numpy(), want)
        # the values are the input's own bits: NaN payloads, zeros' signs
        np.testing.assert_array_equal(np.sort(dx).numpy().view(np.uint32),
                                      x[want].view(np.uint32))
    if info is None:
        # no NaN and no -0.0: the values are the sorted keys turned back (none gathered);
        # one -0.0 alone: gathered, its sign kept
        for n in (5, 3 * radix.TILE + 77):
            x = (RNG.standard_normal(n) * 1e3).astype(dtype)
            x[:4] = [np.inf, -np.inf, 0.0, np.finfo(dtype).smallest_subnormal]
            for case in (x, np.where(np.arange(n) == 1, dtype(-0.0), x)):
                np.testing.assert_array_equal(
                    np.sort(ctx.asarray(case)).numpy().view(np.uint32),
                    case[np.argsort(case, kind="stable")].view(np.uint32))
    wide = RNG.integers(0, 40, 2 * radix.TILE + 3).astype(dtype)          # many ties
    dw = ctx.asarray(wide)
    # np.sort of clean keys moves no indices; np.unique's return_index needs them
    for got, want in zip(np.unique(dw, return_index=True, return_inverse=True),
                         np.unique(wide, return_index=True, return_inverse=True)):
        np.testing.assert_array_equal(got.numpy(), want)
    for view, host in ((dw[::2], wide[::2]), (dw[5:], wide[5:]), (dw[::-3], wide[::-3])):
        np.testing.assert_array_equal(np.argsort(view).numpy(),
                                      np.argsort(host, kind="stable"))
        np.testing.assert_array_equal(np.sort(view).numpy(), np.sort(host))


def test_the_radix_sorts_prepare_flags_what_its_keys_lose(ctx):
    """np.sort's values are its keys turned back unless `prepare` flagged a NaN or a -0.0
    (then the input is gathered): the flag itself, for clean inputs, each of the two, an
    input of NaNs only, and argsort, which asks for no values and leaves it alone."""
    from vkpersist._sorting import radix
    from vkpersist.vk.array import Array
    n = 5 * radix.TILE + 3
    clean = (RNG.standard_normal(n) * 1e3).astype(np.float32)
    clean[:3] = [0.0, np.inf, -np.inf]
    cases = [(clean, 0), (np.where(np.arange(n) == 7, np.float32(-0.0), clean), 1),
             (np.where(np.arange(n) == n - 1, np.float32(np.nan), clean), 1),
             (np.full(n, np.nan, np.float32), 1)]
    for x, want in cases:
        for track in (1, 0):
            special = ctx.asarray(np.array([7 * (1 - track)], np.uint32))
            radix._kernel("prepare", np.dtype(np.float32))[64, None](
                ctx.asarray(x), Array(ctx, (n,), np.uint32), special, n=n, track=track)
            assert int(special.numpy()[0]) == (want if track else 7)


def test_the_radix_sort_carries_across_scan_segments(ctx):
    """Past SEG digit counts (more than 256 tiles) the counts are scanned in segments whose
    totals carry into the next (vkpersist/_sorting/radix.py)."""
    from vkpersist._sorting import radix
    n = radix.SEG * radix.TILE // 16 + 5000
    x = RNG.integers(0, 100, n).astype(np.int32)              # every digit, many ties
    np.testing.assert_array_equal(np.argsort(ctx.asarray(x)).numpy(),
                                  np.argsort(x, kind="stable"))


def test_the_radix_sort_launched_one_kernel_at_a_time_reports_each(ctx):
    """`sort_row(..., after=)` (benchmarks/probes/sort_breakdown.py's hook) submits the kernels
    one by one, calling `after` with each kernel's name in launch order, and sorts the
    same."""
    from vkpersist._sorting import radix
    x = RNG.standard_normal(radix.RADIX_MIN).astype(np.float32)
    names = []
    values, _ = radix.sort_row(ctx.asarray(x), values=True, indices=False, after=names.append)
    np.testing.assert_array_equal(values.numpy()[0], np.sort(x))
    assert names == ["prepare"] + ["count", "scan_segments", "scan", "scatter"] * 8 + ["values"]
    _, idx = radix.sort_row(ctx.asarray(x), values=False, after=names.append)
    np.testing.assert_array_equal(idx.numpy()[0], np.argsort(x, kind="stable"))


def test_a_repeated_radix_sort_allocates_nothing(ctx, monkeypatch):
    """A long np.sort takes five buffers of its row's size (keys and indices twice, the
    values); the buffer pool kept four of a size, so every call allocated the fifth anew
    (on an H100 a 2**24 float32 sort took 8.6 ms against argsort's 5.6, docs/measurements-log.md).
    From its second call on, a sort (and an argsort) creates no buffer."""
    from vkpersist._sorting import radix as _radix_sort
    from vkpersist.vk import buffer
    x = ctx.asarray(RNG.standard_normal(_radix_sort.RADIX_MIN).astype(np.float32))
    created = []
    real = buffer.Buffer._create
    monkeypatch.setattr(buffer.Buffer, "_create",
                        lambda self, *a: created.append(a[1]) or real(self, *a))
    for sort in (np.sort, np.argsort):
        sort(x)                          # (dropped: its buffers go back to the pool)
        ctx.synchronize()
        created.clear()
        for _ in range(3):
            np.testing.assert_array_equal(sort(x).numpy(), sort(x.numpy(), kind="stable"))
        assert created == [], f"{sort.__name__}: buffers of {created} bytes created"


def test_methods_sort_in_place(ctx):
    x = _data(np.float32, (4, 6))
    dx = ctx.asarray(x)
    dx.sort(axis=0)
    x.sort(axis=0)
    np.testing.assert_array_equal(dx.numpy(), x)
    np.testing.assert_array_equal(dx.argsort().numpy(), x.argsort(kind="stable"))
    view = dx[:, ::2]
    view.sort()                            # a strided view sorts in place too
    x[:, ::2].sort()
    np.testing.assert_array_equal(dx.numpy(), x)


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_is_numpys(ctx, side):
    a = np.sort(RNG.standard_normal(50).astype(np.float32))
    a[-2:] = np.nan
    a[10:13] = a[10]                                     # a run of equal values
    v = np.concatenate([RNG.standard_normal(32), a[5:15], [np.nan, np.inf, -np.inf]])
    da = ctx.asarray(a)
    got = np.searchsorted(da, ctx.asarray(v.astype(np.float32)), side=side)
    np.testing.assert_array_equal(got.numpy(), np.searchsorted(a, v.astype(np.float32), side=side))
    np.testing.assert_array_equal(da.searchsorted(v.reshape(3, -1).astype(np.float32),
                                                  side=side).numpy(),
                                  a.searchsorted(v.reshape(3, -1).astype(np.float32), side=side))
    ints = np.array([1, 3, 3, 7], np.int32)
    assert int(np.searchsorted(ctx.asarray(ints), 3, side=side)) == np.searchsorted(ints, 3,
                                                                                     side=side)
    perm = RNG.permutation(50)
    np.testing.assert_array_equal(
        np.searchsorted(ctx.asarray(a[perm]), ctx.asarray(a[:20]), side=side,
                        sorter=np.argsort(a[perm], kind="stable")).numpy(),
        np.searchsorted(a[perm], a[:20], side=side, sorter=np.argsort(a[perm], kind="stable")))


def test_searchsorted_refuses_a_bad_sorter_as_numpy(ctx):
    """A sorter of the wrong length searched a prefix (or a longer array), and -1 wrapped:
    NumPy raises, and so does vkpersist, with NumPy's exception type and words, for device
    and NumPy sorters; a valid uint8 sorter is taken. (NumPy checks the range of only the
    indices its binary search reads; vkpersist checks them all, so the queries here read
    the bad one.)"""
    a = np.array([3.0, 1.0, 2.0, 5.0])
    da = ctx.asarray(a)
    bad = ([0, 1], [1, 2, 0, 3, 3], [1, 2, 0, 4], [1, 2, 0, -1], [[1, 2, 0, 3]],
           [1.0, 2.0, 0.0, 3.0], [True, False, True, True])
    v = np.array([0.0, 2.5, 9.0])
    for sorter in bad:
        s = np.array(sorter)
        with pytest.raises((TypeError, ValueError)) as want:
            np.searchsorted(a, v, sorter=s)
        for given in (s, ctx.asarray(s)):
            with pytest.raises(want.type) as got:
                np.searchsorted(da, ctx.asarray(v), sorter=given)
            assert str(want.value).rstrip(".") in str(got.value), (sorter, got.value)
    s = np.array([1, 2, 0, 3], np.uint8)
    np.testing.assert_array_equal(
        np.searchsorted(da, ctx.asarray(np.array([2.5, 9.0])), sorter=ctx.asarray(s)).numpy(),
        np.searchsorted(a, [2.5, 9.0], sorter=s))


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_unique_with_its_optional_results(ctx, dtype):
    x = RNG.integers(-5, 6, (6, 7)).astype(dtype)
    if x.dtype.kind == "f":
        x[0, :3] = np.nan                                 # NaNs collapse into one
    dx = ctx.asarray(x)
    np.testing.assert_array_equal(np.unique(dx).numpy(), np.unique(x))
    got = np.unique(dx, return_index=True, return_inverse=True, return_counts=True)
    want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g.numpy(), w)
    assert np.unique(ctx.asarray(np.zeros(0, dtype))).shape == (0,)


def test_bincount_is_numpys(ctx):
    x = RNG.integers(0, 9, 1000).astype(np.int32)
    dx = ctx.asarray(x)
    got = np.bincount(dx)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got.numpy(), np.bincount(x))
    np.testing.assert_array_equal(np.bincount(dx, minlength=20).numpy(),
                                  np.bincount(x, minlength=20))
    w = RNG.standard_normal(1000)
    np.testing.assert_allclose(np.bincount(dx, weights=ctx.asarray(w)).numpy(),
                               np.bincount(x, weights=w), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.bincount(ctx.asarray(np.array([True, False, True]))).numpy(),
                                  np.bincount(np.array([True, False, True])))
    with pytest.raises(ValueError, match="no negative elements"):
        np.bincount(ctx.asarray(np.array([1, -1], np.int32)))
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        np.bincount(ctx.asarray(np.array([1.0])))
    with pytest.raises(ValueError, match="same length"):
        np.bincount(dx, weights=np.ones(3))


def test_bincount_counts_in_shared_memory_up_to_its_limit(ctx):
    """Up to SHARED_BINS bins each workgroup counts in shared memory and adds its totals
    once; past it the atomics go to the counts themselves. Both, at the edge, with many
    values a workgroup (grid-stride) and most of them in one bin."""
    from vkpersist._statistics import histogram as _counting
    n = _counting.SHARED_GROUPS * 256 * 3 + 17
    for top in (_counting.SHARED_BINS, _counting.SHARED_BINS + 1):
        x = np.where(RNG.random(n) < 0.5, 3, RNG.integers(0, top, n)).astype(np.int32)
        x[-1] = top - 1
        np.testing.assert_array_equal(np.bincount(ctx.asarray(x)).numpy(), np.bincount(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_histogram_is_numpys(ctx, dtype):
    a = (RNG.standard_normal(5000) * 3).astype(dtype)
    da = ctx.asarray(a)
    for kw in [{}, dict(bins=7), dict(bins=5, range=(-1, 2)), dict(bins=[-3, -1, 0, 0.5, 4])]:
        got, edges = np.histogram(da, **kw)
        want, want_edges = np.histogram(a, **kw)
        np.testing.assert_array_equal(edges, want_edges)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)
    wts = np.abs(a).astype(np.float64)
    np.testing.assert_allclose(np.histogram(da, bins=6, weights=ctx.asarray(wts))[0].numpy(),
                               np.histogram(a, bins=6, weights=wts)[0], rtol=1e-12)
    np.testing.assert_allclose(np.histogram(da, bins=4, density=True)[0].numpy(),
                               np.histogram(a, bins=4, density=True)[0], rtol=1e-12)


def test_histogram_edges_nan_and_errors(ctx):
    a = np.array([0.0, 1.0, 1.0, 2.0, 2.0, np.nan], np.float32)
    da = ctx.asarray(a)
    np.testing.assert_array_equal(np.histogram(da, range=(0, 2))[0].numpy(),
                                  np.histogram(a, range=(0, 2))[0])       # right edge closes
    with pytest.raises(ValueError, match="autodetected range of \\[nan, nan\\] is not finite"):
        np.histogram(da)
    with pytest.raises(ValueError, match="max must be larger than min"):
        np.histogram(da, range=(2, 1))
    with pytest.raises(TypeError, match="give a bin count or the edges"):
        np.histogram(da, bins="auto")
    with pytest.raises(TypeError, match="complex"):
        np.sort(ctx.asarray(np.array([1 + 1j], np.complex64)))
    with pytest.raises(ValueError, match="kind must be one of"):
        np.sort(da, kind="bogo")
