"""Tensor contractions on device arrays: `np.tensordot` and `np.einsum`.

Both become the batched matrix product (vkpersist/linalg/_product.py's tiled kernel, one launch
for a stack): every pair of operands is transposed (a view) and reshaped to
(batch, free of the left, contracted) @ (batch, contracted, free of the right), the way
BLAS-backed einsum implementations reduce a contraction to GEMM. Before that, an index
repeated within one operand takes the diagonal (a strided view), and an index that
appears in one operand only and not in the result is summed away (a reduction). More
than two operands contract from the left, pair by pair, keeping the indices later
operands or the result still need. Sums run in the product kernel's order (in K order
per element), so results agree with NumPy's to rounding, not bit for bit.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from .._manipulation import device_operand
from ..vk.array import Array


def _device(ctx, x):
    return device_operand(ctx, x, "np.einsum/np.tensordot")


def tensordot(a, b, axes=2):
    """np.tensordot: the sum over `axes` (N: a's last N with b's first N; or two
    sequences of axes)."""
    ctx = next(z.ctx for z in (a, b) if isinstance(z, Array))
    a, b = _device(ctx, a), _device(ctx, b)
    if isinstance(axes, int):
        if axes < 0:
            raise ValueError("negative axes are not allowed for tensordot")
        axes_a, axes_b = tuple(range(a.ndim - axes, a.ndim)), tuple(range(axes))
    else:
        axes_a, axes_b = axes
        axes_a = (axes_a,) if isinstance(axes_a, int) else tuple(axes_a)
        axes_b = (axes_b,) if isinstance(axes_b, int) else tuple(axes_b)
    axes_a = normalize_axis_tuple(axes_a, a.ndim)
    axes_b = normalize_axis_tuple(axes_b, b.ndim)
    if len(axes_a) != len(axes_b) or any(a.shape[i] != b.shape[j]
                                         for i, j in zip(axes_a, axes_b)):
        raise ValueError("shape-mismatch for sum")
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [j for j in range(b.ndim) if j not in axes_b]
    k = math.prod(a.shape[i] for i in axes_a)
    left = a.transpose(*free_a, *axes_a).reshape(-1, k)
    right = b.transpose(*axes_b, *free_b).reshape(k, -1)
    return (left @ right).reshape(tuple(a.shape[i] for i in free_a) +
                                  tuple(b.shape[j] for j in free_b))


def _parse(subscripts: str, count: int):
    text = subscripts.replace(" ", "")
    if "." in text:
        raise ValueError("np.einsum with '...' is not supported on vkpersist arrays; name "
                         "every axis")
    inputs, arrow, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) != count:
        raise ValueError(f"more operands ({count}) than subscripts ({len(terms)})"
                         if count > len(terms) else
                         f"fewer operands ({count}) than subscripts ({len(terms)})")
    for t in terms + [output]:
        bad = [c for c in t if not c.isalpha()]
        if bad:
            raise ValueError(f"invalid subscript {bad[0]!r} in einstein sum subscripts "
                             "string, subscripts must be letters")
    if not arrow:
        counts = {c: inputs.count(c) for c in set(inputs) if c != ","}
        output = "".join(sorted(c for c, n in counts.items() if n == 1))
    if len(set(output)) != len(output):
        raise ValueError(f"einstein sum subscripts string includes output subscript "
                         f"'{output}' multiple times")
    for c in output:
        if c not in inputs:
            raise ValueError(f"einstein sum subscripts string included output subscript "
                             f"'{c}' which never appeared in an input")
    return terms, output


def _diagonals(x: Array, letters: str):
    """`x` with every repeated letter reduced to its diagonal (moved last, as NumPy's
    diagonal does), and its letters."""
    while True:
        seen = {}
        for i, c in enumerate(letters):
            if c in seen:
                j = seen[c]
                x = np.diagonal(x, 0, j, i)
                letters = "".join(ch for k, ch in enumerate(letters) if k not in (i, j)) + c
                break
            seen[c] = i
        else:
            return x, letters


def _sum_out(x: Array, letters: str, keep: set):
    axes = tuple(i for i, c in enumerate(letters) if c not in keep)
    if not axes:
        return x, letters
    return np.sum(x, axis=axes), "".join(c for c in letters if c in keep)


def _pair(a: Array, la: str, b: Array, lb: str, keep: set):
    """The contraction of two operands over their shared letters not in `keep`."""
    batch = [c for c in la if c in lb and c in keep]
    contract = [c for c in la if c in lb and c not in keep]
    left = [c for c in la if c not in lb]
    right = [c for c in lb if c not in la]
    size = {c: n for c, n in zip(la, a.shape)} | {c: n for c, n in zip(lb, b.shape)}
    for c in set(la) & set(lb):
        if a.shape[la.index(c)] != b.shape[lb.index(c)]:
            raise ValueError(f"operands could not be broadcast together: subscript '{c}' "
                             f"has sizes {a.shape[la.index(c)]} and {b.shape[lb.index(c)]}")
    nb, nl, nc, nr = (math.prod(size[c] for c in group)
                      for group in (batch, left, contract, right))
    x = a.transpose(*[la.index(c) for c in batch + left + contract]).reshape(nb, nl, nc)
    y = b.transpose(*[lb.index(c) for c in batch + contract + right]).reshape(nb, nc, nr)
    z = (x @ y).reshape(tuple(size[c] for c in batch + left + right))
    return z, "".join(batch + left + right)


def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe",
           optimize=False):
    """np.einsum with explicit or implicit output, any number of operands (no '...')."""
    if not isinstance(subscripts, str):
        raise TypeError("np.einsum on vkpersist arrays takes the subscripts string form")
    terms, output = _parse(subscripts, len(operands))
    ctx = next(z.ctx for z in operands if isinstance(z, Array))
    arrays = [_device(ctx, z) for z in operands]
    if dtype is not None:
        arrays = [z.astype(dtype, copy=False) for z in arrays]
    for z, t in zip(arrays, terms):
        if z.ndim != len(t):
            raise ValueError("operand has more dimensions than subscripts given in einstein "
                             "sum, but no '...' ellipsis provided to broadcast the extra "
                             "dimensions." if z.ndim > len(t) else
                             f"einstein sum subscript '{t}' has {len(t)} letters for an "
                             f"operand of {z.ndim} dimensions")
    parts = [_diagonals(z, t) for z, t in zip(arrays, terms)]
    # letters needed by the result or by more than one operand survive each operand
    everywhere = "".join(t for _, t in parts)
    x, letters = _sum_out(parts[0][0], parts[0][1],
                          set(output) | {c for c in parts[0][1] if everywhere.count(c) > 1})
    for k in range(1, len(parts)):
        y, ly = parts[k]
        later = "".join(t for _, t in parts[k + 1:])
        y, ly = _sum_out(y, ly, set(output) | set(letters) | set(later))
        x, letters = _pair(x, letters, y, ly, set(output) | set(later))
    x, letters = _sum_out(x, letters, set(output))
    result = x.transpose(*[letters.index(c) for c in output]) if output else x
    if out is not None:
        out[...] = result
        return out
    return result.copy() if isinstance(result, Array) and not result._contiguous else result
