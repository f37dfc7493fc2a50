"""numba.cuda.random's xoroshiro128+ generator for vkpersist.cuda kernels.

    from vkpersist.cuda.random import (create_xoroshiro128p_states,
                                       xoroshiro128p_uniform_float32)

The generator and its draws are numba's (xoroshiro128+, 53-bit float64 draws). What
differs: the states are a (n, 2) uint64 device array rather than a record array, each
seeded from splitmix64(seed + index) on the host instead of numba's jump-ahead
subsequences of one seed, so the numbers are not the ones numba draws; float32 draws use
the top 24 bits (exactly in [0, 1)) rather than rounding a float64 draw. Needs 64-bit
integers (shaderInt64).
"""
from __future__ import annotations

import math

import numpy as np

from .. import _kernel
from ..lang import types as T
from ..vk.context import default_context

_M64 = (1 << 64) - 1


def _splitmix64(z: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """n generator states on the device, as a (n, 2) uint64 array."""
    idx = np.arange(subsequence_start, subsequence_start + n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        s0 = _splitmix64(np.uint64(seed & _M64) + idx * np.uint64(0x632BE59BD9B4E019))
    s1 = _splitmix64(s0)
    return default_context().asarray(np.stack([s0, s1], axis=1))


@_kernel.func
def xoroshiro128p_next(states, index):
    s0 = states[index, 0]
    s1 = states[index, 1]
    result = s0 + s1
    s1 ^= s0
    states[index, 0] = ((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14)
    states[index, 1] = (s1 << 36) | (s1 >> 28)
    return result


@_kernel.func
def xoroshiro128p_uniform_float32(states, index):
    return T.f32(T.u32(xoroshiro128p_next(states, index) >> 40)) * 5.9604644775390625e-08


@_kernel.func
def xoroshiro128p_uniform_float64(states, index):
    return T.f64(xoroshiro128p_next(states, index) >> 11) * T.f64(1.1102230246251565e-16)


TWO_PI_FLOAT32 = np.float32(2 * math.pi)


@_kernel.func
def xoroshiro128p_normal_float32(states, index):
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    z0 = math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(TWO_PI_FLOAT32 * u2)
    return z0


TWO_PI_FLOAT64 = np.float64(2 * math.pi)


@_kernel.func
def xoroshiro128p_normal_float64(states, index):
    u1 = xoroshiro128p_uniform_float64(states, index)
    u2 = xoroshiro128p_uniform_float64(states, index)
    z0 = math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(TWO_PI_FLOAT64 * u2)
    return z0


__all__ = ["xoroshiro128p_normal_float64", "create_xoroshiro128p_states", "xoroshiro128p_next", "xoroshiro128p_normal_float32",
           "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64"]
