"""The FFT's shared-memory kernels (vkpersist/fft/_fft.py plans which run): a whole row per
workgroup, one large-radix Stockham pass over rows too long for shared memory, and a
whole Bluestein transform per row.

Each takes the twiddle table of its power-of-two length N, tw[m] = exp(-2 pi i m / N) for
m < N / 2 (float64 on the host, rounded once): the factor exp(-2 pi i t / N) of any t < N
is tw[t], or -tw[t - N / 2] in the table's upper half. In shared memory a transform of
length R runs as log2(R) radix-2 stages between barriers, with twiddles
tw[pos * N / (2 half)].

Why these shapes: the radix-2 passes read and write the whole array once per factor of
two (24 times at 2**24: 6 GB moved for 128 MB of data). A pass of radix R = 256 does
eight of those factors while the data sits in shared memory, so 2**24 takes three passes.
Each workgroup of a pass takes B consecutive sub-transforms, B elements being at least 64
bytes, so that every global read and write covers whole 32-byte sectors; shared memory is
laid out r-major (element r of sub-transform b at r * B + b) so that consecutive
invocations touch consecutive words.
"""
from __future__ import annotations

import numpy as np

from .._kernel import func, kernel
from ..lang.builtins import barrier, group_id, local_id, num_groups, shared

LOCAL = 256                 # invocations of every kernel here
ROW_BYTES = 16384           # the shared memory each uses: 2048 complex64 or 1024 complex128
MIN_RUN_BYTES = 64          # a pass's workgroup reads runs of at least this many bytes
_KERNELS: dict = {}


def room(ctype) -> int:
    """Elements of `ctype` the kernels keep in shared memory."""
    return ROW_BYTES // np.dtype(ctype).itemsize


def _cached(make):
    def get(ctype):
        ctype = np.dtype(ctype)
        key = (make, ctype, ROW_BYTES)
        k = _KERNELS.get(key)
        if k is None:
            k = _KERNELS[key] = make(ctype)
            k.__name__ = f"{make.__name__.lstrip('_')}_{ctype}"
        return k
    get.__doc__ = make.__doc__
    return get


@func
def _reversed(i, bits):
    """The low `bits` bits of i in reverse order."""
    r = 0
    for _ in range(bits):
        r = (r << 1) | (i & 1)
        i = i >> 1
    return r


@func
def _dit_stages(buf, tw, n, inverse):
    """The radix-2 stages of a transform of n = 2**k held in shared memory in bit-reversed
    order (decimation in time: natural order out), between barriers."""
    lid = local_id(0)
    hn = n >> 1
    half = 1
    step = hn                               # n / (2 half), the twiddles' stride
    while half < n:
        j = lid
        while j < hn:
            pos = j & (half - 1)
            a = j + (j - pos)
            w = tw[pos * step]
            if inverse != 0:
                w = w.conjugate()
            u = buf[a]
            t = buf[a + half] * w
            buf[a] = u + t
            buf[a + half] = u - t
            j += LOCAL
        barrier()
        half <<= 1
        step >>= 1


@_cached
def row_kernel(ctype):
    """The whole transform of one row per workgroup: the row is loaded in bit-reversed
    order, log2(n) radix-2 stages run between barriers, the row is written once. The same
    butterflies and twiddles as the Stockham radix-2 passes in another order."""
    size = room(ctype)

    @kernel
    def fft_rows(x, y, tw, bits, inverse):
        buf = shared.array(size, ctype)
        lid = local_id(0)
        n = x.shape[1]
        row = group_id(0)
        while row < x.shape[0]:
            i = lid
            while i < n:
                buf[_reversed(i, bits)] = x[row, i]
                i += LOCAL
            barrier()
            _dit_stages(buf, tw, n, inverse)
            i = lid
            while i < n:
                y[row, i] = buf[i]
                i += LOCAL
            barrier()                  # the next row overwrites buf
            row += num_groups(0)
    return fft_rows


@_cached
def pass_kernel(ctype):
    """One Stockham pass of radix R = 2**rbits over rows of n: the sub-transforms of
    length p (p * R <= n) become sub-transforms of length p * R. Sub-transform i < n / R
    takes x[i + r n / R] for r < R, times exp(-2 pi i r k / (p R)) with k = i mod p; their
    R-point transform's term q goes to y[(i - k) R + k + q p]. A workgroup takes
    B = 2**bbits consecutive i at once."""
    size = room(ctype)

    @kernel
    def fft_pass(x, y, tw, nbits, pbits, rbits, bbits, inverse):
        # shifts and masks throughout: n, p, R and B are powers of two, and a division
        # (Python's floor of signed ints) costs a dozen instructions more
        buf = shared.array(size, ctype)
        lid = local_id(0)
        n = 1 << nbits
        hn = n >> 1
        p = 1 << pbits
        big = 1 << rbits
        bsize = 1 << bbits
        cells = big << bbits
        m = n >> rbits                  # sub-transforms per row
        rowbits = nbits - rbits - bbits     # log2 of the workgroup blocks per row
        span = n >> (pbits + rbits)     # tw[r k span] = exp(-2 pi i r k / (p R))
        blk = group_id(0)
        while blk < x.shape[0] << rowbits:
            row = blk >> rowbits
            i0 = (blk - (row << rowbits)) << bbits
            e = lid
            while e < cells:            # r-major, so a run of B reads is contiguous
                r = e >> bbits
                b = e & (bsize - 1)
                ti = r * ((i0 + b) & (p - 1)) * span
                w = tw[ti & (hn - 1)]
                if ti >= hn:
                    w = -w
                if inverse != 0:
                    w = w.conjugate()
                buf[(_reversed(r, rbits) << bbits) + b] = x[row, i0 + b + r * m] * w
                e += LOCAL
            barrier()
            half = 1
            step = hn                   # n / (2 half)
            while half < big:
                j = lid
                while j < cells >> 1:
                    jj = j >> bbits
                    pos = jj & (half - 1)
                    lo = ((jj + (jj - pos)) << bbits) | (j & (bsize - 1))
                    hi = lo + (half << bbits)
                    w = tw[pos * step]
                    if inverse != 0:
                        w = w.conjugate()
                    u = buf[lo]
                    t = buf[hi] * w
                    buf[lo] = u + t
                    buf[hi] = u - t
                    j += LOCAL
                barrier()
                half <<= 1
                step >>= 1
            e = lid
            if p >= bsize:              # the block's k run on: runs of B per q
                k0 = i0 & (p - 1)
                base = (i0 - k0) * big + k0
                while e < cells:
                    y[row, base + (e >> bbits) * p + (e & (bsize - 1))] = buf[e]
                    e += LOCAL
            else:                       # e = c R p + q p + k is the address past i0 R
                while e < cells:
                    c = e >> (rbits + pbits)
                    q = (e >> pbits) & (big - 1)
                    y[row, (i0 << rbits) + e] = buf[(q << bbits) + (c << pbits) + (e & (p - 1))]
                    e += LOCAL
            barrier()                   # the next block overwrites buf
            blk += num_groups(0)
    return fft_pass


@_cached
def bluestein_kernel(ctype):
    """The whole Bluestein transform of one row of n per workgroup, for m = 2**bits >=
    2n - 1 elements in shared memory: the row times the chirp, zero-padded to m, loaded in
    bit-reversed order; a forward transform (decimation in time, natural order out); the
    product with the spectrum of the chirp's kernel; an inverse transform by decimation
    in frequency (natural order in, bit-reversed out); the first n terms times the chirp
    over m. One read and one write of the row, where the unfused path makes ten passes
    over rows padded to m."""
    size = room(ctype)

    @kernel
    def bluestein_rows(x, y, chirp, spectrum, post, tw, bits):
        buf = shared.array(size, ctype)
        lid = local_id(0)
        n = x.shape[1]
        mm = 1 << bits
        row = group_id(0)
        while row < x.shape[0]:
            i = lid
            while i < mm:
                r = _reversed(i, bits)
                if i < n:
                    buf[r] = x[row, i] * chirp[i]
                else:
                    buf[r] = complex(0.0, 0.0)
                i += LOCAL
            barrier()
            _dit_stages(buf, tw, mm, 0)      # forward
            i = lid
            while i < mm:
                buf[i] = buf[i] * spectrum[i]
                i += LOCAL
            barrier()
            half = mm >> 1
            step = 1                    # mm / (2 half)
            while half >= 1:            # inverse, decimation in frequency
                j = lid
                while j < mm >> 1:
                    pos = j & (half - 1)
                    a = j + (j - pos)
                    u = buf[a]
                    t = buf[a + half]
                    buf[a] = u + t
                    buf[a + half] = (u - t) * tw[pos * step].conjugate()
                    j += LOCAL
                barrier()
                half >>= 1
                step <<= 1
            i = lid
            while i < n:
                y[row, i] = buf[_reversed(i, bits)] * post[i]
                i += LOCAL
            barrier()                  # the next row overwrites buf
            row += num_groups(0)
    return bluestein_rows
