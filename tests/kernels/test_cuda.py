"""vkpersist.cuda, numba.cuda's API: its host side (cuda.jit, launch configurations, device
arrays, devices) and the compiler features it relies on (tuple locals, compile-time
arguments of device functions, shared arrays in device functions). The ports of numba's
own examples and tests are in numba/, one file per numba-cuda test file."""
import numpy as np
import pytest

import vkpersist as vkp
from vkpersist import cuda
from vkpersist.cuda import float32, float64, int32, void
from vkpersist.lang import types as T
from vkpersist.vk import context as _context


@pytest.fixture(autouse=True)
def on_device(ctx, monkeypatch):
    monkeypatch.setattr(_context, "_default", ctx)
    return ctx


def test_signatures():
    assert cuda.parse_signature("void(float32[:], int32, float64[:, ::1])") == [
        T.ArrayType(T.f32, 1), T.i32, T.ArrayType(T.f64, 2)]
    assert cuda.parse_signature("(u4[:,:,:], b1)") == [T.ArrayType(T.u32, 3), T.bool_]
    with pytest.raises(ValueError, match="unicode_type"):
        cuda.parse_signature("void(unicode_type)")
    assert cuda.parse_signature("void(complex64[:], complex128)") == [
        T.ArrayType(T.c64, 1), T.c128]
    sig = void(float32[:, ::1], int32)
    assert sig.args == [T.ArrayType(T.f32, 2), T.i32] and sig.ret is None
    assert float32(float32, float32).ret == T.f32
    assert float32(1.5) == np.float32(1.5)          # on the host, a NumPy scalar
    assert np.dtype(float32) == np.float32


def test_jit_forms():
    def body(x):
        x[cuda.grid(1)] += 1

    for k in (cuda.jit(body), cuda.jit()(body), cuda.jit("void(int32[:])")(body),
              cuda.jit(void(int32[:]))(body), cuda.jit((int32[:],))(body),
              cuda.jit(["void(int32[:])"], debug=True, fastmath=True)(body)):
        x = np.zeros(4, np.int32)
        k[1, 4](x)
        assert list(x) == [1, 1, 1, 1], k
    assert isinstance(cuda.jit(device=True)(body), type(vkp.func(body)))
    with pytest.raises(vkp.UnsupportedError, match="link"):
        cuda.jit(link=["f.cu"])
    with pytest.raises(TypeError, match="2 parameters"):
        cuda.jit("void(int32[:], int32)")(body)
    with pytest.raises(TypeError, match="expects int32 elements"):
        cuda.jit("void(int32[:])")(body)[1, 4](np.zeros(4, np.float32))


def test_launch_configurations():
    @cuda.jit
    def k(x):
        i = cuda.grid(1)
        if i < x.size:               # numba's forall launches whole blocks: guard, as there
            x[i] = cuda.blockDim.x * 100 + cuda.gridDim.x

    x = np.zeros(8, np.int32)
    k[2, 4, 0](x)
    assert set(x) == {402}
    k[2, 4, cuda.stream(), 0](x)
    k[(2,), (4,), None](x)
    with pytest.raises(TypeError, match="stream"):
        k[2, 4, "s"]
    with pytest.raises(ValueError, match="negative"):
        k[2, 4, 0, -1]
    with pytest.raises(TypeError, match=r"\[blocks, threads\]"):
        k[2]
    k.forall(8)(x)
    k.forall(8, tpb=8)(x)
    assert set(x) == {801}


def test_dynamic_shared_memory():
    @cuda.jit
    def reverse(x):
        s = cuda.shared.array(0, dtype=np.float32)
        t = cuda.threadIdx.x
        s[t] = x[t]
        cuda.syncthreads()
        x[t] = s[cuda.blockDim.x - 1 - t]

    x = np.arange(16, dtype=np.float32)
    reverse[1, 16, 0, 64](x)
    np.testing.assert_array_equal(x, np.arange(16)[::-1])
    with pytest.raises(vkp.CompileError, match=r"k\[blocks, threads, 0, nbytes\]"):
        reverse[1, 16](x)
    with pytest.raises(vkp.CompileError, match="whole number"):
        reverse[1, 16, 0, 6](x)


def test_device_arrays(ctx):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    d = cuda.to_device(a)
    assert isinstance(d, vkp.Array) and d.ctx is ctx and cuda.is_cuda_array(d)
    out = np.zeros_like(a)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, a)
    d.copy_to_device(a + 1)
    np.testing.assert_array_equal(d.copy_to_host(), a + 1)
    assert cuda.to_device(a * 2, to=d) is d
    np.testing.assert_array_equal(d.copy_to_host(), a * 2)
    e = cuda.device_array((3, 4))
    assert e.dtype == np.float64 and e.shape == (3, 4)
    assert cuda.device_array_like(a).dtype == np.float32
    with pytest.raises(vkp.UnsupportedError, match="C-contiguous"):
        cuda.device_array(4, order="F")
    assert cuda.pinned_array(3, np.int32).dtype == np.int32


def test_devices(capsys, ctx):
    assert cuda.is_available()
    assert cuda.detect()
    assert "Vulkan device" in capsys.readouterr().out
    assert cuda.get_current_device() is ctx.info
    assert cuda.select_device(ctx.info.index) is ctx


def test_kernel_names_outside_kernels():
    assert "kernel code" in repr(cuda.threadIdx.x)
    with pytest.raises(RuntimeError, match="inside a @vkp.kernel"):
        cuda.grid(1)
    with pytest.raises(vkp.CompileError, match="constant 1, 2 or 3"):
        @cuda.jit
        def k(x):
            x[0] = cuda.grid(4)
        k[1, 1](np.zeros(1, np.int32))
    with pytest.raises(vkp.CompileError, match="'cuda.atomic' has no attribute 'nanmax'"):
        @cuda.jit
        def k2(x):
            cuda.atomic.nanmax(x, 0, 1.0)
        k2[1, 1](np.zeros(1, np.float32))


def test_atomic_compare_and_swap_first_element():
    @cuda.jit
    def k(x, old):
        old[0] = cuda.atomic.compare_and_swap(x, 5, 7)

    x, old = np.array([5, 1], np.int32), np.zeros(1, np.int32)
    k[1, 1](x, old)
    assert list(x) == [7, 1] and old[0] == 5


# ---- the compiler features numba code leans on ---------------------------------------------------
def test_tuple_locals():
    @vkp.kernel
    def k(out: vkp.Array[vkp.i32, 2], flat: vkp.Array[vkp.f32]):
        idx = (vkp.local_id(0), vkp.local_id(1))
        if idx[0] == 1:
            idx = (idx[1], idx[0])               # rebinding: the items swap
        out[idx] = idx[0] * 10 + idx[1]
        pair = (1, 2.5)
        a, b = pair
        flat[vkp.local_id(0) * 4 + vkp.local_id(1)] = a + b
        vkp.atomic.add(out, (0, 0), 0)

    out = np.zeros((4, 4), np.int32)
    flat = np.zeros(16, np.float32)
    k[1, (4, 4)](out, flat)
    want = np.zeros((4, 4), np.int32)
    for i in range(4):
        for j in range(4):
            r, c = (j, i) if i == 1 else (i, j)
            want[r, c] = r * 10 + c
    np.testing.assert_array_equal(out, want)
    assert np.all(flat == 3.5)


def test_tuple_locals_refused_mixtures():
    def scalar_then_tuple(x: vkp.Array[vkp.i32]):
        t = 1
        t = (1, 2)
        x[0] = t[0]

    def tuple_lengths(x: vkp.Array[vkp.i32]):
        t = (1, 2)
        t = (1, 2, 3)
        x[0] = t[0]

    for fn, msg in ((scalar_then_tuple, "holds a single value"),
                    (tuple_lengths, "tuple of 2 items")):
        with pytest.raises(vkp.CompileError, match=msg):
            vkp.kernel(fn).glsl()


@vkp.func
def _apply(op, arr, i, v, cast, shape):
    s = vkp.shared.array(shape, vkp.i32)       # a shared array in a device function
    s[0] = 0
    vkp.barrier()
    op(s, 0, cast(v))
    vkp.barrier()
    arr[i] = s[0] + shape[0] * 0


@vkp.func
def _as_int(x):
    return int(x)


def test_compile_time_arguments_of_device_functions():
    @vkp.kernel
    def k(x: vkp.Array[vkp.i32], y: vkp.Array[vkp.i32]):
        i = vkp.global_id(0)
        _apply(vkp.atomic.add, x, i, 1.5, _as_int, (1,))
        _apply(vkp.atomic.max, y, i, i, _as_int, (2,))

    x, y = np.zeros(8, np.int32), np.zeros(8, np.int32)
    k[1, 8](x, y)
    assert np.all(x == 8) and np.all(y == 7)
    glsl = k.glsl()
    assert glsl.count("shared int") == 2      # one per specialisation
    with pytest.raises(vkp.CompileError, match="sizes an array"):
        @vkp.kernel
        def bad(x: vkp.Array[vkp.i32], n: vkp.i32):
            _apply(vkp.atomic.add, x, 0, 1, _as_int, n)
        bad.glsl()


def test_device_function_signature_converts_arguments():
    @cuda.jit("int32(int32, int32)", device=True)
    def band(a, b):
        return a & b

    @cuda.jit
    def k(out, v):
        out[0] = band(v[0], v[1])

    out = np.zeros(1, np.int32)
    k[1, 1](out, np.array([7.9, 13.2], np.float32))
    assert out[0] == 7 & 13


def test_warp_functions_refused_where_the_device_lacks_subgroup_operations(ctx):
    import dataclasses

    @cuda.jit
    def k(x):
        i = cuda.grid(1)
        x[i] = cuda.shfl_down_sync(0xFFFFFFFF, x[i], 1)

    @vkp.kernel
    def r(x: vkp.Array[vkp.f32]):
        x[0] = vkp.subgroup_add(x[vkp.global_id(0)])

    bare = dataclasses.replace(ctx.target, subgroup_ops=frozenset({"basic"}))
    with pytest.raises(vkp.CompileError, match=r"shfl_down_sync.*needs subgroup "
                       r"shuffle_relative operations in compute shaders.*has: basic"):
        k.glsl(vkp.Array[vkp.f32], device=bare)
    with pytest.raises(vkp.CompileError, match="subgroup arithmetic operations"):
        r.glsl(device=bare)
    assert "GL_KHR_shader_subgroup_arithmetic" in r.glsl()


def test_float_atomics_by_compare_and_swap(ctx):
    """float32/float64 atomic max/min/add/sub where GLSL has none: compare-and-swap loops on
    the element's bits, under contention, against NumPy (on shared arrays too:
    test_lang_kernels.py)."""
    if not (ctx.info.float64 and ctx.info.atomic_int64):
        pytest.skip("needs float64 and 64-bit atomics")

    @cuda.jit
    def k(mx, mn, total, x, y):
        i = cuda.grid(1)
        cuda.atomic.max(mx, i % 3, x[i])
        cuda.atomic.min(mn, i % 3, x[i])
        cuda.atomic.add(total, 0, y[i])
        cuda.atomic.sub(total, 1, y[i])

    rng = np.random.default_rng(2)
    x = rng.normal(size=256).astype(np.float32)
    y = rng.integers(-50, 50, 256).astype(np.float64) / 4    # exact sums in any order
    mx, mn = np.full(3, -np.inf, np.float32), np.full(3, np.inf, np.float32)
    total = np.zeros(2)
    k[4, 64](mx, mn, total, x, y)
    np.testing.assert_array_equal(mx, [x[r::3].max() for r in range(3)])
    np.testing.assert_array_equal(mn, [x[r::3].min() for r in range(3)])
    np.testing.assert_array_equal(total, [y.sum(), -y.sum()])

    @cuda.jit
    def on_shared(out):
        s = cuda.shared.array(4, float64)
        if cuda.threadIdx.x == 0:
            s[0] = -1.0
        cuda.syncthreads()
        cuda.atomic.max(s, 0, 0.5 * cuda.threadIdx.x)
        cuda.syncthreads()
        out[0] = s[0]
    if ctx.info.atomic_int64_shared:
        res = np.zeros(1)
        on_shared[1, 32](res)
        assert res[0] == 15.5


TABLE = np.arange(12, dtype=np.int32).reshape(3, 4) * 3
BIG = np.zeros(5000, np.float32)


def test_captured_host_arrays_are_constants():
    """numba copies the NumPy arrays a kernel reads from its globals into the kernel; so do
    we (2-d, a closure's too), refusing writes and arrays past the stated limit."""
    weights = np.array([0.25, 0.5, 0.25])

    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        c = cuda.const.array_like(TABLE)
        out[i] = c[i % 3, i % 4] + TABLE.shape[1] + weights[i % 3] * 4

    out = np.zeros(8)
    k[1, 8](out)
    i = np.arange(8)
    np.testing.assert_array_equal(out, TABLE[i % 3, i % 4] + 4 + weights[i % 3] * 4)
    assert "const int TABLE_const" in k.glsl(vkp.Array[vkp.f64])

    @cuda.jit
    def writes(out):
        TABLE[0, 0] = 1
    with pytest.raises(vkp.CompileError, match="cannot write it"):
        writes[1, 1](out)

    @cuda.jit
    def big(out):
        out[0] = BIG[0]
    with pytest.raises(vkp.CompileError, match=r"at most 4096 elements.*argument"):
        big[1, 1](out)


def test_grid_sync_is_refused_with_the_way_out():
    @cuda.jit
    def k(x):
        g = cuda.cg.this_grid()
        x[0] = 1
        g.sync()
    with pytest.raises(vkp.CompileError, match=r"cuda.cg.this_grid\(\).sync\(\).*vkp.Program"):
        k[1, 1](np.zeros(1, np.int32))


@cuda.jit
def busy(a, n):
    i = cuda.grid(1)
    if i < a.size:
        s = float32(0)
        for k in range(n):
            s += float32(k) * float32(0.5)
        a[i] = s


def test_events_time_the_device_in_milliseconds(ctx):
    if not ctx.info.timestamps:
        with pytest.raises(vkp.UnsupportedError, match="no timestamps"):
            cuda.event()
        return
    d = cuda.device_array(64 * 256, np.float32)
    busy[64, 256](d, 1)                          # compiled and warm
    start, mid, end = cuda.event(), cuda.event(timing=True), cuda.event()
    start.record()
    busy[64, 256](d, 4)
    mid.record()
    busy[64, 256](d, 4000)
    end.record()
    end.synchronize()
    assert end.query() and start.query()
    short, long = start.elapsed_time(mid), cuda.event_elapsed_time(mid, end)
    # (not short < long: timestamps are the GPU's clock, and on a GPU that other processes
    # share an interval also holds their work: the H200 under 8 test processes gave
    # 0.67 ms for 4 iterations and 0.36 ms for 4000)
    assert 0 <= short and 0 < long
    assert long < 60_000                         # milliseconds, not ns or ticks
    np.testing.assert_allclose(d.copy_to_host(), 0.25 * 3999 * 4000)
    # re-recorded: the new point's time, the earlier events unchanged
    end.record()
    assert cuda.event_elapsed_time(start, end) >= short + long
    with pytest.raises(RuntimeError, match="never recorded"):
        cuda.event().elapsed_time(end)
    with pytest.raises(ValueError, match="timing=False"):
        cuda.event_elapsed_time(cuda.event(timing=False), end)


def test_reduce_by_a_lambda_and_a_def_against_numpy(ctx):
    sum_reduce = cuda.reduce(lambda a, b: a + b)
    x = np.arange(1, 300_001, dtype=np.float64)       # exact sums: several passes
    assert sum_reduce(cuda.to_device(x)) == x.sum()
    ints = np.arange(-500, 1000, dtype=np.int32)
    assert sum_reduce(ints, init=10) == ints.sum() + 10        # NumPy arrays are copied in
    assert sum_reduce(ints, size=7) == ints[:7].sum()
    res = cuda.device_array(1, np.int32)
    assert sum_reduce(ints, res=res) is None and res.copy_to_host()[0] == ints.sum()
    assert sum_reduce(ints[:0], init=5) == 5

    @cuda.reduce
    def max_reduce(a, b):
        return max(a, b)

    y = np.random.default_rng(0).normal(size=70_001).astype(np.float32)
    assert max_reduce(y, init=-1e30) == y.max()
    assert max_reduce(-np.abs(y)) == 0.0                 # numba's default init=0 takes part
    with pytest.raises(ValueError, match="1-d arrays"):
        max_reduce(np.zeros((2, 2), np.float32))
