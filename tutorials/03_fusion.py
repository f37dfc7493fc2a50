"""Lesson 3: fusion: one kernel for a whole expression, and its GLSL.

`1 / (vkp.exp((E - mu) / kT) + 1)` written out is five operations: five launches, four
temporary arrays, every element read and written five times. `vkp.jit` traces the
function once and compiles the whole expression into ONE kernel: one launch, one read of
E, one write of the result, the same numbers. `@vkp.vectorize` (numba's) goes the other
way: you write the per-element function, with `if`s, and it becomes a device function
that also fuses into a `vkp.jit` expression.

    python tutorials/03_fusion.py [--size N]
"""
import time

import numpy as np

import vkpersist as vkp
from _common import parse, pyplot, save

EPS32 = float(np.finfo(np.float32).eps)


def fermi_dirac(E, mu, kT):
    """The occupation of a state of energy E: 1 / (e^((E - mu) / kT) + 1)."""
    return 1.0 / (vkp.exp((E - mu) / kT) + 1.0)


fermi_fused = vkp.jit(fermi_dirac)            # the same function, compiled as one kernel


@vkp.vectorize(["float32(float32)", "float64(float64)"])
def lennard_jones(r):
    """The Lennard-Jones potential 4 (r^-12 - r^-6) (units of epsilon and sigma), cut off
    at r = 2.5: per element, with an `if`, as numba's @vectorize."""
    if r > 2.5:
        return 0.0
    sr2 = 1.0 / (r * r)
    sr6 = sr2 * sr2 * sr2
    return 4.0 * (sr6 * sr6 - sr6)


# A dilute gas's pair distribution g(r) = exp(-U(r) / kT): the vectorized function fuses too.
boltzmann = vkp.jit(lambda r, kT: vkp.exp(-lennard_jones(r) / kT))


def best_time(fn, ctx, reps=3):
    """The best of `reps` timed calls, each waited for (the first, untimed, compiles)."""
    fn()
    ctx.synchronize()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ctx.synchronize()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    args = parse(__doc__, size=1_000_000, size_help="energies E")
    n = args.size
    ctx = vkp.default_context()
    print(f"device: {ctx.info.name}")

    host = np.linspace(-1, 1, n, dtype=np.float32)
    E, y = ctx.asarray(host), ctx.empty(n)
    mu, kT = 0.1, 0.05
    fused = fermi_fused(E, mu, kT).numpy()
    unfused = fermi_dirac(E, mu, kT).numpy()   # the plain function: one launch per operation
    same = np.array_equal(fused, unfused)
    print(f"fused and unfused bit-identical on {n} float32: {same}")
    assert same, "the fused kernel's results differ from the operation-by-operation ones"
    e64 = host.astype(np.float64)
    err = float(np.abs(fused - 1 / (np.exp((e64 - mu) / kT) + 1)).max())
    print(f"max |GPU - NumPy float64| = {err:.2e} (bound 1e-6: f <= 1, a few float32 roundings)")
    assert err < 1e-6

    glsl = fermi_fused.glsl(E, mu, kT)
    print(f"one kernel for the whole expression: {len(fermi_fused.sources)} source, "
          f"{glsl.count('void main()')} main(); the kernel vkpersist wrote:")
    print(fermi_fused.source(E, mu, kT))
    print("the loop of its GLSL (the whole shader also holds the exp routine):")
    loop = glsl[glsl.index("    while"):glsl.rindex("}")]
    print("\n".join(line for line in loop.splitlines() if "//" not in line))

    t_fused = best_time(lambda: fermi_fused(E, mu, kT, out=y), ctx)
    t_unfused = best_time(lambda: fermi_dirac(E, mu, kT), ctx)
    print(f"time per evaluation: fused {t_fused * 1e3:.1f} ms (1 launch), unfused "
          f"{t_unfused * 1e3:.1f} ms (5 launches, 4 temporaries): {t_unfused / t_fused:.1f}x")

    try:
        vkp.jit(lambda E: 0.0 if E > 0 else 1.0)(E)
    except TypeError as e:
        print(f"a Python `if` on array values inside vkp.jit: TypeError: {e}")

    r = np.linspace(0.9, 3.0, 2000, dtype=np.float32)
    r64 = r.astype(np.float64)
    sr6 = r64 ** -6
    u_exact = np.where(r64 > 2.5, 0.0, 4 * (sr6 * sr6 - sr6))
    u_gpu = lennard_jones(r)                   # NumPy in, NumPy out, as any vkp function
    err_u = float((np.abs(u_gpu - u_exact) / (4 * (sr6 * sr6 + sr6))).max() / EPS32)
    print(f"vectorized Lennard-Jones: max error {err_u:.1f} float32 eps of the terms "
          f"4 (r^-12 + r^-6) (bound 8: 6 roundings)")
    assert err_u <= 8
    print("exp(-U/kT) fused with it:")
    print(boltzmann.source(ctx.asarray(r), 1.0))
    curves = {}
    for t in (0.5, 1.0, 2.0):
        curves[t] = boltzmann(ctx.asarray(r), t).numpy()
        exact = np.exp(-u_exact / t)
        rel = float((np.abs(curves[t] - exact) / exact).max())
        bound = 8 * EPS32 * float((4 * (sr6 * sr6 + sr6)).max()) / t + 2 * EPS32
        print(f"  kT = {t}: g(r) peaks at r = {r[curves[t].argmax()]:.3f} "
              f"(minimum of U: 2^(1/6) = {2 ** (1 / 6):.3f}), max relative error {rel:.1e} "
              f"(bound {bound:.1e})")
        assert rel <= bound and abs(r[curves[t].argmax()] - 2 ** (1 / 6)) < 2e-3

    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.6))
    step = max(1, n // 2000)
    for t in (0.01, 0.05, 0.2):
        a1.plot(host[::step], fermi_fused(E, mu, t).numpy()[::step], label=f"kT = {t}")
    a1.axvline(mu, color="gray", lw=0.5)
    a1.set(xlabel="E", ylabel="f(E)", title=f"Fermi-Dirac, mu = {mu} (vkp.jit)")
    a1.legend()
    for t, g in curves.items():
        a2.plot(r, g, label=f"kT = {t}")
    a2.axhline(1, color="gray", lw=0.5)
    a2.set(xlabel="r / sigma", ylabel="exp(-U/kT)",
           title="Lennard-Jones gas g(r) (vectorize + jit)")
    a2.legend()
    save(fig, args.out, "03_fusion")
    print("lesson 3 OK")


if __name__ == "__main__":
    main()
