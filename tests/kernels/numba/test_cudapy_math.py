"""numba-cuda's cudapy/test_math.py: one kernel per math function, float32 and float64,
against NumPy."""
import math

import numpy as np
import pytest

from vkpersist import cuda
from vkpersist.cuda import float32, float64

from numba_common import xfail


def math_acos(A, B):
    i = cuda.grid(1)
    B[i] = math.acos(A[i])


def math_asin(A, B):
    i = cuda.grid(1)
    B[i] = math.asin(A[i])


def math_atan(A, B):
    i = cuda.grid(1)
    B[i] = math.atan(A[i])


def math_acosh(A, B):
    i = cuda.grid(1)
    B[i] = math.acosh(A[i])


def math_asinh(A, B):
    i = cuda.grid(1)
    B[i] = math.asinh(A[i])


def math_atanh(A, B):
    i = cuda.grid(1)
    B[i] = math.atanh(A[i])


def math_cos(A, B):
    i = cuda.grid(1)
    B[i] = math.cos(A[i])


def math_sin(A, B):
    i = cuda.grid(1)
    B[i] = math.sin(A[i])


def math_tan(A, B):
    i = cuda.grid(1)
    B[i] = math.tan(A[i])


def math_cosh(A, B):
    i = cuda.grid(1)
    B[i] = math.cosh(A[i])


def math_sinh(A, B):
    i = cuda.grid(1)
    B[i] = math.sinh(A[i])


def math_tanh(A, B):
    i = cuda.grid(1)
    B[i] = math.tanh(A[i])


def math_erf(A, B):
    i = cuda.grid(1)
    B[i] = math.erf(A[i])


def math_exp(A, B):
    i = cuda.grid(1)
    B[i] = math.exp(A[i])


def math_expm1(A, B):
    i = cuda.grid(1)
    B[i] = math.expm1(A[i])


def math_fabs(A, B):
    i = cuda.grid(1)
    B[i] = math.fabs(A[i])


def math_log(A, B):
    i = cuda.grid(1)
    B[i] = math.log(A[i])


def math_log2(A, B):
    i = cuda.grid(1)
    B[i] = math.log2(A[i])


def math_log10(A, B):
    i = cuda.grid(1)
    B[i] = math.log10(A[i])


def math_log1p(A, B):
    i = cuda.grid(1)
    B[i] = math.log1p(A[i])


def math_sqrt(A, B):
    i = cuda.grid(1)
    B[i] = math.sqrt(A[i])


def math_ceil(A, B):
    i = cuda.grid(1)
    B[i] = math.ceil(A[i])


def math_floor(A, B):
    i = cuda.grid(1)
    B[i] = math.floor(A[i])


def math_trunc(A, B):
    i = cuda.grid(1)
    B[i] = math.trunc(A[i])


def math_atan2(A, B, C):
    i = cuda.grid(1)
    C[i] = math.atan2(A[i], B[i])


def math_hypot(A, B, C):
    i = cuda.grid(1)
    C[i] = math.hypot(A[i], B[i])


def math_pow(A, B, C):
    i = cuda.grid(1)
    C[i] = math.pow(A[i], B[i])


def math_copysign(A, B, C):
    i = cuda.grid(1)
    C[i] = math.copysign(A[i], B[i])


def math_fmod(A, B, C):
    i = cuda.grid(1)
    C[i] = math.fmod(A[i], B[i])


def math_pow_binop(A, B, C):
    i = cuda.grid(1)
    C[i] = A[i] ** B[i]


def math_mod_binop(A, B, C):
    i = cuda.grid(1)
    C[i] = A[i] % B[i]


def _erf(x):
    return np.vectorize(math.erf, otypes=[x.dtype])(x)



UNARY_MATH = [
    (math_acos, np.arccos, 0, 1),
    (math_asin, np.arcsin, 0, 1),
    (math_atan, np.arctan, 0, 1),
    (math_acosh, np.arccosh, 1, 2),
    (math_asinh, np.arcsinh, 0, 1),
    (math_atanh, np.arctanh, 0, 0.9),
    (math_cos, np.cos, 0, 1),
    (math_sin, np.sin, 0, 1),
    (math_tan, np.tan, 0, 1),
    (math_cosh, np.cosh, 0, 1),
    (math_sinh, np.sinh, 0, 1),
    (math_tanh, np.tanh, 0, 1),
    (math_erf, _erf, 0, 1),
    (math_exp, np.exp, 0, 1),
    (math_expm1, np.expm1, 0, 1),
    (math_fabs, np.fabs, -1, 1),
    (math_log, np.log, 1, 2),
    (math_log2, np.log2, 1, 2),
    (math_log10, np.log10, 1, 2),
    (math_log1p, np.log1p, 0, 1),
    (math_sqrt, np.sqrt, 0, 1),
    (math_ceil, np.ceil, 0, 1),
    (math_floor, np.floor, 0, 1),
    (math_trunc, np.trunc, 0, 1),
]
BINARY_MATH = [
    (math_atan2, np.arctan2, 0, 1),
    (math_hypot, np.hypot, 0, 1),
    (math_pow, np.power, 0, 1),
    (math_copysign, np.copysign, -1, 1),
    (math_fmod, np.fmod, 1, 2),
    (math_pow_binop, np.power, 0, 1),
    (math_mod_binop, np.remainder, 1, 2),
]


def _math_params(table, failing):
    params = []
    for fn, ref, start, stop in table:
        for dtype in (np.float32, np.float64):
            name = fn.__name__[5:]
            why = failing.get((name, dtype)) or failing.get((name, None))
            marks = [xfail(why)] if why else []
            params.append(pytest.param(fn, ref, start, stop, dtype, marks=marks,
                                       id=f"{name}-{np.dtype(dtype).name}"))
    return params


MATH_FAILING = {}


@pytest.mark.parametrize("fn,ref,start,stop,dtype", _math_params(UNARY_MATH, MATH_FAILING))
def test_math_unary(fn, ref, start, stop, dtype, request, device_info):
    nelem = 50
    A = np.linspace(start, stop, nelem, dtype=dtype)
    B = np.empty_like(A)
    arytype = {np.float32: float32, np.float64: float64}[dtype][::1]
    cfunc = cuda.jit((arytype, arytype))(fn)
    cfunc[1, nelem](A, B)
    np.testing.assert_allclose(ref(A), B, rtol=1e-13 if dtype == np.float64 else 1e-6)


@pytest.mark.parametrize("fn,ref,start,stop,dtype", _math_params(BINARY_MATH, MATH_FAILING))
def test_math_binary(fn, ref, start, stop, dtype, request, device_info):
    nelem = 50
    A = np.linspace(start, stop, nelem).astype(dtype)
    B = np.empty_like(A)
    arytype = {np.float32: float32, np.float64: float64}[dtype][::1]
    cfunc = cuda.jit((arytype, arytype, arytype))(fn)
    cfunc[1, nelem](A, A, B)
    np.testing.assert_allclose(ref(A, A), B, rtol=1e-7)
