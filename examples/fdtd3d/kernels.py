"""The Yee update as the stages of a vkpersist Program.

Two stages carry the whole 3-D update, each fused so that one step costs the two grid
barriers a CUDA graph of two kernels would: `update_h` (H from the curl of E, the CPML's
auxiliary ψ inside the layers, the TFSF corrections on the box faces) and `update_e` (the
same for E, with per-component material coefficients and the dipole currents). The
scene's configuration is compile-time Python: `if HAS_PML[0]:` compiles only where the
x axis has a CPML and `for src in SOURCES:` unrolls over the sources, so a scene without
CPML or TFSF pays nothing for them. Every stage that follows (probes, slices, DFTs) only
reads the fields, so vkpersist places no barrier for it beyond the two.
"""
from __future__ import annotations

import numpy as np

import vkpersist as vkp

from .grid import MU0, Grid
from .sources import WAVEFORMS, waveform

# rows of the read-only coefficient table `coef` (Simulation.build fills it)
COEF_AXIS = (0, 6, 12)      # per axis: bE, cE, 1/κE at nodes, bH, cH, 1/κH at half nodes
COEF_MAT = 18               # Ca, Cb of each material (column: the material index)
COEF_AUX = 20               # the 1-D incident grid: ca, cb (E), da, db (H)
COEF_PHASOR = 24            # the DFTs' phasor tables (monitors.phasor_tables)


@vkp.func
def stretched(d, psi, pi, pj, pk, cp, n, row):
    """CPML: ψ ← b·ψ + c·∂F, and the stretched derivative ∂F/κ + ψ (coefficient rows
    `row` .. `row` + 2 of the axis table `cp` at index `n`)."""
    v = cp[row, n] * psi[pi, pj, pk] + cp[row + 1, n] * d
    psi[pi, pj, pk] = v
    return d * cp[row + 2, n] + v


def update_constants(grid: Grid, pml, sources, aux) -> tuple:
    """The compile-time constants the update stages close over (both formulations, this
    module's and kernels_fused's): the grid, the CPML layout, the sources and the TFSF
    records, in the order the stage builders unpack them."""
    NX, NY, NZ = grid.shape
    IDX, IDY, IDZ = (1.0 / d for d in grid.spacing)
    DT = grid.dt
    CH = DT / MU0
    PER = tuple(pml["periodic"])
    HAS_PML = tuple(pml["has"])
    PLO = tuple(pml["lo"])
    PHI = tuple(pml["hi"])
    ELO = tuple(0 if p else 1 for p in PER)         # first E node updated on integer axes
    FT = vkp.f64 if np.dtype(grid.dtype) == np.float64 else vkp.f32
    # offsets of each component's ψ block in its axis's stacked array (E, E, H, H)
    QX = PLO[0] + PHI[0] + 1
    QY = PLO[1] + PHI[1] + 1
    QZ = PLO[2] + PHI[2] + 1
    SOURCES = tuple(sources)
    TFSF = aux is not None
    if TFSF:
        e_corr, h_corr = aux.corrections(grid.spacing)
        E_CORR = tuple(e_corr[c] for c in range(3))
        H_CORR = tuple(h_corr[c] for c in range(3))
        PROP = aux.axis
        AUXN = aux.nodes
        AUX_WAVE = (WAVEFORMS.index(aux.wave.waveform), aux.wave.bandwidth, aux.wave.ramp,
                    aux.primary, aux.wave.frequency, aux.wave.amplitude)
    else:
        E_CORR = H_CORR = ((), (), ())
        PROP = 0
        AUXN = 0
        AUX_WAVE = None
    E_CORR_ALL = tuple((c, *r) for c in range(3) for r in E_CORR[c])
    return (NX, NY, NZ, IDX, IDY, IDZ, DT, CH, PER, HAS_PML, PLO, PHI, ELO, FT, QX, QY, QZ,
            SOURCES, TFSF, E_CORR_ALL, H_CORR, PROP, AUXN, AUX_WAVE)


def make_e_extra(consts, ctl, inc_h):
    """The vkp.func e_extra(c, i, j, k, pos, t): what E component `c` at (i, j, k) gets
    beyond the curl: the TFSF corrections of the faces it lies on (`inc_h(m)`: the 1-D
    grid's H at (n + ½)·dt at m) and minus the dipole currents through it."""
    SOURCES, E_CORR_ALL = consts[17], consts[19]

    @vkp.func
    def e_extra(c, i, j, k, pos, t):
        extra = 0.0
        for (cc, a0, a1, b0, b1, c0, c1, weight, base, mul) in E_CORR_ALL:
            if c == cc and a0 <= i and i <= a1 and b0 <= j and j <= b1 and c0 <= k \
                    and k <= c1:
                extra += weight * inc_h(base + mul * pos)
        for (sc, si, sj, sk, kind, f0, a0, bw, ramp, inv_area, primary) in SOURCES:
            if c == sc and i == si and j == sj and k == sk:
                f = f0
                amp = a0
                if primary:
                    f = ctl.freq
                    amp = ctl.amp
                extra -= amp * waveform(kind, t, f, bw, ramp) * inv_area
        return extra
    return e_extra


def add_update_stages(prog, grid: Grid, arrays, pml, sources, aux, ctl):
    """Declare update_h, update_e and the auxiliary-grid stages; returns them in step order
    as ([phase-1 stages], [phase-2 stages])."""
    consts = update_constants(grid, pml, sources, aux)
    (NX, NY, NZ, IDX, IDY, IDZ, DT, CH, PER, HAS_PML, PLO, PHI, ELO, FT, QX, QY, QZ,
     SOURCES, TFSF, E_CORR_ALL, H_CORR, PROP, AUXN, AUX_WAVE) = consts
    ex, ey, ez, hx, hy, hz = (arrays[n] for n in ("ex", "ey", "ez", "hx", "hy", "hz"))
    ids, coef = arrays["ids"], arrays["coef"]       # see Simulation.build for the layouts
    NX1 = NX + 1
    MAT = COEF_MAT
    AUX = COEF_AUX
    psi_x, psi_y, psi_z = (arrays["psi"].get(a) for a in "xyz")
    inc = arrays.get("inc")                         # inc[0]: E of the 1-D grid, inc[1]: H

    @vkp.func
    def inc_h(m):
        return inc[1, m]
    e_extra = make_e_extra(consts, ctl, inc_h)

    @prog.stage(domain=grid.nodes)
    def update_h(i, j, k):
        ip = i + 1
        jp = j + 1
        kp = k + 1
        if PER[0]:
            if ip == NX:
                ip = 0
        if PER[1]:
            if jp == NY:
                jp = 0
        if PER[2]:
            if kp == NZ:
                kp = 0
        pos = i
        if PROP == 1:
            pos = j
        if PROP == 2:
            pos = k
        # Hx at (i, j+½, k+½): curl_x = dEz/dy - dEy/dz
        if i <= NX and j < NY and k < NZ:
            dez = (ez[i, jp, k] - ez[i, j, k]) * IDY
            dey = (ey[i, j, kp] - ey[i, j, k]) * IDZ
            if HAS_PML[1]:
                if j < PLO[1] or j >= NY - PHI[1]:
                    p = j if j < PLO[1] else j - NY + PLO[1] + PHI[1]
                    dez = stretched(dez, psi_y, i, 2 * QY + p, k, coef, j, 9)
            if HAS_PML[2]:
                if k < PLO[2] or k >= NZ - PHI[2]:
                    p = k if k < PLO[2] else k - NZ + PLO[2] + PHI[2]
                    dey = stretched(dey, psi_z, i, j, 2 * QZ + p, coef, k, 15)
            curl = dez - dey
            for (a0, a1, b0, b1, c0, c1, weight, base, mul) in H_CORR[0]:
                if a0 <= i and i <= a1 and b0 <= j and j <= b1 and c0 <= k and k <= c1:
                    curl += weight * inc[0, base + mul * pos]
            hx[i, j, k] = hx[i, j, k] - CH * curl
        # Hy at (i+½, j, k+½): curl_y = dEx/dz - dEz/dx
        if i < NX and j <= NY and k < NZ:
            dex = (ex[i, j, kp] - ex[i, j, k]) * IDZ
            dez = (ez[ip, j, k] - ez[i, j, k]) * IDX
            if HAS_PML[2]:
                if k < PLO[2] or k >= NZ - PHI[2]:
                    p = k if k < PLO[2] else k - NZ + PLO[2] + PHI[2]
                    dex = stretched(dex, psi_z, i, j, 3 * QZ + p, coef, k, 15)
            if HAS_PML[0]:
                if i < PLO[0] or i >= NX - PHI[0]:
                    p = i if i < PLO[0] else i - NX + PLO[0] + PHI[0]
                    dez = stretched(dez, psi_x, 2 * QX + p, j, k, coef, i, 3)
            curl = dex - dez
            for (a0, a1, b0, b1, c0, c1, weight, base, mul) in H_CORR[1]:
                if a0 <= i and i <= a1 and b0 <= j and j <= b1 and c0 <= k and k <= c1:
                    curl += weight * inc[0, base + mul * pos]
            hy[i, j, k] = hy[i, j, k] - CH * curl
        # Hz at (i+½, j+½, k): curl_z = dEy/dx - dEx/dy
        if i < NX and j < NY and k <= NZ:
            dey = (ey[ip, j, k] - ey[i, j, k]) * IDX
            dex = (ex[i, jp, k] - ex[i, j, k]) * IDY
            if HAS_PML[0]:
                if i < PLO[0] or i >= NX - PHI[0]:
                    p = i if i < PLO[0] else i - NX + PLO[0] + PHI[0]
                    dey = stretched(dey, psi_x, 3 * QX + p, j, k, coef, i, 3)
            if HAS_PML[1]:
                if j < PLO[1] or j >= NY - PHI[1]:
                    p = j if j < PLO[1] else j - NY + PLO[1] + PHI[1]
                    dex = stretched(dex, psi_y, i, 3 * QY + p, k, coef, j, 9)
            curl = dey - dex
            for (a0, a1, b0, b1, c0, c1, weight, base, mul) in H_CORR[2]:
                if a0 <= i and i <= a1 and b0 <= j and j <= b1 and c0 <= k and k <= c1:
                    curl += weight * inc[0, base + mul * pos]
            hz[i, j, k] = hz[i, j, k] - CH * curl

    @prog.stage(domain=grid.nodes)
    def update_e(i, j, k):
        im = i - 1
        jm = j - 1
        km = k - 1
        if PER[0]:
            if i == 0:
                im = NX - 1
        if PER[1]:
            if j == 0:
                jm = NY - 1
        if PER[2]:
            if k == 0:
                km = NZ - 1
        pos = i
        if PROP == 1:
            pos = j
        if PROP == 2:
            pos = k
        t = vkp.f32((FT(prog.step) + 0.5) * DT)         # the currents' time, (n + ½)·dt
        # Ex at (i+½, j, k): curl_x = dHz/dy - dHy/dz
        if i < NX and ELO[1] <= j and j < NY and ELO[2] <= k and k < NZ:
            dhz = (hz[i, j, k] - hz[i, jm, k]) * IDY
            dhy = (hy[i, j, k] - hy[i, j, km]) * IDZ
            if HAS_PML[1]:
                if j < PLO[1] or j > NY - PHI[1]:
                    p = j if j < PLO[1] else j - NY + PLO[1] + PHI[1]
                    dhz = stretched(dhz, psi_y, i, p, k, coef, j, 6)
            if HAS_PML[2]:
                if k < PLO[2] or k > NZ - PHI[2]:
                    p = k if k < PLO[2] else k - NZ + PLO[2] + PHI[2]
                    dhy = stretched(dhy, psi_z, i, j, p, coef, k, 12)
            curl = dhz - dhy
            curl += e_extra(0, i, j, k, pos, t)
            m = ids[i, j, k]
            ex[i, j, k] = coef[MAT, m] * ex[i, j, k] + coef[MAT + 1, m] * curl
        # Ey at (i, j+½, k): curl_y = dHx/dz - dHz/dx
        if ELO[0] <= i and i < NX and j < NY and ELO[2] <= k and k < NZ:
            dhx = (hx[i, j, k] - hx[i, j, km]) * IDZ
            dhz = (hz[i, j, k] - hz[im, j, k]) * IDX
            if HAS_PML[2]:
                if k < PLO[2] or k > NZ - PHI[2]:
                    p = k if k < PLO[2] else k - NZ + PLO[2] + PHI[2]
                    dhx = stretched(dhx, psi_z, i, j, QZ + p, coef, k, 12)
            if HAS_PML[0]:
                if i < PLO[0] or i > NX - PHI[0]:
                    p = i if i < PLO[0] else i - NX + PLO[0] + PHI[0]
                    dhz = stretched(dhz, psi_x, p, j, k, coef, i, 0)
            curl = dhx - dhz
            curl += e_extra(1, i, j, k, pos, t)
            m = ids[NX1 + i, j, k]
            ey[i, j, k] = coef[MAT, m] * ey[i, j, k] + coef[MAT + 1, m] * curl
        # Ez at (i, j, k+½): curl_z = dHy/dx - dHx/dy
        if ELO[0] <= i and i < NX and ELO[1] <= j and j < NY and k < NZ:
            dhy = (hy[i, j, k] - hy[im, j, k]) * IDX
            dhx = (hx[i, j, k] - hx[i, jm, k]) * IDY
            if HAS_PML[0]:
                if i < PLO[0] or i > NX - PHI[0]:
                    p = i if i < PLO[0] else i - NX + PLO[0] + PHI[0]
                    dhy = stretched(dhy, psi_x, QX + p, j, k, coef, i, 0)
            if HAS_PML[1]:
                if j < PLO[1] or j > NY - PHI[1]:
                    p = j if j < PLO[1] else j - NY + PLO[1] + PHI[1]
                    dhx = stretched(dhx, psi_y, i, QY + p, k, coef, j, 6)
            curl = dhy - dhx
            curl += e_extra(2, i, j, k, pos, t)
            m = ids[2 * NX1 + i, j, k]
            ez[i, j, k] = coef[MAT, m] * ez[i, j, k] + coef[MAT + 1, m] * curl

    phase1, phase2 = [update_h], [update_e]
    if TFSF:
        AUX_KIND, AUX_BW, AUX_RAMP, AUX_PRIMARY, AUX_F, AUX_A = AUX_WAVE

        @prog.stage(domain=(AUXN - 1,))
        def aux_h(m):
            inc[1, m] = coef[AUX + 2, m] * inc[1, m] - coef[AUX + 3, m] * (inc[0, m + 1] - inc[0, m])

        @prog.stage(domain=(AUXN,))
        def aux_e(m):
            if m == 0:                          # the hard source, at E's time (n + 1)·dt
                f = AUX_F
                amp = AUX_A
                if AUX_PRIMARY:
                    f = ctl.freq
                    amp = ctl.amp
                t = vkp.f32((FT(prog.step) + 1.0) * DT)
                inc[0, 0] = amp * waveform(AUX_KIND, t, f, AUX_BW, AUX_RAMP)
            elif m < AUXN - 1:
                inc[0, m] = coef[AUX, m] * inc[0, m] - coef[AUX + 1, m] * (inc[1, m] - inc[1, m - 1])
        phase1.append(aux_h)
        phase2.append(aux_e)
    return phase1, phase2
