"""vkp.jit: a whole element-wise function as one kernel per signature, cached, with the
results of the same operations run one launch at a time (bit-identical here: the
expressions contain no a*b + c a driver could contract into an fma)."""
import numpy as np
import pytest

import vkpersist as vkp
from vkpersist import _elementwise, _recipe


def _count_launches(monkeypatch):
    """How many element-wise kernels each call launches (every call runs a Recipe)."""
    launched = []
    real = _recipe.Recipe.run

    def counting(self, args, out):
        launched.append(len(self.layouts))
        return real(self, args, out)
    monkeypatch.setattr(_recipe.Recipe, "run", counting)
    return launched


def test_where_sin_cos_is_one_kernel_and_bit_identical(ctx, monkeypatch):
    a = np.linspace(-4, 4, 300, dtype=np.float32)
    b = np.cos(np.linspace(0, 9, 300)).astype(np.float32) * 3
    da, db = ctx.asarray(a), ctx.asarray(b)
    f = vkp.jit(lambda x, y: vkp.where(x > y, vkp.sin(x), vkp.cos(y)))
    launched = _count_launches(monkeypatch)
    fused = f(da, db)
    assert launched == [1] and len(f.sources) == 1
    unfused = vkp.where(da > db, vkp.sin(da), vkp.cos(db))
    assert launched == [1, 1, 1, 1, 1]
    np.testing.assert_array_equal(fused.numpy(), unfused.numpy())
    assert np.abs(fused.numpy() - np.where(a > b, np.sin(a), np.cos(b))).max() < 1e-6
    glsl = f.glsl(da, db)
    assert glsl.count("void main()") == 1 and "_vkp_sin(" in glsl and "_vkp_cos(" in glsl
    assert "vkp.where" not in f.source(da, db) and "vkp.sin(t0)" in f.source(da, db)


def test_cached_per_signature_and_scalars_do_not_recompile(ctx):
    f = vkp.jit(lambda x, s: vkp.exp(-x * s) + 1.0)
    x = ctx.asarray(np.linspace(0, 2, 50, dtype=np.float32))
    f(x, 0.5)
    kernels = len(_elementwise._KERNELS)
    for s in (1.0, 2.0, 3):
        np.testing.assert_allclose(f(x, s).numpy(), np.exp(-np.linspace(0, 2, 50) * s) + 1,
                                   rtol=3e-7)
    assert len(_elementwise._KERNELS) == kernels and len(f.sources) == 1
    # float64: the same source, specialised by the kernel language on the argument types
    y = f(ctx.asarray(np.linspace(0, 2, 50)), 0.5)
    assert y.dtype == np.float64 and len(f.sources) == 1
    np.testing.assert_allclose(y.numpy(), np.exp(-np.linspace(0, 2, 50) * 0.5) + 1, rtol=1e-15)


def test_types_broadcasting_and_numpy_in_numpy_out(ctx):
    f = vkp.jit(lambda x, y, z: (x * 2 + y) / z - np.sqrt(abs(x)))
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    y = np.float32(0.5)
    z = np.linspace(1, 2, 4, dtype=np.float32)
    got = f(x, y, z)
    want = (x * 2 + y) / z - np.sqrt(abs(x))
    assert type(got) is np.ndarray and got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-15)
    out = ctx.empty((2, 3, 4), np.float32)              # out= broadcasts the result
    assert f(ctx.asarray(x), y, ctx.asarray(z), out=out) is out
    np.testing.assert_allclose(out.numpy(), np.broadcast_to(want, (2, 3, 4)), rtol=1e-6)


def test_fuses_vectorized_functions_and_captured_arrays(ctx):
    @vkp.vectorize(["float32(float32, float32)"])
    def rel(p, q):
        return 2 * (p - q) / (p + q)
    c = ctx.asarray(np.float32([1, 2, 3]))
    f = vkp.jit(lambda a: rel(a, c) * c)
    a = np.float32([2, 2, 2])
    np.testing.assert_allclose(f(ctx.asarray(a)).numpy(), 2 * (a - [1, 2, 3]) / (a + [1, 2, 3])
                               * [1, 2, 3], rtol=1e-6)
    assert len(f.sources) == 1 and "vf" in next(iter(f.sources))


def test_tracing_refuses_python_decisions_on_values(ctx):
    def branchy(a):
        if a > 0:
            return a
        return -a
    with pytest.raises(TypeError, match=r"use vkp.where\(cond, a, b\)"):
        vkp.jit(branchy)(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="must return an element-wise expression"):
        vkp.jit(lambda a: 1.0)(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="out= is not available inside vkp.jit"):
        vkp.jit(lambda a: vkp.sin(a, out=a))(np.ones(3, np.float32))
