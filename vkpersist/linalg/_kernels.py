"""The device side of matmul and cumsum.

matmul: C = A @ B in tiles (a stack of them: workgroup z picks the matrix), two kernels of
one arithmetic. In both a workgroup of 16x16 invocations walks K a tile at a time (16
along K, 8 for the 8x8 blocked kernel), loading a tile of A and one of B into shared
memory (zeros past the edges), and after a barrier each invocation adds that tile's
products for each of its C elements in order. Each C element is thus a sum in K order, as
a naive loop's, the same in both kernels (the same bits: the padding adds +0 products to
sums that start at +0).
- `make_matmul`: a 16x16 tile of C, one element an invocation: two shared-memory loads a
  multiply-add. For products with a side under BLOCKED_FROM.
- `make_matmul_blocked`: a 64x64 (128x128) tile of C, 4x4 (8x8) elements an invocation
  (rows ty + 16 i, columns tx + 16 j: the reads of B's tile are consecutive, A's a
  broadcast), kept in registers: 2 micro shared loads per micro^2 multiply-adds, a quarter
  (an eighth) of the loads. Real types, where the tiles fit the device's shared memory.

cumsum: an inclusive scan of the rows of an (M, K) view, in three steps. Each workgroup
scans a block of L = 256 elements in shared memory (Hillis-Steele: log2(L) rounds, each
adding the value `offset` places back) and writes the block's total; the totals (M, blocks)
are scanned the same way (recursively, when there are more than L); a last kernel adds to
every block the scanned total of the blocks before it.
"""
from __future__ import annotations

import numpy as np

from .._kernel import kernel
from ..lang.builtins import barrier, group_id, local, local_id, num_groups, shared

TILE = 16
BLOCKED_FROM = 32       # both sides of C at least this: a blocked kernel, 4 x 4 an invocation
# and C of at least this many elements (128 tiles of 128 x 128): 8 x 8 an invocation, where
# shared memory allows. H100, float32 n x n: 8 x 8 made 25.3 / 30.0 TFLOP/s at n = 2048 /
# 4096 against 18.6 / 23.3 for 4 x 4, but 8.9 against 11.5 at 1024 (64 tiles: SMs idle);
# 16 x 16 tiles, one element an invocation: 5.4 / 6.7 / 7.2; CuPy 28.0 / 48.0 / 51.2
BLOCKED8_CELLS = 1 << 21
SCAN = 256
_FOUR = (0, 1, 2, 3)


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


def blocked_shared_bytes(acc: np.dtype, micro: int) -> int:
    """The shared memory `make_matmul_blocked(acc, micro)` declares."""
    side, kstep = 16 * micro, 64 // micro
    return kstep * (2 * side + 1) * np.dtype(acc).itemsize


def make_matmul_blocked(acc: np.dtype, micro: int):
    """`make_matmul`'s product with (16 micro)^2 tiles of C, micro x micro elements an
    invocation (module docs), walking K 64 / micro at a time: four elements of A and four
    of B an invocation per step. The loops over constants are unrolled at compile time:
    the accumulators stay in registers, and lavapipe's loop counter sees only the walk
    along K."""
    acc = np.dtype(acc)
    side, kstep = 16 * micro, 64 // micro
    k_bits, side_bits = kstep.bit_length() - 1, side.bit_length() - 1
    pad = side + 1                      # A's tile, k-major, rows padded: no bank conflicts
    items = tuple(range(micro))
    cells = tuple(range(micro * micro))
    ksteps = tuple(range(kstep))

    @kernel
    def matmul_blocked(a, b, c):
        ta = shared.array(kstep * pad, acc)      # ta[k * pad + r]: A[row0 + r, t + k]
        tb = shared.array(kstep * side, acc)     # tb[k * side + j]: B[t + k, col0 + j]
        s = local.array(micro * micro, acc)      # C[row0 + ty + 16 i, col0 + tx + 16 j]
        ra = local.array(micro, acc)
        rb = local.array(micro, acc)
        tx = local_id(0)
        ty = local_id(1)
        lid = ty * 16 + tx
        z = group_id(2)
        row0 = group_id(1) * side
        col0 = group_id(0) * side
        m = a.shape[1]
        n_k = a.shape[2]
        n = b.shape[2]
        for q in cells:
            s[q] = 0
        t = 0
        while t < n_k:
            for q in _FOUR:
                e = lid + 256 * q
                r = e >> k_bits                 # A: rows of kstep, consecutive along K
                kk = e & (kstep - 1)
                va: acc = 0
                if row0 + r < m and t + kk < n_k:
                    va = a[z, row0 + r, t + kk]
                ta[kk * pad + r] = va
                kb = e >> side_bits             # B: kstep rows, consecutive along N
                cb = e & (side - 1)
                vb: acc = 0
                if t + kb < n_k and col0 + cb < n:
                    vb = b[z, t + kb, col0 + cb]
                tb[kb * side + cb] = vb
            barrier()
            for k in ksteps:
                for i in items:
                    ra[i] = ta[k * pad + ty + 16 * i]
                for j in items:
                    rb[j] = tb[k * side + tx + 16 * j]
                for i in items:
                    for j in items:
                        s[micro * i + j] += ra[i] * rb[j]
            barrier()
            t += kstep
        for i in items:
            for j in items:
                row = row0 + ty + 16 * i
                col = col0 + tx + 16 * j
                if row < m and col < n:
                    c[z, row, col] = s[micro * i + j]

    matmul_blocked.__name__ = f"matmul_blocked{micro}_{acc}"
    return matmul_blocked


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
