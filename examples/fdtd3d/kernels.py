"""The Yee update as the stages of a vkpersist Program: the split formulation
(`Simulation(update="split")`; kernels_fused.py has the fused one) and what both share.

Two stages carry the whole 3-D update, each covering every component so that one step
costs the two grid barriers a CUDA graph of two kernels would: `update_h` (H from the curl
of E, the CPML's auxiliary ψ inside the layers, the TFSF corrections on the box faces) and
`update_e` (the same for E, with per-component material coefficients and the dipole
currents); the per-component arithmetic is yee.py's. The scene's configuration is
compile-time Python: `if HAS_PML[0]:` compiles only where the x axis has a CPML and
`for src in SOURCES:` unrolls over the sources, so a scene without CPML or TFSF pays
nothing for them. Every stage that follows (probes, slices, DFTs) only reads the fields,
so vkpersist places no barrier for it beyond the two.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

import vkpersist as vkp

from .grid import MU0, Grid
from .sources import WAVEFORMS, waveform
from .yee import COEF_AUX, COEF_AXIS, COEF_MAT, COEF_PHASOR, Yee

__all__ = ["COEF_AUX", "COEF_AXIS", "COEF_MAT", "COEF_PHASOR", "add_update_stages",
           "make_aux_updates", "make_e_extra", "make_hard_source", "update_constants"]


UpdateConstants = namedtuple("UpdateConstants", "NX NY NZ IDX IDY IDZ DT CH PER HAS_PML PLO "
                             "PHI ELO FT QX QY QZ SOURCES TFSF E_CORR_ALL H_CORR PROP AUXN "
                             "AUX_WAVE")


def update_constants(grid: Grid, pml, sources, aux) -> UpdateConstants:
    """The compile-time constants the update's functions and stages close over (both
    formulations, this module's and kernels_fused's): the grid, the CPML layout, the
    sources and the TFSF records."""
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
    return UpdateConstants(NX, NY, NZ, IDX, IDY, IDZ, DT, CH, PER, HAS_PML, PLO, PHI, ELO, FT,
                           QX, QY, QZ, SOURCES, TFSF, E_CORR_ALL, H_CORR, PROP, AUXN, AUX_WAVE)


def make_e_extra(consts, ctl, inc_h):
    """The vkp.func e_extra(c, i, j, k, pos, t): what E component `c` at (i, j, k) gets
    beyond the curl: the TFSF corrections of the faces it lies on (`inc_h(m)`: the 1-D
    grid's H at (n + ½)·dt at m) and minus the dipole currents through it."""
    SOURCES, E_CORR_ALL = consts.SOURCES, consts.E_CORR_ALL

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


def make_hard_source(consts, ctl):
    """The vkp.func hard_source(t): the plane wave at the 1-D grid's first node at time t
    (the primary source's frequency and amplitude steerable)."""
    AUX_KIND, AUX_BW, AUX_RAMP, AUX_PRIMARY, AUX_F, AUX_A = consts.AUX_WAVE

    @vkp.func
    def hard_source(t):
        f = AUX_F
        amp = AUX_A
        if AUX_PRIMARY:
            f = ctl.freq
            amp = ctl.amp
        return amp * waveform(AUX_KIND, t, f, AUX_BW, AUX_RAMP)
    return hard_source


def make_aux_updates(consts, coef, inc):
    """The 1-D incident grid's update as vkp.funcs of its state `inc` (inc[0]: E, inc[1]:
    H): aux_h_new(m), the new H at m < AUXN - 1, and aux_e_new(m, h, h_before), the new E
    at 0 < m < AUXN - 1 from the new H at m and m - 1."""
    AUX = COEF_AUX

    @vkp.func
    def aux_h_new(m):
        return coef[AUX + 2, m] * inc[1, m] - coef[AUX + 3, m] * (inc[0, m + 1] - inc[0, m])

    @vkp.func
    def aux_e_new(m, h, h_before):
        return coef[AUX, m] * inc[0, m] - coef[AUX + 1, m] * (h - h_before)
    return aux_h_new, aux_e_new


def add_update_stages(prog, grid: Grid, arrays, pml, sources, aux, ctl):
    """Declare update_h, update_e and the auxiliary-grid stages; returns them in step order
    as ([phase-1 stages], [phase-2 stages])."""
    consts = update_constants(grid, pml, sources, aux)
    FT, DT, AUXN = consts.FT, consts.DT, consts.AUXN
    e = tuple(arrays[n] for n in ("ex", "ey", "ez"))
    h = tuple(arrays[n] for n in ("hx", "hy", "hz"))
    ex, ey, ez = e
    hx, hy, hz = h
    coef = arrays["coef"]                           # see Simulation.build for the layouts
    inc = arrays.get("inc")                         # inc[0]: E of the 1-D grid, inc[1]: H
    yee = Yee(consts, arrays["ids"], coef, arrays["psi"], arrays["psi"])   # ψ in place

    @vkp.func
    def inc_h(m):
        return inc[1, m]
    e_extra = make_e_extra(consts, ctl, inc_h)
    hx_at, hy_at, hz_at = (yee.h(c, e, h, inc, True) for c in range(3))
    # stores (and E's loads of H) only where a component is updated, as a kernel of its
    # own would: unconditional ones cost the split step 8-11 % at 32³-64³ on an H100
    hx_on, hy_on, hz_on = (yee.h_updated(c) for c in range(3))
    ex_on, ey_on, ez_on = (yee.e_updated(c) for c in range(3))

    def loader(arr):
        @vkp.func
        def load(i, j, k):
            return arr[i, j, k]
        return load
    ex_at, ey_at, ez_at = (yee.e(c, e, tuple(loader(a) for a in h), e_extra) for c in range(3))

    @prog.stage(domain=grid.nodes)
    def update_h(i, j, k):
        if hx_on(i, j, k):
            hx[i, j, k] = hx_at(i, j, k)
        if hy_on(i, j, k):
            hy[i, j, k] = hy_at(i, j, k)
        if hz_on(i, j, k):
            hz[i, j, k] = hz_at(i, j, k)

    @prog.stage(domain=grid.nodes)
    def update_e(i, j, k):
        t = vkp.f32((FT(prog.step) + 0.5) * DT)         # the currents' time, (n + ½)·dt
        if ex_on(i, j, k):
            ex[i, j, k] = ex_at(i, j, k, hy[i, j, k], hz[i, j, k], t)
        if ey_on(i, j, k):
            ey[i, j, k] = ey_at(i, j, k, hz[i, j, k], hx[i, j, k], t)
        if ez_on(i, j, k):
            ez[i, j, k] = ez_at(i, j, k, hx[i, j, k], hy[i, j, k], t)

    phase1, phase2 = [update_h], [update_e]
    if consts.TFSF:
        hard_source = make_hard_source(consts, ctl)
        aux_h_new, aux_e_new = make_aux_updates(consts, coef, inc)

        @prog.stage(domain=(AUXN - 1,))
        def aux_h(m):
            inc[1, m] = aux_h_new(m)

        @prog.stage(domain=(AUXN,))
        def aux_e(m):
            if m == 0:                          # the hard source, at E's time (n + 1)·dt
                inc[0, 0] = hard_source(vkp.f32((FT(prog.step) + 1.0) * DT))
            elif m < AUXN - 1:
                inc[0, m] = aux_e_new(m, inc[1, m], inc[1, m - 1])
        phase1.append(aux_h)
        phase2.append(aux_e)
    return phase1, phase2
