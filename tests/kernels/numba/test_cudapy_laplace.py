"""numba-cuda's cudapy/test_laplace.py: Jacobi relaxation with a per-block max-reduction
of the error in shared memory, against the same sweep on the host."""
import numpy as np

from vkpersist import cuda
from vkpersist.cuda import float64, void


def test_cudapy_laplace():
    tpb = 16
    SM_SIZE = tpb, tpb

    @cuda.jit(float64(float64, float64), device=True, inline="always")
    def get_max(a, b):
        if a > b:
            return a
        else:
            return b

    @cuda.jit(void(float64[:, :], float64[:, :], float64[:, :]))
    def jocabi_relax_core(A, Anew, error):
        err_sm = cuda.shared.array(SM_SIZE, dtype=float64)

        ty = cuda.threadIdx.x
        tx = cuda.threadIdx.y
        bx = cuda.blockIdx.x
        by = cuda.blockIdx.y

        n = A.shape[0]
        m = A.shape[1]

        i, j = cuda.grid(2)

        err_sm[ty, tx] = 0
        if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
            Anew[j, i] = 0.25 * (
                A[j, i + 1] + A[j, i - 1] + A[j - 1, i] + A[j + 1, i]
            )
            err_sm[ty, tx] = Anew[j, i] - A[j, i]

        cuda.syncthreads()

        # max-reduce err_sm vertically
        t = tpb // 2
        while t > 0:
            if ty < t:
                err_sm[ty, tx] = get_max(err_sm[ty, tx], err_sm[ty + t, tx])
            t //= 2
            cuda.syncthreads()

        # max-reduce err_sm horizontally
        t = tpb // 2
        while t > 0:
            if tx < t and ty == 0:
                err_sm[ty, tx] = get_max(err_sm[ty, tx], err_sm[ty, tx + t])
            t //= 2
            cuda.syncthreads()

        if tx == 0 and ty == 0:
            error[by, bx] = err_sm[0, 0]

    NN = NM = 32
    A = np.zeros((NN, NM), dtype=np.float64)
    A[:, 0] = 1.0
    Anew = A.copy()
    blockdim = (tpb, tpb)
    griddim = (NN // blockdim[0], NM // blockdim[1])
    error_grid = np.zeros(griddim)
    stream = cuda.stream()
    dA = cuda.to_device(A, stream)
    dAnew = cuda.to_device(Anew, stream)
    derror_grid = cuda.to_device(error_grid, stream)
    for _ in range(3):
        jocabi_relax_core[griddim, blockdim, stream](dA, dAnew, derror_grid)
        derror_grid.copy_to_host(error_grid, stream=stream)
        stream.synchronize()
        # the same sweep and per-block max-reduction on the host
        ref = A.copy()
        ref[1:-1, 1:-1] = 0.25 * (A[1:-1, 2:] + A[1:-1, :-2] + A[:-2, 1:-1] + A[2:, 1:-1])
        diff = np.zeros_like(A)
        diff[1:-1, 1:-1] = ref[1:-1, 1:-1] - A[1:-1, 1:-1]
        want = diff.reshape(griddim[0], tpb, griddim[1], tpb).max(axis=(1, 3))
        np.testing.assert_allclose(error_grid, want, atol=1e-12)
        np.testing.assert_allclose(dAnew.copy_to_host()[1:-1, 1:-1], ref[1:-1, 1:-1])
        A = ref
        dA, dAnew = dAnew, dA
