"""Outputs: point probes (time series, streamed in blocks), 2-D slices (streamed every N
steps), and running DFTs on planes (for flux and scattering cross-sections).

All of them only read the fields, so they run beside the update stages without adding a
grid barrier: those that read E run in the first half of the step (E is complete after
the previous step's last barrier), those that read H in the second half (after the
barrier between update_h and update_e). E is then at t = n·dt and H at (n + ½)·dt, and
each monitor records the time its samples belong to.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import vkpersist as vkp

from .grid import AXES, FIELDS, offsets

SLICE_FIELDS = FIELDS + ("|e|", "|h|")


def check_field(name: str, allowed=SLICE_FIELDS) -> str:
    key = name.lower()
    if key not in allowed:
        raise ValueError(f"unknown field {name!r}; choose one of {', '.join(allowed)}")
    return key


@dataclass
class Probe:
    """Time series of `fields` (e.g. ("ez",) or ("ex", "ey", "ez", "hz")) at the node nearest
    `position` (metres); each component is sampled at its own Yee position of that cell."""
    position: tuple
    fields: tuple = ("ez",)
    name: str = ""

    def __post_init__(self):
        self.fields = tuple(check_field(f, FIELDS) for f in self.fields)


@dataclass
class Slice:
    """A 2-D slice of `field` (a component, "|e|" or "|h|") through the plane `axis` =
    `position` (metres), streamed every `every` steps (the steerable snapshot interval
    `snap_every` when None). `frames`: a vkp.SharedPages to hold its ring of 8 frames, so
    another device can read the slices in place (examples/pipeline.py)."""
    field: str = "ez"
    axis: str = "z"
    position: float | None = None
    every: int | None = None
    name: str = ""
    frames: object = None

    def __post_init__(self):
        self.field = check_field(self.field)
        if self.axis not in AXES:
            raise ValueError(f"slice axis must be 'x', 'y' or 'z', got {self.axis!r}")


@dataclass
class DFTPlane:
    """Running DFTs at `frequencies` (Hz) of the two field components tangential to the
    plane `axis` = `position` (metres), E and H, for Poynting flux through it. `lo`/`hi`
    (metres) bound the plane's extent on the other two axes (default: the whole grid)."""
    axis: str
    position: float
    frequencies: tuple
    lo: tuple | None = None
    hi: tuple | None = None
    name: str = ""

    def __post_init__(self):
        if self.axis not in AXES:
            raise ValueError(f"DFT plane axis must be 'x', 'y' or 'z', got {self.axis!r}")
        self.frequencies = tuple(float(f) for f in np.atleast_1d(self.frequencies))
        if not self.frequencies or any(not f > 0 for f in self.frequencies):
            raise ValueError("DFT frequencies must be positive (Hz)")


def phase_step(f: float, dt: float) -> int:
    """The phase advance per step of frequency f in turns, as a 32-bit fixed-point fraction:
    step n's phase is n·w mod 2³² exactly, however many steps run (a float phase would lose
    digits as n grows)."""
    return int(round((f * dt % 1.0) * 2 ** 32)) % 2 ** 32



PHASOR_BITS = (11, 11, 10)     # a 32-bit phase = three table indices, high to low


def phasor_tables() -> np.ndarray:
    """(6, 2048): cos and sin of 2π·k/2¹¹, 2π·k/2²², 2π·k/2³² for k < 2048 (the last table
    uses its first 1024 entries). exp(2πi·p/2³²) of a 32-bit phase p is the product of
    three entries, so the DFTs need no sin/cos per cell and every device computes the same
    phasors to float32 rounding, whatever its driver's sin/cos."""
    k = np.arange(2048)
    rows = []
    for scale in (2 ** 11, 2 ** 22, 2 ** 32):
        rows += [np.cos(2 * np.pi * k / scale), np.sin(2 * np.pi * k / scale)]
    return np.array(rows)


@vkp.func
def phasor(ph, tab, row):
    """(cos, sin) of 2π·ph/2³² for a vkp.u32 phase `ph`, from the tables at rows `row` ..
    `row` + 5 of `tab`."""
    a = vkp.i32(ph >> 21)
    b = vkp.i32((ph >> 10) & 2047)
    c = vkp.i32(ph & 1023)
    c1 = tab[row, a]
    s1 = tab[row + 1, a]
    c2 = tab[row + 2, b]
    s2 = tab[row + 3, b]
    cr = c1 * c2 - s1 * s2
    sr = s1 * c2 + c1 * s2
    c3 = tab[row + 4, c]
    s3 = tab[row + 5, c]
    return cr * c3 - sr * s3, sr * c3 + cr * s3


@vkp.func
def plane_node(u, v, A, P):
    """Node (i, j, k) of a plane across axis A at index P, with (u, v) along the plane's
    two axes in right-handed order (A = 0: y, z; 1: z, x; 2: x, y), as `cyclic` orders
    them."""
    i = P
    j = u
    k = v
    if A == 1:
        i = v
        j = P
        k = u
    if A == 2:
        i = u
        j = v
        k = P
    return i, j, k


@vkp.func
def accumulate(acc, at, stride, fb, fc, cs, sn):
    """One DFT term: acc[at + q·stride], q = 0 .. 3, += the real and imaginary parts of
    fb·e^(-iθ) and fc·e^(-iθ), with (cs, sn) = (cos θ, sin θ)."""
    acc[at] += fb * cs
    acc[at + stride] -= fb * sn
    acc[at + 2 * stride] += fc * cs
    acc[at + 3 * stride] -= fc * sn


def cyclic(axis: int) -> tuple[int, int]:
    """The two axes across `axis`, in right-handed order (x: y, z; y: z, x; z: x, y)."""
    return (axis + 1) % 3, (axis + 2) % 3


def add_probe_stages(prog, probes_e, probes_h, block, arrays):
    """Stages recording probe samples into a ring of `block` rows, and one emitting the
    block as a frame every `block` steps (rows r hold the steps n with n % block == r)."""
    ex, ey, ez, hx, hy, hz = (arrays[n] for n in ("ex", "ey", "ez", "hx", "hy", "hz"))
    NE, NH = len(probes_e), len(probes_h)
    NV = NE + NH
    PE = tuple((v, c, i, j, k) for v, (c, i, j, k) in enumerate(probes_e))
    PH = tuple((v, c, i, j, k) for v, (c, i, j, k) in enumerate(probes_h))
    BLOCK = block
    # rows 0 .. block-1: E samples, block .. 2·block-1: H samples (one buffer, one binding)
    buf = prog.array("probe_buf", (2 * block, max(NE, NH, 1)), arrays["ex"].dtype)
    sock = prog.memsock("probes", arrays["ex"].dtype, (block, NV), capacity=16,
                        policy="block", payload={"step": vkp.u32})
    arrays["probe_buf"] = buf

    @prog.stage(domain=(1,))
    def record_e(n):
        r = prog.step % BLOCK
        for (v, c, i, j, k) in PE:
            if c == 0:
                buf[r, v] = ex[i, j, k]
            if c == 1:
                buf[r, v] = ey[i, j, k]
            if c == 2:
                buf[r, v] = ez[i, j, k]

    @prog.stage(domain=(1,))
    def record_h(n):
        r = prog.step % BLOCK
        for (v, c, i, j, k) in PH:
            if c == 0:
                buf[BLOCK + r, v] = hx[i, j, k]
            if c == 1:
                buf[BLOCK + r, v] = hy[i, j, k]
            if c == 2:
                buf[BLOCK + r, v] = hz[i, j, k]

    @prog.stage(domain=(BLOCK, NV))
    def emit_probes(r, v):
        if v < NE:
            sock.frame[r, v] = buf[r, v]
        else:
            sock.frame[r, v] = buf[BLOCK + r, v - NE]
        if r == 0 and v == 0:
            sock.step = prog.step

    first = [record_e] if NE else []
    second = ([record_h] if NH else []) + [vkp.every(BLOCK, emit_probes)]
    return first, second, sock


def add_slice_stage(prog, sl, index, plane_shape, arrays, period, name):
    """A stage streaming `sl` through the node plane `index` along its axis."""
    A = AXES.index(sl.axis)
    B, C = cyclic(A)
    P = index
    FIELD = SLICE_FIELDS.index(sl.field)      # compile-time: only its branch compiles
    ex, ey, ez, hx, hy, hz = (arrays[n] for n in ("ex", "ey", "ez", "hx", "hy", "hz"))
    sock = prog.memsock(name, np.float32, plane_shape, capacity=8, policy="block",
                        payload={"step": vkp.u32}, frames=sl.frames)

    def emit_slice(u, v):
        i, j, k = plane_node(u, v, A, P)
        val = 0.0
        if FIELD == 0:
            val = ex[i, j, k]
        if FIELD == 1:
            val = ey[i, j, k]
        if FIELD == 2:
            val = ez[i, j, k]
        if FIELD == 3:
            val = hx[i, j, k]
        if FIELD == 4:
            val = hy[i, j, k]
        if FIELD == 5:
            val = hz[i, j, k]
        if FIELD == 6:
            val = vkp.sqrt(ex[i, j, k] * ex[i, j, k] + ey[i, j, k] * ey[i, j, k]
                           + ez[i, j, k] * ez[i, j, k])
        if FIELD == 7:
            val = vkp.sqrt(hx[i, j, k] * hx[i, j, k] + hy[i, j, k] * hy[i, j, k]
                           + hz[i, j, k] * hz[i, j, k])
        sock.frame[u, v] = vkp.f32(val)
        if u == 0 and v == 0:
            sock.step = prog.step

    emit_slice.__name__ = "emit_" + "".join(ch if ch.isalnum() else "_" for ch in name)
    emit_slice = prog.stage(domain=plane_shape)(emit_slice)
    reads_h = sl.field[0] == "h" or sl.field == "|h|"
    return vkp.every(period, emit_slice), reads_h, sock


class DFTLayout:
    """Where each plane's accumulators sit in the one DFT array: per plane, for each
    frequency f and quantity q (0, 1: the first tangential component's real and imaginary
    parts, 2, 3: the second's), an (nb, nc) block; E's blocks first, then H's, then the
    incident wave's 8 numbers per frequency."""

    def __init__(self, planes, nf):
        self.planes, self.nf = planes, nf
        self.offsets, off = {}, 0
        for d in planes:
            nb, nc = d.hi_idx[0] - d.lo_idx[0] + 1, d.hi_idx[1] - d.lo_idx[1] + 1
            self.offsets[d.name] = (off, nb, nc)
            off += nb * nc
        self.cells = off                 # the stages' domain: every plane's nodes
        self.h_base = nf * 4 * off
        self.inc_base = 2 * self.h_base
        self.size = self.inc_base + nf * 8


def add_dft_stages(prog, planes, freqs, dt, arrays, aux, centre, phasor_row):
    """Two stages accumulating Σ F·exp(-2πi f t) on every DFT plane: tangential E at n·dt
    (first half of the step), tangential H averaged across the plane at (n + ½)·dt (second
    half), and, with a plane wave, the incident E and H at the total-field box's centre."""
    lay = DFTLayout(planes, len(freqs))
    NF, CELLS, HB, IB = lay.nf, lay.cells, lay.h_base, lay.inc_base
    PLANES = tuple((lay.offsets[d.name][0], AXES.index(d.axis), d.index, d.lo_idx[0],
                    d.lo_idx[1], lay.offsets[d.name][1], lay.offsets[d.name][2])
                   for d in planes)
    W = tuple((f, phase_step(freq, dt)) for f, freq in enumerate(freqs))
    ex, ey, ez, hx, hy, hz = (arrays[n] for n in ("ex", "ey", "ez", "hx", "hy", "hz"))
    acc = prog.array("dft", (lay.size,), arrays["ex"].dtype)
    coef = arrays["coef"]
    PH = phasor_row
    INC = aux is not None
    if INC:
        inc = arrays["inc"]                         # E: the state the step starts from
        inc_h = arrays.get("inc_h")                 # H: at (n + ½)·dt (Simulation.build)
        inc_h = inc if inc_h is None else inc_h
        base, mul = aux.node_index()
        M = base + mul * centre

    @prog.stage(domain=(CELLS,))
    def dft_e(n):
        for (off, A, P, LB, LC, NB, NC) in PLANES:
            if off <= n and n < off + NB * NC:
                i, j, k = plane_node(LB + (n - off) // NC, LC + (n - off) % NC, A, P)
                fb = 0.0
                fc = 0.0
                if A == 0:
                    fb = ey[i, j, k]
                    fc = ez[i, j, k]
                if A == 1:
                    fb = ez[i, j, k]
                    fc = ex[i, j, k]
                if A == 2:
                    fb = ex[i, j, k]
                    fc = ey[i, j, k]
                for (f, w) in W:
                    cs, sn = phasor(vkp.u32(prog.step) * vkp.u32(w), coef, PH)
                    accumulate(acc, (4 * f) * CELLS + n, CELLS, fb, fc, cs, sn)
        if INC:
            if n == 0:
                fe = inc[0, M]
                for (f, w) in W:
                    cs, sn = phasor(vkp.u32(prog.step) * vkp.u32(w), coef, PH)
                    acc[IB + 8 * f] += fe * cs
                    acc[IB + 8 * f + 1] -= fe * sn

    @prog.stage(domain=(CELLS,))
    def dft_h(n):
        for (off, A, P, LB, LC, NB, NC) in PLANES:
            if off <= n and n < off + NB * NC:
                i, j, k = plane_node(LB + (n - off) // NC, LC + (n - off) % NC, A, P)
                fb = 0.0
                fc = 0.0
                if A == 0:
                    fb = 0.5 * (hy[i, j, k] + hy[i - 1, j, k])
                    fc = 0.5 * (hz[i, j, k] + hz[i - 1, j, k])
                if A == 1:
                    fb = 0.5 * (hz[i, j, k] + hz[i, j - 1, k])
                    fc = 0.5 * (hx[i, j, k] + hx[i, j - 1, k])
                if A == 2:
                    fb = 0.5 * (hx[i, j, k] + hx[i, j, k - 1])
                    fc = 0.5 * (hy[i, j, k] + hy[i, j, k - 1])
                for (f, w) in W:
                    ph = vkp.u32(prog.step) * vkp.u32(w) + vkp.u32(w // 2)
                    cs, sn = phasor(ph, coef, PH)
                    accumulate(acc, HB + (4 * f) * CELLS + n, CELLS, fb, fc, cs, sn)
        if INC:
            if n == 0:
                fh = 0.5 * (inc_h[1, M] + inc_h[1, M - 1])
                for (f, w) in W:
                    ph = vkp.u32(prog.step) * vkp.u32(w) + vkp.u32(w // 2)
                    cs, sn = phasor(ph, coef, PH)
                    acc[IB + 8 * f + 4] += fh * cs
                    acc[IB + 8 * f + 5] -= fh * sn

    return DFTResults(lay, freqs, acc, dft_e, dft_h, aux)


class DFTResults:
    def __init__(self, layout, freqs, acc, stage_e, stage_h, aux):
        self.layout, self.freqs, self.acc = layout, np.array(freqs), acc
        self.stage_e, self.stage_h, self.aux = stage_e, stage_h, aux

    def read(self, name: str) -> dict:
        lay = self.layout
        d = next(p for p in lay.planes if p.name == name)
        off, nb, nc = lay.offsets[name]
        raw = self.acc.numpy().astype(np.float64)
        sel = [list(self.freqs).index(f) for f in d.frequencies]
        out = {"freqs": np.array(d.frequencies), "plane": d}
        for key, base in (("e", 0), ("h", lay.h_base)):
            block = raw[base:base + lay.nf * 4 * lay.cells].reshape(lay.nf, 4, lay.cells)
            block = block[sel, :, off:off + nb * nc].reshape(len(sel), 2, 2, nb, nc)
            out[key] = block[:, :, 0] + 1j * block[:, :, 1]
        return out

    def read_incident(self, frequencies=None) -> dict:
        """The incident E and H at `frequencies` (default: every DFT frequency, ascending),
        in the order given: the accumulators are kept in ascending frequency, which need
        not be a plane's own order, and a cross-section divides the two entry by entry."""
        lay = self.layout
        raw = self.acc.numpy().astype(np.float64)[lay.inc_base:].reshape(lay.nf, 8)
        freqs = self.freqs if frequencies is None else np.asarray(frequencies, float)
        known = list(self.freqs)
        missing = [f for f in freqs if f not in known]
        if missing:
            raise ValueError(f"no incident DFT at {missing} Hz; the DFT frequencies are {known}")
        sel = [known.index(f) for f in freqs]
        return {"freqs": freqs, "e": raw[sel, 0] + 1j * raw[sel, 1],
                "h": raw[sel, 4] + 1j * raw[sel, 5]}


@dataclass
class HotCells:
    """Cells of the plane `axis` = `position` whose |E| exceeds the steerable threshold
    `hot_threshold` (V/m), found on the GPU every `every` steps (or `snap_every`), pushed
    on a bounded work queue of `capacity` items and streamed to the host as an overlay
    (frames of plane indices). Pushes past the capacity are dropped and counted."""
    axis: str = "z"
    position: float | None = None
    threshold: float = 1.0
    capacity: int = 4096
    every: int | None = None

    def __post_init__(self):
        if self.axis not in AXES:
            raise ValueError(f"hot-cell axis must be 'x', 'y' or 'z', got {self.axis!r}")
        if int(self.capacity) != self.capacity or not 1 <= self.capacity <= 1 << 20:
            raise ValueError(f"hot-cell capacity must be 1 .. {1 << 20}, got {self.capacity}")


def add_hot_cell_stages(prog, hot, index, plane_shape, arrays, ctl, period):
    """find_hot pushes the plane's cells above the threshold onto a queue; collect_hot (a
    queue stage) drains it into a list; emit_hot streams the list with its length."""
    A = AXES.index(hot.axis)
    P = index
    NC = plane_shape[1]
    CAP = int(hot.capacity)
    ex, ey, ez = arrays["ex"], arrays["ey"], arrays["ez"]
    queue = prog.queue("hot_queue", vkp.i32, capacity=CAP)
    found = prog.array("hot_list", (CAP + 1,), np.int32)       # [0]: count, then cells
    sock = prog.memsock("hot_cells", np.int32, (CAP,), capacity=8, policy="block",
                        payload={"step": vkp.u32, "count": vkp.i32})

    @prog.stage(domain=plane_shape)
    def find_hot(u, v):
        i, j, k = plane_node(u, v, A, P)
        e2 = ex[i, j, k] * ex[i, j, k] + ey[i, j, k] * ey[i, j, k] + ez[i, j, k] * ez[i, j, k]
        t = ctl.hot_threshold
        if e2 > t * t:
            queue.push(u * NC + v)

    @prog.stage(consumes=queue)
    def collect_hot(cell):
        slot = vkp.atomic.add(found, 0, 1)
        if slot < CAP:
            found[slot + 1] = cell

    @prog.stage(domain=(CAP,))
    def emit_hot(n):
        count = min(found[0], CAP)
        if n < count:
            sock.frame[n] = found[n + 1]
        if n == 0:
            sock.count = count
            sock.step = prog.step

    @prog.stage(domain=(1,))
    def reset_hot(n):
        found[0] = 0

    # all four under one every(): the queue stage too, which outside it synchronises the
    # grid on every step to find its queue empty (one barrier per step more than the
    # Yee update's own, for pushes that happen on one step in `period`)
    return [vkp.every(period, find_hot, collect_hot, emit_hot, reset_hot)], sock, queue
