"""numba-cuda's doc_examples/test_globals.py: global NumPy arrays captured as constants,
and global device arrays captured by reference."""
import numpy as np

from vkpersist import cuda


def test_doc_globals_constant_capture():
    TAX_RATE = 0.08
    PRICES = np.array([10.0, 25.0, 5.0, 15.0, 30.0], dtype=np.float64)

    @cuda.jit
    def compute_totals(quantities, totals):
        i = cuda.grid(1)
        if i < totals.size:
            totals[i] = quantities[i] * PRICES[i] * (1 + TAX_RATE)

    d_quantities = cuda.to_device(np.array([1, 2, 3, 4, 5], dtype=np.float64))
    d_totals = cuda.device_array(5, dtype=np.float64)
    compute_totals[1, 32](d_quantities, d_totals)
    np.testing.assert_allclose(d_totals.copy_to_host(), [10.8, 54.0, 16.2, 64.8, 162.0])


def test_doc_globals_device_array_capture():
    PRICES = cuda.to_device(np.array([10.0, 25.0, 5.0, 15.0, 30.0], dtype=np.float32))

    @cuda.jit
    def compute_totals(quantities, totals):
        i = cuda.grid(1)
        if i < totals.size:
            totals[i] = quantities[i] * PRICES[i]

    d_quantities = cuda.to_device(np.array([1.0, 1.0, 1.0, 1.0, 1.0], dtype=np.float32))
    d_totals = cuda.device_array(5, dtype=np.float32)
    compute_totals[1, 32](d_quantities, d_totals)
    PRICES.copy_to_device(np.array([20.0, 50.0, 10.0, 30.0, 60.0], dtype=np.float32))
    compute_totals[1, 32](d_quantities, d_totals)
    np.testing.assert_allclose(d_totals.copy_to_host(), [20.0, 50.0, 10.0, 30.0, 60.0])
