"""numba-cuda's cudapy/test_random.py: numba.cuda.random's API (vkpersist.cuda.random),
state creation and the uniform and normal draws; and the pi estimate of numba's docs
(cuda/random.rst)."""
import math

import numpy as np
import pytest

from vkpersist import cuda
from vkpersist.cuda.random import (create_xoroshiro128p_states, xoroshiro128p_normal_float32,
                                   xoroshiro128p_normal_float64, xoroshiro128p_uniform_float32,
                                   xoroshiro128p_uniform_float64)


UNIFORM = 1
NORMAL = 2


@cuda.jit
def rng_kernel_float32(states, out, count, distribution):
    thread_id = cuda.grid(1)

    for i in range(count):
        idx = thread_id * count + i

        if distribution == UNIFORM:
            out[idx] = xoroshiro128p_uniform_float32(states, thread_id)
        elif distribution == NORMAL:
            out[idx] = xoroshiro128p_normal_float32(states, thread_id)


@cuda.jit
def rng_kernel_float64(states, out, count, distribution):
    thread_id = cuda.grid(1)

    for i in range(count):
        idx = thread_id * count + i

        if distribution == UNIFORM:
            out[idx] = xoroshiro128p_uniform_float64(states, thread_id)
        elif distribution == NORMAL:
            out[idx] = xoroshiro128p_normal_float64(states, thread_id)


def test_random_create():
    s = create_xoroshiro128p_states(10, seed=1).copy_to_host()
    assert len(np.unique(s)) == 20
    s2 = create_xoroshiro128p_states(10, seed=1, subsequence_start=3).copy_to_host()
    np.testing.assert_array_equal(s[3:], s2[:-3])


@pytest.mark.parametrize("kernel,dtype,distribution", [
    (rng_kernel_float32, np.float32, UNIFORM),
    (rng_kernel_float32, np.float32, NORMAL),
    # the float64 kernel holds both draws: its normal one needs f64 log and cos
    pytest.param(rng_kernel_float64, np.float64, UNIFORM),
    pytest.param(rng_kernel_float64, np.float64, NORMAL),
], ids=["uniform-f32", "normal-f32", "uniform-f64", "normal-f64"])
def test_random_distributions(kernel, dtype, distribution):
    states = create_xoroshiro128p_states(32 * 2, seed=1)
    out = np.zeros(2 * 32 * 32, dtype=dtype)
    kernel[2, 32](states, out, 32, distribution)
    if distribution == UNIFORM:
        assert np.all(out >= 0.0) and np.all(out < 1.0)
        assert abs(out.mean() - 0.5) < 0.03 and abs(out.std() - np.sqrt(1 / 12)) < 0.02
    else:
        assert abs(out.mean()) < 0.06 and abs(out.std() - 1.0) < 0.05


def test_docs_monte_carlo_pi():
    """numba's docs (cuda/random.rst): estimate pi from random points."""
    @cuda.jit
    def compute_pi(rng_states, iterations, out):
        """Find the maximum value in values and store in result[0]"""
        thread_id = cuda.grid(1)

        # Compute pi by drawing random (x, y) points and finding what
        # fraction lie inside a unit circle
        inside = 0
        for i in range(iterations):
            x = xoroshiro128p_uniform_float32(rng_states, thread_id)
            y = xoroshiro128p_uniform_float32(rng_states, thread_id)
            if x**2 + y**2 <= 1.0:
                inside += 1

        out[thread_id] = 4.0 * inside / iterations

    threads_per_block = 64
    blocks = 8
    rng_states = create_xoroshiro128p_states(threads_per_block * blocks, seed=1)
    out = np.zeros(threads_per_block * blocks, dtype=np.float32)
    compute_pi[blocks, threads_per_block](rng_states, 500, out)
    assert abs(out.mean() - math.pi) < 0.02
