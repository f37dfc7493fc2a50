"""The total-field/scattered-field plane wave: a 1-D auxiliary grid along the direction of
travel, with the 3-D grid's cell size and time step, so the incident wave it injects has
exactly the 3-D grid's numerical dispersion along that axis, and the list of corrections
on the faces of the total-field box.

Inside the box [L, U] (nodes, inclusive) the grid holds the total field, outside the
scattered field. A component whose curl reaches across the box surface gets the incident
field of the neighbour on the other side added (E just inside) or subtracted (H just
outside), Taflove & Hagness §5.6, derived here for each face and component instead of
written out by hand.
"""
from __future__ import annotations

import numpy as np

from .grid import AXES, EPS0, MU0

# curl_c = Σ s·∂F_b/∂a, for each component c: (s, b, a)
CURL_TERMS = {0: ((+1, 2, 1), (-1, 1, 2)), 1: ((+1, 0, 2), (-1, 2, 0)), 2: ((+1, 1, 0), (-1, 0, 1))}

AUX_LEAD = 6            # 1-D nodes between the hard source and the box
AUX_ABSORBER = 60       # graded lossy cells that end the 1-D grid


class AuxGrid:
    """Index bookkeeping between the 3-D grid and the 1-D incident-field grid."""

    def __init__(self, wave, lo_idx, hi_idx, spacing, dt, dtype):
        self.wave = wave
        self.lo, self.hi = lo_idx, hi_idx
        a = wave.axis
        self.axis = a
        self.d = spacing[a]
        length = hi_idx[a] - lo_idx[a]
        self.nodes = AUX_LEAD + length + 10 + AUX_ABSORBER + 1   # einc has this many
        self.coeffs = self._coefficients(dt, dtype)
        self.e_axis = AXES.index(wave.polarization)
        self.h_axis, self.h_sign = wave.h_direction()

    def _coefficients(self, dt, dtype):
        n = self.nodes
        m = np.arange(n, dtype=float)
        start = n - 1 - AUX_ABSORBER
        depth_e = np.clip((m - start) / AUX_ABSORBER, 0, 1)
        depth_h = np.clip((m + 0.5 - start) / AUX_ABSORBER, 0, 1)
        sig_max = 0.8 * 4 / (np.sqrt(MU0 / EPS0) * self.d) * 3.0
        out = np.zeros((4, n))
        for row, depth, eps_or_mu, scale in ((0, depth_e, EPS0, 1.0), (2, depth_h, MU0, MU0 / EPS0)):
            sig = sig_max * depth ** 3 * scale
            loss = sig * dt / (2 * eps_or_mu)
            out[row] = (1 - loss) / (1 + loss)
            out[row + 1] = dt / (eps_or_mu * self.d) / (1 + loss)
        return out.astype(dtype)

    def node_index(self) -> tuple[int, int]:
        """(base, mul): the 1-D E node of 3-D node x along the axis is base + mul·x."""
        a = self.axis
        if self.wave.sign > 0:
            return AUX_LEAD - self.lo[a], 1
        return AUX_LEAD + self.hi[a], -1

    def half_index(self) -> tuple[int, int]:
        """(base, mul): the 1-D H index of 3-D half node q (at q + ½) is base + mul·q."""
        a = self.axis
        if self.wave.sign > 0:
            return AUX_LEAD - self.lo[a], 1
        return AUX_LEAD + self.hi[a] - 1, -1

    def corrections(self, spacing):
        """({E component: records}, {H component: records}); a record is
        (i0, i1, j0, j1, k0, k1, coef, base, mul): for the cells in that index box
        (inclusive), curl += coef·inc[base + mul·(index along the wave's axis)], inc the
        1-D H (for E updates) or E (for H updates)."""
        L, U = self.lo, self.hi
        e_corr = {c: [] for c in range(3)}
        h_corr = {c: [] for c in range(3)}
        hb, hm = self.half_index()
        eb, em = self.node_index()
        for c in range(3):
            for s, b, a in CURL_TERMS[c]:
                # E_c just inside faces a = L and a = U; the H_b neighbour outside.
                if b == self.h_axis:
                    for face_idx, h_idx, sgn in ((L[a], L[a] - 1, -1), (U[a], U[a], +1)):
                        box = _ranges(L, U, half=(c,), fixed={a: face_idx})
                        base, mul = (hb, hm)
                        if a == self.axis:
                            base, mul = hb + hm * h_idx, 0
                        e_corr[c].append((*box, sgn * s * self.h_sign / spacing[a], base, mul))
                # H_c just outside faces a = L and a = U; the E_b neighbour inside.
                if b == self.e_axis:
                    for face_idx, e_idx, sgn in ((L[a] - 1, L[a], -1), (U[a], U[a], +1)):
                        half = tuple(x for x in range(3) if x != c)
                        box = _ranges(L, U, half=half, fixed={a: face_idx})
                        base, mul = (eb, em)
                        if a == self.axis:
                            base, mul = eb + em * e_idx, 0
                        h_corr[c].append((*box, sgn * s / spacing[a], base, mul))
        return ({c: tuple(v) for c, v in e_corr.items()}, {c: tuple(v) for c, v in h_corr.items()})


def _ranges(L, U, half, fixed):
    out = []
    for a in range(3):
        if a in fixed:
            out += [fixed[a], fixed[a]]
        elif a in half:
            out += [L[a], U[a] - 1]
        else:
            out += [L[a], U[a]]
    return tuple(out)
