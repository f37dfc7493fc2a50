"""The Yee update fused into one stage a step (`Simulation(update="fused")`).

kernels.py updates H in one stage and E in the next, so a step costs two grid barriers
and moves every field through memory twice: the E stage reads back the H the stage
before it wrote. Here each invocation computes the new H at its own node and, again, the
new H components its E update reads at the nodes behind it (six more, from the same old
fields), so nothing waits for another workgroup's H within the step: one stage, one grid
barrier (the step's end), and 51 of the 75 bytes a cell moved. The fields, the CPML's ψ
and the 1-D incident grid are array pairs (`prog.array_pair`): a step reads the state
and writes the next one into the other half, since a node's old values are still read
by its neighbours' recomputations while it writes. Every value is computed by the same
functions as in kernels.py (yee.py), so the two formulations agree to rounding and, on
lavapipe in every scene tested, bit for bit; not by guarantee: a driver may contract
a·b + c into one FMA differently where a function is inlined into different code (before
the two shared their functions, lavapipe did in float32 in lossy materials, even where
the source named the FMA, and NVIDIA's driver in float64 with a plane wave), so the tests
compare them to rounding (tests/examples/test_fdtd_fused.py). Within each formulation persistent
and launch modes are bit-identical, as for any program.

What it costs: twice the field memory, and six more H evaluations per node (compute the
GPU had to spare: the FDTD step is bandwidth-bound). Measured on an H100 (2026-12-06,
benchmarks/fdtd.py, the bench's PEC scene): 1.32x the CUDA graph of the two kernels at
128³ and 1.19x at 256³, where the split update's megakernel made 1.03x and 1.04x
(docs/fdtd.md; past 24 million nodes Simulation runs it as launches by default, unless
the megakernel takes the stage's indices in order: Target.ordered_from).
"""
from __future__ import annotations

import vkpersist as vkp

from .kernels import make_aux_updates, make_e_extra, make_hard_source, update_constants
from .yee import Yee


def add_fused_stages(prog, grid, arrays, pml, sources, aux, ctl):
    """Declare update_fused and, with a plane wave, aux_step (the 1-D incident grid's
    whole step); returns them (one phase). `arrays` holds each pair's halves as NAME (the
    state a step reads) and NAME_next, for the fields, "psi"/"psi_next" (dicts by axis)
    and "inc"/"inc_next"."""
    consts = update_constants(grid, pml, sources, aux)
    FT, DT, AUXN = consts.FT, consts.DT, consts.AUXN
    e = tuple(arrays[n] for n in ("ex", "ey", "ez"))
    h = tuple(arrays[n] for n in ("hx", "hy", "hz"))
    ex2, ey2, ez2, hx2, hy2, hz2 = (arrays[n + "_next"]
                                    for n in ("ex", "ey", "ez", "hx", "hy", "hz"))
    coef = arrays["coef"]
    inc, inc2 = arrays.get("inc"), arrays.get("inc_next")
    yee = Yee(consts, arrays["ids"], coef, arrays["psi"], arrays["psi_next"])
    aux_h_new, aux_e_new = make_aux_updates(consts, coef, inc)

    @vkp.func
    def inc_h(m):
        """The 1-D grid's H at (n + ½)·dt at m, from its state at the step's start
        (kernels.py's aux_h, recomputed where it is read)."""
        v = inc[1, m]
        if m < AUXN - 1:
            v = aux_h_new(m)
        return v
    e_extra = make_e_extra(consts, ctl, inc_h)
    hx_own, hy_own, hz_own = (yee.h(c, e, h, inc, True) for c in range(3))
    h_behind = tuple(yee.h(c, e, h, inc, False) for c in range(3))     # recomputed, no ψ
    ex_at, ey_at, ez_at = (yee.e(c, e, h_behind, e_extra) for c in range(3))

    @prog.stage(domain=grid.nodes)
    def update_fused(i, j, k):
        Hx = hx_own(i, j, k)
        Hy = hy_own(i, j, k)
        Hz = hz_own(i, j, k)
        hx2[i, j, k] = Hx
        hy2[i, j, k] = Hy
        hz2[i, j, k] = Hz
        t = vkp.f32((FT(prog.step) + 0.5) * DT)         # the currents' time, (n + ½)·dt
        ex2[i, j, k] = ex_at(i, j, k, Hy, Hz, t)
        ey2[i, j, k] = ey_at(i, j, k, Hz, Hx, t)
        ez2[i, j, k] = ez_at(i, j, k, Hx, Hy, t)

    stages = [update_fused]
    if consts.TFSF:
        hard_source = make_hard_source(consts, ctl)

        @prog.stage(domain=(AUXN,))
        def aux_step(m):
            h = inc_h(m)
            inc2[1, m] = h
            e = inc[0, m]
            if m == 0:                          # the hard source, at E's time (n + 1)·dt
                e = hard_source(vkp.f32((FT(prog.step) + 1.0) * DT))
            elif m < AUXN - 1:
                e = aux_e_new(m, h, inc_h(m - 1))
            inc2[0, m] = e
        stages.append(aux_step)
    return stages
