"""Convergence of examples/fdtd3d's scattering cross-section against the Mie series:
the n = 2 sphere of scenes.mie_sphere at several radii (cells), with and without subpixel
smoothing, at the same four wavelengths in units of the radius (2.5r, 3.125r, 3.75r, 5r:
20, 25, 30, 40 cells at r = 8).

    python benchmarks/fdtd_mie.py [--radii 8 12 16 24] [--margin 0] [--precision float32]

Prints Q_sca = σ/πr² per wavelength (and σ/σ_Mie - 1 where miepython is installed) and the wall time of each run. The grid grows with the
radius (52 cells at r = 8, scaled), the steps too (1600 at r = 8, scaled), so every run
sees the same physical problem at a finer grid; `--margin` adds cells between the flux box
and the CPML (to separate boundary error from discretisation error).
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import vkpersist as vkp                                      # noqa: E402
from examples.fdtd3d import scenes                           # noqa: E402


def one(ctx, radius, smoothing, margin, precision, gap):
    scale = radius / 8
    size = int(round(52 * scale)) + 2 * margin + 2 * (gap - 3)
    sim = scenes.mie_sphere(size, radius_cells=radius, smoothing=smoothing, ctx=ctx,
                            precision=precision, gap_cells=gap)
    steps = int(round(1600 * scale)) + 2 * margin
    t0 = time.perf_counter()
    sim.run(steps)
    wall = time.perf_counter() - t0
    q = scenes.scattering_cross_section(sim) / (np.pi * sim.mie["radius"] ** 2)
    try:
        ref = scenes.mie_reference(sim) / (np.pi * sim.mie["radius"] ** 2)
    except ImportError:                  # miepython (and its numba, scipy) not installed
        ref = None
    return size, steps, wall, q, ref


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--radii", type=float, nargs="+", default=[8, 12, 16])
    ap.add_argument("--margin", type=int, default=0)
    ap.add_argument("--gap", type=int, default=3,
                    help="cells between the sphere and the total-field box")
    ap.add_argument("--precision", default="float32", choices=("float32", "float64"))
    args = ap.parse_args(argv)
    ctx = vkp.Context()
    print(f"device: {ctx.info.name}; {args.precision}; margin {args.margin} cells")
    print(f"{'r':>5} {'smooth':>6} {'grid':>5} {'steps':>6} {'wall s':>7}   "
          "Q_sca = σ/πr² (and σ/σ_Mie - 1) at λ = 2.5r, 3.125r, 3.75r, 5r")
    for r in args.radii:
        for smoothing in (False, True):
            size, steps, wall, q, ref = one(ctx, r, smoothing, args.margin, args.precision,
                                          args.gap)
            print(f"{r:5g} {str(smoothing):>6} {size:5d} {steps:6d} {wall:7.1f}   "
                  + "  ".join(f"{v:.5f}" for v in q)
                  + ("" if ref is None else "   (" + "  ".join(f"{100 * e:+6.2f}%"
                                                            for e in q / ref - 1) + ")"),
                  flush=True)


if __name__ == "__main__":
    main()
