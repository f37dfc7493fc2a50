"""Element-wise array math: y = sin(x) + exp(x) on float32 arrays, per size.

    python3 benchmarks/arrays.py [--sizes 1e5] [--device SELECTOR] [--min-time 0.2]
    python3 benchmarks/arrays.py --sizes 1e6,1e7,1e8        # on a GPU

Rows, all measured in this run (times per evaluation, GB/s counting one read of x and one
write of y, 8 bytes an element):
  copy (vec4 GLSL)     a grid-stride vec4 copy kernel x -> y: the device's copy bandwidth
                       (as `python -m vkpersist doctor` measures it), the floor
  vkp copy             vkp.positive(x, out=y): the element-wise machinery with no math
  vkp fused            vkp.jit(lambda a: vkp.sin(a) + vkp.exp(a))(x, out=y): one kernel
  vkp fused, new y     the same, allocating y each call
  vkp unfused          vkp.sin(x) + vkp.exp(x): three launches and two temporaries
  vkp NumPy in/out     the jitted function on a NumPy array: upload, kernel, download
  numpy (CPU)          np.sin(h) + np.exp(h)
  cupy                 cp.sin(c) + cp.exp(c), when CuPy and a CUDA device are present
  cupy fused           cp.fuse of the same expression
Ratios: "vs copy" is time / the vec4 copy's time; "vs cupy" time / CuPy's time for the
same expression (targets on the H200: fused within 1.25x of both).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import vkpersist as vkp
from vkpersist.vk.doctor import _COPY as COPY_GLSL   # the doctor's copy kernel
from _device import selector                  # benchmarks/_device.py


def seconds(fn, sync, min_time: float) -> float:
    """Best time per call over 3 batches, each long enough to time (>= min_time / 3)."""
    fn()
    sync()
    reps = 1
    while True:
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        dt = time.perf_counter() - t
        if dt >= min_time / 3 or reps >= 4096:
            break
        reps *= 2
    best = dt / reps
    for _ in range(2):
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t) / reps)
    return best


def cupy_rows(host, min_time):
    try:
        import cupy as cp
        if cp.cuda.runtime.getDeviceCount() < 1:
            return {}
    except Exception:                    # no CuPy, no CUDA driver, no device
        return {}
    c = cp.asarray(host)
    sync = cp.cuda.get_current_stream().synchronize
    rows = {"cupy": seconds(lambda: cp.sin(c) + cp.exp(c), sync, min_time)}

    @cp.fuse()
    def fused(a):
        return cp.sin(a) + cp.exp(a)
    try:
        rows["cupy fused"] = seconds(lambda: fused(c), sync, min_time)
    except Exception as exc:              # an old CuPy without fuse for this: say so
        print(f"  (cupy fused skipped: {type(exc).__name__}: {exc})")
    return rows


def measure(ctx, n: int, min_time: float, numpy_rows: bool) -> dict:
    host = np.random.default_rng(0).uniform(-2, 2, n).astype(np.float32)
    x = ctx.asarray(host)
    y = ctx.empty(n, np.float32)
    sync = ctx.synchronize
    f = vkp.jit(lambda a: vkp.sin(a) + vkp.exp(a))
    copy = vkp.lowlevel.GLSLKernel(COPY_GLSL, name="bench_copy")
    groups = max(1, min(65535, (n // 4 + 255) // 256))
    rows = {
        "copy (vec4 GLSL)": seconds(lambda: copy[groups](x, y, n=n // 4), sync, min_time),
        "vkp copy": seconds(lambda: vkp.positive(x, out=y), sync, min_time),
        "vkp fused": seconds(lambda: f(x, out=y), sync, min_time),
        "vkp fused, new y": seconds(lambda: f(x), sync, min_time),
        "vkp unfused": seconds(lambda: vkp.sin(x) + vkp.exp(x), sync, min_time),
    }
    if numpy_rows:
        rows["vkp NumPy in/out"] = seconds(lambda: f(host), sync, min_time)
        rows["numpy (CPU)"] = seconds(lambda: np.sin(host) + np.exp(host), lambda: None,
                                      min_time)
    rows.update(cupy_rows(host, min_time))
    fused = f(x).numpy()
    unfused = (vkp.sin(x) + vkp.exp(x)).numpy()
    h64 = host.astype(np.float64)
    want, scale = np.sin(h64) + np.exp(h64), np.abs(np.sin(h64)) + np.exp(h64)
    check = (np.array_equal(fused, unfused), float(np.max(np.abs(fused - want) / scale)))
    x.free()
    y.free()
    return rows, check


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e5",
                        help="comma-separated element counts (default 1e5, a few seconds on "
                        "lavapipe; on a GPU: 1e6,1e7,1e8)")
    parser.add_argument("--device", default=None)
    parser.add_argument("--min-time", type=float, default=0.2,
                        help="seconds to spend timing each row (default 0.2)")
    parser.add_argument("--no-numpy", action="store_true",
                        help="skip the NumPy rows (slow on big sizes)")
    args = parser.parse_args()
    ctx = vkp.Context(selector(args.device))
    print(f"device: {ctx.info.name}")
    for size in args.sizes.split(","):
        n = int(float(size)) // 4 * 4
        rows, (identical, rel) = measure(ctx, n, args.min_time, not args.no_numpy)
        print(f"\ny = sin(x) + exp(x), {n:.0e} float32 ({n * 4 / 1e6:.0f} MB); fused == unfused "
              f"bit for bit: {identical}; max error vs float64: {rel:.1e} of |sin|+exp")
        copy_t, cupy_t = rows["copy (vec4 GLSL)"], rows.get("cupy")
        print(f"  {'':20s} {'time':>10s} {'GB/s':>8s} {'vs copy':>8s} {'vs cupy':>8s}")
        for name, t in rows.items():
            vs_cupy = f"{t / cupy_t:8.2f}" if cupy_t else f"{'-':>8s}"
            print(f"  {name:20s} {t * 1e3:8.3f}ms {8 * n / t / 1e9:8.1f} {t / copy_t:8.2f} "
                  f"{vs_cupy}")
    ctx.close()


if __name__ == "__main__":
    main()
