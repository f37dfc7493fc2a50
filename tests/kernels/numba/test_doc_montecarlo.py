"""numba-cuda's doc_examples/test_montecarlo.py: Monte Carlo integration of 1/x with
xoroshiro128p samples and a cuda.reduce sum."""
import numpy as np

from vkpersist import cuda


def test_doc_montecarlo():
    from vkpersist.cuda.random import (create_xoroshiro128p_states,
                                       xoroshiro128p_uniform_float32)

    @cuda.jit(device=True)
    def func(x):
        return 1.0 / x

    @cuda.jit
    def mc_integrator_kernel(out, rng_states, lower_lim, upper_lim):
        size = len(out)

        gid = cuda.grid(1)
        if gid < size:
            # draw a sample between 0 and 1 on this thread
            samp = xoroshiro128p_uniform_float32(rng_states, gid)

            # normalize this sample to the limit range
            samp = samp * (upper_lim - lower_lim) + lower_lim

            # evaluate the function to be
            # integrated at the normalized
            # value of the sample
            y = func(samp)
            out[gid] = y

    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    nsamps = 20000
    out = cuda.to_device(np.zeros(nsamps, dtype="float32"))
    rng_states = create_xoroshiro128p_states(nsamps, seed=42)
    mc_integrator_kernel.forall(nsamps)(out, rng_states, 1, 2)
    np.testing.assert_allclose(sum_reduce(out) / (nsamps - 1), 0.69315, atol=0.01)
