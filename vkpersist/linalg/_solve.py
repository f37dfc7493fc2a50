"""Dense linear algebra on device arrays: `np.linalg.solve`, `np.linalg.inv`,
`np.linalg.det`, `np.linalg.slogdet`, for matrices and stacks of them.

All four rest on one LU factorisation with partial pivoting (LAPACK's getrf, unblocked):
for each column k, a pivot search (the largest |A[i, k]|, i >= k, the first of equal
ones), a row swap, the multipliers, and the rank-1 update of the trailing block: four
launches per column, every matrix of a stack in the same launches, all in one submission.
The pivots stay on the device (the swap kernel reads them), so nothing waits for the
device until the end, where a zero pivot raises NumPy's `LinAlgError("Singular matrix")`.
solve then applies the swaps and substitutes forward (unit L) and back (U), one launch per
column each way; inv solves for the identity. Results agree with LAPACK's to rounding
(its blocked factorisation orders the sums differently): backward errors of order n·eps.

On GPUs, matrices up to `Target.solve_group_max` take one workgroup each instead
(`_group_kernels`): the same steps in the same order, workgroup barriers between them
instead of launches, so the results are the same bits; the target says why and where.
"""
from __future__ import annotations

import math

import numpy as np

from .._core.elementwise import LOCAL, groups_for
from .._kernel import func, kernel
from .._manipulation import device_operand
from ..lang.builtins import barrier, global_id, global_size, group_id, local_id, num_groups, shared
from ..vk.array import Array



@kernel
def _pivot(a, piv, k):
    # piv[b, k] = the row i >= k of the largest |a[b, i, k]| (the first of equal ones)
    g = global_id(0)
    n = a.shape[1]
    while g < a.shape[0]:
        best = k
        big = abs(a[g, k, k])
        for i in range(k + 1, n):
            v = abs(a[g, i, k])
            if v > big:
                big = v
                best = i
        piv[g, k] = best
        g += global_size(0)


# One step of the factorisation or the solve at one place, shared by the kernels that run
# each step as a launch and by the ones that run every step in one workgroup (same bits).
@func
def _swap_at(a, b, k, p, j):
    # column j of rows k and p exchange places
    t = a[b, k, j]
    a[b, k, j] = a[b, p, j]
    a[b, p, j] = t


@func
def _multiplier_at(a, b, k, i):
    # a[b, i, k] /= a[b, k, k]: the column of L; a zero pivot leaves its column (LAPACK skips)
    if a[b, k, k] != 0:
        a[b, i, k] = a[b, i, k] / a[b, k, k]


@func
def _update_at(a, b, k, r):
    # entry r of the trailing (m x m) block loses L[i, k] U[k, j]
    m = a.shape[1] - k - 1
    i = k + 1 + r // m
    j = k + 1 + r - (r // m) * m
    a[b, i, j] = a[b, i, j] - a[b, i, k] * a[b, k, j]


@func
def _permute_at(y, piv, b, c):
    # the factorisation's row swaps, in order, on column c of the right sides
    for k in range(y.shape[1]):
        p = piv[b, k]
        if p != k:
            _swap_at(y, b, k, p, c)


@func
def _forward_at(lu, y, b, k, r):
    # entry r of rows i > k: y[i] -= L[i, k] y[k] (L has a unit diagonal)
    cols = y.shape[2]
    i = k + 1 + r // cols
    c = r - (r // cols) * cols
    y[b, i, c] = y[b, i, c] - lu[b, i, k] * y[b, k, c]


@func
def _backward_at(lu, y, x, b, k, r):
    # entry r of rows i <= k: x[k] = y[k] / U[k, k]; y[i] -= U[i, k] x[k] for i < k
    cols = y.shape[2]
    i = r // cols
    c = r - i * cols
    xk = y[b, k, c] / lu[b, k, k]
    if i == k:
        x[b, k, c] = xk
    else:
        y[b, i, c] = y[b, i, c] - lu[b, i, k] * xk


@kernel
def _swap(a, piv, k):
    # rows k and piv[b, k] of every matrix exchange places (all columns)
    g = global_id(0)
    n = a.shape[2]
    while g < a.shape[0] * n:
        b = g // n
        p = piv[b, k]
        if p != k:
            _swap_at(a, b, k, p, g - b * n)
        g += global_size(0)


@kernel
def _multipliers(a, k):
    g = global_id(0)
    rows = a.shape[1] - k - 1
    while g < a.shape[0] * rows:
        b = g // rows
        _multiplier_at(a, b, k, k + 1 + g - b * rows)
        g += global_size(0)


@kernel
def _update(a, k):
    g = global_id(0)
    m = a.shape[1] - k - 1
    while g < a.shape[0] * m * m:
        b = g // (m * m)
        _update_at(a, b, k, g - b * (m * m))
        g += global_size(0)


@kernel
def _permute(y, piv):
    g = global_id(0)
    cols = y.shape[2]
    while g < y.shape[0] * cols:
        b = g // cols
        _permute_at(y, piv, b, g - b * cols)
        g += global_size(0)


@kernel
def _forward(lu, y, k):
    g = global_id(0)
    block = (lu.shape[1] - k - 1) * y.shape[2]
    while g < y.shape[0] * block:
        b = g // block
        _forward_at(lu, y, b, k, g - b * block)
        g += global_size(0)


@kernel
def _backward(lu, y, x, k):
    g = global_id(0)
    block = (k + 1) * y.shape[2]
    while g < y.shape[0] * block:
        b = g // block
        _backward_at(lu, y, x, b, k, g - b * block)
        g += global_size(0)



MAX_GROUPS = 65535          # workgroups of a launch; each takes every MAX_GROUPS-th matrix
GROUP = 256                 # invocations of a workgroup that factors or solves one matrix
_GROUP_KERNELS: dict = {}


def _group_kernels(real: np.dtype):
    """The LU factorisation and the solve of one matrix per workgroup, for matrices whose
    magnitudes are of type `real`."""
    kernels = _GROUP_KERNELS.get(real)
    if kernels is not None:
        return kernels
    none = real.type(-1)        # below every magnitude: "no candidate row"

    @kernel
    def lu_group(a, piv):
        vals = shared.array(GROUP, real)
        rows = shared.array(GROUP, np.int32)
        t = local_id(0)
        n = a.shape[1]
        b = group_id(0)
        while b < a.shape[0]:
            for k in range(n):
                # _pivot: the first row of the largest magnitude, a NaN at k keeping k;
                # each invocation scans every GROUP-th row, then a tree of barriers
                d = abs(a[b, k, k])  # read before the tree's barriers: the swap writes it
                big = none
                best = -1
                i = k + t
                while i < n:
                    v = abs(a[b, i, k])
                    if v > big:
                        big = v
                        best = i
                    i += GROUP
                vals[t] = big
                rows[t] = best
                barrier()
                half = GROUP // 2
                while half > 0:
                    if t < half:
                        other = rows[t + half]
                        if other >= 0 and (vals[t + half] > vals[t] or (
                                vals[t + half] == vals[t] and other < rows[t])):
                            vals[t] = vals[t + half]
                            rows[t] = other
                    barrier()
                    half //= 2
                p = rows[0]
                if d != d:
                    p = k
                if t == 0:
                    piv[b, k] = p
                if p != k:           # _swap
                    j = t
                    while j < n:
                        _swap_at(a, b, k, p, j)
                        j += GROUP
                barrier()
                i = k + 1 + t        # _multipliers
                while i < n:
                    _multiplier_at(a, b, k, i)
                    i += GROUP
                barrier()
                r = t                # _update
                while r < (n - k - 1) * (n - k - 1):
                    _update_at(a, b, k, r)
                    r += GROUP
                barrier()
            b += num_groups(0)

    @kernel
    def solve_group(lu, piv, y, x):
        t = local_id(0)
        n = lu.shape[1]
        cols = y.shape[2]
        b = group_id(0)
        while b < y.shape[0]:
            c = t                    # _permute
            while c < cols:
                _permute_at(y, piv, b, c)
                c += GROUP
            barrier()
            for k in range(n - 1):   # _forward
                r = t
                while r < (n - k - 1) * cols:
                    _forward_at(lu, y, b, k, r)
                    r += GROUP
                barrier()
            for kk in range(n):      # _backward, k from n - 1 down
                k = n - 1 - kk
                r = t
                while r < (k + 1) * cols:
                    _backward_at(lu, y, x, b, k, r)
                    r += GROUP
                barrier()
            b += num_groups(0)

    kernels = _GROUP_KERNELS[real] = (lu_group, solve_group)
    return kernels


def _one_group_each(work: Array) -> bool:
    return work.shape[-1] <= work.ctx.target.solve_group_max


def _real(dtype: np.dtype) -> np.dtype:
    return np.empty(0, dtype).real.dtype


def _square_stack(a: Array, what: str):
    if a.ndim < 2:
        raise np.linalg.LinAlgError(f"{a.ndim}-dimensional array given. Array must be at "
                                    "least two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    dtype = a.dtype if a.dtype.kind in "fc" else np.dtype(np.float64)
    if dtype == np.float16:
        dtype = np.dtype(np.float32)
    n = a.shape[-1]                         # (the batch counted: -1 is ambiguous for 0x0)
    return a.astype(dtype).reshape(math.prod(a.shape[:-2]), n, n)    # a working copy


def _lu(work: Array):
    """Factor the (B, n, n) stack in place; returns the pivots (B, n) int32."""
    bsz, n, _ = work.shape
    piv = Array(work.ctx, (bsz, max(n, 1)), np.int32)
    if _one_group_each(work):
        if bsz and n:
            lu_group = _group_kernels(_real(work.dtype))[0]
            lu_group[min(bsz, MAX_GROUPS), GROUP](work, piv)
        return piv
    with work.ctx.batched():
        for k in range(n):
            kk = np.int32(k)
            _pivot[groups_for(bsz), LOCAL](work, piv, kk)
            _swap[groups_for(bsz * n), LOCAL](work, piv, kk)
            if k + 1 < n:
                _multipliers[groups_for(bsz * (n - k - 1)), LOCAL](work, kk)
                _update[groups_for(bsz * (n - k - 1) ** 2), LOCAL](work, kk)
    return piv


def _check_singular(work: Array) -> None:
    diagonal = np.diagonal(work, 0, 1, 2)
    if work.size and bool(np.any(diagonal == 0)):
        raise np.linalg.LinAlgError("Singular matrix")


def _substitute(work: Array, piv: Array, rhs: Array) -> Array:
    bsz, n, cols = rhs.shape
    y = rhs.copy()
    x = Array(rhs.ctx, rhs.shape, rhs.dtype)
    if _one_group_each(work):
        if bsz and n and cols:
            solve_group = _group_kernels(_real(work.dtype))[1]
            solve_group[min(bsz, MAX_GROUPS), GROUP](work, piv, y, x)
        return x
    with rhs.ctx.batched():
        _permute[groups_for(bsz * cols), LOCAL](y, piv)
        for k in range(n - 1):
            _forward[groups_for(bsz * (n - k - 1) * cols), LOCAL](work, y, np.int32(k))
        for k in range(n - 1, -1, -1):
            _backward[groups_for(bsz * (k + 1) * cols), LOCAL](work, y, x, np.int32(k))
    return x


def solve(a, b):
    """np.linalg.solve: x with a @ x = b, for a matrix or a stack of them; b a vector or
    matrix (NumPy 2's rule: b is a vector only when it is 1-d)."""
    a = a if isinstance(a, Array) else device_operand(b.ctx, a, "np.linalg.solve")
    b = device_operand(a.ctx, b, "np.linalg.solve")
    work = _square_stack(a, "solve")
    n = a.shape[-1]
    dtype = np.result_type(work.dtype, b.dtype if b.dtype.kind in "fc" else work.dtype)
    work = work.astype(dtype, copy=False)
    vector = b.ndim == 1
    rhs = b.reshape(n, 1) if vector else b
    if rhs.shape[-2] != n:
        raise ValueError(f"solve: a is {a.shape} and b is {b.shape}: their sizes along n "
                         f"({n}) disagree")
    batch = a.shape[:-2]
    rhs = np.broadcast_to(rhs, batch + rhs.shape[-2:]) if rhs.ndim - 2 < len(batch) else rhs
    stack = rhs.astype(dtype).reshape(math.prod(rhs.shape[:-2]), n, rhs.shape[-1])
    if stack.shape[0] != work.shape[0]:
        raise ValueError(f"solve: the stacks of a {a.shape} and b {b.shape} do not match")
    piv = _lu(work)
    _check_singular(work)
    x = _substitute(work, piv, stack)
    return x.reshape(batch + (n,)) if vector else x.reshape(batch + rhs.shape[-2:])


def inv(a):
    """np.linalg.inv: the solution for the identity."""
    work = _square_stack(a, "inv")
    n = a.shape[-1]
    eye = np.broadcast_to(a.ctx.asarray(np.eye(n, dtype=work.dtype)), work.shape).copy()
    piv = _lu(work)
    _check_singular(work)
    return _substitute(work, piv, eye).reshape(a.shape[:-2] + (n, n))


def _factored(a: Array, what: str):
    """The LU factors of `a`'s stack, U's diagonal (B, n), and the sign of the row
    permutation (B,), in the factors' dtype."""
    work = _square_stack(a, what)
    n = a.shape[-1]
    piv = _lu(work)
    swaps = np.sum(piv[:, :n] != a.ctx.asarray(np.arange(n, dtype=np.int32)), axis=1)
    return np.diagonal(work, 0, 1, 2), (1 - 2 * (swaps % 2)).astype(work.dtype)


def slogdet(a):
    """np.linalg.slogdet: (sign, log|det|) from the pivots' product, as LAPACK's users do."""
    diagonal, parity = _factored(a, "slogdet")
    magnitude = np.abs(diagonal)
    logdet = np.sum(np.log(magnitude), axis=1)
    if diagonal.dtype.kind == "c":
        sign = parity * np.prod(diagonal / magnitude, axis=1)
    else:
        sign = parity * np.prod(np.sign(diagonal), axis=1)
    batch = a.shape[:-2]
    return sign.reshape(batch), logdet.reshape(batch)


def det(a):
    """np.linalg.det: the product of U's diagonal, signed by the row swaps."""
    diagonal, parity = _factored(a, "det")
    return (np.prod(diagonal, axis=1) * parity).reshape(a.shape[:-2])
