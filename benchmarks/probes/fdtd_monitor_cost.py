"""Where a monitor's cost goes in the persistent FDTD: the DFT plane cost 23-26 % at 256³ on
an H100 (issue 47) without raising the megakernel's registers. One row a variant, each a
session of benchmarks/fdtd.py's scene:

    python benchmarks/probes/fdtd_monitor_cost.py [N]      (default 256; run from the repository)

Rows: no monitor; the DFT plane across z (its loads 1 node apart along z, each in its own
cache line) and across x (consecutive along z: coalesced); one frequency against two; the
DFT's stages replaced by stages of the same domain doing one load and one store, before the
update (in its segment) or after its grid barrier, or doing nothing (the extra barrier and
segment alone). A row that matches the DFT's cost says where it is.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))    # benchmarks/: fdtd.py
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))    # examples/

import numpy as np
import vkpersist as vkp
import fdtd as F
import examples.fdtd3d.simulation as S
import examples.fdtd3d.monitors as M
ctx = vkp.Context()
n = int(sys.argv[1]) if len(sys.argv) > 1 else 256     # cells per side
REAL = S.add_dft_stages


def trivial(where_e, where_h):
    """Stages of the DFT's domain doing one load and one store (or nothing)."""
    def make(prog, planes, freqs, dt, arrays, aux, centre, row):
        lay = M.DFTLayout(planes, len(freqs))
        CELLS, NZ = lay.cells, n + 1
        acc = prog.array("dft", (2 * CELLS,), np.float32)
        ex, hx = arrays["ex"], arrays["hx"]

        @prog.stage(domain=(CELLS if where_e else 1,))
        def dft_e(m):
            if where_e:
                acc[m] = acc[m] + ex[m // NZ, m % NZ, 7]

        @prog.stage(domain=(CELLS if where_h else 1,))
        def dft_h(m):
            if where_h:
                acc[CELLS + m] = acc[CELLS + m] + hx[m // NZ, m % NZ, 7]
        return M.DFTResults(lay, freqs, acc, dft_e, dft_h, aux)
    return make


def row(label, mons, patch=None, axis="z", freqs=(10e9, 20e9)):
    S.add_dft_stages = patch or REAL
    real_scene = F.scene

    def scene(ctx, n, monitors=(), update="auto"):
        if "dft" not in monitors:
            return real_scene(ctx, n, monitors, update)
        orig = S.Simulation.add_dft_plane
        S.Simulation.add_dft_plane = lambda self, a, p, f, *r, **k: orig(self, axis, p, freqs, *r, **k)
        try:
            return real_scene(ctx, n, monitors, update)
        finally:
            S.Simulation.add_dft_plane = orig
    F.scene = scene
    try:
        rate, _, _, notes = F.bench_program(ctx, n, "persistent", 1.0, monitors=mons)
    finally:
        F.scene, S.add_dft_stages = real_scene, REAL
    print(f"{label:44s} {rate * n ** 3 / 1e6:9,.0f} Mcells/s  {1e6 / rate:7.1f} us/step  {notes}",
          flush=True)


def main() -> None:
    row("session", ())
    row("dft z, 2 frequencies", ("dft",))
    row("dft x, 2 frequencies", ("dft",), axis="x")
    row("dft z, 1 frequency", ("dft",), freqs=(10e9,))
    row("trivial dft_e (plane-sized) + empty dft_h", ("dft",), trivial(True, False))
    row("empty dft_e + trivial dft_h (after a barrier)", ("dft",), trivial(False, True))
    row("empty dft_e + empty dft_h", ("dft",), trivial(False, False))
    row("session again", ())


if __name__ == "__main__":
    main()
