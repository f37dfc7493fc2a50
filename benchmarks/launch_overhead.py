"""Launch overhead: µs per launch of a tiny kernel (one workgroup of 64 invocations).

    python benchmarks/launch_overhead.py [--device SELECTOR] [--iterations N]

Rows, all measured in this run on the same device:
  raw Vulkan      pre-recorded command buffer, vkQueueSubmit + vkWaitForFences +
                  vkResetFences through the `vulkan` binding (the baseline)
  kernel sync     @vkp.kernel launch + ctx.synchronize(), every launch
  kernel async    @vkp.kernel launches back to back, one synchronize() at the end (those
                  made while the device is busy go out together: vk/deferral.py)
  ... new scalar  the same with a different scalar argument each launch (recorded each time)
  ... batched     those launches inside `with ctx.batched():` (one submission at the end)
  glsl sync       vkp.lowlevel.glsl_kernel launch + synchronize()
  CuPy sync/async the same kernel as a cupy.RawKernel, where CuPy is installed (the GPU
                  machine): the figure a CUDA user knows
Targets (issue "Kernel language"): kernel sync within 1.3x raw on lavapipe; on the H200
<= 40 µs sync and <= 15 µs per async launch; issue 21: <= 25 µs sync, <= 8 µs async.
"""
from __future__ import annotations

import argparse
import statistics

import numpy as np

import vkpersist as vkp
from vkpersist.vk.baseline import prerecorded_submit_wait_us
from _device import selector                  # benchmarks/_device.py
from _common import cupy_launch_rows, per_launch_us   # benchmarks/_common.py


@vkp.kernel
def bump(x: vkp.Array[vkp.f32], by: vkp.f32):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] += by


BUMP_GLSL = """#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform P { float by; };
layout(std430, binding = 0) buffer X { float x[]; };
void main() { x[gl_GlobalInvocationID.x] += by; }
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--iterations", type=int, default=2000)
    args = parser.parse_args()
    ctx = vkp.Context(selector(args.device))
    n = args.iterations
    x = ctx.zeros(64)
    launch = bump[1, 64]
    launch(x, 1.0)
    ctx.synchronize()

    def kernel_sync(k):
        for _ in range(k):
            launch(x, 1.0)
            ctx.synchronize()

    def kernel_async(k):
        for _ in range(k):
            launch(x, 1.0)
        ctx.synchronize()

    def kernel_batched(k):
        # the same launches inside ctx.batched(): one command buffer, one submission
        with ctx.batched():
            for i in range(k):
                launch(x, float(i & 1023))
        ctx.synchronize()

    def kernel_async_varying(k):
        # a new scalar each launch (a time step, an iteration count): a new push-constant
        # value, so a command buffer is recorded per launch
        for i in range(k):
            launch(x, float(i & 1023))
        ctx.synchronize()

    def kernel_sync_varying(k):
        for i in range(k):
            launch(x, float(i & 1023))
            ctx.synchronize()

    glsl = vkp.lowlevel.glsl_kernel(BUMP_GLSL, ctx=ctx)

    def glsl_sync(k):
        for _ in range(k):
            glsl[1](x, by=1.0)
            ctx.synchronize()

    plan = next(iter(bump._plans_on(ctx).values()))
    bound = [x.buffer] + ([plan.status.buffer] if plan.status is not None else [])
    ready = plan.pipeline.command_buffer(bound, (1, 1, 1),
                                         plan.packer.pack(1.0, 64))
    raw = statistics.median(prerecorded_submit_wait_us(ctx, ready, n) for _ in range(5))
    rows = [("raw Vulkan (pre-recorded, binding calls)", raw),
            ("kernel sync (launch + synchronize)", per_launch_us(kernel_sync, n)),
            ("kernel async (per launch)", per_launch_us(kernel_async, n)),
            ("kernel sync, a new scalar each launch", per_launch_us(kernel_sync_varying, n)),
            ("kernel async, a new scalar each launch", per_launch_us(kernel_async_varying, n)),
            ("kernel async inside ctx.batched()", per_launch_us(kernel_batched, n)),
            ("glsl_kernel sync", per_launch_us(glsl_sync, n))]
    rows += cupy_launch_rows(n)
    expected = x.numpy()[0]
    assert expected > 0 and np.all(x.numpy() == expected), "launches lost updates"
    print(f"launch overhead on {ctx.name} ({ctx.info.driver_info or ctx.info.driver}), "
          f"{n} launches x 5, median µs per launch\n")
    print(f"{'':44s} {'µs/launch':>10s} {'vs raw':>8s}")
    for name, us in rows:
        print(f"{name:44s} {us:10.1f} {us / raw:7.2f}x")
    ctx.close()


if __name__ == "__main__":
    main()
