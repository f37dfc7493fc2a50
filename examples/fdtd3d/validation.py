"""Physics references the solver is checked against: the discrete Yee dispersion relation
for cavity modes, the conserved discrete energy, frequency estimation from a probe signal,
the scattering cross-section from a flux box and the Mie series."""
from __future__ import annotations

import itertools
import math

import numpy as np

from .grid import C0, EPS0, MU0, offsets


def cavity_modes(shape, spacing, dt, count=8):
    """The lowest `count` resonances (Hz) of a PEC box of `shape` cells in the Yee scheme,
    from its dispersion relation sin²(ωΔt/2)/(cΔt)² = Σ sin²(k_a Δ_a/2)/Δ_a², k_a = m_a π/L_a,
    with the continuum values c/2·sqrt(Σ(m_a/L_a)²); modes need at least two nonzero
    indices. Returns [(m, n, p), f_yee, f_continuum] sorted by f_yee."""
    out = []
    L = [n * d for n, d in zip(shape, spacing)]
    for m in itertools.product(range(0, 8), repeat=3):
        if sum(1 for x in m if x) < 2 or any(x >= n for x, n in zip(m, shape)):
            continue
        s = sum(math.sin(x * math.pi / n / 2) ** 2 / d ** 2 for x, n, d in zip(m, shape, spacing))
        arg = C0 * dt * math.sqrt(s)
        f_yee = 2 * math.asin(arg) / (2 * math.pi * dt)
        f_cont = C0 / 2 * math.sqrt(sum((x / l) ** 2 for x, l in zip(m, L)))
        out.append((m, f_yee, f_cont))
    out.sort(key=lambda x: x[1])
    uniq = []
    for m, fy, fc in out:
        if uniq and abs(uniq[-1][1] - fy) < 1e-9 * fy:
            continue
        uniq.append((m, fy, fc))
    return uniq[:count]


def esprit_frequencies(signal, dt, order):
    """Frequencies (Hz) of the `order` complex exponentials that best model `signal`
    sampled every `dt` (ESPRIT on a Hankel matrix): near machine precision for a sum of
    undamped sinusoids, far better than FFT peaks for a record of a few thousand steps."""
    x = np.asarray(signal, float)
    x = x - x.mean()
    n = len(x)
    rows = n // 2
    H = np.lib.stride_tricks.sliding_window_view(x, n - rows + 1)[:rows]
    U, s, _ = np.linalg.svd(H, full_matrices=False)
    Us = U[:, :order]
    phi = np.linalg.lstsq(Us[:-1], Us[1:], rcond=None)[0]
    z = np.linalg.eigvals(phi)
    f = np.angle(z) / (2 * np.pi * dt)
    return np.sort(f[f > 0])


def _electric_energy(sim, e) -> float:
    """½Σ ε|E|²·ΔV, each E component with its own permittivity; `e`: dict by component."""
    dv = float(np.prod(sim.grid.spacing))
    eps_r = np.array([t[0] for t in sim.materials.table])
    total = 0.0
    for comp in ("ex", "ey", "ez"):
        x = e[comp].astype(np.float64)
        total += 0.5 * float(np.sum(EPS0 * eps_r[sim.materials.ids[comp]] * x * x)) * dv
    return total


def field_energy(sim) -> float:
    """½Σ(ε|E|² + μ₀|H|²)·ΔV over the grid, with each E component's own permittivity."""
    dv = float(np.prod(sim.grid.spacing))
    total = _electric_energy(sim, {c: sim.field(c) for c in ("ex", "ey", "ez")})
    for comp in ("hx", "hy", "hz"):
        h = sim.field(comp).astype(np.float64)
        total += 0.5 * MU0 * float(np.sum(h * h)) * dv
    return total


def yee_energy_of(sim, e, h_before, h_after) -> float:
    """The energy the lossless Yee scheme conserves exactly (a quadratic form of its
    update): ½Σ ε|Eⁿ|² + ½Σ μ₀ Hⁿ⁻½·Hⁿ⁺½, from E at n·dt (`e`) and H on either side
    (`h_before`, `h_after`: dicts by component)."""
    dv = float(np.prod(sim.grid.spacing))
    total = _electric_energy(sim, e)
    for comp in ("hx", "hy", "hz"):
        total += 0.5 * MU0 * float(np.sum(h_before[comp].astype(np.float64)
                                          * h_after[comp].astype(np.float64))) * dv
    return total


def plane_flux(sim, name: str) -> np.ndarray:
    """Time-averaged Poynting flux (W, for unit-amplitude phasors: ½Re(E×H*)) through DFT
    plane `name` along +axis, per frequency, over the plane's extent."""
    from .monitors import cyclic
    from .grid import AXES
    d = sim.dft(name)
    plane = d["plane"]
    a = AXES.index(plane.axis)
    b, c = cyclic(a)
    db, dc = sim.grid.spacing[b], sim.grid.spacing[c]
    E, H = d["e"], d["h"]            # (nf, 2, nb, nc): component 0 along b, 1 along c
    nb, nc = E.shape[2], E.shape[3]
    # E_b sits at half nodes along b (use nb - 1 of them) and nodes along c (trapezoid)
    wb = np.ones(nc)
    wb[[0, -1]] = 0.5
    wc = np.ones(nb)
    wc[[0, -1]] = 0.5
    s1 = np.sum(E[:, 0, :-1, :] * np.conj(H[:, 1, :-1, :]) * wb[None, None, :], axis=(1, 2))
    s2 = np.sum(E[:, 1, :, :-1] * np.conj(H[:, 0, :, :-1]) * wc[None, :, None], axis=(1, 2))
    return 0.5 * np.real(s1 - s2) * db * dc


def box_flux(sim, name: str = "box") -> np.ndarray:
    """Net outward flux through the six planes of add_flux_box(name=name)."""
    total = 0
    for axis in "xyz":
        total = total + plane_flux(sim, f"{name}{axis}+") - plane_flux(sim, f"{name}{axis}-")
    return total

