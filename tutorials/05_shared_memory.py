"""Lesson 5: shared memory, barriers and atomics.

Invocations of one workgroup share a small, fast memory (`vkp.shared.array`) and can wait
for each other (`vkp.barrier()`); invocations anywhere can update one value without losing
updates (`vkp.atomic.add`). Two classic kernels use them: a block reduction (the sum of an
array) and a histogram.

    python tutorials/05_shared_memory.py [--size N]
"""
import math

import numpy as np

import vkpersist as vkp
from _common import parse, pyplot, save

LOCAL = 256          # invocations per workgroup; the shared arrays are sized by it
BINS = 64


@vkp.kernel
def block_sum(x: vkp.Array[vkp.f32], partial: vkp.Array[vkp.f32]):
    s = vkp.shared.array(LOCAL, vkp.f32)   # one per workgroup
    t = vkp.local_id(0)
    acc = 0.0
    for i in range(vkp.global_id(0), x.shape[0], vkp.global_size(0)):
        acc += x[i]                          # grid-stride: each invocation sums its share
    s[t] = acc
    vkp.barrier()                            # every s[t] is written before anyone reads
    stride = LOCAL // 2
    while stride > 0:                        # tree: 256 -> 128 -> ... -> 1 partial sums
        if t < stride:
            s[t] += s[t + stride]
        vkp.barrier()
        stride //= 2
    if t == 0:
        partial[vkp.group_id(0)] = s[0]      # one number per workgroup


@vkp.kernel
def histogram(x: vkp.Array[vkp.f32], lo: vkp.f32, scale: vkp.f32, counts: vkp.Array[vkp.u32]):
    h = vkp.shared.array(BINS, vkp.u32)
    t = vkp.local_id(0)
    for b in range(t, BINS, LOCAL):
        h[b] = 0
    vkp.barrier()
    for i in range(vkp.global_id(0), x.shape[0], vkp.global_size(0)):
        b = math.floor((x[i] - lo) * scale)
        if 0 <= b < BINS:
            vkp.atomic.add(h, b, 1)          # fast: contention only within the workgroup
    vkp.barrier()
    for b in range(t, BINS, LOCAL):
        if h[b] > 0:
            vkp.atomic.add(counts, b, h[b])  # one global atomic per bin and workgroup


def main():
    args = parse(__doc__, size=2_000_000, size_help="samples")
    ctx = vkp.default_context()
    data = np.random.default_rng(1).standard_normal(args.size).astype(np.float32)
    x = ctx.asarray(data)
    groups = 64

    partial = ctx.zeros(groups)
    block_sum[groups, LOCAL](x, partial)
    total = float(partial.numpy().astype(np.float64).sum())
    exact = float(data.astype(np.float64).sum())
    print(f"sum of {args.size} samples: GPU {total:.4f}, NumPy (float64) {exact:.4f}, "
          f"difference {abs(total - exact):.2e}")
    assert abs(total - exact) <= 1e-6 * np.abs(data).astype(np.float64).sum()

    lo, hi = -4.0, 4.0
    scale = np.float32(BINS / (hi - lo))
    counts = ctx.zeros(BINS, np.uint32)
    histogram[groups, LOCAL](x, lo, scale, counts)
    got = counts.numpy()
    b = np.floor((data - np.float32(lo)) * scale)        # the kernel's float32 arithmetic
    expect = np.bincount(b[(b >= 0) & (b < BINS)].astype(np.int64), minlength=BINS)
    print(f"histogram: {got.sum()} samples in {BINS} bins, "
          f"equal to NumPy's bin for bin: {np.array_equal(got, expect)}")
    assert np.array_equal(got, expect), "histogram disagrees with NumPy"

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    edges = lo + np.arange(BINS + 1) / scale
    width = edges[1] - edges[0]
    ax.bar(edges[:-1], got, width=width, align="edge", label="GPU histogram")
    xs = np.linspace(lo, hi, 400)
    ax.plot(xs, args.size * width * np.exp(-xs ** 2 / 2) / np.sqrt(2 * np.pi), "k",
            label="normal density")
    ax.set_xlabel("x")
    ax.set_ylabel("samples per bin")
    ax.legend()
    save(fig, args.out, "05_histogram")
    print("lesson 5 OK")


if __name__ == "__main__":
    main()
