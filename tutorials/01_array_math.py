"""Lesson 1: array math on the GPU.

`vkp.sin`, `vkp.exp`, `+`, `*`, ... take NumPy arrays, device arrays and numbers, as
NumPy's ufuncs do, and compute on the GPU. NumPy arrays in: NumPy arrays out. Device
arrays in: device arrays out, which stay on the GPU. Underneath, each operation is a small
kernel that vkpersist writes and compiles the first time it meets that operation with
those dtypes, and reuses afterwards.

    python tutorials/01_array_math.py [--size N]
"""
import time

import numpy as np

import vkpersist as vkp
from _common import parse, pyplot, save


def ulps(got, expect, scale):
    """The largest error of `got` against `expect` (float64), in float32 units in the last
    place of `scale`: the size of the terms, since a sum that cancels has no relative
    accuracy to speak of."""
    return float(np.max(np.abs(got - expect) / np.spacing(np.abs(scale).astype(np.float32))))


def main():
    args = parse(__doc__, size=200_000, size_help="elements of x")
    n = args.size
    ctx = vkp.default_context()
    print(f"device: {ctx.info.name}")

    x = np.linspace(-3, 3, n, dtype=np.float32)
    t0 = time.perf_counter()
    y = vkp.sin(x) + vkp.exp(x)                # NumPy in, NumPy out (+ is NumPy's: see below)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    y = vkp.sin(x) + vkp.exp(x)
    second = time.perf_counter() - t0
    print(f"y = vkp.sin(x) + vkp.exp(x) on {n} float32: {type(y).__module__}."
          f"{type(y).__name__} of {y.dtype}")
    print(f"  first call {first * 1e3:.0f} ms (writes two kernels, sin and exp, and "
          f"compiles them or loads them from the disk cache), "
          f"second call {second * 1e3:.1f} ms (cached)")

    x64 = x.astype(np.float64)
    exact, terms = np.sin(x64) + np.exp(x64), np.abs(np.sin(x64)) + np.exp(x64)
    err_gpu, err_np = ulps(y, exact, terms), ulps(np.sin(x) + np.exp(x), exact, terms)
    print(f"  max error against float64, in ulps of |sin x| + e^x: GPU {err_gpu:.2f}, "
          f"NumPy float32 {err_np:.2f} (the GPU's bound: 1 for sin, 1 for exp, 1/2 for +: 2.5)")
    assert err_gpu <= 2.5, "vkp.sin(x) + vkp.exp(x) is further from the exact sum than 2.5 ulp"

    # Device arrays: the same calls, the result stays on the GPU until you read it.
    xd = ctx.asarray(x)                        # one copy to the device
    yd = vkp.sin(xd) + vkp.exp(xd)             # three launches (sin, exp, +); they return at once
    print(f"on a device array: {yd!r}")
    same = np.array_equal(yd.numpy(), y)       # .numpy(): wait, and copy back
    print(f"  equal to the NumPy-in result bit for bit: {same}")
    assert same
    on_device = isinstance(np.cos(xd), vkp.Array) and isinstance(xd * 2, vkp.Array)
    print(f"  np.cos(xd) and xd * 2 stay on the device too: {on_device}")
    assert on_device

    # Types are NumPy's (NEP 50): a Python float keeps float32, a NumPy float64 does not.
    i32 = np.arange(-3, 3, dtype=np.int32)
    cases = {"xd * 2.0": (xd * 2.0, x * 2.0),
             "xd * np.float64(2)": (xd * np.float64(2), x * np.float64(2)),
             "int32 + 1.5": (ctx.asarray(i32) + 1.5, i32 + 1.5),
             "int32 // 2": (ctx.asarray(i32) // 2, i32 // 2)}
    for text, (got, ref) in cases.items():
        print(f"  {text:<20} -> {str(got.dtype):<8} (NumPy: {ref.dtype})")
        assert got.dtype == ref.dtype and np.array_equal(got.numpy(), ref)
    floor = (ctx.asarray(i32) // 2).numpy()
    print(f"  {i32} // 2 = {floor}: floor division, as in NumPy and Python (C truncates)")

    # Broadcasting is NumPy's too: a row and a column make a grid, without copies.
    # Two point sources of waves, wavenumber k, at (+-d/2, 0): intensity |e^ikr1 + e^ikr2|^2.
    side = max(64, int(round(np.sqrt(n))))
    k, d = 2 * np.pi / 0.25, 1.0
    xs = ctx.asarray(np.linspace(-2, 2, side, dtype=np.float32))
    ys = ctx.asarray(np.linspace(0.05, 4, side, dtype=np.float32))[:, None]
    r1 = vkp.hypot(xs - d / 2, ys)             # (side,) with (side, 1): a (side, side) grid
    r2 = vkp.hypot(xs + d / 2, ys)
    intensity = 2 + 2 * vkp.cos(k * (r1 - r2))
    hx = np.linspace(-2, 2, side, dtype=np.float32)
    hy = np.linspace(0.05, 4, side, dtype=np.float32)[:, None]
    ref = 2 + 2 * np.cos(k * (np.hypot(hx - d / 2, hy) - np.hypot(hx + d / 2, hy)))
    img = intensity.numpy()
    err = float(np.abs(img - ref).max())
    print(f"two-source interference on a {side}x{side} grid by broadcasting: "
          f"max |GPU - NumPy| = {err:.2e} (of 4; float32 phases up to {k * d:.0f} rad)")
    assert img.shape == (side, side) and err < 1e-4

    # Selecting, sorting and counting stay on the device too: a boolean mask selects
    # (x[mask]), np.count_nonzero and np.histogram count, np.sort sorts, as in NumPy.
    bright = intensity > 3.9                   # a device array of bools
    spots = intensity[bright]                  # the selected values, 1-d, on the device
    counts, edges = np.histogram(intensity, bins=8, range=(0, 4))
    top = np.sort(intensity.ravel())[-5:]
    print(f"  {int(np.count_nonzero(bright))} of {side * side} grid points are brighter than "
          f"3.9 (mean there {float(spots.mean()):.3f}); histogram of the intensity in 8 bins: "
          f"{counts.numpy().tolist()}")
    assert np.array_equal(counts.numpy(), np.histogram(img, bins=8, range=(0, 4))[0])
    assert np.array_equal(spots.numpy(), img[img > 3.9]) and np.array_equal(
        top.numpy(), np.sort(img.ravel())[-5:])

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 4.4))
    im = ax.imshow(img, origin="lower", extent=(-2, 2, 0.05, 4), cmap="magma")
    ax.plot([-d / 2, d / 2], [0.05, 0.05], "c^", ms=8)
    ax.set(title="2 + 2 cos(k (r1 - r2)): two sources, computed on the GPU", xlabel="x", ylabel="y")
    fig.colorbar(im, ax=ax, shrink=0.8)
    save(fig, args.out, "01_interference")
    print("lesson 1 OK")


if __name__ == "__main__":
    main()
