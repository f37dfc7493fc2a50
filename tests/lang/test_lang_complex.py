"""Complex numbers in kernels (complex64/complex128 scalars, arrays and parameters; cmath)
against NumPy, on every device: relative errors within a few ulp of the precision, the
special values C99 Annex G gives for zeros and the real axis, and the errors that teach."""
import cmath

import numpy as np
import pytest

import vkpersist as vkp
from vkpersist._errors import CompileError

RNG = np.random.default_rng(5)
N = 256


def _args(dtype):
    z = (RNG.uniform(-4, 4, N) + 1j * RNG.uniform(-4, 4, N)).astype(dtype)
    w = (RNG.uniform(-3, 3, N) + 1j * RNG.uniform(-3, 3, N)).astype(dtype)
    z[:4] = [0, 1, -1, 1j]                       # the axes
    return z, w


@vkp.kernel
def _ops(out, z, w, r):
    i = vkp.global_id(0)
    if i < z.shape[0]:
        a = z[i]
        b = w[i]
        out[0, i] = a + b
        out[1, i] = a - b * 2
        out[2, i] = a * b
        out[3, i] = a / b
        out[4, i] = a * r[i] + r[i] / b
        out[5, i] = a ** 3
        out[6, i] = -a.conjugate()
        out[7, i] = complex(abs(a), cmath.phase(a))
        out[8, i] = cmath.exp(a)
        out[9, i] = cmath.log(b)
        out[10, i] = cmath.sqrt(a)
        out[11, i] = cmath.log10(b)
        out[12, i] = a ** b
        out[13, i] = cmath.rect(a.real, a.imag)
        m, p = cmath.polar(b)
        out[14, i] = complex(m, p)
        out[15, i] = complex(a.real * 2, a.imag) + (1 if a == b else 0) + 1j


def _want(z, w, r):
    with np.errstate(all="ignore"):
        return [z + w, z - w * 2, z * w, z / w, z * r + r / w, z ** 3, -z.conj(),
                np.abs(z) + 1j * np.angle(z), np.exp(z), np.log(w), np.sqrt(z), np.log10(w),
                np.where(z == 0, np.nan, z ** w),     # 0 ** w: NaN where Python raises
                np.array([cmath.rect(x.real, x.imag) for x in z]),
                np.abs(w) + 1j * np.angle(w), 2 * z.real + 1j * z.imag + (z == w) + 1j]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["c64", "c128"])
def test_complex_arithmetic_and_cmath(ctx, dtype):
    if dtype == np.complex128 and not ctx.info.float64:
        pytest.skip("no float64")
    z, w = _args(dtype)
    r = RNG.uniform(-2, 2, N).astype(np.float32 if dtype == np.complex64 else np.float64)
    out = np.zeros((16, N), dtype)
    _ops[N // 64, 64](out, z, w, r)
    eps = np.finfo(np.float32 if dtype == np.complex64 else np.float64).eps
    bounds = {5: 8, 12: 64}      # z ** 3 is three roundings; z ** w amplifies log's error
    for row, want in enumerate(_want(z.astype(complex), w.astype(complex), r.astype(float))):
        err = np.abs(out[row] - want) / np.maximum(np.abs(want), 1e-30)
        err[np.isnan(want) & np.isnan(out[row])] = 0
        assert err.max() <= bounds.get(row, 4) * eps, (row, err.max() / eps)


def test_complex_special_values(ctx):
    @vkp.kernel
    def k(out: vkp.Array[vkp.c64], z: vkp.Array[vkp.c64]):
        i = vkp.global_id(0)
        if i < z.shape[0]:
            out[3 * i] = cmath.sqrt(z[i])
            out[3 * i + 1] = cmath.exp(z[i])
            out[3 * i + 2] = complex(abs(z[i]), 0.0) + z[i] ** 0
    inf, nan = np.inf, np.nan
    z = np.array([0j, complex(-0.0, -0.0), complex(inf, 1), complex(-inf, 1), complex(1, inf),
                  complex(nan, 1), complex(-4, 0.0), complex(-4, -0.0), complex(2, 0)],
                 np.complex64)
    out = np.zeros(3 * len(z), np.complex64)
    k[1, 64](out, z)
    with np.errstate(all="ignore"):
        for i, x in enumerate(z.astype(complex)):
            got = out[3 * i: 3 * i + 3]
            want = [np.sqrt(x), np.exp(x) if x.imag == 0 else got[1], abs(x) + 1]
            np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=str(x))
            assert np.signbit(got[0].imag) == np.signbit(want[0].imag), x
            if x.imag == 0 and np.isfinite(x.real):
                assert got[1].imag == 0 and np.signbit(got[1].imag) == np.signbit(x.imag)


def test_complex_parameters_and_device_arrays(ctx):
    @vkp.kernel
    def scale(out, z, c):
        i = vkp.global_id(0)
        if i < z.shape[0]:
            out[i] = z[i] * c
    z = ctx.asarray((np.arange(5) - 1j * np.arange(5)).astype(np.complex64))
    out = ctx.empty(5, np.complex64)
    scale[1, 64](out, z, 2 - 1j)
    np.testing.assert_allclose(out.numpy(), z.numpy() * (2 - 1j), rtol=1e-6)
    scale[1, 64](out, z, np.complex64(1j))
    np.testing.assert_allclose(out.numpy(), z.numpy() * 1j, rtol=1e-6)
    with pytest.raises(TypeError, match="'c'"):
        scale[1, 64](out, z, "x")


@pytest.mark.parametrize("body, match", [
    ("out[0] = 1.0 if z < z else 0.0", "not ordered"),
    ("out[0] = math.sqrt(z)", "cmath has the complex ones"),
    ("out[0] = z % z", "not defined for complex"),
    ("out[0] = float(z)", "takes a scalar"),
    ("out[0] = max(z, z)", "not ordered"),
    ("out[0] = z.imagg", r"\.real, \.imag and \.conjugate\(\)"),
])
def test_complex_errors(ctx, body, match):
    src = f"""
import math
import vkpersist as vkp

@vkp.kernel
def k(out: vkp.Array[vkp.f32]):
    z = complex(1.0, 2.0)
    {body}
"""
    k = vkp.compile_source(src)["k"]
    with pytest.raises(CompileError, match=match):
        k[1, 1](ctx.empty(1, np.float32))
