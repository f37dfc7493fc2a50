"""python -m examples.fdtd3d: the dielectric-sphere scattering scene, headless or live.

    python -m examples.fdtd3d --headless --out out/        # PNGs, GIF, spectrum, HDF5
    python -m examples.fdtd3d --size 64 --steps 4000 --live  # a matplotlib window
    python -m examples.fdtd3d --checkpoint-every 400         # out/checkpoints/fdtd3d_*.h5
    python -m examples.fdtd3d --restart latest               # a killed run goes on
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

import numpy as np


def parse(argv):
    ap = argparse.ArgumentParser(prog="python -m examples.fdtd3d", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=52, help="cells per side (default 52)")
    ap.add_argument("--steps", type=int, default=1600, help="time steps (default 1600)")
    ap.add_argument("--radius", type=float, default=8, help="sphere radius in cells (default 8)")
    ap.add_argument("--mode", choices=("auto", "persistent", "launch"), default="auto",
                    help="vkpersist run mode (launch: the per-launch fallback)")
    ap.add_argument("--precision", choices=("float32", "float64"), default="float32")
    ap.add_argument("--update", choices=("auto", "fused", "split"), default="auto",
                    help="the Yee update: one fused stage a step (GPUs' default) or an H and "
                         "an E stage (CPUs' default); docs/fdtd.md")
    ap.add_argument("--no-smoothing", action="store_true", help="staircased sphere")
    ap.add_argument("--snap-every", type=int, default=40, help="steps between slice frames")
    view = ap.add_mutually_exclusive_group()
    view.add_argument("--live", action="store_true", help="a live matplotlib window")
    view.add_argument("--headless", action="store_true", help="write files (the default)")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("fdtd3d-out"),
                    help="output folder of --headless (default fdtd3d-out)")
    ap.add_argument("--checkpoint-every", type=int, default=None, metavar="N",
                    help="write the simulation's state every N steps (headless)")
    ap.add_argument("--checkpoint-dir", type=pathlib.Path, default=None,
                    help="where checkpoints go (default OUT/checkpoints)")
    ap.add_argument("--keep", type=int, default=3, help="checkpoints kept (default 3)")
    ap.add_argument("--restart", default=None, metavar="FILE",
                    help="go on from a checkpoint: a file, or 'latest' (the newest in the "
                         "checkpoint folder); the run ends at --steps as an uninterrupted "
                         "one would, bit for bit")
    args = ap.parse_args(argv)
    if args.steps < 1:
        ap.error(f"--steps must be >= 1, got {args.steps}")
    if args.snap_every < 1:
        ap.error(f"--snap-every must be >= 1, got {args.snap_every}")
    if args.checkpoint_every is not None and args.checkpoint_every < 1:
        ap.error(f"--checkpoint-every must be >= 1, got {args.checkpoint_every}")
    if args.keep < 1:
        ap.error(f"--keep must be >= 1, got {args.keep}")
    if (args.checkpoint_every or args.restart) and args.live:
        ap.error("--checkpoint-every and --restart are for headless runs")
    for what, folder in (("--out", args.out), ("--checkpoint-dir", args.checkpoint_dir)):
        if folder is not None and folder.exists() and not folder.is_dir():
            ap.error(f"{what} {folder} is a file, not a folder: name a folder (it is made "
                     "if missing)")
    if args.checkpoint_dir is None:
        args.checkpoint_dir = args.out / "checkpoints"
    return args


def writable(folder: pathlib.Path) -> None:
    """Make `folder` and check that files can be written there, or stop with why."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".fdtd3d-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise SystemExit(f"fdtd3d: cannot write into {folder}/ ({exc.strerror or exc}); "
                         "choose another --out or --checkpoint-dir") from None


def headless(sim, args):
    from . import output
    from .scenes import mie_reference, scattering_cross_section
    out = args.out
    writable(out)                 # before the run: an unwritable folder lost its results
    if args.checkpoint_every:
        writable(args.checkpoint_dir)
    g = sim.grid
    print(f"fdtd3d: {g.shape} cells of {g.spacing[0] * 1e3:g} mm, dt = {g.dt * 1e12:.3f} ps, "
          f"{args.steps} steps on {sim.ctx.info.name}, mode {args.mode}")
    import vkpersist as vkp
    cp = None
    if args.checkpoint_every:
        cp = vkp.Checkpoints(args.checkpoint_dir, every=args.checkpoint_every, keep=args.keep)
    start = 0
    if args.restart:
        path = args.restart
        if path == "latest":
            path = vkp.Checkpoints(args.checkpoint_dir, every=1).latest("fdtd3d")
            if path is None:
                raise SystemExit(f"fdtd3d: --restart latest: no checkpoint in "
                                 f"{args.checkpoint_dir}/")
        start = sim.restore(path)
        if start >= args.steps:
            raise SystemExit(f"fdtd3d: {path} is at step {start}, not before --steps "
                             f"{args.steps}")
        print(f"  restarted from {path} at step {start}")
    t0 = time.perf_counter()
    try:
        sim.run(args.steps - start, mode=args.mode, progress=True, checkpoints=cp)
    except KeyboardInterrupt:     # stopped at a step boundary: keep what was computed
        writable(args.checkpoint_dir)
        path = sim.checkpoint(args.checkpoint_dir / f"fdtd3d_{sim.step:012d}.h5")
        print(f"\nfdtd3d: interrupted at step {sim.step}; its state is in {path}: go on with "
              f"--restart latest --checkpoint-dir {args.checkpoint_dir}", file=sys.stderr)
        raise
    wall = time.perf_counter() - t0
    steps = args.steps - start
    print(f"  {steps} steps in {wall:.1f} s: {g.cells * steps / wall / 1e6:.1f} Mcells/s")
    sigma = scattering_cross_section(sim)
    ref = mie_reference(sim)
    print("  scattering cross-section of the sphere against the Mie series:")
    print("    λ (cells)   2πr/λ    FDTD σ (mm²)   Mie σ (mm²)   error")
    x = 2 * np.pi * sim.mie["radius"] / (np.array(sim.mie["wavelengths"]) * g.spacing[0])
    for wl, xi, s, r in zip(sim.mie["wavelengths"], x, sigma, ref):
        print(f"    {wl:9.3g}   {xi:6.3f}   {s * 1e6:12.4f}   {r * 1e6:11.4f}   {s / r - 1:+6.2%}")
    paths = []
    paths += output.slice_pngs(sim, out, "ez_z", count=8)
    paths += output.slice_pngs(sim, out, "abs_e_y", count=4)
    paths.append(output.slice_gif(sim, out, "ez_z"))
    paths.append(output.probe_spectrum_png(sim, out))
    paths.append(output.cross_section_png(sim, sigma, ref, out))
    paths.append(output.write_hdf5(sim, out / "results.h5",
                                   {"cross_section/freqs": sim.mie["freqs"],
                                    "cross_section/fdtd_m2": sigma, "cross_section/mie_m2": ref}))
    print(f"  wrote {len([p for p in paths if p])} files to {out}/ (slices, ez_z.gif, "
          "probe_spectrum.png, cross_section.png, results.h5)")
    return sigma, ref


def main(argv=None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    from .scenes import mie_sphere
    try:
        sim = mie_sphere(args.size, radius_cells=args.radius, smoothing=not args.no_smoothing,
                         precision=args.precision, snap_every=args.snap_every,
                         update=args.update)
    except ValueError as exc:
        print(f"fdtd3d: {exc}", file=sys.stderr)
        return 2
    if args.live:
        from .live import live
        live(sim, args)
    else:
        headless(sim, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
