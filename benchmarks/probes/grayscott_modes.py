"""Persistent vs launch mode on one program, median of alternating runs, with the
megakernel's participants: is the fallback faster on a CPU device (mode "auto" picks it
there)?

    python benchmarks/probes/grayscott_modes.py [--size 256] [--seconds 3] [--repeat 5]
        [--device SELECTOR]

examples/grayscott.py at `--size`², no frames, `prog.run` for about `--seconds` per run,
the two modes alternating `--repeat` times (so a change in the machine's load reaches
both alike). Prints each mode's median steps/s, min-max, and in how many epochs 1, 2, ...
workgroups took part in the megakernel, plus the machine's load average (CPU devices
share the cores with everything else: read the rows with it).
"""
from __future__ import annotations

import argparse
import collections
import os
import pathlib
import statistics
import sys
import time
import warnings

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))    # the root: examples/
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))    # benchmarks/

import vkpersist as vkp                                     # noqa: E402
from _device import selector                       # noqa: E402  (benchmarks/_device.py)
from examples import grayscott                              # noqa: E402


def one_run(ctx, size: int, mode: str, seconds: float, parts: collections.Counter) -> float:
    prog, _, _ = grayscott.build(ctx, size, every=10**6)
    prog.run(50, mode=mode)                               # compile, warm up, size epochs
    runner = prog._runner
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        before = runner.epochs
        report = prog.run(200, mode=mode)
        steps += report.steps
        if mode == "persistent":
            parts[report.participants] += runner.epochs - before
    rate = steps / (time.perf_counter() - t0)
    prog.free()
    return rate


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--device", default=None)
    args = ap.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)       # participants are counted below
    ctx = vkp.Context(selector(args.device))
    load0 = os.getloadavg()[0]
    rates = {"persistent": [], "launch": []}
    parts = collections.Counter()
    for _ in range(args.repeat):
        for mode in rates:
            rates[mode].append(one_run(ctx, args.size, mode, args.seconds, parts))
    print(f"{ctx.info.name}, {os.cpu_count()} CPUs, load average {load0:.1f} -> "
          f"{os.getloadavg()[0]:.1f}: Gray-Scott {args.size}², median of {args.repeat}")
    for mode, r in rates.items():
        print(f"  {mode:10s} {statistics.median(r):7.0f} steps/s  (min {min(r):.0f}, "
              f"max {max(r):.0f})")
    print("  megakernel epochs by participants: "
          + ", ".join(f"{k}: {v}" for k, v in sorted(parts.items())))
    ctx.close()


if __name__ == "__main__":
    main()
