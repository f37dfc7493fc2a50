"""What pushing onto a program's work queue costs when every invocation of a stage pushes
at once (the hot-cell monitor of examples/fdtd3d with a threshold below the field).

    python benchmarks/probes/queue_push.py [--device SELECTOR] [--pushers 65536]
                                    [--capacity 4096 65536] [--modes persistent launch]
                                    [--steps N]

The program: one stage over `pushers` indices (out[i] = 0.5·out[i] + 1, then, in the
"push" row, q.push(i)), and a stage consuming the queue (one atomic add per item). Per
capacity and mode: µs per step without pushes, with pushes, and the difference; with a
capacity below `pushers` every step fills the queue and drops the rest (counted). Before
the fix (one compare-and-swap loop per push, every successful swap making all other
pushers retry), on lavapipe (2 busy cores, 2026-12-04), push cost per step in µs:

    capacity  mode         before   after (one reservation per subgroup)
        4096  persistent    2,309   1,079
        4096  launch        2,389     740
       65536  persistent   13,006   1,952
       65536  launch        7,505   1,474

lavapipe runs 2 workgroups of 8-lane subgroups at once; a GPU runs tens of thousands of
pushers at once, where the swap loop's cost grows with pushers x capacity.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))    # the root: vkpersist
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))    # benchmarks/
import vkpersist as vkp                            # noqa: E402
from _device import selector                       # noqa: E402  (benchmarks/_device.py)


def per_step(ctx, pushers, capacity, mode, steps, push):
    """(seconds per step, best of 3 runs of `steps`, items dropped per step)."""
    prog = vkp.Program(ctx, name="queue_push")
    q = prog.queue("q", vkp.i32, capacity=capacity)
    out = prog.array("out", (pushers,), np.float32)
    taken = prog.array("taken", (1,), np.int32)
    PUSH = push

    @prog.stage(domain=(pushers,))
    def work(i):
        out[i] = out[i] * 0.5 + 1.0
        if PUSH:
            q.push(i)

    @prog.stage(consumes=q)
    def take(item):
        vkp.atomic.add(taken, 0, 1)

    prog.loop(work, take)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", vkp.QueueOverflow)
        prog.run(4, mode=mode)
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            prog.run(steps, mode=mode)
            best = min(best, (time.perf_counter() - t) / steps)
    total = 4 + 3 * steps
    kept, dropped = int(taken.numpy()[0]), q.dropped
    expect = total * min(capacity, pushers) if push else 0
    if kept != expect or dropped != (total * pushers - expect if push else 0):
        raise SystemExit(f"wrong counts: {kept} consumed (expected {expect}), {dropped} dropped")
    prog.free()
    return best, dropped / total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--pushers", type=int, default=65536)
    ap.add_argument("--capacity", type=int, nargs="+", default=[4096, 65536])
    ap.add_argument("--modes", nargs="+", choices=("persistent", "launch"),
                    default=["persistent", "launch"])
    ap.add_argument("--steps", type=int, default=None,
                    help="steps per timed run (default 2000 on GPUs, 20 on CPUs)")
    args = ap.parse_args()
    ctx = vkp.Context(selector(args.device))
    steps = args.steps or (20 if ctx.info.kind == "cpu" else 2000)
    print(f"device: {ctx.info.name}; {args.pushers} pushers per step")
    print(f"{'capacity':>9} {'mode':<11} {'no push us':>10} {'push us':>9} {'cost us':>8} "
          f"{'dropped/step':>12}")
    for cap in args.capacity:
        for mode in args.modes:
            bare, _ = per_step(ctx, args.pushers, cap, mode, steps, False)
            full, dropped = per_step(ctx, args.pushers, cap, mode, steps, True)
            print(f"{cap:>9} {mode:<11} {bare * 1e6:>10.1f} {full * 1e6:>9.1f} "
                  f"{(full - bare) * 1e6:>8.1f} {dropped:>12.0f}", flush=True)


if __name__ == "__main__":
    main()
