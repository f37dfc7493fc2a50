"""Lesson 2: resident arrays, `out=`, zero-copy views and memory kinds.

A heat pulse spreads along a rod: the explicit scheme u <- u + alpha (u[i-1] - 2 u[i] +
u[i+1]), iterated with array operations. The same step runs three ways: on NumPy arrays
through vkp (every operation copies in and out), on device arrays (the data stays on the
GPU: *resident*), and in NumPy on the CPU as the reference. Slices are views, `out=`
writes into an existing array, and snapshots land in host-visible memory that NumPy reads
without a copy.

    python tutorials/02_resident_arrays.py [--size CELLS] [--steps STEPS]
"""
import time

import numpy as np

import vkpersist as vkp
from _common import parse, pyplot, save

ALPHA = 0.4                                   # D dt / dx^2; the scheme is stable up to 1/2
SIGMA0 = 5.0                                  # the pulse's initial width, in cells
FRAMES = 4


def step(u, v, xp):
    """One step from u into v's interior (v's ends stay 0: cold ends). `xp` is vkp or
    NumPy: vkp's functions take NumPy or device arrays, NumPy's compute on the CPU."""
    lap = xp.subtract(xp.add(u[:-2], u[2:]), xp.multiply(2.0, u[1:-1]))   # u[:-2]: a view
    xp.add(u[1:-1], xp.multiply(ALPHA, lap), out=v[1:-1])                 # no new array


def run(u, v, xp, steps, frames=None):
    """`steps` steps ping-ponging between u and v; returns the array holding the last.
    Every steps // FRAMES steps, a copy of u goes into the next row of `frames`."""
    every = max(1, steps // FRAMES)
    for s in range(1, steps + 1):
        step(u, v, xp)
        u, v = v, u
        if frames is not None and s % every == 0 and s // every <= FRAMES:
            frames[s // every - 1] = u        # device arrays: a copy on the device
    return u


def moments(u):
    """Mass, centre and variance of a profile (float64 on the host)."""
    i = np.arange(u.size, dtype=np.float64)
    mass = float(u.sum(dtype=np.float64))
    centre = float((i * u).sum() / mass)
    return mass, centre, float(((i - centre) ** 2 * u).sum() / mass)


def main():
    args = parse(__doc__, size=20_000, steps=100, size_help="cells of the rod",
                 steps_help="time steps")
    n, steps = args.size, args.steps
    ctx = vkp.default_context()
    print(f"device: {ctx.info.name}")
    for kind, index in ctx.info.memory_kinds.items():
        flags = ctx.info.memory_types[index].describe()
        print(f"  memory kind {kind!r:9} -> memory type {index}: {flags}")

    cells = np.arange(n, dtype=np.float64)
    pulse = np.exp(-0.5 * ((cells - n / 2) / SIGMA0) ** 2).astype(np.float32)

    # Host-visible memory: NumPy writes straight into memory the GPU reads. No copy.
    init = ctx.zeros(n, memory="host")
    init.numpy_view()[:] = pulse
    u, v = ctx.zeros(n), ctx.zeros(n)          # 'device' memory: the simulation state
    u.copy_from(init)                          # a copy on the device
    frames = ctx.zeros((FRAMES, n), memory="cached")   # snapshots the host reads fast
    seen = frames.numpy_view()                 # a live view: no copy, now or later
    interior = u[1:-1]
    print(f"u[1:-1] is a view of u: {interior.base is u}, {interior!r}")

    run(u, v, vkp, 1)                          # compile the kernels (not timed)
    u.copy_from(init)
    t0 = time.perf_counter()
    resident = run(u, v, vkp, steps, frames)
    out = resident.numpy()                     # the only copy back: the end result
    t_res = time.perf_counter() - t0

    h_u, h_v = pulse.copy(), np.zeros(n, np.float32)
    t0 = time.perf_counter()
    numpy_io = run(h_u, h_v, vkp, steps)       # NumPy in/out: copies and a wait per operation
    t_io = time.perf_counter() - t0

    cpu_frames = np.zeros((FRAMES, n), np.float32)
    t0 = time.perf_counter()
    cpu = run(pulse.copy(), np.zeros(n, np.float32), np, steps, cpu_frames)
    t_cpu = time.perf_counter() - t0
    ops = 5 * steps
    print(f"{steps} steps on {n} cells ({ops} array operations):")
    print(f"  resident on the device    {t_res:7.3f} s  ({t_res / ops * 1e3:.2f} ms an operation)")
    print(f"  NumPy in/out through vkp  {t_io:7.3f} s  ({t_io / ops * 1e3:.2f} ms an operation)"
          f"  = {t_io / t_res:.1f}x the resident time")
    print(f"  NumPy on the CPU          {t_cpu:7.3f} s")

    # Each operation rounds as NumPy's does, so the results agree bit for bit, except on a
    # device that flushes float32 subnormals (|x| < 1.2e-38) to zero, as Vulkan allows and
    # NVIDIA's driver does: there the far tails of the pulse differ by about that much.
    tiny = np.finfo(np.float32).tiny
    flushes = vkp.multiply(ctx.asarray(np.array([tiny], np.float32)), 0.5).numpy()[0] == 0
    if flushes:
        same = max(np.abs(out - cpu).max(), np.abs(numpy_io - cpu).max()) <= 4 * tiny
        print(f"resident, NumPy in/out and NumPy's float32 steps equal but for the "
              f"subnormals this device flushes: {same}")
    else:
        same = np.array_equal(out, cpu) and np.array_equal(numpy_io, cpu)
        print(f"resident, NumPy in/out and NumPy's float32 steps bit-identical: {same}")
    assert same, "the GPU steps differ from NumPy's"

    ctx.synchronize()                          # the GPU wrote the frames; the view shows them
    ok = np.abs(seen - cpu_frames).max() <= 4 * tiny if flushes else \
        np.array_equal(seen, cpu_frames)
    print(f"frames read through the view taken before the run, equal to NumPy's: {ok}")
    assert ok

    mass0, centre0, var0 = moments(pulse)
    mass, centre, var = moments(out)
    expect = var0 + 2 * ALPHA * steps
    print(f"mass {mass0:.6f} -> {mass:.6f}; centre {centre0:.3f} -> {centre:.3f}; "
          f"variance {var0:.4f} -> {var:.4f} cells^2, expected {expect:.4f} "
          f"(+2 alpha per step: <x^2> = 2 D t)")
    if 12 * np.sqrt(expect) < n:              # the pulse never reached the cold ends
        assert abs(mass / mass0 - 1) < 1e-4 and abs(var / expect - 1) < 1e-3
    else:
        print("  (the rod is too short for this check: the pulse reached its ends)")

    try:
        u.numpy_view()
    except vkp.UnsupportedError as e:
        print(f"u.numpy_view() on 'device' memory: {type(e).__name__}: {e}")

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    span = slice(max(0, n // 2 - 12 * int(SIGMA0)), n // 2 + 12 * int(SIGMA0))
    ax.plot(cells[span] - n / 2, pulse[span], "k--", label="step 0")
    every = max(1, steps // FRAMES)
    for k in range(min(FRAMES, steps // every)):
        ax.plot(cells[span] - n / 2, seen[k][span], label=f"step {(k + 1) * every}")
    ax.set(xlabel="cell - centre", ylabel="u",
           title="a heat pulse spreading (frames read through numpy_view)")
    ax.legend()
    save(fig, args.out, "02_heat_pulse")
    print("lesson 2 OK")


if __name__ == "__main__":
    main()
