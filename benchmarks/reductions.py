"""Sum reduction of float32 arrays: vkpersist against NumPy and, where present, CuPy.

    python benchmarks/reductions.py [--device SELECTOR] [--sizes 1e6,1e7,1e8] [--repeats N]

Rows per size, all measured in this run:
  numpy         np.sum(x) of a host array (pairwise, one CPU core)
  vkpersist     vkp.sum(dx) of a resident device array + ctx.synchronize(), the result a
                0-d device array (one launch: per-workgroup partials, the last
                workgroup sums them; the line after the table counts the submissions)
  cupy          cupy.sum(cx) + device synchronize, when CuPy and a CUDA device exist
Times are medians in µs; GB/s counts the array's bytes read once. Each row's result is
checked against a float64 sum with the documented bound (docs/reductions.md).
Target (issue 15): vkpersist within 1.5x of CuPy on the H200 for the large sizes.
Defaults are quick on lavapipe (1e6 only); the GPU machine: --sizes 1e6,1e7,1e8.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

import vkpersist as vkp
from _device import selector                  # benchmarks/_device.py
from _common import cupy_or_none, median_us  # benchmarks/_common.py


def _check(name, got, x, exact):
    bound = (x.size / 256 + math.log2(x.size) + 2) * np.finfo(np.float32).eps * \
        float(np.sum(np.abs(x), dtype=np.float64))
    if abs(float(got) - exact) > bound:
        raise SystemExit(f"{name}: sum {float(got)!r} is off by {abs(float(got) - exact):.3g}, "
                         f"more than the bound {bound:.3g}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--sizes", default="1e6", help="comma-separated element counts")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    ctx = vkp.Context(selector(args.device))
    cupy = cupy_or_none()
    print(f"device: {ctx.info.name}; cupy: {'yes' if cupy else 'no'}; "
          f"median of {args.repeats} calls, µs")
    print(f"{'n':>12} {'row':<10} {'µs':>10} {'GB/s':>8} {'vs numpy':>9} {'vs cupy':>8}")
    for n in (int(float(s)) for s in args.sizes.split(",")):
        x = np.random.default_rng(1).random(n, dtype=np.float32)
        exact = float(np.sum(x, dtype=np.float64))
        rows = {"numpy": median_us(lambda: np.sum(x), args.repeats)}
        _check("numpy", np.sum(x), x, exact)
        dx = ctx.asarray(x)

        def device_sum():
            vkp.sum(dx)
            ctx.synchronize()
        rows["vkpersist"] = median_us(device_sum, args.repeats)
        _check("vkpersist", vkp.sum(dx), x, exact)
        if cupy is not None:
            cx = cupy.asarray(x)

            def cupy_sum():
                cupy.sum(cx)
                cupy.cuda.Device().synchronize()
            rows["cupy"] = median_us(cupy_sum, args.repeats)
            _check("cupy", cupy.sum(cx).get(), x, exact)
        for name, us in rows.items():
            vs_cupy = f"{us / rows['cupy']:.2f}x" if "cupy" in rows else "-"
            print(f"{n:>12,} {name:<10} {us:>10.1f} {n * 4 / us / 1e3:>8.1f} "
                  f"{us / rows['numpy']:>8.2f}x {vs_cupy:>8}")
        print(f"{'':>12} vkpersist: {_submissions_per_call(ctx, lambda: vkp.sum(dx))} "
              "queue submission(s) per call")
        dx.free()


def _submissions_per_call(ctx, fn) -> int:
    """How many command buffers one call submits (counted outside the timed loop)."""
    core = ctx._core
    count = [0]
    real = core.submit
    core.submit = lambda *a: count.__setitem__(0, count[0] + 1) or real(*a)
    try:
        fn()
    finally:
        del core.submit
    ctx.synchronize()
    return count[0]


if __name__ == "__main__":
    main()
