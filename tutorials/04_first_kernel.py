"""Lesson 4: your first kernel.

A kernel is a Python function that runs once per *invocation* on the GPU. You launch a grid
of workgroups, numba.cuda style: `kernel[groups, local](...)`, or `kernel.forall(n)(...)`
for one invocation per element. Then print the GLSL it became.

    python tutorials/04_first_kernel.py [--size N]
    python -m vkpersist emit-glsl tutorials/04_first_kernel.py:saxpy
"""
import math

import numpy as np

import vkpersist as vkp
from _common import parse


@vkp.kernel
def saxpy(a: vkp.f32, x: vkp.Array[vkp.f32], y: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)              # this invocation's element
    if i < x.shape[0]:                # the last workgroup may reach past the end
        y[i] = a * x[i] + y[i]


@vkp.kernel
def waves(img: vkp.Array[vkp.f32, 2], k: vkp.f32):
    x = vkp.global_id(0)              # 2-d launch: axis 0 is x (columns), axis 1 is y (rows)
    y = vkp.global_id(1)
    if y < img.shape[0] and x < img.shape[1]:
        img[y, x] = math.sin(k * x) * math.cos(k * y)


def main():
    args = parse(__doc__, size=1_000_000, size_help="elements of x and y")
    n = args.size
    ctx = vkp.default_context()
    print(f"device: {ctx.info.name}")

    rng = np.random.default_rng(0)
    x_host = rng.random(n, dtype=np.float32)
    y_host = rng.random(n, dtype=np.float32)
    x = ctx.asarray(x_host)           # copies to device memory, where the arrays stay
    y = ctx.asarray(y_host)

    local = 64                        # invocations per workgroup
    groups = (n + local - 1) // local # enough workgroups to cover n elements
    saxpy[groups, local](2.0, x, y)   # returns at once: the GPU works in the background
    saxpy.forall(n)(2.0, x, y)        # the same launch, sized for you
    got = y.numpy()                   # reading waits for both launches

    expect = np.float32(2.0) * x_host + y_host
    expect = np.float32(2.0) * x_host + expect
    err = np.abs(got - expect).max()
    print(f"saxpy twice on {n} elements: max |GPU - NumPy| = {err:.2e}")
    assert err <= 1e-6 * np.abs(expect).max(), "saxpy disagrees with NumPy"

    # NumPy arrays work too: copied in, and copied back because the kernel writes y.
    y_np = np.zeros(8, np.float32)
    saxpy.forall(8)(3.0, np.arange(8, dtype=np.float32), y_np)
    print(f"on NumPy arrays: {y_np}")
    assert np.array_equal(y_np, 3 * np.arange(8, dtype=np.float32))

    ny, nx = 48, 64
    img = ctx.zeros((ny, nx))
    waves[((nx + 15) // 16, (ny + 15) // 16), (16, 16)](img, 0.2)
    yy, xx = np.mgrid[:ny, :nx].astype(np.float32)
    err2 = np.abs(img.numpy() - np.sin(0.2 * xx) * np.cos(0.2 * yy)).max()
    print(f"2-d launch on {ny}x{nx}: max |GPU - NumPy| = {err2:.2e}")
    assert err2 < 1e-5, "waves disagrees with NumPy"

    print("the GLSL that ran (python -m vkpersist emit-glsl tutorials/04_first_kernel.py:saxpy):")
    print(saxpy.glsl())
    print("lesson 4 OK")


if __name__ == "__main__":
    main()
