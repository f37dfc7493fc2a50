"""`make demo` until the FDTD example lands: list the devices, run a kernel, check it."""
from __future__ import annotations

import time

import numpy as np

from . import _cli
from .vk.context import default_context
from .vk.glsl_kernel import glsl_kernel

SOURCE = """#version 450
layout(local_size_x = 256) in;
layout(push_constant) uniform Params { float a; uint n; };
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def main() -> int:
    print("Vulkan devices:")
    _cli.devices()
    ctx = default_context()
    print(f"\nRunning saxpy (y = a*x + y) on {ctx.name}:")
    print("\n".join("    " + line for line in SOURCE.strip().splitlines()))
    n = 1 << 22
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    dx, dy = ctx.asarray(x), ctx.asarray(y)
    saxpy = glsl_kernel(SOURCE, name="saxpy")
    groups = (n + 255) // 256
    saxpy[groups](dx, dy, a=2.0, n=n)
    ctx.synchronize()
    reps = 20
    t = time.perf_counter()
    for _ in range(reps):
        saxpy[groups](dx, dy, a=2.0, n=n)
    ctx.synchronize()
    dt = (time.perf_counter() - t) / reps
    got = dy.numpy()
    want = y.copy()
    for _ in range(reps + 1):
        want = np.float32(2.0) * x + want
    err = float(np.max(np.abs(got - want) / (1 + np.abs(want))))
    ok = err < 1e-5
    print(f"\n{n:,} elements, {dt * 1e3:.2f} ms per launch "
          f"({3 * 4 * n / dt / 1e9:.1f} GB/s), {reps + 1} launches")
    print(f"y[:4] = {got[:4]}  (NumPy: {want[:4]})")
    print(f"max relative error vs NumPy: {err:.1e} -> {'OK' if ok else 'MISMATCH'}")
    return 0 if ok else 1
