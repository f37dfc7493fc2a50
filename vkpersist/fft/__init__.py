"""vkpersist.fft: NumPy's np.fft on device arrays, its names and its semantics (`n=`/`s=`,
`axis=`/`axes=`, `norm=`).

    y = vkp.fft.fft(x)                   # or np.fft.fft(x) of a device array
    z = vkp.fft.irfft2(y, s=x.shape)

Powers of two take the Stockham transform in shared memory, other lengths Bluestein's
(vkpersist/fft/_fft.py says how).
"""
from ._fft import (fft, fft2, fftn, fftshift, ifft, ifft2, ifftn, ifftshift, irfft, irfft2,
                   irfftn, rfft, rfft2, rfftn)

__all__ = ["fft", "fft2", "fftn", "fftshift", "ifft", "ifft2", "ifftn", "ifftshift", "irfft",
           "irfft2", "irfftn", "rfft", "rfft2", "rfftn"]


def __dir__() -> list[str]:
    return list(__all__)
