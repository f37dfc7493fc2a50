"""numba-cuda's cudapy/test_blackscholes.py: Black-Scholes option pricing in float64 as
numba has it, and on float32 data."""
import math

import numpy as np

from vkpersist import cuda
from vkpersist.cuda import double, void


RISKFREE = 0.02
VOLATILITY = 0.30
A1 = 0.31938153
A2 = -0.356563782
A3 = 1.781477937
A4 = -1.821255978
A5 = 1.330274429
RSQRT2PI = 0.39894228040143267793994605993438


def _black_scholes_numpy(S, X, T, R, V):
    def cnd(d):
        K = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        ret_val = (RSQRT2PI * np.exp(-0.5 * d * d)
                   * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5))))))
        return np.where(d > 0, 1.0 - ret_val, ret_val)
    sqrtT = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    expRT = np.exp(-R * T)
    return S * cnd(d1) - X * expRT * cnd(d2), X * expRT * (1.0 - cnd(d2)) - S * (1.0 - cnd(d1))


def _randfloat(rand_var, low, high):
    return (1.0 - rand_var) * low + rand_var * high


def test_cudapy_blackscholes():
    @cuda.jit(double(double), device=True, inline="always")
    def cnd_cuda(d):
        K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
        ret_val = (
            RSQRT2PI
            * math.exp(-0.5 * d * d)
            * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))))
        )
        if d > 0:
            ret_val = 1.0 - ret_val
        return ret_val

    @cuda.jit(void(double[:], double[:], double[:], double[:], double[:], double, double))
    def black_scholes_cuda(callResult, putResult, S, X, T, R, V):
        i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
        if i >= S.shape[0]:
            return
        sqrtT = math.sqrt(T[i])
        d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT)
        d2 = d1 - V * sqrtT
        cndd1 = cnd_cuda(d1)
        cndd2 = cnd_cuda(d2)

        expRT = math.exp((-1.0 * R) * T[i])
        callResult[i] = S[i] * cndd1 - X[i] * expRT * cndd2
        putResult[i] = X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1)

    OPT_N = 400
    np.random.seed(0)
    S = _randfloat(np.random.random(OPT_N), 5.0, 30.0)
    X = _randfloat(np.random.random(OPT_N), 1.0, 100.0)
    T = _randfloat(np.random.random(OPT_N), 0.25, 10.0)
    call, put = np.zeros(OPT_N), -np.ones(OPT_N)
    blockdim = 512, 1
    griddim = int(math.ceil(float(OPT_N) / blockdim[0])), 1
    black_scholes_cuda[griddim, blockdim](call, put, S, X, T, RISKFREE, VOLATILITY)
    want_call, want_put = _black_scholes_numpy(S, X, T, RISKFREE, VOLATILITY)
    delta = np.abs(want_call - call)
    assert delta.sum() / np.abs(want_call).sum() < 1e-13 and delta.max() < 1e-13


@cuda.jit(device=True)       # numba's cnd_cuda without its double(double) signature
def cnd_cuda_f32ish(d):
    K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
    ret_val = (RSQRT2PI * math.exp(-0.5 * d * d)
               * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5))))))
    if d > 0:
        ret_val = 1.0 - ret_val
    return ret_val


def test_cudapy_blackscholes_float32():
    """The Black-Scholes kernel on float32 data (its f64 form waits for f64 math)."""
    @cuda.jit
    def black_scholes_cuda(callResult, putResult, S, X, T, R, V):
        i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
        if i >= S.shape[0]:
            return
        sqrtT = math.sqrt(T[i])
        d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT)
        d2 = d1 - V * sqrtT
        cndd1 = cnd_cuda_f32ish(d1)
        cndd2 = cnd_cuda_f32ish(d2)

        expRT = math.exp((-1.0 * R) * T[i])
        callResult[i] = S[i] * cndd1 - X[i] * expRT * cndd2
        putResult[i] = X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1)

    OPT_N = 400
    np.random.seed(0)
    S = _randfloat(np.random.random(OPT_N), 5.0, 30.0).astype(np.float32)
    X = _randfloat(np.random.random(OPT_N), 1.0, 100.0).astype(np.float32)
    T = _randfloat(np.random.random(OPT_N), 0.25, 10.0).astype(np.float32)
    call, put = np.zeros(OPT_N, np.float32), -np.ones(OPT_N, np.float32)
    black_scholes_cuda[1, 512](call, put, S, X, T, RISKFREE, VOLATILITY)
    want_call, want_put = _black_scholes_numpy(S.astype(float), X.astype(float),
                                               T.astype(float), RISKFREE, VOLATILITY)
    np.testing.assert_allclose(call, want_call, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(put, want_put, rtol=1e-3, atol=1e-3)
