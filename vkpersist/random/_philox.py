"""vkp.random: counter-based random numbers (Philox4x32-10) on the device, as NumPy's
Generator API, and as device functions for kernels and program stages.

    rng = vkp.random.default_rng(42)                 # NumPy's spelling; ctx= picks a device
    u = rng.random(1_000_000, dtype=np.float32)      # uniform [0, 1), a device array
    z = rng.standard_normal((512, 512))              # float64 by default, as NumPy
    @vkp.kernel
    def walk(seed: vkp.u32, x: vkp.Array[vkp.f32]):
        i = vkp.global_id(0)
        x[i] += vkp.random.philox_normal(seed, i)    # = rng(seed).standard_normal(n, f32)[i]

The model (docs/reductions.md, "Random numbers"): Philox4x32-10 (Salmon et al., SC'11; the
generator of Random123, CuPy and JAX) is a pure function from a 128-bit counter and a 64-bit
key to four 32-bit words, so every element can be computed independently and in any
order. The seed is the key (its low and high 32 bits); the counter is the index of a
block of four words. A Generator hands out blocks in order: each call takes the next
ceil(n / per_block) blocks, so successive calls continue the stream. Element i of a call
uses block i // 4 (float32: one word per value) or i // 2 (float64: two words per value).

Everything up to the words is integer arithmetic (the 32x32->64-bit products are built from
16-bit halves, so no int64 is needed): the words, and hence the uniform floats (a word's
top 24 bits times 2**-24; for float64 53 bits of two words times 2**-53, both exact), are
bit-identical on every device. Normals use Box-Muller with vkpersist's own log/sin/cos
(lang/mathlib.py), the same code everywhere; a device's float32 sqrt and division may
differ by a few ulp (Vulkan allows it), so normals agree across devices to a few ulp.
"""
from __future__ import annotations

import operator

import numpy as np

from .._core.indexing import take_within
from .._kernel import func, kernel
from ..lang.builtins import cos, global_id, global_size, log, sin, sqrt
from ..lang.types import f32, f64, u32
from ..vk.array import Array, check_dtype
from ..vk.context import default_context

M0, M1 = 0xD2511F53, 0xCD9E8D57           # Philox4x32 multipliers
W0, W1 = 0x9E3779B9, 0xBB67AE85           # Weyl key increments (golden ratio, sqrt(3) - 1)
TWO_PI = 6.283185307179586


@func
def mulhilo(a, b):
    """(high, low) 32-bit halves of the 64-bit product of the u32s a and b, from 16-bit
    pieces (no int64 needed)."""
    a_lo = a & u32(0xFFFF)
    a_hi = a >> u32(16)
    b_lo = b & u32(0xFFFF)
    b_hi = b >> u32(16)
    t = a_hi * b_lo + ((a_lo * b_lo) >> u32(16))
    w = (t & u32(0xFFFF)) + a_lo * b_hi
    return a_hi * b_hi + (t >> u32(16)) + (w >> u32(16)), a * b


@func
def philox4x32(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10: the four 32-bit words for counter (c0..c3) and key (k0, k1), each
    converted to u32 (a non-negative int argument is taken as it is)."""
    x0, x1, x2, x3 = u32(c0), u32(c1), u32(c2), u32(c3)
    key0, key1 = u32(k0), u32(k1)
    for r in range(10):
        if r > 0:
            key0 += u32(W0)
            key1 += u32(W1)
        hi0, lo0 = mulhilo(u32(M0), x0)
        hi1, lo1 = mulhilo(u32(M1), x2)
        x0, x1, x2, x3 = hi1 ^ x1 ^ key0, lo1, hi0 ^ x3 ^ key1, lo0
    return x0, x1, x2, x3


@func
def _unit32(w):
    """A word as a float32 in [0, 1): its top 24 bits times 2**-24 (exact)."""
    return f32(w >> u32(8)) * f32(5.9604644775390625e-08)


@func
def _unit64(a, b):
    """Two words as a float64 in [0, 1): 53 bits times 2**-53 (exact), as NumPy's."""
    return (f64(a >> u32(5)) * f64(67108864.0) + f64(b >> u32(6))) * f64(1.1102230246251565e-16)


@func
def _box_muller32(a, b):
    u1 = (f32(a >> u32(8)) + f32(1.0)) * f32(5.9604644775390625e-08)   # (0, 1]: log is finite
    r = sqrt(f32(-2.0) * log(u1))
    t = f32(TWO_PI) * _unit32(b)
    return r * cos(t), r * sin(t)


@func
def _box_muller64(a, b, c, d):
    u1 = f64(1.0) - _unit64(a, b)                                      # (0, 1]
    r = sqrt(f64(-2.0) * log(u1))
    t = f64(TWO_PI) * _unit64(c, d)
    return r * cos(t), r * sin(t)


@func
def _word(seed, i):
    w0, w1, w2, w3 = philox4x32(u32(i) >> u32(2), 0, 0, 0, seed, 0)
    j = u32(i) & u32(3)
    w = w3
    if j == u32(0):
        w = w0
    elif j == u32(1):
        w = w1
    elif j == u32(2):
        w = w2
    return w


@func
def philox_uniform(seed, i):
    """Element i of `default_rng(seed).random(n, dtype=np.float32)` (a fresh generator),
    a float32 in [0, 1), computed where it is needed: in a kernel or a program stage."""
    return _unit32(_word(seed, i))


@func
def philox_normal(seed, i):
    """Element i of `default_rng(seed).standard_normal(n, dtype=np.float32)`."""
    j = u32(i)
    w0, w1, w2, w3 = philox4x32(j >> u32(2), 0, 0, 0, seed, 0)
    a = w0
    b = w1
    if (j & u32(2)) != u32(0):
        a = w2
        b = w3
    z0, z1 = _box_muller32(a, b)
    z = z0
    if (j & u32(1)) != u32(0):
        z = z1
    return z


def _make_fill(kind: str, dtype: np.dtype):
    """out[i] = a + b * x_i for the i-th value of `kind` (uniform or normal) of `dtype`,
    from the blocks (b0, b1) + 0, 1, ... under key (k0, k1): one invocation per block."""
    normal = int(kind == "normal")
    wide = int(dtype == np.float64)
    per_block = 2 if wide else 4

    @kernel
    def philox_fill(out, k0: u32, k1: u32, b0: u32, b1: u32, a, b):
        g = global_id(0)
        n = out.shape[0]
        while g * per_block < n:
            c0 = b0 + u32(g)
            c1 = b1
            if c0 < b0:
                c1 += u32(1)
            w0, w1, w2, w3 = philox4x32(c0, c1, u32(0), u32(0), k0, k1)
            base = g * per_block
            if wide:
                if normal:
                    x0, x1 = _box_muller64(w0, w1, w2, w3)
                else:
                    x0 = _unit64(w0, w1)
                    x1 = _unit64(w2, w3)
                out[base] = a + b * x0
                if base + 1 < n:
                    out[base + 1] = a + b * x1
            else:
                if normal:
                    x0, x1 = _box_muller32(w0, w1)
                    x2, x3 = _box_muller32(w2, w3)
                else:
                    x0 = _unit32(w0)
                    x1 = _unit32(w1)
                    x2 = _unit32(w2)
                    x3 = _unit32(w3)
                out[base] = a + b * x0
                if base + 1 < n:
                    out[base + 1] = a + b * x1
                if base + 2 < n:
                    out[base + 2] = a + b * x2
                if base + 3 < n:
                    out[base + 3] = a + b * x3
            g += global_size(0)

    philox_fill.__name__ = f"philox_{kind}_{dtype}"
    return philox_fill, per_block


_FILLS: dict = {}
LOCAL = 64
MAX_GROUPS = 65535


class Generator:
    """Random numbers on one device from a Philox4x32-10 stream (see the module docs).
    Make one with `vkp.random.default_rng(seed, ctx=None)`."""

    def __init__(self, seed=None, ctx=None):
        if seed is None:
            seed = int(np.random.SeedSequence().entropy) & (2**64 - 1)
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"vkpersist.random.default_rng(seed): seed is an int in "
                            f"0..2**64-1 or None, got {type(seed).__name__} {seed!r}")
        if not 0 <= seed < 2**64:
            raise ValueError(f"vkpersist.random.default_rng(seed): seed must be in 0..2**64-1 "
                             f"(it is Philox's 64-bit key), got {seed}")
        self.seed = int(seed)
        self.ctx = ctx if ctx is not None else default_context()
        self._block = 0                            # the next unused counter (64-bit)

    def __repr__(self) -> str:
        return (f"vkpersist.random.Generator(Philox4x32-10, seed={self.seed}, "
                f"blocks used={self._block}, device={self.ctx.info.name!r})")

    def _fill(self, kind, size, dtype, a, b) -> Array:
        dtype = check_dtype(dtype, self.ctx.info)
        if dtype not in (np.float32, np.float64):
            raise TypeError(f"vkpersist.random: dtype must be float32 or float64, got {dtype}")
        shape = () if size is None else (size,) if isinstance(size, (int, np.integer)) \
            else tuple(operator.index(n) for n in size)
        out = Array(self.ctx, shape, dtype)
        n = out.size
        key = (kind, dtype)
        if key not in _FILLS:
            _FILLS[key] = _make_fill(kind, dtype)
        fill, per_block = _FILLS[key]
        blocks = -(-n // per_block)
        if blocks:
            flat = out.reshape(-1)
            b0, b1 = self._block & 0xFFFFFFFF, (self._block >> 32) & 0xFFFFFFFF
            groups = min(MAX_GROUPS, -(-blocks // LOCAL))
            fill[groups, LOCAL](flat, self.seed & 0xFFFFFFFF, self.seed >> 32, b0, b1,
                                dtype.type(a), dtype.type(b))
        self._block = (self._block + blocks) % 2**64
        return out

    def random(self, size=None, dtype=np.float64) -> Array:
        """Uniform floats in [0, 1) (float64 by default, as NumPy's; float32 on request)."""
        return self._fill("uniform", size, dtype, 0.0, 1.0)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64) -> Array:
        """Uniform floats in [low, high): low + (high - low) * random(). As NumPy's, a
        range below zero is a ValueError and one that is not finite an OverflowError."""
        span = np.subtract(high, low, dtype=np.float64)
        if not np.all(np.isfinite(span)):
            raise OverflowError(f"uniform(low={low}, high={high}): high - low range exceeds "
                                "valid bounds (NumPy's rule: a finite range)")
        if np.any(span < 0):
            raise ValueError(f"uniform(low={low}, high={high}): high - low < 0 (NumPy's "
                             "rule: high >= low)")
        return self._fill("uniform", size, dtype, low, high - low)

    def standard_normal(self, size=None, dtype=np.float64) -> Array:
        """Standard normal floats (Box-Muller on pairs of uniforms)."""
        return self._fill("normal", size, dtype, 0.0, 1.0)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=np.float64) -> Array:
        """Normal floats with mean `loc` and standard deviation `scale`."""
        if scale < 0:
            raise ValueError(f"normal(scale={scale}): scale must be non-negative")
        return self._fill("normal", size, dtype, loc, scale)


    # ---- built on the uniform stream (one fill, then element-wise work on the device) ---
    def exponential(self, scale=1.0, size=None, dtype=np.float64) -> Array:
        """Exponential floats of mean `scale`: -scale * log1p(-u) of uniforms u (inversion,
        not NumPy's ziggurat: the same distribution, another sequence)."""
        if scale < 0:
            raise ValueError(f"exponential(scale={scale}): scale must be non-negative")
        u = self.random(size, dtype)
        return np.negative(np.log1p(np.negative(u))) * u.dtype.type(scale)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False) -> Array:
        """Integers in [low, high) ([low, high] with endpoint=True): floor(low + u * range)
        of float64 uniforms u, so a value's probability is off from 1/range by at most
        range * 2**-53 (NumPy's Lemire rejection is exact; this bias is below 1e-10 for
        ranges under a million). Ranges up to 2**32."""
        if high is None:
            low, high = 0, low
        span = int(high) - int(low) + (1 if endpoint else 0)
        if span <= 0:
            raise ValueError("high <= low" if not endpoint else "low > high")
        if span > 2**32:
            raise ValueError(f"vkpersist.random.integers: ranges up to 2**32 values, got "
                             f"{span}")
        dtype = np.dtype(dtype)
        if dtype.kind not in "iu":
            raise TypeError(f"integers(dtype={dtype}): an integer dtype")
        info = np.iinfo(dtype)
        if int(low) < info.min or int(low) + span - 1 > info.max:
            raise ValueError(f"integers: [{low}, {int(low) + span - 1}] is out of bounds for "
                             f"{dtype}")
        u = self.random(size, np.float64)
        return (np.floor(u * float(span)) + float(low)).astype(dtype)

    def permutation(self, x):
        """A random permutation of range(x) (an int) or of a device array's first axis (a
        copy): the argsort of float64 uniform keys, every ordering equally likely up to
        ties of 53-bit keys (probability about n**2 * 2**-54)."""
        if isinstance(x, (int, np.integer)):
            return np.argsort(self.random(int(x), np.float64))
        arr = x if isinstance(x, Array) else self.ctx.asarray(np.asarray(x))
        if arr.ndim == 0:
            raise ValueError("permutation: x must be an int or an array of at least one axis")
        return take_within(arr, np.argsort(self.random(arr.shape[0], np.float64)))

    def shuffle(self, x: Array, axis: int = 0) -> None:
        """Shuffle a device array in place along `axis`."""
        if not isinstance(x, Array):
            raise TypeError("vkpersist.random.Generator.shuffle takes a device array (NumPy "
                            "arrays: NumPy's own shuffle)")
        order = np.argsort(self.random(x.shape[axis], np.float64))
        x[...] = np.take(x, order, axis=axis)

    def choice(self, a, size=None, replace=True, p=None):
        """Samples of `a` (an int n: range(n); or a 1-d array): uniform with replacement,
        by inverse CDF with probabilities `p`, or without replacement (a random prefix of a
        permutation)."""
        pool = None if isinstance(a, (int, np.integer)) else \
            (a if isinstance(a, Array) else self.ctx.asarray(np.asarray(a)))
        n = int(a) if pool is None else pool.shape[0]
        if n <= 0:
            raise ValueError("a cannot be empty unless no samples are taken")
        count = 1 if size is None else int(np.prod(size))
        if not replace:
            if p is not None:
                raise ValueError("vkpersist.random.choice(replace=False, p=...) is not "
                                 "supported")
            if count > n:
                raise ValueError("Cannot take a larger sample than population when "
                                 "replace is False")
            picks = self.permutation(n)[:count]
        elif p is None:
            picks = self.integers(0, n, count)
        else:
            probs = np.asarray(p.numpy() if isinstance(p, Array) else p, dtype=np.float64)
            if probs.shape != (n,) or np.any(probs < 0) or not np.isclose(probs.sum(), 1.0):
                raise ValueError("probabilities must be non-negative, of a's length, and "
                                 "sum to 1")
            cdf = self.ctx.asarray(np.cumsum(probs))
            picks = np.searchsorted(cdf, self.random(count, np.float64) * float(cdf[-1]),
                                    side="right")
            picks = np.minimum(picks, n - 1)
        out = picks if pool is None else take_within(pool, picks)
        shape = () if size is None else ((size,) if isinstance(size, int) else tuple(size))
        return out.reshape(shape + (out.shape[1:] if pool is not None else ()))


def default_rng(seed=None, ctx=None) -> Generator:
    """A Generator seeded with `seed` (an int 0..2**64-1; None: fresh entropy), on `ctx`
    (default: the default context). The same seed gives the same numbers on every device."""
    return Generator(seed, ctx)


__all__ = ["Generator", "default_rng", "philox4x32", "philox_normal", "philox_uniform"]
