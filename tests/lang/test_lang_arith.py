"""Python semantics of arithmetic in kernels, checked against NumPy / Python on every device."""
import math

import numpy as np
import pytest

import vkpersist as vkp


@vkp.kernel
def int_ops(a, b, out):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x // y
        out[i, 4] = x % y
        out[i, 5] = x & y
        out[i, 6] = x | y
        out[i, 7] = x ^ y
        out[i, 8] = -x
        out[i, 9] = ~x
        out[i, 10] = abs(x)
        out[i, 11] = min(x, y)
        out[i, 12] = max(x, y, 3)


def _nonzero(rng, n, lo, hi, dtype):
    v = rng.integers(lo, hi, n).astype(dtype)
    v[v == 0] = 1
    return v


def test_int32_ops_follow_python(ctx):
    rng = np.random.default_rng(1)
    n = 500
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    b = _nonzero(rng, n, -50, 50, np.int32)
    out = np.zeros((n, 13), np.int32)
    int_ops.forall(n)(a, b, out)
    ai, bi = a.astype(np.int64), b.astype(np.int64)
    want = np.stack([ai + bi, ai - bi, ai * bi, ai // bi, ai % bi, ai & bi, ai | bi, ai ^ bi,
                     -ai, ~ai, np.abs(ai), np.minimum(ai, bi), np.maximum(np.maximum(ai, bi), 3)], 1)
    np.testing.assert_array_equal(out, want.astype(np.int32))


def test_uint32_ops(ctx):
    rng = np.random.default_rng(2)
    n = 300
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(1, 1000, n).astype(np.uint32)
    out = np.zeros((n, 13), np.uint32)
    int_ops.forall(n)(a, b, out)
    with np.errstate(over="ignore"):
        want = [a + b, a - b, a * b, a // b, a % b, a & b, a | b, a ^ b, -a, ~a, a,
                np.minimum(a, b), np.maximum(np.maximum(a, b), np.uint32(3))]
    np.testing.assert_array_equal(out, np.stack(want, 1))


def test_int64_ops(ctx):
    if not ctx.info.int64:
        pytest.skip("no int64")
    rng = np.random.default_rng(3)
    n = 300
    a = rng.integers(-2**40, 2**40, n).astype(np.int64)
    b = _nonzero(rng, n, -2**20, 2**20, np.int64)
    out = np.zeros((n, 13), np.int64)
    int_ops.forall(n)(a, b, out)
    want = np.stack([a + b, a - b, a * b, a // b, a % b, a & b, a | b, a ^ b, -a, ~a, np.abs(a),
                     np.minimum(a, b), np.maximum(np.maximum(a, b), 3)], 1)
    np.testing.assert_array_equal(out, want)


@vkp.kernel
def float_ops(a, b, out):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x / y
        out[i, 4] = x // y
        out[i, 5] = x % y
        out[i, 6] = -x
        out[i, 7] = abs(x)
        out[i, 8] = x ** 2
        out[i, 9] = x ** 3 - y
        out[i, 10] = min(x, y)
        out[i, 11] = max(x, y)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_ops_follow_python(ctx, dtype):
    if dtype == np.float64 and not ctx.info.float64:
        pytest.skip("no float64")
    rng = np.random.default_rng(4)
    n = 400
    a = (rng.standard_normal(n) * 10).astype(dtype)
    b = (rng.standard_normal(n) * 3).astype(dtype)
    b[np.abs(b) < 0.1] = 0.5
    out = np.zeros((n, 12), dtype)
    float_ops.forall(n)(a, b, out)
    want = np.stack([a + b, a - b, a * b, a / b, np.floor_divide(a, b), np.mod(a, b), -a,
                     np.abs(a), a * a, a * a * a - b, np.minimum(a, b), np.maximum(a, b)], 1)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    # floor division and modulo are discontinuous: allow the rare rounding flip
    np.testing.assert_allclose(np.delete(out, [4, 5], 1), np.delete(want, [4, 5], 1), rtol=tol, atol=tol)
    close = np.isclose(out[:, 4], want[:, 4], rtol=tol, atol=tol)
    assert close.mean() > 0.99
    assert np.all(np.isclose(out[close, 5], want[close, 5], rtol=1e-4, atol=1e-3))


@vkp.kernel
def division_kinds(a, b, out):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        out[i, 0] = a[i] / b[i]          # true division of ints -> float
        out[i, 1] = a[i] // b[i] + 0.0
        out[i, 2] = a[i] % b[i] + 0.0
        out[i, 3] = a[i] / 4


def test_int_true_division_gives_float(ctx):
    a = np.array([7, -7, 7, -7, 0, 1], np.int32)
    b = np.array([2, 2, -2, -2, 3, 3], np.int32)
    out = np.zeros((6, 4), np.float32)
    division_kinds.forall(6)(a, b, out)
    np.testing.assert_allclose(out[:, 0], a / b, rtol=1e-6)
    np.testing.assert_array_equal(out[:, 1], a // b)
    np.testing.assert_array_equal(out[:, 2], a % b)
    np.testing.assert_allclose(out[:, 3], a / 4)


@vkp.kernel
def overflow(a, out):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        out[i] = a[i] * 65536 + 2147483647


def test_int_overflow_wraps_like_the_dtype(ctx):
    a = np.array([0, 1, 40000, -40000], np.int32)
    out = np.zeros(4, np.int32)
    overflow.forall(4)(a, out)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out, a * np.int32(65536) + np.int32(2147483647))


@vkp.kernel
def promotion(i32s, f32s, u32s, out):
    k = vkp.global_id(0)
    if k < out.shape[0]:
        a = i32s[k]
        x = f32s[k]
        out[k, 0] = a + x            # int32 + float32 -> float32 (GPU rule)
        out[k, 1] = x * 2            # weak literal keeps float32
        out[k, 2] = a * 0.5          # int with float literal -> float32
        out[k, 3] = float(a) / 3
        out[k, 4] = int(x)           # truncation toward zero
        out[k, 5] = a + u32s[k]      # int32 + uint32 -> int64 (NumPy rule)


def test_mixed_promotion(ctx):
    if not ctx.info.int64:
        pytest.skip("int32 + uint32 needs int64")
    i = np.array([3, -5, 7], np.int32)
    f = np.array([1.5, -2.75, 0.1], np.float32)
    u = np.array([4000000000, 1, 2], np.uint32)
    out = np.zeros((3, 6), np.float64)
    promotion.forall(3)(i, f, u, out)
    np.testing.assert_allclose(out[:, 0], i + f, rtol=1e-6)
    np.testing.assert_allclose(out[:, 1], f * 2, rtol=1e-6)
    np.testing.assert_allclose(out[:, 2], i * 0.5)
    np.testing.assert_allclose(out[:, 3], i / 3, rtol=1e-6)
    np.testing.assert_array_equal(out[:, 4], np.trunc(f))
    np.testing.assert_array_equal(out[:, 5], i.astype(np.int64) + u)


@vkp.kernel
def comparisons(a, b, out):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        x = a[i]
        y = b[i]
        out[i, 0] = x < y
        out[i, 1] = x <= y < 10
        out[i, 2] = x == y or x > 5
        out[i, 3] = not (x != y)
        out[i, 4] = 0 < x < y <= 8
        out[i, 5] = x and y          # Python: the operand values
        out[i, 6] = x or y


def test_comparisons_chained_and_short_circuit_values(ctx):
    a = np.array([0, 1, 5, 7, 9, 3, 0], np.int32)
    b = np.array([0, 2, 5, 8, 4, 0, 6], np.int32)
    out = np.zeros((7, 7), np.int32)
    comparisons.forall(7)(a, b, out)
    for k, (x, y) in enumerate(zip(a.tolist(), b.tolist())):
        assert out[k].tolist() == [x < y, x <= y < 10, x == y or x > 5, not (x != y),
                                   0 < x < y <= 8, x and y, x or y], (x, y)


@vkp.kernel
def short_circuit_guard(idx, data, out):
    i = vkp.global_id(0)
    if i < idx.shape[0]:
        j = idx[i]
        # the right operand must not run when the left decides: data[j] is out of bounds then
        if j < data.shape[0] and data[j] > 0:
            out[i] = 1
        else:
            out[i] = 2
        out[i] += 10 if j >= data.shape[0] or data[j] < 0 else 20


def test_and_or_short_circuit(ctx):
    data = np.array([1.0, -1.0, 0.0], np.float32)
    idx = np.array([0, 1, 2, 1000000], np.int32)
    out = np.zeros(4, np.int32)
    short_circuit_guard.forall(4)(idx, data, out)
    assert out.tolist() == [21, 12, 22, 12]


@vkp.kernel
def math_fns(x, out):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        v = x[i]
        out[i, 0] = math.sqrt(v)
        out[i, 1] = math.exp(-v)
        out[i, 2] = math.log(v)
        out[i, 3] = math.sin(v) + math.cos(v)
        out[i, 4] = math.atan2(v, 2.0)
        out[i, 5] = math.floor(v) + 0.5      # math.floor gives an int, as in Python
        out[i, 6] = vkp.rsqrt(v)
        out[i, 7] = math.pow(v, 1.5)
        out[i, 8] = vkp.clamp(v, 1.0, 2.0)
        out[i, 9] = vkp.mix(0.0, 10.0, 0.25)
        out[i, 10] = vkp.fma(v, 2.0, 1.0)
        out[i, 11] = math.tanh(v - 1) + math.log10(v) + math.hypot(v, 1.0)
        out[i, 12] = (-v) ** 2.0
        out[i, 13] = math.copysign(v, -1.0)
        out[i, 14] = math.ceil(v) + math.trunc(-v)
        out[i, 15] = vkp.isnan(v) + vkp.isinf(v) * 2 + 3


def test_math_functions(ctx):
    x = np.array([0.5, 1.0, 1.7, 2.5, 10.0], np.float32)
    out = np.zeros((5, 16), np.float32)
    math_fns.forall(5)(x, out)
    xd = x.astype(np.float64)
    want = np.stack([np.sqrt(xd), np.exp(-xd), np.log(xd), np.sin(xd) + np.cos(xd),
                     np.arctan2(xd, 2.0), np.floor(xd) + 0.5, 1 / np.sqrt(xd), xd ** 1.5,
                     np.clip(xd, 1, 2), np.full(5, 2.5), xd * 2 + 1,
                     np.tanh(xd - 1) + np.log10(xd) + np.hypot(xd, 1), xd ** 2, -xd,
                     np.ceil(xd) + np.trunc(-xd), np.full(5, 3.0)], 1)
    np.testing.assert_allclose(out, want, rtol=2e-5, atol=2e-6)


@vkp.kernel
def nan_inf(x, out):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        out[i, 0] = vkp.isnan(x[i])
        out[i, 1] = vkp.isinf(x[i])
        out[i, 2] = x[i] != x[i]


def test_nan_and_inf_inputs(ctx):
    # NaN/inf produced inside a shader (0/0) are implementation-defined in GLSL; inputs are not
    x = np.array([1.0, np.nan, np.inf, -np.inf], np.float32)
    out = np.zeros((4, 3), np.int32)
    nan_inf.forall(4)(x, out)
    np.testing.assert_array_equal(out, np.stack([np.isnan(x), np.isinf(x), x != x], 1))


@vkp.kernel
def int_power(a, out):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        out[i, 0] = a[i] ** 3
        out[i, 1] = a[i] ** a[i]
        out[i, 2] = 2 ** a[i]


def test_integer_powers(ctx):
    a = np.array([0, 1, 2, 3, 5], np.int32)
    out = np.zeros((5, 3), np.int32)
    int_power.forall(5)(a, out)
    np.testing.assert_array_equal(out, np.stack([a ** 3, a ** a, 2 ** a], 1))


MODULE_SCALE = 3
MODULE_OFFSET = 0.25


@vkp.kernel
def module_constants(out):
    i = vkp.global_id(0)
    if i < out.shape[0]:
        out[i] = i * MODULE_SCALE + MODULE_OFFSET + (1 << 4) - 7 // 2


def test_module_constants_are_folded(ctx):
    out = np.zeros(4, np.float32)
    module_constants.forall(4)(out)
    np.testing.assert_allclose(out, np.arange(4) * 3 + 0.25 + 16 - 3)
    assert "MODULE" not in module_constants.glsl(vkp.Array[vkp.f32])


@vkp.kernel
def signed_unsigned_compare(s, u, out):
    i = vkp.global_id(0)
    if i < s.shape[0]:
        a = s[i]
        b = u[i]
        out[i, 0] = a < b
        out[i, 1] = a <= b
        out[i, 2] = a > b
        out[i, 3] = a >= b
        out[i, 4] = a == b
        out[i, 5] = b != a
        out[i, 6] = b < a


def test_int32_uint32_comparisons_are_exact_without_int64(ctx):
    s = np.array([-1, 0, 5, 7, -2**31, 2**31 - 1, 3], np.int32)
    u = np.array([0, 0, 5, 3, 2**31, 2**31 - 1, 4000000000], np.uint32)
    out = np.zeros((7, 7), np.int32)
    signed_unsigned_compare.forall(7)(s, u, out)
    si, ui = s.astype(np.int64), u.astype(np.int64)
    np.testing.assert_array_equal(out, np.stack([si < ui, si <= ui, si > ui, si >= ui, si == ui,
                                                 ui != si, ui < si], 1))
    assert "int64" not in signed_unsigned_compare.glsl(vkp.Array[vkp.i32], vkp.Array[vkp.u32],
                                                        vkp.Array[vkp.i32, 2])


N = 1 << 20


@vkp.kernel
def exact_literals(x64, xf):
    # Python-number literals stay exact until they meet a typed value (NEP 50): none of
    # these wrap at 32 bits
    x64[0] = N * N
    x64[1] = 2**40
    x64[2] = 1 << 40
    x64[3] = 2147483647 + 1
    x64[4] = -(N * N) // 3
    x64[5] = (N * N) % 1000003
    xf[0] = 3 * 1000000000
    xf[1] = N * N / 2


def test_integer_literals_are_exact_until_they_meet_a_type(ctx):
    if not ctx.info.int64:
        pytest.skip("no int64")
    x64, xf = np.zeros(6, np.int64), np.zeros(2, np.float32)
    exact_literals[1, 1](x64, xf)
    big = (1 << 20) ** 2
    np.testing.assert_array_equal(x64, [big, 2**40, 2**40, 2**31, -big // 3, big % 1000003])
    np.testing.assert_array_equal(xf, np.float32([3e9, big / 2]))
    src = exact_literals.glsl(vkp.Array[vkp.i64], vkp.Array[vkp.f32])
    assert "x64[0] = 1099511627776l;" in src and "xf[0] = 3.0e+09;" in src   # folded


@vkp.kernel
def gather(src, idx, out):
    i = vkp.global_id(0)
    if i < out.shape[0]:
        out[i] = src[idx[i]]
        tile = vkp.local.array(4, vkp.f32)
        tile[idx[i] % 4] = src[idx[i]]
        out[i] += tile[idx[i] % 4]


@vkp.kernel
def int64_param(n: vkp.i64, out):
    i = vkp.global_id(0)
    if i < out.shape[0]:
        out[i] = vkp.i32(n // 1000000000) + i


def test_int64_values_index_arrays(ctx):
    if not ctx.info.int64:
        pytest.skip("no int64")
    src = np.arange(10, dtype=np.float32) * 1.5
    idx = np.array([9, 0, 3, 3, 7], np.int64)
    out = np.zeros(5, np.float32)
    gather.forall(5)(src, idx, out)
    np.testing.assert_array_equal(out, 2 * src[idx])


def test_int64_scalar_parameter_alone(ctx):
    # the only 64-bit value is the push constant: the int64 extension is still enabled
    if not ctx.info.int64:
        pytest.skip("no int64")
    out = np.zeros(4, np.int32)
    int64_param.forall(4)(7 * 10**9, out)
    np.testing.assert_array_equal(out, 7 + np.arange(4))


@vkp.kernel
def float_divmod(a, b, q, r):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_floor_division_and_modulo_are_pythons(ctx, dtype):
    """`//` and `%` on floats are CPython's divmod (NumPy's too), bit for bit on lavapipe:
    0.5 // 0.1 is 4.0 (GLSL's floor(0.5 / 0.1) is 5.0), signed zeros, inf and nan as NumPy,
    huge quotients; a == (a // b) * b + a % b as closely as rounding allows."""
    if dtype == np.float64 and not ctx.info.float64:
        pytest.skip("no float64 on this device")
    rng = np.random.default_rng(7)
    special = [0.5, -0.5, 0.0, -0.0, 1.0, -1.0, 7.0, 1e30, -1e30, np.inf, -np.inf, np.nan, 1e-30]
    pairs = [(x, y) for x in special for y in special + [0.1, -0.1, 3.0, -0.7]]
    a = np.array([p[0] for p in pairs] + list(rng.uniform(-1e3, 1e3, 300)), dtype)
    b = np.array([p[1] for p in pairs] + list(rng.uniform(-10, 10, 300)), dtype)
    q, r = np.zeros_like(a), np.zeros_like(a)
    float_divmod.forall(a.size)(a, b, q, r)
    with np.errstate(all="ignore"):
        want_q, want_r = np.floor_divide(a, b), np.remainder(a, b)
    if ctx.info.is_lavapipe:     # a driver whose division rounds correctly: exact
        np.testing.assert_array_equal(q, want_q)
        num = ~np.isnan(want_q)          # the sign of a NaN means nothing
        np.testing.assert_array_equal(np.signbit(q[num]), np.signbit(want_q[num]))
    else:                        # Vulkan lets division be off by 2.5 ulp elsewhere
        np.testing.assert_array_max_ulp(q, want_q, maxulp=1)
    np.testing.assert_array_equal(r, want_r)
    num = ~np.isnan(want_r)
    np.testing.assert_array_equal(np.signbit(r[num]), np.signbit(want_r[num]))
    small = np.array([0.5], dtype), np.array([0.1], dtype)
    float_divmod.forall(1)(*small, q[:1], r[:1])
    assert q[0] == 4.0
