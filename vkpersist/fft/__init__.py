"""vkpersist.fft: discrete Fourier transforms on device arrays, NumPy's names."""
from ._fft import fft, ifft, irfft, rfft

__all__ = ["fft", "ifft", "irfft", "rfft"]
