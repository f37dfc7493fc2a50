"""The math functions of kernels against NumPy, in ulps, float32 and float64, on every device:
sweeps over ordinary, tiny, huge and special arguments (tools/math_accuracy.py, smaller
here), the bounds docs/language.md states, and the C99 special values."""
import dataclasses
import math
import pathlib
import sys

import numpy as np
import pytest

import vkpersist as vkp

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
import math_accuracy as ma  # noqa: E402

# the table of docs/language.md (max ulp measured on lavapipe, rounded up); the test allows
# TOLERANCE more on every device (Vulkan lets float32 division and sqrt be off by ~2.5 ulp)
BOUNDS = {   # function: (float32, float64)
    "sin": (1, 1), "cos": (1, 1), "tan": (2.5, 2.5),
    "asin": (1, 1), "acos": (1.5, 1.5), "atan": (1.5, 1.5), "atan2": (2, 2),
    "sinh": (2.5, 2.5), "cosh": (2.5, 2.5), "tanh": (2.5, 2.5),
    "asinh": (2, 2), "acosh": (3, 3), "atanh": (2, 2),
    "exp": (1, 1), "exp2": (1, 1), "expm1": (2, 2), "pow": (1, 1.5),
    "log": (1, 1), "log2": (1, 1), "log10": (1, 1), "log1p": (1, 1),
    "cbrt": (1, 1), "hypot": (1, 1), "fmod": (0, 0), "remainder": (0, 0),
    "erf": (1.5, 1), "erfc": (4.5, 4.5), "gamma": (50, 50), "lgamma": (30, 75),
}
TOLERANCE = 1.0
N = 3000


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", ma.UNARY + ma.BINARY)
def test_accuracy_and_special_values(ctx, name, dtype):
    if dtype == np.float64 and not ctx.info.float64:
        pytest.skip("no float64")
    r = ma.measure(vkp, name, dtype, N, seed=7)
    assert r["special_mismatch"] == 0, f"{name}: special values differ from NumPy: " \
        f"[args..., got] {r['bad_args']}"
    bound = BOUNDS[name][dtype == np.float64] + TOLERANCE
    assert r["max_ulp"] <= bound, (f"{name} {np.dtype(dtype).name}: {r['max_ulp']:.2f} ulp at "
                                   f"{r['worst_args']}: got {r['got']!r}, want {r['want']!r}")


def test_hardest_trigonometric_reduction(ctx):
    # the float64 closest to a multiple of pi/2 (6381956970095103 * 2**797), and friends
    if not ctx.info.float64:
        pytest.skip("no float64")
    x = np.array([6381956970095103 * 2.0 ** 797, -6381956970095103 * 2.0 ** 797, 1e22,
                  np.finfo(np.float64).max, 2.0 ** 1000, 1.5e6, 3 * 2.0 ** 20], np.float64)
    for name in ("sin", "cos", "tan"):
        out = np.zeros_like(x)
        ma._kernel(vkp, name).forall(len(x))(x, out)
        err, bad = ma.ulp_errors(out, ma.reference(name, np.float64, x), np.float64)
        assert not bad.any() and err.max() <= 1.0, (name, err)


@vkp.kernel
def specials(x, y, out):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        out[i, 0] = math.pow(x[i], y[i])
        out[i, 1] = x[i] ** y[i]
        out[i, 2] = math.atan2(x[i], y[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_issue_special_values(ctx, dtype):
    if dtype == np.float64 and not ctx.info.float64:
        pytest.skip("no float64")
    nan, inf = np.nan, np.inf
    x = np.array([0.0, nan, 1.0, -8.0, -2.0, -2.0, -0.0, -0.0, -1.0, 0.0, -inf], dtype)
    y = np.array([0.0, 0.0, nan, 1 / 3, 3.0, 2.0, -1.0, 3.0, inf, -0.0, 3.0], dtype)
    out = np.zeros((len(x), 3), dtype)
    specials.forall(len(x))(x, y, out)
    with np.errstate(all="ignore"):
        want = np.power(x, y)
    np.testing.assert_array_equal(out[:, 0], want)     # nan == nan, signed zeros below
    np.testing.assert_array_equal(out[:, 1], want)
    num = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(out[num, 0]), np.signbit(want[num]))
    assert out[0, 0] == 1.0 and out[0, 1] == 1.0 and out[1, 0] == 1.0 and out[2, 0] == 1.0
    assert np.isnan(out[3, 0]) and out[4, 0] == -8.0 and out[6, 0] == -np.inf
    # (NumPy's own float32 arctan2(-2, 2) is 1 ulp off -pi/4)
    np.testing.assert_allclose(out[:, 2], np.arctan2(x, y), rtol=3 * np.finfo(dtype).eps)
    num = ~np.isnan(np.arctan2(x, y))
    np.testing.assert_array_equal(np.signbit(out[num, 2]), np.signbit(np.arctan2(x, y)[num]))
    assert out[0, 2] == 0.0 and out[9, 2] == np.pi


@vkp.kernel
def vector_math(a: vkp.Array[vkp.dvec3], b: vkp.Array[vkp.vec3], oa: vkp.Array[vkp.dvec3],
                ob: vkp.Array[vkp.vec3]):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        oa[i] = vkp.pow(vkp.sin(a[i]), a[i])
        ob[i] = vkp.atan2(vkp.exp(b[i]), b[i])


def test_vector_math_elementwise(ctx):
    if not ctx.info.float64:
        pytest.skip("no float64")
    a = np.array([[0.5, 1.0, 1.5], [0.25, 2.0, 3.0]])
    b = a.astype(np.float32)
    oa, ob = np.zeros_like(a), np.zeros_like(b)
    vector_math.forall(2)(a, b, oa, ob)
    np.testing.assert_allclose(oa, np.sin(a) ** a, rtol=1e-15)
    np.testing.assert_allclose(ob, np.arctan2(np.exp(b), b), rtol=1e-6)


@vkp.kernel
def int_arguments(n: vkp.i64, m: vkp.i32, out: vkp.Array[vkp.f64]):
    out[0] = math.exp(n)
    out[1] = math.exp(m)


def test_math_of_int64_is_float64_of_int32_float32(ctx):
    if not (ctx.info.float64 and ctx.info.int64):
        pytest.skip("no float64/int64")
    src = int_arguments.glsl()
    assert "_vkp_exp_float64(double(n))" in src and "_vkp_exp(float(m))" in src
    out = np.zeros(2)
    int_arguments[1, 1](3, 3, out)
    assert out[0] == np.exp(3.0) and out[1] == np.float64(np.exp(np.float32(3)))


@vkp.kernel
def f64_sin(x: vkp.Array[vkp.f64], out: vkp.Array[vkp.f64]):
    out[0] = math.sin(x[0])


def test_float64_math_refused_without_float64(ctx):
    target = dataclasses.replace(ctx.target, float64=False)
    with pytest.raises(vkp.CompileError, match="shaderFloat64"):
        f64_sin.glsl(device=target)


def test_spirv_validation_names_the_kernel(monkeypatch):
    from vkpersist.vk import spirv_val
    monkeypatch.setenv("VKPERSIST_VALIDATE", "1")
    assert spirv_val.enabled()
    broken = b"\x03\x02\x23\x07" + (0x00010500).to_bytes(4, "little") + bytes(12) + bytes(8)
    with pytest.raises(vkp.CompileError, match="my_kernel: the SPIR-V module is invalid"):
        spirv_val.validate(broken, "vulkan1.2", "my_kernel")


@vkp.kernel
def exact_functions(x, y, n, out, outi):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        out[0, i] = math.ldexp(x[i], n[i])
        m, e = math.frexp(x[i])
        out[1, i] = m
        outi[0, i] = e
        f, w = math.modf(x[i])
        out[2, i] = f
        out[3, i] = w
        out[4, i] = x[i] % y[i]
        out[5, i] = math.copysign(x[i], y[i])
        out[6, i] = round(x[i], 1)
        outi[1, i] = round(x[i]) if math.isfinite(x[i]) else -1
        outi[2, i] = 1 if math.isfinite(x[i]) else 0
        out[7, i] = math.degrees(x[i])
        out[8, i] = math.radians(x[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_exact_functions_against_numpy(ctx, dtype, keeps_f32_subnormals):
    """ldexp, frexp, modf, %, copysign, round (half to even) and isfinite are exact in C
    and NumPy, so they are here, special values and subnormals included; degrees and
    radians are one product by the rounded constant, as in Python."""
    if dtype == np.float64 and not ctx.info.float64:
        pytest.skip("no float64")
    rng = np.random.default_rng(3)
    tiny = np.finfo(dtype).smallest_normal
    sp = [0.0, -0.0, np.inf, -np.inf, np.nan, 2.5, -2.5, 0.5, -1.5, 3.0, -3.0, 7.0, -7.0,
          tiny, -tiny / 8 if dtype == np.float64 else -tiny, 1e30]
    x = np.concatenate([rng.uniform(-100, 100, 200), 10.0 ** rng.uniform(-30, 30, 50),
                        sp]).astype(dtype)
    y = np.concatenate([rng.uniform(-10, 10, 250), [1, -1, 1, 1, 2, -2, 2, 3, 3, -2, 2, 0.5,
                                                    -0.5, 1, 1, 3]]).astype(dtype)
    n = rng.integers(-300, 300, len(x)).astype(np.int32)
    n[-3:] = [-2000, 2000, 10**6]
    out = np.zeros((9, len(x)), dtype)
    outi = np.zeros((3, len(x)), np.int32)
    exact_functions.forall(len(x))(x, y, n, out, outi)
    with np.errstate(all="ignore"):
        want = [np.ldexp(x, n), np.frexp(x)[0], *np.modf(x), np.remainder(x, y),
                np.copysign(x, y), np.round(x, 1)]
    for row, w in enumerate(want):
        w = np.asarray(w, dtype)
        if row == 6:          # round(x, 1) scales by 10: within an ulp of NumPy's
            np.testing.assert_allclose(out[row], w, rtol=np.finfo(dtype).eps)
            continue
        if dtype == np.float32 and not keeps_f32_subnormals:    # flushed to signed zeros
            sub = (w != 0) & (np.abs(w) < tiny)
            w = np.where(sub & (out[row] == 0), np.copysign(np.float32(0), w), w)
        np.testing.assert_array_equal(out[row], w, err_msg=f"row {row}")
        assert (np.signbit(out[row]) == np.signbit(w))[~np.isnan(w)].all(), row
    fin = np.isfinite(x)
    np.testing.assert_array_equal(outi[0][fin], np.frexp(x)[1][fin])
    small = fin & (np.abs(x) < 2**31)
    np.testing.assert_array_equal(outi[1][small], np.round(x[small]))   # half to even
    np.testing.assert_array_equal(outi[2], fin)
    for row, fn in ((7, math.degrees), (8, math.radians)):
        ref = np.array([fn(v) for v in x.astype(float)])
        err, bad = ma.ulp_errors(out[row], ref, dtype)
        assert not bad.any() and err.max() <= 1.0, (row, err.max())
