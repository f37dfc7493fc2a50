"""A corpus of small kernels, one language feature or classic pattern each, against NumPy."""
import math

import numpy as np
import pytest

import vkpersist as vkp

RNG = np.random.default_rng(11)


@vkp.kernel
def reverse(x, out):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        out[i] = x[x.shape[0] - 1 - i]


@vkp.kernel
def stencil_1d(x, out):
    i = vkp.global_id(0)
    n = x.shape[0]
    if 0 < i < n - 1:
        out[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1]
    elif i == 0 or i == n - 1:
        out[i] = x[i]


@vkp.kernel
def laplace_2d(u, out):
    i = vkp.global_id(0)
    j = vkp.global_id(1)
    if 0 < i < u.shape[0] - 1 and 0 < j < u.shape[1] - 1:
        out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@vkp.kernel
def heat_3d(u, out, alpha: vkp.f32):
    i = vkp.global_id(0)
    j = vkp.global_id(1)
    k = vkp.global_id(2)
    nx, ny, nz = u.shape
    if 0 < i < nx - 1 and 0 < j < ny - 1 and 0 < k < nz - 1:
        lap = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
               + u[i, j, k - 1] + u[i, j, k + 1] - 6.0 * u[i, j, k])
        out[i, j, k] = u[i, j, k] + alpha * lap


WG = 64


@vkp.kernel
def scan_block(x, out):
    buf = vkp.shared.array(WG, vkp.i32)
    t = vkp.local_id(0)
    i = vkp.global_id(0)
    buf[t] = x[i] if i < x.shape[0] else 0
    vkp.barrier()
    offset = 1
    while offset < WG:
        v = buf[t - offset] if t >= offset else 0
        vkp.barrier()
        buf[t] += v
        vkp.barrier()
        offset *= 2
    if i < out.shape[0]:
        out[i] = buf[t]


TS = 8


@vkp.kernel
def transpose(a, out):
    tile = vkp.shared.array((TS, TS + 1), vkp.f32)
    x = vkp.group_id(0) * TS + vkp.local_id(0)
    y = vkp.group_id(1) * TS + vkp.local_id(1)
    if y < a.shape[0] and x < a.shape[1]:
        tile[vkp.local_id(1), vkp.local_id(0)] = a[y, x]
    vkp.barrier()
    x2 = vkp.group_id(1) * TS + vkp.local_id(0)
    y2 = vkp.group_id(0) * TS + vkp.local_id(1)
    if y2 < out.shape[0] and x2 < out.shape[1]:
        out[y2, x2] = tile[vkp.local_id(0), vkp.local_id(1)]


@vkp.kernel
def atomic_dot(a, b, out):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        vkp.atomic.add(out, 0, a[i] * b[i])


@vkp.kernel
def atomic_argmax_value(x, out):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        vkp.atomic.max(out, 0, x[i])


@vkp.kernel
def popcount(x, out):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        v = x[i]
        c = 0
        while v != 0:
            c += v & 1
            v >>= 1
        out[i] = c


@vkp.func
def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


@vkp.kernel
def gcd_kernel(a, b, out):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        out[i] = gcd(a[i], b[i])


@vkp.kernel
def collatz(x, out):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        n = x[i]
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        out[i] = steps


@vkp.kernel
def fibonacci(n_arr, out):
    i = vkp.global_id(0)
    if i < n_arr.shape[0]:
        a, b = 0, 1
        for _ in range(n_arr[i]):
            a, b = b, a + b
        out[i] = a


@vkp.func
def is_prime(n):
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d += 1
    return True


@vkp.kernel
def primes(x, out):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        out[i] = is_prime(x[i])


@vkp.kernel
def gray(rgb: vkp.Array[vkp.vec3], out: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < rgb.shape[0]:
        out[i] = vkp.dot(rgb[i], vkp.vec3(0.299, 0.587, 0.114))


@vkp.kernel
def normalize_rows(v: vkp.Array[vkp.vec4], out: vkp.Array[vkp.vec4]):
    i = vkp.global_id(0)
    if i < v.shape[0]:
        out[i] = vkp.normalize(v[i])


@vkp.kernel
def int_vectors(a: vkp.Array[vkp.ivec4], b: vkp.Array[vkp.ivec3], out: vkp.Array[vkp.ivec3]):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        out[i] = a[i].wzy * 2 - b[i] + vkp.ivec3(a[i].x)


@vkp.kernel
def distances(p: vkp.Array[vkp.vec2], out: vkp.Array[vkp.f32, 2]):
    i = vkp.global_id(0)
    j = vkp.global_id(1)
    if i < p.shape[0] and j < p.shape[0]:
        out[i, j] = vkp.distance(p[i], p[j])


@vkp.kernel
def sigmoid(x, out):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        out[i] = 1.0 / (1.0 + math.exp(-x[i]))


@vkp.kernel
def masked_select(mask, a, b, out):
    i = vkp.global_id(0)
    if i < mask.shape[0]:
        out[i] = a[i] if mask[i] else b[i]


@vkp.kernel
def invert_u8(img):
    i = vkp.global_id(0)
    j = vkp.global_id(1)
    if i < img.shape[0] and j < img.shape[1]:
        img[i, j] = 255 - img[i, j]


@vkp.kernel
def kahan_rows(x, out):
    r = vkp.global_id(0)
    if r < x.shape[0]:
        s = 0.0
        c = 0.0
        for k in range(x.shape[1]):
            y = x[r, k] - c
            t = s + y
            c = (t - s) - y
            s = t
        out[r] = s


@vkp.kernel
def factorial64(n, out):
    i = vkp.global_id(0)
    if i < n.shape[0]:
        f = vkp.i64(1)
        for k in range(2, n[i] + 1):
            f *= k
        out[i] = f


@vkp.func
def first_above(row, r, threshold):
    for k in range(row.shape[1]):
        if row[r, k] > threshold:
            return k
    return -1


@vkp.kernel
def search(x, out, threshold: vkp.f32):
    r = vkp.global_id(0)
    if r < x.shape[0]:
        out[r] = first_above(x, r, threshold)


@vkp.func
def minmax(a, b, c):
    return min(a, b, c), max(a, b, c)


@vkp.kernel
def minmax_kernel(x, lo, hi):
    i = vkp.global_id(0)
    if i < lo.shape[0]:
        lo[i], hi[i] = minmax(x[i, 0], x[i, 1], x[i, 2])


@vkp.kernel
def grid_stride(x):
    i = vkp.global_id(0)
    while i < x.shape[0]:
        x[i] = x[i] * 2 + 1
        i += vkp.global_size(0)


@vkp.kernel
def nested_break(x, out):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        count = 0
        for a in range(10):
            for b in range(10):
                if a * b > x[i]:
                    break
                count += 1
        out[i] = count


@vkp.kernel
def argmax_rows(x, out):
    r = vkp.global_id(0)
    if r < x.shape[0]:
        best = 0
        for k in range(1, x.shape[1]):
            if x[r, k] > x[r, best]:
                best = k
        out[r] = best


@vkp.kernel
def matvec(m, v, out):
    r = vkp.global_id(0)
    if r < m.shape[0]:
        acc = 0.0
        for c in range(m.shape[1]):
            acc += m[r, c] * v[c]
        out[r] = acc


@vkp.kernel
def logic_mix(a, b, out):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        x = a[i]
        y = b[i]
        out[i] = (not x > 2 and y < 3) or (x == y and not y == 0)


@vkp.kernel
def size_ndim(x, out):
    i = vkp.global_id(0)
    if i == 0:
        out[0] = x.size
        out[1] = x.ndim
        out[2] = len(x)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _i32(lo, hi, *shape):
    return RNG.integers(lo, hi, shape).astype(np.int32)


def _scan(x):
    out = np.zeros_like(x)
    for s in range(0, len(x), WG):
        out[s:s + WG] = np.cumsum(x[s:s + WG])
    return out


def _collatz(n):
    s = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        s += 1
    return s


def _prime(n):
    return n >= 2 and all(n % d for d in range(2, int(n ** 0.5) + 1))


def _heat(u, alpha):
    out = np.zeros_like(u)
    c = u[1:-1, 1:-1, 1:-1]
    lap = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
           + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] - 6 * c)
    out[1:-1, 1:-1, 1:-1] = c + np.float32(alpha) * lap
    return out


def _nested(v):
    count = 0
    for a in range(10):
        for b in range(10):
            if a * b > v:
                break
            count += 1
    return count


def _first_above(x, t):
    hit = x > t
    return np.where(hit.any(1), hit.argmax(1), -1)


x1k = _f32(1000)
u2 = _f32(20, 30)
u3 = _f32(10, 12, 14)
i_small = _i32(1, 300, 200)
pts4 = _f32(50, 4)
a_iv4 = _i32(-9, 9, 40, 4)
b_iv3 = _i32(-9, 9, 40, 3)
pts2 = _f32(20, 2)
rows = _f32(30, 17)
img = RNG.integers(0, 256, (9, 13)).astype(np.uint8)
mask = RNG.random(100) > 0.5
lapl = np.zeros_like(u2)
lapl[1:-1, 1:-1] = u2[:-2, 1:-1] + u2[2:, 1:-1] + u2[1:-1, :-2] + u2[1:-1, 2:] - 4 * u2[1:-1, 1:-1]
st1 = x1k.copy()
st1[1:-1] = 0.25 * x1k[:-2] + 0.5 * x1k[1:-1] + 0.25 * x1k[2:]

# (name, kernel, launch config, inputs, index of the output argument, expected, rtol)
CASES = [
    ("reverse", reverse, (16, 64), [x1k, np.zeros(1000, np.float32)], 1, x1k[::-1], 0),
    ("stencil_1d", stencil_1d, (16, 64), [x1k, np.zeros(1000, np.float32)], 1, st1, 1e-6),
    ("laplace_2d", laplace_2d, ((3, 4), (8, 8)), [u2, np.zeros_like(u2)], 1, lapl, 1e-5),
    ("heat_3d", heat_3d, ((3, 3, 4), (4, 4, 4)), [u3, np.zeros_like(u3), 0.1], 1, _heat(u3, 0.1), 1e-5),
    ("scan_block", scan_block, (4, WG), [i_small, np.zeros_like(i_small)], 1, _scan(i_small), 0),
    ("transpose", transpose, ((4, 3), (TS, TS)), [u2, np.zeros((30, 20), np.float32)], 1, u2.T, 0),
    ("atomic_dot", atomic_dot, (4, 64), [i_small, i_small, np.zeros(1, np.int32)], 2,
     np.array([int((i_small.astype(np.int64) ** 2).sum())], np.int32), 0),
    ("atomic_max", atomic_argmax_value, (4, 64), [i_small, np.zeros(1, np.int32)], 1,
     np.array([i_small.max()], np.int32), 0),
    ("popcount", popcount, (4, 64), [i_small, np.zeros_like(i_small)], 1,
     np.array([bin(v).count("1") for v in i_small], np.int32), 0),
    ("gcd", gcd_kernel, (4, 64), [i_small, i_small[::-1].copy(), np.zeros_like(i_small)], 2,
     np.gcd(i_small, i_small[::-1]), 0),
    ("collatz", collatz, (4, 64), [i_small, np.zeros_like(i_small)], 1,
     np.array([_collatz(int(v)) for v in i_small], np.int32), 0),
    ("fibonacci", fibonacci, (1, 64), [np.arange(40, dtype=np.int32), np.zeros(40, np.int32)], 1,
     np.array([0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584,
               4181, 6765, 10946, 17711, 28657, 46368, 75025, 121393, 196418, 317811, 514229,
               832040, 1346269, 2178309, 3524578, 5702887, 9227465, 14930352, 24157817,
               39088169, 63245986], np.int32), 0),
    ("primes", primes, (4, 64), [i_small, np.zeros_like(i_small)], 1,
     np.array([_prime(int(v)) for v in i_small], np.int32), 0),
    ("gray", gray, (1, 64), [np.abs(pts4[:, :3]).copy(), np.zeros(50, np.float32)], 1,
     np.abs(pts4[:, :3]) @ np.float32([0.299, 0.587, 0.114]), 1e-5),
    ("normalize", normalize_rows, (1, 64), [pts4, np.zeros_like(pts4)], 1,
     pts4 / np.linalg.norm(pts4, axis=1, keepdims=True), 1e-5),
    ("int_vectors", int_vectors, (1, 64), [a_iv4, b_iv3, np.zeros_like(b_iv3)], 2,
     a_iv4[:, [3, 2, 1]] * 2 - b_iv3 + a_iv4[:, :1], 0),
    ("distances", distances, ((3, 3), (8, 8)), [pts2, np.zeros((20, 20), np.float32)], 1,
     np.linalg.norm(pts2[:, None] - pts2[None], axis=2), 1e-5),
    ("sigmoid", sigmoid, (16, 64), [x1k, np.zeros_like(x1k)], 1, 1 / (1 + np.exp(-x1k)), 1e-6),
    ("masked_select", masked_select, (2, 64), [mask, x1k[:100].copy(), -x1k[:100], np.zeros(100, np.float32)],
     3, np.where(mask, x1k[:100], -x1k[:100]), 0),
    ("invert_u8", invert_u8, ((2, 2), (8, 8)), [img.copy()], 0, 255 - img, 0),
    ("argmax_rows", argmax_rows, (1, 64), [rows, np.zeros(30, np.int32)], 1, rows.argmax(1), 0),
    ("matvec", matvec, (1, 64), [rows, rows[0].copy(), np.zeros(30, np.float32)], 2, rows @ rows[0], 1e-5),
    ("search", search, (1, 64), [rows, np.zeros(30, np.int32), 1.0], 1, _first_above(rows, 1.0), 0),
    ("grid_stride", grid_stride, (2, 64), [np.arange(1000, dtype=np.int32)], 0,
     np.arange(1000) * 2 + 1, 0),
    ("nested_break", nested_break, (4, 64), [i_small % 40, np.zeros_like(i_small)], 1,
     np.array([_nested(int(v)) for v in i_small % 40], np.int32), 0),
    ("logic_mix", logic_mix, (4, 64), [i_small % 5, i_small % 4, np.zeros_like(i_small)], 2,
     np.array([(not x > 2 and y < 3) or (x == y and not y == 0)
               for x, y in zip(i_small % 5, i_small % 4)], np.int32), 0),
    ("size_ndim", size_ndim, (1, 64), [u3, np.zeros(3, np.int32)], 1, np.array([u3.size, 3, 10]), 0),
]


@pytest.mark.parametrize("name, kern, config, inputs, out_index, expected, rtol", CASES,
                         ids=[c[0] for c in CASES])
def test_corpus(ctx, name, kern, config, inputs, out_index, expected, rtol):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in inputs]
    groups, local = config
    kern[groups, local](*args)
    got = args[out_index]
    if rtol:
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, expected)


def test_minmax_tuple_returns_into_two_arrays(ctx):
    x = _f32(40, 3)
    lo, hi = np.zeros(40, np.float32), np.zeros(40, np.float32)
    minmax_kernel[1, 64](x, lo, hi)
    np.testing.assert_array_equal(lo, x.min(1))
    np.testing.assert_array_equal(hi, x.max(1))


def test_kahan_summation_in_float64(ctx):
    if not ctx.info.float64:
        pytest.skip("no float64")
    x = RNG.standard_normal((8, 1000))
    out = np.zeros(8)
    kahan_rows[1, 64](x, out)
    np.testing.assert_allclose(out, x.sum(1), rtol=1e-13)


def test_int64_factorials(ctx):
    if not ctx.info.int64:
        pytest.skip("no int64")
    n = np.arange(21, dtype=np.int32)
    out = np.zeros(21, np.int64)
    factorial64[1, 64](n, out)
    np.testing.assert_array_equal(out, [math.factorial(int(k)) for k in n])


@vkp.kernel
def atomic64(x, total):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        vkp.atomic.add(total, 0, x[i])


def test_int64_atomics(ctx):
    if not ctx.info.atomic_int64:
        pytest.skip("no 64-bit atomics")
    x = np.full(1000, 2**40, np.int64)
    total = np.zeros(1, np.int64)
    atomic64[16, 64](x, total)
    assert total[0] == 1000 * 2**40


@vkp.kernel
def float_atomics(x, total, last):
    tile = vkp.shared.array(1, vkp.f32)
    i = vkp.global_id(0)
    if vkp.local_id(0) == 0:
        tile[0] = 0.0
    vkp.barrier()
    if i < x.shape[0]:
        vkp.atomic.add(tile, 0, x[i])
        vkp.atomic.exchange(last, 0, 7.5)
    vkp.barrier()
    if vkp.local_id(0) == 0:
        vkp.atomic.add(total, 0, tile[0])


def test_float_atomic_add(ctx):
    x = np.full(1000, 0.25, np.float32)         # sums of quarters are exact in float32
    total = np.zeros(1, np.float32)
    last = np.zeros(1, np.float32)
    if not ctx.info.atomic_float:
        with pytest.raises(vkp.CompileError, match="not available for float32 arrays"):
            float_atomics[16, 64](x, total, last)
        return
    float_atomics[16, 64](x, total, last)
    assert total[0] == 250.0 and last[0] == 7.5
