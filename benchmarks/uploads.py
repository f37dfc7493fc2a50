"""Uploads behind pending work: a loop that uploads a batch, computes on it and keeps the
result on the device, as a data-streaming program does.

    python3 benchmarks/uploads.py [--sizes 65536,1048576] [--device SELECTOR] [--batches 50]

Each iteration uploads a fresh float32 batch (`ctx.asarray`), evaluates
y = sin(x) + exp(x) fused, and accumulates y into a running sum on the device
(`np.add(acc, y, out=acc)`); the sum is read once at the end and checked against NumPy.

Rows, measured in this run (time per iteration):
  queued       uploads are queued behind the pending launches (vk/staging.py): the host
               prepares the next batch while the device computes the last one
  waiting      the same loop with `ctx.synchronize()` after each upload: what every upload
               did before uploads were queued (it waited for all pending work)
  cupy         the same loop with cp.asarray, when CuPy and a CUDA device are present
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import vkpersist as vkp
from _device import selector                       # benchmarks/_device.py


# one function for every loop: a new vkp.jit traces and compiles on its first call, which
# the timed loop would include
SIN_EXP = vkp.jit(lambda a: vkp.sin(a) + vkp.exp(a))


def loop(ctx, batches, wait: bool) -> tuple[float, np.ndarray]:
    acc = ctx.zeros(batches[0].shape, np.float32)
    ctx.synchronize()
    t = time.perf_counter()
    for host in batches:
        x = ctx.asarray(host)
        if wait:
            ctx.synchronize()
        np.add(acc, SIN_EXP(x), out=acc)
    total = acc.numpy()
    return (time.perf_counter() - t) / len(batches), total


def cupy_loop(batches):
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception:
        return None
    @cp.fuse()
    def f(a):                   # a named function: cp.fuse names its kernel after it
        return cp.sin(a) + cp.exp(a)
    acc = cp.zeros(batches[0].shape, np.float32)
    for host in batches[:2]:
        acc += f(cp.asarray(host))                # warm-up
    acc[...] = 0
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    for host in batches:
        acc += f(cp.asarray(host))
    total = cp.asnumpy(acc)
    return (time.perf_counter() - t) / len(batches), total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="65536,1048576",
                        help="comma-separated float32 elements per batch")
    parser.add_argument("--device", default=None)
    parser.add_argument("--batches", type=int, default=50)
    args = parser.parse_args()
    ctx = vkp.Context(selector(args.device))
    print(f"device: {ctx.info.name}; {args.batches} batches per row; times per iteration")
    print(f"{'elements':>10} {'row':>8} {'µs':>10} {'vs waiting':>11} {'max rel err':>12}")
    rng = np.random.default_rng(1)
    for n in (int(float(s)) for s in args.sizes.split(",")):
        batches = [rng.random(n, dtype=np.float32) for _ in range(args.batches)]
        want = sum((np.sin(b) + np.exp(b)).astype(np.float64) for b in batches)
        loop(ctx, batches[:2], False)             # compiles and warms up
        rows = {"waiting": loop(ctx, batches, True), "queued": loop(ctx, batches, False)}
        cupy = cupy_loop(batches)
        if cupy is not None:
            rows["cupy"] = cupy
        for name in ("queued", "waiting", "cupy"):
            if name in rows:
                sec, total = rows[name]
                err = float(np.max(np.abs(total - want) / np.abs(want)))
                print(f"{n:>10} {name:>8} {sec * 1e6:>10.1f} "
                      f"{sec / rows['waiting'][0]:>10.2f}x {err:>12.1e}")


if __name__ == "__main__":
    main()
