"""Element-wise math on complex64/complex128 device arrays against NumPy, on every device.

Tolerances, in eps of the part type (float32/float64) and relative to |NumPy's result|,
measured on lavapipe over 20,000 points with parts in [-8, 8] (and [-1e-3, 1e-3],
[-40, 40] for the functions with small- or large-argument branches):

- exact (bit for bit): add, subtract, negative, positive, conjugate, comparisons, isnan/
  isinf/isfinite, maximum/minimum/fmax/fmin, and multiply and square against NumPy's
  four-multiplication formula (NumPy's own AVX-512 loop fuses a multiply-add: within
  1.01 eps of np.multiply, bound 2).
- true_divide, reciprocal, sign, sqrt: NumPy's algorithms (Smith's with NumPy's scale
  factor); measured 0 for complex64 and at most 1.41 for complex128 (sqrt and the hypot in
  sign); bound 4, since Vulkan lets a GPU's division be off by ~2.5 ulp.
- absolute 1.25 (bound 2); exp, exp2, expm1, log1p, sin, cos, sinh, cosh at most 2.05
  (bound 4); log, log2, log10, tan, tanh at most 4.2 (bound 8); power with an integer
  exponent 0 (bound 4), with a complex one 9.3 (bound 32: exp(b log a) amplifies log's
  error by |b log a|).
- arcsin, arccos, arctan, arcsinh, arccosh, arctanh over _inverse_points (27,000 random and
  hard arguments, special values included, which must match NumPy's exactly): at most 2.8
  (complex64 arctanh; NumPy calls glibc's algorithm, these FreeBSD's catrig.c's: each
  within 2 eps of the exact value); bounds per function in INVERSE_MEASURED.
"""
import itertools
import warnings

import numpy as np
import pytest

import vkpersist as vkp

RNG = np.random.default_rng(15)
N = 2000
DTYPES = pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["c64", "c128"])
inf, nan = np.inf, np.nan


def _need(ctx, dtype):
    if np.dtype(dtype) == np.complex128 and not ctx.info.float64:
        pytest.skip("the device has no float64")


def _random(dtype, scale=8.0, n=N):
    z = (RNG.uniform(-scale, scale, n) + 1j * RNG.uniform(-scale, scale, n)).astype(dtype)
    z[:4] = [0, 1, -1, 1j]                              # the axes
    return z


def _pack(re, im):
    """A complex array from its parts (`re + 1j * im` would lose a -0.0 imaginary part)."""
    z = np.empty(re.shape, np.result_type(re, np.complex64))
    z.real, z.imag = re, im
    return z


def _ulps(got, want, dtype):
    """max |got - want| / |want| in eps of the part type (equal values, NaNs alike: 0)."""
    got = np.atleast_1d(np.asarray(got)).astype(complex)
    want = np.atleast_1d(np.asarray(want)).astype(complex)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    with np.errstate(invalid="ignore"):
        err = np.abs(got - want) / np.maximum(np.abs(want), 1e-300)
    err[same] = 0
    return err.max() / np.finfo(np.float32 if np.dtype(dtype) == np.complex64
                                else np.float64).eps


def _close(got, want, dtype, bound, zero_signs=True):
    """Within `bound` eps of |want|, with NaN parts where NumPy has them and the signs of
    its zero parts."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        assert (np.isnan(g) == np.isnan(w)).all()
        zero = (w == 0) & zero_signs
        assert (np.signbit(g[zero]) == np.signbit(w[zero])).all()
    assert _ulps(got, want, dtype) <= bound, _ulps(got, want, dtype)


def _exact(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)
    if got.dtype.kind == "c":           # signs of zeros too
        assert (np.signbit(got.real) == np.signbit(want.real))[~np.isnan(want.real)].all()
        assert (np.signbit(got.imag) == np.signbit(want.imag))[~np.isnan(want.imag)].all()


UNARY_BOUNDS = {"reciprocal": 4, "sign": 4, "sqrt": 4, "absolute": 2, "exp": 4, "exp2": 4,
                "expm1": 4, "log1p": 4, "sin": 4, "cos": 4, "sinh": 4, "cosh": 4,
                "log": 8, "log2": 8, "log10": 8, "tan": 8, "tanh": 8}


@DTYPES
@pytest.mark.parametrize("name", sorted(UNARY_BOUNDS))
def test_unary_functions(ctx, dtype, name):
    _need(ctx, dtype)
    z = _random(dtype)
    scales = [8.0, 1e-3] + ([40.0] if name in ("tan", "tanh") else [])
    for scale in scales:
        z = _random(dtype, scale)
        with np.errstate(all="ignore"):
            want = getattr(np, name)(z)
        got = getattr(vkp, name)(ctx.asarray(z))
        assert isinstance(got, vkp.Array) and got.dtype == want.dtype
        assert _ulps(got, want, dtype) <= UNARY_BOUNDS[name], (scale, _ulps(got, want, dtype))


@DTYPES
def test_exact_operations(ctx, dtype):
    _need(ctx, dtype)
    z, w = _random(dtype), _random(dtype)
    dz, dw = ctx.asarray(z), ctx.asarray(w)
    _exact(dz + dw, z + w)
    _exact(dz - dw, z - w)
    _exact(-dz, -z)
    _exact(+dz, +z)
    _exact(np.conjugate(dz), np.conjugate(z))
    _exact(dz.conj(), z.conj())
    _exact(vkp.conj(dz), z.conj())
    for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                 "maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or",
                 "logical_xor"):
        _exact(getattr(np, name)(dz, dw), getattr(np, name)(z, w))
    _exact(dz == dz, z == z)
    _exact(np.logical_not(dz), np.logical_not(z))
    # products: NumPy's C formula, bit for bit; np.multiply itself within an ulp (its
    # AVX-512 loop fuses a multiply-add)
    zr, zi, wr, wi = z.real, z.imag, w.real, w.imag
    _exact(dz * dw, _pack(zr * wr - zi * wi, zr * wi + zi * wr))
    _exact(np.square(dz), _pack(zr * zr - zi * zi, zr * zi + zi * zr))
    assert _ulps(dz * dw, z * w, dtype) <= 2
    with np.errstate(all="ignore"):                      # w[0] is 0
        assert _ulps(dz / dw, z / w, dtype) <= 4
    assert _ulps(np.abs(dz), np.abs(z), dtype) <= 2
    assert np.abs(dz).dtype == np.abs(z).dtype


@DTYPES
def test_power(ctx, dtype):
    _need(ctx, dtype)
    z, w = _random(dtype, 2.0), _random(dtype, 2.0)
    n = RNG.integers(-12, 13, N).astype(dtype)
    with np.errstate(all="ignore"):
        assert _ulps(ctx.asarray(z) ** ctx.asarray(w), z ** w, dtype) <= 32
        assert _ulps(np.power(ctx.asarray(z), ctx.asarray(n)), z ** n, dtype) <= 4
        assert _ulps(ctx.asarray(z) ** 3, z * (z * z), dtype) <= 4
        zero = np.zeros(3, dtype)
        b = np.array([2 + 1j, -1, 1j], dtype)
        np.testing.assert_array_equal(np.asarray(ctx.asarray(zero) ** ctx.asarray(b)),
                                      zero ** b)                  # 0, nan, nan as NumPy


def _special(dtype):
    parts = [0.0, -0.0, 1.0, -2.0, inf, -inf, nan]
    return np.array([complex(a, b) for a, b in itertools.product(parts, parts)], dtype)


@DTYPES
def test_special_values_against_numpy(ctx, dtype):
    """Zeros, infinities and NaNs in either part (the special-value tables of NumPy's
    test_umath_complex.py, through NumPy itself): the same results, signs of zeros
    included, for the functions listed; every pair for the binary ones."""
    _need(ctx, dtype)
    z = _special(dtype)
    dz = ctx.asarray(z)
    with np.errstate(all="ignore"):
        for name in ("negative", "conjugate", "square", "isnan", "isinf", "isfinite"):
            _exact(getattr(np, name)(dz), getattr(np, name)(z))
        for name in ("absolute", "reciprocal", "sign", "sqrt", "log", "log2", "log10",
                     "expm1", "log1p"):
            _close(getattr(np, name)(dz), getattr(np, name)(z), dtype, 4)
        a, b = np.repeat(z, len(z)), np.tile(z, len(z))
        da, db = ctx.asarray(a), ctx.asarray(b)
        for name in ("add", "subtract", "multiply", "true_divide", "equal", "not_equal",
                     "less", "greater_equal", "maximum", "minimum", "fmax", "fmin"):
            _exact(getattr(np, name)(da, db), getattr(np, name)(a, b))
        fin = np.isfinite(a) & np.isfinite(b)
        _close(np.power(ctx.asarray(a[fin]), ctx.asarray(b[fin])), np.power(a[fin], b[fin]),
               dtype, 32)
        # exp and the trigonometric functions: NumPy's (C99 Annex G) values wherever the
        # argument has finite parts
        finite = z[np.isfinite(z)]
        for name in ("exp", "exp2", "sin", "cos", "tan", "sinh", "cosh", "tanh"):
            _close(getattr(np, name)(ctx.asarray(finite)), getattr(np, name)(finite), dtype, 8)


# ---- the inverse functions (Hull, Fairgrieve & Tang / Kahan as FreeBSD's catrig.c; NumPy
# on Linux calls glibc's, another careful algorithm: both are within 2 ulp of the exact
# value here, so they differ by up to 3)
INVERSE = ("arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh")
# the largest difference from NumPy over _inverse_points on lavapipe, in eps of |NumPy's
# result| (complex64, complex128); against the exact values (mpmath) the largest errors were
# 1.40, 1.28, 1.03, 1.30, 1.28, 1.30 (complex64) and 1.84, 1.66, 1.11, 1.14, 1.66, 1.11
# (complex128), NumPy's 2.04 at most
INVERSE_MEASURED = {"arcsin": (2.0, 1.84), "arccos": (2.17, 2.48), "arctan": (2.1, 1.65),
                    "arcsinh": (2.04, 1.71), "arccosh": (2.17, 2.48), "arctanh": (2.8, 1.11)}


def _inverse_bound(measured):
    """As tests/lang/test_lang_math.py: the measured maximum rounded up to the next half ulp
    (a quarter at least to spare), plus 1 for devices that fuse multiply-adds."""
    return np.ceil((measured + 0.25) * 2) / 2 + 1


def _inverse_points(dtype):
    """Random and hard arguments: magnitudes over the whole normal range, the branch points
    +-1 and +-i and their neighbourhoods, both sides of the cuts (the real and imaginary
    axes beyond them, signed zeros), the unit circle, tiny and huge parts, and every pair
    of special parts (zeros, infinities, NaNs of either sign)."""
    rng = np.random.default_rng(1997)
    part = np.float32 if np.dtype(dtype) == np.complex64 else np.float64
    lo, hi = (-37, 38) if part is np.float32 else (-307, 308)  # decimal exponents, normal
    n = 1000

    def mag(a, b, k=n):
        return rng.choice([-1.0, 1.0], k) * 10.0 ** rng.uniform(a, b, k)

    zeros = np.zeros(n)
    pairs = [(rng.uniform(-8, 8, n), rng.uniform(-8, 8, n)),          # ordinary
             (mag(lo, hi), mag(lo, hi)),                              # every magnitude
             (mag(lo, hi), rng.uniform(-2, 2, n)), (rng.uniform(-2, 2, n), mag(lo, hi))]
    near = -9 if part is np.float32 else -17            # offsets that 1 + d still sees
    for cr, ci in ((1, 0), (-1, 0), (0, 1), (0, -1)):                 # the branch points
        pairs += [(cr + mag(near, -1), ci + mag(lo, -1)), (cr + mag(lo, -1), ci + mag(near, -1)),
                  (cr + mag(near, -1), ci + zeros), (cr + zeros, ci + mag(near, -1))]
    axis = mag(-3, hi)                                  # inside and beyond +-1 and +-i
    for zero in (0.0, -0.0):                            # on the axes, both sides
        pairs += [(axis, np.full(n, zero)), (np.full(n, zero), axis)]
    pairs += [(axis, mag(lo, -3)), (mag(lo, -3), axis)]  # next to them
    theta = rng.uniform(-np.pi, np.pi, n)               # the unit circle (|z| = 1 + d)
    radius = 1 + mag(-16, -1)
    pairs += [(radius * np.cos(theta), radius * np.sin(theta))]
    big, eps = float(np.finfo(part).max), float(np.finfo(part).eps)
    tiny, huge = (1e-30, 1e30) if part is np.float32 else (1e-300, 1e300)
    nan = np.nan
    special = [0.0, -0.0, 1.0, -1.0, 1 + eps, 1 - eps / 2, -2.0, 0.5, tiny, -tiny, huge,
               -huge, big, -big, np.inf, -np.inf, nan, np.copysign(nan, -1)]
    grid = np.array(list(itertools.product(special, special))).T
    pairs += [(grid[0], grid[1])]
    re = np.concatenate([np.asarray(a, float) for a, _ in pairs])
    im = np.concatenate([np.asarray(b, float) for _, b in pairs])
    with np.errstate(over="ignore"):
        return _pack(re.astype(part), im.astype(part))


def _same_special_parts(got, want):
    """NaN parts where NumPy has them; its infinite and zero parts exactly, signs too."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        bad = np.isnan(g) != np.isnan(w)
        exact = (w == 0) | np.isinf(w)
        bad |= exact & ((g != w) | (np.signbit(g) != np.signbit(w)))
        assert not bad.any(), list(zip(g[bad][:5], w[bad][:5]))


@DTYPES
@pytest.mark.parametrize("name", INVERSE)
def test_inverse_functions(ctx, dtype, name):
    _need(ctx, dtype)
    z = _inverse_points(dtype)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(z)
    got = getattr(vkp, name)(ctx.asarray(z))
    assert isinstance(got, vkp.Array) and got.dtype == want.dtype
    got = got.numpy()
    _same_special_parts(got, want)
    measured = INVERSE_MEASURED[name][np.dtype(dtype) == np.complex128]
    assert _ulps(got, want, dtype) <= _inverse_bound(measured), _ulps(got, want, dtype)


@DTYPES
def test_inverse_functions_everywhere(ctx, dtype):
    """The NumPy ufunc (__array_ufunc__), vkp's NumPy name and its kernel builtin's, in a
    fused kernel, and NumPy arrays in and out: the same values."""
    _need(ctx, dtype)
    z = _random(dtype, 2.0, n=256)
    dz = ctx.asarray(z)
    for name, builtin in zip(INVERSE, ("asin", "acos", "atan", "asinh", "acosh", "atanh")):
        want = getattr(vkp, name)(dz).numpy()
        _exact(getattr(np, name)(dz), want)
        _exact(getattr(vkp, builtin)(dz), want)
        _exact(getattr(vkp, name)(z), want)
        with np.errstate(all="ignore"):                  # z[3] is 1j: arctan's pole
            assert _ulps(want, getattr(np, name)(z), dtype) <= 4
    f = vkp.jit(lambda z: vkp.arcsin(z) * np.arccosh(z) - vkp.arctan(z))
    fused = f(dz)
    assert len(f.sources) == 1
    # the same code in one kernel: equal where the device keeps each rounding (lavapipe)
    unfused = np.asarray(vkp.arcsin(dz) * np.arccosh(dz) - vkp.arctan(dz))
    assert _ulps(fused, unfused, dtype) <= 4


@DTYPES
def test_division_of_real_operands_by_complex_zero(ctx, dtype):
    """A real operand's imaginary part is the constant 0 in the kernel, and lavapipe folds
    0.0 / x to 0: int / 0j gave -inf+0j where NumPy gives -inf+nanj (x / 0 is NaN for 0 or
    NaN, else inf of x's sign, in each part). Real arrays over complex zeros (Python,
    NumPy, device), and complex numbers over real zeros, every result as NumPy's."""
    _need(ctx, dtype)
    real = np.float32 if dtype == np.complex64 else np.float64
    ints = np.array([-3, 1, 0, 7])
    reals = np.array([-2.5, 1.0, 0.0, -0.0, inf, -inf, nan], real)
    zeros = np.array([0j, complex(-0.0, 0.0), complex(0.0, -0.0), -0j], dtype)
    with np.errstate(all="ignore"):
        for x in (ints, ints.astype(np.int8), reals):
            dx = ctx.asarray(x)
            if x.dtype.kind in "iu" and dtype == np.complex64:
                continue                                 # int / complex64 is complex128
            for zero in (0j, complex(-0.0, -0.0), dtype(0)):
                _exact(dx / zero, x / zero)
            _exact(np.true_divide(dx[:, None], ctx.asarray(zeros)), x[:, None] / zeros)
        z = _special(dtype)
        for zero in (0, 0.0, -0.0):
            _exact(1j / ctx.asarray(np.array([zero, zero], real)),
                   1j / np.array([zero, zero], real))
            _exact(ctx.asarray(z) / ctx.asarray(np.full(len(z), zero, real)),
                   z / np.full(len(z), zero, real))


@DTYPES
def test_real_and_complex_arrays_mixed_with_special_values(ctx, dtype):
    """A real array in a complex loop is NumPy's complex(x, +0): with the constant 0 as
    imaginary part the driver folded 0 * x and 0 / x to 0, so complex * real and
    complex / real lost the NaNs of infinite and NaN parts (inf*1j * 1.0 is nan+infj in
    NumPy; 152 of the 343 special pairs differed) and add/subtract the signs of zeros.
    Every special pair, both orders, exact with signs of zeros."""
    _need(ctx, dtype)
    real = np.float32 if dtype == np.complex64 else np.float64
    z = _special(dtype)
    for r in (np.array([0.0, -0.0, 1.0, -2.0, inf, -inf, nan], real),
              np.array([0, 1, -2, 3], np.int8)):
        a, b = np.repeat(z, len(r)), np.tile(r, len(z))
        da, db = ctx.asarray(a), ctx.asarray(b)
        with np.errstate(all="ignore"):
            for name in ("multiply", "true_divide", "add", "subtract"):
                f = getattr(np, name)
                _exact(f(da, db), f(a, b))
                _exact(f(db, da), f(b, a))
            _exact(vkp.jit(lambda x, y: x * y + y)(da, db), a * b + b)


@DTYPES
def test_promotion_with_reals_and_python_scalars(ctx, dtype):
    _need(ctx, dtype)
    z = _random(dtype, n=16)
    dz = ctx.asarray(z)
    assert (dz + 1j).dtype == (z + 1j).dtype == dtype         # NEP 50: weak complex
    assert (dz * 2.5).dtype == dtype and (2 - dz).dtype == dtype
    assert _ulps(dz * (2 - 1j), z * (2 - 1j), dtype) <= 2
    _exact(dz + 1j, z + 1j)
    _exact(1j - dz, 1j - z)
    if ctx.info.float64:
        r = RNG.uniform(-1, 1, 16)
        _exact(ctx.asarray(r) + dz, r + z)                        # float64 + c64: c128
        assert (ctx.asarray(r) + dz).dtype == np.complex128
    f = RNG.uniform(-1, 1, 16).astype(np.float32)
    _exact(ctx.asarray(f) + dz, f + z)
    # a real operand's zero imaginary part: 0 - z.imag, which the device's compiler may
    # fold into -z.imag (a zero of the other sign, where z.imag is 0); values are exact
    _close(ctx.asarray(f) - dz, f - z, dtype, 0, zero_signs=False)
    _exact(dz + np.complex64(1 + 1j), z + np.complex64(1 + 1j))
    assert (ctx.asarray(f) + 1j).dtype == np.complex64          # float32 + weak complex
    # broadcasting: a row of complex against a column of reals
    m = RNG.uniform(-1, 1, (3, 1)).astype(np.float32)
    _exact(ctx.asarray(m) + dz[None, :], m + z[None, :])
    # NumPy in, NumPy out
    got = vkp.add(z, 1j)
    assert isinstance(got, np.ndarray)
    _exact(got, z + 1j)


@DTYPES
def test_out_where_and_in_place(ctx, dtype):
    _need(ctx, dtype)
    z, w = _random(dtype, n=64), _random(dtype, n=64)
    dz, dw = ctx.asarray(z), ctx.asarray(w)
    o = ctx.zeros(64, dtype)
    assert vkp.add(dz, dw, out=o) is o
    _exact(o, z + w)
    mask = RNG.uniform(size=64) < 0.5
    o2 = ctx.asarray(np.full(64, 7 + 7j, dtype))
    np.subtract(dz, dw, out=o2, where=mask)
    want = np.full(64, 7 + 7j, dtype)
    np.subtract(z, w, out=want, where=mask)
    _exact(o2, want)
    host = np.zeros(64, dtype)
    np.negative(dz, out=host)
    _exact(host, -z)
    x = ctx.asarray(z.copy())
    x += 1j
    _exact(x, z + 1j)
    with pytest.raises(TypeError, match="same_kind"):
        np.add(dz, 1, out=ctx.zeros(64, np.float32 if dtype == np.complex64 else np.float64))
    with pytest.raises(TypeError, match="same_kind"):
        y = ctx.asarray(np.ones(3, np.float32))
        y += 1j


@DTYPES
def test_parts_angle_and_astype(ctx, dtype):
    _need(ctx, dtype)
    z = _random(dtype, n=32)
    dz = ctx.asarray(z)
    part = np.float32 if dtype == np.complex64 else np.float64
    _exact(dz.real, z.real)
    _exact(dz.imag, z.imag)
    _exact(np.real(dz), z.real)
    _exact(np.imag(dz[::2]), z[::2].imag)                  # of a view
    assert _ulps(np.angle(dz), np.angle(z), dtype) <= 2
    assert _ulps(vkp.angle(dz, deg=True), np.angle(z, deg=True), dtype) <= 2
    # .real/.imag are views, as NumPy's: writing them writes the array
    y = ctx.asarray(z.copy())
    np.multiply(y.imag, 2, out=y.imag)
    _exact(y, z.real + 2j * z.imag)
    with pytest.warns(np.exceptions.ComplexWarning):
        r = dz.astype(part)
    _exact(r, z.real.astype(part))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _exact(dz.astype(bool), z.astype(bool))            # no warning: nonzero test
        _exact(ctx.asarray(z.real).astype(dtype), z.real.astype(dtype))
    real = ctx.asarray(np.array([1.0, -2.0], np.float32))
    _exact(real.real, np.float32([1, -2]))
    _exact(real.imag, np.float32([0, 0]))
    _exact(np.angle(real), np.angle(np.float32([1, -2])))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.float32,
                                   np.float64])
def test_angle_of_real_arrays_has_numpys_dtype(ctx, dtype):
    """np.angle of a real array is arctan2(0, x) with a Python 0 (NEP 50): booleans give
    float64 (not float16), int8 float16, int32 float64, as NumPy's."""
    x = np.array([3, 0, -2, 1]).astype(dtype)          # bools: True, False, True, True
    dx = ctx.asarray(x)
    for got in (np.angle(dx), vkp.angle(dx), vkp.jit(lambda a: vkp.angle(a))(dx)):
        _exact(got, np.angle(x))


@DTYPES
def test_fusion_is_one_kernel_and_matches_op_by_op(ctx, dtype):
    _need(ctx, dtype)
    z = _random(dtype, 2.0, n=256)
    dz = ctx.asarray(z)
    f = vkp.jit(lambda z: vkp.exp(z) * z.conjugate())
    fused = f(dz)
    unfused = vkp.exp(dz) * np.conjugate(dz)
    _exact(fused, np.asarray(unfused))
    assert len(f.sources) == 1 and f.source(dz).count("@vkp.kernel") == 1
    g = vkp.jit(lambda z, r, c: vkp.where(z.real > 0, z / c, z.imag + r * 1j) + vkp.angle(z))
    r = RNG.uniform(-1, 1, 256).astype(dtype().real.dtype)
    got = g(dz, ctx.asarray(r), 2 - 1j)
    want = vkp.where(dz.real > 0, dz / (2 - 1j), dz.imag + ctx.asarray(r) * 1j) + vkp.angle(dz)
    _exact(got, np.asarray(want))


@DTYPES
def test_reductions(ctx, dtype):
    _need(ctx, dtype)
    z = _random(dtype, 1.0, n=1000).reshape(10, 100)
    dz = ctx.asarray(z)
    for f in (np.sum, np.mean):
        assert _ulps(f(dz), f(z), dtype) <= 64
        assert _ulps(f(dz, axis=1), f(z, axis=1), dtype) <= 64
    assert _ulps(np.prod(dz[:, :8], axis=1), np.prod(z[:, :8], axis=1), dtype) <= 64
    assert _ulps(np.cumsum(dz[0]), np.cumsum(z[0]), dtype) <= 128
    assert bool(np.any(dz)) and not bool(np.all(ctx.asarray(np.zeros(3, dtype))))
    # NumPy's lexicographic order (tests/array/test_reductions_complex.py tests it in depth)
    for f in (np.max, np.min, np.argmax, vkp.argmin):
        _exact(np.asarray(f(dz)), np.asarray(getattr(np, f.__name__)(z)))


@pytest.mark.parametrize("expr, match", [
    (lambda z: z // z, "floor_divide.*complex64"),
    (lambda z: z % 2, "remainder.*complex64"),
    (lambda z: np.floor(z), "floor.*complex64"),
    (lambda z: vkp.arctan2(z, z), "arctan2.*complex64"),
    (lambda z: np.rint(z), "rint of complex64 arrays is not supported"),  # NumPy has it
    (lambda z: z & z, "bitwise_and.*complex64"),
])
def test_what_numpy_refuses_is_refused_clearly(ctx, expr, match):
    dz = ctx.asarray(np.array([1 + 2j], np.complex64))
    with pytest.raises(TypeError, match=match):
        expr(dz)
    with pytest.raises(TypeError, match=match):
        vkp.jit(expr)(dz)


def test_complex128_needs_float64(ctx):
    if ctx.info.float64:
        pytest.skip("the device has float64")
    with pytest.raises(Exception, match="float64"):
        ctx.asarray(np.zeros(3, np.complex128))
