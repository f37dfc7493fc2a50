"""IEEE float semantics on every device: float32 `/` and sqrt correctly rounded (Vulkan lets
a driver be 2.5 ulp off, and NVIDIA's is: vkpersist corrects them there, Target.exact_division),
and signed zeros, infinities and NaN kept where the device can be asked to
(SignedZeroInfNanPreserve, patched into every module: vk/spirv.py)."""
import dataclasses
import struct

import numpy as np
import pytest

import vkpersist as vkp
from vkpersist.vk import spirv_val
from vkpersist.vk.glslang import compile_glsl
from vkpersist.vk.spirv import MAGIC, preserve_float_specials
from vkpersist.vk.target import Target


@vkp.kernel
def divide_and_root(a, b, q, r, v):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        q[i] = a[i] / b[i]
        r[i] = vkp.sqrt(abs(a[i]))
        w = vkp.vec2(a[i], b[i]) / b[i]          # a vector over a scalar
        v[i] = w.x


def _normal_pairs(rng, n, dtype):
    """Operands over most of the exponent range whose quotients stay normal."""
    def one():
        m = rng.uniform(1, 2, n) * np.exp2(rng.integers(-60, 60, n))
        return (m * np.where(rng.random(n) < 0.5, -1, 1)).astype(dtype)
    return one(), one()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_division_and_sqrt_are_correctly_rounded(ctx, device_info, dtype):
    if dtype == np.float64 and not device_info.float64:
        pytest.skip("no float64 on this device")
    rng = np.random.default_rng(7)
    n = 1 << 18
    a, b = _normal_pairs(rng, n, dtype)
    # hard cases: quotients and roots next to a rounding tie, exact ones, 1/x
    a[:64], b[:64] = dtype(1), rng.uniform(1, 2, 64).astype(dtype)
    a[64:128] = (b[64:128].astype(np.float64) * rng.integers(1, 1000, 64)).astype(dtype)
    a[128:192] = np.nextafter(np.square(rng.uniform(1, 4, 64)).astype(dtype), dtype(9))
    q, r, v = (np.zeros(n, dtype) for _ in range(3))
    divide_and_root.forall(n)(a, b, q, r, v)
    np.testing.assert_array_equal(q, a / b, "a / b")
    if dtype == np.float32:                         # vec2 holds float32
        np.testing.assert_array_equal(v, a / b, "vec2(a, b) / b")
    np.testing.assert_array_equal(r, np.sqrt(np.abs(a)), "sqrt")


def test_special_values_of_division_and_sqrt(ctx, device_info):
    """Zeros, infinities and NaN in, IEEE's results out (signs included) wherever the device
    keeps them for float32 (float_preserve)."""
    if 32 not in device_info.float_preserve:
        pytest.skip("this device cannot be asked to keep float32 signed zeros, inf and NaN")
    inf, nan = np.inf, np.nan
    a = np.array([1, -1, 0, -0.0, 0, inf, -inf, nan, 1, -0.0, 5, -5, inf, 3], np.float32)
    b = np.array([0, 0, 0, 1, -1, 2, inf, 1, nan, -inf, inf, inf, -0.0, -0.0], np.float32)
    q, r, v = (np.zeros(len(a), np.float32) for _ in range(3))
    divide_and_root.forall(len(a))(a, b, q, r, v)
    with np.errstate(all="ignore"):
        want_q, want_r = a / b, np.sqrt(np.abs(a))
    for got, want in ((q, want_q), (v, want_q), (r, want_r)):
        np.testing.assert_array_equal(got, want)
        num = ~np.isnan(want)                     # (a NaN's sign means nothing)
        np.testing.assert_array_equal(np.signbit(got[num]), np.signbit(want[num]))
    neg = np.array([-0.0, -1.0, -inf], np.float32)
    out = vkp.sqrt(ctx.asarray(neg))
    with np.errstate(invalid="ignore"):
        want = np.sqrt(neg)
    np.testing.assert_array_equal(out.numpy(), want)
    assert np.signbit(out.numpy()[0])


def test_the_array_layer_divides_and_roots_as_numpy(ctx):
    rng = np.random.default_rng(3)
    a, b = _normal_pairs(rng, 100_000, np.float32)
    da, db = ctx.asarray(a), ctx.asarray(b)
    np.testing.assert_array_equal((da / db).numpy(), a / b)
    np.testing.assert_array_equal(vkp.sqrt(abs(da)).numpy(), np.sqrt(np.abs(a)))
    np.testing.assert_array_equal((1 / db).numpy(), np.float32(1) / b)


def test_divisors_with_a_subnormal_reciprocal(ctx, keeps_f32_subnormals):
    """|b| > 2**125: 1 / b is subnormal, and a device that divides as a * (1 / b) and flushes
    subnormals (NVIDIA) gave 0 for FLT_MAX / FLT_MAX; the division scales such operands."""
    rng = np.random.default_rng(9)
    big = np.finfo(np.float32).max
    b = np.concatenate([rng.uniform(2.0 ** 125, big, 500) * rng.choice([-1, 1], 500),
                        [big, -big, 2.0 ** 126, 3e38]]).astype(np.float32)
    a = np.concatenate([rng.uniform(2.0 ** 100, big, 500) * rng.choice([-1, 1], 500),
                        [big, big, 1e38, 3e38]]).astype(np.float32)
    da, db = ctx.asarray(a), ctx.asarray(b)
    want = a / b
    if not keeps_f32_subnormals:        # quotients below the normal range flush to zero
        want = np.where(np.abs(want) < np.finfo(np.float32).tiny, np.float32(0) * want, want)
    np.testing.assert_array_equal((da / db).numpy(), want)
    np.testing.assert_array_equal((da // db).numpy(), a // b)
    assert (da[-4:] / db[-4:]).numpy()[0] == 1.0


def test_the_corrected_division_is_generated_only_where_needed(ctx):
    types = [vkp.Array[vkp.f32]] * 5
    inexact = dataclasses.replace(Target.any_device(), exact_division=False)
    exact = dataclasses.replace(inexact, exact_division=True)
    src = divide_and_root.glsl(*types, device=inexact)
    assert "_vkp_div_rn" in src and "_vkp_sqrt_rn" in src
    src = divide_and_root.glsl(*types, device=exact)
    assert "_vkp_div_rn" not in src and "_vkp_sqrt_rn" not in src
    assert ctx.target.float_preserve == ctx.info.float_preserve


SHADER = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer O { float o[4]; double d[]; };
void main() { o[0] = o[1] / o[2]; d[0] = d[1] / d[2]; }
"""


def _modes(code: bytes) -> tuple[set, int]:
    words = struct.unpack(f"<{len(code) // 4}I", code)
    assert words[0] == MAGIC
    modes, caps, pos = set(), 0, 5
    while pos < len(words):
        count, op = words[pos] >> 16, words[pos] & 0xFFFF
        if op == 16 and words[pos + 2] == 4461:
            modes.add(words[pos + 3])
        caps += op == 17 and words[pos + 1] == 4466
        pos += count
    return modes, caps


def test_the_float_modes_patch_is_valid_spirv_and_idempotent():
    code = compile_glsl(SHADER, target_env="vulkan1.2")
    patched = preserve_float_specials(code, {32, 64})
    assert _modes(patched) == ({32, 64}, 1)
    assert preserve_float_specials(patched, {32, 64}) == patched
    assert preserve_float_specials(code, ()) == code
    old = compile_glsl(SHADER, target_env="vulkan1.1")     # SPIR-V 1.3: no float controls
    assert preserve_float_specials(old, {32}) == old
    try:
        exe, _ = spirv_val.validator()
    except Exception:
        pytest.skip("no spirv-val here")
    spirv_val.validate(patched, "vulkan1.2", "patched")
