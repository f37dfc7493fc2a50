"""Boundaries per face: CPML, PEC and periodic.

The CPML is the convolutional PML of Roden & Gedney (2000) with the complex-frequency-shifted
stretching s = κ + σ/(α + jωε₀), graded polynomially into the layer (Taflove & Hagness,
*Computational Electrodynamics*, 3rd ed., §7.9-7.11):
    σ(ρ) = σ_max·ρ^m,   κ(ρ) = 1 + (κ_max - 1)·ρ^m,   α(ρ) = α_max·(1 - ρ)^m_a,
with ρ the depth into the layer (0 at its inner face, 1 at the outer PEC wall) and
σ_max = σ_factor · 0.8·(m + 1)/(η₀·Δ), the book's σ_opt (their eq. 7.67) for Δ the cell
size along the axis. The update keeps one auxiliary ψ per field component and derivative
inside the layer: ψ ← b·ψ + c·∂F, with b = exp(-(σ/κ + α)·Δt/ε₀) and
c = σ/(σκ + κ²α)·(b - 1); the derivative used is ∂F/κ + ψ.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .grid import AXES, EPS0, ETA0

KINDS = ("cpml", "pec", "periodic")
FACES = ("x-", "x+", "y-", "y+", "z-", "z+")


@dataclass(frozen=True)
class CPML:
    """A graded CPML `cells` thick: polynomial order `order` (m), σ_max = `sigma_factor`·σ_opt,
    `kappa_max`, `alpha_max` in S/m (α enters as α/ε₀, a rate) graded with `alpha_order`.
    The defaults are the ones the CPML validation measured best (docs/fdtd.md: a dipole
    2 cells from a 10-cell layer, worst probe 3e-5 of the peak; κ_max = 5 gave 3e-4 and
    κ_max = 15 gave 3e-2 there, α made no difference). κ shortens the wavelength in the
    layer κ-fold, so it pays only where waves are resolved by many more cells than
    κ_max (benchmarks/probes/fdtd_cpml_kappa.py)."""
    cells: int = 10
    order: float = 3.0
    sigma_factor: float = 0.75
    kappa_max: float = 1.0
    alpha_max: float = 0.05
    alpha_order: float = 1.0

    def __post_init__(self):
        if int(self.cells) != self.cells or self.cells < 1:
            raise ValueError(f"CPML thickness must be a whole number of cells >= 1, got {self.cells}")
        if self.order < 0 or self.sigma_factor < 0 or self.kappa_max < 1 or self.alpha_max < 0:
            raise ValueError("CPML parameters: order >= 0, sigma_factor >= 0, kappa_max >= 1, "
                             "alpha_max >= 0")

    def profiles(self, depth: np.ndarray, spacing: float, dt: float):
        """(b, c, 1/κ) at depths ρ in [0, 1] (negative: outside the layer)."""
        rho = np.clip(depth, 0.0, 1.0)
        inside = depth > 0
        sigma_max = self.sigma_factor * 0.8 * (self.order + 1) / (ETA0 * spacing)
        sigma = np.where(inside, sigma_max * rho ** self.order, 0.0)
        kappa = np.where(inside, 1 + (self.kappa_max - 1) * rho ** self.order, 1.0)
        alpha = np.where(inside, self.alpha_max * (1 - rho) ** self.alpha_order, 0.0)
        b = np.exp(-(sigma / kappa + alpha) * dt / EPS0)
        denom = sigma * kappa + kappa ** 2 * alpha
        c = np.where(denom > 0, sigma / np.where(denom > 0, denom, 1.0) * (b - 1), 0.0)
        return b, c, 1.0 / kappa


def parse(boundaries, grid_shape) -> dict:
    """{face: "pec" | "periodic" | CPML} from a user's spec: one kind for every face, or a
    dict by face ("x-", "x+", ...) or by axis ("x": both faces)."""
    spec = {}
    if isinstance(boundaries, (str, CPML)):
        spec = {f: boundaries for f in FACES}
    elif isinstance(boundaries, dict):
        for key, kind in boundaries.items():
            if key in AXES:
                spec[key + "-"] = spec[key + "+"] = kind
            elif key in FACES:
                spec[key] = kind
            else:
                raise ValueError(f"unknown face {key!r}; faces: {', '.join(FACES)} (or an "
                                 f"axis 'x', 'y', 'z' for both of its faces)")
        missing = [f for f in FACES if f not in spec]
        for f in missing:
            spec[f] = "cpml"
    else:
        raise TypeError("boundaries: 'cpml', 'pec', 'periodic', a CPML(...), or a dict "
                        "by face or axis of those")
    out = {}
    for face, kind in spec.items():
        if kind == "cpml":
            kind = CPML()
        if not isinstance(kind, CPML) and kind not in KINDS:
            raise ValueError(f"unknown boundary {kind!r} for face {face}; choose "
                             f"{', '.join(map(repr, KINDS))} or a CPML(...)")
        out[face] = kind
    for a, n in zip(AXES, grid_shape):
        lo, hi = out[a + "-"], out[a + "+"]
        if (lo == "periodic") != (hi == "periodic"):
            raise ValueError(f"periodic boundaries pair the two faces of an axis: set both "
                             f"{a}- and {a}+ periodic (got {lo!r}, {hi!r})")
        thick = sum(k.cells for k in (lo, hi) if isinstance(k, CPML))
        if thick >= n:
            raise ValueError(f"the CPML on the {a} faces is {thick} cells thick in all, but the "
                             f"grid has {n} cells along {a}: make the grid larger than "
                             f"{thick} cells or the CPML thinner")
    return out


def axis_coefficients(face_lo, face_hi, n: int, spacing: float, dt: float) -> np.ndarray:
    """(6, n + 1) per-axis coefficients: rows bE, cE, 1/κE at nodes i, then bH, cH, 1/κH at
    half nodes i + ½. Outside the layers b = c = 0 and 1/κ = 1."""
    out = np.zeros((6, n + 1))
    out[2] = out[5] = 1.0
    nodes = np.arange(n + 1, dtype=float)
    for kind, side in ((face_lo, "lo"), (face_hi, "hi")):
        if not isinstance(kind, CPML):
            continue
        p = kind.cells
        for row, pos in ((0, nodes), (3, nodes + 0.5)):
            depth = (p - pos) / p if side == "lo" else (pos - (n - p)) / p
            b, c, ik = kind.profiles(depth, spacing, dt)
            sel = depth > 0
            out[row][sel], out[row + 1][sel], out[row + 2][sel] = b[sel], c[sel], ik[sel]
    return out
