"""vkp.jit: a whole element-wise function as one kernel per signature, cached, with the
results of the same operations run one launch at a time (bit-identical here: the
expressions contain no a*b + c a driver could contract into an fma)."""
import numpy as np
import pytest

import vkpersist as vkp
from vkpersist._core import elementwise as _elementwise, recipe as _recipe


def _count_launches(monkeypatch):
    """How many element-wise kernels each call launches (every call runs a Recipe)."""
    launched = []
    real = _recipe.Recipe.run

    def counting(self, *args):
        launched.append(len(self.layouts))
        return real(self, *args)
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


def _same_rounding(ctx, fused, unfused, maxulp=2):
    """Bit for bit on lavapipe; a GPU driver may contract `a * b + c`, or turn a division by
    a constant into a multiply, inside the fused kernel (docs/arrays.md): within 2 ulp."""
    if ctx.info.is_lavapipe:
        np.testing.assert_array_equal(fused, unfused)
    else:
        np.testing.assert_array_max_ulp(fused, unfused, maxulp=maxulp)


def _three_ways(ctx, f, *args):
    """f(*args) through vkp.jit, op by op on device arrays, and in NumPy."""
    dev = [ctx.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    return vkp.jit(f)(*dev).numpy(), f(*dev).numpy(), np.asarray(f(*args))


@pytest.mark.parametrize("s", [1.5, 2, True, np.float32(1.5), np.float64(1.5), np.int32(2)])
def test_number_arguments_combine_as_python_does(ctx, s):
    """Operators on Python numbers stay weak Python numbers (NEP 50): `x / (s * 2.0)` keeps
    a float32 x's dtype, as op by op; NumPy's scalars are typed and promote."""
    x = np.linspace(1, 2, 5, dtype=np.float32)
    f = lambda x, s: x / (s * 2.0) + (s + s) - abs(-s)  # noqa: E731
    fused, unfused, host = _three_ways(ctx, f, x, s)
    assert fused.dtype == unfused.dtype == host.dtype
    _same_rounding(ctx, fused, unfused)
    np.testing.assert_allclose(fused, host, rtol=1e-15 if host.dtype == np.float64 else 1e-6)


def test_gaussian_of_number_arguments_stays_float32(ctx):
    import math
    x = np.linspace(-3, 3, 61, dtype=np.float32)
    gauss = lambda x, m, s: vkp.exp(-(x - m) ** 2 / (2 * s * s)) / (s * math.sqrt(2 * math.pi))  # noqa: E731,E501
    fused, unfused, _ = _three_ways(ctx, gauss, x, 0.5, 1.25)
    want = np.exp(-(x.astype(np.float64) - 0.5) ** 2 / 3.125) / (1.25 * math.sqrt(2 * math.pi))
    assert fused.dtype == unfused.dtype == np.float32
    _same_rounding(ctx, fused, unfused)
    np.testing.assert_allclose(fused, want, rtol=2e-6)


def test_python_int_results_keep_their_python_type(ctx):
    """int op int is an int and int / int a float (int32 + 4 stays int32, + 0.5 is
    float64); `n ** m` is an int or a float by the sign of m, so each gets its kernel."""
    x = np.arange(-3, 4, dtype=np.int32)
    f = vkp.jit(lambda x, n, m: x + n ** m + n // 2 * (n % 3))
    for n, m in ((2, 2), (2, -1), (3, 3), (5, -2)):
        want = x + n ** m + n // 2 * (n % 3)
        got = f(ctx.asarray(x), n, m).numpy()
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    assert len(f.sources) == 2
    g = lambda x, n: (x * (n / n)) + (n << 2)  # noqa: E731
    fused, unfused, host = _three_ways(ctx, g, x, 3)
    assert fused.dtype == unfused.dtype == host.dtype == np.float64
    np.testing.assert_array_equal(fused, host)
    with pytest.raises(OverflowError, match="out of bounds for int32"):
        vkp.jit(lambda x, n: x + n * n)(x, 2 ** 40)


def test_tracing_refuses_python_decisions_on_numbers(ctx):
    import math
    with pytest.raises(TypeError, match="number argument has no truth value"):
        vkp.jit(lambda a, s: a if s > 0 else -a)(np.ones(3, np.float32), 1.0)
    with pytest.raises(TypeError, match="math module cannot take"):
        vkp.jit(lambda a, s: a * math.sqrt(s))(np.ones(3, np.float32), 2.0)


def test_more_strided_operands_than_push_constants_hold(ctx):
    """Each strided operand costs the kernel its offset, shape and strides in push
    constants (a 3-axis view: 28 bytes; devices guarantee 128, NVIDIA has 256): a tree with
    more than fit runs a node at a time instead of failing, with the same results."""
    rng = np.random.default_rng(3)
    shapes = [(2, 1, 3), (1, 4, 1), (2, 4, 1), (1, 1, 3), (2, 1, 1)] * 2
    hs = [rng.uniform(1, 2, s).astype(np.float32) for s in shapes]
    fn = lambda *a: (a[0] * a[1] + a[2] - a[3] / a[4] + vkp.sin(a[5]) * a[6] * 1.5  # noqa: E731
                     - a[7] * a[8] + a[9])
    dev = [ctx.asarray(h) for h in hs]
    fused, unfused = vkp.jit(fn)(*dev), fn(*dev)
    assert fused.shape == (2, 4, 3) and fused.dtype == np.float32
    np.testing.assert_array_equal(fused.numpy(), unfused.numpy())
    np.testing.assert_allclose(fused.numpy(), fn(*hs), rtol=1e-6)
    out = np.zeros((2, 4, 3))
    assert vkp.jit(fn)(*hs, out=out) is out
    np.testing.assert_array_equal(out, unfused.numpy())


def test_functions_of_python_numbers_only_use_numpys_default_loops(ctx):
    """np.greater(-2, 1) converts both to int64 arrays; two weak ints resolve to NumPy's
    object loop, which crashed the kernel's typing (KeyError: dtype('O'))."""
    for fn in (vkp.greater, vkp.less_equal, vkp.equal, vkp.maximum, vkp.add):
        got, want = fn(-2, 1), getattr(np, fn.__name__)(-2, 1)
        assert got == want and got.dtype == want.dtype
    x = np.float32([1, 2])
    f = lambda x, n, m: vkp.where(vkp.greater(n, m), x, -x) * vkp.maximum(n, m)  # noqa: E731
    fused, unfused, host = _three_ways(ctx, f, x, -2, 1)
    assert fused.dtype == unfused.dtype == host.dtype == np.float64
    np.testing.assert_array_equal(fused, host)


def test_in_place_operators_while_tracing(ctx):
    """`s *= 2.0` on a number is `s = s * 2.0` (numbers are immutable); `y += s` on an
    expression keeps y's dtype, as op by op writes into the array y; an argument cannot
    be written, and NumPy's same_kind rule holds."""
    def f(x, s):
        s *= 2.0
        y = x / s
        y += s
        y **= 2
        return y
    x = np.linspace(1, 2, 5, dtype=np.float32)
    fused, unfused, host = _three_ways(ctx, f, x, 1.5)
    assert fused.dtype == unfused.dtype == host.dtype == np.float32
    _same_rounding(ctx, fused, unfused, maxulp=4)   # y **= 2 doubles a 2-ulp difference
    np.testing.assert_allclose(fused, host, rtol=1e-6)

    def g(x, s):
        x += s
        return x
    with pytest.raises(TypeError, match="write into an array argument"):
        vkp.jit(g)(x, 1.5)

    def h(x, s):
        y = x * 1
        y += s
        return y
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output from dtype"):
        vkp.jit(h)(np.arange(3, dtype=np.int32), 1.5)
