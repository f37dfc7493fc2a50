"""The Yee grid: cell sizes in metres, the time step from the Courant number, and where each
field component sits.

Layout (as gprMax): every field array has shape (nx + 1, ny + 1, nz + 1); index (i, j, k)
of a component is at
    Ex (i+½, j, k)    Ey (i, j+½, k)    Ez (i, j, k+½)
    Hx (i, j+½, k+½)  Hy (i+½, j, k+½)  Hz (i+½, j+½, k)
in cells. E is known at t = n·dt, H at (n+½)·dt. A component's *half* axes are those where
it sits half a cell in (Ex: x); on its *integer* axes it lies on the planes j = 0 and
j = ny, which are the walls: a PEC wall keeps the tangential E there at zero.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

C0 = 299_792_458.0                  # m/s
MU0 = 1.25663706212e-6              # H/m (CODATA 2018)
EPS0 = 1.0 / (MU0 * C0 * C0)        # F/m
ETA0 = MU0 * C0                     # ohm

AXES = "xyz"
E_COMPONENTS = ("ex", "ey", "ez")
H_COMPONENTS = ("hx", "hy", "hz")
FIELDS = E_COMPONENTS + H_COMPONENTS


def half_axes(component: str) -> tuple[int, ...]:
    """Axes along which `component` sits half a cell in from the node."""
    axis = AXES.index(component[1])
    if component[0] == "e":
        return (axis,)
    return tuple(a for a in range(3) if a != axis)


def offsets(component: str) -> np.ndarray:
    """(3,) position of index (0, 0, 0) of `component`, in cells."""
    off = np.zeros(3)
    off[list(half_axes(component))] = 0.5
    return off


@dataclass(frozen=True)
class Grid:
    """`shape`: cells (nx, ny, nz); `spacing`: (dx, dy, dz) in metres; `courant`: the fraction
    of the 3-D stability limit dt_max = 1 / (c·sqrt(1/dx² + 1/dy² + 1/dz²)) the step uses."""
    shape: tuple[int, int, int]
    spacing: tuple[float, float, float]
    courant: float = 0.99
    dtype: type = np.float32

    def __post_init__(self):
        if len(self.shape) != 3 or any(int(n) != n or n < 2 for n in self.shape):
            raise ValueError(f"the grid needs 3 sizes of at least 2 cells, got {self.shape!r}")
        if len(self.spacing) != 3 or any(not (d > 0 and math.isfinite(d)) for d in self.spacing):
            raise ValueError(f"cell sizes must be 3 positive lengths in metres, got {self.spacing!r}")
        if not 0 < self.courant <= 1:
            raise ValueError(f"the Courant number is a fraction of the 3-D stability limit: "
                             f"it must be in (0, 1], got {self.courant} (above 1 the Yee scheme "
                             f"grows without bound)")
        if np.dtype(self.dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise ValueError(f"precision must be float32 or float64, got {np.dtype(self.dtype)}")

    @property
    def nodes(self) -> tuple[int, int, int]:
        return tuple(n + 1 for n in self.shape)

    @property
    def cells(self) -> int:
        return int(np.prod(self.shape))

    @property
    def dt_max(self) -> float:
        return 1.0 / (C0 * math.sqrt(sum(1.0 / d ** 2 for d in self.spacing)))

    @property
    def dt(self) -> float:
        return self.courant * self.dt_max

    def index_of(self, point, what: str) -> tuple[int, int, int]:
        """The nearest node of a point in metres (origin at the grid's corner)."""
        idx = []
        for a, (p, d, n) in enumerate(zip(point, self.spacing, self.shape)):
            i = int(round(p / d))
            if not 0 <= i <= n:
                raise ValueError(f"{what} at {AXES[a]} = {p:g} m is outside the grid "
                                 f"(0 .. {n * d:g} m)")
            idx.append(i)
        return tuple(idx)

    def bytes_needed(self, extra_arrays: float = 0.0) -> int:
        """Device memory for the six fields plus `extra_arrays` more field-sized arrays."""
        return int((6 + extra_arrays) * np.prod(self.nodes) * np.dtype(self.dtype).itemsize)
