"""`python -m vkpersist doctor`: check each device end to end and say what vkpersist will use.

Per device: compile a shader, dispatch it and check the result against NumPy, measure copy
bandwidth, and run the host->running-shader visibility self-test on every host-visible
memory type, which decides where controls and commands will live.
"""
from __future__ import annotations

import time

import numpy as np

from .._errors import VkPersistError
from . import visibility
from .context import Context
from .devices import list_devices
from .glsl_kernel import GLSLKernel
from .glslang import compiler

_COPY = """#version 450
layout(local_size_x = 256) in;
layout(push_constant) uniform P { uint n; };
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };
void main() {
    uint stride = gl_NumWorkGroups.x * 256u;
    for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) dst[i] = src[i];
}
"""
_SAXPY = """#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform P { float a; uint n; };
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
void main() { uint i = gl_GlobalInvocationID.x; if (i < n) y[i] = a * x[i] + y[i]; }
"""


def _bandwidth(ctx: Context, kernel: GLSLKernel, dst_memory: str) -> tuple[float, int]:
    info = ctx.info
    nbytes = 64 << 20 if info.kind == "cpu" else 1 << 30
    nbytes = min(nbytes, info.max_storage_buffer_range // 16 * 16,
                 info.heaps[info.memory_types[info.memory_kinds["device"]].heap].size // 8)
    n = nbytes // 16
    src = ctx.zeros(n * 4, np.float32)
    dst = ctx.empty(n * 4, np.float32, memory=dst_memory)
    groups = min((n + 255) // 256, info.max_workgroup_count[0], 65535)
    kernel[groups](src, dst, n=n)
    ctx.synchronize()
    best = float("inf")
    for _ in range(3):
        reps = 10
        t = time.perf_counter()
        for _ in range(reps):
            kernel[groups](src, dst, n=n)
        ctx.synchronize()
        best = min(best, (time.perf_counter() - t) / reps)
    src.free()
    dst.free()
    return nbytes / best / 1e9, nbytes


def check_device(index: int, out=print) -> bool:
    ok = True
    with Context(index) as ctx:
        info = ctx.info
        out(f"{info.summary()}  Vulkan {info.vulkan_version}")
        try:
            t = time.perf_counter()
            saxpy = GLSLKernel(_SAXPY, name="doctor_saxpy")
            copy = GLSLKernel(_COPY, name="doctor_copy")
            out(f"  compile     ok   {compiler()[2]}, {1e3 * (time.perf_counter() - t):.0f} ms")
        except VkPersistError as exc:
            out(f"  compile     FAILED: {exc}")
            return False
        try:
            n = 1 << 20
            x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
            y = np.ones(n, np.float32)
            saxpy[(n + 63) // 64](ctx.asarray(x), dy := ctx.asarray(y), a=2.5, n=n)
            got = dy.numpy()
            good = np.allclose(got, np.float32(2.5) * x + y, rtol=1e-6, atol=1e-6)
            ok &= good
            out(f"  dispatch    {'ok  ' if good else 'FAILED'} saxpy on {n:,} floats "
                f"{'matches' if good else 'does NOT match'} NumPy")
        except VkPersistError as exc:
            out(f"  dispatch    FAILED: {exc}")
            return False
        parts = []
        for memory in ("device", "host"):
            gbs, nbytes = _bandwidth(ctx, copy, memory)
            parts.append(f"device->{memory} {gbs:.1f} GB/s")
        out(f"  bandwidth   {', '.join(parts)} (copy kernel, {nbytes >> 20} MiB)")
        out("  host writes seen by a running shader (bounded self-test):")
        results = []
        for mt in visibility.preferred_order(info):
            r = visibility.probe(ctx, mt)
            results.append(r)
            verdict = (f"live, round trip median {r.round_trip_us:.1f} us, p99 {r.p99_us:.1f} us"
                       if r.live else f"NOT live: {r.detail}")
            out(f"    type {r.memory_type} {r.flags} ({r.kind}): {verdict}")
        channel = visibility.control_channel(results, info)
        if channel is None:
            out("  control channel: none live -> commands are delivered between dispatches")
        else:
            out(f"  control channel: {channel.kind} memory (type {channel.memory_type}), live")
        if ctx.target.loop_guard:
            out("  note: lavapipe ends every loop after 65,535 iterations per invocation; "
                "persistent programs run there in short epochs")
    return ok


def main(device=None) -> int:
    infos = list_devices()
    if device is not None:
        from .devices import select_device
        infos = [select_device(device)]
    print(f"vkpersist doctor: {len(infos)} device(s)\n")
    ok = True
    for info in infos:
        try:
            ok &= check_device(info.index)
        except VkPersistError as exc:
            print(f"  FAILED: {type(exc).__name__}: {exc}")
            ok = False
        print()
    print("all checks passed" if ok else "some checks FAILED")
    return 0 if ok else 1
