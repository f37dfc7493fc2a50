"""Throughput of the fdtd3d Yee update: Mcells/s (cells x steps / s, gprMax's convention)
and effective GB/s, persistent vs launch vs the same update in CuPy RawKernels.

    python benchmarks/fdtd.py [--sizes 32 64 128 256 512] [--seconds 2]
                              [--monitors [probe slices hot dft]]

The scene: an n³-cell PEC box holding a dielectric block (two materials, so the material
lookup is real), fields started from the same random state in every row; one step is the
H update then the E update, as examples/fdtd3d runs them. Rows, all in one run on one
device:

  persistent U  sim.prog.run(steps, mode="persistent"): the megakernel, with the solver's
               update U (--updates): "fused", one stage a step, H recomputed where E
               reads it, fields double-buffered (examples/fdtd3d/kernels_fused.py), or
               "split", an H stage and an E stage (kernels.py)
  launch U     the fallback: recorded batches of per-stage dispatches
  cupy         (CuPy and a CUDA device present) the same two updates as CUDA RawKernels,
               with the same index layout, material table and order of operations,
               launched from Python
  cupy graph   the same kernels, 100 steps captured in a CUDA graph
  traffic floor  (CUDA) the update's bytes moved with every access at the cell's own index
               (no neighbours, no boundary tests), 100 steps to a graph: what any scheme
               that moves E and H through memory once a step can reach at best
  fused (CUDA)   --fused: the update as one kernel a step, each thread recomputing the new
               H its E update reads behind it, fields ping-ponged (51 bytes a cell moved
               instead of 75), 100 steps to a graph: whether fusing the half steps could
               pass the graph by more than the traffic floor allows
  fused persist (CUDA)  --fused: that kernel's cell update persistent, one launch a run,
               a grid-stride loop and a hand-written grid barrier a step (programs.py's
               native persistent row's), at the best of several shapes: what the fused
               formulation makes with one grid barrier a step without Vulkan in between
  fused persist (GLSL)  --glsl (any Vulkan device): the same cell update and scheme
               written by hand in GLSL, the megakernel's grid barrier a step (fdtd_glsl.py),
               at the megakernel's shape or one workgroup of 256 / 512 / 1,024 per SM,
               the best: what the fused formulation makes in Vulkan without vkpersist's
               code generator and step boundary, the floor of the megakernel's fused row

GB/s counts the minimum traffic of a fused update: each step reads E and H twice, writes
each once and reads the three material-index bytes (75 bytes per cell in float32). After
each size: whether every vkpersist row ends bit-identical after 100 steps, and the
largest difference from CuPy's state (compilers may contract differently into FMAs).
`--monitors` adds persistent rows run as a session (frames streamed to the host, as a
user's run): with no monitors ("session"), with each of the monitors named alone (probe: a
probe of two components; slices: two slices every 20 steps; hot: the hot-cell queue on
the z slice every 20 steps, threshold the 99.9th percentile of its |E| at the start; dft:
one DFT plane at 2 frequencies), and with all of them
("session+all"); with no names: probe, slices and hot, the live outputs whose joint cost
issue 14 bounds at 5 %. `--monitor-modes persistent launch` runs those rows in both modes.
Persistent rows end with the last epoch's participants out of the workgroups launched and,
where the driver reports it (prog.statistics()), the megakernel's registers per
invocation: a monitor's stage that needs more registers leaves fewer workgroups resident.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import vkpersist as vkp                            # noqa: E402
from _device import selector                       # noqa: E402  (benchmarks/_device.py)
import examples.fdtd3d as fd                       # noqa: E402
from _common import cupy_or_none                   # noqa: E402  (benchmarks/_common.py)
from programs import (GRID_SYNC, best_persistent,  # noqa: E402  (benchmarks/programs.py)
                      graph_runner)
import fdtd_glsl                                  # noqa: E402  (benchmarks/fdtd_glsl.py)

BYTES_PER_CELL = 18 * 4 + 3
FIELD_NAMES = ("ex", "ey", "ez", "hx", "hy", "hz")
CHECKED = ("ex", "ez", "hy")     # the fields compared between rows after 100 steps

# The new H components at a cell (the old value where the component is not updated)
H_NEW = r"""
#define IDX long o, int i, int j, int k
#define CELL_AT(g) /* cell g of the (n + 1)^3 grid: its indices, offset and strides */ \
    int N1 = n + 1; \
    long cells = (long)N1 * N1 * N1; \
    int i = (g) / (N1 * N1), j = ((g) / N1) % N1, k = (g) % N1; \
    long o = (g), si = (long)N1 * N1, sj = N1;
#define CELL /* this thread's cell; threads past the grid return */ \
    long g = (long)blockIdx.x * blockDim.x + threadIdx.x; \
    if (g >= (long)(n + 1) * (n + 1) * (n + 1)) return; \
    CELL_AT(g)
__device__ __forceinline__ float hx_new(const float* ey, const float* ez, const float* hx,
        IDX, int n, long si, long sj, float ch, float idy, float idz) {
    if (i <= n && j < n && k < n)
        return hx[o] - ch * ((ez[o + sj] - ez[o]) * idy - (ey[o + 1] - ey[o]) * idz);
    return hx[o];
}
__device__ __forceinline__ float hy_new(const float* ex, const float* ez, const float* hy,
        IDX, int n, long si, long sj, float ch, float idx, float idz) {
    if (i < n && j <= n && k < n)
        return hy[o] - ch * ((ex[o + 1] - ex[o]) * idz - (ez[o + si] - ez[o]) * idx);
    return hy[o];
}
__device__ __forceinline__ float hz_new(const float* ex, const float* ey, const float* hz,
        IDX, int n, long si, long sj, float ch, float idx, float idy) {
    if (i < n && j < n && k <= n)
        return hz[o] - ch * ((ey[o + si] - ey[o]) * idx - (ex[o + sj] - ex[o]) * idy);
    return hz[o];
}
"""

CUDA_SOURCE = H_NEW + r"""
extern "C" __global__ void update_h(const float* ex, const float* ey, const float* ez,
                                    float* hx, float* hy, float* hz, int n, float ch,
                                    float idx, float idy, float idz) {
    CELL
    if (i <= n && j < n && k < n) hx[o] = hx_new(ey, ez, hx, o, i, j, k, n, si, sj, ch, idy, idz);
    if (i < n && j <= n && k < n) hy[o] = hy_new(ex, ez, hy, o, i, j, k, n, si, sj, ch, idx, idz);
    if (i < n && j < n && k <= n) hz[o] = hz_new(ex, ey, hz, o, i, j, k, n, si, sj, ch, idx, idy);
}
extern "C" __global__ void update_e(float* ex, float* ey, float* ez, const float* hx,
                                    const float* hy, const float* hz,
                                    const unsigned char* ids, const float* ca,
                                    const float* cb, int n, float idx, float idy, float idz) {
    CELL
    if (i < n && 1 <= j && j < n && 1 <= k && k < n) {
        float c = (hz[o] - hz[o - sj]) * idy - (hy[o] - hy[o - 1]) * idz;
        int m = ids[o];
        ex[o] = ca[m] * ex[o] + cb[m] * c;
    }
    if (1 <= i && i < n && j < n && 1 <= k && k < n) {
        float c = (hx[o] - hx[o - 1]) * idz - (hz[o] - hz[o - si]) * idx;
        int m = ids[cells + o];
        ey[o] = ca[m] * ey[o] + cb[m] * c;
    }
    if (1 <= i && i < n && 1 <= j && j < n && k < n) {
        float c = (hy[o] - hy[o - si]) * idx - (hx[o] - hx[o - sj]) * idy;
        int m = ids[2 * cells + o];
        ez[o] = ca[m] * ez[o] + cb[m] * c;
    }
}
"""


# The traffic floor: the update's minimal traffic (each step reads E and H twice, writes
# each once, reads the material bytes once) with every access at the cell's own index,
# no neighbour, no boundary test: perfectly coalesced streams, the most Mcells/s that any
# scheme moving these bytes once a step can make on the device.
FLOOR_SOURCE = r"""
extern "C" __global__ void floor_h(const float* ex, const float* ey, const float* ez,
                                   float* hx, float* hy, float* hz, long long cells, float c) {
    long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= cells) return;
    hx[g] = hx[g] - c * (ez[g] - ey[g]);
    hy[g] = hy[g] - c * (ex[g] - ez[g]);
    hz[g] = hz[g] - c * (ey[g] - ex[g]);
}
extern "C" __global__ void floor_e(float* ex, float* ey, float* ez, const float* hx,
                                   const float* hy, const float* hz,
                                   const unsigned char* ids, const float* ca,
                                   const float* cb, long long cells) {
    long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= cells) return;
    int m = ids[g];
    ex[g] = ca[m] * ex[g] + cb[m] * (hz[g] - hy[g]);
    m = ids[cells + g];
    ey[g] = ca[m] * ey[g] + cb[m] * (hx[g] - hz[g]);
    m = ids[2 * cells + g];
    ez[g] = ca[m] * ez[g] + cb[m] * (hy[g] - hx[g]);
}
"""

# The update fused into one kernel a step (issue 21's mechanism probe, native CUDA): each
# thread computes the new H at its cell and, again, the new H components its E update reads
# at the cells behind it, so no kernel boundary separates the half steps; the fields
# ping-pong between two sets. Each step then reads E, H and the material bytes once and
# writes E and H once: 51 bytes a cell against the two kernels' 75 (the neighbours' reads
# hit the caches). The same arithmetic per value as CUDA_SOURCE, so the same results.
FUSED_SOURCE = H_NEW + GRID_SYNC + r"""
#define FIELDS(q) const float* ex##q, const float* ey##q, const float* ez##q, \
    const float* hx##q, const float* hy##q, const float* hz##q
#define OUT_FIELDS(q) float* ex##q, float* ey##q, float* ez##q, float* hx##q, float* hy##q, \
    float* hz##q
#define COEFS const unsigned char* ids, const float* ca, const float* cb, int n, float ch, \
    float idx, float idy, float idz
__device__ __forceinline__ void fused_cell(FIELDS(), OUT_FIELDS(2), COEFS, long g) {
    CELL_AT(g)
    float Hx = hx_new(ey, ez, hx, o, i, j, k, n, si, sj, ch, idy, idz);
    float Hy = hy_new(ex, ez, hy, o, i, j, k, n, si, sj, ch, idx, idz);
    float Hz = hz_new(ex, ey, hz, o, i, j, k, n, si, sj, ch, idx, idy);
    hx2[o] = Hx; hy2[o] = Hy; hz2[o] = Hz;
    float Ex = ex[o], Ey = ey[o], Ez = ez[o];
    if (i < n && 1 <= j && j < n && 1 <= k && k < n) {
        float c = (Hz - hz_new(ex, ey, hz, o - sj, i, j - 1, k, n, si, sj, ch, idx, idy)) * idy
                - (Hy - hy_new(ex, ez, hy, o - 1, i, j, k - 1, n, si, sj, ch, idx, idz)) * idz;
        int m = ids[o];
        Ex = ca[m] * Ex + cb[m] * c;
    }
    if (1 <= i && i < n && j < n && 1 <= k && k < n) {
        float c = (Hx - hx_new(ey, ez, hx, o - 1, i, j, k - 1, n, si, sj, ch, idy, idz)) * idz
                - (Hz - hz_new(ex, ey, hz, o - si, i - 1, j, k, n, si, sj, ch, idx, idy)) * idx;
        int m = ids[cells + o];
        Ey = ca[m] * Ey + cb[m] * c;
    }
    if (1 <= i && i < n && 1 <= j && j < n && k < n) {
        float c = (Hy - hy_new(ex, ez, hy, o - si, i - 1, j, k, n, si, sj, ch, idx, idz)) * idx
                - (Hx - hx_new(ey, ez, hx, o - sj, i, j - 1, k, n, si, sj, ch, idy, idz)) * idy;
        int m = ids[2 * cells + o];
        Ez = ca[m] * Ez + cb[m] * c;
    }
    ex2[o] = Ex; ey2[o] = Ey; ez2[o] = Ez;
}
extern "C" __global__ void update_fused(FIELDS(), OUT_FIELDS(2), COEFS) {
    long g = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g < (long)(n + 1) * (n + 1) * (n + 1))
        fused_cell(ex, ey, ez, hx, hy, hz, ex2, ey2, ez2, hx2, hy2, hz2, ids, ca, cb, n, ch,
                   idx, idy, idz, g);
}
// The fused update persistent (issue 21's floor for the formulation, natively): every
// block co-resident, a grid-stride loop over the cells, one grid barrier a step; the two
// field sets swap roles every step (after an even count the state is in set a).
extern "C" __global__ void persistent_fused(OUT_FIELDS(), OUT_FIELDS(2), COEFS, int steps,
                                            unsigned int* arrived) {
    long cells = (long)(n + 1) * (n + 1) * (n + 1), stride = (long)gridDim.x * blockDim.x;
    unsigned int target = 0u;
    for (int t = 0; t < steps; t++) {
        bool odd = t & 1;
        for (long g = (long)blockIdx.x * blockDim.x + threadIdx.x; g < cells; g += stride)
            fused_cell(odd ? ex2 : ex, odd ? ey2 : ey, odd ? ez2 : ez, odd ? hx2 : hx,
                       odd ? hy2 : hy, odd ? hz2 : hz, odd ? ex : ex2, odd ? ey : ey2,
                       odd ? ez : ez2, odd ? hx : hx2, odd ? hy : hy2, odd ? hz : hz2, ids, ca,
                       cb, n, ch, idx, idy, idz, g);
        grid_sync(arrived, target += gridDim.x);
    }
}
"""

MONITORS = ("probe", "slices", "hot", "dft")
HOT_THRESHOLD = None          # --hot-threshold; None: the 99.9th percentile at the start
FUSED_OPTIONS = ()            # --cuda-registers: NVRTC options of the fused CUDA kernels


def scene(ctx, n, monitors=(), update="auto"):
    d = 1e-3
    sim = fd.Simulation(shape=(n, n, n), spacing=d, boundaries="pec", update=update, ctx=ctx)
    sim.add(fd.Box((n * d / 4,) * 3, (n * d / 2,) * 3), fd.Material(eps_r=4.0, sigma=0.01))
    c = n * d / 2
    if "probe" in monitors:
        sim.add_probe((c, c, c), ("ez", "hx"))
    if "slices" in monitors:
        sim.add_slice("ez", "z", c, every=20)
        sim.add_slice("|e|", "x", c, every=20)
    rng = np.random.default_rng(1)
    # E in V/m, H in A/m: H scaled by 1/eta0 so that neither field's energy swamps the
    # other's (with both at 1e-3, |E| grew ~100x within steps and every plane cell was hot)
    init = {f: (rng.standard_normal(sim.grid.nodes) * (1e-3 if f[0] == "e" else 1e-3 / fd.ETA0)
                ).astype(np.float32) for f in ("ex", "ey", "ez", "hx", "hy", "hz")}
    if "hot" in monitors:
        # a threshold that picks the hottest 0.1 % of the plane's cells at the start, a
        # few % once the fields settle (as a user marks hot spots; 2 % of a 256² plane is
        # 1,300 cells, within the capacity): --hot-threshold sets another (docs/measurements-log.md)
        k = n // 2
        e = np.sqrt(sum(init[f][:, :, k].astype(np.float64) ** 2 for f in ("ex", "ey", "ez")))
        threshold = HOT_THRESHOLD or float(np.quantile(e, 0.999))
        sim.add_hot_cells("z", c, threshold=threshold, capacity=4096, every=20)
    if "dft" in monitors:
        sim.add_dft_plane("z", c, (10e9, 20e9))
    sim.build()
    for f, v in init.items():
        sim.arrays[f].set(v)
    return sim, init


def time_steps(run, seconds):
    steps = 8
    while True:
        t = time.perf_counter()
        done = run(steps)
        wall = time.perf_counter() - t
        if wall >= seconds or steps >= 1 << 22:
            return done / wall
        steps *= 2 if wall < seconds / 8 else max(2, int(seconds / wall) + 1)


def bench_program(ctx, n, mode, seconds, monitors=None, groups=None, local=None,
                  update="auto"):
    """Steps/s of `mode`: through prog.run when `monitors` is None, else as a session
    (sim.run) with those monitors."""
    sim, init = scene(ctx, n, monitors or (), update)
    launch = {"groups": groups, "local": local} if mode == "persistent" else {}
    if monitors is not None:
        def run(steps):
            sim.run(steps, mode=mode, keep_frames=False)
            return steps
    else:
        def run(steps):
            sim.prog.run(steps, mode=mode, **launch)
            return steps
    run(16)
    rate = time_steps(run, seconds)
    notes = occupancy(sim.prog, mode)
    sim.prog.free()
    sim2, _ = scene(ctx, n, update=update)
    sim2.prog.run(100, mode=mode, **launch)
    return rate, {f: sim2.field(f) for f in CHECKED}, sim2, notes


def occupancy(prog, mode) -> str:
    """The last epoch's participants and the megakernel's registers per invocation, where
    the driver reports them: what a stage in the same shader costs the others (a heavier
    one raises the registers, fewer workgroups fit and join; docs/programs.md)."""
    if mode != "persistent":
        return ""
    runner = prog._runner
    note = f"{runner.participants}/{runner.groups} groups of {runner.local}"
    try:
        regs = prog.statistics(local=runner.local)["megakernel"].registers
    except vkp.UnsupportedError:
        return note
    return note + (f", {regs} registers" if regs is not None else "")


def bench_cupy(cp, sim, init, seconds, graph):
    mod = cp.RawModule(code=CUDA_SOURCE)
    kh, ke = mod.get_function("update_h"), mod.get_function("update_e")
    g = sim.grid
    n = g.shape[0]
    f = {k: cp.asarray(v) for k, v in init.items()}
    ids, ca, cb, n32, ch, idx, idy, idz = cuda_coefficients(cp, sim)
    cells = (n + 1) ** 3
    blocks = (cells + 255) // 256
    args_h = (f["ex"], f["ey"], f["ez"], f["hx"], f["hy"], f["hz"], n32, ch, idx, idy, idz)
    args_e = (f["ex"], f["ey"], f["ez"], f["hx"], f["hy"], f["hz"], ids, ca, cb, n32, idx, idy,
              idz)
    stream = cp.cuda.Stream(non_blocking=True)

    def step():
        kh((blocks,), (256,), args_h)
        ke((blocks,), (256,), args_e)
    if graph:
        run = graph_runner(stream, step)
    else:
        def run(steps):
            with stream:
                for _ in range(steps):
                    step()
            stream.synchronize()
            return steps
    run(100)
    rate = time_steps(run, seconds)
    for k, v in init.items():
        f[k].set(v, stream=stream)     # ordered before the non-blocking stream's steps
    run(100)
    return rate, checked(cp, f)


def checked(cp, fields: dict) -> dict:
    """The CHECKED fields of a CUDA row's state, on the host."""
    return {k: cp.asnumpy(fields[k]) for k in CHECKED}


def cuda_coefficients(cp, sim):
    """What the CUDA kernels take after the fields: the E components' material ids, the
    update coefficients' columns (ca, cb), n, dt / mu0 and the inverse spacings
    (fdtd_glsl.update_tables, on the device)."""
    tables, (ch, idx, idy, idz) = fdtd_glsl.update_tables(sim)
    ids, ca, cb = (cp.asarray(t) for t in tables)
    return ids, ca, cb, np.int32(sim.grid.shape[0]), ch, idx, idy, idz


def fused_setup(cp, sim, init):
    """The two field sets of the fused CUDA kernels (dicts in FIELD_NAMES' order, set 0
    holding `init`) and the arguments after them (cuda_coefficients)."""
    sets = [{k: cp.asarray(init[k]) for k in FIELD_NAMES},
            {k: cp.empty(init[k].shape, init[k].dtype) for k in FIELD_NAMES}]
    rest = cuda_coefficients(cp, sim)
    cp.cuda.Device().synchronize()
    return sets, rest


def bench_fused(cp, sim, init, seconds):
    """steps/s of FUSED_SOURCE (one kernel a step, fields ping-ponged), 100 steps to a
    CUDA graph, and the fields after 100 steps."""
    kern = cp.RawModule(code=FUSED_SOURCE, options=FUSED_OPTIONS).get_function("update_fused")
    sets, rest = fused_setup(cp, sim, init)
    blocks = ((sim.grid.shape[0] + 1) ** 3 + 255) // 256
    stream = cp.cuda.Stream(non_blocking=True)
    parity = [0]

    def step():                      # captured 100 times: an even count ends on set 0
        a, b = sets[parity[0]], sets[1 - parity[0]]
        kern((blocks,), (256,), (*a.values(), *b.values(), *rest))
        parity[0] ^= 1
    run = graph_runner(stream, step)
    run(100)
    rate = time_steps(run, seconds)
    for k, v in sets[0].items():
        v.set(init[k], stream=stream)
    run(100)
    return rate, checked(cp, sets[0])


def bench_cuda_persistent_fused(cp, sim, init, seconds):
    """(steps/s, note, the fields after 100 steps) of FUSED_SOURCE's persistent_fused: the
    fused update as one CUDA kernel a run with a hand-written grid barrier a step, at the
    best of programs.best_persistent's shapes."""
    kern = cp.RawModule(code=FUSED_SOURCE, options=FUSED_OPTIONS).get_function(
        "persistent_fused")
    sets, rest = fused_setup(cp, sim, init)
    arrived = cp.zeros(1, cp.uint32)

    def launch(blocks, local, steps):
        arrived.fill(0)
        kern((blocks,), (local,), (*sets[0].values(), *sets[1].values(), *rest,
                                   np.int32(steps), arrived))
        cp.cuda.Device().synchronize()
    n = sim.grid.shape[0]
    rate, best, note = best_persistent(cp, kern, (n + 1) ** 3, launch, seconds,
                                       scale=n ** 3 / 1e6)     # Mcells/s, as the rows
    for k, v in sets[0].items():
        v.set(init[k])
    launch(*best, 100)
    return rate, note, checked(cp, sets[0])


def bench_floor(cp, n, seconds):
    """steps/s of the traffic floor (FLOOR_SOURCE) on fields of the update's size, 100
    steps to a CUDA graph."""
    mod = cp.RawModule(code=FLOOR_SOURCE)
    kh, ke = mod.get_function("floor_h"), mod.get_function("floor_e")
    cells = (n + 1) ** 3
    cp.random.seed(1)
    f = [cp.random.standard_normal(cells, dtype=cp.float32) for _ in range(6)]
    ids = (cp.random.random_sample(3 * cells, dtype=cp.float32) < 0.5).astype(cp.uint8)
    ca, cb = cp.asarray([1.0, 0.99], cp.float32), cp.asarray([1e-3, 5e-4], cp.float32)
    blocks = (cells + 255) // 256
    cp.cuda.Device().synchronize()       # the fields made on the legacy stream
    stream = cp.cuda.Stream(non_blocking=True)

    def step():
        kh((blocks,), (256,), (*f, np.int64(cells), np.float32(1e-3)))
        ke((blocks,), (256,), (*f, ids, ca, cb, np.int64(cells)))
    run = graph_runner(stream, step)
    run(100)
    return time_steps(run, seconds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--sizes", type=int, nargs="+", default=None,
                    help="cells per side (default: 32 .. 512 on GPUs, 32 48 on CPUs)")
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--monitors", nargs="*", choices=MONITORS, default=None)
    ap.add_argument("--monitor-modes", nargs="+", choices=("persistent", "launch"),
                    default=["persistent"], help="run modes of the --monitors rows")
    ap.add_argument("--groups", type=int, nargs="*", default=[],
                    help="extra persistent rows with these workgroup counts")
    ap.add_argument("--local", type=int, default=None, help="invocations per workgroup")
    ap.add_argument("--updates", nargs="+", choices=("fused", "split"),
                    default=["fused", "split"], help="the solver's update formulations "
                    "(Simulation(update=...)) to run in both modes")
    ap.add_argument("--fused", action="store_true",
                    help="also the update fused into one CUDA kernel a step (FUSED_SOURCE)")
    ap.add_argument("--glsl", action="store_true",
                    help="also the fused update as a hand-written persistent GLSL kernel "
                         "(fdtd_glsl.py; any Vulkan device)")
    ap.add_argument("--cuda-registers", type=int, default=None,
                    help="with --fused: cap the fused CUDA kernels' registers a thread "
                         "(NVRTC --maxrregcount), e.g. at the megakernel's 32")
    ap.add_argument("--hot-threshold", type=float, default=None,
                    help="the hot-cell threshold in V/m (default: the 99.9th percentile of the "
                         "plane's |E| at the start)")
    args = ap.parse_args()
    global HOT_THRESHOLD, FUSED_OPTIONS
    HOT_THRESHOLD = args.hot_threshold
    if args.cuda_registers is not None:
        FUSED_OPTIONS = (f"--maxrregcount={args.cuda_registers}",)
    ctx = vkp.Context(selector(args.device))
    sizes = args.sizes or ([32, 64, 128, 256, 512] if ctx.info.kind != "cpu" else [32, 48])
    cp = cupy_or_none()
    print(f"device: {ctx.info.name}; {BYTES_PER_CELL} bytes per cell-step counted")
    print(f"{'n':>4} {'row':<20} {'Mcells/s':>10} {'GB/s':>8} {'vs cupy':>8}  participants")
    for n in sizes:
        rows, states = [], {}
        for mode in ("persistent", "launch"):
            for update in args.updates:
                rate, states[f"{mode} {update}"], sim, notes = bench_program(
                    ctx, n, mode, args.seconds, update=update)
                rows.append((f"{mode} {update}", rate, notes))
                if (mode, update) == ("persistent", "fused"):     # its shape: --glsl's first
                    mega = (sim.prog._runner.groups, sim.prog._runner.local)
        # the fields' start, for the hand-written rows (the same for every update)
        init = scene(ctx, n, update="fused")[1] if args.glsl or cp is not None else None
        if args.glsl:
            if "fused" not in args.updates:
                mega = (ctx.info.compute_units or 1, 64)
            rate, note, states["fused persist (GLSL)"] = fdtd_glsl.bench(
                ctx, sim, init, args.seconds, fdtd_glsl.shapes(ctx, mega), CHECKED)
            rows.append(("fused persist (GLSL)", rate, note))
        for gr in args.groups:
            rate, _, _, notes = bench_program(ctx, n, "persistent", args.seconds, groups=gr,
                                              local=args.local, update=args.updates[0])
            rows.append((f"persistent g={gr}", rate, notes))
        if args.monitors is not None:
            kinds = args.monitors or ["probe", "slices", "hot"]
            for mode in args.monitor_modes:
                prefix = "session" if mode == "persistent" else "launch session"
                for name, mons in ([(prefix, ())] + [(f"{prefix}+{k}", (k,)) for k in kinds]
                                   + [(f"{prefix}+all", tuple(kinds))]):
                    rate, _, _, notes = bench_program(ctx, n, mode, args.seconds,
                                                      monitors=mons, update=args.updates[0])
                    rows.append((name, rate, notes))
        ref = None
        if cp is not None:
            for graph in (False, True):
                rate, st = bench_cupy(cp, sim, init, args.seconds, graph)
                rows.append(("cupy graph" if graph else "cupy", rate, ""))
                states["cupy"] = st
            ref = rows[-2][1]
            rows.append(("traffic floor", bench_floor(cp, n, args.seconds),
                         "75 bytes a cell, own index only (CUDA graph)"))
            if args.fused:
                rate, states["fused"] = bench_fused(cp, sim, init, args.seconds)
                rows.append(("fused (CUDA)", rate, "one kernel a step, H recomputed where E "
                             "reads it (CUDA graph)"))
                rate, note, states["fused persistent"] = bench_cuda_persistent_fused(
                    cp, sim, init, args.seconds)
                rows.append(("fused persist (CUDA)", rate, note))
        for name, rate, notes in rows:
            mc = rate * n ** 3 / 1e6
            vs = f"{rate / ref:>7.2f}x" if ref else f"{'-':>8}"
            print(f"{n:>4} {name:<20} {mc:>10,.0f} {mc * BYTES_PER_CELL / 1e3:>8,.0f} {vs}"
                  f"  {notes}".rstrip(), flush=True)
        runs = [f"{m} {u}" for m in ("persistent", "launch") for u in args.updates]
        first = states[runs[0]]
        same = all(np.array_equal(first[k], states[r][k]) for r in runs for k in first)
        line = f"{n:>4} {', '.join(runs)} bit-identical after 100 steps: {'yes' if same else 'NO'}"
        if "cupy" in states:
            diff = max(float(np.max(np.abs(first[k] - states["cupy"][k])))
                       for k in states["cupy"])
            scale = max(float(np.max(np.abs(states["cupy"][k]))) for k in states["cupy"])
            line += f"; max |{runs[0]} - cupy| = {diff:.3g} (fields up to {scale:.3g})"
        if "fused persist (GLSL)" in states and "persistent fused" in states:
            mega = states["persistent fused"]       # the formulation it writes by hand
            same = all(np.array_equal(states["fused persist (GLSL)"][k], mega[k])
                       for k in mega)
            line += (f"; fused persist (GLSL) and persistent fused bit-identical: "
                     f"{'yes' if same else 'NO'}")
        for other in ("fused", "fused persistent"):
            if other in states:
                same = all(np.array_equal(states[other][k], states["cupy"][k])
                           for k in states["cupy"])
                line += f"; {other} and cupy bit-identical: {'yes' if same else 'NO'}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
