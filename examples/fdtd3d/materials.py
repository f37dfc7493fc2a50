"""Materials and shapes, rasterised onto the Yee grid per field component.

Each E component gets its own material index per cell, looked up in a small table of update
coefficients, as gprMax does: a component takes the material at its own position (Ex at
(i+½, j, k)), so a sphere's surface is staircased consistently for the three components.
With `smoothing=True` a component whose cell the surface crosses instead takes an average
of the permittivity over its cell (sampled 4×4×4 times): the diagonal of Kottke et al.'s
anisotropic average, harmonic along the surface normal and arithmetic across it, with the
normal estimated from where the inside samples lie ("subpixel smoothing"; the numbers it
gives are in docs/fdtd.md). PEC is never averaged: a component is PEC when more than half
of its cell is.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .grid import AXES, E_COMPONENTS, EPS0, Grid, offsets


@dataclass(frozen=True)
class Material:
    """Relative permittivity `eps_r` (>= 1 is usual, > 0 required), conductivity `sigma` in
    S/m, or a perfect electric conductor (`pec=True`)."""
    eps_r: float = 1.0
    sigma: float = 0.0
    pec: bool = False
    name: str = ""

    def __post_init__(self):
        if not self.pec and not (self.eps_r > 0 and np.isfinite(self.eps_r)):
            raise ValueError(f"relative permittivity must be a positive number, got {self.eps_r}")
        if not (self.sigma >= 0 and np.isfinite(self.sigma)):
            raise ValueError(f"conductivity must be >= 0 S/m, got {self.sigma}")


VACUUM = Material(1.0, 0.0, name="vacuum")
PEC = Material(pec=True, name="pec")


def _point(what: str, p) -> None:
    """A point: 3 finite numbers (a NaN coordinate painted nothing, silently: issue 53)."""
    if np.ndim(p) != 1 or len(p) != 3 or not all(
            isinstance(c, (int, float, np.number)) and np.isfinite(c) for c in p):
        raise ValueError(f"{what} must be 3 finite coordinates in metres, got {p!r}")


class Shape:
    """A region of space in metres. Subclasses give `contains(x, y, z)` on arrays and
    `bounds()`: ((x0, y0, z0), (x1, y1, z1))."""

    def contains(self, x, y, z):
        raise NotImplementedError

    def bounds(self):
        raise NotImplementedError


@dataclass(frozen=True)
class Box(Shape):
    lo: tuple
    hi: tuple

    def __post_init__(self):
        _point("a box's lo", self.lo)
        _point("a box's hi", self.hi)
        if any(a >= b for a, b in zip(self.lo, self.hi)):
            raise ValueError(f"a box needs lo < hi on every axis, got lo={self.lo}, hi={self.hi}")

    def contains(self, x, y, z):
        (x0, y0, z0), (x1, y1, z1) = self.lo, self.hi
        return (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1) & (z >= z0) & (z <= z1)

    def bounds(self):
        return tuple(self.lo), tuple(self.hi)


@dataclass(frozen=True)
class Sphere(Shape):
    center: tuple
    radius: float

    def __post_init__(self):
        _point("a sphere's center", self.center)
        if not (self.radius > 0 and np.isfinite(self.radius)):
            raise ValueError(f"a sphere needs a finite positive radius, got {self.radius}")

    def contains(self, x, y, z):
        cx, cy, cz = self.center
        return (x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2 <= self.radius ** 2

    def bounds(self):
        return (tuple(c - self.radius for c in self.center),
                tuple(c + self.radius for c in self.center))


@dataclass(frozen=True)
class Cylinder(Shape):
    """A circular cylinder along `axis` ("x", "y" or "z") from `start` to `stop` on that axis."""
    center: tuple
    radius: float
    axis: str = "z"
    start: float = -np.inf
    stop: float = np.inf

    def __post_init__(self):
        if self.axis not in AXES:
            raise ValueError(f"cylinder axis must be 'x', 'y' or 'z', got {self.axis!r}")
        _point("a cylinder's center", self.center)
        if not (self.radius > 0 and np.isfinite(self.radius)) or not self.start < self.stop:
            raise ValueError(f"a cylinder needs a finite positive radius and start < stop "
                             f"(either may be infinite), got radius {self.radius}, start "
                             f"{self.start}, stop {self.stop}")

    def contains(self, x, y, z):
        p = (x, y, z)
        a = AXES.index(self.axis)
        u, v = (p[b] - self.center[b] for b in range(3) if b != a)
        return (u * u + v * v <= self.radius ** 2) & (p[a] >= self.start) & (p[a] <= self.stop)

    def bounds(self):
        a = AXES.index(self.axis)
        lo = [c - self.radius for c in self.center]
        hi = [c + self.radius for c in self.center]
        lo[a], hi[a] = self.start, self.stop
        return tuple(lo), tuple(hi)


class Mask(Shape):
    """Any shape: a boolean array over the grid's cells, `mask[i, j, k]` covering the cell
    [i, i+1]·dx × ... (set with the grid, so `grid` is the simulation's)."""

    def __init__(self, mask, grid: Grid):
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != grid.shape:
            raise ValueError(f"a mask must have the grid's cell shape {grid.shape}, got {mask.shape}")
        self.mask, self.spacing = mask, grid.spacing

    def contains(self, x, y, z):
        idx = [np.clip(np.floor(p / d).astype(np.int64), 0, n - 1)
               for p, d, n in zip((x, y, z), self.spacing, self.mask.shape)]
        inside = np.ones(np.broadcast(x, y, z).shape, bool)
        for p, d, n in zip((x, y, z), self.spacing, self.mask.shape):
            inside &= (p >= 0) & (p <= n * d)
        return inside & self.mask[idx[0], idx[1], idx[2]]

    def bounds(self):
        return (0.0, 0.0, 0.0), tuple(n * d for n, d in zip(self.mask.shape, self.spacing))


SUBSAMPLES = 4          # per axis, for smoothing: 64 samples, 65 mixing levels


class MaterialMap:
    """Per-component material indices and the material table, painted shape by shape
    (later shapes win, as in gprMax)."""

    def __init__(self, grid: Grid, background: Material = VACUUM):
        self.grid = grid
        self.table: list[tuple[float, float, bool]] = []
        self._index: dict = {}
        self.ids = {c: np.zeros(grid.nodes, np.uint16) for c in E_COMPONENTS}
        self.background = background
        self._id(background.eps_r, background.sigma, background.pec)

    def _id(self, eps_r, sigma, pec) -> int:
        key = (True, 0.0, 0.0) if pec else (False, round(float(eps_r), 9), round(float(sigma), 12))
        if key not in self._index:
            if len(self.table) >= 65535:
                raise ValueError("more than 65,535 distinct materials; quantise the "
                                 "permittivity map")
            self._index[key] = len(self.table)
            self.table.append((float(eps_r), float(sigma), bool(pec)))
        return self._index[key]

    def paint(self, shape: Shape, material: Material, smoothing: bool = False) -> int:
        """Paint `shape` with `material`; returns the number of E components it set."""
        g = self.grid
        (lo, hi) = shape.bounds()
        d = np.asarray(g.spacing)
        lo_m = np.asarray(lo, float)
        hi_m = np.asarray(hi, float)
        size = np.asarray(g.shape) * d
        if np.any(hi_m < -0.5 * d) or np.any(lo_m > size + 0.5 * d):
            raise ValueError(f"{shape} lies entirely outside the grid (0 .. {tuple(size)} m)")
        if np.any(lo_m < -0.5 * d - 1e-12 * size) or np.any(hi_m > size + 0.5 * d + 1e-12 * size):
            raise ValueError(f"{shape} reaches outside the grid (0 .. {tuple(np.round(size, 12))} m); "
                             "shrink or move it (a mask covers the whole grid)")
        mat_id = self._id(material.eps_r, material.sigma, material.pec)
        count = 0
        for comp in E_COMPONENTS:
            off = offsets(comp)
            i0 = np.clip(np.floor(lo_m / d - off - 1).astype(int), 0, np.asarray(g.nodes) - 1)
            i1 = np.clip(np.ceil(hi_m / d - off + 1).astype(int), 0, np.asarray(g.nodes) - 1)
            sl = tuple(slice(a, b + 1) for a, b in zip(i0, i1))
            pos = [(np.arange(a, b + 1) + o) * dd for a, b, o, dd in zip(i0, i1, off, d)]
            ids = self.ids[comp][sl]
            if not smoothing:
                X, Y, Z = np.meshgrid(*pos, indexing="ij")
                inside = shape.contains(X, Y, Z)
                ids[inside] = mat_id
                count += int(inside.sum())
                continue
            frac = np.zeros(ids.shape)
            centroid = np.zeros((3,) + ids.shape)
            sub = (np.arange(SUBSAMPLES) + 0.5) / SUBSAMPLES - 0.5
            for sx in sub:
                for sy in sub:
                    for sz in sub:
                        X, Y, Z = np.meshgrid(pos[0] + sx * d[0], pos[1] + sy * d[1],
                                              pos[2] + sz * d[2], indexing="ij")
                        inside = shape.contains(X, Y, Z)
                        frac += inside
                        centroid += inside * np.array([sx, sy, sz])[:, None, None, None]
            frac /= SUBSAMPLES ** 3
            touched = frac > 0
            count += int(touched.sum())
            if material.pec:
                ids[frac > 0.5] = mat_id
                continue
            ids[frac == 1.0] = mat_id
            edge = touched & (frac < 1.0)
            if not edge.any():
                continue
            # The surface normal from where the inside samples lie in the cell, and the
            # diagonal of the anisotropic average (Kottke et al., PRE 77, 036611): along
            # the normal E sees the harmonic mean of ε, across it the arithmetic mean.
            normal = centroid[:, edge]
            norm = np.linalg.norm(normal, axis=0)
            c_axis = "xyz".index(comp[1])
            n_c2 = np.where(norm > 0, (normal[c_axis] / np.where(norm > 0, norm, 1)) ** 2, 1 / 3)
            f = frac[edge]
            old = ids[edge]
            eps_o = np.array([self.table[o][0] for o in old])
            sig_o = np.array([self.table[o][1] for o in old])
            pec_o = np.array([self.table[o][2] for o in old])
            mean = (1 - f) * eps_o + f * material.eps_r
            harm = 1.0 / ((1 - f) / eps_o + f / material.eps_r)
            eps = 1.0 / (n_c2 / harm + (1 - n_c2) / mean)
            sig = (1 - f) * sig_o + f * material.sigma
            eps = np.round(eps, 4)
            new_ids = old.copy()
            for n in range(len(old)):
                if not pec_o[n]:
                    new_ids[n] = self._id(eps[n], sig[n], False)
            ids[edge] = new_ids
        return count

    def is_pec(self, comp: str, index) -> bool:
        return self.table[int(self.ids[comp][tuple(index)])][2]

    def eps_r_at(self, comp: str, index) -> float:
        return self.table[int(self.ids[comp][tuple(index)])][0]

    def coefficients(self, dt: float, dtype) -> np.ndarray:
        """(n_materials, 2) table of (Ca, Cb): E <- Ca·E + Cb·(curl H - J)."""
        out = np.zeros((len(self.table), 2), np.float64)
        for n, (eps_r, sigma, pec) in enumerate(self.table):
            if pec:
                continue
            eps = EPS0 * eps_r
            loss = sigma * dt / (2 * eps)
            out[n] = ((1 - loss) / (1 + loss), dt / eps / (1 + loss))
        return out.astype(dtype)

    def compact_ids(self) -> dict:
        """The index arrays in the smallest dtype that holds them (uint8 for <= 256)."""
        dt = np.uint8 if len(self.table) <= 256 else np.uint16
        return {c: a.astype(dt) for c, a in self.ids.items()}
