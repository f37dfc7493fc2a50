"""The device side of reductions: one two-level kernel per (operation, accumulator dtype),
reducing the rows of an (M, K) view.

A launch runs a grid of (G, M') workgroups of L invocations (L a power of two, at most
256). Workgroup (g, r) walks rows r, r + M', ...; for each, invocation l accumulates the
elements k = g*L + l, k + G*L, ... of the row in order (loading four at a time), the L accumulators are combined by a
binary tree in shared memory (L/2 pairs, then L/4, ...), and the workgroup writes one
partial. With G > 1 a second launch of the same kernel (G = 1) reduces the (M, G) partials
the same way. So a float sum adds each invocation's stride of about K/(G*L) elements in
order, then a tree of depth log2(G*L): error at most about (K/(G*L) + log2(G*L))·eps·Σ|x|.

argmin/argmax carry an int32 index beside the value (partials too) and break ties by the
smaller index, which is NumPy's first-occurrence rule; a NaN wins over any number (NumPy
returns the first NaN). min/max propagate NaN the same way. Complex values are ordered as
NumPy orders them (real part, then imaginary part; a NaN in either part wins, the first
one first), and complex min/max carry the index too (`indexed`): of elements that compare
equal but differ in their bits (0.0 and -0.0 parts, NaNs), NumPy's min/max return the
first in its iteration order, which the tree (and the interleaved workgroups) would
otherwise not keep.

Kernels are specialised by captured constants (the operation, whether the input is the
elementwise product of two arrays, whether indices come from a partials array, whether
the result is divided by a count): each specialisation compiles only its branches.
"""
from __future__ import annotations

import numpy as np

from .._kernel import func, kernel
from ..lang.types import resolve_type
from ..lang.builtins import (barrier, global_id, global_size, group_id, isnan, local_id,
                             local_size, num_groups, shared)

LOCAL = 256
SHORT = 16                   # rows this short (and many of them) take make_columns
NO_INDEX = 2**31 - 1
OPS = ("sum", "prod", "min", "max", "argmin", "argmax", "any", "all")


@func
def _add(a, ai, b, bi):
    return a + b, ai


@func
def _mul(a, ai, b, bi):
    return a * b, ai


@func
def _or(a, ai, b, bi):
    return a | b, ai


@func
def _and(a, ai, b, bi):
    return a & b, ai


def _extremum(low: bool, is_float: bool):
    """min/max/argmin/argmax: keep the smaller (larger) value, the smaller index on ties,
    a NaN over any number (the first NaN among NaNs)."""
    low, is_float = int(low), int(is_float)   # the language folds numbers, not bools

    @func
    def combine(a, ai, b, bi):
        take = False
        if low:
            take = b < a or (b == a and bi < ai)
        else:
            take = b > a or (b == a and bi < ai)
        if is_float:
            if isnan(b):
                take = not isnan(a) or bi < ai
        if take:
            return b, bi
        return a, ai
    return combine


def _complex_extremum(low: bool):
    """min/max/argmin/argmax of complex values, NumPy's lexicographic order (the order of
    its CLT/CGT and of np.minimum/np.maximum, _ufunc_complex.py): a value with a NaN part
    over any other (the smaller index among those), else the smaller (larger) real part,
    then imaginary part, then index. NaNs are tested first, so that no decision rests on
    a comparison with a NaN operand."""
    low = int(low)

    @func
    def combine(a, ai, b, bi):
        ar = a.real
        aim = a.imag
        br = b.real
        bim = b.imag
        a_nan = isnan(ar) or isnan(aim)
        take = False
        if isnan(br) or isnan(bim):
            take = not a_nan or bi < ai
        elif not a_nan:
            if low:
                take = br < ar or (br == ar and (bim < aim or (bim == aim and bi < ai)))
            else:
                take = br > ar or (br == ar and (bim > aim or (bim == aim and bi < ai)))
        if take:
            return b, bi
        return a, ai
    return combine


def _combiner(op: str, kind: str):
    """The @vkp.func that merges (a, ai) with (b, bi), returning the pair kept (`kind`:
    the accumulator dtype's kind)."""
    simple = {"sum": _add, "prod": _mul, "any": _or, "all": _and}.get(op)
    if simple is not None:
        return simple
    if kind == "c":
        return _complex_extremum(op in ("min", "argmin"))
    return _extremum(op in ("min", "argmin"), kind == "f")


def indexed(op: str, acc) -> bool:
    """Whether the kernels of `op` carry an element index beside each value: argmin and
    argmax, and min/max of complex values (the first of equal values wins, see above)."""
    return op in ("argmin", "argmax") or (op in ("min", "max") and np.dtype(acc).kind == "c")


def _loader(acc: np.dtype, boolean: int, product: int, from_index: int):
    """The @vkp.func loading element (row, k) as (value in the accumulator type, index):
    `!= 0` for any/all, the product of two arrays for dot products, the index from a
    partials array in a second pass."""
    ktype = resolve_type(acc)              # the kernel type, callable as a conversion

    @func
    def load(src, src2, srci, row, k):
        bi = k
        if from_index:
            bi = srci[row, k]
        if boolean:
            return ktype(src[row, k] != 0), bi
        if product:
            return ktype(src[row, k] * src2[row, k]), bi
        return ktype(src[row, k]), bi
    return load


def _parts(op: str, acc: np.dtype, product: bool, from_index: bool):
    """(combine, load, whether indices are kept and written to `dsti`) of a kernel
    specialisation."""
    boolean, arg = int(op in ("any", "all")), int(indexed(op, acc))
    return (_combiner(op, acc.kind), _loader(acc, boolean, int(product), int(from_index)),
            arg)


def make_reduce(op: str, acc: np.dtype, product: bool, from_index: bool, divide: bool):
    """The kernel reducing the rows of `src` (times `src2` when `product`) into `dst`
    (one value per row and workgroup column), with `dsti` the indices where `indexed`."""
    acc = np.dtype(acc)
    combine, load, arg = _parts(op, acc, product, from_index)
    divide = int(divide)

    @kernel
    def reduce_rows(src, src2, srci, dst, dsti, ident, divisor):
        sv = shared.array(256, acc)
        si = shared.array(256, np.int32)
        lid = local_id(0)
        width = local_size(0)
        groups = num_groups(0)
        n = src.shape[1]
        row = group_id(1)
        while row < src.shape[0]:
            a: acc = ident
            ai = NO_INDEX
            k = group_id(0) * width + lid
            step = groups * width
            while k + 3 * step < n:          # four loads in flight, added in the same order
                b0, i0 = load(src, src2, srci, row, k)
                b1, i1 = load(src, src2, srci, row, k + step)
                b2, i2 = load(src, src2, srci, row, k + 2 * step)
                b3, i3 = load(src, src2, srci, row, k + 3 * step)
                a, ai = combine(a, ai, b0, i0)
                a, ai = combine(a, ai, b1, i1)
                a, ai = combine(a, ai, b2, i2)
                a, ai = combine(a, ai, b3, i3)
                k += 4 * step
            while k < n:
                b, bi = load(src, src2, srci, row, k)
                a, ai = combine(a, ai, b, bi)
                k += step
            sv[lid] = a
            if arg:
                si[lid] = ai
            barrier()
            s = width // 2
            while s > 0:
                if lid < s:
                    if arg:
                        sv[lid], si[lid] = combine(sv[lid], si[lid], sv[lid + s], si[lid + s])
                    else:
                        sv[lid], ai = combine(sv[lid], 0, sv[lid + s], 0)
                barrier()
                s = s // 2
            if lid == 0:
                out = row * groups + group_id(0)
                if divide:
                    dst[out] = sv[0] / divisor
                else:
                    dst[out] = sv[0]
                if arg:
                    dsti[out] = si[0]
            barrier()
            row += num_groups(1)

    reduce_rows.__name__ = f"reduce_{op}_{acc}"
    return reduce_rows


def make_columns(op: str, acc: np.dtype, product: bool, from_index: bool, divide: bool):
    """Rows whose elements are far apart but whose rows are neighbours (the kept axis
    contiguous, as in `x.sum(axis=0)` of a C-ordered x): invocation r of chunk g adds
    src[r, k] over its chunk of k in order, so neighbouring invocations read neighbouring
    addresses. The (G, M) partials are reduced by a second launch with G = 1 over their
    transpose, which reads them the same way. With G = 1 it also serves many short rows
    (K <= SHORT): one invocation a row instead of a workgroup a row."""
    acc = np.dtype(acc)
    combine, load, arg = _parts(op, acc, product, from_index)
    divide = int(divide)

    @kernel
    def reduce_columns(src, src2, srci, dst, dsti, ident, divisor):
        n = src.shape[1]
        chunk = (n + num_groups(1) - 1) // num_groups(1)
        first = group_id(1) * chunk
        end = min(first + chunk, n)
        r = global_id(0)
        while r < src.shape[0]:
            a = ident                      # a scalar of the accumulator dtype
            ai = NO_INDEX
            k = first
            while k < end:
                b, bi = load(src, src2, srci, r, k)
                a, ai = combine(a, ai, b, bi)
                k += 1
            out = group_id(1) * src.shape[0] + r
            if divide:
                dst[out] = a / divisor
            else:
                dst[out] = a
            if arg:
                dsti[out] = ai
            r += global_size(0)

    reduce_columns.__name__ = f"reduce_columns_{op}_{acc}"
    return reduce_columns
