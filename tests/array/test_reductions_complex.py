"""min/max/argmin/argmax of complex64/complex128 device arrays against NumPy, bit for bit.

NumPy orders complex numbers by real part, then imaginary part; a value with a NaN in
either part wins (the first such one). Of values that compare equal but differ in their
bits (0.0 and -0.0 parts), min/max return the first: in NumPy's iteration order, which for
a view is its memory's (x.T.max() walks x), while argmin/argmax count in the view's logical
(C) order. The values here come from a small pool (ties on the real part, so that the
imaginary part decides; signed zeros; infinities) with NaNs of several bit patterns (either
part, both, negative, with a payload) dropped in, and every result is compared as bytes:
signed zeros and NaN payloads included. Each test runs on both reduction paths (subgroups
where the device has them, and shared memory); complex values take the shared-memory
kernels on both, which the launch count checks.
"""
import itertools

import numpy as np
import pytest

import vkpersist as vkp
from vkpersist._core import reduction as reductions

DTYPES = pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["c64", "c128"])
POOL = np.array([-2.0, -1.0, -0.0, 0.0, 1.0, 1.0, 2.0, np.inf, -np.inf])
OPS = (np.min, np.max, np.argmin, np.argmax)


def _need(ctx, dtype):
    if np.dtype(dtype) == np.complex128 and not ctx.info.float64:
        pytest.skip("the device has no float64")


def _nans(dtype):
    """NaNs of different bits: quiet, negative, with a payload."""
    part = np.dtype(dtype).type(0).real.dtype
    bits = {np.float32: [0x7FC00000, 0xFFC00000, 0x7FC00123],
            np.float64: [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000123]}
    return np.array(bits[part.type], np.uint32 if part == np.float32 else np.uint64).view(part)


def _pack(re, im, dtype):
    """A complex array from its parts (`re + 1j * im` would lose a -0.0 imaginary part)."""
    z = np.empty(np.shape(re), dtype)
    z.real, z.imag = re, im
    return z


def _data(rng, shape, dtype, nans=0):
    """Parts from POOL, then `nans` elements given a NaN in the real part, the imaginary
    part or both."""
    z = _pack(rng.choice(POOL, shape), rng.choice(POOL, shape), dtype)
    flat = z.reshape(-1)
    nan = _nans(dtype)
    for i in rng.choice(flat.size, min(nans, flat.size), replace=False):
        re, im = flat[i].real, flat[i].imag
        where = rng.integers(3)
        flat[i] = _pack(rng.choice(nan) if where != 1 else re,
                        rng.choice(nan) if where != 0 else im, dtype)
    return z


def _same(got, want, what=""):
    got = got.numpy() if isinstance(got, vkp.Array) else np.asarray(got)
    want = np.asarray(want)
    if got.dtype.kind == "i" and want.dtype.kind == "i":      # int32 on devices without int64
        got = got.astype(want.dtype)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, got.shape,
                                                                 want.dtype, want.shape)
    assert got.tobytes() == want.tobytes(), (what, got, want)


def _check(dx, x, axes, keepdims=(False,)):
    for f in (np.min, np.max):
        for axis, keep in itertools.product(axes, keepdims):
            _same(f(dx, axis=axis, keepdims=keep), f(x, axis=axis, keepdims=keep),
                  f"{f.__name__} axis={axis} keepdims={keep}")
    for f in (np.argmin, np.argmax):
        for axis, keep in itertools.product(axes, keepdims):
            if axis is None or isinstance(axis, int):           # NumPy takes one axis
                _same(f(dx, axis=axis, keepdims=keep), f(x, axis=axis, keepdims=keep),
                      f"{f.__name__} axis={axis} keepdims={keep}")


@pytest.fixture(params=["subgroups", "shared-memory"])
def path(request, ctx, monkeypatch):
    """Each reduction path this device has (tests/array/test_reductions.py's fixture); the
    subgroup launches are counted: complex values never take them."""
    if request.param == "subgroups" and not ctx.info.subgroup_arithmetic:
        pytest.skip(f"{ctx.info.name} has no subgroup arithmetic")
    monkeypatch.setattr(reductions, "USE_SUBGROUPS", request.param == "subgroups")
    calls = []
    real = reductions.sg.reduce_all
    monkeypatch.setattr(reductions.sg, "reduce_all",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    yield request.param
    assert not calls


def test_numpys_rules_on_small_cases(ctx, path):
    """The cases that decide NumPy's rules, each checked against NumPy itself."""
    nan, inf = np.nan, np.inf
    cases = [
        [1 + 1j, complex(nan, 0), 2 + 0j],                       # NaN real part wins
        [1 + 1j, complex(0, nan), 2 + 0j],                       # NaN imaginary part wins
        [1 + 1j, complex(0, nan), complex(nan, 0), 2 + 0j],      # the first NaN
        [complex(nan, nan), complex(0, nan)],
        [1 + 2j, 1 + 3j, 1 + 1j, 0 + 9j, 2 - 9j],                # imaginary part decides
        [complex(1, 0.0), complex(1, -0.0)],                     # equal: the first
        [complex(-0.0, 0), complex(0.0, 0)], [complex(0.0, 0), complex(-0.0, 0)],
        [complex(inf, nan), 2 + 0j], [complex(inf, 1), complex(inf, inf), complex(inf, -inf)],
        [complex(-inf, -inf), complex(-inf, 0), complex(inf, inf)],
        [3 + 4j],
    ]
    for dtype in (np.complex64, np.complex128):
        if dtype == np.complex128 and not ctx.info.float64:
            continue
        for case in cases:
            x = np.array(case, dtype)
            dx = ctx.asarray(x)
            for f in OPS:
                _same(f(dx), f(x), f"{f.__name__}({case})")
            for f in (vkp.amin, vkp.amax, vkp.argmin, vkp.argmax):
                _same(f(dx), getattr(np, f.__name__)(x))
            _same(dx.max(), x.max()), _same(dx.argmin(), x.argmin())


@DTYPES
def test_axes_keepdims_two_and_three_dimensions(ctx, path, dtype):
    _need(ctx, dtype)
    rng = np.random.default_rng(21)
    x = _data(rng, (37, 29), dtype, nans=12)
    x[3] = _pack(np.full(29, 2.0), rng.choice(POOL, 29), dtype)     # a NaN-free row
    _check(ctx.asarray(x), x, (None, 0, 1, -1, -2, (0, 1), (1, 0)), (False, True))
    y = _data(rng, (5, 6, 7), dtype, nans=9)
    _check(ctx.asarray(y), y, (None, 0, 1, 2, -1, (0, 1), (1, 2), (0, 2), (2, 0), (0, 1, 2)),
           (False, True))


@DTYPES
@pytest.mark.parametrize("n", [1, 7, 1000, 100_000])
def test_sizes_ties_and_nans_across_workgroups(ctx, path, dtype, n):
    """Whole arrays up to two passes (partials per workgroup, then one workgroup): the
    extreme value appears many times with 0.0 and -0.0 parts, and NaNs of different bits
    appear at several positions, so that only the first one is NumPy's answer."""
    _need(ctx, dtype)
    rng = np.random.default_rng(n)
    x = _pack(rng.choice([-1.0, 0.0, 1.0], n), rng.choice([-1.0, 0.0, 1.0], n), dtype)
    for value in (complex(3, 0.0), complex(-3, 0.0)):
        at = rng.choice(n, min(n, 40), replace=False)
        x[at] = value
        x[at[::2]] = _pack(np.full(len(at[::2]), value.real), -0.0, dtype)
    dx = ctx.asarray(x)
    for f in OPS:
        _same(f(dx), f(x), f.__name__)
    nan = _nans(dtype)
    for k, i in enumerate(sorted(rng.choice(n, min(n, 5), replace=False), reverse=True)):
        x[i] = _pack(nan[k % 3], x[i].imag, dtype) if k % 2 else _pack(x[i].real, nan[k % 3],
                                                                       dtype)
        dx = ctx.asarray(x)                              # the first NaN moves forward
        for f in OPS:
            _same(f(dx), f(x), f"{f.__name__} with NaN at {i}")


@DTYPES
def test_row_shapes_take_every_kernel(ctx, path, dtype):
    """Many short rows (one invocation a row), axis 0 of a wide array (the column kernel,
    chunks then their partials), long rows (two passes of the shared-memory kernel)."""
    _need(ctx, dtype)
    rng = np.random.default_rng(5)
    for shape, axes in (((3000, 3), (1, 0)), ((1000, 40), (0, 1)), ((4, 20000), (1, None)),
                        ((2, 300, 5), ((0, 1), (1, 2), 1))):
        x = _data(rng, shape, dtype, nans=shape[0] // 3)
        _check(ctx.asarray(x), x, axes)


@DTYPES
def test_views_follow_numpys_order(ctx, path, dtype):
    """Non-contiguous views: min/max return the first equal value in memory order (NumPy's
    iteration), argmin/argmax the first in the view's order."""
    _need(ctx, dtype)
    rng = np.random.default_rng(8)
    x = _data(rng, (24, 30), dtype, nans=40)          # many NaNs: which one comes first shows
    dx = ctx.asarray(x)
    for key in (np.s_[::2], np.s_[:, 1::3], np.s_[::-1, ::-2], np.s_[5], np.s_[:, 7]):
        view, host = dx[key], x[key]
        _check(view, host, [None] + list(range(host.ndim)))
    _check(dx.T, x.T, (None, 0, 1, (0, 1)))
    y = _data(rng, (6, 5, 8), dtype, nans=30)
    dy = ctx.asarray(y)
    for perm in ((2, 0, 1), (1, 0, 2), (2, 1, 0)):
        _check(dy.transpose(*perm), y.transpose(perm), (None, (0, 1), (1, 2), (0, 2), 1))
    _check(dy[::-1, :, ::3].transpose(2, 0, 1), y[::-1, :, ::3].transpose(2, 0, 1),
           (None, (0, 1), (1, 2), (0, 2)))
    for host in (x.T, np.asfortranarray(x), y.transpose(2, 0, 1), y[::-1, ::2].transpose(1, 2, 0)):
        for axis in (None, 0, (0, 1)):                   # NumPy views given to vkp.amin/amax
            _same(vkp.amax(host, axis=axis), np.max(host, axis=axis), f"amax axis={axis}")
            _same(vkp.amin(host, axis=axis), np.min(host, axis=axis), f"amin axis={axis}")
        _same(vkp.argmax(host), np.argmax(host)), _same(vkp.argmin(host, axis=1),
                                                        np.argmin(host, axis=1))


@DTYPES
def test_subnormal_parts(ctx, path, dtype, keeps_f32_subnormals):
    """Parts below the normal range still order (float32 ones only where the device keeps
    float32 subnormals: NVIDIA's flushes them, so its comparisons see zeros)."""
    _need(ctx, dtype)
    if dtype == np.complex64 and not keeps_f32_subnormals:
        pytest.skip("the device flushes float32 subnormals")
    tiny = np.finfo(np.dtype(dtype).type(0).real.dtype).smallest_subnormal
    x = _pack(np.array([0.0, tiny, -tiny, 0.0, -0.0]), np.array([tiny, 0.0, 0.0, -tiny, 0.0]),
              dtype)
    dx = ctx.asarray(x)
    for f in OPS:
        _same(f(dx), f(x), f.__name__)


@DTYPES
def test_empty_out_host_input_and_unsupported_arguments(ctx, dtype):
    _need(ctx, dtype)
    e = ctx.asarray(np.zeros((0, 3), dtype))
    for f, name in ((np.min, "minimum"), (np.max, "maximum")):
        with pytest.raises(ValueError, match=f"zero-size array to reduction operation {name} "
                                             "which has no identity"):
            f(e)
        with pytest.raises(ValueError, match="zero-size array"):
            f(e, axis=0)
        assert f(e, axis=1).shape == (0,) and f(e, axis=1).dtype == dtype
    for f in (np.argmin, np.argmax):
        with pytest.raises(ValueError, match=f"attempt to get {f.__name__} of an empty sequence"):
            f(e)
    x = _data(np.random.default_rng(3), (6, 9), dtype, nans=3)
    dx = ctx.asarray(x)
    out = ctx.empty(9, dtype)
    assert np.max(dx, axis=0, out=out) is out
    _same(out, x.max(axis=0))
    host = np.empty((6, 1), dtype)
    assert np.min(dx, axis=1, keepdims=True, out=host) is host
    _same(host, x.min(axis=1, keepdims=True))
    got = vkp.amax(x)                                   # NumPy in -> NumPy out
    assert isinstance(got, np.dtype(dtype).type)
    _same(got, x.max())
    assert isinstance(vkp.argmin(x, axis=1), np.ndarray)
    _same(vkp.argmin(x, axis=1), x.argmin(axis=1))
    assert isinstance(dx.max().item(), complex) and isinstance(dx.argmax().item(), int)
    with pytest.raises(vkp.UnsupportedError, match=r"initial=\.\.\.\) is not supported"):
        np.max(dx, initial=0)
    with pytest.raises(vkp.UnsupportedError, match=r"where=\.\.\.\) is not supported"):
        np.min(dx, where=np.ones(x.shape, bool))
    with pytest.raises(TypeError, match="axis must be an int or None"):
        np.argmax(dx, axis=(0, 1))
