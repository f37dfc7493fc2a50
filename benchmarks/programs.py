"""Steps per second of a small 3-d stencil program, persistent vs fallback vs Python loop.

    python benchmarks/programs.py [--device SELECTOR] [--sizes 32 64] [--seconds 2]
                                  [--groups N] [--local N]

The program: two arrays A, B of n³ float32; one step is two Jacobi sweeps of the 7-point
heat stencil with zero boundaries (stage `sweep_ab`: B = f(A), then `sweep_ba`: A = f(B)),
two stages like an FDTD step (H then E). Rows, all measured in this run on one device:

  persistent     prog.run(steps, mode="persistent"): one megakernel per epoch
  pair           the same, double-buffered with an array pair (A, A_next): one sweep
                 stage per program step, two program steps per row step; what selecting
                 the halves by the step's parity costs against two explicit arrays
  fused          both sweeps in one stage a step on an array pair, the first sweep's
                 values at a cell's neighbours recomputed where the second reads them:
                 one grid barrier a step instead of two, B never stored, seven
                 evaluations of a sweep per cell (the FDTD's update="fused" for the stencil)
  shift          not the stencil: one stage a step on an array pair whose cells each load
                 one neighbour's value and store it (A_next[i, j, k] = A[i, j, k - 1]),
                 run persistent like the rows above: about the least work a step over
                 these cells can do and still depend on the step before, so about the
                 most steps/s a formulation with one grid barrier a step can make (the
                 fused row's ceiling; the two-stage rows have two barriers a step)
  launch         prog.run(steps, mode="launch"): the fallback, batches of recorded steps
  python loop    the same stencil as a @vkp.kernel, two launches per step from Python
  cuda graph     (when CuPy and a CUDA device are present) the same stencil as a CuPy
                 RawKernel, 100 steps captured in a CUDA graph, the graph launched repeatedly
  cuda fused     (likewise) the fused row's step as one CUDA kernel, 100 in a graph
  cuda persist   (likewise) the megakernel's scheme written natively in CUDA: one kernel
                 per run, every block co-resident, a hand-written grid barrier (arrival
                 counter, release add and acquire polls) after each sweep; what grid
                 barriers cost without Vulkan. Timed at several shapes (one block per SM
                 of 256, 512, 1,024 threads; every resident block of 512): the best is
                 the row, the others in its note
  cuda pers fu   (likewise) the fused row natively: cuda persist's kernel with both
                 sweeps a step at each cell (cuda fused's arithmetic), one grid barrier a
                 step; what the fused formulation makes without Vulkan
  persist/<o>    with --barriers: the persistent row again with the megakernel's grid
                 barriers ordered by <o> (Target.grid_barrier: fence, release)

Before the table, the megakernel's step floor: µs per step of a program whose one or two
dependent stages each touch one element (step boundary and grid barriers alone), run with
--groups (default 132) workgroups.

`vs loop` is steps/s over the python-loop row. Targets (issue "Persistent programs", on the
H200): persistent >= 10x the python loop and >= 1x the CUDA graph. The lines after each
size's rows check that persistent and launch modes end in bit-identical states, and how
far the megakernel's state is from the CUDA graph's (their compilers may contract
differently into fused multiply-adds).
"""
from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

import vkpersist as vkp
from _device import selector                       # benchmarks/_device.py
from _common import cupy_or_none                   # benchmarks/_common.py

ALPHA = 0.1


@vkp.func
def relaxed(src, alpha, i, j, k):
    """One cell of the Jacobi sweep, written as CUDA_SOURCE's relaxed (the same tests, the
    same order of additions) so that every row computes the same arithmetic."""
    n = src.shape[0]
    c = src[i, j, k]
    s = ((src[i - 1, j, k] if i > 0 else 0.0) + (src[i + 1, j, k] if i < n - 1 else 0.0)
         + (src[i, j - 1, k] if j > 0 else 0.0) + (src[i, j + 1, k] if j < n - 1 else 0.0)
         + (src[i, j, k - 1] if k > 0 else 0.0) + (src[i, j, k + 1] if k < n - 1 else 0.0))
    return c + alpha * (s - 6.0 * c)


@vkp.func
def sweep(src, dst, alpha, i, j, k):
    dst[i, j, k] = relaxed(src, alpha, i, j, k)


@vkp.func
def two_sweeps(src, dst, alpha, i, j, k):
    """Both sweeps of a step at one cell, from the step's start: the first sweep's value
    at the cell and, again, at its six neighbours (what the second reads), then the
    second's; the same arithmetic as sweep twice, so the same floats where the compiler
    contracts alike (CUDA_SOURCE's two_sweeps)."""
    n = src.shape[0]
    c = relaxed(src, alpha, i, j, k)
    s = ((relaxed(src, alpha, i - 1, j, k) if i > 0 else 0.0)
         + (relaxed(src, alpha, i + 1, j, k) if i < n - 1 else 0.0)
         + (relaxed(src, alpha, i, j - 1, k) if j > 0 else 0.0)
         + (relaxed(src, alpha, i, j + 1, k) if j < n - 1 else 0.0)
         + (relaxed(src, alpha, i, j, k - 1) if k > 0 else 0.0)
         + (relaxed(src, alpha, i, j, k + 1) if k < n - 1 else 0.0))
    dst[i, j, k] = c + alpha * (s - 6.0 * c)


@vkp.kernel
def sweep_kernel(src: vkp.Array[vkp.f32, 3], dst: vkp.Array[vkp.f32, 3], alpha: vkp.f32):
    g = vkp.global_id(0)
    n = src.shape[0]
    if g < n * n * n:
        sweep(src, dst, alpha, g // (n * n), (g // n) % n, g % n)


def make_program(ctx, n: int, init: np.ndarray) -> tuple[vkp.Program, object]:
    prog = vkp.Program(ctx, name=f"jacobi{n}")
    A = prog.array("A", (n, n, n), init=init)
    B = prog.array("B", (n, n, n))
    ctl = prog.controls(alpha=vkp.f32(ALPHA))

    @prog.stage(domain=(n, n, n))
    def sweep_ab(i, j, k):
        sweep(A, B, ctl.alpha, i, j, k)

    @prog.stage(domain=(n, n, n))
    def sweep_ba(i, j, k):
        sweep(B, A, ctl.alpha, i, j, k)

    prog.loop(sweep_ab, sweep_ba)
    return prog, A


def make_pair_program(ctx, n: int, init: np.ndarray, step=sweep,
                      name: str = "jacobi_pair") -> tuple[vkp.Program, object]:
    """The stencil on an array pair (A, A_next), one stage a program step doing `step`:
    one sweep (the pair row: two program steps a row step), or both sweeps (two_sweeps:
    the fused row, one grid barrier a step instead of two and B never stored, at seven
    evaluations of a sweep per cell, as the FDTD's update="fused")."""
    prog = vkp.Program(ctx, name=f"{name}{n}")
    A, A_next = prog.array_pair("A", (n, n, n), init=init)
    ctl = prog.controls(alpha=vkp.f32(ALPHA))

    @prog.stage(domain=(n, n, n))
    def sweep_pair(i, j, k):
        step(A, A_next, ctl.alpha, i, j, k)

    prog.loop(sweep_pair)
    return prog, A


def make_fused_program(ctx, n: int, init: np.ndarray) -> tuple[vkp.Program, object]:
    return make_pair_program(ctx, n, init, two_sweeps, "jacobi_fused")


@vkp.func
def shift(src, dst, alpha, i, j, k):
    """The shift row's cell: one neighbour's value, no arithmetic (alpha unused)."""
    dst[i, j, k] = src[i, j, k - 1] if k > 0 else 0.0


def make_shift_program(ctx, n: int, init: np.ndarray) -> tuple[vkp.Program, object]:
    return make_pair_program(ctx, n, init, shift, "shift")


def time_steps(run_steps, seconds: float) -> float:
    """steps/s: grow the step count until one timed call lasts `seconds`/2. `run_steps(n)`
    may run more steps than asked and return how many it ran."""
    steps = 16
    while True:
        t = time.perf_counter()
        ran = run_steps(steps) or steps
        dt = time.perf_counter() - t
        if dt > seconds / 2 or steps > 1 << 26:
            return ran / dt
        steps *= 2 if dt > seconds / 20 else 8


def bench_program(ctx, n, init, mode, seconds, groups, local, make=make_program, per=1):
    """`per`: program steps per row step (two sweeps)."""
    prog, A = make(ctx, n, init)
    kw = {"groups": groups, "local": local} if mode == "persistent" else {"local": local}
    prog.run(4, mode=mode, **kw)          # compile and warm up
    rate = time_steps(lambda s: prog.run(per * s, mode=mode, **kw).steps // per, seconds)
    runner = prog._runner
    note = f"{runner.participants} x {runner.local} invocations" if mode == "persistent" \
        else f"{runner.local} per workgroup"
    # a fixed-length run from the initial state, for the identity check
    A.set(init)
    prog.reset_step()
    prog.run(100 * per, mode=mode, **kw)
    state = A.numpy()
    prog.free()
    return rate, note, state


def bench_floor(ctx, stages, seconds, groups, local):
    """(µs per step, note, workgroups that joined: ran at once) of a megakernel whose
    `stages` dependent stages each do one load and one store: the cost of the step boundary
    and the grid barriers alone."""
    prog = vkp.Program(ctx, name=f"floor{stages}")
    a = prog.array("a", (2,), np.float32)

    @prog.stage(domain=1)
    def first(i):
        a[0] = a[1] + 1.0

    @prog.stage(domain=1)
    def second(i):
        a[1] = a[0] + 1.0

    prog.loop(*[first, second][:stages])
    kw = {"groups": groups, "local": local}
    prog.run(4, mode="persistent", **kw)
    rate = time_steps(lambda s: prog.run(s, mode="persistent", **kw).steps, seconds)
    joined = prog._runner.participants
    note = f"{joined} x {prog._runner.local}"
    prog.free()
    return 1e6 / rate, note, joined


def bench_python_loop(ctx, n, init, seconds):
    a = ctx.asarray(init)
    b = ctx.zeros((n, n, n), np.float32)
    launch = sweep_kernel.forall(n ** 3, 128)
    alpha = np.float32(ALPHA)

    def run(steps):
        for _ in range(steps):
            launch(a, b, alpha)
            launch(b, a, alpha)
        ctx.synchronize()
    run(2)
    return time_steps(run, seconds)


GRID_SYNC = r"""
// A grid barrier by hand: every block co-resident (the launch is sized from the kernel's
// occupancy), a monotonic arrival counter; one release add, acquire-load polls (the best
// native ordering measured, VULKAN_FACTS.md section 11: 5-15 % over __threadfence).
__device__ void grid_sync(unsigned int* arrived, unsigned int target) {
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("red.release.gpu.global.add.u32 [%0], %1;" :: "l"(arrived), "r"(1u)
                     : "memory");
        unsigned int v;
        do { asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(arrived)
                          : "memory"); } while (v < target);
    }
    __syncthreads();
}
"""

CUDA_SOURCE = GRID_SYNC + r"""
__device__ float relaxed(const float* src, float alpha, int n, int g) {
    int i = g / (n * n), j = (g / n) % n, k = g % n;
    float c = src[g];
    float s = (i > 0 ? src[g - n * n] : 0.f) + (i < n - 1 ? src[g + n * n] : 0.f)
            + (j > 0 ? src[g - n] : 0.f) + (j < n - 1 ? src[g + n] : 0.f)
            + (k > 0 ? src[g - 1] : 0.f) + (k < n - 1 ? src[g + 1] : 0.f);
    return c + alpha * (s - 6.f * c);
}

__device__ void sweep_cell(const float* src, float* dst, float alpha, int n, int g) {
    dst[g] = relaxed(src, alpha, n, g);
}

extern "C" __global__ void sweep(const float* src, float* dst, float alpha, int n) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < n * n * n) sweep_cell(src, dst, alpha, n, g);
}

// Both sweeps of a step at one cell: the first sweep's value recomputed at the cell's six
// neighbours (the fused row's two_sweeps, natively); in a kernel of its own a step, and
// persistent with one grid barrier a step.
__device__ void two_sweeps_cell(const float* src, float* dst, float alpha, int n, int g) {
    int i = g / (n * n), j = (g / n) % n, k = g % n;
    float c = relaxed(src, alpha, n, g);
    float s = (i > 0 ? relaxed(src, alpha, n, g - n * n) : 0.f)
            + (i < n - 1 ? relaxed(src, alpha, n, g + n * n) : 0.f)
            + (j > 0 ? relaxed(src, alpha, n, g - n) : 0.f)
            + (j < n - 1 ? relaxed(src, alpha, n, g + n) : 0.f)
            + (k > 0 ? relaxed(src, alpha, n, g - 1) : 0.f)
            + (k < n - 1 ? relaxed(src, alpha, n, g + 1) : 0.f);
    dst[g] = c + alpha * (s - 6.f * c);
}

extern "C" __global__ void two_sweeps(const float* src, float* dst, float alpha, int n) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < n * n * n) two_sweeps_cell(src, dst, alpha, n, g);
}

extern "C" __global__ void persistent(float* a, float* b, float alpha, int n, int steps,
                                      unsigned int* arrived) {
    int cells = n * n * n, stride = gridDim.x * blockDim.x;
    int first = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int target = 0u;
    for (int t = 0; t < steps; t++) {
        for (int g = first; g < cells; g += stride) sweep_cell(a, b, alpha, n, g);
        grid_sync(arrived, target += gridDim.x);
        for (int g = first; g < cells; g += stride) sweep_cell(b, a, alpha, n, g);
        grid_sync(arrived, target += gridDim.x);
    }
}

// The fused formulation persistent: a and b swap roles every step (after an even number
// of steps the state is in a), one grid barrier a step.
extern "C" __global__ void persistent_fused(float* a, float* b, float alpha, int n,
                                            int steps, unsigned int* arrived) {
    int cells = n * n * n, stride = gridDim.x * blockDim.x;
    int first = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int target = 0u;
    for (int t = 0; t < steps; t++) {
        const float* src = t % 2 ? b : a;
        float* dst = t % 2 ? a : b;
        for (int g = first; g < cells; g += stride) two_sweeps_cell(src, dst, alpha, n, g);
        grid_sync(arrived, target += gridDim.x);
    }
}
"""


def bench_cuda_graph(cp, n, init, seconds, fused=False):
    """(steps/s, state after 100 steps) of the stencil as 100 steps of kernels in a graph:
    two sweep kernels a step, or with `fused` one two_sweeps kernel (a and b ping-ponged,
    so after an even number of steps the state is in a either way)."""
    kern = cp.RawModule(code=CUDA_SOURCE).get_function("two_sweeps" if fused else "sweep")
    a, b = cp.asarray(init), cp.zeros_like(cp.asarray(init))
    blocks = (n ** 3 + 127) // 128
    args_ab = (a, b, np.float32(ALPHA), np.int32(n))
    args_ba = (b, a, np.float32(ALPHA), np.int32(n))
    stream = cp.cuda.Stream(non_blocking=True)
    parity = [0]

    def step():
        if fused:
            kern((blocks,), (128,), (args_ab, args_ba)[parity[0]])
            parity[0] ^= 1
        else:
            kern((blocks,), (128,), args_ab)
            kern((blocks,), (128,), args_ba)
    run = graph_runner(stream, step)
    rate = time_steps(run, seconds)
    a.set(init, stream=stream)     # on the graph's stream: a copy from pageable memory may
    run(100)                       # return before its DMA ends, and the stream is non-blocking
    return rate, cp.asnumpy(a)


def graph_runner(stream, step, per: int = 100):
    """`run(steps)` for CUDA: `per` calls of `step()` (its kernel launches) captured once
    on `stream` as a graph, launched ceil(steps / per) times; it returns the steps run."""
    with stream:
        stream.begin_capture()
        for _ in range(per):
            step()
        graph = stream.end_capture()

    def run(steps):
        graphs = -(-steps // per)
        for _ in range(graphs):
            graph.launch(stream)
        stream.synchronize()
        return graphs * per
    return run


def cuda_registers(kern) -> int:
    """Registers per thread of a CuPy kernel, rounded up to the allocation unit of 8."""
    return -(-kern.attributes["num_regs"] // 8) * 8


def cuda_resident_blocks(cp, kern, local: int) -> int:
    """How many blocks of `local` threads of `kern` run at once on the device: threads and
    registers per SM (shared memory unused), times the SMs."""
    props = cp.cuda.runtime.getDeviceProperties(0)
    per_sm = min(props["maxThreadsPerMultiProcessor"] // local,
                 props["regsPerMultiprocessor"] // (max(cuda_registers(kern), 1) * local))
    return per_sm * props["multiProcessorCount"]


def cuda_shapes(cp, kern, cells: int) -> list:
    """The launch shapes the native persistent rows try: one block per SM of 256, 512 or
    1,024 threads (the best shapes of ../shared/probes/barrier_sweep.py on the H200: 132 x
    256 at 32³, 132 x 1,024 at 64³ and 128³) and every resident block of 512, each
    capped at one thread per cell, all blocks co-resident."""
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    shapes = [(sms, local) for local in (256, 512, 1024)]
    shapes.append((cuda_resident_blocks(cp, kern, 512), 512))
    out = []
    for blocks, local in shapes:
        blocks = min(blocks, -(-cells // local), cuda_resident_blocks(cp, kern, local))
        if blocks > 0 and (blocks, local) not in out:
            out.append((blocks, local))
    return out


def best_shape(shapes, launch, seconds, scale=1.0, registers=None, unit="threads"):
    """(steps/s, shape, note) of a persistent kernel timed at each of `shapes` ((workgroups,
    local) pairs): `launch(groups, local, steps)` runs `steps` steps as one launch and
    waits, raising RuntimeError where its workgroups did not all run at once (that shape is
    left out, named in the note). The best shape is the row (issue 21 compares the
    megakernel with the best persistent scheme), the others in its note, in steps/s times
    `scale` (the row's unit); `registers(local)`: the kernel's registers a thread, or None."""
    rates, skipped = {}, []
    for shape in dict.fromkeys(shapes):
        try:
            launch(*shape, 4)
        except RuntimeError:
            skipped.append(shape)
            continue
        rates[shape] = time_steps(lambda steps: launch(*shape, steps), seconds)
    if not rates:
        raise RuntimeError(f"no shape of {list(shapes)} ran with every workgroup at once")
    best = max(rates, key=rates.get)
    others = [f"{g} x {loc}: {r * scale:,.0f}" for (g, loc), r in rates.items()
              if (g, loc) != best]
    others += [f"{g} x {loc}: not co-resident" for g, loc in skipped]
    regs = registers(best[1]) if registers else None
    return rates[best], best, (f"{best[0]} x {best[1]} {unit}"
                               + (f", {regs} registers" if regs else "")
                               + (f" ({', '.join(others)})" if others else ""))


def best_persistent(cp, kern, cells, launch, seconds, scale=1.0):
    """best_shape() of a native persistent CUDA kernel `kern` over cuda_shapes()."""
    return best_shape(cuda_shapes(cp, kern, cells), launch, seconds, scale,
                      lambda local: cuda_registers(kern))


def bench_cuda_persistent(cp, n, init, seconds, fused=False):
    """(steps/s, note, state after 100 steps) of the stencil as one CUDA kernel per run
    with grid barriers between the sweeps: the megakernel's scheme written natively, the
    measure of what a grid barrier costs on this GPU without Vulkan in between; with
    `fused`, the fused row's formulation (both sweeps a step, one barrier). Timed at
    best_persistent()'s shapes."""
    kern = cp.RawModule(code=CUDA_SOURCE).get_function(
        "persistent_fused" if fused else "persistent")
    a, b = cp.asarray(init), cp.zeros_like(cp.asarray(init))
    arrived = cp.zeros(1, cp.uint32)

    def launch(blocks, local, steps):
        arrived.fill(0)
        kern((blocks,), (local,), (a, b, np.float32(ALPHA), np.int32(n), np.int32(steps),
                                   arrived))
        cp.cuda.Device().synchronize()
    rate, best, note = best_persistent(cp, kern, n ** 3, launch, seconds)
    a.set(init)
    launch(*best, 100)
    return rate, note, cp.asnumpy(a)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--sizes", type=int, nargs="+", default=[32, 64])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--groups", type=int, default=None,
                    help="megakernel workgroups (default: the runner's choice)")
    ap.add_argument("--local", type=int, default=None,
                    help="invocations per workgroup (default: the runner's choice)")
    ap.add_argument("--barriers", nargs="+", default=[], choices=["fence", "release"],
                    help="also measure the persistent row (and the floor) with each of "
                         "these grid-barrier orderings (Target.grid_barrier)")
    rows = ["loop", "persistent", "pair", "fused", "shift", "launch", "graph", "cuda-fused",
            "cuda-persistent", "cuda-persistent-fused", "floor"]
    ap.add_argument("--rows", nargs="+", default=rows, choices=rows,
                    help="which rows to measure (default: all)")
    args = ap.parse_args()
    ctx = vkp.Context(selector(args.device))
    cp = cupy_or_none()
    print(f"device: {ctx.info.name}")
    default = ctx.target
    if "floor" in args.rows:
        for order in args.barriers or [default.grid_barrier]:
            ctx.target = dataclasses.replace(default, grid_barrier=order)
            for stages in (1, 2):
                us, note, _ = bench_floor(ctx, stages, args.seconds, args.groups or 132,
                                       args.local)
                print(f"megakernel step floor, {stages} dependent stage(s) of one index, "
                      f"{order} barriers: {us:.2f} µs/step ({note} invocations)")
        ctx.target = default
    variants = [(f"persist/{o}", {"grid_barrier": o}) for o in args.barriers]
    print(f"{'n':>4} {'row':<12} {'steps/s':>12} {'vs loop':>8} {'Gcell-sweeps/s':>15}  notes")
    for n in args.sizes:
        init = np.random.default_rng(0).random((n, n, n)).astype(np.float32)
        loop = bench_python_loop(ctx, n, init, args.seconds) if "loop" in args.rows else None
        rows = [("python loop", loop, "")] if loop is not None else []
        states = {}
        for mode in [m for m in ("persistent", "launch") if m in args.rows]:
            rate, note, states[mode] = bench_program(ctx, n, init, mode, args.seconds,
                                                     args.groups, args.local)
            rows.append((mode, rate, note))
        for label, change in variants:       # --barriers: the target changed
            ctx.target = dataclasses.replace(default, **change)
            rate, note, states[label] = bench_program(
                ctx, n, init, "persistent", args.seconds, args.groups, args.local)
            rows.append((label, rate, note))
            ctx.target = default
        if "pair" in args.rows:
            rate, note, states["pair"] = bench_program(
                ctx, n, init, "persistent", args.seconds, args.groups, args.local,
                make_pair_program, per=2)
            rows.append(("pair", rate, note))
        if "fused" in args.rows:
            rate, note, states["fused"] = bench_program(
                ctx, n, init, "persistent", args.seconds, args.groups, args.local,
                make_fused_program)
            rows.append(("fused", rate, note))
        if "shift" in args.rows:      # not the stencil: no state to compare
            rate, note, _ = bench_program(ctx, n, init, "persistent", args.seconds,
                                          args.groups, args.local, make_shift_program)
            rows.append(("shift", rate, note))
        cuda_states = {}
        if cp is not None and "graph" in args.rows:
            graph, cuda_states["graph"] = bench_cuda_graph(cp, n, init, args.seconds)
            rows.append(("cuda graph", graph, "CuPy, 100 steps per graph"))
        if cp is not None and "cuda-fused" in args.rows:
            rate, cuda_states["fused"] = bench_cuda_graph(cp, n, init, args.seconds, True)
            rows.append(("cuda fused", rate, "CuPy, two_sweeps: one kernel a step"))
        if cp is not None and "cuda-persistent" in args.rows:
            rate, note, cuda_states["persistent"] = bench_cuda_persistent(cp, n, init,
                                                                          args.seconds)
            rows.append(("cuda persist", rate, note))
        if cp is not None and "cuda-persistent-fused" in args.rows:
            rate, note, cuda_states["persistent fused"] = bench_cuda_persistent(
                cp, n, init, args.seconds, fused=True)
            rows.append(("cuda pers fu", rate, note))
        for name, rate, note in rows:
            cells = (1 if name == "shift" else 2) * rate * n ** 3 / 1e9
            vs = f"{rate / loop:>7.1f}x" if loop is not None else f"{'-':>8}"
            print(f"{n:>4} {name:<12} {rate:>12,.0f} {vs} {cells:>15.2f}  {note}")
        for other in ("launch", "pair", "fused", *[label for label, _ in variants]):
            if "persistent" in states and other in states:
                same = np.array_equal(states["persistent"], states[other])
                print(f"{n:>4} persistent and {other} states after 100 steps bit-identical: "
                      f"{'yes' if same else 'NO'}")
        for other in ("persistent", "fused", "persistent fused"):
            if "graph" in cuda_states and other in cuda_states:
                same = np.array_equal(cuda_states[other], cuda_states["graph"])
                print(f"{n:>4} cuda {other} and graph states after 100 steps bit-identical: "
                      f"{'yes' if same else 'NO'}")
        if "persistent" in states and "graph" in cuda_states:
            diff = np.abs(states["persistent"] - cuda_states["graph"]).max()
            print(f"{n:>4} persistent vs cuda graph after 100 steps: max |difference| "
                  f"{diff:.2e} (values ~{np.abs(cuda_states['graph']).max():.2f})")


if __name__ == "__main__":
    main()
