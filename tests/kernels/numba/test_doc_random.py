"""numba-cuda's doc_examples/test_random.py: xoroshiro128p uniforms on a 3-d grid with
strided loops."""
import numpy as np

from vkpersist import cuda


def test_doc_random_3d_grid():
    from vkpersist.cuda.random import (create_xoroshiro128p_states,
                                       xoroshiro128p_uniform_float32)

    @cuda.jit
    def random_3d(arr, rng_states):
        # Per-dimension thread indices and strides
        startx, starty, startz = cuda.grid(3)
        stridex, stridey, stridez = cuda.gridsize(3)

        # Linearized thread index
        tid = (startz * stridey * stridex) + (starty * stridex) + startx

        # Use strided loops over the array to assign a random value to each entry
        for i in range(startz, arr.shape[0], stridez):
            for j in range(starty, arr.shape[1], stridey):
                for k in range(startx, arr.shape[2], stridex):
                    arr[i, j, k] = xoroshiro128p_uniform_float32(rng_states, tid)

    X, Y, Z = 21, 30, 19
    bx, by, bz = 4, 4, 4
    gx, gy, gz = 2, 2, 2
    nthreads = bx * by * bz * gx * gy * gz
    rng_states = create_xoroshiro128p_states(nthreads, seed=1)
    arr = cuda.device_array((X, Y, Z), dtype=np.float32)
    random_3d[(gx, gy, gz), (bx, by, bz)](arr, rng_states)
    host_arr = arr.copy_to_host()
    assert 0.48 < np.mean(host_arr) < 0.52
    assert np.all(host_arr <= 1.0) and np.all(host_arr >= 0.0)
