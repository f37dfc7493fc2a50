"""dot, matmul and cumsum on device arrays, as NumPy's: 1-d and 2-d operands, matmul of
stacks of matrices and dot of N-d operands (docs/reductions.md).

    c = a @ b                 # np.matmul(a, b), vkp.matmul(a, b): 2-d x 2-d tiled kernel
    y = np.dot(A, x)          # matrix-vector and vector-vector: a product-sum reduction
    s = np.cumsum(x, axis=0)  # a scan (per-workgroup scan, block totals, add-back)

Matrix-matrix products run the tiled shared-memory kernels of _linalg_kernels.py. A vector
operand is instead a row reduction of products: A @ x reduces the rows of A times x seen as
an (M, K) view with row stride 0 (no copy), with the reduction kernel of
_reduce_kernels.py, so a long dot product is two-level like a sum. Operands of different
dtypes are converted to NumPy's result dtype on the device first.
"""
from __future__ import annotations

import math

import numpy as np

from . import _kernels as lk
from .._errors import UnsupportedError, VkPersistError
from .._core.reduction import (_acc_dtype, _device, _result_dtype, normalize_axis_tuple,
                               reduce_rows, rows_view)
from ..vk.array import Array
from ..vk.context import default_context
from ..vk.sequence import batched

_MATMUL: dict = {}
_SCAN: dict = {}


def _operands(name, a, b, out=None):
    """Both operands as device arrays of NumPy's result dtype, on one context (an
    operand's, else `out`'s), and whether both came from the host (then the result goes
    back as NumPy)."""
    devices = [z for z in (a, b) if isinstance(z, Array)]
    ctx = devices[0].ctx if devices else out.ctx if isinstance(out, Array) \
        else default_context()
    if any(z.ctx is not ctx for z in devices):
        raise VkPersistError(f"vkpersist.{name}: the operands belong to different Contexts")
    x, y = (z if isinstance(z, Array) else ctx.asarray(np.ascontiguousarray(z)) for z in (a, b))
    dtype = np.result_type(x.dtype, y.dtype)
    if dtype == np.bool_:
        raise UnsupportedError(f"vkpersist.{name} of boolean arrays is not supported; "
                               "convert with .astype(np.int32) first")
    x = x if x.dtype == dtype else x.astype(dtype)
    y = y if y.dtype == dtype else y.astype(dtype)
    return x, y, dtype, not devices


def _broadcast_rows(v: Array, rows: int) -> Array:
    """The 1-d `v` as (rows, K), every row the same memory (row stride 0)."""
    return v._view((rows, v.shape[0]), (0, v._estrides[0]), v._offset)


def _product(x: Array, y: Array, dtype) -> Array:
    """x @ y for 1-d and 2-d device operands whose inner sizes agree."""
    acc = _acc_dtype("sum", dtype)
    if x.ndim == 2 and y.ndim == 2:                   # a stack of one matrix
        m, n = x.shape[0], y.shape[1]
        c = Array(x.ctx, (m, n), acc)
        if c.size:
            _launch_matmul(_as_stack(x, (1,)), _as_stack(y, (1,)), c.reshape((1, m, n)))
        return c if acc == dtype else c.astype(dtype)
    if x.ndim == 2:                                   # (M, K) @ (K,)
        src, src2, shape = x, _broadcast_rows(y, x.shape[0]), (x.shape[0],)
    elif y.ndim == 2:                                 # (K,) @ (K, N)
        src, src2, shape = y.T, _broadcast_rows(x, y.shape[1]), (y.shape[1],)
    else:                                             # (K,) . (K,)
        src, src2, shape = _broadcast_rows(x, 1), _broadcast_rows(y, 1), ()
    values, _ = reduce_rows("sum", src, acc, dtype, src2=src2)
    return values.reshape(shape)


def _finish(result: Array, out, host: bool):
    if out is not None:
        if not isinstance(out, Array) or out.shape != result.shape or out.dtype != result.dtype:
            raise ValueError("output array is not acceptable (must have the right datatype, "
                             f"number of dimensions ({result.shape}, {result.dtype}), and be a "
                             "vkpersist.Array)")
        out.copy_from(result)
        return out
    if host:
        r = result.numpy()
        return r[()] if r.ndim == 0 else r
    return result


def _shape_text(shape) -> str:
    return "(" + ",".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def matmul(a, b, out=None):
    """a @ b as np.matmul: 1-d operands are vectors (the result drops their axis), and
    operands of 3 or more dimensions are stacks of matrices, their leading axes broadcast
    together (each matrix of the stack one tiled product)."""
    x, y, dtype, host = _operands("matmul", a, b, out)
    for i, z in enumerate((x, y)):
        if z.ndim == 0:
            raise ValueError(f"matmul: Input operand {i} does not have enough dimensions "
                             "(has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) "
                             "requires 1)")
    k_a, k_b = x.shape[-1], y.shape[-2 if y.ndim > 1 else 0]
    if k_a != k_b:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, "
                         f"with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {k_b} is "
                         f"different from {k_a})")
    if x.ndim <= 2 and y.ndim <= 2:
        return _finish(_product(x, y, dtype), out, host)
    return _finish(_stacked(x, y, dtype), out, host)


def _stacked(x: Array, y: Array, dtype) -> Array:
    """matmul of operands of which one has 3 or more dimensions: the leading axes broadcast,
    then one launch of the batched tiled kernel over the whole stack (operands as (B, M, K)
    and (B, K, N) views; a broadcast matrix is read in place, with batch stride 0)."""
    xa = x if x.ndim > 1 else x.reshape((1, x.shape[0]))
    ya = y if y.ndim > 1 else y.reshape((y.shape[0], 1))
    bx, by = xa.shape[:-2], ya.shape[:-2]
    try:
        batch = np.broadcast_shapes(bx, by)
    except ValueError:
        def remapped(shape, batch_shape):
            return f"{_shape_text(shape)}->({''.join(f'{d},' for d in batch_shape)}" \
                "newaxis,newaxis)"
        raise ValueError(f"matmul: operands could not be broadcast together with remapped "
                         f"shapes [original->remapped]: {remapped(x.shape, bx)} "
                         f"{remapped(y.shape, by)}") from None
    m, n = xa.shape[-2], ya.shape[-1]
    acc = _acc_dtype("sum", dtype)
    result = Array(x.ctx, batch + (m, n), acc)
    count = result.size // (m * n) if m * n else 0
    if result.size:
        _launch_matmul(_as_stack(xa, batch), _as_stack(ya, batch),
                       result.reshape((count, m, n)))
    if acc != dtype:
        result = result.astype(dtype)
    shape = batch + ((m,) if x.ndim > 1 else ()) + ((n,) if y.ndim > 1 else ())
    return result.reshape(shape)


def _launch_matmul(a3: Array, b3: Array, c3: Array) -> None:
    """c3 = a3 @ b3 for the (B, M, K), (B, K, N) and (B, M, N) views: a blocked kernel when
    both sides of C are long enough to fill its tiles (and the tiles fit the device's
    shared memory), else the 16x16 one (the same sums, _linalg_kernels.py); chunks of the
    device's workgroup z limit, one submission."""
    count, m, n = c3.shape
    acc = c3.dtype
    micro = 0
    if acc.kind in "fiu":
        room = c3.ctx.info.max_shared_memory
        for size, wanted in ((8, m * n >= lk.BLOCKED8_CELLS), (4, True)):
            if wanted and min(m, n) >= lk.BLOCKED_FROM and \
                    lk.blocked_shared_bytes(acc, size) <= room:
                micro = size
                break
    key = (acc, micro)
    kern = _MATMUL.get(key)
    if kern is None:
        kern = _MATMUL[key] = lk.make_matmul_blocked(acc, micro) if micro else \
            lk.make_matmul(acc)
    tile = 16 * micro if micro else lk.TILE
    groups = (-(-n // tile), -(-m // tile))
    step = c3.ctx.info.max_workgroup_count[2]
    with batched(c3.ctx):
        for z in range(0, count, step):
            kern[(*groups, min(step, count - z)), (lk.TILE, lk.TILE)](
                a3[z:z + step], b3[z:z + step], c3[z:z + step])


def _as_stack(z: Array, batch: tuple) -> Array:
    """`z` (..., r, c) broadcast to batch + (r, c) as a (B, r, c) view: axes it lacks or has
    of size 1 get stride 0; batch axes that cannot merge into one stride are copied first."""
    lead = len(batch) - (z.ndim - 2)
    strides = [0] * lead + [0 if d == 1 else st for d, st in zip(z.shape[:-2], z._estrides)]
    real = [(d, st) for d, st in zip(batch, strides) if d != 1]
    if any(outer[1] != inner[1] * inner[0] for outer, inner in zip(real, real[1:])):
        dense = z._view(batch + z.shape[-2:], strides + list(z._estrides[-2:]), z._offset)
        return _as_stack(dense.copy(), batch)
    merged = real[-1][1] if real else 0
    count = math.prod(batch)
    return z._view((count, *z.shape[-2:]), (merged, *z._estrides[-2:]), z._offset)


def dot(a, b, out=None):
    """np.dot: the inner product of vectors, matrix-vector and matrix-matrix products, and
    for N-d operands the sum over a's last axis and b's second-to-last (NumPy's rule), as
    one 2-d product of a as (..., K) rows and b with that axis moved first."""
    x, y, dtype, host = _operands("dot", a, b, out)
    if x.ndim == 0 or y.ndim == 0:
        raise UnsupportedError(f"vkpersist.dot takes operands of 1 or more dimensions, got "
                               f"shapes {x.shape} and {y.shape}; for a scalar factor use a * b")
    ky = y.ndim - 2 if y.ndim > 1 else 0
    if x.shape[-1] != y.shape[ky]:
        raise ValueError(f"shapes {_shape_text(x.shape)} and {_shape_text(y.shape)} not "
                         f"aligned: {x.shape[-1]} (dim {x.ndim - 1}) != {y.shape[ky]} "
                         f"(dim {ky})")
    if x.ndim <= 2 and y.ndim <= 2:
        return _finish(_product(x, y, dtype), out, host)
    k = x.shape[-1]
    rows = x.reshape((math.prod(x.shape[:-1]), k)) if x.ndim > 1 else x
    cols = y.transpose(ky, *[i for i in range(y.ndim) if i != ky])      # (K, ...)
    cols = cols.reshape((k, math.prod(cols.shape[1:])))
    shape = x.shape[:-1] + y.shape[:ky] + y.shape[ky + 1:]
    return _finish(_product(rows, cols, dtype).reshape(shape), out, host)


def _scan_rows(src: Array, acc, op: str = "sum") -> Array:
    """The inclusive scan (`op` "sum" or "prod") of each row of the (M, K) view `src`, as a
    new (M, K) array."""
    ctx = src.ctx
    kernels = _SCAN.get((acc, op))
    if kernels is None:
        kernels = _SCAN[(acc, op)] = lk.make_scan(acc, op)
    scan_blocks, add_offsets = kernels
    m, k = src.shape
    blocks = -(-k // lk.SCAN)
    dst = Array(ctx, (m, k), acc)
    totals = Array(ctx, (m, blocks), acc)
    grid = (min(blocks, 65535), min(m, 65535))
    scan_blocks[grid, lk.SCAN](src, dst, totals)
    if blocks > 1:
        scanned = _scan_rows(totals, acc, op)
        add_offsets[grid, lk.SCAN](dst, scanned)
    return dst


def cumsum(a, axis=None, dtype=None, out=None):
    """The cumulative sum along `axis` (None: of the flattened array), as np.cumsum, with
    NumPy's result dtype (int32 gives int64). Float sums are in scan order (docs)."""
    return _scan("sum", a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    """The cumulative product along `axis`, as np.cumprod (products in scan order)."""
    return _scan("prod", a, axis, dtype, out)


def _scan(op: str, a, axis, dtype, out):
    name = "cumsum" if op == "sum" else "cumprod"
    x, host = _device(a)
    if axis is None:
        axes, shape = tuple(range(x.ndim)), (x.size,)
    else:
        if not isinstance(axis, (int, np.integer)):
            raise TypeError(f"vkpersist.{name}: axis must be an int or None, got {axis!r}")
        axes = normalize_axis_tuple(axis, x.ndim)
        shape = x.shape
    result = _result_dtype(op, x.dtype, dtype)
    acc = _acc_dtype(op, result)
    if result.kind == "b":
        raise UnsupportedError(f"vkpersist.{name}(dtype=bool) is not supported; use an "
                               "integer dtype")
    if x.size == 0:
        res = Array(x.ctx, shape, result)
    else:
        with batched(x.ctx):                     # every level's launches: one submission
            rows = _scan_rows(rows_view(x, axes), acc, op)
        if axis is None:
            res = rows.reshape(shape)
        else:
            ax = axes[0]
            kept = tuple(n for i, n in enumerate(x.shape) if i != ax)
            res = rows.reshape(kept + (x.shape[ax],))
            res = res.transpose(*range(ax), res.ndim - 1, *range(ax, res.ndim - 1))
        if res.dtype != result or not res._contiguous:
            res = res.astype(result)
    return _finish(res, out, host)


def inner(a, b):
    """np.inner: the sum over the last axes; of 1-d operands a 0-d dot product."""
    x, y, dtype, host = _operands("inner", a, b)
    if x.ndim == 0 or y.ndim == 0:
        return _finish(x * y, None, host)
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"shapes {x.shape} and {y.shape} not aligned: {x.shape[-1]} (dim "
                         f"{x.ndim - 1}) != {y.shape[-1]} (dim {y.ndim - 1})")
    k = x.shape[-1]
    xm = x.reshape(-1, k) if x.ndim > 1 else x
    ym = y.reshape(-1, k).T if y.ndim > 1 else y
    result = _product(xm, ym, dtype).reshape(x.shape[:-1] + y.shape[:-1])
    return _finish(result, None, host)


def vdot(a, b):
    """np.vdot: the flattened dot product, the first operand conjugated."""
    x, y, _, host = _operands("vdot", a, b)
    if x.size != y.size:
        raise ValueError("cannot reshape array: vdot needs operands of one size, got "
                         f"{x.size} and {y.size}")
    x = x.reshape(-1)
    result = inner(x.conjugate() if x.dtype.kind == "c" else x, y.reshape(-1))
    return _finish(result, None, host)


def outer(a, b, out=None):
    """np.outer: a.ravel()[:, None] * b.ravel()[None, :]."""
    x, y, _, host = _operands("outer", a, b)
    result = np.multiply(x.reshape(-1)[:, None], y.reshape(-1)[None, :], out=out)
    return result if out is not None else _finish(result, None, host)


def norm(x, ord=None, axis=None, keepdims=False):
    """np.linalg.norm of vectors (ord None/2, 1, inf, -inf, 0, any p) and the Frobenius
    norm of matrices; sums in the reductions' tree order. Matrix norms that need singular
    values or maximum row/column sums over 2 axes (ord 2, -2, 'nuc', 1, inf of a matrix)
    are refused."""
    from .._core import reduction as reductions
    if not isinstance(x, Array):
        return np.linalg.norm(x, ord, axis, keepdims)
    x = reductions.inexact(x)
    axes = tuple(range(x.ndim)) if axis is None else \
        normalize_axis_tuple(axis, x.ndim)
    if len(axes) == 2 and ord not in (None, "fro"):
        raise UnsupportedError(f"np.linalg.norm(ord={ord!r}) of matrices is not supported on "
                               "vkpersist arrays (it needs singular values or row sums); "
                               "ord=None and 'fro' are")
    if len(axes) > 2 or (axis is None and x.ndim > 2 and ord is not None):
        raise ValueError("Improper number of dimensions to norm.")
    if len(axes) == 1 and ord == "fro":
        raise ValueError("Invalid norm order 'fro' for vectors")
    mag = abs(x)
    kw = {"axis": axes, "keepdims": keepdims}
    if ord in (None, 2, "fro"):
        squares = mag * mag if x.dtype.kind == "c" else x * x
        return np.sqrt(reductions.sum(squares, **kw))
    if ord == np.inf:
        return reductions.max(mag, **kw)
    if ord == -np.inf:
        return reductions.min(mag, **kw)
    if ord == 0:
        return reductions.sum((x != 0).astype(mag.dtype), **kw)
    if ord == 1:
        return reductions.sum(mag, **kw)
    p = float(ord)
    return reductions.sum(mag ** p, **kw) ** (1.0 / p)


__all__ = ["cumprod", "cumsum", "dot", "inner", "matmul", "norm", "outer", "vdot"]
