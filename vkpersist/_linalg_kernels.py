"""The device side of matmul and cumsum.

matmul: C = A @ B in 16x16 tiles (a stack of them: workgroup z picks the matrix). A workgroup of 16x16 invocations owns one tile of C; it
walks K in steps of 16, each invocation loading one element of A's and one of B's tile into
shared memory (zeros past the edges), and after a barrier adds the 16 products of its row
and column in order. Each C element is thus a sum in K order, as a naive loop's.

cumsum: an inclusive scan of the rows of an (M, K) view, in three steps. Each workgroup
scans a block of L = 256 elements in shared memory (Hillis-Steele: log2(L) rounds, each
adding the value `offset` places back) and writes the block's total; the totals (M, blocks)
are scanned the same way (recursively, when there are more than L); a last kernel adds to
every block the scanned total of the blocks before it.
"""
from __future__ import annotations

import numpy as np

from ._kernel import kernel
from .lang.builtins import barrier, group_id, local_id, num_groups, shared

TILE = 16
SCAN = 256


def make_matmul(acc: np.dtype):
    """The tiled product of every matrix of a stack at once: (B, M, K) @ (B, K, N) into
    (B, M, N), workgroup z the matrix (operands are views: a broadcast matrix has batch
    stride 0; a 2-d product is a stack of one)."""
    acc = np.dtype(acc)

    @kernel
    def matmul_tiled(a, b, c):
        ta = shared.array(256, acc)
        tb = shared.array(256, acc)
        tx = local_id(0)
        ty = local_id(1)
        z = group_id(2)
        col = group_id(0) * 16 + tx
        row = group_id(1) * 16 + ty
        n_k = a.shape[2]
        s: acc = 0
        t = 0
        while t < n_k:
            va: acc = 0
            vb: acc = 0
            if row < a.shape[1] and t + tx < n_k:
                va = a[z, row, t + tx]
            if col < b.shape[2] and t + ty < n_k:
                vb = b[z, t + ty, col]
            ta[ty * 16 + tx] = va
            tb[ty * 16 + tx] = vb
            barrier()
            for i in range(16):
                s += ta[ty * 16 + i] * tb[i * 16 + tx]
            barrier()
            t += 16
        if row < c.shape[1] and col < c.shape[2]:
            c[z, row, col] = s

    matmul_tiled.__name__ = f"matmul_{acc}"
    return matmul_tiled


def make_scan(acc: np.dtype, op: str = "sum"):
    """The scan kernels of `op` ("sum" or "prod": cumsum, cumprod) in `acc`."""
    acc = np.dtype(acc)
    product = op == "prod"
    ident = 1 if product else 0

    @kernel
    def scan_blocks(src, dst, totals):
        # dst[r, :]: the inclusive scan of each 256-block of src[r, :]; totals[r, b]: its sum
        buf = shared.array(256, acc)
        lid = local_id(0)
        n = src.shape[1]
        row = group_id(1)
        while row < src.shape[0]:
            blk = group_id(0)
            while blk * 256 < n:
                k = blk * 256 + lid
                v: acc = ident
                if k < n:
                    v = src[row, k]
                buf[lid] = v
                barrier()
                offset = 1
                while offset < 256:
                    before: acc = ident
                    if lid >= offset:
                        before = buf[lid - offset]
                    barrier()
                    if product:
                        buf[lid] *= before
                    else:
                        buf[lid] += before
                    barrier()
                    offset *= 2
                if k < n:
                    dst[row, k] = buf[lid]
                if lid == 255:
                    totals[row, blk] = buf[255]
                barrier()
                blk += num_groups(0)
            row += num_groups(1)

    @kernel
    def add_block_offsets(dst, scanned):
        # dst[r, k] += the scanned total of the blocks before k's block
        lid = local_id(0)
        n = dst.shape[1]
        row = group_id(1)
        while row < dst.shape[0]:
            blk = group_id(0) + 1
            while blk * 256 < n:
                k = blk * 256 + lid
                if k < n:
                    if product:
                        dst[row, k] *= scanned[row, blk - 1]
                    else:
                        dst[row, k] += scanned[row, blk - 1]
                blk += num_groups(0)
            row += num_groups(1)

    scan_blocks.__name__ = f"scan_blocks_{acc}" if not product else f"scan_blocks_prod_{acc}"
    add_block_offsets.__name__ = f"add_block_offsets_{acc}" if not product else \
        f"mul_block_offsets_{acc}"
    return scan_blocks, add_block_offsets
