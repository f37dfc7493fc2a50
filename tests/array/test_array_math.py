"""Element-wise math on arrays against NumPy: every function and operator, NumPy's dtype
promotion (NEP 50), broadcasting, scalars, views, out=, NumPy-in/NumPy-out, and the errors.

Tolerances: float32 and float64 transcendental functions within docs/language.md's bound
for that function plus 1 ulp (of the exact result's magnitude, against NumPy float64 for
float32 and NumPy's own float64 for float64, itself within about 1 ulp); +, -, *, /, sqrt,
floor, comparisons, integer and bit operations exactly (Vulkan lets a device's division
and sqrt be off by ~3 ulp: those get 3 ulp)."""
import re
import warnings

import numpy as np
import pytest

import vkpersist as vkp
from vkpersist._core import elementwise as _elementwise, recipe as _recipe

RNG = np.random.default_rng(15)

# name -> (domain, float32 ulps, float64 ulps): 0 means exact
UNARY = {
    "sin": ((-10, 10), 2, 2), "cos": ((-10, 10), 2, 2), "tan": ((-1.5, 1.5), 3.5, 3.5),
    "arcsin": ((-1, 1), 2, 2), "arccos": ((-1, 1), 2.5, 2.5), "arctan": ((-50, 50), 2.5, 2.5),
    "sinh": ((-5, 5), 3.5, 3.5), "cosh": ((-5, 5), 3.5, 3.5), "tanh": ((-5, 5), 3.5, 3.5),
    "arcsinh": ((-50, 50), 3, 3), "arccosh": ((1, 50), 4, 4), "arctanh": ((-0.99, 0.99), 3, 3),
    "exp": ((-20, 20), 2, 2), "exp2": ((-20, 20), 2, 2), "expm1": ((-3, 3), 3, 3),
    "log": ((1e-3, 1e3), 2, 2), "log2": ((1e-3, 1e3), 2, 2), "log10": ((1e-3, 1e3), 2, 2),
    "log1p": ((-0.5, 10), 2, 2), "sqrt": ((0, 100), 3, 3), "reciprocal": ((0.5, 10), 3, 3),
    "deg2rad": ((-360, 360), 1, 1), "rad2deg": ((-7, 7), 1, 1),
    "floor": ((-5, 5), 0, 0), "ceil": ((-5, 5), 0, 0), "trunc": ((-5, 5), 0, 0),
    "negative": ((-5, 5), 0, 0), "positive": ((-5, 5), 0, 0), "absolute": ((-5, 5), 0, 0),
    "fabs": ((-5, 5), 0, 0), "square": ((-5, 5), 0, 0), "sign": ((-5, 5), 0, 0),
    "rint": ((-5, 5), 0, 0), "cbrt": ((-50, 50), 1.5, 1.5),
}
FLOAT64_TOO = {"sin", "exp", "log", "sqrt", "arctanh", "floor", "trunc", "rint", "cbrt"}


def _ulps(got, want, dtype):
    """|got - want| in ulps of `dtype` at want's magnitude (want computed wider); equal
    values, infinities included, are 0 ulps apart."""
    want = np.asarray(want, np.float64)
    got = np.asarray(got, np.float64)
    spacing = np.spacing(np.abs(want).astype(dtype)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(got == want, 0.0, np.abs(got - want) / spacing)


def _check(got, want, dtype, ulps):
    assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    if ulps == 0:
        np.testing.assert_array_equal(got, want.astype(dtype))
    else:
        assert _ulps(got, want, dtype).max() <= ulps


def _values(domain, n=64, dtype=np.float32):
    """n points of `domain`: a grid and 8 random ones, the same whichever tests ran
    before (a shared generator gave each pytest-xdist worker other values)."""
    lo, hi = domain
    rng = np.random.default_rng([round(abs(lo) * 1000), round(abs(hi) * 1000), n])
    return np.concatenate([np.linspace(lo, hi, n - 8), rng.uniform(lo, hi, 8)]).astype(dtype)


@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_match_numpy(ctx, name):
    domain, ulp32, ulp64 = UNARY[name]
    fn, ref = getattr(vkp, name), getattr(np, name)
    for dtype, ulps in [(np.float32, ulp32)] + ([(np.float64, ulp64)] if name in FLOAT64_TOO
                                                else []):
        x = _values(domain, dtype=dtype)
        got = fn(ctx.asarray(x))
        assert isinstance(got, vkp.Array) and got.ctx is ctx
        # float64 results against long double (float64 on platforms without it)
        _check(got.numpy(), ref(x.astype(np.longdouble if dtype == np.float64 else
                                         np.float64)), dtype, ulps)


# name -> (float32 ulps or None (not for floats), int32 too)
BINARY = {
    "add": (0, True), "subtract": (0, True), "multiply": (0, True), "true_divide": (3, True),
    "floor_divide": (0, True), "remainder": (1, True), "power": (2, True),
    "arctan2": (3, False), "hypot": (3, False), "copysign": (0, False),
    "minimum": (0, True), "maximum": (0, True), "fmin": (0, True), "fmax": (0, True),
    "equal": (0, True), "not_equal": (0, True), "less": (0, True), "less_equal": (0, True),
    "greater": (0, True), "greater_equal": (0, True), "logical_and": (0, True),
    "logical_or": (0, True), "logical_xor": (0, True),
    "bitwise_and": (None, True), "bitwise_or": (None, True), "bitwise_xor": (None, True),
    "left_shift": (None, True), "right_shift": (None, True),
    "fmod": (0, True), "logaddexp": (2, False), "logaddexp2": (2, False),
    "heaviside": (0, False), "float_power": (2, True),
}


def _binary_operands(name, dtype):
    """(a, b) broadcasting (4, 1) against (5,), in each function's domain; the same
    whichever tests ran before in the process."""
    rng = np.random.default_rng([sum(map(ord, name)), np.dtype(dtype).num])
    if np.dtype(dtype).kind == "f":
        a = rng.uniform(0.5 if name in ("power", "float_power") else -4, 4, (4, 1)).astype(dtype)
        b = rng.uniform(-3, 3, 5).astype(dtype)
        if name in ("floor_divide", "remainder", "true_divide", "fmod"):
            b[b == 0] = 1
        if name == "heaviside":
            a[1, 0] = 0.0                 # the value at zero comes from b
        a[0, 0], b[1] = 1.0, 1.0          # equal elements for the comparisons
        return a, b
    a = rng.integers(-50, 50, (4, 1)).astype(dtype)
    b = rng.integers(-7, 8, 5).astype(dtype)
    if name in ("power", "float_power"):
        a, b = np.abs(a) % 6, np.abs(b) % 5
    if name in ("floor_divide", "remainder", "fmod"):
        b[b == 0] = 1
    if name in ("left_shift", "right_shift"):
        b = np.abs(b) % 16
    a[0, 0], b[1] = 3, 3
    return a, b


@pytest.mark.parametrize("name", BINARY)
def test_binary_functions_match_numpy_with_broadcasting(ctx, name):
    ulps, ints = BINARY[name]
    fn, ref = getattr(vkp, name), getattr(np, name)
    for dtype in ([np.float32] if ulps is not None else []) + ([np.int32] if ints else []):
        a, b = _binary_operands(name, dtype)
        got = fn(ctx.asarray(a), ctx.asarray(b)).numpy()
        want = ref(a, b)
        assert got.shape == (4, 5) and got.dtype == want.dtype, (got.dtype, want.dtype)
        if name in ("logaddexp", "logaddexp2"):
            # a + log1p(...) cancels where the result is near 0: ulps of the larger term
            exact = ref(a.astype(np.float64), b.astype(np.float64))
            scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), np.abs(exact))
            assert (np.abs(got - exact) / np.spacing(scale.astype(dtype))).max() <= ulps
        elif want.dtype.kind == "f" and ulps and name != "remainder":
            assert _ulps(got, ref(a.astype(np.float64), b.astype(np.float64)),
                         want.dtype).max() <= ulps
        else:
            np.testing.assert_array_equal(got, want)


def test_integer_division_by_zero_and_minus_one_is_numpys(ctx):
    a = np.array([7, -7, 0, np.iinfo(np.int32).min, 5, -5], np.int32)
    b = np.array([0, 0, 0, -1, -1, 2], np.int32)
    da, db = ctx.asarray(a), ctx.asarray(b)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal((da // db).numpy(), a // b)
        np.testing.assert_array_equal((da % db).numpy(), a % b)
        u = np.array([7, 0, 9], np.uint32)
        np.testing.assert_array_equal((ctx.asarray(u) // np.uint32(0)).numpy(), u // np.uint32(0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rounding_is_exact_at_ties_signed_zeros_and_large_values(ctx, dtype):
    """rint/trunc/floor/ceil bit for bit, sign of zero included: lavapipe's float64 roundEven
    and trunc gave x itself from 2**31 on and rounded ties toward zero (vkpersist rounds
    float64 through floor, lang/mathlib.py)."""
    big = [3e9 + 0.75, -5e9 - 0.25, 2.0**31 + 0.5, 1e15 + 0.5] if dtype == np.float64 else \
        [2.0**22 + 0.5, -(2.0**22) - 0.5, 3e9, 1e30]
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.4, 0.0, -0.0, np.inf,
                  -np.inf, np.nan, 7.0, -7.25] + big, dtype)
    dx = ctx.asarray(x)
    for name in ("rint", "trunc", "floor", "ceil"):
        got, want = getattr(np, name)(dx).numpy(), getattr(np, name)(x)
        np.testing.assert_array_equal(got, want, err_msg=name)
        assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all(), (name, got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_round_to_decimals_is_numpys(ctx, dtype):
    """np.round scales by 10**decimals in the array's dtype as NumPy does, so even its
    rounding of 2.675 (2.67 in float64, 2.68 in float32) is NumPy's."""
    x = np.array([1.25, 2.675, -0.125, 2.5, -3.5, 123.456, -987.65, 0.0, -0.0, np.nan, np.inf,
                  1e10 + 0.5], dtype)
    dx = ctx.asarray(x)
    for d in (0, 1, 2, 5, -1, -2):
        got, want = np.round(dx, d), np.round(x, d)
        assert isinstance(got, vkp.Array) and got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want, err_msg=f"decimals={d}")
        assert (np.signbit(got.numpy()) == np.signbit(want))[~np.isnan(want)].all()
    np.testing.assert_array_equal(dx.round(1).numpy(), x.round(1))
    out = ctx.asarray(np.zeros_like(x))
    assert np.around(dx, 2, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.around(x, 2))
    np.testing.assert_array_equal(np.round(x, 1), np.round(x, 1))        # NumPy in, out
    with pytest.raises(TypeError, match="decimals must be an integer"):
        np.round(dx, 1.5)


def test_round_of_integers_and_bools_is_numpys(ctx):
    for dtype in (np.int16, np.int32, np.int64, np.uint32):
        x = np.array([1250, 1350, 1249, 149, 0, 7] + ([-1250, -150] if dtype != np.uint32
                                                      else []), dtype)
        for d in (0, 2, -1, -2):
            got, want = np.round(ctx.asarray(x), d), np.round(x, d)
            assert got.dtype == want.dtype, (dtype, d)
            np.testing.assert_array_equal(got.numpy(), want)
    b = np.array([True, False])
    assert np.round(ctx.asarray(b)).dtype == np.round(b).dtype == np.float16   # through rint
    with pytest.raises(TypeError, match="bool arrays round only to decimals=0"):
        np.round(ctx.asarray(b), 1)
    with pytest.raises(TypeError, match="complex64"):
        np.round(ctx.asarray(np.array([1 + 1j], np.complex64)))


def test_special_values_of_the_newer_ufuncs_are_numpys(ctx):
    """fmod, logaddexp(2), heaviside, signbit, ldexp and float_power at zeros, infinities
    and NaNs (NaN signs aside), and integer fmod at 0, -1 and the most negative value."""
    a = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.5, -2.5, 0.5, -4.0, 4.0, 1e30, -3.0,
                  np.inf, -np.inf, 5.0], np.float32)
    b = np.array([1.0, 2.0, np.inf, 3.0, 1.0, -np.inf, 0.0, np.nan, 2.0, -2.0, 1e30, 1.5,
                  np.inf, -np.inf, -np.inf], np.float32)
    da, db = ctx.asarray(a), ctx.asarray(b)
    with np.errstate(all="ignore"):
        for name in ("fmod", "logaddexp", "logaddexp2", "heaviside", "float_power"):
            got, want = getattr(np, name)(da, db).numpy(), getattr(np, name)(a, b)
            assert got.dtype == want.dtype, name
            np.testing.assert_array_equal(got, want, err_msg=name)
            assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all(), name
        s = np.array([0.0, -0.0, -1.0, 1.0, np.inf, -np.inf, -np.nan, np.nan], np.float64)
        np.testing.assert_array_equal(np.signbit(ctx.asarray(s)).numpy(), np.signbit(s))
        n = np.array([1, -1, 200, -200, 3, 0, -3, 0, 1, 1, 0, 2, 0, 0, 0], np.int32)
        np.testing.assert_array_equal(np.ldexp(da, ctx.asarray(n)).numpy(), np.ldexp(a, n))
        i = np.array([7, -7, 7, -7, 0, np.iinfo(np.int32).min, 5, -5], np.int32)
        j = np.array([2, 2, -2, -2, 0, -1, 0, -1], np.int32)
        np.testing.assert_array_equal(np.fmod(ctx.asarray(i), ctx.asarray(j)).numpy(),
                                      np.fmod(i, j))


def test_newer_ufuncs_work_in_kernels_too(ctx):
    x = np.array([1.5, -8.0, 2.5], np.float32)
    out = np.zeros(3, np.float32)

    @vkp.kernel
    def k(x: vkp.Array[vkp.f32], out: vkp.Array[vkp.f32]):
        i = vkp.global_id(0)
        out[i] = vkp.rint(x[i]) + vkp.cbrt(x[i]) + vkp.fmod(x[i], 2.0) + vkp.ldexp(x[i], 2)

    k.forall(3)(x, out)
    want = np.rint(x) + np.cbrt(x) + np.fmod(x, np.float32(2)) + np.ldexp(x, 2)
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_nan_handling_is_numpys(ctx):
    a = np.array([np.nan, 1.0, np.nan, -np.inf, 2.0, -0.0], np.float32)
    b = np.array([1.0, np.nan, np.nan, 3.0, np.inf, 0.0], np.float32)
    da, db = ctx.asarray(a), ctx.asarray(b)
    for name in ("minimum", "maximum", "fmin", "fmax"):
        np.testing.assert_array_equal(getattr(vkp, name)(da, db).numpy(),
                                      getattr(np, name)(a, b))
    for name in ("isnan", "isinf", "isfinite", "sign"):
        np.testing.assert_array_equal(getattr(vkp, name)(da).numpy(), getattr(np, name)(a))
    np.testing.assert_array_equal(vkp.clip(da, -1, 1.5).numpy(), np.clip(a, -1, 1.5))


def test_clip_takes_numpys_arguments(ctx):
    """np.clip(a, 3) with no a_max is NumPy 2's TypeError (vkpersist clipped below only);
    min=/max= alone, None for no limit, both None (a copy) and the mixed forms NumPy
    refuses, each as NumPy's: the same values and dtype, or the same exception."""
    a = np.array([1, 5, -2, 7], np.int32)
    da = ctx.asarray(a)
    forms = [((3,), {}), ((None, 3), {}), ((3, None), {}), ((None, None), {}), ((), {}),
             ((), {"min": 3}), ((), {"max": 3}), ((), {"min": 0, "max": 4}),
             ((), {"a_min": 3}), ((), {"a_max": 3}), ((1, 3), {"min": 2})]
    for args, kw in forms:
        try:
            want = np.clip(a, *args, **kw)
        except (TypeError, ValueError) as e:
            with pytest.raises(type(e), match=re.escape(str(e)[:40])):
                np.clip(da, *args, **kw)
            continue
        got = np.clip(da, *args, **kw)
        assert isinstance(got, vkp.Array) and got.dtype == want.dtype, (args, kw)
        np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(da.clip(3).numpy(), a.clip(3))          # the method's min
    np.testing.assert_array_equal(da.clip(max=2).numpy(), a.clip(max=2))


def test_narrow_integers_wrap_like_numpy(ctx):
    i8 = np.arange(-100, 100, 25, dtype=np.int8)
    u8 = np.arange(0, 256, 37, dtype=np.uint8)
    i16 = np.array([30000, -30000, 7], np.int16)
    with np.errstate(all="ignore"):
        for got, want in [(ctx.asarray(i8) * 3 + 7, i8 * 3 + 7), (ctx.asarray(u8) + 200, u8 + 200),
                          (-ctx.asarray(u8), -u8), (ctx.asarray(i16) * 2, i16 * 2),
                          (ctx.asarray(i8) // 3, i8 // 3)]:
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.numpy(), want)


def test_float16_rounds_python_scalars_and_every_result_as_numpy(ctx):
    """NEP 50: a Python number meeting a float16 array is converted to float16 first
    (float16([2048]) == 2049 is True, 2050 + 2049 is 4096), and NumPy's float16 loops
    round every result to float16, so a fused tree (vkp.jit, np.angle(deg=True)) rounds
    after each node, not only where it stores. Bit for bit against NumPy op by op."""
    x = np.array([2048, 2050, 0.1, -3.5, 65504, 1e-7, 3e-5, np.nan, np.inf, -0.0],
                 np.float16)
    r = (np.random.default_rng(8).standard_normal(5000) * 100).astype(np.float16)
    dx, dr = ctx.asarray(x), ctx.asarray(r)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)        # NumPy's overflow in cast
        cases = [(dx == 2049, x == 2049), (dx + 2049, x + 2049), (dx * 0.1, x * 0.1),
                 (0.1 - dx, 0.1 - x), (dx / 3, x / 3), (dx < 2049.5, x < 2049.5),
                 (np.where(dx > 1, dx, 2049.0), np.where(x > 1, x, 2049.0)),
                 (np.maximum(dx, 2049), np.maximum(x, 2049)), (dx + 70000, x + 70000),
                 (np.angle(dx, deg=True), np.angle(x, deg=True)),
                 (np.add(dx, 0.3, out=ctx.zeros(10, np.float32)),
                  np.add(x, 0.3, out=np.zeros(10, np.float32))),
                 (vkp.jit(lambda a: a * 3 + 1)(dx), x * 3 + 1),
                 (vkp.jit(lambda a: vkp.sqrt(a * a + 0.3) - a)(dx),
                  np.sqrt(x * x + np.float16(0.3)) - x),
                 (vkp.jit(lambda a: (a * 1.7 + 0.3) / 3.1 - a * a)(dr),
                  (r * 1.7 + 0.3) / 3.1 - r * r),
                 (vkp.jit(lambda a: a * 0.7 + 1e-6)(dx), x * 0.7 + 1e-6)]
        for k, (got, want) in enumerate(cases):
            assert got.dtype == want.dtype, k
            np.testing.assert_array_equal(got.numpy(), want, err_msg=str(k))


def test_64_bit_and_float16_and_mixed_signedness(ctx):
    i = np.array([2**40, -5, 7, -2**62, 0], np.int64)
    u = np.array([2**63 + 5, 3, 7, 1, 0], np.uint64)
    h = np.linspace(-2, 2, 5).astype(np.float16)
    di, du, dh = ctx.asarray(i), ctx.asarray(u), ctx.asarray(h)
    for got, want in [(di * 3 // 2, i * 3 // 2), (du >> 1, u >> 1), (du % 4, u % 4),
                      (vkp.sign(di), np.sign(i)), (dh * 3 + 1, h * 3 + 1),
                      (vkp.sin(dh), np.sin(h))]:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)
    for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        for a, b, da, db in [(i, u, di, du), (u, i, du, di)]:
            np.testing.assert_array_equal(getattr(vkp, name)(da, db).numpy(),
                                          getattr(np, name)(a, b), err_msg=name)


def test_bool_arithmetic_and_bitwise(ctx):
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    da, db = ctx.asarray(a), ctx.asarray(b)
    for got, want in [(da + db, a + b), (da * db, a * b), (da & db, a & b), (da | db, a | b),
                      (da ^ db, a ^ b), (~da, ~a), (vkp.logical_not(da), ~a),
                      (abs(da), abs(a))]:
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got.numpy(), want)
    with pytest.raises(TypeError, match="subtract"):
        da - db


PROMOTION_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64,
                    np.uint64, np.float16, np.float32, np.float64]
OTHERS = [1, 1.5, True, np.float64(2), np.int32(3), np.float32(1)]


@pytest.mark.parametrize("dtype", PROMOTION_DTYPES, ids=lambda d: np.dtype(d).name)
def test_result_dtypes_are_numpys(ctx, dtype):
    """NEP 50 (checked on empty arrays: the type is known before any launch)."""
    a = np.zeros(0, dtype)
    da = ctx.asarray(a)
    for other in OTHERS + [np.zeros(0, t) for t in PROMOTION_DTYPES]:
        for name in ("add", "true_divide", "less", "maximum", "arctan2", "power"):
            try:
                want = getattr(np, name)(a, other).dtype
            except (TypeError, OverflowError) as exc:
                with pytest.raises(type(exc)):
                    getattr(vkp, name)(da, other)
                continue
            assert getattr(vkp, name)(da, other).dtype == want, (name, other)
    assert vkp.sin(da).dtype == np.sin(a).dtype and vkp.floor(da).dtype == np.floor(a).dtype


def test_python_scalars_are_weak_nep50(ctx):
    x = ctx.asarray(np.array([1, 2, 3], np.float32))
    assert (x * 2.5).dtype == np.float32 and (2.5 * x).dtype == np.float32
    assert (x + np.float64(1)).dtype == np.float64
    i = ctx.asarray(np.array([1, 2, 3], np.int32))
    np.testing.assert_array_equal((i + 1.5).numpy(), np.array([1, 2, 3], np.int32) + 1.5)
    u = ctx.asarray(np.array([1, 2], np.uint8))
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        u + 300
    np.testing.assert_array_equal((u + 255).numpy(), np.array([1, 2], np.uint8) + 255)


def test_operators_reflected_and_in_place(ctx):
    a = RNG.uniform(1, 4, (3, 4)).astype(np.float32)
    b = RNG.uniform(1, 4, 4).astype(np.float32)
    da, db = ctx.asarray(a), ctx.asarray(b)
    cases = [(da + db, a + b), (da - 1, a - 1), (2 - da, 2 - a), (da * db, a * b),
             (3 * da, 3 * a), (da / db, a / b), (1 / da, 1 / a), (da // db, a // b),
             (da ** 2, a ** 2), (2 ** da, 2 ** a),
             (-da, -a), (+da, +a), (abs(-da), abs(-a)), (da == db, a == b),
             (da != 2, a != 2), (da < db, a < b), (da <= db, a <= b), (da > 2, a > 2),
             (da >= db, a >= b), (b + da, b + a), (a[0] * db, a[0] * b)]
    for k, (got, want) in enumerate(cases):
        assert isinstance(got, vkp.Array), k
        np.testing.assert_allclose(got.numpy(), want, rtol=3e-7, err_msg=str(k))
    # float % and //: NumPy's, bit for bit (test_float_floor_divide_and_remainder_are_numpys)
    for got, want in [(da % db, a % b), (7 % da, 7 % a)]:
        np.testing.assert_array_equal(got.numpy(), want)
    q, r = divmod(da, db)
    np.testing.assert_array_equal(q.numpy(), a // b)
    np.testing.assert_array_equal(r.numpy(), a % b)
    i = np.arange(12, dtype=np.int32).reshape(3, 4)
    di = ctx.asarray(i)
    for got, want in [(di & 5, i & 5), (6 | di, 6 | i), (di ^ di.T.T, i ^ i), (~di, ~i),
                      (di << 2, i << 2), (di >> 1, i >> 1), (1 << di, 1 << i)]:
        np.testing.assert_array_equal(got.numpy(), want)
    keep = da
    da += db
    da *= 2
    da -= 1.5
    assert da is keep
    np.testing.assert_allclose(da.numpy(), (a + b) * 2 - 1.5, rtol=3e-7)
    di //= 2
    di <<= 1
    np.testing.assert_array_equal(di.numpy(), (i // 2) << 1)
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output from dtype"):
        di += 1.5


def test_numpy_ufuncs_on_device_arrays_stay_on_the_device(ctx):
    a = np.linspace(0, 3, 12, dtype=np.float32).reshape(3, 4)
    da = ctx.asarray(a)
    s = np.sin(da)
    assert isinstance(s, vkp.Array)
    dy = ctx.empty((3, 4), np.float32)
    assert np.add(da, 1, out=dy) is dy
    np.testing.assert_array_equal(dy.numpy(), a + 1)
    np.testing.assert_array_equal(np.where(da > 1, da, -1.0).numpy(), np.where(a > 1, a, -1.0))
    np.testing.assert_array_equal(np.clip(da, 0.5, 2).numpy(), np.clip(a, 0.5, 2))
    np.testing.assert_array_equal(np.asarray(s), s.numpy())
    assert isinstance(np.float32(2) * da, vkp.Array) and isinstance(a + da, vkp.Array)
    with pytest.raises(TypeError, match=r"numpy.frexp has no device implementation"):
        np.frexp(da)
    with pytest.raises(TypeError, match=r"numpy.subtract.accumulate has no device "
                                         r"implementation.*np.add.accumulate"):
        np.subtract.accumulate(da)             # ufunc methods: test_ufunc_methods.py
    with pytest.raises(TypeError, match="not supported on vkpersist arrays"):
        np.add(da, 1, dtype=np.float64)


def test_numpy_in_numpy_out_and_scalars(ctx):
    a = np.linspace(0, 1, 10, dtype=np.float32)
    y = vkp.sin(a) + vkp.exp(a)
    assert type(y) is np.ndarray and y.dtype == np.float32
    np.testing.assert_allclose(y, np.sin(a) + np.exp(a), rtol=1e-6)
    r = vkp.arctan2(2.0, 1.0)
    assert isinstance(r, np.float64) and abs(r - np.arctan2(2.0, 1.0)) < 1e-15
    assert type(vkp.add([1, 2], [3, 4])) is np.ndarray
    host_out = np.zeros(10, np.float64)
    assert vkp.multiply(a, 2, out=host_out) is host_out
    np.testing.assert_array_equal(host_out, a * 2)
    z = vkp.add(np.zeros((0, 3), np.float32), 1)
    assert z.shape == (0, 3) and z.dtype == np.float32


def test_views_broadcasts_and_non_contiguous_inputs(ctx):
    host = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    dev = ctx.asarray(host)
    cases = [(dev[1:, ::2, ::-1], host[1:, ::2, ::-1]), (dev.T, host.T),
             (dev[:, 2], host[:, 2]), (dev[2, 3], host[2, 3]), (dev[..., None], host[..., None])]
    for dview, hview in cases:
        np.testing.assert_array_max_ulp(vkp.sqrt(dview * 2 + dev[0, 0, 1]).numpy(),
                                        np.sqrt(hview * 2 + host[0, 0, 1]), maxulp=3)
    # non-contiguous NumPy inputs are copied contiguous, not refused
    np.testing.assert_array_equal(vkp.add(host[:, ::2, 1], host.T[1, ::2].T),
                                  host[:, ::2, 1] + host.T[1, ::2].T)
    # four axes that cannot merge: one launch per index of the outer one
    h4 = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    d4 = ctx.asarray(h4)
    np.testing.assert_array_equal((d4[:, ::-1, :, ::2] - d4[0, 0, 0, ::2]).numpy(),
                                  h4[:, ::-1, :, ::2] - h4[0, 0, 0, ::2])
    # 0-d device arrays broadcast too
    np.testing.assert_array_equal((dev[1, 1, 1] * dev[0]).numpy(), host[1, 1, 1] * host[0])
    assert (dev[1, 1, 1] + 1).shape == ()


def test_out_into_views_and_overlap(ctx):
    host = np.zeros((4, 6), np.float32)
    dev = ctx.asarray(host)
    src = np.arange(12, dtype=np.float32).reshape(2, 6)
    vkp.add(ctx.asarray(src), 1, out=dev[::2])
    host[::2] = src + 1
    np.testing.assert_array_equal(dev.numpy(), host)
    vkp.multiply(dev[:, :3], 2.0, out=dev[:, 3:][:, ::-1])
    host[:, 3:][:, ::-1] = host[:, :3] * 2
    np.testing.assert_array_equal(dev.numpy(), host)
    d = np.arange(10, dtype=np.float32)
    dd = ctx.asarray(d)
    dd[1:] += dd[:-1]          # overlapping in another layout: NumPy reads before writing
    d[1:] += d[:-1].copy()
    np.testing.assert_array_equal(dd.numpy(), d)


def test_out_errors_are_numpys(ctx):
    a = ctx.asarray(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"non-broadcastable output operand with shape \(3,\) "
                                         r"doesn't match the broadcast shape \(2, 3\)"):
        vkp.add(a, 1, out=ctx.empty(3, np.float32))
    with pytest.raises(TypeError, match="Cannot cast ufunc 'sin' output from dtype"):
        vkp.sin(a, out=ctx.empty((2, 3), np.int32))
    out = ctx.empty((4, 2, 3), np.float32)   # out may be larger than the inputs' shape
    vkp.add(a, 1, out=out)
    np.testing.assert_array_equal(out.numpy(), np.full((4, 2, 3), 2, np.float32))


def test_broadcast_errors_and_bad_operands(ctx):
    with pytest.raises(ValueError, match=r"operands could not be broadcast together with "
                                         r"shapes \(3,\) \(4,\)"):
        vkp.add(ctx.asarray(np.ones(3, np.float32)), ctx.asarray(np.ones(4, np.float32)))
    with pytest.raises(ValueError, match=r"shapes \(2, 3\) \(4,\)"):
        ctx.asarray(np.ones((2, 3), np.float32)) * np.ones(4, np.float32)
    with pytest.raises(TypeError, match="take device arrays, NumPy arrays and numbers"):
        vkp.sin("1.0")
    with pytest.raises(TypeError, match="bitwise_and"):
        vkp.bitwise_and(ctx.asarray(np.ones(3, np.float32)), 1)
    with pytest.raises(TypeError, match="rint of complex128 arrays is not supported"):
        vkp.rint(np.ones(3, np.complex128))       # complex arrays: test_array_complex.py
    with pytest.raises(TypeError, match=r"vkp.arctan2\(\) takes 2 array arguments, got 1"):
        vkp.arctan2(np.ones(3))
    other = vkp.Context(ctx.info.index)
    try:
        with pytest.raises(vkp.VkPersistError, match="different Contexts"):
            ctx.asarray(np.ones(3, np.float32)) + other.asarray(np.ones(3, np.float32))
    finally:
        other.close()


def test_float64_refused_by_name_where_the_device_lacks_it():
    class NoFloat64:
        name, float64, int64, storage16 = "Example GPU", False, True, True

    class Ctx:
        info = NoFloat64()
    with pytest.raises(vkp.UnsupportedError, match="Example GPU cannot use float64 arrays"):
        _recipe.check_device_dtype(np.dtype(np.float64), Ctx(), "add")


def test_kernel_builtins_do_the_array_operation_outside_kernels(ctx):
    y = np.array([1.0, -2.0, 3.0], np.float32)
    x = np.array([2.0, 2.0, -1.0], np.float32)
    dy, dx = ctx.asarray(y), ctx.asarray(x)
    np.testing.assert_allclose(vkp.atan2(dy, dx).numpy(), np.arctan2(y, x), rtol=1e-6)
    np.testing.assert_allclose(vkp.pow(dx, 2.0).numpy(), x ** 2)
    np.testing.assert_array_equal(vkp.fabs(dy).numpy(), np.fabs(y))
    np.testing.assert_array_equal(vkp.abs(dy).numpy(), np.abs(y))
    np.testing.assert_array_equal(vkp.min(dx, dy, 0.5).numpy(), np.minimum(np.minimum(x, y), 0.5))
    np.testing.assert_array_equal(vkp.max(dx, dy).numpy(), np.maximum(x, y))
    np.testing.assert_array_equal(vkp.clamp(dy, -1, 1).numpy(), np.clip(y, -1, 1))
    np.testing.assert_allclose(vkp.rsqrt(dx[:2]).numpy(), 1 / np.sqrt(x[:2]), rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"vkp.cross\(\) can only be used inside a @vkp.kernel"):
        vkp.cross(dx, dy)
    with pytest.raises(RuntimeError, match="can only be used inside"):
        vkp.global_id(0)


def test_numpy_names_work_inside_kernels_too(ctx):
    @vkp.kernel
    def k(y: vkp.Array[vkp.f32], x: vkp.Array[vkp.f32], out: vkp.Array[vkp.f32]):
        i = vkp.global_id(0)
        if i < out.shape[0]:
            out[i] = vkp.arctan2(y[i], x[i]) + vkp.power(x[i], 2.0) + vkp.absolute(y[i])
    y = np.array([1.0, -2.0], np.float32)
    x = np.array([2.0, 3.0], np.float32)
    out = np.zeros(2, np.float32)
    k.forall(2)(y, x, out)
    np.testing.assert_allclose(out, np.arctan2(y, x) + x ** 2 + np.abs(y), rtol=1e-6)


def test_one_kernel_per_signature_scalars_are_push_constants(ctx):
    x = ctx.asarray(np.arange(5, dtype=np.float32))
    x * 2.0
    before = len(_elementwise._KERNELS)
    for v in (3.0, -1.5, 7):
        np.testing.assert_array_equal((x * v).numpy(), np.arange(5, dtype=np.float32) * v)
    assert len(_elementwise._KERNELS) == before
    rows = ctx.asarray(np.arange(20, dtype=np.float32).reshape(4, 5))
    recipes = len(ctx._caches["recipes"])
    for i in range(1, 4):                  # views at other offsets: one recipe for all rows
        np.testing.assert_array_equal((rows[i] * 2).numpy(), np.arange(5, 10) * 2.0 + 10 * (i - 1))
    assert len(ctx._caches["recipes"]) == recipes + 1


def test_dropped_results_lend_their_buffers_and_kept_ones_stay_intact(ctx):
    host = np.linspace(-1, 1, 300, dtype=np.float32)
    x = ctx.asarray(host)
    kept = []
    for i in range(12):
        y = (x * 2.0 + i) * 0.5          # the temporary x * 2.0 + i is dropped at once
        if i % 3 == 0:
            kept.append((i, y))
    for i, y in kept:
        np.testing.assert_array_equal(y.numpy(), (host * 2.0 + i) * np.float32(0.5))
    assert len({id(y.buffer) for _, y in kept}) == len(kept)
    pool = ctx._core.buffer_pool

    def pooled():
        return {alloc.serial for allocs in pool.free.values() for alloc in allocs}
    first = vkp.negative(x)
    lent = first.buffer.serial
    del first
    ctx.synchronize()                         # no pending launch holds it any more
    assert lent in pooled()
    reused = pool.reused
    again = vkp.negative(x)                   # same size: a dropped buffer comes back
    assert pool.reused == reused + 1
    np.testing.assert_array_equal(again.numpy(), -host)
    kept = again.buffer.serial
    again.free()                              # freed for good, never lent again
    assert kept not in pooled() and vkp.negative(x).buffer.serial != kept


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_float_floor_divide_and_remainder_are_numpys(ctx, dtype, keeps_f32_subnormals):
    """NumPy's float % is exact (fmod, then moved to the divisor's sign) and its // the
    quotient that goes with it, not floor(a / b): 0.5 // 0.1 is 4.0, 0.5 % 0.1 is
    0.09999999999999998. Bit for bit, signed zeros, inf and nan included, and quotients
    up to 2**100 (a long division of up to the whole exponent range)."""
    rng = np.random.default_rng(5)
    big = 30 if dtype != np.float16 else 4
    a = rng.standard_normal(2000) * 10.0 ** rng.integers(-3, big, 2000)
    b = rng.standard_normal(2000) * 10.0 ** rng.integers(-3, 3, 2000)
    a[:500], b[:500] = rng.integers(-50, 50, 500) * 0.1, 0.1       # a / b rounds to an int
    flush = dtype == np.float32 and not keeps_f32_subnormals    # (float16 computes in f32)
    tiny = np.finfo(dtype).smallest_normal if flush else np.finfo(dtype).smallest_subnormal
    special = np.array([0, -0.0, 1, -1, 3, 0.1, tiny, np.finfo(dtype).max, np.inf, -np.inf,
                        np.nan])
    a = np.concatenate([a, np.repeat(special, special.size)]).astype(dtype)
    b = np.concatenate([b, np.tile(special, special.size)]).astype(dtype)
    da, db = ctx.asarray(a), ctx.asarray(b)
    with np.errstate(all="ignore"):
        for got, want in [(da % db, a % b), (da // db, a // b)]:
            got = got.numpy()
            if flush:                       # subnormal results come out as signed zeros
                sub = (want != 0) & (np.abs(want) < np.finfo(dtype).tiny) & (got == 0)
                want = np.where(sub, np.copysign(dtype(0), want), want)
            ok = (got == want) & (np.signbit(got) == np.signbit(want))
            ok |= np.isnan(got) & np.isnan(want)
            assert ok.all(), (a[~ok][:6], b[~ok][:6], got[~ok][:6], want[~ok][:6])
    assert vkp.jit(lambda x, y: x % y + x // y)(np.float64(0.5), np.float64([0.1])) == 4.1


def test_ufuncs_take_numpys_where(ctx):
    """where=: the elements where the mask (broadcast to the result) is false keep out's
    values, as NumPy's; through np.<ufunc>, vkp.<ufunc> and the kernel builtins' spelling,
    device and NumPy arrays, with out='s dtype cast as NumPy's same_kind rule does."""
    rng = np.random.default_rng(8)
    a = rng.standard_normal((4, 5)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    mask = rng.random((4, 5)) > 0.5
    row = np.array([True, False, True, False, True])
    for m in (mask, row):
        want = np.full((4, 5), 7.0, np.float32)
        np.add(a, b, out=want, where=m)
        out = ctx.asarray(np.full((4, 5), 7.0, np.float32))
        assert np.add(ctx.asarray(a), ctx.asarray(b), out=out, where=m) is out
        np.testing.assert_array_equal(out.numpy(), want)
        out = ctx.asarray(np.full((4, 5), 7.0, np.float32))
        vkp.add(ctx.asarray(a), b, out=out, where=ctx.asarray(m))
        np.testing.assert_array_equal(out.numpy(), want)
    host = np.zeros((4, 5))
    vkp.sqrt(np.abs(a).astype(np.float64), out=host, where=row)   # the builtin's spelling
    want = np.zeros((4, 5))
    np.sqrt(np.abs(a).astype(np.float64), out=want, where=row)
    np.testing.assert_array_equal(host, want)
    out32 = ctx.zeros((4, 5))
    np.multiply(ctx.asarray(a), 2.0, out=out32, where=mask)       # float64 math, float32 out
    want = np.zeros((4, 5), np.float32)
    np.multiply(a, 2.0, out=want, where=mask)
    np.testing.assert_array_equal(out32.numpy(), want)
    full = np.add(ctx.asarray(a), 1, where=mask)      # no out: NumPy leaves the rest unset
    np.testing.assert_array_equal(full.numpy()[mask], (a + 1)[mask])
    with pytest.raises(TypeError, match="where= is not available inside vkp.jit"):
        vkp.jit(lambda x: vkp.exp(x, where=x > 0))(ctx.asarray(a))
    with pytest.raises(ValueError, match="could not be broadcast"):
        np.add(ctx.asarray(a), 1, out=ctx.zeros((4, 5)), where=np.ones(3, bool))


def test_an_operand_given_twice_does_not_capture_the_recipe(ctx):
    """`x * x` binds x once and reads it twice; `a * b` of the same shapes and dtypes after
    it must not reuse that kernel (it computed `a * a`: the recipe key lacked which
    arguments are one object; found through np.linalg.norm before np.average)."""
    rng = np.random.default_rng(70)
    x, a, b = (rng.standard_normal((4, 6)) for _ in range(3))
    dx, da, db = ctx.asarray(x), ctx.asarray(a), ctx.asarray(b)
    np.testing.assert_array_equal((dx * dx).numpy(), x * x)
    np.testing.assert_array_equal((da * db).numpy(), a * b)
    np.testing.assert_array_equal(np.add(db, da).numpy(), b + a)
    np.testing.assert_array_equal(np.add(db, db).numpy(), b + b)
    f = vkp.jit(lambda p, q: p * q + p)
    # a GPU may fuse p * q + p into one rounding (NVIDIA does): within 1e-15, while the
    # captured recipe's a * a + a is off by far more
    np.testing.assert_allclose(f(dx, dx).numpy(), x * x + x, rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(f(da, db).numpy(), a * b + a, rtol=1e-15, atol=1e-15)
