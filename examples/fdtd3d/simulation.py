"""The scene and its run: `Simulation` collects the grid, materials, sources, boundaries and
monitors, builds them into one vkpersist Program on first use, and runs it, either
synchronously (`sim.run(steps)`) or live under trio (`async with sim.session() as run:`),
where frames arrive while the GPU runs and the source and outputs can be steered.
"""
from __future__ import annotations

import math
from contextlib import asynccontextmanager

import numpy as np
import trio

import vkpersist as vkp

from . import boundaries as bnd
from .grid import AXES, E_COMPONENTS, FIELDS, H_COMPONENTS, Grid
from .kernels import COEF_AUX, COEF_AXIS, COEF_MAT, COEF_PHASOR, add_update_stages
from .kernels_fused import add_fused_stages
from .materials import VACUUM, Material, MaterialMap, Shape
from .monitors import (DFTPlane, HotCells, Probe, Slice, add_dft_stages,
                       add_hot_cell_stages, add_probe_stages, add_slice_stage, cyclic,
                       phasor_tables)
from .sources import WAVEFORMS, Dipole, PlaneWave
from .tfsf import AuxGrid

PRECISIONS = {"float32": np.float32, "float64": np.float64}
UPDATES = ("auto", "fused", "split")
# Past this many nodes, mode="auto" runs the fused update on a GPU as per-launch kernels:
# on an H100 (2026-12-06, benchmarks/fdtd.py) its megakernel made 1.32x / 1.19x the CUDA
# graph at 128³ / 256³ but 0.97x / 0.80x / 0.84x / 0.59x at 320³ / 384³ / 448³ / 512³,
# while its launch mode made 1.15x / 1.13x / 1.13x / 1.07x there (a step of that size is
# milliseconds, so launches cost nothing); the split update's megakernel stays at
# 0.98-1.04x at every size. Not where the device's megakernel takes a stage that large's
# indices in order (Target.ordered_from, NVIDIA): it then beats its launch mode (_mode).
FUSED_PERSISTENT_NODES = 24_000_000



# what build() names its own arrays, queues and memsocks (a slice is a memsock named by
# the user, so it may not take one of these)
_PAIRED = FIELDS + ("inc", "psi_x", "psi_y", "psi_z")       # pairs under update="fused"
INTERNAL_NAMES = frozenset(_PAIRED) | {n + "_next" for n in _PAIRED} | {
    "ids", "coef", "probe_buf", "probes", "dft", "hot_queue", "hot_list", "hot_cells"}


def _check_slice_name(name, taken) -> None:
    """Refuse a slice name when it is given, naming the problem and what is free."""
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
        raise ValueError(f"slice name {name!r} must be a Python identifier not starting with "
                         "'_' (it names the slice's frames, sim.frames[name]), e.g. 'ez_mid'")
    if name in INTERNAL_NAMES:
        raise ValueError(f"slice name {name!r} is taken by the solver itself (its names: "
                         f"{', '.join(sorted(INTERNAL_NAMES))}); choose another, e.g. "
                         f"'{name}_slice'")
    if name in taken:
        raise ValueError(f"a slice named {name!r} exists already (slices: "
                         f"{', '.join(taken)}); give each slice its own name")


class Simulation:
    """A 3-D FDTD scene on a uniform Yee grid.

    `shape`: cells (nx, ny, nz), or `size` in metres with `spacing`; `spacing`: the cell size
    in metres (one number, or (dx, dy, dz)); `courant`: fraction of the 3-D stability limit
    (default 0.99); `precision`: "float32" or "float64" (devices with shaderFloat64);
    `boundaries`: "cpml" (default, 10 cells), "pec", "periodic", a CPML(...) or a dict by
    face ("x-", "x+", ...) or axis; `snap_every`: the steerable interval of slices that name
    no interval of their own; `update`: "fused" (the Yee update as one stage a step, H
    recomputed where E reads it, fields double-buffered: kernels_fused.py), "split" (an H
    stage and an E stage, the fields once), or "auto" (the default: fused on GPUs where
    twice the fields fit, split on CPU devices, where the recomputation costs more than
    the memory traffic it saves). The two agree to rounding, usually bit for bit
    (kernels_fused.py says when not)."""

    def __init__(self, shape=None, *, spacing, size=None, courant: float = 0.99,
                 precision: str = "float32", boundaries="cpml", background: Material = VACUUM,
                 snap_every: int = 20, probe_block: int = 64, update: str = "auto",
                 ctx=None):
        spacing = (float(spacing),) * 3 if np.ndim(spacing) == 0 else tuple(map(float, spacing))
        if (shape is None) == (size is None):
            raise ValueError("give the grid as shape=(nx, ny, nz) cells or size=(Lx, Ly, Lz) "
                             "metres, not both and not neither")
        if shape is None:
            if np.ndim(size) != 1 or len(size) != 3 or not all(
                    isinstance(s, (int, float, np.number)) and s > 0 and np.isfinite(s)
                    for s in size):
                raise ValueError(f"size takes 3 positive lengths in metres, got {size!r}")
            shape = tuple(int(round(s / d)) for s, d in zip(size, spacing))
            if min(shape) < 2:
                raise ValueError(f"size {tuple(size)} m at spacing {spacing} m is {shape} "
                                 "cells; the grid needs at least 2 cells along every axis")
        elif np.ndim(shape) != 1 or len(shape) != 3 or not all(
                isinstance(n, (int, float, np.number)) and float(n).is_integer() and n >= 2
                for n in shape):
            raise ValueError(f"shape takes 3 whole numbers of cells, each at least 2, got "
                             f"{shape!r}")
        if update not in UPDATES:
            raise ValueError(f"update must be one of {', '.join(UPDATES)}, got {update!r}")
        self.update = update
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
        self.grid = Grid(tuple(int(n) for n in shape), spacing, courant, PRECISIONS[precision])
        self.ctx = ctx if ctx is not None else vkp.default_context()
        if precision == "float64" and not self.ctx.info.float64:
            raise vkp.UnsupportedError(f"{self.ctx.info.name} has no float64 (shaderFloat64); "
                                       "use precision='float32'")
        self.boundaries = bnd.parse(boundaries, self.grid.shape)
        self._check_memory(6.75)            # before the host-side material map is made
        self.materials = MaterialMap(self.grid, background)
        if int(snap_every) != snap_every or snap_every < 1:
            raise ValueError(f"snap_every must be a whole number of steps >= 1, got {snap_every}")
        if int(probe_block) != probe_block or not 1 <= probe_block <= 4096:
            raise ValueError(f"probe_block must be 1 .. 4096 steps, got {probe_block}")
        self.snap_every, self.probe_block = int(snap_every), int(probe_block)
        self.sources: list = []
        self.probes: list[Probe] = []
        self.slices: list[Slice] = []
        self.dfts: list[DFTPlane] = []
        self.hot: HotCells | None = None
        self.hot_frames: list = []
        self.prog = None
        self.fused = None                   # which update build() made (update="auto")
        self.frames: dict[str, list] = {}
        self._probe_rows: dict[int, np.ndarray] = {}
        self._slice_callbacks, self._keep_frames = [], True

    # ---- scene ------------------------------------------------------------------------------
    def _scene(self, what):
        if self.prog is not None:
            raise RuntimeError(f"cannot {what}: the simulation was built when it first ran; "
                               "make a new Simulation for a new scene")

    def add(self, shape: Shape, material: Material, *, smoothing: bool = False) -> None:
        """Fill `shape` with `material` (later shapes overwrite earlier ones)."""
        self._scene("add a shape")
        if not isinstance(shape, Shape):
            raise TypeError(f"add() takes a Box, Sphere, Cylinder or Mask, got {type(shape).__name__}")
        self.materials.paint(shape, material, smoothing)

    def add_source(self, source) -> None:
        self._scene("add a source")
        if not isinstance(source, (Dipole, PlaneWave)):
            raise TypeError(f"add_source() takes a Dipole or PlaneWave, got {type(source).__name__}")
        if isinstance(source, PlaneWave) and any(isinstance(s, PlaneWave) for s in self.sources):
            raise ValueError("one plane wave per simulation (one TFSF box)")
        self.sources.append(source)

    def add_probe(self, position, fields=("ez",), name: str = "") -> Probe:
        self._scene("add a probe")
        p = Probe(tuple(position), tuple(fields), name or f"probe{len(self.probes)}")
        self.grid.index_of(p.position, f"probe {p.name!r}")
        self.probes.append(p)
        return p

    def add_slice(self, field="ez", axis="z", position=None, every=None, name="",
                  frames=None) -> Slice:
        self._scene("add a slice")
        name = name or f"slice{len(self.slices)}"
        _check_slice_name(name, [s.name for s in self.slices])
        s = Slice(field, axis, position, every, name, frames)
        if every is not None and (int(every) != every or every < 1):
            raise ValueError(f"slice interval must be a whole number of steps >= 1, got {every}")
        self.slices.append(s)
        return s

    def add_dft_plane(self, axis, position, frequencies, lo=None, hi=None, name="") -> DFTPlane:
        self._scene("add a DFT plane")
        d = DFTPlane(axis, float(position), frequencies, lo, hi, name or f"dft{len(self.dfts)}")
        self.dfts.append(d)
        return d

    def add_hot_cells(self, axis="z", position=None, threshold=1.0, capacity=4096,
                      every=None) -> HotCells:
        """Stream the cells of a plane whose |E| exceeds `threshold` V/m (steerable as
        `hot_threshold`) every `every` steps (default `snap_every`): `sim.hot_frames` holds
        (step, (count, 2) plane indices); queue overflow is counted in `hot_dropped`."""
        self._scene("add hot cells")
        if self.hot is not None:
            raise ValueError("one hot-cell plane per simulation")
        if not threshold > 0:
            raise ValueError(f"the hot-cell threshold is a field strength > 0 V/m, got {threshold}")
        self.hot = HotCells(axis, position, float(threshold), capacity, every)
        return self.hot

    @property
    def hot_dropped(self) -> int:
        return self._hot_queue.dropped if self.hot is not None and self.prog is not None else 0

    def add_flux_box(self, lo, hi, frequencies, name="box") -> list[DFTPlane]:
        """Six DFT planes on the faces of the box [lo, hi] (metres), for the net outward
        Poynting flux `flux_box(name)`."""
        planes = []
        for a, axis in enumerate(AXES):
            for side, pos in (("-", lo[a]), ("+", hi[a])):
                planes.append(self.add_dft_plane(axis, pos, frequencies, tuple(lo), tuple(hi),
                                                 name=f"{name}{axis}{side}"))
        return planes

    # ---- building ---------------------------------------------------------------------------
    def _pml_layout(self):
        out = {"periodic": [], "has": [], "lo": [], "hi": []}
        for a, axis in enumerate(AXES):
            lo, hi = self.boundaries[axis + "-"], self.boundaries[axis + "+"]
            out["periodic"].append(lo == "periodic")
            plo = lo.cells if isinstance(lo, bnd.CPML) else 0
            phi = hi.cells if isinstance(hi, bnd.CPML) else 0
            out["lo"].append(plo)
            out["hi"].append(phi)
            out["has"].append(plo + phi > 0)
        return out

    def _source_records(self):
        g = self.grid
        recs = []
        for n, s in enumerate(self.sources):
            if not isinstance(s, Dipole):
                continue
            idx = g.index_of(s.position, f"source {n}")
            c = AXES.index(s.polarization)
            comp = E_COMPONENTS[c]
            lim = [nn - 1 if a == c else nn for a, nn in enumerate(g.shape)]
            if any(not 0 <= i <= m for i, m in zip(idx, lim)) or any(
                    (i == 0 or i == nn) for a, (i, nn) in enumerate(zip(idx, g.shape)) if a != c
                    and self.boundaries[AXES[a] + "-"] != "periodic"):
                raise ValueError(f"source {n} at {s.position} sits on the grid's wall; move it "
                                 "inside")
            if self.materials.is_pec(comp, idx):
                raise ValueError(f"source {n} at {s.position} is inside a PEC object: its "
                                 f"{comp} there is held at zero, so it would radiate nothing")
            area = np.prod([d for a, d in enumerate(g.spacing) if a != c])
            recs.append((c, *idx, WAVEFORMS.index(s.waveform), s.frequency, s.amplitude,
                         s.bandwidth, s.ramp, 1.0 / area, n == 0))
        return recs

    def _aux_grid(self):
        waves = [s for s in self.sources if isinstance(s, PlaneWave)]
        if not waves:
            return None
        w = waves[0]
        g = self.grid
        lo = g.index_of(w.lo, "the TFSF box's lower corner")
        hi = g.index_of(w.hi, "the TFSF box's upper corner")
        pml = self._pml_layout()
        for a, axis in enumerate(AXES):
            if not hi[a] > lo[a]:
                raise ValueError(f"the TFSF box needs hi > lo along {axis}")
            if lo[a] < pml["lo"][a] + 2 or hi[a] > g.shape[a] - pml["hi"][a] - 2:
                raise ValueError(f"the TFSF box along {axis} (nodes {lo[a]} .. {hi[a]}) must stay "
                                 f"at least 2 cells inside the grid and its CPML (nodes "
                                 f"{pml['lo'][a] + 2} .. {g.shape[a] - pml['hi'][a] - 2})")
        bg = self.materials.table[0]
        if bg[0] != 1.0 or bg[1] != 0.0 or bg[2]:
            raise ValueError("a TFSF plane wave needs a vacuum background")
        aux = AuxGrid(w, lo, hi, g.spacing, g.dt, g.dtype)
        aux.primary = self.sources.index(w) == 0
        return aux

    def _fused(self, psi_cells: float) -> bool:
        """Whether build() makes the fused update: `update`, where "auto" means fused on a
        GPU whose largest heap holds the doubled state and whose buffers may span a pair
        (both halves of a field are one buffer), split elsewhere. update="fused" past the
        buffer limit is refused, naming it."""
        pair = 2 * self.grid.bytes_needed(0) // 6                  # one field, both halves
        limit = self.ctx.info.max_storage_buffer_range
        if self.update == "fused" and pair > limit:
            raise vkp.UnsupportedError(
                f"update='fused' keeps each field of a {self.grid.shape} grid in "
                f"{np.dtype(self.grid.dtype)} as one buffer of both halves, {pair / 2**30:.2f} "
                f"GiB, and {self.ctx.info.name} binds at most {limit / 2**30:.2f} GiB "
                "(maxStorageBufferRange): use update='split' (one half the memory) or a "
                "smaller grid")
        if self.update != "auto":
            return self.update == "fused"
        return self.ctx.info.kind != "cpu" and pair <= limit \
            and self._fits(self._extra_arrays(psi_cells, True))

    @staticmethod
    def _extra_arrays(psi_cells: float, fused: bool) -> float:
        """Field-sized arrays beyond the six fields: ψ (`psi_cells` of them) and the three
        material-index bytes (0.75); fused, the second halves of the fields and of ψ."""
        return (6 + 2 * psi_cells if fused else psi_cells) + 0.75

    def _largest_heap(self) -> int:
        heaps = [h.size for h in self.ctx.info.heaps if h.device_local] or \
            [h.size for h in self.ctx.info.heaps]
        return max(heaps)

    def _fits(self, n_arrays_equiv: float) -> bool:
        """Whether the six fields and `n_arrays_equiv` more field-sized arrays fit 90 % of
        the largest heap."""
        return self.grid.bytes_needed(n_arrays_equiv) <= 0.9 * self._largest_heap()

    def _check_memory(self, n_arrays_equiv: float):
        if not self._fits(n_arrays_equiv):
            need = self.grid.bytes_needed(n_arrays_equiv)
            have = self._largest_heap()
            raise vkp.OutOfDeviceMemory(
                f"a {self.grid.shape} grid in {np.dtype(self.grid.dtype)} needs about "
                f"{need / 2**30:.2f} GiB of device memory; {self.ctx.info.name} has "
                f"{have / 2**30:.2f} GiB in its largest heap: use a smaller grid or float32"
                + (", or update='split' (the fused update keeps two copies of the fields)"
                   if self.update == "fused" else ""))

    def build(self):
        """Build the Program (done by the first run); returns it."""
        if self.prog is not None:
            return self.prog
        g = self.grid
        pml = self._pml_layout()
        psi_cells = sum((pml["lo"][a] + pml["hi"][a]) / g.shape[a] * 4 for a in range(3))
        fused = self._fused(psi_cells)
        self._check_memory(self._extra_arrays(psi_cells, fused))
        srcs = self._source_records()
        aux = self._aux_grid()
        prog = vkp.Program(self.ctx, name="fdtd3d")
        dt = g.dtype
        arrays = {}

        def state(name, shape):
            """A field, ψ or the incident grid: (NAME, NAME_next), an array pair when fused
            (kernels_fused.py), else (an array, None)."""
            if fused:
                return prog.array_pair(name, shape, dt)
            return prog.array(name, shape, dt), None
        for f in FIELDS:
            arrays[f], arrays[f + "_next"] = state(f, g.nodes)
        # One array for the three components' material indices (stacked along x), one
        # read-only table for every coefficient, one ψ array per axis with a CPML (its
        # four components stacked along that axis), one for the 1-D incident grid: a
        # shader may bind only so many buffers (32 on lavapipe).
        ids = self.materials.compact_ids()
        arrays["ids"] = prog.array("ids", (3 * g.nodes[0], *g.nodes[1:]), ids["ex"].dtype,
                                   init=np.concatenate([ids[c] for c in E_COMPONENTS]))
        cols = max(max(g.nodes), len(self.materials.table), aux.nodes if aux else 0, 2048)
        coef = np.zeros((COEF_PHASOR + 6, cols))
        coef[COEF_PHASOR:COEF_PHASOR + 6, :2048] = phasor_tables()
        for a, axis in enumerate(AXES):
            lo, hi = self.boundaries[axis + "-"], self.boundaries[axis + "+"]
            cp = bnd.axis_coefficients(lo, hi, g.shape[a], g.spacing[a], g.dt)
            coef[COEF_AXIS[a]:COEF_AXIS[a] + 6, :cp.shape[1]] = cp
        mat = self.materials.coefficients(g.dt, np.float64)
        coef[COEF_MAT:COEF_MAT + 2, :len(mat)] = mat.T
        if aux is not None:
            coef[COEF_AUX:COEF_AUX + 4, :aux.nodes] = aux.coeffs
        arrays["coef"] = prog.array("coef", coef.shape, dt, init=coef.astype(dt))
        psi, psi_next = {}, {}
        for a, axis in enumerate(AXES):
            if pml["has"][a]:
                shape = list(g.nodes)
                shape[a] = 4 * (pml["lo"][a] + pml["hi"][a] + 1)
                psi[axis], psi_next[axis] = state("psi_" + axis, tuple(shape))
        arrays["psi"], arrays["psi_next"] = psi, psi_next
        if aux is not None:
            arrays["inc"], arrays["inc_next"] = state("inc", (2, aux.nodes))
        primary = self.sources[0] if self.sources else None
        ctl = prog.controls(freq=vkp.f32(primary.frequency if primary else 1.0),
                            amp=vkp.f32(primary.amplitude if primary else 0.0),
                            snap_every=vkp.u32(self.snap_every),
                            hot_threshold=vkp.f32(self.hot.threshold if self.hot else 1.0),
                            # steering within physics: a source's frequency above 0 (1 Hz),
                            # slices at least a step apart, a threshold of |E| >= 0; the
                            # amplitude any finite number (NaN and inf are refused anyway)
                            limits={"freq": (1.0, None), "snap_every": (1, None),
                                    "hot_threshold": (0.0, None)})
        if fused:
            phase1, phase2 = add_fused_stages(prog, g, arrays, pml, srcs, aux, ctl), []
            # monitors of E read the state the step starts from (E at n·dt), those of H
            # the new H (at (n + ½)·dt, what update_h leaves in the split form), the DFT's
            # incident H the new 1-D H, the hot cells the new E (at (n + 1)·dt)
            mon = {**arrays, **{h: arrays[h + "_next"] for h in H_COMPONENTS},
                   "inc_h": arrays.get("inc_next")}
            after = {**arrays, **{e: arrays[e + "_next"] for e in E_COMPONENTS}}
        else:
            phase1, phase2 = add_update_stages(prog, g, arrays, pml, srcs, aux, ctl)
            mon = after = arrays
        first, second = [], []
        probes_e, probes_h = [], []
        self._probe_cols = []
        for p in self.probes:
            idx = g.index_of(p.position, f"probe {p.name!r}")
            for f in p.fields:
                c = AXES.index(f[1])
                (probes_e if f[0] == "e" else probes_h).append((c, *idx))
                self._probe_cols.append((p.name, f))
        self._sockets = {}
        if self.probes:
            pf, ps, sock = add_probe_stages(prog, probes_e, probes_h, self.probe_block, mon)
            arrays["probe_buf"] = mon["probe_buf"]
            first += pf
            second += ps
            ne = len(probes_e)
            # frame columns: E probes first, then H
            order_e = [c for c in self._probe_cols if c[1][0] == "e"]
            order_h = [c for c in self._probe_cols if c[1][0] == "h"]
            self._probe_cols = order_e + order_h
            self._n_probe_e = ne
            self._sockets["probes"] = sock
        for s in self.slices:
            a = AXES.index(s.axis)
            pos = s.position if s.position is not None else 0.5 * g.shape[a] * g.spacing[a]
            point = [0.0, 0.0, 0.0]
            point[a] = pos
            index = g.index_of(point, f"slice {s.name!r}")[a]
            b, c = cyclic(a)
            shape = (g.nodes[b], g.nodes[c])
            period = s.every if s.every is not None else ctl.snap_every
            st, reads_h, sock = add_slice_stage(prog, s, index, shape, mon, period, s.name)
            (second if reads_h else first).append(st)
            self._sockets[s.name] = sock
            s.index, s.plane_axes = index, (AXES[b], AXES[c])
        self._dft = None
        if self.dfts:
            planes = []
            for d in self.dfts:
                a = AXES.index(d.axis)
                point = [0.0, 0.0, 0.0]
                point[a] = d.position
                index = g.index_of(point, f"DFT plane {d.name!r}")[a]
                if not 1 <= index <= g.shape[a] - 1:
                    raise ValueError(f"DFT plane {d.name!r} must lie inside the grid along {d.axis}")
                b, c = cyclic(a)
                lo_m = d.lo if d.lo is not None else (0.0, 0.0, 0.0)
                hi_m = d.hi if d.hi is not None else tuple(n * s for n, s in zip(g.shape, g.spacing))
                lo_i = g.index_of(lo_m, f"DFT plane {d.name!r} corner")
                hi_i = g.index_of(hi_m, f"DFT plane {d.name!r} corner")
                d.index, d.lo_idx, d.hi_idx = index, (lo_i[b], lo_i[c]), (hi_i[b], hi_i[c])
                planes.append(d)
            freqs = sorted({f for d in self.dfts for f in d.frequencies})
            centre = None
            if aux is not None:
                centre = (aux.lo[aux.axis] + aux.hi[aux.axis]) // 2
            self._dft = add_dft_stages(prog, planes, freqs, g.dt, mon, aux, centre,
                                       COEF_PHASOR)
            first.append(self._dft.stage_e)
            second.append(self._dft.stage_h)
        last = []
        if self.hot is not None:
            h = self.hot
            a = AXES.index(h.axis)
            point = [0.0, 0.0, 0.0]
            point[a] = h.position if h.position is not None else 0.5 * g.shape[a] * g.spacing[a]
            index = g.index_of(point, "the hot-cell plane")[a]
            b, c = cyclic(a)
            shape = (g.nodes[b], g.nodes[c])
            period = h.every if h.every is not None else ctl.snap_every
            last, sock, self._hot_queue = add_hot_cell_stages(prog, h, index, shape, after,
                                                              ctl, period)
            self._sockets["hot_cells"] = sock
            h.index, h.plane_shape, h.plane_axes = index, shape, (AXES[b], AXES[c])
        prog.loop(*first, *phase1, *phase2, *second, *last)
        for name, sock in self._sockets.items():
            sock.on("frame")(self._on_frame(name))
        self.prog, self.arrays, self.ctl, self.aux = prog, arrays, ctl, aux
        self.fused = fused
        self.frames = {s.name: [] for s in self.slices}
        return prog

    # ---- running ----------------------------------------------------------------------------
    @property
    def step(self) -> int:
        return int(self.prog.step) if self.prog is not None else 0

    @property
    def time(self) -> float:
        return self.step * self.grid.dt

    def _take_probe_frame(self, frame):
        n = int(frame.payload["step"])
        k = self.probe_block
        data = np.array(frame.data, copy=True)
        for s in range(max(0, n - k + 1), n + 1):
            self._probe_rows[s] = data[s % k]

    def _take_tail(self):
        """After a run: the probe samples recorded since the last frame."""
        if not self.probes:
            return
        n = self.step
        k = self.probe_block
        buf = self.arrays["probe_buf"].numpy()
        ne, nv = self._n_probe_e, len(self._probe_cols)
        for s in range(max(0, n - k), n):
            if s not in self._probe_rows:
                self._probe_rows[s] = np.concatenate([buf[s % k, :ne], buf[k + s % k, :nv - ne]])

    def _on_frame(self, name):
        def handle(frame):
            if name == "probes":
                self._take_probe_frame(frame)
                return
            if name == "hot_cells":
                count = int(frame.payload["count"])
                cells = np.array(frame.data[:count], copy=True)
                nc = self.hot.plane_shape[1]
                self.hot_frames.append((int(frame.payload["step"]),
                                        np.stack([cells // nc, cells % nc], axis=1)))
                return
            step = int(frame.payload["step"])
            if self._keep_frames:
                self.frames[name].append((step, np.array(frame.data, copy=True)))
            for cb in self._slice_callbacks:
                cb(name, step, frame.data)
        return handle

    def _drain_left(self):
        """Frames published after the session's handlers stopped."""
        for name, sock in self._sockets.items():
            handle = self._on_frame(name)
            while (frame := sock.poll()) is not None:
                with frame:
                    handle(frame)

    # ---- checkpoints ------------------------------------------------------------------------
    def _host_state(self) -> dict:
        """What the host keeps that the program does not: the probe samples and the hot
        cells taken so far. Called between epochs by the session's driver thread while
        frame handlers add to them on the event loop's: dict() and list() of these copy
        without running Python code, so under the GIL each copy is whole."""
        rows = dict(self._probe_rows)
        hot = list(self.hot_frames)
        steps = np.array(sorted(rows), np.int64)
        out = {"probe_steps": steps}
        if len(steps):
            out["probe_rows"] = np.stack([rows[s] for s in steps])
        if hot:
            out["hot_steps"] = np.array([s for s, _ in hot], np.int64)
            out["hot_counts"] = np.array([len(c) for _, c in hot], np.int64)
            out["hot_cells"] = np.concatenate([c for _, c in hot]).astype(np.int64)
        return out

    def checkpoint(self, path):
        """Write the simulation's state (every field, the CPML's ψ, the incident grid, the
        running DFTs, the probe buffers, the step, which sets the source's phase, and the
        probe samples and hot cells taken so far) to `path` (vkpersist's checkpoint, HDF5).
        Slice frames already taken are not in it (they are outputs: write them first)."""
        self.build()
        return self.prog.checkpoint(path, host=self._host_state())

    def restore(self, path) -> int:
        """Go on from `sim.checkpoint(path)`, written by this scene (the same grid,
        materials, sources and monitors): returns the step it holds."""
        self.build()
        host = {}
        step = self.prog.restore(path, host=host)
        steps = host.get("probe_steps", np.zeros(0, np.int64))
        self._probe_rows = {int(s): row for s, row in zip(steps, host.get("probe_rows", ()))}
        self.hot_frames = []
        if "hot_steps" in host:
            cells = np.split(host["hot_cells"], np.cumsum(host["hot_counts"])[:-1])
            self.hot_frames = [(int(s), c) for s, c in zip(host["hot_steps"], cells)]
        return step

    @asynccontextmanager
    async def session(self, steps: int | None = None, *, mode: str = "auto",
                      keep_frames: bool = True, on_slice=None, checkpoints=None):
        """`async with sim.session(steps) as run:` runs the simulation under trio while the
        body steers it (`await run.send(freq=..., amp=..., snap_every=...)`, `pause()`,
        `resume()`, `stop()`, `wait()`); leaving the block stops it, as vkpersist sessions
        do. Slice frames are kept in `sim.frames[name]` as (step, array) and passed to
        `on_slice(name, step, data)`; probe samples go to `sim.probe(name)`.
        `checkpoints`: a vkp.Checkpoints, which saves the simulation's state as it runs
        (the probe samples and hot cells too)."""
        prog = self.build()
        if checkpoints is not None and checkpoints.host is None:
            checkpoints.host = self._host_state
        self._slice_callbacks = [on_slice] if on_slice else []
        self._keep_frames = keep_frames
        try:
            async with prog.session(steps=steps, mode=self._mode(mode),
                                    checkpoints=checkpoints) as run:
                yield run
        finally:
            self._drain_left()
            self._take_tail()

    def _mode(self, mode: str) -> str:
        """The run mode: `mode`, where "auto" is the program's choice (persistent on GPUs)
        except for the fused update on grids past FUSED_PERSISTENT_NODES where the
        megakernel would not hand its stage the indices in order (Target.ordered_from;
        `prog.step_plan()` says): strided, its workgroups drift apart and it fell behind
        its launch mode (H100: 0.59x the CUDA graph at 512³ against 1.07x); ordered, it
        beats it (H200: 48,007 against 41,632 Mcells/s at 512³). The megakernel orders a
        step's only stage that large wherever it sits, the monitors' small stages beside
        it; a slice or DFT plane of as many cells (a thin grid) would keep the stride."""
        if mode == "auto" and self.fused and self.ctx.info.kind != "cpu" \
                and math.prod(self.grid.nodes) > FUSED_PERSISTENT_NODES \
                and not any(s.in_order for s in self.prog.step_plan()
                            if s.stage == "update_fused"):
            return "launch"
        return mode

    def run(self, steps: int, *, mode: str = "auto", keep_frames: bool = True,
            on_slice=None, progress: bool = False, checkpoints=None):
        """Run `steps` more steps and wait (with a tqdm progress bar if `progress`;
        `checkpoints`: a vkp.Checkpoints); returns the number of steps run."""
        if int(steps) != steps or steps < 1:
            raise ValueError(f"steps must be a whole number >= 1, got {steps}")
        report = {}

        async def main():
            bar = None
            if progress:
                from tqdm import tqdm
                bar = tqdm(total=int(steps), unit="step", desc="fdtd3d", leave=True, mininterval=1.0,
                           disable=None)   # None: off when stderr is no terminal (CI logs)
            start = self.step
            async with self.session(int(steps), mode=mode, keep_frames=keep_frames,
                                    on_slice=on_slice, checkpoints=checkpoints) as run:
                while not run.finished:
                    if bar is not None:
                        bar.n = run.steps_done
                        bar.refresh()
                    with trio.move_on_after(0.2):
                        await run.wait()
                report["steps"] = run.steps_done
            if bar is not None:
                bar.n = self.step - start
                bar.close()
        trio.run(main)
        return report["steps"]

    # ---- results ----------------------------------------------------------------------------
    def field(self, name: str) -> np.ndarray:
        if name not in FIELDS:
            raise ValueError(f"unknown field {name!r}; fields: {', '.join(FIELDS)}")
        self.build()
        return self.arrays[name].numpy()

    def probe(self, name: str) -> dict:
        """{"t_e": times of E samples, "t_h": of H samples, "<field>": samples} for probe
        `name`, over the steps run so far."""
        names = {p.name for p in self.probes}
        if name not in names:
            raise ValueError(f"no probe {name!r}; probes: {', '.join(sorted(names)) or 'none'}")
        steps = np.array(sorted(self._probe_rows))
        out = {"t_e": steps * self.grid.dt, "t_h": (steps + 0.5) * self.grid.dt}
        if not len(steps):
            return out
        rows = np.stack([self._probe_rows[s] for s in steps])
        for col, (pname, f) in enumerate(self._probe_cols):
            if pname == name:
                out[f] = rows[:, col]
        return out

    def dft(self, name: str) -> dict:
        """The DFT plane `name`: {"freqs", "e": (nf, 2, nb, nc) complex, "h": ...} with the
        two tangential components in right-handed order (x: y, z; y: z, x; z: x, y), over
        the plane's nodes (a component sitting at half nodes along an axis uses the first
        nb - 1 or nc - 1 entries)."""
        names = [d.name for d in self.dfts]
        if name not in names:
            raise ValueError(f"no DFT plane {name!r}; planes: {', '.join(names) or 'none'}")
        return self._dft.read(name)

    def incident_dft(self, frequencies=None) -> dict:
        """The plane wave's incident E and H (complex) at the centre of the total-field box,
        from the 1-D grid: what cross-sections are normalised by. At `frequencies` (Hz, in
        that order; e.g. a plane's `sim.dft(name)["freqs"]`), or at every DFT frequency in
        ascending order."""
        if self._dft is None or self.aux is None:
            raise ValueError("incident_dft() needs a plane wave and at least one DFT plane")
        return self._dft.read_incident(frequencies)

    def energy(self) -> float:
        """Electromagnetic energy in joules from the fields now (E at n·dt, H at (n-½)·dt):
        ½Σ(ε|E|² + μ|H|²)·ΔV. For the conserved discrete energy of the Yee scheme, see
        validation.yee_energy."""
        from .validation import field_energy
        return field_energy(self)
