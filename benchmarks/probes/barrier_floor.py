"""What one grid barrier costs: native CUDA, hand-written Vulkan, and the megakernel's step.

    python benchmarks/probes/barrier_floor.py [--device SELECTOR] [--groups 65 132 257]
                                       [--local 512] [--steps 20000] [--seconds 1]
                                       [--knobs] [--decompose]

Issue 21 asks the megakernel for a step floor of 1.3 µs per dependent stage and 0.95x the
native CUDA persistent scheme. This separates the three layers a step's barrier goes
through, each measured in this run on one device, every workgroup (block) co-resident:

  cuda acqrel     (CuPy and a CUDA device) a CUDA kernel looping over `steps` grid barriers,
                  each after one store by one thread: __syncthreads, one release add on
                  an arrival counter, acquire-load polls, __syncthreads (the native
                  scheme of benchmarks/programs.py)
  cuda fence      the same with __threadfence, a relaxed add, volatile polls, __threadfence
  vulkan <v>      the same loop as a GLSL shader (vkpersist.lowlevel.glsl_kernel), barrier
                  variant <v> (VARIANTS below): the megakernel's barrier alone, and other
                  orderings of it
  --decompose     also rows that leave out one ordering, or every one ("UNORDERED": the
                  barrier is then not one; they time its parts), and CUDA's "relaxed"
                  (relaxed add and polls, no fence): where the GLSL barrier's extra
                  0.3 µs over CUDA's goes; and two orderings at queue-family scope
  megakernel      a vkpersist Program whose one or two dependent stages each store one
                  element (benchmarks/programs.py's floor): the barriers with the step
                  boundary around them; one barrier per stage

µs per barrier: each loop row is timed at `steps` and at a tenth of it and the difference
divided, so launch and wait costs cancel (best of three). With --knobs the megakernel floor
is measured again with each target setting of the step changed alone. A hand-written grid
barrier waits for workgroups that may never run if not all fit at once, so the loops run
only where they do: the Vulkan ones where the megakernel's occupancy discovery saw every
workgroup join, the CUDA ones where threads and registers per SM allow (and a barrier
that still waits too long gives up, and then every later one).
"""
from __future__ import annotations

import argparse
import dataclasses
import pathlib
import sys
import time

import numpy as np

import vkpersist as vkp
from vkpersist import lowlevel

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))    # benchmarks/
from _device import selector  # noqa: E402
from _common import (GRID_SYNC_GLSL, LAVAPIPE_SPIN_CAP, SPIN_CAP,  # noqa: E402
                     cupy_or_none)
from programs import bench_floor, cuda_resident_blocks  # noqa: E402

GLSL = r"""
#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint steps; uint groups; };
layout(std430, binding = 0) coherent buffer S { uint sched[]; };   // [32]: arrivals, [64]: failures
layout(std430, binding = 1) nonprivate buffer D { float data[]; };
""" + GRID_SYNC_GLSL + r"""
void main() {
    uint target = 0u;
    for (uint t = 0u; t < steps; t++) {
        if (gl_GlobalInvocationID.x == 0u) data[t & 1u] = data[(t + 1u) & 1u] + 1.0;
        grid_sync(target);
    }
}
"""
VARIANTS = {"megakernel's": 0, "acquire polls": 1, "plain group barrier": 2,
            "release fence, relaxed add": 3}
# --decompose: the same orderings at queue-family scope (every workgroup of a dispatch runs
# on one queue, so it orders them as device scope does; H100: the same cost)
SCOPES = {"megakernel's, queue-family scope": (0, "gl_ScopeQueueFamily"),
          "acquire polls, queue-family scope": (1, "gl_ScopeQueueFamily")}
# Rows that leave out an ordering the barrier needs: they time what each part of the
# megakernel's barrier costs (--decompose), and are never a scheme to adopt.
UNORDERED = {"UNORDERED relaxed add": 4, "UNORDERED no acquire after": 5,
             "UNORDERED no ordering at all": 6}

CUDA = r"""
// An arrival with `red.ADD.gpu`, polls with `ld.LOAD.gpu`: sync_acqrel (release add,
// acquire polls) and, timing only, sync_relaxed (no memory ordering: what the loop costs
// without it).
#define SYNC_ORDERED(NAME, ADD, LOAD) \
__device__ __forceinline__ bool NAME(unsigned int* arrived, unsigned int target) { \
    __syncthreads(); \
    bool ok = true; \
    if (threadIdx.x == 0) { \
        asm volatile("red." ADD ".gpu.global.add.u32 [%0], %1;" :: "l"(arrived), "r"(1u) : "memory"); \
        unsigned int v, spins = 0u; \
        do { asm volatile("ld." LOAD ".gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(arrived) : "memory"); } \
        while (v < target && ++spins < SPIN_CAP && ((spins & 1023u) || !*(volatile unsigned int*)(arrived + 32))); \
        ok = v >= target; \
    } \
    __syncthreads(); \
    return ok; \
}
SYNC_ORDERED(sync_acqrel, "release", "acquire")
SYNC_ORDERED(sync_relaxed, "relaxed", "relaxed")
__device__ __forceinline__ bool sync_fence(unsigned int* arrived, unsigned int target) {
    __syncthreads();
    bool ok = true;
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(arrived, 1u);
        unsigned int spins = 0u;
        while (*(volatile unsigned int*)arrived < target && ++spins < SPIN_CAP
               && ((spins & 1023u) || !*(volatile unsigned int*)(arrived + 32))) {}
        ok = *(volatile unsigned int*)arrived >= target;
        __threadfence();
    }
    __syncthreads();
    return ok;
}
#define LOOP(SYNC) \
    unsigned int target = 0u; \
    for (int t = 0; t < steps; t++) { \
        if (blockIdx.x == 0 && threadIdx.x == 0) data[t & 1] = data[(t + 1) & 1] + 1.f; \
        if (!SYNC(arrived, target += gridDim.x) && threadIdx.x == 0) atomicAdd(arrived + 32, 1u); \
    }
extern "C" __global__ void loop_acqrel(unsigned int* arrived, float* data, int steps) { LOOP(sync_acqrel) }
extern "C" __global__ void loop_fence(unsigned int* arrived, float* data, int steps) { LOOP(sync_fence) }
extern "C" __global__ void loop_relaxed(unsigned int* arrived, float* data, int steps) { LOOP(sync_relaxed) }
"""


def per_barrier(run, steps: int) -> float:
    """µs per barrier: (time of `steps` - time of steps/10) / (0.9 steps), best of three."""
    short = max(1, steps // 10)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        run(short)
        t1 = time.perf_counter()
        run(steps)
        t2 = time.perf_counter()
        best = min(best, ((t2 - t1) - (t1 - t0)) / (steps - short))
    return best * 1e6


def vulkan_rows(ctx, groups: int, local: int, steps: int, decompose: bool = False) -> list:
    sched = ctx.zeros(128, np.uint32)
    data = ctx.zeros(2, np.float32)
    cap = LAVAPIPE_SPIN_CAP if ctx.target.loop_guard else SPIN_CAP
    out = []
    variants = {**VARIANTS, **({**SCOPES, **UNORDERED} if decompose else {})}
    for name, variant in variants.items():
        variant, scope = variant if isinstance(variant, tuple) else (variant, "gl_ScopeDevice")
        k = lowlevel.glsl_kernel(GLSL, defines={"VARIANT": variant, "SPIN_CAP": f"{cap}u",
                                                "SCOPE": scope},
                                 name=f"barrier_floor_{variant}_{scope[8:]}", ctx=ctx,
                                 loop_guard=False)

        def run(n):
            sched.fill(0)
            k[groups, local](sched, data, steps=n, groups=groups)
            ctx.synchronize()
            failed = int(sched.numpy()[64])
            if failed:
                raise RuntimeError(f"vulkan {name}: {failed} barrier(s) gave up: are all "
                                   f"{groups} workgroups of {local} co-resident?")
        run(10)
        out.append((f"vulkan {name}", per_barrier(run, steps)))
    return out


def cuda_rows(cp, groups: int, local: int, steps: int, decompose: bool = False) -> list:
    mod = cp.RawModule(code=CUDA, options=(f"-DSPIN_CAP={SPIN_CAP}u",))
    arrived = cp.zeros(64, cp.uint32)
    data = cp.zeros(2, cp.float32)
    out = []
    for order in ("acqrel", "fence", *(["relaxed"] if decompose else [])):
        kern = mod.get_function(f"loop_{order}")
        resident = cuda_resident_blocks(cp, kern, local)
        if groups > resident:
            print(f"  (cuda {order}: {groups} blocks of {local}, but {resident} run at once "
                  "here: not run)")
            continue

        def run(n):
            arrived.fill(0)
            kern((groups,), (local,), (arrived, data, np.int32(n)))
            cp.cuda.Device().synchronize()
            if int(arrived[32]):
                raise RuntimeError(f"cuda {order}: barriers gave up: are all {groups} blocks "
                                   f"of {local} co-resident?")
        run(10)
        out.append((f"cuda {order}", per_barrier(run, steps)))
    return out


def megakernel_rows(ctx, groups: int, local: int, seconds: float,
                    knobs: bool) -> tuple[list, int]:
    """(the floor rows, the fewest workgroups that joined any of their runs)."""
    settings = [("", {})]
    if knobs:
        t = ctx.target
        polls = 8 if t.spin_unroll == 1 else 1
        settings += [("no dedicated planner", {"dedicated_planner_from": None}),
                     (f"{polls} poll(s) per loop", {"spin_unroll": polls}),
                     (f"steps ahead {3 - t.steps_ahead}", {"steps_ahead": 3 - t.steps_ahead})]
    default, out, fewest = ctx.target, [], groups
    for label, change in settings:
        ctx.target = dataclasses.replace(default, **change)
        try:
            for stages in (1, 2):
                us, _, joined = bench_floor(ctx, stages, seconds, groups, local)
                fewest = min(fewest, joined)
                out.append((f"megakernel, {stages} stage(s){', ' + label if label else ''}",
                            us / stages))
        finally:
            ctx.target = default
    return out, fewest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--groups", type=int, nargs="+", default=None,
                    help="workgroups (blocks), every one co-resident (default: 65 132 257 on "
                         "GPUs; 1 on lavapipe, whose pool threads need not run at once)")
    ap.add_argument("--local", type=int, default=None,
                    help="invocations per workgroup (default 512; 64 on lavapipe)")
    ap.add_argument("--steps", type=int, default=None,
                    help="barriers per timed loop (default 20000)")
    ap.add_argument("--seconds", type=float, default=1.0, help="per megakernel floor row")
    ap.add_argument("--knobs", action="store_true",
                    help="also the megakernel floor with each step setting changed alone")
    ap.add_argument("--decompose", action="store_true",
                    help="also loops that leave out one ordering of the barrier, or all "
                         "(UNORDERED rows; CUDA's 'relaxed'): what each part costs")
    args = ap.parse_args()
    if args.groups and min(args.groups) < 1 or args.local is not None and args.local < 1:
        ap.error("--groups and --local take positive numbers")
    if args.steps is not None and args.steps < 100:
        ap.error("--steps takes at least 100 (the timed difference is that of steps and "
                 "steps/10 barriers)")
    ctx = vkp.Context(selector(args.device))
    at_once = ctx.target.workgroups_at_once
    groups = args.groups or ([1] if at_once else [65, 132, 257])
    local = args.local or (64 if at_once else 512)
    steps = args.steps or 20000
    cp = cupy_or_none()
    print(f"device: {ctx.info.name}; {local} invocations per workgroup, {steps} barriers "
          "per timed loop")
    print(f"{'groups':>6}  {'row':<50} {'µs/barrier':>10}")
    for g in groups:
        # first: the megakernel finds out how many workgroups run at once (occupancy
        # discovery); the hand-written loops need them all, or their barriers never open
        mega, joined = megakernel_rows(ctx, g, local, args.seconds, args.knobs)
        rows = cuda_rows(cp, g, local, steps, args.decompose) if cp is not None else []
        if joined >= g:
            rows += vulkan_rows(ctx, g, local, steps, args.decompose)
        else:
            print(f"  (vulkan: only {joined} of {g} workgroups of {local} ran at once in "
                  "the megakernel: the hand-written loops not run)")
        for name, us in rows + mega:
            print(f"{g:>6}  {name:<50} {us:>10.2f}")


if __name__ == "__main__":
    main()
