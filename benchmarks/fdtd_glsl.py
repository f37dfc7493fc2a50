"""The fused Yee update written by hand in GLSL as one persistent kernel: benchmarks/fdtd.py
--glsl's `fused persist (GLSL)` row.

Issue 21 asks the megakernel to pass the CUDA graph on the FDTD update at 32³. There the
megakernel (one fused stage a step) and the same formulation written natively in CUDA
(fdtd.py's `fused persist (CUDA)`) differ by ~1 µs a step, and the CUDA kernel's nvcc build
holds 72 registers a thread where the NVIDIA Vulkan driver gives the megakernel 32. This
row separates vkpersist from the driver: the same scheme as the megakernel runs it on
NVIDIA, written as directly as Vulkan allows (one dispatch a run, a grid-stride loop over
the cells, fields ping-ponged between two halves, loads of the half a step reads through
readonly aliases, the megakernel's grid barrier, _common.py's GRID_SYNC_GLSL, a step) and nothing
of vkpersist's code generator, step boundary or scheduler words. Its arithmetic is
fdtd.py's FUSED_SOURCE cell update, value for value, evaluated as written (no fused
multiply-adds, as the megakernel's: glsl_kernel(as_written=True); with GLSL's rules NVIDIA's
driver fuses them and the states part), so its state after 100 steps is compared with the
megakernel's bit for bit. What it makes is what a Vulkan persistent
kernel of this formulation makes on the device; the megakernel's gap to it is vkpersist's
own. On an H100 (2026-12-07, two runs) it made 1.14x the CUDA graph at 32³ with 32
registers, the megakernel then 0.97x (docs/measurements-log.md, the FDTD section).
"""
from __future__ import annotations

import numpy as np

import examples.fdtd3d as fd          # the importer (fdtd.py, a test) puts the root on the path
import vkpersist as vkp
from vkpersist import lowlevel

from vkpersist.vk.target import LOOP_GUARD_LIMIT

from _common import GRID_SYNC_GLSL, LAVAPIPE_SPIN_CAP, SPIN_CAP
from programs import best_shape

GLSL = r"""
#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { float ch; float idx; float idy; float idz; uint steps;
                                  uint groups; uint first; };   // first: steps done before
// sched[32]: arrivals at the grid barrier, sched[64]: barriers that gave up
layout(std430, binding = 0) coherent buffer S { uint sched[]; };
// each field's two halves (the state a step reads at half p = step & 1, the one it writes
// at 1 - p), stored through one block and loaded through a readonly one on the same binding
#define FIELD(b, f) \
    layout(std430, binding = b) nonprivate buffer f##_w { float f[]; }; \
    layout(std430, binding = b) nonprivate readonly buffer f##_r { float f##_ro[]; };
FIELD(1, ex) FIELD(2, ey) FIELD(3, ez) FIELD(4, hx) FIELD(5, hy) FIELD(6, hz)
layout(std430, binding = 7) readonly buffer I { uint8_t ids[]; };  // ex's, ey's, ez's cells
layout(std430, binding = 8) readonly buffer A { float ca[]; };
layout(std430, binding = 9) readonly buffer B { float cb[]; };
""" + GRID_SYNC_GLSL + r"""
// N cells a side, N1 nodes a side, CELLS nodes (constants: the megakernel's are too)
const int N1 = N + 1, CELLS = N1 * N1 * N1, SI = N1 * N1, SJ = N1;

#define LD(f, at) f##_ro[base + (at)]
float hx_new(int base, int o, int i, int j, int k) {
    if (i <= N && j < N && k < N)
        return LD(hx, o) - ch * ((LD(ez, o + SJ) - LD(ez, o)) * idy
                                 - (LD(ey, o + 1) - LD(ey, o)) * idz);
    return LD(hx, o);
}
float hy_new(int base, int o, int i, int j, int k) {
    if (i < N && j <= N && k < N)
        return LD(hy, o) - ch * ((LD(ex, o + 1) - LD(ex, o)) * idz
                                 - (LD(ez, o + SI) - LD(ez, o)) * idx);
    return LD(hy, o);
}
float hz_new(int base, int o, int i, int j, int k) {
    if (i < N && j < N && k <= N)
        return LD(hz, o) - ch * ((LD(ey, o + SI) - LD(ey, o)) * idx
                                 - (LD(ex, o + SJ) - LD(ex, o)) * idy);
    return LD(hz, o);
}

void fused_cell(int base, int out_base, int o) {
    int i = o / SI, j = (o / SJ) % N1, k = o % N1;
    float Hx = hx_new(base, o, i, j, k);
    float Hy = hy_new(base, o, i, j, k);
    float Hz = hz_new(base, o, i, j, k);
    hx[out_base + o] = Hx; hy[out_base + o] = Hy; hz[out_base + o] = Hz;
    float Ex = LD(ex, o), Ey = LD(ey, o), Ez = LD(ez, o);
    if (i < N && 1 <= j && j < N && 1 <= k && k < N) {
        float c = (Hz - hz_new(base, o - SJ, i, j - 1, k)) * idy
                - (Hy - hy_new(base, o - 1, i, j, k - 1)) * idz;
        int m = int(ids[o]);
        Ex = ca[m] * Ex + cb[m] * c;
    }
    if (1 <= i && i < N && j < N && 1 <= k && k < N) {
        float c = (Hx - hx_new(base, o - 1, i, j, k - 1)) * idz
                - (Hz - hz_new(base, o - SI, i - 1, j, k)) * idx;
        int m = int(ids[CELLS + o]);
        Ey = ca[m] * Ey + cb[m] * c;
    }
    if (1 <= i && i < N && 1 <= j && j < N && k < N) {
        float c = (Hy - hy_new(base, o - SI, i - 1, j, k)) * idx
                - (Hx - hx_new(base, o - SJ, i, j - 1, k)) * idy;
        int m = int(ids[2 * CELLS + o]);
        Ez = ca[m] * Ez + cb[m] * c;
    }
    ex[out_base + o] = Ex; ey[out_base + o] = Ey; ez[out_base + o] = Ez;
}

void main() {
    uint target = 0u;
    int stride = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
    for (uint t = 0u; t < steps; t++) {
        int p = int((first + t) & 1u);
        for (int o = int(gl_GlobalInvocationID.x); o < CELLS; o += stride)
            fused_cell(p * CELLS, (1 - p) * CELLS, o);
        grid_sync(target);
    }
}
"""

FIELDS = ("ex", "ey", "ez", "hx", "hy", "hz")


def update_tables(sim) -> tuple[list, list]:
    """What the hand-written updates (this kernel, fdtd.py's CUDA rows) take besides the
    fields, in NumPy: ([the E components' material ids, flat, the update coefficients'
    columns ca and cb], [dt / mu0 and the inverse spacings, as float32])."""
    g = sim.grid
    ids = np.concatenate([sim.materials.compact_ids()[c].reshape(-1)
                          for c in ("ex", "ey", "ez")])
    coef = sim.materials.coefficients(g.dt, np.float32)
    return ([ids, coef[:, 0].copy(), coef[:, 1].copy()],
            [np.float32(g.dt / fd.MU0), *(np.float32(1 / s) for s in g.spacing)])


class FusedKernel:
    """The hand-written kernel for `sim` (an examples.fdtd3d Simulation of n³ cells, its
    update's coefficients), its fields started from `init` ({name: (n+1)³ array})."""

    def __init__(self, ctx, sim, init: dict):
        g = sim.grid
        self.ctx, self.n = ctx, g.shape[0]
        cap = LAVAPIPE_SPIN_CAP if ctx.target.loop_guard else SPIN_CAP
        self.kernel = lowlevel.glsl_kernel(GLSL, defines={"N": self.n, "VARIANT": 0,
                                                          "SPIN_CAP": f"{cap}u",
                                                          "SCOPE": "gl_ScopeDevice"},
                                           name=f"fdtd_fused_glsl_{self.n}", ctx=ctx,
                                           as_written=True)
        self.init = init
        self.fields = {f: ctx.empty(2 * init[f].size, np.float32) for f in FIELDS}
        tables, scalars = update_tables(sim)
        self.tables = [ctx.asarray(t) for t in tables]
        self.consts = dict(zip(("ch", "idx", "idy", "idz"), scalars))
        self.sched = ctx.zeros(128, np.uint32)
        self.reset()

    def reset(self) -> None:
        """Both halves of every field back to `init` (half 0 holds the state)."""
        for f, a in self.fields.items():
            v = self.init[f].astype(np.float32).reshape(-1)
            a.copy_from(np.concatenate([v, v]))

    def run(self, groups: int, local: int, steps: int) -> None:
        """`steps` steps as one dispatch of `groups` workgroups of `local`, waited for;
        RuntimeError if a barrier gave up (not every workgroup ran at once). On lavapipe,
        which ends every loop of an invocation silently after ~65,535 iterations in all
        (the kernel's loop guard reports it), as dispatches of fewer steps."""
        chunk = steps
        if self.ctx.target.loop_guard:     # a step: the cell loop's rounds, a few polls
            rounds = -(-(self.n + 1) ** 3 // (groups * local))
            chunk = max(1, LOOP_GUARD_LIMIT // 2 // (rounds + 8))
        for first in range(0, steps, chunk):
            self.sched.fill(0)
            self.kernel[groups, local](self.sched, *self.fields.values(), *self.tables,
                                       steps=min(chunk, steps - first), groups=groups,
                                       first=first, **self.consts)
            self.ctx.synchronize()
            failed = int(self.sched.numpy()[64])
            if failed:
                raise RuntimeError(f"{failed} grid barrier(s) gave up: not all {groups} "
                                   f"workgroups of {local} ran at once")

    def state(self, names) -> dict:
        """The fields `names` now, as (n+1)³ arrays (after an even number of steps the
        state is in half 0)."""
        shape = self.init[FIELDS[0]].shape
        return {f: self.fields[f].numpy()[:self.init[f].size].reshape(shape) for f in names}

    def registers(self, local: int):
        """The driver's registers a thread, where it reports them, else None."""
        try:
            stats = self.kernel._pipeline(self.ctx, (local, 1, 1)).statistics()[0]
        except vkp.UnsupportedError:        # the driver reports none (lavapipe)
            return None
        return stats.registers


def shapes(ctx, mega: tuple[int, int]) -> list:
    """The launch shapes the row tries: the megakernel's own at this size (`mega`, whose
    workgroups all joined it) and one workgroup of 256 / 512 / 1,024 per SM where the
    driver reports SMs (VK_NV_shader_sm_builtins). On lavapipe one workgroup: its pool's
    threads need not run at once (probes/barrier_floor.py), and a barrier would give up."""
    if ctx.target.workgroups_at_once:
        return [(1, mega[1])]
    units = ctx.info.compute_units
    return [mega] + [(units, local) for local in (256, 512, 1024)
                     if units and local <= ctx.info.max_workgroup_invocations]


def bench(ctx, sim, init, seconds: float, shapes, checked) -> tuple[float, str, dict]:
    """(steps/s, note, the `checked` fields after 100 steps) of the hand-written kernel at
    the best of `shapes` ((groups, local) pairs; one whose workgroups do not all run at
    once is left out, named in the note)."""
    k = FusedKernel(ctx, sim, init)
    rate, best, note = best_shape(shapes, k.run, seconds, scale=k.n ** 3 / 1e6,
                                  registers=k.registers, unit="invocations")
    k.reset()
    k.run(*best, 100)
    return rate, note, k.state(checked)
