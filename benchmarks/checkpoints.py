"""What periodic checkpoints cost a running FDTD simulation: steps/s with and without them.

    python benchmarks/checkpoints.py --size 256 --steps 3000 --every 1000
    python benchmarks/checkpoints.py --size 48 --steps 200 --every 50      # lavapipe

Each row runs the fdtd3d Mie scene (every field, CPML, plane wave, DFT box, probes,
slices, hot cells) in a session for --steps steps, from the same start: once without
checkpoints (the baseline), once with `vkp.Checkpoints(every=...)`, in --mode. Per
checkpoint it reports how long the device was held (the copy of the state to the host,
between two epochs) and how long the file took on its thread, and the file's size. The
issue's target: at most 5 % of throughput at a checkpoint every 5 minutes of a 256³ run;
`--every` smaller than that measures the cost per checkpoint, which scales down by the
interval. The file system matters as much as the device: say where --folder is.
"""
from __future__ import annotations

import argparse
import pathlib
import re
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # examples/

import vkpersist as vkp                                                  # noqa: E402
from _device import selector                                            # noqa: E402
from examples.fdtd3d.scenes import mie_sphere                           # noqa: E402


def timed_run(ctx, args, checkpoints):
    radius = max(3.0, min(args.size / 6, (args.size - 36) / 2))    # the scene's margins
    sim = mie_sphere(args.size, radius_cells=radius, ctx=ctx, snap_every=args.snap)
    sim.build()
    sim.run(args.warm, mode=args.mode)               # compiled, warm, at the same step
    start = time.perf_counter()
    sim.run(args.steps, mode=args.mode, checkpoints=checkpoints)
    wall = time.perf_counter() - start
    sim.prog.free()
    return args.steps / wall, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--size", type=int, default=48, help="cells per side, >= 42 (default 48)")
    ap.add_argument("--steps", type=int, default=200, help="timed steps (default 200)")
    ap.add_argument("--warm", type=int, default=20, help="untimed steps first (default 20)")
    ap.add_argument("--every", type=int, default=50, help="steps between checkpoints")
    ap.add_argument("--snap", type=int, default=40, help="steps between slice frames")
    ap.add_argument("--mode", choices=("auto", "persistent", "launch"), default="auto")
    ap.add_argument("--folder", type=pathlib.Path, default=None,
                    help="where the files go (default: a temporary folder)")
    args = ap.parse_args()
    ctx = vkp.Context(selector(args.device))
    folder = args.folder or pathlib.Path(tempfile.mkdtemp(prefix="vkp-checkpoints-"))
    print(f"device: {ctx.info.name}; {args.size}³ Mie scene, {args.steps} steps, mode "
          f"{args.mode}; checkpoints every {args.every} steps into {folder}")
    base, base_wall = timed_run(ctx, args, None)
    lines = []
    cp = vkp.Checkpoints(folder, every=args.every, keep=2, log=lines.append)
    with_cp, wall = timed_run(ctx, args, cp)
    held = [float(m.group(1)) for line in lines
            if (m := re.search(r"device held (\d+) ms", line))]
    wrote = [float(m.group(1)) for line in lines
             if (m := re.search(r"written in ([\d.]+) s", line))]
    size = cp.files()[-1][1].stat().st_size / 2**20 if cp.files() else 0.0
    print(f"{'row':<22} {'steps/s':>10} {'wall s':>8} {'vs none':>8}")
    print(f"{'no checkpoints':<22} {base:>10.1f} {base_wall:>8.2f} {1.0:>8.3f}")
    print(f"{'every ' + str(args.every) + ' steps':<22} {with_cp:>10.1f} {wall:>8.2f} "
          f"{with_cp / base:>8.3f}")
    if held:
        print(f"{len(held)} checkpoints of {size:.1f} MiB: device held {min(held):.0f}-"
              f"{max(held):.0f} ms each, files written in {min(wrote):.2f}-{max(wrote):.2f} s "
              "on their thread")
        per = (wall - base_wall) / len(held)
        print(f"cost per checkpoint {per:.3f} s of run time; at one every 5 minutes: "
              f"{100 * per / 300:.2f} % of throughput")


if __name__ == "__main__":
    main()
