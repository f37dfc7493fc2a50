"""The megakernel's stencil against the same scheme written by hand, in CUDA and in GLSL.

    python benchmarks/probes/stencil_schemes.py [--device SELECTOR] [--sizes 32 64 128]
                                         [--seconds 1]

benchmarks/programs.py's two-sweep 7-point stencil (same arithmetic, same order of
additions), persistent, one workgroup (block) per 512 cells up to two per SM, the cells
of each in a grid-stride loop as the megakernel's. After each sweep, one of:

  grid        a grid barrier: workgroup barrier, one release add on an arrival counter,
              polls, an acquire, workgroup barrier (CUDA: red.release.gpu and
              ld.acquire.gpu; GLSL: the megakernel's barrier)
  neighbour   neighbour-only synchronisation (issue 21): each workgroup stores its sweep
              count with release semantics in a flag of its own, then its first 32
              invocations wait (acquire) for the flags of the workgroups that own cells
              within one i-plane of its own (n² cells each way, wrapping like the grid-stride
              loop); those are the only ones whose writes it reads and whose reads its next
              writes could overtake
  none        no synchronisation at all: the sweeps alone (wrong results; timing only)

Rows: `cuda <sync> <sync>` (after sweep 1, after sweep 2), `glsl <sync> <sync>` (n a
compile-time constant, as the megakernel's shapes are), `megakernel` (prog.run in
persistent mode), and the CUDA graph of benchmarks/programs.py as the baseline. Rows
marked x4 handle an invocation's cells four at a time (the loads of four cells issued
before any store: at 128³ an invocation has 16 cells a sweep, one after another otherwise). Each row's
state after 100 steps is compared bit for bit with the graph's (not the `none` rows). The
hand-written shaders run only where all their workgroups run at once (GLSL: the
megakernel's occupancy discovery saw them join; CUDA: threads and registers per SM).
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

import vkpersist as vkp
from vkpersist import lowlevel

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))    # benchmarks/
from _device import selector  # noqa: E402
from _common import cupy_or_none  # noqa: E402
from programs import (ALPHA, bench_cuda_graph, bench_floor,  # noqa: E402
                      bench_program, cuda_resident_blocks)

LOCAL = 512
CAP = 1 << 22                  # polls before a wait gives up and counts a failure; every later
                               # wait then gives up within 1,024 polls (no hang). The loops run
                               # only where every workgroup is known to run at once
SYNCS = {"grid": 0, "neighbour": 1, "none": 3}
SCHEMES = [("grid", "grid", 1), ("neighbour", "grid", 1), ("neighbour", "neighbour", 1),
           ("none", "none", 1), ("grid", "grid", 4), ("none", "none", 4)]   # unroll 1 / 4

CUDA = r"""
// the state's loads (-DLOADS=, benchmarks/probes/sweep_loads.py): 0 plain (through L1), 1 __ldcg
// (L2 only), 2 ld.relaxed.gpu (coherent at device scope)
#if LOADS == 1
#define LD(p, i) __ldcg((p) + (i))
#elif LOADS == 2
__device__ __forceinline__ float ld_relaxed(const float* p) {
    float v; asm("ld.relaxed.gpu.global.f32 %0, [%1];" : "=f"(v) : "l"(p)); return v;
}
#define LD(p, i) ld_relaxed((p) + (i))
#else
#define LD(p, i) (p)[i]
#endif
__device__ __forceinline__ float cell_value(const float* src, float alpha, int n, int g) {
    int i = g / (n * n), j = (g / n) % n, k = g % n;
    float c = LD(src, g);
    float s = (i > 0 ? LD(src, g - n * n) : 0.f) + (i < n - 1 ? LD(src, g + n * n) : 0.f)
            + (j > 0 ? LD(src, g - n) : 0.f) + (j < n - 1 ? LD(src, g + n) : 0.f)
            + (k > 0 ? LD(src, g - 1) : 0.f) + (k < n - 1 ? LD(src, g + 1) : 0.f);
    return c + alpha * (s - 6.f * c);
}
// one sweep of the invocation's cells, four at a time: their loads issued together
__device__ __forceinline__ void sweep4(const float* src, float* dst, float alpha, int n,
                                       int first, int stride, int cells) {
    for (int g = first; g < cells; g += 4 * stride) {
        float v[4];
#pragma unroll
        for (int u = 0; u < 4; u++) if (g + u * stride < cells) v[u] = cell_value(src, alpha, n, g + u * stride);
#pragma unroll
        for (int u = 0; u < 4; u++) if (g + u * stride < cells) dst[g + u * stride] = v[u];
    }
}
__device__ __forceinline__ void grid_sync(unsigned* w, unsigned target) {
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("red.release.gpu.global.add.u32 [%0], %1;" :: "l"(w), "r"(1u) : "memory");
        unsigned v, spins = 0u;
        do { asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(w) : "memory"); }
        while (v < target && ++spins < CAP && ((spins & 1023u) || !*(volatile unsigned*)(w + 64)));
        if (v < target) atomicAdd(w + 64, 1u);
    }
    __syncthreads();
}
__device__ __forceinline__ void neighbour_sync(unsigned* w, unsigned count, int reach) {
    unsigned* flags = w + 128;
    __syncthreads();
    if (threadIdx.x == 0)
        asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(flags + blockIdx.x), "r"(count) : "memory");
    if (threadIdx.x < 32) {
        int groups = gridDim.x;
        for (int d = -reach + (int)threadIdx.x; d <= reach; d += 32) {
            int b = ((int)blockIdx.x + d) % groups;
            if (b < 0) b += groups;
            unsigned v, spins = 0u;
            do { asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flags + b) : "memory"); }
            while (v < count && ++spins < CAP && ((spins & 1023u) || !*(volatile unsigned*)(w + 64)));
            if (v < count) atomicAdd(w + 64, 1u);
        }
    }
    __syncthreads();
}
#define SYNC(how) if (how == 0) grid_sync(w, target += gridDim.x); \
                  else if (how == 1) neighbour_sync(w, ++count, reach);
#define SWEEP(src, dst) if (unroll == 4) sweep4(src, dst, alpha, n, first, stride, cells); \
    else for (int g = first; g < cells; g += stride) dst[g] = cell_value(src, alpha, n, g);
extern "C" __global__ void persistent(float* a, float* b, float alpha, int n, int steps,
                                      unsigned* w, int sync1, int sync2, int reach, int unroll) {
    int cells = n * n * n, stride = gridDim.x * blockDim.x;
    int first = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned target = 0u, count = 0u;
    for (int t = 0; t < steps; t++) {
        SWEEP(a, b)
        SYNC(sync1)
        SWEEP(b, a)
        SYNC(sync2)
    }
}
"""

GLSL = r"""
#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint steps; uint groups; int sync1; int sync2; int reach; float alpha; };
layout(std430, binding = 0) coherent buffer W { uint w[]; };   // [0] arrivals, [64] failures, [128 + g] flags
layout(std430, binding = 1) STATE_QUALIFIERS buffer A_ { float A[]; };   // nonprivate: the
layout(std430, binding = 2) STATE_QUALIFIERS buffer B_ { float B[]; };   // megakernel's
#if ALIAS       // loads through readonly aliases of A and B: bindings 3 and 4 bound to the same
                // buffers (ALIAS 1), or blocks declared on bindings 1 and 2 again (ALIAS 2)
layout(std430, binding = 5 - 2 * ALIAS) ALIAS_QUALIFIERS readonly buffer Ar_ { float Ar[]; };
layout(std430, binding = 6 - 2 * ALIAS) ALIAS_QUALIFIERS readonly buffer Br_ { float Br[]; };
#define SRC_A Ar
#define SRC_B Br
#else
#define SRC_A A
#define SRC_B B
#endif
#define DEV gl_ScopeDevice
#define BUF gl_StorageSemanticsBuffer
#define GROUP_BARRIER controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, BUF | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible)
#define SWEEP(SRC, DST) \
    for (int g = first; g < cells; g += stride) { \
        int i = g / (N * N), j = (g / N) % N, k = g % N; \
        float c = SRC[g]; \
        float s = (i > 0 ? SRC[g - N * N] : 0.0) + (i < N - 1 ? SRC[g + N * N] : 0.0) \
                + (j > 0 ? SRC[g - N] : 0.0) + (j < N - 1 ? SRC[g + N] : 0.0) \
                + (k > 0 ? SRC[g - 1] : 0.0) + (k < N - 1 ? SRC[g + 1] : 0.0); \
        DST[g] = c + alpha * (s - 6.0 * c); \
    }
#if UNROLL == 4         // the invocation's cells four at a time, their loads issued together
#define VALUE_FN(SRC) float value_##SRC(int g) { \
        int i = g / (N * N), j = (g / N) % N, k = g % N; \
        float c = SRC[g]; \
        float s = (i > 0 ? SRC[g - N * N] : 0.0) + (i < N - 1 ? SRC[g + N * N] : 0.0) \
                + (j > 0 ? SRC[g - N] : 0.0) + (j < N - 1 ? SRC[g + N] : 0.0) \
                + (k > 0 ? SRC[g - 1] : 0.0) + (k < N - 1 ? SRC[g + 1] : 0.0); \
        return c + alpha * (s - 6.0 * c); \
    }
VALUE_FN(SRC_A)
VALUE_FN(SRC_B)
#undef SWEEP
#define SWEEP(SRC, DST) \
    for (int g = first; g < cells; g += 4 * stride) { \
        int g1 = g + stride, g2 = g1 + stride, g3 = g2 + stride; \
        float v0 = value_##SRC(g); \
        float v1 = g1 < cells ? value_##SRC(g1) : 0.0; \
        float v2 = g2 < cells ? value_##SRC(g2) : 0.0; \
        float v3 = g3 < cells ? value_##SRC(g3) : 0.0; \
        DST[g] = v0; \
        if (g1 < cells) DST[g1] = v1; \
        if (g2 < cells) DST[g2] = v2; \
        if (g3 < cells) DST[g3] = v3; \
    }
#endif

void grid_sync(inout uint target) {
    GROUP_BARRIER;
    if (gl_LocalInvocationIndex == 0u) {
        atomicAdd(w[0], 1u, DEV, BUF, gl_SemanticsRelease | gl_SemanticsMakeAvailable);
        target += groups;
        uint spins = 0u;
        while (atomicLoad(w[0], DEV, gl_StorageSemanticsNone, gl_SemanticsRelaxed) < target && ++spins < CAP
               && ((spins & 1023u) != 0u || w[64] == 0u)) {}
        if (spins >= CAP) atomicAdd(w[64], 1u);
        memoryBarrier(DEV, BUF, gl_SemanticsAcquire | gl_SemanticsMakeVisible);
    }
    GROUP_BARRIER;
}
void neighbour_sync(uint count) {
    GROUP_BARRIER;
    if (gl_LocalInvocationIndex == 0u)
        atomicStore(w[128u + gl_WorkGroupID.x], count, DEV, BUF, gl_SemanticsRelease | gl_SemanticsMakeAvailable);
    if (gl_LocalInvocationIndex < 32u) {
        int groups_ = int(groups);
        for (int d = -reach + int(gl_LocalInvocationIndex); d <= reach; d += 32) {
            int b = (int(gl_WorkGroupID.x) + d) % groups_;
            if (b < 0) b += groups_;
            uint spins = 0u;
            while (atomicLoad(w[128 + b], DEV, gl_StorageSemanticsNone, gl_SemanticsRelaxed) < count && ++spins < CAP
                   && ((spins & 1023u) != 0u || w[64] == 0u)) {}
            if (spins >= CAP) atomicAdd(w[64], 1u);
        }
        memoryBarrier(DEV, BUF, gl_SemanticsAcquire | gl_SemanticsMakeVisible);
    }
    GROUP_BARRIER;
}
#define SYNC(how) if (how == 0) grid_sync(target); else if (how == 1) neighbour_sync(++count);
void main() {
    int cells = N * N * N, stride = int(groups * gl_WorkGroupSize.x);
    int first = int(gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationIndex);
    uint target = 0u, count = 0u;
    for (uint t = 0u; t < steps; t++) {
        SWEEP(SRC_A, B)
        SYNC(sync1)
        SWEEP(SRC_B, A)
        SYNC(sync2)
    }
}
"""


def rate(run, seconds: float) -> float:
    """steps/s of `run(steps)`, growing steps until one call lasts seconds / 2."""
    steps = 64
    while True:
        t = time.perf_counter()
        run(steps)
        dt = time.perf_counter() - t
        if dt > seconds / 2 or steps > 1 << 24:
            return steps / dt
        steps *= 2 if dt > seconds / 20 else 8


def cuda_rows(cp, n, init, groups, reach, seconds, schemes=SCHEMES, loads=0, label=""):
    """[(name, steps/s, state after 100 steps, compare?)] of the CUDA kernel's `schemes`,
    its state loaded as `loads` says (see CUDA's LD)."""
    kern = cp.RawModule(code=CUDA, options=(f"-DCAP={CAP}u", f"-DLOADS={loads}")
                        ).get_function("persistent")
    if groups > cuda_resident_blocks(cp, kern, LOCAL):
        print(f"  (cuda: {groups} blocks of {LOCAL}, but "
              f"{cuda_resident_blocks(cp, kern, LOCAL)} run at once here: not run)")
        return []
    a, b = cp.asarray(init), cp.zeros_like(cp.asarray(init))
    w = cp.zeros(128 + groups, cp.uint32)
    out = []
    for s1, s2, unroll in schemes:
        def run(steps):
            w.fill(0)
            kern((groups,), (LOCAL,), (a, b, np.float32(ALPHA), np.int32(n), np.int32(steps),
                                       w, np.int32(SYNCS[s1]), np.int32(SYNCS[s2]),
                                       np.int32(reach), np.int32(unroll)))
            cp.cuda.Device().synchronize()
            if int(w[64]):
                raise RuntimeError(f"cuda {s1} {s2}: a wait gave up (blocks not co-resident?)")
        a.set(init)
        run(100)
        state = cp.asnumpy(a)
        out.append((f"cuda {s1} {s2}{' x4' * (unroll == 4)}{label}", rate(run, seconds), state,
                    s1 != "none"))
    return out


def glsl_kernels(ctx, n, qualifiers="nonprivate", alias=None, alias_binding="own") -> dict:
    """{unroll: the GLSL shader for n³ cells, its state buffers declared `qualifiers`, loaded
    through readonly aliases declared `alias` unless that is None: blocks on bindings of
    their own ("own") or on the state's bindings again ("same")}."""
    source = GLSL.replace("STATE_QUALIFIERS", qualifiers).replace("ALIAS_QUALIFIERS",
                                                                  alias or "")
    tag = "_".join(qualifiers.split()) or "private"
    if alias is not None:
        tag += f"_{alias_binding}_alias_" + "_".join(alias.split())
    defines = {"N": str(n), "CAP": f"{CAP}u",
               "ALIAS": 0 if alias is None else {"own": 1, "same": 2}[alias_binding]}
    return {u: lowlevel.glsl_kernel(source, defines=dict(defines, UNROLL=u),
                                    name=f"stencil_schemes_{n}_{u}_{tag}", ctx=ctx,
                                    loop_guard=False)
            for u in (1, 4)}


def glsl_rows(ctx, n, init, groups, reach, seconds, schemes=SCHEMES,
              qualifiers="nonprivate", label="", alias=None, alias_binding="own"):
    """As cuda_rows, the hand-written GLSL with its state buffers declared `qualifiers` (and
    loaded through aliases: see glsl_kernels)."""
    kernels = glsl_kernels(ctx, n, qualifiers, alias, alias_binding)
    a, b = ctx.asarray(init), ctx.zeros(init.shape, np.float32)
    w = ctx.zeros(128 + groups, np.uint32)
    aliases = (a, b) if alias is not None and alias_binding == "own" else ()
    out = []
    for s1, s2, unroll in schemes:
        kern = kernels[unroll]

        def run(steps):
            w.fill(0)
            kern[groups, LOCAL](w, a, b, *aliases, steps=steps, groups=groups, sync1=SYNCS[s1],
                                sync2=SYNCS[s2], reach=reach, alpha=ALPHA)
            ctx.synchronize()
            if int(w.numpy()[64]):
                raise RuntimeError(f"glsl {s1} {s2}: a wait gave up (workgroups not "
                                   "co-resident?)")
        a.copy_from(init)
        run(100)
        state = a.numpy()
        out.append((f"glsl {s1} {s2}{' x4' * (unroll == 4)}{label}", rate(run, seconds), state,
                    s1 != "none"))
    return out


def setup(doc: str, script: str, width: int):
    """(args, ctx, CuPy, SMs) of a benchmark comparing hand-written shaders with CUDA (this
    one, benchmarks/probes/sweep_loads.py); prints the device and the table's head."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--sizes", type=int, nargs="+", default=[32, 64, 128])
    ap.add_argument("--seconds", type=float, default=1.0)
    args = ap.parse_args()
    if min(args.sizes) < 2 or args.seconds <= 0:
        ap.error("--sizes take grid sides of 2 or more, --seconds a positive time")
    ctx = vkp.Context(selector(args.device))
    cp = cupy_or_none()
    if cp is None or ctx.target.workgroups_at_once is not None:
        sys.exit(f"{script} compares with CUDA: it needs CuPy, a CUDA device and a Vulkan GPU "
                 "(hand-written grid barriers assume every workgroup co-resident, which "
                 "lavapipe does not promise)")
    print(f"device: {ctx.info.name}; {LOCAL} invocations per workgroup")
    print(f"{'n':>4} {'row':<{width}} {'steps/s':>10} {'vs graph':>9}  same as graph")
    return args, ctx, cp, cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]


def print_rows(n, graph, ref, rows, width: int, note: str) -> None:
    """The CUDA graph's row, then each row's steps/s, ratio to it, and whether its state
    after 100 steps is the graph's (rows that do not synchronise: '-')."""
    print(f"{n:>4} {'cuda graph':<{width}} {graph:>10,.0f} {1:>8.2f}x  ({note})")
    for name, r, state, check in rows:
        same = ("yes" if np.array_equal(state, ref) else "NO") if check else "-"
        print(f"{n:>4} {name:<{width}} {r:>10,.0f} {r / graph:>8.2f}x  {same}")


def main() -> None:
    args, ctx, cp, sms = setup(__doc__, "stencil_schemes.py", 26)
    for n in args.sizes:
        init = np.random.default_rng(0).random((n, n, n)).astype(np.float32)
        groups = min(-(-n ** 3 // LOCAL), 2 * sms)
        reach = -(-(n * n) // LOCAL)      # workgroups one i-plane of cells spans
        graph, ref = bench_cuda_graph(cp, n, init, args.seconds)
        rows = cuda_rows(cp, n, init, groups, reach, args.seconds)
        # do `groups` workgroups of LOCAL run at once? The megakernel's discovery says
        joined = bench_floor(ctx, 1, 0.05, groups, LOCAL)[2]
        if joined >= groups:
            rows += glsl_rows(ctx, n, init, groups, reach, args.seconds)
        else:
            print(f"  (glsl: only {joined} of {groups} workgroups of {LOCAL} ran at once: "
                  "the hand-written shader not run)")
        r, note, state = bench_program(ctx, n, init, "persistent", args.seconds, None, None)
        rows.append((f"megakernel ({note.split(' inv')[0]})", r, state, True))
        print_rows(n, graph, ref, rows, 26,
                   f"{groups} workgroups below, neighbours within {reach} each way")


if __name__ == "__main__":
    main()
