"""Control flow, locals, tuples and device functions in kernels."""
import numpy as np
import pytest

import vkpersist as vkp


@vkp.kernel
def loops(n_arr, out):
    i = vkp.global_id(0)
    if i < n_arr.shape[0]:
        n = n_arr[i]
        s = 0
        for k in range(n):
            s += k
        out[i, 0] = s
        s = 0
        for k in range(n, 0, -1):        # negative step
            s = s * 2 + k
        out[i, 1] = s
        s = 0
        for k in range(2, 20, 3):
            if k == 11:
                continue
            if k > 15:
                break
            s += k
        out[i, 2] = s
        k = 0
        while True:
            k += 1
            if k * k > n:
                break
        out[i, 3] = k
        step = 1 - 2 * (n % 2)              # runtime step sign
        s = 0
        for k in range(0, 6 * step, step):
            s += k
        out[i, 4] = s
        m = 100
        for m in range(n):
            pass
        out[i, 5] = m                         # Python: the last value (or untouched)


def _py_loops(n):
    s0 = sum(range(n))
    s1 = 0
    for k in range(n, 0, -1):
        s1 = s1 * 2 + k
    s2 = 0
    for k in range(2, 20, 3):
        if k == 11:
            continue
        if k > 15:
            break
        s2 += k
    k = 0
    while True:
        k += 1
        if k * k > n:
            break
    step = 1 - 2 * (n % 2)
    s4 = sum(range(0, 6 * step, step))
    m = 100
    for m in range(n):
        pass
    return [s0, s1, s2, k, s4, m]


def test_loops_match_python(ctx):
    n = np.array([0, 1, 2, 5, 8, 13], np.int32)
    out = np.zeros((6, 6), np.int32)
    loops.forall(6)(n, out)
    assert out.tolist() == [_py_loops(int(v)) for v in n]


@vkp.kernel
def branches(x, out):
    i = vkp.global_id(0)
    if i >= x.shape[0]:
        return                            # early return
    v = x[i]
    if v < 0:
        r = 0                             # int here ...
    elif v < 1:
        r = v * 10                        # ... float here: the local unifies to float32
    elif v < 2:
        r = -1
    else:
        r = 100.5
    out[i] = r if v != 1.5 else -2


def test_if_elif_else_and_unified_locals(ctx):
    x = np.array([-3, 0.25, 1.25, 1.5, 7], np.float32)
    out = np.zeros(5, np.float32)
    branches.forall(5)(x, out)
    np.testing.assert_allclose(out, [0, 2.5, -1, -2, 100.5])
    assert "float r;" in branches.glsl(vkp.Array[vkp.f32], vkp.Array[vkp.f32])


@vkp.func
def divmod_(a, b):
    return a // b, a % b


@vkp.func
def clamp01(v):
    if v < 0.0:
        return 0.0
    if v > 1.0:
        return 1.0
    return v


@vkp.func
def twice_clamped(v):
    return clamp01(v) * 2            # a function calling a function


@vkp.kernel
def tuples_and_funcs(a, b, out):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        q, r = divmod_(a[i], b[i])
        x, y = a[i], b[i]
        x, y = y, x                       # swap evaluates the right side first
        out[i, 0] = q
        out[i, 1] = r
        out[i, 2] = x
        out[i, 3] = y
        out[i, 4] = twice_clamped(a[i] / 10.0) * 100


def test_tuples_and_device_functions(ctx):
    a = np.array([7, -7, 3, 12], np.int32)
    b = np.array([2, 2, -2, 5], np.int32)
    out = np.zeros((4, 5), np.int32)
    tuples_and_funcs.forall(4)(a, b, out)
    for k in range(4):
        x, y = int(a[k]), int(b[k])
        assert out[k].tolist() == [x // y, x % y, y, x, int(min(max(x / 10, 0), 1) * 2 * 100)]


@vkp.kernel
def annotated_local(out):
    i = vkp.global_id(0)
    acc: vkp.f64 = 0
    for k in range(10):
        acc += 0.1
    if i == 0:
        out[0] = acc


def test_annotated_locals(ctx):
    if not ctx.info.float64:
        pytest.skip("no float64")
    out = np.zeros(1, np.float64)
    annotated_local.forall(1)(out)
    assert out[0] == pytest.approx(1.0, abs=1e-12)


@vkp.kernel
def multi_dim(a, out):
    i = vkp.global_id(0)
    j = vkp.global_id(1)
    if i < a.shape[0] and j < a.shape[1]:
        for k in range(a.shape[2]):
            out[i, j, k] = a[i, j, k] * 10 + a[-1, 0, -1] + a.ndim + a.size


def test_three_d_arrays_and_negative_constant_indices(ctx):
    a = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    out = np.zeros_like(a)
    multi_dim[(1, 1), (2, 3)](a, out)
    np.testing.assert_array_equal(out, a * 10 + a[-1, 0, -1] + 3 + a.size)


@vkp.kernel
def grid_2d(out):
    x = vkp.global_id(0)
    y = vkp.global_id(1)
    if x < out.shape[1] and y < out.shape[0]:
        out[y, x] = (y * 1000 + x + vkp.local_size(0) * 0 + vkp.num_groups(1) * 0
                     + vkp.group_id(0) * 0 + vkp.local_id(1) * 0 + vkp.global_size(0) * 0)


def test_2d_launch_and_ids(ctx):
    out = np.zeros((13, 21), np.int32)
    grid_2d[(3, 2), (8, 8)](out)
    np.testing.assert_array_equal(out, np.arange(13)[:, None] * 1000 + np.arange(21)[None, :])


def _configured_kernel(with_extra, taps):
    """A kernel specialised by Python: a compile-time `if` on a captured flag compiles only
    the branch taken (the other names an argument that is None here), and a loop over a
    captured tuple of (offset, weight) pairs is unrolled."""
    extra = None

    @vkp.kernel
    def k(x: vkp.Array[vkp.f32], out: vkp.Array[vkp.f32]):
        i = vkp.global_id(0)
        if i < out.shape[0]:
            acc = 0.0
            for off, w in taps:
                j = i + off
                if 0 <= j < x.shape[0]:
                    acc += w * x[j]
            if with_extra:
                acc += extra[i]
            out[i] = acc
    return k


def test_compile_time_if_and_unrolled_loop(ctx):
    taps = ((-1, 0.25), (0, 0.5), (1, 0.25))
    k = _configured_kernel(False, taps)
    x = np.arange(16, dtype=np.float32) ** 2
    out = np.zeros(16, np.float32)
    k.forall(16)(x, out)
    xp = np.pad(x, 1)
    np.testing.assert_allclose(out, 0.25 * xp[:-2] + 0.5 * xp[1:-1] + 0.25 * xp[2:], rtol=1e-6)
    src = k.glsl()
    assert src.count("0.25") >= 2 and "extra" not in src


def test_unrolled_loop_refuses_break_and_huge_tuples(ctx):
    items = tuple(range(3))

    @vkp.kernel
    def brk(out: vkp.Array[vkp.f32]):
        for v in items:
            if v == 1:
                break
            out[v] = 1.0

    with pytest.raises(vkp.CompileError, match="'break' in a loop over compile-time items"):
        brk.forall(1)(np.zeros(3, np.float32))
    many = tuple(range(300))

    @vkp.kernel
    def big(out: vkp.Array[vkp.f32]):
        for v in many:
            out[0] += v

    with pytest.raises(vkp.CompileError, match="unrolls over 300 items"):
        big.forall(1)(np.zeros(1, np.float32))
