"""numba-cuda's cudapy/test_mandel.py: the Mandelbrot set with complex numbers, and the
form of numba's examples with the complex arithmetic written out."""
import numpy as np

from vkpersist import cuda


def test_cudapy_mandel():
    @cuda.jit(device=True)
    def mandel(tid, min_x, max_x, min_y, max_y, width, height, iters):
        pixel_size_x = (max_x - min_x) / width
        pixel_size_y = (max_y - min_y) / height

        x = tid % width
        y = tid / width

        real = min_x + x * pixel_size_x
        imag = min_y + y * pixel_size_y

        c = complex(real, imag)
        z = 0.0j

        for i in range(iters):
            z = z * z + c
            if (z.real * z.real + z.imag * z.imag) >= 4:
                return i
        return iters

    @cuda.jit
    def kernel(out):
        tid = cuda.grid(1)
        out[tid] = mandel(tid, -2.0, 1.0, -1.0, 1.0, 8, 8, 20)

    out = np.zeros(64, np.int32)
    kernel[1, 64](out)
    assert out.max() == 20


def test_mandelbrot_float_form():
    """The Mandelbrot set with the complex arithmetic written out (numba's examples' form)."""
    @cuda.jit(device=True)
    def mandel(x, y, max_iters):
        c_re, c_im = x, y
        z_re = 0.0
        z_im = 0.0
        for i in range(max_iters):
            z_re, z_im = z_re * z_re - z_im * z_im + c_re, 2 * z_re * z_im + c_im
            if (z_re * z_re + z_im * z_im) >= 4:
                return i
        return max_iters

    @cuda.jit
    def mandel_kernel(min_x, max_x, min_y, max_y, image, iters):
        height = image.shape[0]
        width = image.shape[1]

        pixel_size_x = (max_x - min_x) / width
        pixel_size_y = (max_y - min_y) / height

        startX, startY = cuda.grid(2)
        gridX = cuda.gridDim.x * cuda.blockDim.x
        gridY = cuda.gridDim.y * cuda.blockDim.y

        for x in range(startX, width, gridX):
            real = min_x + x * pixel_size_x
            for y in range(startY, height, gridY):
                imag = min_y + y * pixel_size_y
                image[y, x] = mandel(real, imag, iters)

    image = np.zeros((24, 36), dtype=np.uint8)
    mandel_kernel[(2, 2), (8, 8)](-2.0, 1.0, -1.0, 1.0, image, 20)
    want = np.zeros_like(image)
    for yy in range(24):
        for xx in range(36):
            c_re = np.float32(-2.0 + xx * np.float32(3.0 / 36))
            c_im = np.float32(-1.0 + yy * np.float32(2.0 / 24))
            z_re = z_im = np.float32(0)
            n = 20
            for i in range(20):
                z_re, z_im = z_re * z_re - z_im * z_im + c_re, 2 * z_re * z_im + c_im
                if z_re * z_re + z_im * z_im >= 4:
                    n = i
                    break
            want[yy, xx] = n
    assert np.mean(image == want) > 0.97       # float32 rounding at the set's edge
