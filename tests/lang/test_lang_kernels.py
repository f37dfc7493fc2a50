"""The classic kernels (saxpy, hypot, block sums, Mandelbrot, tiled matmul, particle push)
and the vector, shared-memory, atomic and local-array features they use."""
import math

import numpy as np
import pytest

import vkpersist as vkp


@vkp.kernel
def saxpy(a: vkp.f32, x: vkp.Array[vkp.f32], y: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]


def test_saxpy_on_device_arrays(ctx):
    n = 10_001
    x = ctx.asarray(np.arange(n, dtype=np.float32))
    y = ctx.zeros(n)
    for _ in range(3):
        saxpy.forall(n)(2.0, x, y)
    np.testing.assert_allclose(y.numpy(), 6.0 * np.arange(n))


@vkp.func
def hypot_(a, b):
    return math.sqrt(a * a + b * b)


@vkp.kernel
def hypot_kernel(a, b, out):
    i = vkp.global_id(0)
    if i < out.shape[0]:
        out[i] = hypot_(a[i], b[i])


def test_hypot_via_device_function(ctx):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 1000)).astype(np.float32)
    out = np.zeros(1000, np.float32)
    hypot_kernel.forall(1000)(a, b, out)
    np.testing.assert_allclose(out, np.hypot(a, b), rtol=1e-6)


BLOCK = 64


@vkp.kernel
def block_sum(x, total, partial):
    tile = vkp.shared.array(BLOCK, vkp.f32)
    i = vkp.global_id(0)
    t = vkp.local_id(0)
    tile[t] = x[i] if i < x.shape[0] else 0.0
    vkp.barrier()
    stride = BLOCK // 2
    while stride > 0:
        if t < stride:
            tile[t] += tile[t + stride]
        vkp.barrier()
        stride //= 2
    if t == 0:
        partial[vkp.group_id(0)] = tile[0]
        vkp.atomic.add(total, 0, int(tile[0]))


def test_block_sums_with_shared_memory_barriers_and_atomics(ctx):
    n = 5000
    x = np.random.default_rng(1).integers(0, 100, n).astype(np.float32)
    groups = (n + BLOCK - 1) // BLOCK
    total = np.zeros(1, np.int32)
    partial = np.zeros(groups, np.float32)
    block_sum[groups, BLOCK](x, total, partial)
    np.testing.assert_array_equal(partial, np.add.reduceat(x, np.arange(0, n, BLOCK)))
    assert total[0] == int(x.sum())


@vkp.kernel
def mandelbrot(out, max_iter: vkp.i32):
    px = vkp.global_id(0)
    py = vkp.global_id(1)
    h = out.shape[0]
    w = out.shape[1]
    if px < w and py < h:
        cx = -2.0 + 3.0 * px / w
        cy = -1.25 + 2.5 * py / h
        x = 0.0
        y = 0.0
        n = 0
        while n < max_iter and x * x + y * y <= 4.0:
            x, y = x * x - y * y + cx, 2.0 * x * y + cy
            n += 1
        out[py, px] = n


def _mandelbrot_np(h, w, max_iter):
    cx = (-2.0 + 3.0 * np.arange(w, dtype=np.float32) / np.float32(w)).astype(np.float32)
    cy = (-1.25 + 2.5 * np.arange(h, dtype=np.float32) / np.float32(h)).astype(np.float32)
    c = cx[None, :] + 1j * cy[:, None]
    z = np.zeros_like(c)
    n = np.zeros(c.shape, np.int32)
    for _ in range(max_iter):
        alive = np.abs(z) <= 2
        z[alive] = z[alive] ** 2 + c[alive]
        n[alive] += 1
    return n


def test_mandelbrot(ctx):
    h, w, it = 48, 64, 50
    out = np.zeros((h, w), np.int32)
    mandelbrot[((w + 7) // 8, (h + 7) // 8), (8, 8)](out, it)
    want = _mandelbrot_np(h, w, it)
    # float32 orbits diverge near the boundary: nearly all pixels agree exactly
    assert (out == want).mean() > 0.97
    assert out.max() == it and out.min() >= 1


TILE = 8


@vkp.kernel
def matmul(a, b, c):
    sa = vkp.shared.array((TILE, TILE), vkp.f32)
    sb = vkp.shared.array((TILE, TILE), vkp.f32)
    tx = vkp.local_id(0)
    ty = vkp.local_id(1)
    col = vkp.global_id(0)
    row = vkp.global_id(1)
    n = a.shape[1]
    acc = 0.0
    for t in range((n + TILE - 1) // TILE):
        k = t * TILE + tx
        sa[ty, tx] = a[row, k] if row < a.shape[0] and k < n else 0.0
        k = t * TILE + ty
        sb[ty, tx] = b[k, col] if k < n and col < b.shape[1] else 0.0
        vkp.barrier()
        for kk in range(TILE):
            acc += sa[ty, kk] * sb[kk, tx]
        vkp.barrier()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


def test_tiled_matrix_multiply(ctx):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((37, 29)).astype(np.float32)
    b = rng.standard_normal((29, 45)).astype(np.float32)
    c = np.zeros((37, 45), np.float32)
    matmul[((45 + TILE - 1) // TILE, (37 + TILE - 1) // TILE), (TILE, TILE)](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


@vkp.kernel
def reverse_through_array(a: vkp.Array[vkp.f32], scratch: vkp.Array[vkp.f32],
                          out: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    scratch[i] = a[i] * 2.0
    vkp.barrier()              # orders the array writes too, not only shared memory
    base = vkp.group_id(0) * vkp.local_size(0)
    out[i] = scratch[base + vkp.local_size(0) - 1 - vkp.local_id(0)]


def test_barrier_orders_array_writes_within_a_workgroup(ctx):
    """Each invocation reads what the mirror invocation of its workgroup wrote to a
    global array before the barrier (CUDA's __syncthreads guarantees this)."""
    a = np.arange(1024, dtype=np.float32)
    scratch, out = np.zeros_like(a), np.zeros_like(a)
    reverse_through_array[4, 256](a, scratch, out)
    expected = (2 * a).reshape(4, 256)[:, ::-1].ravel()
    np.testing.assert_array_equal(out, expected)
    src = reverse_through_array.glsl(vkp.Array[vkp.f32], vkp.Array[vkp.f32], vkp.Array[vkp.f32])
    assert "gl_StorageSemanticsShared | gl_StorageSemanticsBuffer" in src


@vkp.kernel
def push_particles(pos: vkp.Array[vkp.vec4], vel: vkp.Array[vkp.vec4], dt: vkp.f32,
                   g: vkp.vec3):
    i = vkp.global_id(0)
    if i < pos.shape[0]:
        p = pos[i]
        v = vel[i]
        v.xyz = v.xyz + g * dt
        p.xyz += v.xyz * dt
        if p.y < 0.0:
            p.y = -p.y
            v.y = -v.y * p.w             # w: restitution
        pos[i] = p
        vel[i] = vkp.vec4(v.xyz, vkp.length(v.xyz))


def test_particle_push_with_vec4_swizzles(ctx):
    rng = np.random.default_rng(3)
    n = 257
    pos = np.concatenate([rng.random((n, 3)), np.full((n, 1), 0.5)], 1).astype(np.float32)
    vel = (rng.standard_normal((n, 4))).astype(np.float32)
    p0, v0 = pos.copy(), vel.copy()
    dt, g = 0.1, (0.0, -9.81, 0.0)
    push_particles.forall(n)(pos, vel, dt, g)
    v = v0[:, :3] + np.float32(dt) * np.array(g, np.float32)
    p = p0[:, :3] + v * np.float32(dt)
    bounce = p[:, 1] < 0
    p[bounce, 1] *= -1
    v[bounce, 1] *= -0.5
    np.testing.assert_allclose(pos[:, :3], p, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(vel[:, :3], v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(vel[:, 3], np.linalg.norm(v, axis=1), rtol=1e-5)


@vkp.kernel
def vec3_arrays(pts: vkp.Array[vkp.vec3], out: vkp.Array[vkp.vec3], norms):
    i = vkp.global_id(0)
    if i < pts.shape[0]:
        p = pts[i]
        out[i] = vkp.cross(p, vkp.vec3(0.0, 0.0, 1.0)) + p.zyx * 0.5
        norms[i] = vkp.dot(p, p) + p[0] - p[-1]


def test_vec3_arrays_are_packed(ctx):
    rng = np.random.default_rng(4)
    pts = rng.standard_normal((10, 3)).astype(np.float32)
    out = np.zeros_like(pts)
    norms = np.zeros(10, np.float32)
    vec3_arrays.forall(10)(pts, out, norms)
    np.testing.assert_allclose(out, np.cross(pts, [0, 0, 1]) + pts[:, ::-1] * 0.5, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(norms, (pts * pts).sum(1) + pts[:, 0] - pts[:, 2], rtol=1e-5)


@vkp.kernel
def histogram(values, bins):
    i = vkp.global_id(0)
    if i < values.shape[0]:
        vkp.atomic.add(bins, values[i] % bins.shape[0], 1)


@vkp.kernel
def atomics_all(vals, out):
    i = vkp.global_id(0)
    if i < vals.shape[0]:
        v = vals[i]
        vkp.atomic.min(out, 0, v)
        vkp.atomic.max(out, 1, v)
        vkp.atomic.or_(out, 2, 1 << (v % 31))
        vkp.atomic.and_(out, 3, ~(1 << (v % 31)))
        vkp.atomic.xor(out, 4, v)
        vkp.atomic.sub(out, 5, v)
        vkp.atomic.exchange(out, 6, 5)


@vkp.kernel
def cas_chain(out, old):
    i = vkp.global_id(0)
    if i < old.shape[0]:
        seen = vkp.atomic.compare_exchange(out, 0, i, i + 1)
        if seen == i:
            old[i] = 1


def test_atomics(ctx):
    vals = np.random.default_rng(5).integers(0, 1000, 777).astype(np.int32)
    bins = np.zeros(10, np.int32)
    histogram.forall(777)(vals, bins)
    np.testing.assert_array_equal(bins, np.bincount(vals % 10, minlength=10))
    out = np.array([2**31 - 1, -2**31, 0, -1, 0, 0, 0], np.int32)
    atomics_all.forall(777)(vals, out)
    bits = np.bitwise_or.reduce(np.left_shift(1, vals % 31))
    assert out.tolist() == [vals.min(), vals.max(), bits, ~bits, np.bitwise_xor.reduce(vals),
                            -vals.sum(), 5]


def test_compare_exchange_returns_the_old_value(ctx):
    n = 100
    out = ctx.zeros(1, np.int32)
    won = ctx.zeros(n, np.int32)
    for _ in range(n):          # each launch advances the chain 0 -> 1 -> ... by >= 1 step
        cas_chain.forall(n)(out, won)
        if out.numpy()[0] == n:
            break
    assert out.numpy()[0] == n and won.numpy().sum() == n


@vkp.kernel
def local_scratch(x, out):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        acc = vkp.local.array(8, vkp.f32)
        for k in range(8):
            acc[k] = x[i] * k
        s = 0.0
        for k in range(8):
            s += acc[7 - k] * (k + 1)
        out[i] = s


def test_local_arrays(ctx):
    x = np.arange(5, dtype=np.float32)
    out = np.zeros(5, np.float32)
    local_scratch.forall(5)(x, out)
    k = np.arange(8)
    np.testing.assert_allclose(out, x * ((7 - k) * (k + 1)).sum())


@vkp.kernel
def casts(f, out):
    i = vkp.global_id(0)
    if i < f.shape[0]:
        out[i, 0] = vkp.i32(f[i])
        out[i, 1] = int(f[i] * 2)
        out[i, 2] = vkp.u32(vkp.f32(3.9))
        out[i, 3] = bool(f[i])
        out[i, 4] = np.int32(f[i] - 0.5)


def test_casts(ctx):
    f = np.array([1.7, -1.7, 0.0, 2.5], np.float32)
    out = np.zeros((4, 5), np.int32)
    casts.forall(4)(f, out)
    for k, v in enumerate(f.tolist()):
        assert out[k].tolist() == [int(v), int(v * 2), 3, int(bool(v)), int(np.float32(v) - np.float32(0.5))]


@vkp.kernel
def storage_types(a8, a16, h, b, out):
    i = vkp.global_id(0)
    if i < a8.shape[0]:
        out[i] = a8[i] + a16[i] + h[i] + b[i]
        a8[i] = a8[i] + 1
        h[i] = h[i] * 2.0
        b[i] = not b[i]


def test_small_storage_types(ctx):
    if not (ctx.info.storage8 and ctx.info.storage16):
        pytest.skip("needs 8- and 16-bit storage")
    a8 = np.array([1, -2, 127], np.int8)
    a16 = np.array([1000, -1000, 7], np.int16)
    h = np.array([0.5, 1.5, -2.0], np.float16)
    b = np.array([True, False, True])
    out = np.zeros(3, np.float32)
    expect = a8.astype(np.float32) + a16 + h + b
    storage_types.forall(3)(a8, a16, h, b, out)
    np.testing.assert_allclose(out, expect)
    np.testing.assert_array_equal(a8, [2, -1, -128])
    np.testing.assert_array_equal(h, [1.0, 3.0, -4.0])
    np.testing.assert_array_equal(b, [False, True, False])


@vkp.kernel
def shared_reduction(x, out):
    # the classic reduction: a shared array, and a local that starts as an int and widens
    # to float (compiling it walks the body again, which must not declare `part` twice)
    part = vkp.shared.array(64, vkp.f32)
    t = vkp.local_id(0)
    acc = 0
    i = vkp.global_id(0)
    while i < x.shape[0]:
        acc += x[i]
        i += vkp.global_size(0)
    part[t] = acc
    vkp.barrier()
    if t == 0:
        s = 0.0
        for k in range(64):
            s += part[k]
        vkp.atomic.add(out, 0, s)


def test_shared_array_with_a_widening_local(ctx):
    x = np.arange(1000, dtype=np.float32) % 7
    out = np.zeros(1, np.float32)
    if not ctx.info.atomic_float:
        pytest.skip("no float atomics")
    shared_reduction[4, 64](x, out)
    assert out[0] == x.sum()
    src = shared_reduction.glsl(vkp.Array[vkp.f32], vkp.Array[vkp.f32])
    assert src.count("shared float part[64];") == 1


def _shared_float_atomics(dtype):
    @vkp.kernel
    def bins(values, idx, sums, highs, lows):
        t = vkp.local_id(0)
        s = vkp.shared.array(8, dtype)
        hi = vkp.shared.array(8, dtype)
        lo = vkp.shared.array(8, dtype)
        if t < 8:
            s[t] = 0.0
            hi[t] = -1e30
            lo[t] = 1e30
        vkp.barrier()
        b = idx[t]
        vkp.atomic.add(s, b, values[t])
        vkp.atomic.max(hi, b, values[t])
        vkp.atomic.min(lo, b, values[t])
        vkp.barrier()
        if t < 8:
            sums[t] = s[t]
            highs[t] = hi[t]
            lows[t] = lo[t]
    return bins


@pytest.mark.parametrize("dtype", [vkp.f32, vkp.f64])
def test_float_atomics_on_shared_arrays(ctx, device_info, dtype):
    """add/max/min on float32 and float64 shared arrays from 256 invocations (a
    compare-and-swap loop where the device has no native one: the array is then held as
    words), against NumPy; the adds are of integers, so any order gives the same sum."""
    np_dtype = np.float32 if dtype == vkp.f32 else np.float64
    if dtype == vkp.f64 and not (device_info.float64 and device_info.atomic_int64_shared):
        with pytest.raises(vkp.CompileError, match="shaderSharedInt64Atomics|float64"):
            _shared_float_atomics(dtype)[1, 256](*(np.zeros(256, np_dtype),) * 5)
        return
    rng = np.random.default_rng(4)
    values = rng.integers(-1000, 1000, 256).astype(np_dtype)
    idx = rng.integers(0, 8, 256).astype(np.int32)
    sums, highs, lows = (np.zeros(8, np_dtype) for _ in range(3))
    _shared_float_atomics(dtype)[1, 256](values, idx, sums, highs, lows)
    for b in range(8):
        sel = values[idx == b]
        assert sums[b] == sel.sum() and highs[b] == sel.max() and lows[b] == sel.min()
