"""vkp.random: Philox4x32-10 against the published Random123 known answers and a NumPy
reference, bit-exact uniforms, the device-function form, reproducibility, and statistics
with stated bounds (5 sigma; KS at the 0.1% level)."""
import math

import numpy as np
import pytest

import vkpersist as vkp
from vkpersist import random as vr
from vkpersist.random import _philox   # the algorithm's constants

MASK = np.uint64(0xFFFFFFFF)

# Random123's kat_vectors (philox4x32 10): counter[4], key[2] -> output[4]
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


def philox_reference(ctr, key):
    """Philox4x32-10 in NumPy uint64 arithmetic, from the SC'11 paper's description."""
    c = [ctr[:, i].astype(np.uint64) for i in range(4)]
    k0, k1 = (key[:, i].astype(np.uint64) for i in range(2))
    for r in range(10):
        if r:
            k0, k1 = (k0 + np.uint64(_philox.W0)) & MASK, (k1 + np.uint64(_philox.W1)) & MASK
        p0, p1 = np.uint64(_philox.M0) * c[0], np.uint64(_philox.M1) * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & MASK, (p0 >> np.uint64(32)) ^ c[3] ^ k1,
             p0 & MASK]
    return np.stack(c, axis=1).astype(np.uint32)


@vkp.kernel
def philox_words(out: vkp.Array[vkp.u32, 2], ctr: vkp.Array[vkp.u32, 2],
                 key: vkp.Array[vkp.u32, 2]):
    i = vkp.global_id(0)
    if i < out.shape[0]:
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = vr.philox4x32(
            ctr[i, 0], ctr[i, 1], ctr[i, 2], ctr[i, 3], key[i, 0], key[i, 1])


@vkp.kernel
def draw(seed: vkp.u32, u: vkp.Array[vkp.f32], z: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < u.shape[0]:
        u[i] = vr.philox_uniform(seed, vkp.u32(i))
        z[i] = vr.philox_normal(seed, vkp.u32(i))


def _words(ctx, ctr, key):
    out = ctx.zeros((len(ctr), 4), np.uint32)
    philox_words.forall(len(ctr))(out, ctx.asarray(ctr), ctx.asarray(key))
    return out.numpy()


def test_known_answers_and_reference(ctx):
    ctr = np.array([c for c, _, _ in KAT], np.uint32)
    key = np.array([k for _, k, _ in KAT], np.uint32)
    np.testing.assert_array_equal(_words(ctx, ctr, key), np.array([o for _, _, o in KAT]))
    np.testing.assert_array_equal(philox_reference(ctr, key), np.array([o for _, _, o in KAT]))
    rng = np.random.default_rng(0)
    ctr = rng.integers(0, 2**32, (300, 4), dtype=np.uint32)
    key = rng.integers(0, 2**32, (300, 2), dtype=np.uint32)
    np.testing.assert_array_equal(_words(ctx, ctr, key), philox_reference(ctr, key))


def _stream(seed, first_block, blocks):
    ctr = np.zeros((blocks, 4), np.uint32)
    b = np.arange(first_block, first_block + blocks, dtype=np.uint64)
    ctr[:, 0], ctr[:, 1] = b & MASK, b >> np.uint64(32)
    key = np.tile(np.array([seed & 0xFFFFFFFF, seed >> 32], np.uint32), (blocks, 1))
    return philox_reference(ctr, key).reshape(-1)


def test_uniforms_are_bit_exact_and_calls_continue_the_stream(ctx):
    seed = 0x1234_5678_9ABC_DEF0
    g = vr.default_rng(seed, ctx=ctx)
    a = g.random(5, dtype=np.float32).numpy()          # blocks 0-1 (4 values a block)
    b = g.random((2, 3), dtype=np.float32).numpy()     # blocks 2-3
    w = _stream(seed, 0, 4)
    want = (w >> 8).astype(np.float32) * np.float32(2.0 ** -24)
    np.testing.assert_array_equal(a, want[:5])
    np.testing.assert_array_equal(b.reshape(-1), want[8:14])
    if ctx.info.float64:
        c = g.random(3).numpy()                        # blocks 4-5 (2 values a block)
        w = _stream(seed, 4, 2).astype(np.float64)
        want64 = (np.floor(w[0::2] / 32) * 67108864.0 + np.floor(w[1::2] / 64)) * 2.0 ** -53
        assert c.dtype == np.float64
        np.testing.assert_array_equal(c, want64[:3])
    assert 0.0 <= a.min() and a.max() < 1.0


def test_same_seed_same_numbers_and_the_device_function_agrees(ctx):
    x = vr.default_rng(7, ctx=ctx).standard_normal(1000, dtype=np.float32).numpy()
    y = vr.default_rng(7, ctx=ctx).standard_normal(1000, dtype=np.float32).numpy()
    np.testing.assert_array_equal(x, y)
    assert not np.array_equal(x, vr.default_rng(8, ctx=ctx).standard_normal(
        1000, dtype=np.float32).numpy())
    u, z = ctx.zeros(1000, np.float32), ctx.zeros(1000, np.float32)
    draw.forall(1000)(7, u, z)
    np.testing.assert_array_equal(z.numpy(), x)
    np.testing.assert_array_equal(u.numpy(), vr.default_rng(7, ctx=ctx).random(
        1000, dtype=np.float32).numpy())


def test_normals_are_box_muller_of_the_words(ctx):
    """float32 normals against Box-Muller in float64 from the same words: within
    2e-6 + 2e-6·|z| (vkpersist's log/sin/cos are within 2.5 ulp, and 2π·u is rounded to
    float32 first, as on the device)."""
    z = vr.default_rng(3, ctx=ctx).standard_normal(4000, dtype=np.float32).numpy()
    w = _stream(3, 0, 1000)
    u1 = ((w[0::2] >> 8).astype(np.float64) + 1) * 2.0 ** -24
    t = np.float32(_philox.TWO_PI) * ((w[1::2] >> 8).astype(np.float32)
                                      * np.float32(2.0 ** -24))
    r = np.sqrt(-2 * np.log(u1))
    want = np.stack([r * np.cos(t.astype(np.float64)), r * np.sin(t.astype(np.float64))],
                    axis=1).reshape(-1)
    np.testing.assert_allclose(z, want, rtol=2e-6, atol=2e-6)


def _ks(sample, cdf):
    """Kolmogorov-Smirnov distance of `sample` from `cdf`."""
    x = np.sort(sample.astype(np.float64))
    f = cdf(x)
    n = x.size
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


_erf = np.vectorize(math.erf)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_statistics(ctx, dtype):
    """n = 2**16: mean and variance within 5 standard errors, KS distance below the 0.1%
    critical value 1.95/sqrt(n), |correlation| below 5/sqrt(n) between seeds, successive
    calls and neighbours in one stream."""
    if dtype == "float64" and not ctx.info.float64:
        pytest.skip("no float64")
    n = 2**16
    g = vr.default_rng(2024, ctx=ctx)
    u = g.random(n, dtype=dtype).numpy().astype(np.float64)
    assert abs(u.mean() - 0.5) < 5 * math.sqrt(1 / 12 / n)
    assert abs(u.var() - 1 / 12) < 5 * math.sqrt(1 / 180 / n)     # Var of (u-1/2)^2 = 1/180
    assert _ks(u, lambda x: x) < 1.95 / math.sqrt(n)
    z = g.standard_normal(n, dtype=dtype).numpy().astype(np.float64)
    assert abs(z.mean()) < 5 / math.sqrt(n) and abs(z.var() - 1) < 5 * math.sqrt(2 / n)
    assert _ks(z, lambda x: 0.5 * (1 + _erf(x / math.sqrt(2)))) < 1.95 / math.sqrt(n)
    later = g.random(n, dtype=dtype).numpy()
    other = vr.default_rng(2025, ctx=ctx).random(n, dtype=dtype).numpy()
    for a, b in ((u, later), (u, other), (u[:-1], u[1:]), (z[0::2], z[1::2])):
        assert abs(np.corrcoef(a, b)[0, 1]) < 5 / math.sqrt(a.size)


def test_uniform_and_normal_parameters(ctx):
    g = vr.default_rng(5, ctx=ctx)
    x = g.uniform(-2.0, 3.0, (100, 10), dtype=np.float32).numpy()
    assert x.shape == (100, 10) and x.min() >= -2.0 and x.max() < 3.0
    assert abs(x.mean() - 0.5) < 5 * 5 / math.sqrt(12 * x.size)
    y = g.normal(10.0, 0.5, 10000, dtype=np.float32).numpy()
    assert abs(y.mean() - 10) < 5 * 0.5 / 100 and abs(y.std() - 0.5) < 0.02
    s = g.random(dtype=np.float32)
    assert s.shape == () and 0.0 <= float(s) < 1.0
    assert "Philox4x32-10, seed=5" in repr(g)


def test_errors(ctx):
    with pytest.raises(ValueError, match="seed must be in 0..2\\*\\*64-1"):
        vr.default_rng(-1)
    with pytest.raises(TypeError, match="seed is an int"):
        vr.default_rng(1.5)
    with pytest.raises(TypeError, match="dtype must be float32 or float64"):
        vr.default_rng(1, ctx=ctx).random(3, dtype=np.int32)
    with pytest.raises(ValueError, match="scale must be non-negative"):
        vr.default_rng(1, ctx=ctx).normal(0, -1, 3)


WALK_SEED = 99


def test_device_function_in_a_program_stage(ctx):
    """A random walk as a persistent program: each step adds philox_normal(seed,
    i + n·step), the same numbers a Generator gives (to float32 rounding of the sums)."""
    n, steps = 256, 3
    prog = vkp.Program(ctx, name="walk")
    x = prog.array("x", (n,), init=np.zeros(n, np.float32))

    @prog.stage(domain=(n,))
    def walk(i):
        x[i] += vr.philox_normal(WALK_SEED, vkp.u32(i) + vkp.u32(n) * prog.step)

    prog.loop(walk)
    prog.run(steps, mode="launch")
    got = np.asarray(x)
    prog.free()
    z = vr.default_rng(WALK_SEED, ctx=ctx).standard_normal((steps + 1) * n,
                                                           dtype=np.float32).numpy()
    z = z.reshape(steps + 1, n)
    candidates = [z[first:first + steps].sum(axis=0) for first in (0, 1)]  # steps count from 0 or 1
    assert any(np.allclose(got, c, rtol=1e-5, atol=1e-5) for c in candidates)


def test_exponential_integers_permutation_shuffle_choice(ctx):
    """Distributions within 5 standard errors (fixed seeds: deterministic), permutations
    that are permutations, reproducibility from the seed."""
    rng = vkp.random.default_rng(7, ctx=ctx)
    n = 100_000
    e = rng.exponential(2.0, n).numpy()
    assert e.min() >= 0 and abs(e.mean() - 2.0) < 5 * 2.0 / np.sqrt(n)
    i = rng.integers(3, 10, n).numpy()
    assert i.dtype == np.int64 and i.min() == 3 and i.max() == 9
    freq = np.bincount(i - 3) / n
    assert np.all(np.abs(freq - 1 / 7) < 5 * np.sqrt((1 / 7) * (6 / 7) / n))
    j = rng.integers(-2, 2, (4, 5), dtype=np.int32, endpoint=True).numpy()
    assert j.shape == (4, 5) and j.dtype == np.int32 and j.min() >= -2 and j.max() <= 2
    p = rng.permutation(1000).numpy()
    assert np.array_equal(np.sort(p), np.arange(1000)) and not np.array_equal(p, np.arange(1000))
    again = vkp.random.default_rng(7, ctx=ctx)
    again.exponential(2.0, n), again.integers(3, 10, n), again.integers(-2, 2, (4, 5),
                                                                          dtype=np.int32,
                                                                          endpoint=True)
    assert np.array_equal(again.permutation(1000).numpy(), p)          # same seed, same draws
    x = ctx.asarray(np.arange(12).reshape(6, 2))
    rng.shuffle(x)
    rows = x.numpy()
    assert np.array_equal(np.sort(rows[:, 0]), np.arange(0, 12, 2))
    assert np.array_equal(rows[:, 1], rows[:, 0] + 1)                   # rows move whole
    c = rng.choice(5, 20_000, p=[0.1, 0.2, 0.3, 0.4, 0.0]).numpy()
    freq = np.bincount(c, minlength=5) / 20_000
    expect = np.array([0.1, 0.2, 0.3, 0.4, 0.0])
    assert np.all(np.abs(freq - expect) <= 5 * np.sqrt(expect * (1 - expect) / 20_000) + 1e-12)
    picked = rng.choice(ctx.asarray(np.arange(10.0)), (2, 3), replace=False).numpy()
    assert picked.shape == (2, 3) and len(set(picked.ravel())) == 6
    with pytest.raises(ValueError, match="larger sample than population"):
        rng.choice(3, 4, replace=False)
    with pytest.raises(ValueError, match="high <= low"):
        rng.integers(5, 5)
    with pytest.raises(ValueError, match="out of bounds for uint8"):
        rng.integers(0, 300, dtype=np.uint8)


def test_uniform_refuses_the_ranges_numpy_refuses(ctx):
    g, ref = vr.default_rng(1, ctx=ctx), np.random.default_rng(1)
    for low, high, error in ((5, 1, ValueError), (0, np.inf, OverflowError),
                             (np.nan, 1, OverflowError)):
        with pytest.raises(error):
            ref.uniform(low, high, 3)                 # what NumPy does, checked here too
        with pytest.raises(error, match="high - low"):
            g.uniform(low, high, 3)
    np.testing.assert_array_equal(g.uniform(5, 5, 4).numpy(), np.full(4, 5.0))
