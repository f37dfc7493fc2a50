"""NumPy's functions on device arrays: vkpersist against NumPy on the CPU and, where present,
CuPy, in one run. The array layer's newer operations (sorting, FFTs, gathers, masks,
histograms, einsum, linear solves) were written for coverage first; this says how far each
is from CuPy's (CUB radix sort, cuFFT, cuSOLVER) on the same GPU.

    python benchmarks/numpy_functions.py [--device SELECTOR] [--size N] [--repeats R]
                                         [--only NAME ...]

Rows (each a function of float32 data of --size elements unless said): sort, argsort,
fft (complex64, power of two), fft_1000 (a Bluestein length, rows of 1000), gather
(x[idx], random int64 indices), mask (x[x > 0], which waits for the count), histogram
(100 bins), add_at (np.add.at into 1000 bins), einsum ("ij,jk->ik", square float32 of
sqrt(size) per side), solve (float64, 256 x 256), median. Times are medians in ms of
`--repeats` calls, each followed by a device synchronize; every vkpersist result is
checked against NumPy's (to each operation's documented tolerance) before it is timed.
Defaults are quick on lavapipe (2**16 elements); the GPU machine: --size 16777216.
"""
from __future__ import annotations

import argparse

import numpy as np

import vkpersist as vkp
from _device import selector                       # benchmarks/_device.py
from _common import cupy_or_none, median_ms   # benchmarks/_common.py


def cases(n: int, rng):
    """name -> (host inputs, function of (xp, *inputs), tolerance or None for exact)."""
    side = max(16, int(np.sqrt(n)) // 16 * 16)
    x = rng.standard_normal(n).astype(np.float32)
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    rows = max(1, n // 1000)
    z1000 = z[:rows * 1000].reshape(rows, 1000)
    idx = rng.integers(0, n, n)
    bins = rng.integers(0, 1000, n)
    a = rng.standard_normal((side, side)).astype(np.float32)
    m = rng.standard_normal((256, 256)) + 256 * np.eye(256)
    rhs = rng.standard_normal((256, 4))

    def add_at(xp, b, w):
        out = vkp.zeros(1000, ctx=b.ctx) if isinstance(b, vkp.Array) else \
            xp.zeros(1000, np.float32)
        xp.add.at(out, b, w)
        return out
    return {
        "sort": ((x,), lambda xp, v: xp.sort(v), None),
        "argsort": ((x,), lambda xp, v: xp.argsort(v, kind="stable"), None),
        "fft": ((z,), lambda xp, v: xp.fft.fft(v), 1e-5),
        "fft_1000": ((z1000,), lambda xp, v: xp.fft.fft(v, axis=1), 1e-5),
        "gather": ((x, idx), lambda xp, v, i: v[i], None),
        "mask": ((x,), lambda xp, v: v[v > 0], None),
        "histogram": ((x,), lambda xp, v: xp.histogram(v, bins=100, range=(-4, 4))[0], None),
        "add_at": ((bins, x), add_at, 1e-3),
        "einsum": ((a, a), lambda xp, p, q: xp.einsum("ij,jk->ik", p, q), 1e-4),
        "solve": ((m, rhs), lambda xp, p, q: xp.linalg.solve(p, q), 1e-10),
        "median": ((x,), lambda xp, v: xp.median(v), None),
    }


def _check(name, got, want, tol) -> None:
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        raise SystemExit(f"{name}: shape {got.shape}, NumPy's {want.shape}")
    if tol is None:
        if not np.array_equal(got, want):
            raise SystemExit(f"{name}: differs from NumPy")
    elif np.abs(got - want).max() > tol * max(np.abs(want).max(), 1.0):
        raise SystemExit(f"{name}: off from NumPy by {np.abs(got - want).max():.3g}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--size", type=int, default=1 << 16)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    ctx = vkp.Context(selector(args.device))
    cp = cupy_or_none()
    rng = np.random.default_rng(0)
    print(f"device: {ctx.info.name}; size {args.size}; medians of {args.repeats} in ms")
    print(f"{'row':<10} {'numpy':>9} {'vkpersist':>10} {'cupy':>9} {'vkp/cupy':>9}")
    for name, (inputs, fn, tol) in cases(args.size, rng).items():
        if args.only and name not in args.only:
            continue
        want = fn(np, *inputs)
        dev = [ctx.asarray(v) for v in inputs]
        _check(name, fn(np, *dev), want, tol)
        t_np = median_ms(lambda: fn(np, *inputs), lambda: None, args.repeats, warm_s=0)
        t_vk = median_ms(lambda: fn(np, *dev), ctx.synchronize, args.repeats)
        line = f"{name:<10} {t_np:>9.2f} {t_vk:>10.2f}"
        if cp is not None:
            cin = [cp.asarray(v) for v in inputs]
            t_cp = median_ms(lambda: fn(cp, *cin), cp.cuda.Device().synchronize, args.repeats)
            line += f" {t_cp:>9.2f} {t_vk / t_cp:>8.2f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
