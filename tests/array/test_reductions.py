"""Reductions against NumPy: whole array and along axes, views, dtypes, keepdims, out=,
NaN and empty arrays, ties in argmin/argmax, and the stated float-sum error bound."""
import math
import traceback

import numpy as np
import pytest

import vkpersist as vkp
from vkpersist._core import reduction as reductions

EPS32 = np.finfo(np.float32).eps


def _sum_bound(x, axis=None):
    """docs/reductions.md: an invocation adds at most ceil(K/(G·L)) <= K/256 + 1 elements in
    order, then a tree of depth log2(G·L) <= log2(K) + 1 combines them, so the error is at
    most about (K/256 + log2(K) + 2)·eps·Σ|x| (float32 accumulation). A reduction over a
    non-last axis of a C-ordered array whose kept axes are wide (x.sum(axis=0)) adds each
    row's chunks in order instead: at most (K + 1)·eps·Σ|x|, like NumPy's own axis-0 sums."""
    k = x.size if axis is None else x.shape[axis]
    columns = axis is not None and axis != x.ndim - 1 and x.size // k >= 32
    coefficient = k + 1 if columns else math.log2(max(k, 2)) + k / 256 + 2
    return coefficient * EPS32 * np.sum(np.abs(x.astype(np.float64)), axis=axis)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    return rng.standard_normal((37, 301)).astype(np.float32)


def test_float32_sums_whole_and_axes(ctx, data):
    d = ctx.asarray(data)
    for axis in (None, 0, 1, (0, 1), -1):
        got = np.sum(d, axis=axis)
        assert isinstance(got, vkp.Array) and got.dtype == np.float32
        want = np.sum(data.astype(np.float64), axis=axis)
        ax = None if axis in (None, (0, 1)) else axis % 2
        assert np.all(np.abs(got.numpy() - want) <= _sum_bound(data, ax)), axis
    whole = vkp.sum(d)
    assert whole.shape == () and isinstance(float(whole), float) and whole.item() == float(whole)
    assert np.sum(d, axis=1, keepdims=True).shape == (37, 1)
    assert d.sum(axis=(0, 1), keepdims=True).shape == (1, 1)


def test_large_sum_takes_two_passes_and_meets_the_bound(ctx):
    x = np.random.default_rng(3).random(300_001).astype(np.float32)   # >1 workgroup column
    got = float(vkp.sum(ctx.asarray(x)))
    assert abs(got - np.sum(x, dtype=np.float64)) <= _sum_bound(x)


def test_views_are_reduced_in_place(ctx, data):
    d = ctx.asarray(data)
    for key in (np.s_[::2, 1::3], np.s_[5, :], np.s_[:, 7], np.s_[::-1, ::-5]):
        view, host = d[key], data[key]
        for axis in [None] + list(range(host.ndim)):
            np.testing.assert_allclose(view.sum(axis=axis).numpy(), host.sum(axis=axis),
                                       rtol=1e-5, atol=1e-4)
            np.testing.assert_array_equal(view.max(axis=axis).numpy(), host.max(axis=axis))
            np.testing.assert_array_equal(view.argmin(axis=axis).numpy(),
                                          host.argmin(axis=axis))
    t = d.T
    np.testing.assert_array_equal(np.min(t, axis=1).numpy(), data.T.min(axis=1))


def test_four_axes_and_unmergeable_views(ctx):
    x = np.arange(2 * 3 * 4 * 5, dtype=np.int32).reshape(2, 3, 4, 5) - 50
    d = ctx.asarray(x)
    for axis in (None, 1, (0, 2), (1, 3), (3, 0, 1)):
        got = np.sum(d, axis=axis)
        assert got.dtype == np.sum(x, axis=axis).dtype
        np.testing.assert_array_equal(got.numpy(), np.sum(x, axis=axis))
    v = d[:, ::2, 1:, ::2]
    np.testing.assert_array_equal(v.max(axis=(1, 3)).numpy(), x[:, ::2, 1:, ::2].max(axis=(1, 3)))


@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "mean", "any", "all",
                                "argmin", "argmax"])
def test_result_dtypes_are_numpys(ctx, op):
    dtypes = ["bool", "int8", "uint8", "int32", "uint32", "float32"]
    dtypes += ["int16", "float16"] if ctx.info.storage16 else []
    dtypes += ["int64", "float64"] if ctx.info.int64 and ctx.info.float64 else []
    rng = np.random.default_rng(5)
    for dt in dtypes:
        if dt == "bool":
            x = rng.random((6, 9)) > 0.4
        elif np.dtype(dt).kind == "f":
            x = (rng.uniform(0.5, 1.5, (6, 9)) if op == "prod"
                 else rng.standard_normal((6, 9)) * 3).astype(dt)
        else:
            x = rng.integers(0, 4 if op == "prod" else 50, (6, 9)).astype(dt)
        d = ctx.asarray(x)
        for axis in (None, 1):
            want = getattr(np, op)(x, axis=axis)
            got = getattr(np, op)(d, axis=axis)
            assert got.dtype == want.dtype, (op, dt, got.dtype, want.dtype)
            tol = {"float16": 2e-3, "float32": 1e-5}.get(dt, 1e-12)
            np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol, err_msg=f"{op} {dt}")


def test_dtype_argument_and_integer_wrapping(ctx):
    x = np.full(1000, 3_000_000, np.int32)
    d = ctx.asarray(x)
    assert int(d.sum()) == 3_000_000_000                    # int64 result, as NumPy's
    assert np.sum(d, dtype=np.int32).item() == np.sum(x, dtype=np.int32)   # wraps alike
    if ctx.info.float64:
        m = d.mean(dtype=np.float64)
        assert m.dtype == np.float64 and m.item() == 3_000_000.0
    f = np.linspace(0, 1, 101, dtype=np.float32)
    assert np.sum(ctx.asarray(f), dtype=np.float64).dtype == np.float64
    assert np.sum(ctx.asarray(np.array([True, False])), dtype=bool).item() is True


def test_nan_propagates_and_argmin_takes_the_first(ctx):
    x = np.array([3.0, 1.0, np.nan, 1.0, np.nan, -2.0, -2.0], np.float32)
    d = ctx.asarray(x)
    assert math.isnan(float(d.min())) and math.isnan(float(d.max()))
    assert math.isnan(float(d.sum()))
    assert int(d.argmin()) == np.argmin(x) == 2 and int(d.argmax()) == 2
    y = np.array([[1, 5, 5, 0], [7, 7, 2, 7]], np.int32)
    np.testing.assert_array_equal(np.argmax(ctx.asarray(y), axis=1).numpy(), [1, 0])
    np.testing.assert_array_equal(np.argmin(ctx.asarray(y), axis=0).numpy(), y.argmin(0))
    z = np.zeros(5000, np.float32)
    z[[1234, 4321]] = 5
    z[[777, 3000]] = -1
    dz = ctx.asarray(z)
    assert (int(dz.argmax()), int(dz.argmin())) == (1234, 777)
    assert bool(ctx.asarray(np.array([0.0, np.nan], np.float32)).any())


def test_empty_arrays(ctx):
    e = ctx.asarray(np.zeros((0, 3), np.float32))
    assert e.sum().item() == 0.0 and e.prod().item() == 1.0
    assert e.any().item() is False and e.all().item() is True
    np.testing.assert_array_equal(e.sum(axis=0).numpy(), np.zeros(3))
    assert e.max(axis=1).shape == (0,)
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum"):
        e.min()
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        np.max(e, axis=0)
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        e.argmax()
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert math.isnan(float(e.mean()))


def test_out_and_numpy_input(ctx, data):
    d = ctx.asarray(data)
    out = ctx.empty(37, np.float32)
    assert np.sum(d, axis=1, out=out) is out
    np.testing.assert_allclose(out.numpy(), data.sum(axis=1), rtol=1e-5, atol=1e-4)
    out64 = ctx.empty(301, np.int64 if ctx.info.int64 else np.int32)
    assert np.argmax(d, axis=0, out=out64) is out64
    np.testing.assert_array_equal(out64.numpy(), data.argmax(axis=0))
    with pytest.raises(ValueError, match="output parameter has the wrong shape"):
        np.max(d, axis=0, out=out)
    got = vkp.sum(data, axis=0)                      # NumPy in -> NumPy out, on the device
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, data.sum(axis=0), rtol=1e-5, atol=1e-4)
    assert isinstance(vkp.amax(data), np.float32) and vkp.amax(data) == data.max()


def test_errors_name_the_problem(ctx, data):
    d = ctx.asarray(data)
    with pytest.raises(np.exceptions.AxisError):
        d.sum(axis=2)
    with pytest.raises(TypeError, match="axis must be an int or None"):
        np.argmin(d, axis=(0, 1))
    with pytest.raises(vkp.UnsupportedError, match=r"where=\.\.\.\) is not supported"):
        np.sum(d, where=data > 0)
    assert reductions.rows_view(d, (0,)).shape == (301, 37)


@pytest.fixture(params=["subgroups", "shared-memory"])
def path(request, ctx, monkeypatch):
    """Run a test on each reduction path this device has; count the subgroup launches."""
    if request.param == "subgroups" and not ctx.info.subgroup_arithmetic:
        pytest.skip(f"{ctx.info.name} has no subgroup arithmetic")
    monkeypatch.setattr(reductions, "USE_SUBGROUPS", request.param == "subgroups")
    calls = []
    real = reductions.sg.reduce_all
    monkeypatch.setattr(reductions.sg, "reduce_all", lambda *a, **k: calls.append(1) or real(*a, **k))
    return request.param, calls


def test_whole_array_reductions_on_both_paths(ctx, path):
    name, calls = path
    rng = np.random.default_rng(8)
    dtypes = ["float32", "int32", "uint32"] + (["float64"] if ctx.info.float64 else [])
    for n in (1000, 300_001):                       # one workgroup; partials + a last pass
        for dt in dtypes:
            x = (rng.random(n) * 100).astype(dt)
            d = ctx.asarray(x)
            if dt.startswith("float"):
                got = float(d.sum())
                eps = np.finfo(dt).eps
                assert abs(got - x.sum(dtype=np.float64)) <= \
                    (n / 256 + math.log2(n) + 2) * eps * np.abs(x).sum(dtype=np.float64)
                assert abs(float(d.mean()) - x.mean(dtype=np.float64)) <= \
                    (n / 256 + math.log2(n) + 3) * eps * 100
                y = (1 + (rng.random(64) - 0.5) * 1e-3).astype(dt)
                np.testing.assert_allclose(float(ctx.asarray(y).prod()), np.prod(y), rtol=64 * eps)
            else:
                assert int(d.max()) == x.max() and int(d.min()) == x.min()
                assert int(d.sum()) == x.sum()
    bad = np.ones(5000, np.float32)
    bad[4321] = np.nan
    assert math.isnan(float(ctx.asarray(bad).sum()))
    assert bool(calls) == (name == "subgroups")


def test_docs_example_runs(tmp_path):
    import pathlib
    import re
    import subprocess
    import sys
    doc = pathlib.Path(__file__).resolve().parents[2] / "docs" / "reductions.md"
    script = tmp_path / "reductions_example.py"
    script.write_text("\n".join(re.findall(r"```python\n(.*?)```", doc.read_text(), re.S)))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.split()
    assert abs(float(lines[-1]) - math.pi) < 0.01          # 6 standard errors
    assert abs(float(lines[-2]) - 0.5) < 0.005


def test_results_keep_their_values_across_result_slots(ctx, monkeypatch):
    """Whole-array results of the subgroup path live in slots of a shared results array,
    counted by the device: earlier results keep their values when later ones are taken and
    when the array is replaced (3 slots here instead of 4096)."""
    monkeypatch.setattr(reductions.sg, "SLOTS", 3)
    monkeypatch.setitem(ctx._caches, "subgroup slabs", {})
    xs = [np.full(1000 + i, float(i), np.float32) for i in range(8)]
    results = [vkp.sum(ctx.asarray(x)) for x in xs]
    again = [vkp.sum(ctx.asarray(x)) for x in xs]
    assert [float(r) for r in results + again] == [float(x.sum()) for x in xs] * 2


def test_a_device_without_int64_is_told_which_dtype_to_pass(ctx):
    import dataclasses
    import types
    no_int64 = types.SimpleNamespace(info=dataclasses.replace(ctx.info, int64=False))
    with pytest.raises(vkp.UnsupportedError, match=r"result dtype here is int64.*lacks int64 "
                                                   r"support.*dtype=np\.int32"):
        reductions._check_dtype_on_device(no_int64, np.dtype(np.int64), "sum")


def test_many_short_rows(ctx):
    """(N, 3) -> (N,): one invocation a row (K <= 16 elements in order, error <= K·eps·Σ|x|)."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal((3000, 3)).astype(np.float32)
    x[17, 1] = np.nan
    x[18] = [2.0, 5.0, 5.0]
    x[20] = 0
    d = ctx.asarray(x)
    np.testing.assert_allclose(d.sum(axis=1).numpy(), x.sum(axis=1), rtol=3e-7, atol=3e-7)
    np.testing.assert_allclose(d.mean(axis=1).numpy(), x.mean(axis=1), rtol=3e-7, atol=3e-7)
    np.testing.assert_array_equal(d.max(axis=1).numpy(), x.max(axis=1))
    np.testing.assert_array_equal(d.argmax(axis=1).numpy(), x.argmax(axis=1))
    np.testing.assert_array_equal(d.argmin(axis=1).numpy(), x.argmin(axis=1))
    np.testing.assert_array_equal(np.any(d[:, ::2], axis=1).numpy(),
                                  np.any(x[:, ::2], axis=1))
    v = rng.standard_normal(3).astype(np.float32)
    np.testing.assert_allclose(np.dot(d, ctx.asarray(v)).numpy(), x @ v, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dt", ["int8", "int32", "uint32"])
def test_integer_argmax_with_ties_across_workgroups(ctx, dt):
    """Rows longer than a workgroup (two passes): the partial values and partial indices
    (both int32 here) are separate arrays, and the first of the tied maxima wins."""
    x = np.random.default_rng(0).integers(0, 100, 3000).astype(dt)
    d = ctx.asarray(x)
    assert (int(d.argmax()), int(d.argmin())) == (x.argmax(), x.argmin())
    assert (int(d.max()), int(d.min())) == (x.max(), x.min())
    y = x.reshape(3, 1000)
    np.testing.assert_array_equal(np.argmax(ctx.asarray(y), axis=1).numpy(), y.argmax(axis=1))
    np.testing.assert_array_equal(vkp.sum(y, axis=1, dtype=dt), np.sum(y, axis=1, dtype=dt))


def test_axis_zero_of_wide_arrays_reads_columns(ctx):
    """x.sum(axis=0) of a (5000, 300) C array: each kept column is read by neighbouring
    invocations, in chunks, then the chunk partials; all operations against NumPy."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5000, 300)).astype(np.float32)
    x[77, 5] = np.nan
    d = ctx.asarray(x)
    got = np.sum(d, axis=0).numpy()
    bound = _sum_bound(x, 0)
    ok = ~np.isnan(x).any(axis=0)
    assert np.all(np.abs(got[ok] - x.astype(np.float64).sum(axis=0)[ok]) <= bound[ok])
    assert np.isnan(got[5])
    for op in ("max", "min", "argmax", "argmin", "any", "all"):
        np.testing.assert_array_equal(getattr(np, op)(d, axis=0).numpy(),
                                      getattr(np, op)(x, axis=0), err_msg=op)
    np.testing.assert_allclose(d.mean(axis=0).numpy()[ok], x.mean(axis=0)[ok], rtol=1e-5,
                               atol=1e-6)
    xi = rng.integers(0, 50, (5000, 40)).astype(np.int32)
    di = ctx.asarray(xi)
    np.testing.assert_array_equal(np.argmax(di, axis=0).numpy(), xi.argmax(axis=0))
    np.testing.assert_array_equal(np.sum(di[::3], axis=0).numpy(), xi[::3].sum(axis=0))
    v = rng.standard_normal(5000).astype(np.float32)           # v @ A reads A by columns
    np.testing.assert_allclose(vkp.matmul(ctx.asarray(v), d).numpy()[ok],
                               (v.astype(np.float64) @ x.astype(np.float64))[ok],
                               rtol=1e-4, atol=2e-3)


def test_kernel_builtins_min_max_dot_reduce_arrays_outside_kernels(ctx):
    """vkp.min/vkp.max of one array are reductions and vkp.dot of two arrays the product
    (with two or more arrays vkp.min/max stay element-wise, as inside kernels)."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    x = ctx.asarray(a)
    assert float(vkp.min(x)) == a.min() and float(vkp.max(x)) == a.max()
    np.testing.assert_array_equal(vkp.max(x, axis=0).numpy(), a.max(axis=0))
    assert float(vkp.dot(x[0], x[1])) == float(np.dot(a[0], a[1]))
    np.testing.assert_array_equal(vkp.min(x[0], x[1]).numpy(), np.minimum(a[0], a[1]))


def test_a_reduction_is_one_asynchronous_submission(ctx, path, monkeypatch):
    """The passes of a reduction (partials, then their combination) are recorded into one
    command buffer, a barrier between: one submission a call and no wait until the result
    is read; a repeated whole-array sum on the subgroup path records nothing new."""
    from vkpersist.vk import commands
    name, _ = path
    core = ctx._core
    x = np.random.default_rng(3).random(300_000).astype(np.float32)
    d, m = ctx.asarray(x), ctx.asarray(x.reshape(600, 500))
    cases = [(lambda: vkp.sum(d), np.sum(x, dtype=np.float64), 1e-5),
             (lambda: vkp.argmax(d), np.argmax(x), 0),
             (lambda: vkp.dot(d, d), np.dot(x.astype(np.float64), x), 1e-5),
             (lambda: m.sum(axis=0), x.reshape(600, 500).sum(axis=0, dtype=np.float64), 1e-5),
             (lambda: vkp.cumsum(d), np.cumsum(x, dtype=np.float64), 1e-4)]
    submits, waits, recorded = [], [], []
    real_submit, real_sync, real_allocate = core.submit, core.synchronize, commands.allocate
    monkeypatch.setattr(core, "submit", lambda *a: submits.append(1) or real_submit(*a))
    monkeypatch.setattr(core, "synchronize", lambda *a: waits.append(
        " <- ".join(f"{f.name}:{f.lineno}" for f in traceback.extract_stack(limit=8)[-2::-1]
                    if "vkpersist" in f.filename)) or real_sync(*a))
    monkeypatch.setattr(commands, "allocate", lambda *a: recorded.append(1) or real_allocate(*a))
    for case, (reduce, want, rtol) in enumerate(cases):
        reduce()                        # the first call compiles and allocates: it may wait
        for _ in range(2):
            submits.clear(), waits.clear(), recorded.clear()
            result = reduce()
            assert (len(submits), len(waits)) == (1, 0)
            np.testing.assert_allclose(result.numpy(), want, rtol=rtol)
            # reading waits once; a discrete GPU reads through a staging copy, one more wait
            assert (len(waits) == 1) if ctx.info.uma else (1 <= len(waits) <= 2), \
                (case, ctx.info.uma, waits)
    submits.clear(), recorded.clear()
    vkp.sum(d)
    assert len(submits) == 1 and (name != "subgroups" or not recorded)


def test_batched_launches_keep_their_order(ctx):
    """Inside `batched`, anything else submitted or waited for sends the launches batched
    so far first; a block left by an exception submits nothing it batched."""
    from vkpersist.vk.sequence import batched

    @vkp.kernel
    def add(x: vkp.Array[vkp.f32], v: vkp.f32):
        i = vkp.global_id(0)
        if i < x.shape[0]:
            x[i] += v

    x = ctx.zeros(100)
    with batched(ctx):
        add.forall(100)(x, 1.0)
        add.forall(100)(x, 2.0)
        np.testing.assert_array_equal(x.numpy(), 3.0)     # waits: the two launches go first
        add.forall(100)(x, 4.0)
        x.copy_from(np.full(100, 10, np.float32))          # submits after the launch
    np.testing.assert_array_equal(x.numpy(), 10.0)
    with pytest.raises(ZeroDivisionError):
        with batched(ctx):
            add.forall(100)(x, 1.0)
            add.forall(100)(x, 1.0)
            1 / 0
    np.testing.assert_array_equal(x.numpy(), 10.0)


def test_a_repeated_whole_array_reduction_resubmits_its_plan(ctx, monkeypatch):
    """`vkp.sum(x)` of the same array again submits the recorded plan of the first call
    (_reduce_subgroup.py) instead of running the front end: the values follow x's current
    contents; a replaced results array, a `batched` block and a dropped source are
    handled."""
    if not ctx.info.subgroup_arithmetic:
        pytest.skip(f"{ctx.info.name} has no subgroup arithmetic")
    from vkpersist._core import reduce_subgroup as sg
    monkeypatch.setitem(ctx._caches, "subgroup slabs", {})      # fresh slabs for this test
    fronts = []
    real = reductions._reduce_all_ways
    monkeypatch.setattr(reductions, "_reduce_all_ways",
                        lambda *a: fronts.append(a[0]) or real(*a))
    rng = np.random.default_rng(4)
    host = rng.random(300_001).astype(np.float32)
    ints_host = (host * 1000).astype(np.int32)
    x, ints = ctx.asarray(host), ctx.asarray(ints_host)

    def run(x, calls):
        results = []
        for k in range(calls):
            if k == calls // 2:
                x[:] = host[::-1].copy()            # a queued write: the plan reads it
            want = host if k < calls // 2 else host[::-1]
            results.append((vkp.sum(x), want.sum(dtype=np.float64)))
            results.append((vkp.mean(x), want.mean(dtype=np.float64)))
            results.append((vkp.max(ints), ints_host.max()))
        for got, want in results:
            assert got.shape == () and abs(float(got) - want) <= 1e-5 * abs(want)
        x[:] = host
    run(x, 6)
    assert fronts == ["sum", "sum", "max"]          # once per (reduction, array)
    fronts.clear()
    monkeypatch.setattr(sg, "SLOTS", 3)              # results arrays replaced often:
    run(x, 6)                                        # their plans are stale, made again
    assert len(fronts) > 3
    fronts.clear()
    with ctx.batched():                              # inside a batch: the front end
        inside = vkp.sum(x)
    assert fronts == ["sum"] and abs(float(inside) - host.sum(dtype=np.float64)) < 1
    serial = x.buffer.serial
    del x, inside
    ctx.synchronize()
    pooled = {a.serial for allocs in ctx._core.buffer_pool.free.values() for a in allocs}
    assert serial in pooled or all(k[-1] != serial for k in sg._plans(ctx).entries)
    y = ctx.asarray(np.ones(300_001, np.float32))    # may take x's memory, and its plan
    assert float(vkp.sum(y)) == 300_001.0
    r = vkp.sum(y)
    r.base.free()                # the results array the plan writes: the plan is stale
    again = vkp.sum(y)           # (it was submitted into the freed buffer: a segfault)
    assert again.buffer.alive and float(again) == 300_001.0
    empty = ctx.empty(0)         # no plan: every mean of nothing warns, as NumPy's
    for _ in range(2):
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            vkp.mean(empty)


def test_the_last_workgroup_finishes_a_whole_array_reduction(ctx):
    """One launch per whole-array reduction (_reduce_subgroup.py): the last workgroup to
    count itself done sums the partials, and puts the count back to 0 for the next launch.
    Exact integer sums, one to many workgroups, results slots and `out=` interleaved."""
    if not ctx.info.subgroup_arithmetic:
        pytest.skip(f"{ctx.info.name} has no subgroup arithmetic")
    from vkpersist._core import reduce_subgroup as sg
    rng = np.random.default_rng(11)
    out = ctx.empty((), np.int32)
    got, want = [], []
    for n in (1, 255, 256, 257, 4097, 100_003, 1 << 20, 3_000_017):
        host = rng.integers(-1000, 1000, n).astype(np.int32)
        x = ctx.asarray(host)
        got += [vkp.sum(x), vkp.sum(x, out=out).copy(), vkp.max(x), vkp.sum(x)]
        want += [host.sum(), host.sum(), host.max(), host.sum()]
    assert [int(g) for g in got] == [int(w) for w in want]
    ctx.synchronize()
    assert sg._slab(ctx, np.dtype(np.int32)).counter.numpy()[1] == 0


def test_a_plan_is_never_another_threads_batch(ctx, monkeypatch):
    """The plan is read from the batch its own launches submitted, under the core's lock:
    another thread's batched work (here a sort, let in right after the reduction's batch
    closes) must wait, or the plan would resubmit the sort (found by review: every later
    sum read an unwritten slot)."""
    if not ctx.info.subgroup_arithmetic:
        pytest.skip(f"{ctx.info.name} has no subgroup arithmetic")
    import threading
    from vkpersist._core import reduce_subgroup as sg
    from vkpersist.vk import sequence
    n = 1 << 16
    x = ctx.asarray(np.ones(n, np.float32))
    other = ctx.asarray(np.random.default_rng(2).random(1 << 15).astype(np.float32))
    np.sort(other)
    ctx.synchronize()
    real_exit = sequence.batched.__exit__
    threads = []

    def exit_then_other_thread(self, *exc):
        real_exit(self, *exc)
        if not threads and getattr(sg._CAPTURE, "plan", None) is not None:
            t = threading.Thread(target=lambda: np.sort(other))
            threads.append(t)
            t.start()
            t.join(0.5)       # it finishes here unless the lock keeps it out
    monkeypatch.setattr(sequence.batched, "__exit__", exit_then_other_thread)
    assert float(vkp.sum(x)) == n
    monkeypatch.undo()
    threads[0].join(10)
    assert [float(vkp.sum(x)) for _ in range(3)] == [n] * 3
