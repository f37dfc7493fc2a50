"""Helpers that several benchmarks share; a helper that one script uses stays in that script.

A script in benchmarks/ imports this as `_common` (its folder is on sys.path when run as
`python benchmarks/x.py`); one in benchmarks/probes/ puts benchmarks/ on sys.path first.
`--device` is benchmarks/_device.py's.
"""
from __future__ import annotations

import statistics
import time


def cupy_or_none():
    """CuPy when it and a CUDA device are present, else None."""
    try:
        import cupy as cp
        if cp.cuda.runtime.getDeviceCount() == 0:
            return None
    except Exception:
        return None
    return cp


def median_us(fn, repeats: int, warm_s: float = 0.0) -> float:
    """The median of `repeats` timed calls after a warm-up call (it compiles and
    allocates) and, with `warm_s`, calls for that long first (a GPU starting from idle
    clocks ran the first row of numpy_functions.py 3x slow: sort 26-28 ms, 5.6 ms warm)."""
    fn()
    end = time.perf_counter() + warm_s
    while time.perf_counter() < end:
        fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def median_ms(fn, sync, repeats: int, warm_s: float = 0.3) -> float:
    """The median of `repeats` calls of fn followed by sync, in ms (median_us's timer),
    after `warm_s` of calls (the GPU's clocks)."""
    return median_us(lambda: (fn(), sync()), repeats, warm_s) / 1e3


def per_launch_us(fn, iterations: int, repeats: int = 5) -> float:
    """The median over `repeats` of fn(iterations)'s time divided by `iterations`, in µs:
    launch_overhead.py's timer, one call of fn making `iterations` launches."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn(iterations)
        times.append((time.perf_counter() - t) / iterations * 1e6)
    return statistics.median(times)


CUPY_BUMP = r'''extern "C" __global__ void bump(float* x, float by) {
    x[blockIdx.x * blockDim.x + threadIdx.x] += by;
}'''


def cupy_launch_rows(n: int) -> list:
    """launch_overhead.py's CuPy rows: (name, µs per launch) of a one-block RawKernel
    launched `n` times, synchronised each launch and back to back; [] without CuPy and a
    CUDA device."""
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception:          # no CuPy or no CUDA device: no baseline row
        return []
    k = cp.RawKernel(CUPY_BUMP, "bump")
    x = cp.zeros(64, cp.float32)
    k((1,), (64,), (x, cp.float32(1.0)))
    cp.cuda.Device().synchronize()

    def sync(m):
        for _ in range(m):
            k((1,), (64,), (x, cp.float32(1.0)))
            cp.cuda.Device().synchronize()

    def asyn(m):
        for _ in range(m):
            k((1,), (64,), (x, cp.float32(1.0)))
        cp.cuda.Device().synchronize()
    return [("CuPy RawKernel sync", per_launch_us(sync, n)),
            ("CuPy RawKernel async (per launch)", per_launch_us(asyn, n))]


SPIN_CAP = 1 << 22      # polls before a barrier gives up and counts a failure, after which
                        # every later barrier gives up within 1,024 polls (no hang); the
                        # loops run only where every workgroup is known to run at once
LAVAPIPE_SPIN_CAP = 60000   # below the ~65,535 iterations after which lavapipe ends a loop

# The grid barrier, VARIANT (probes/barrier_floor.py's VARIANTS) of its ordering at scope
# SCOPE: grid_sync() for a shader that declares the push constant `groups` (workgroups
# launched) and the buffer `sched` (sched[32]: arrivals, sched[64]: barriers that gave up
# after SPIN_CAP polls), with the Vulkan memory model. Taken by probes/barrier_floor.py's
# loops and fdtd_glsl.py's hand-written FDTD kernel.
GRID_SYNC_GLSL = r"""
#define DEV SCOPE
#define BUF gl_StorageSemanticsBuffer
#define GROUP_ORDERED controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, BUF | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible)
#define GROUP_PLAIN controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, 0, 0)
#define ADD_RELEASE atomicAdd(sched[32], 1u, DEV, BUF, gl_SemanticsRelease | gl_SemanticsMakeAvailable)
#define ADD_RELAXED atomicAdd(sched[32], 1u, DEV, gl_StorageSemanticsNone, gl_SemanticsRelaxed)
#define POLL_RELAXED atomicLoad(sched[32], DEV, gl_StorageSemanticsNone, gl_SemanticsRelaxed)
#define ACQUIRE_FENCE memoryBarrier(DEV, BUF, gl_SemanticsAcquire | gl_SemanticsMakeVisible)
#if VARIANT == 0        // the megakernel's: available/visible workgroup barriers, relaxed polls
#define GROUP_BARRIER GROUP_ORDERED
#define ARRIVE ADD_RELEASE
#define POLL POLL_RELAXED
#define AFTER ACQUIRE_FENCE
#elif VARIANT == 1      // acquire loads in the polls (CUDA's ld.acquire.gpu), no fence after
#define GROUP_BARRIER GROUP_ORDERED
#define ARRIVE ADD_RELEASE
#define POLL atomicLoad(sched[32], DEV, BUF, gl_SemanticsAcquire | gl_SemanticsMakeVisible)
#define AFTER
#elif VARIANT == 2      // plain execution barriers (no memory semantics on the group barrier)
#define GROUP_BARRIER GROUP_PLAIN
#define ARRIVE ADD_RELEASE
#define POLL POLL_RELAXED
#define AFTER ACQUIRE_FENCE
#elif VARIANT == 3      // a release fence by invocation 0, then a relaxed add (same ordering)
#define GROUP_BARRIER GROUP_ORDERED
#define ARRIVE memoryBarrier(DEV, BUF, gl_SemanticsRelease | gl_SemanticsMakeAvailable); ADD_RELAXED
#define POLL POLL_RELAXED
#define AFTER ACQUIRE_FENCE
#elif VARIANT == 4      // timing only, unordered: the arrival relaxed
#define GROUP_BARRIER GROUP_ORDERED
#define ARRIVE ADD_RELAXED
#define POLL POLL_RELAXED
#define AFTER ACQUIRE_FENCE
#elif VARIANT == 5      // timing only, unordered: no acquire after the polls
#define GROUP_BARRIER GROUP_ORDERED
#define ARRIVE ADD_RELEASE
#define POLL POLL_RELAXED
#define AFTER
#elif VARIANT == 6      // timing only, unordered: no memory ordering anywhere
#define GROUP_BARRIER GROUP_PLAIN
#define ARRIVE ADD_RELAXED
#define POLL POLL_RELAXED
#define AFTER
#endif

void grid_sync(inout uint target) {
    GROUP_BARRIER;
    if (gl_LocalInvocationIndex == 0u) {
        ARRIVE;
        target += groups;
        uint spins = 0u;
        while (true) {
            if (POLL >= target || POLL >= target || POLL >= target || POLL >= target) break;
            spins += 1u;
            if (spins > SPIN_CAP) { atomicAdd(sched[64], 1u); break; }
            if ((spins & 1023u) == 0u && sched[64] != 0u) break;   // one gave up: all go
        }
        AFTER;
    }
    GROUP_BARRIER;
}
"""
