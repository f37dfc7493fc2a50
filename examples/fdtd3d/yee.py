"""The Yee update of one field component at one node, as vkp.funcs both formulations of
the step compose: kernels.py's split stages (update_h, then update_e) and
kernels_fused.py's one stage (each node's new H, the new H its E update reads behind it
recomputed, then its new E).

One definition per field and axis, generic over the component: component c's curl is
dF_C/dB - dF_B/dC with B, C = c + 1, c + 2 (mod 3), so the three components differ only
in compile-time constants (which arrays, which axis a neighbour lies along, which ψ block
and coefficient row). The kernel language compiles only the branch a captured constant
takes (docs/language.md), so each function's GLSL holds only its component's code.
"""
from __future__ import annotations

import functools

import vkpersist as vkp

# rows of the read-only coefficient table `coef` (Simulation.build fills it)
COEF_AXIS = (0, 6, 12)      # per axis: bE, cE, 1/κE at nodes, bH, cH, 1/κH at half nodes
COEF_MAT = 18               # Ca, Cb of each material (column: the material index)
COEF_AUX = 20               # the 1-D incident grid: ca, cb (E), da, db (H)
COEF_PHASOR = 24            # the DFTs' phasor tables (monitors.phasor_tables)


@vkp.func
def stretched(d, psi, out, pi, pj, pk, cp, n, row):
    """CPML: ψ ← b·ψ + c·∂F, stored into `out` (`psi` itself in the split update, the next
    half of ψ's pair in the fused one), and the stretched derivative ∂F/κ + ψ
    (coefficient rows `row` .. `row` + 2 of the axis table `cp` at index `n`)."""
    v = cp[row, n] * psi[pi, pj, pk] + cp[row + 1, n] * d
    out[pi, pj, pk] = v
    return d * cp[row + 2, n] + v


@vkp.func
def stretched_value(d, psi, pi, pj, pk, cp, n, row):
    """`stretched` without the store: a neighbour's derivative recomputed (that node's own
    invocation stores its ψ)."""
    v = cp[row, n] * psi[pi, pj, pk] + cp[row + 1, n] * d
    return d * cp[row + 2, n] + v


def _per_scene(factory):
    """A Yee method that makes a vkp.func, made once per scene and arguments: each call
    site then calls the same function, so the megakernel holds one GLSL function for it
    instead of one per use (the fused update's: 48 functions instead of 87). Kept on the
    instance, so it goes with the scene's arrays."""
    @functools.wraps(factory)
    def made(self, *args):
        key = (factory.__name__, args)
        if key not in self._made:
            self._made[key] = factory(self, *args)
        return self._made[key]
    return made


@functools.cache
def index_along(a):
    """vkp.func (i, j, k) -> the node's index along axis a (a compile-time choice)."""
    A = a

    @vkp.func
    def index_along(i, j, k):
        x = i
        if A == 1:
            x = j
        if A == 2:
            x = k
        return x
    return index_along


class Yee:
    """The update's functions for one scene: `consts` (kernels.update_constants), the
    material and coefficient arrays, and where ψ is read from and stored to."""

    def __init__(self, consts, ids, coef, psi, psi_out):
        c = consts
        self.n, self.inv, self.q = (c.NX, c.NY, c.NZ), (c.IDX, c.IDY, c.IDZ), (c.QX, c.QY, c.QZ)
        self.per, self.has_pml, self.plo, self.phi = c.PER, c.HAS_PML, c.PLO, c.PHI
        self.elo, self.ch, self.h_corr, self.prop = c.ELO, c.CH, c.H_CORR, c.PROP
        self.ids, self.coef, self.psi, self.psi_out = ids, coef, psi, psi_out
        self._made = {}

    @_per_scene
    def along(self, a, d):
        """vkp.func (i, j, k) -> the node d (±1) steps from it along axis a, wrapped where
        a is periodic."""
        A, N, P, D = a, self.n[a], self.per[a], d
        index = index_along(a)

        @vkp.func
        def along(i, j, k):
            y = index(i, j, k) + D
            if P:
                if D > 0:
                    if y == N:
                        y = 0
                else:
                    if y < 0:
                        y = N - 1
            ni = i
            nj = j
            nk = k
            if A == 0:
                ni = y
            if A == 1:
                nj = y
            if A == 2:
                nk = y
            return ni, nj, nk
        return along

    @_per_scene
    def stretch(self, a, block, e_side, store):
        """vkp.func (d, i, j, k) -> the derivative d along axis a, stretched where (i, j, k)
        lies in the CPML (ψ block `block` of axis a's array; rows for E or H nodes);
        `store`: also store the new ψ (the node's own invocation)."""
        A, HAS, N, LO, HI = a, self.has_pml[a], self.n[a], self.plo[a], self.phi[a]
        OFF = block * self.q[a]
        EDGE = N - HI + (1 if e_side else 0)       # E nodes: x > N - HI; H: x >= N - HI
        ROW = COEF_AXIS[a] + (0 if e_side else 3)
        STORE = store
        psi, out, coef = self.psi.get("xyz"[a]), self.psi_out.get("xyz"[a]), self.coef
        index = index_along(a)

        @vkp.func
        def stretch(d, i, j, k):
            v = d
            if HAS:
                x = index(i, j, k)
                if x < LO or x >= EDGE:
                    p = x if x < LO else x - N + LO + HI
                    pi = i
                    pj = j
                    pk = k
                    if A == 0:
                        pi = OFF + p
                    if A == 1:
                        pj = OFF + p
                    if A == 2:
                        pk = OFF + p
                    if STORE:
                        v = stretched(d, psi, out, pi, pj, pk, coef, x, ROW)
                    else:
                        v = stretched_value(d, psi, pi, pj, pk, coef, x, ROW)
            return v
        return stretch

    @_per_scene
    def h_updated(self, c):
        """vkp.func (i, j, k) -> whether H_c at that node is updated (h_at's guard)."""
        LIM = tuple(n + (1 if a == c else 0) for a, n in enumerate(self.n))

        @vkp.func
        def h_updated(i, j, k):
            return i < LIM[0] and j < LIM[1] and k < LIM[2]
        return h_updated

    @_per_scene
    def e_updated(self, c):
        """vkp.func (i, j, k) -> whether E_c at that node is updated (e_at's guard)."""
        LO = tuple(0 if a == c else lo for a, lo in enumerate(self.elo))
        N = self.n

        @vkp.func
        def e_updated(i, j, k):
            return LO[0] <= i and i < N[0] and LO[1] <= j and j < N[1] and LO[2] <= k \
                and k < N[2]
        return e_updated

    def h(self, c, e, h, inc, store):
        """vkp.func h_at(i, j, k): the new H_c at that node from E and H as the step
        starts (`e`, `h`: the three components' arrays), its old value where H_c is not
        updated; the CPML's ψ stored when `store`, the TFSF corrections from inc[0]."""
        B, C = (c + 1) % 3, (c + 2) % 3
        E_B, E_C, H_C = e[B], e[C], h[c]
        INV_B, INV_C, CH, CORR = self.inv[B], self.inv[C], self.ch, self.h_corr[c]
        updated = self.h_updated(c)
        up_b, up_c = self.along(B, 1), self.along(C, 1)
        # ψ blocks 2 and 3 hold the two H components across an axis, lower-numbered first
        stretch_b = self.stretch(B, 2 + (c > C), False, store)
        stretch_c = self.stretch(C, 2 + (c > B), False, store)
        pos = index_along(self.prop)          # the node's place along the plane wave

        @vkp.func
        def h_at(i, j, k):
            v = H_C[i, j, k]
            if updated(i, j, k):
                ib, jb, kb = up_b(i, j, k)          # the node one step along B
                ic, jc, kc = up_c(i, j, k)          # and along C
                d_c = stretch_b((E_C[ib, jb, kb] - E_C[i, j, k]) * INV_B, i, j, k)
                d_b = stretch_c((E_B[ic, jc, kc] - E_B[i, j, k]) * INV_C, i, j, k)
                curl = d_c - d_b
                p = pos(i, j, k)
                for (a0, a1, b0, b1, c0, c1, weight, base, mul) in CORR:
                    if a0 <= i and i <= a1 and b0 <= j and j <= b1 and c0 <= k and k <= c1:
                        curl += weight * inc[0, base + mul * p]
                v = v - CH * curl
            return v
        return h_at

    def e(self, c, e, h_back, e_extra):
        """vkp.func e_at(i, j, k, h_b, h_c, t): the new E_c at that node from its old value
        (`e`: the three components' arrays as the step starts), the new H_B and H_C at
        the node (`h_b`, `h_c`) and behind it (`h_back[B]`, `h_back[C]`: vkp.funcs of a
        node), its material's coefficients and `e_extra` (TFSF, currents at time t); its
        old value where E_c is not updated. The CPML's ψ is stored (the own node)."""
        B, C = (c + 1) % 3, (c + 2) % 3
        E_c, HB_AT, HC_AT = e[c], h_back[B], h_back[C]
        INV_B, INV_C = self.inv[B], self.inv[C]
        updated = self.e_updated(c)
        ROW = c * (self.n[0] + 1)                   # the component's block of `ids`
        MAT = COEF_MAT
        ids, coef = self.ids, self.coef
        down_b, down_c = self.along(B, -1), self.along(C, -1)
        # ψ blocks 0 and 1 hold the two E components across an axis, lower-numbered first
        stretch_b = self.stretch(B, int(c > C), True, True)
        stretch_c = self.stretch(C, int(c > B), True, True)
        pos = index_along(self.prop)

        @vkp.func
        def e_at(i, j, k, h_b, h_c, t):
            v = E_c[i, j, k]
            if updated(i, j, k):
                ib, jb, kb = down_b(i, j, k)        # the node one step back along B
                ic, jc, kc = down_c(i, j, k)        # and along C
                d_c = stretch_b((h_c - HC_AT(ib, jb, kb)) * INV_B, i, j, k)
                d_b = stretch_c((h_b - HB_AT(ic, jc, kc)) * INV_C, i, j, k)
                curl = d_c - d_b
                curl += e_extra(c, i, j, k, pos(i, j, k), t)
                m = ids[ROW + i, j, k]
                v = coef[MAT, m] * v + coef[MAT + 1, m] * curl
            return v
        return e_at
