"""Waits never hang: a launch that outlives the timeout raises DeviceTimeout and can still
be waited for afterwards."""
import time

import numpy as np
import pytest

import vkpersist as vkp

# Each invocation loops `iters` times (kept below lavapipe's 65,535-iteration limit).
BUSY = """#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform P { uint iters; };
layout(std430, binding = 0) buffer A { float a[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float v = a[i];
    for (uint k = 0u; k < iters; ++k) v = v * 0.999999 + 1e-6;
    a[i] = v;
}
"""


def _calibrated(ctx, k, a):
    """A launch function whose work takes about 0.3 s on this device."""
    groups = min(a.size // 64, ctx.info.max_workgroup_count[0])
    t = time.perf_counter()
    k[groups](a, iters=60_000)
    ctx.synchronize()
    once = time.perf_counter() - t
    reps = max(1, min(400, round(0.3 / once)))

    def launch():
        for _ in range(reps):
            k[groups](a, iters=60_000)
    return launch


def test_synchronize_times_out_then_completes(ctx):
    k = vkp.glsl_kernel(BUSY)
    a = ctx.zeros(64 * 256 if ctx.info.kind == "cpu" else 64 * 65535)
    slow = _calibrated(ctx, k, a)
    t = time.perf_counter()
    slow()
    ctx.synchronize()
    full = time.perf_counter() - t
    if full < 0.1:
        pytest.skip(f"could not make work that outlasts a short timeout ({full:.3f} s)")
    slow()
    t = time.perf_counter()
    with pytest.raises(vkp.DeviceTimeout, match="did not finish within 0.01 s"):
        ctx.synchronize(timeout=0.01)
    assert time.perf_counter() - t < 0.5 * full
    ctx.synchronize()                        # the work finishes and the context stays usable
    assert np.isfinite(a.numpy()).all()
    with pytest.raises(vkp.DeviceTimeout):   # the module-level wait honours its timeout too
        slow()
        vkp.synchronize(timeout=0.01)
    vkp.synchronize()
