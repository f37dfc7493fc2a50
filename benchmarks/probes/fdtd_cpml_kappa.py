"""Why the CPML's κ_max > 1 makes examples/fdtd3d's reflection test worse: an independent
1-D CPML in NumPy (Roden & Gedney 2000, Taflove & Hagness §7.9: ψ ← bψ + c·∂F, the
derivative ∂F/κ + ψ, b = exp(-(σ/κ + α)Δt/ε₀), c = σ(b - 1)/(σκ + κ²α)), with the 3-D
test's layer (10 cells, cubic grading, σ_max = 0.75σ_opt, α_max = 0.05 S/m), cell
(1 mm), time step (0.99 of the 3-D limit) and Ricker source, probed 2 cells from the layer
against a grid too long to reflect.

    python benchmarks/probes/fdtd_cpml_kappa.py

The real stretch κ shortens a wave's wavelength in the layer by κ: a Ricker pulse has
content up to ~3x its frequency, ~7 cells per wavelength at 15 GHz, and κ = 15 leaves
under one cell per wavelength deep in the layer, which the grid reflects. At lower
frequencies (more cells per wavelength) κ costs nothing and helps slightly. The 3-D
solver shows the same numbers (docs/fdtd.md), so they are the discretisation, not a bug
of its κ path. No device needed.
"""
from __future__ import annotations

import numpy as np

C0 = 299_792_458.0
MU0 = 1.25663706212e-6
EPS0 = 1 / (MU0 * C0 * C0)
ETA0 = MU0 * C0
D = 1e-3
DT = 0.99 * D / (C0 * np.sqrt(3))
LAYER, ORDER = 10, 3


def profiles(pos, n, kappa_max, alpha_max=0.05, sigma_factor=0.75):
    """(b, c, 1/κ) at positions `pos` (cells) of an n-cell line with a CPML at both ends."""
    sigma_max = sigma_factor * 0.8 * (ORDER + 1) / (ETA0 * D)
    depth = np.maximum((LAYER - pos) / LAYER, (pos - (n - LAYER)) / LAYER)
    inside = depth > 0
    rho = np.clip(depth, 0, 1)
    sigma = np.where(inside, sigma_max * rho ** ORDER, 0)
    kappa = np.where(inside, 1 + (kappa_max - 1) * rho ** ORDER, 1)
    alpha = np.where(inside, alpha_max * (1 - rho), 0)
    b = np.exp(-(sigma / kappa + alpha) * DT / EPS0)
    den = sigma * kappa + kappa * kappa * alpha
    c = np.where(den > 0, sigma / np.where(den > 0, den, 1) * (b - 1), 0)
    return b, c, 1 / kappa


def probe_series(n, kappa_max, steps, f):
    """Ez 8 cells from a Ricker current source at the line's centre, every step."""
    be, ce, ike = profiles(np.arange(n + 1.0), n, kappa_max)
    bh, ch, ikh = profiles(np.arange(n) + 0.5, n, kappa_max)
    e, h = np.zeros(n + 1), np.zeros(n)
    psi_e, psi_h = np.zeros(n + 1), np.zeros(n)
    src, probe = n // 2, n // 2 + 8
    zeta, chi = np.pi ** 2 * f * f, np.sqrt(2) / f
    out = np.empty(steps)
    for step in range(steps):
        de = (e[1:] - e[:-1]) / D
        psi_h = bh * psi_h + ch * de
        h -= DT / MU0 * (de * ikh + psi_h)
        dh = np.zeros(n + 1)
        dh[1:-1] = (h[1:] - h[:-1]) / D
        psi_e = be * psi_e + ce * dh
        t = (step + 0.5) * DT
        current = -(2 * zeta * (t - chi) ** 2 - 1) * np.exp(-zeta * (t - chi) ** 2)
        e[1:-1] -= DT / EPS0 * (dh * ike + psi_e)[1:-1]
        e[src] -= DT / EPS0 * current / D
        out[step] = e[probe]
    return out


def main():
    print("max |E - E_ref| / max |E_ref| 2 cells from a 10-cell CPML (1-D, NumPy)")
    print(f"{'f GHz':>6} {'cells/λ':>8}" + "".join(f"{'κ_max ' + str(k):>12}" for k in (1, 2, 5, 15)))
    for f in (15e9, 5e9, 2.5e9):
        steps = int(400 * 15e9 / f)
        ref = probe_series(2 * steps + 200, 1, steps, f)
        errs = [np.abs(probe_series(40, k, steps, f) - ref).max() / np.abs(ref).max()
                for k in (1, 2, 5, 15)]
        print(f"{f / 1e9:6.1f} {C0 / f / D:8.0f}" + "".join(f"{e:12.1e}" for e in errs))


if __name__ == "__main__":
    main()
