"""Lesson 9: a persistent program: the heat equation as one megakernel.

A `vkp.Program` declares resident arrays, controls and *stages* (functions called once per
index of a domain); `prog.loop(...)` says what one step does. vkpersist finds where one
stage must wait for another (grid barriers, derived from what the stages read and write)
and compiles the whole loop into one long-running dispatch that schedules its own steps
on the GPU: the megakernel. The same program also runs as ordinary launches, with
bit-identical results.

    python tutorials/09_persistent_program.py [--size CELLS] [--steps STEPS]
    python -m vkpersist emit-glsl tutorials/09_persistent_program.py:prog
"""
import math
import time

import numpy as np

import vkpersist as vkp
from _common import parse, pyplot, save

args = parse(__doc__, size=48, steps=400, size_help="cells per side", steps_help="time steps")
n = args.size
MODES = ((1, 1, 1.0), (3, 2, 0.5))           # (m, l, amplitude): sin(m pi x) sin(l pi y)


def mode(m, l):
    """An eigenmode of the box with cold walls just outside the n x n cells."""
    s = np.sin(np.pi * np.arange(1, n + 1) / (n + 1) * m)[:, None]
    return (s * np.sin(np.pi * np.arange(1, n + 1) / (n + 1) * l)[None, :]).astype(np.float32)


prog = vkp.Program(name="heat")
T = prog.array("T", (n, n), init=sum(a * mode(m, l) for m, l, a in MODES))
T2 = prog.array("T2", (n, n))
ctl = prog.controls(alpha=vkp.f32(0.24))     # D dt / dx^2; the scheme is stable below 1/4


@vkp.func
def at(a, i, j):
    if i < 0 or j < 0 or i >= n or j >= n:
        return 0.0                           # the walls are held at 0
    return a[i, j]


@prog.stage(domain=(n, n))
def diffuse(i, j):
    lap = at(T, i - 1, j) + at(T, i + 1, j) + at(T, i, j - 1) + at(T, i, j + 1) - 4.0 * T[i, j]
    T2[i, j] = T[i, j] + ctl.alpha * lap


@prog.stage(domain=(n, n))
def copy_back(i, j):                         # reads T2, which diffuse wrote: a grid barrier
    T[i, j] = T2[i, j]


prog.loop(diffuse, copy_back)                # one step; nothing here says "synchronize"


def main():
    start = T.numpy()
    results = {}
    for run_mode in ("persistent", "launch"):
        prog.run(1, mode=run_mode)           # builds this mode's shaders (not timed)
        T.set(start)
        t0 = time.perf_counter()
        report = prog.run(args.steps, mode=run_mode)
        rate = args.steps / (time.perf_counter() - t0)
        results[run_mode] = T.numpy()
        print(f"{report}: {rate:,.0f} steps/s")
    same = np.array_equal(results["persistent"], results["launch"])
    print(f"persistent and launch modes bit-identical: {same}")
    assert same

    alpha, k = 0.24, np.pi / (2 * (n + 1))
    print(f"mode amplitudes after {args.steps} steps (projection of T on each eigenmode):")
    for m, l, a in MODES:
        phi = mode(m, l).astype(np.float64)
        got = float((results["persistent"] * phi).sum() / (phi * phi).sum())
        scheme = a * (1 - 4 * alpha * (math.sin(m * k) ** 2 + math.sin(l * k) ** 2)) ** args.steps
        continuum = a * math.exp(-alpha * math.pi ** 2 * (m * m + l * l) / (n + 1) ** 2 * args.steps)
        print(f"  ({m},{l}): GPU {got:.6e}   scheme {scheme:.6e}   continuum {continuum:.6e}   "
              f"GPU/scheme - 1 = {got / scheme - 1:+.1e}")
        if scheme > 1e-4:                    # below that, float32 rounding of the rest
            assert abs(got / scheme - 1) < 1e-3, "the decay disagrees with the scheme's"

    glsl = prog.glsl()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "09_megakernel.glsl").write_text(glsl)
    print(f"the megakernel: {glsl.count(chr(10))} lines of GLSL, {glsl.count('void main()')} "
          f"main(), written to {args.out / '09_megakernel.glsl'}; the fallback's kernels: "
          f"{prog.glsl('launch').count('void main()')}")

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.6))
    for ax, data, title in ((axes[0], start, "step 0"),
                            (axes[1], results["persistent"], f"step {args.steps}")):
        im = ax.imshow(data, cmap="inferno", origin="lower")
        ax.set_title(f"T at {title}")
        fig.colorbar(im, ax=ax, shrink=0.8)
    save(fig, args.out, "09_heat")
    print("lesson 9 OK")


if __name__ == "__main__":
    main()
