"""Where the radix sort's time goes: device time of each of its kernels, from timestamps.

    python benchmarks/probes/sort_breakdown.py [--device SELECTOR] [--size N] [--repeats R]

`np.sort` / `np.argsort` of a 1-d float32 device array is vkpersist/_sorting/radix.py: a
`prepare` kernel (keys from floats), eight 4-bit passes of `count` (per-tile digit
counts), `scan_segments` and `scan` (their exclusive prefix sums) and `scatter` (each
tile's keys to their sorted places), then `values` (floats from keys). Normally one
submission; here each kernel is submitted alone with a timestamp after it, so each
interval is that kernel's device time plus one submission's gap (~13 µs on an H100,
benchmarks/probes/submit_floor.py): subtract it in mind for the small kernels. Rows: the
median over the repeats of each kernel's total per sort, its share, and the whole sort
as one submission (and CuPy's, where present) for scale. Sorted results are checked
against NumPy first. Defaults are quick on lavapipe; the GPU machine: --size 16777216.
"""
from __future__ import annotations

import argparse
import collections
import pathlib
import statistics
import sys

import numpy as np

import vkpersist as vkp
from vkpersist._sorting import radix as _radix_sort
from vkpersist.vk.timestamps import Timestamp, elapsed_ms

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))    # benchmarks/
from _device import selector                  # noqa: E402  (benchmarks/_device.py)
from _common import cupy_or_none, median_ms   # noqa: E402  (benchmarks/_common.py)


def breakdown(ctx, dx, indices: bool, repeats: int) -> dict[str, float]:
    """kernel name -> median over `repeats` of its device ms per sort."""
    runs = []
    for _ in range(repeats):
        ctx.synchronize()
        stamps = [("start", Timestamp(ctx))]
        stamps[0][1].record()

        def after(name):
            stamp = Timestamp(ctx)
            stamp.record()
            stamps.append((name, stamp))
        _radix_sort.sort_row(dx, values=not indices, indices=indices, after=after)
        ctx.synchronize()
        per = collections.Counter()
        for (_, start), (name, end) in zip(stamps, stamps[1:]):
            per[name] += elapsed_ms(start, end)
        runs.append(per)
    return {name: statistics.median(r[name] for r in runs) for name in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--size", type=int, default=1 << 16)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    ctx = vkp.Context(selector(args.device))
    rng = np.random.default_rng(7)
    x = rng.standard_normal(args.size).astype(np.float32)
    dx = ctx.asarray(x)
    if not _radix_sort.applies(ctx.info, dx.dtype, 1, dx.size):
        raise SystemExit(f"{ctx.info.name} sorts {args.size} float32 elements without the "
                         "radix sort (too short, or too little shared memory)")
    assert np.array_equal(np.sort(dx).numpy(), np.sort(x))
    assert np.array_equal(np.argsort(dx).numpy(), np.argsort(x, kind="stable"))
    cp = cupy_or_none()
    print(f"device: {ctx.info.name}; {args.size:,} float32, medians of {args.repeats}")
    for name, indices, fn in (("sort", False, np.sort), ("argsort", True, np.argsort)):
        per = breakdown(ctx, dx, indices, args.repeats)
        whole = median_ms(lambda: fn(dx), ctx.synchronize, args.repeats)
        total = sum(per.values())
        line = (f"\n{name}: kernels one by one {total:.3f} ms, as one submission "
                f"{whole:.3f} ms")
        if cp is not None:
            cx = cp.asarray(x)
            theirs = median_ms(lambda: getattr(cp, name)(cx),
                                cp.cuda.runtime.deviceSynchronize, args.repeats)
            line += f", CuPy {theirs:.3f} ms"
        print(line)
        for kernel, ms in sorted(per.items(), key=lambda kv: -kv[1]):
            print(f"  {kernel:<14} {ms:9.3f} ms  {100 * ms / total:5.1f} %")


if __name__ == "__main__":
    main()
