"""Launching: plans, specialisation, asynchrony, NumPy copy-back, loop-limit detection,
inspection (glsl/spirv/emit-glsl)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import vkpersist as vkp


@vkp.kernel
def scale(x, factor):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] = x[i] * factor


@vkp.kernel
def copy_in_out(src, dst):
    i = vkp.global_id(0)
    if i < src.shape[0]:
        dst[i] = src[i] + 1


def test_unannotated_kernels_specialise_per_signature(ctx):
    a = np.arange(5, dtype=np.float32)
    scale.forall(5)(a, 2)
    b = np.arange(5, dtype=np.int32)
    scale.forall(5)(b, 3)
    np.testing.assert_array_equal(a, np.arange(5) * 2.0)
    np.testing.assert_array_equal(b, np.arange(5) * 3)
    sigs = {c.types[0].elem.name for c in scale._compiled.values()}
    assert {"float32", "int32"} <= sigs


@vkp.kernel
def bump(x, by):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] += by


def test_launch_plans_are_reused(ctx):
    x = ctx.asarray(np.ones(64, np.float32))
    bump.forall(64)(x, 1.5)
    assert len(bump._plans_on(ctx)) == 1
    plan = next(iter(bump._plans_on(ctx).values()))
    for _ in range(20):
        bump.forall(64)(x, 1.0)      # same signature: same plan, set and command buffer
    assert len(bump._plans_on(ctx)) == 1
    assert len(plan.pipeline.cache.sets) == 1 and len(plan.pipeline.cache.recorded) == 2
    np.testing.assert_array_equal(x.numpy(), np.full(64, 22.5))


def test_device_array_launches_are_asynchronous(ctx):
    x = ctx.asarray(np.ones(1 << 16, np.float32))
    for _ in range(10):
        scale.forall(1 << 16)(x, 2.0)
    assert ctx._core.pending, "launches on device arrays should not wait"
    vkp.synchronize()
    assert not ctx._core.pending
    np.testing.assert_array_equal(x.numpy(), np.full(1 << 16, 1024.0))


def test_only_written_numpy_arrays_are_copied_back(ctx):
    src = np.arange(4, dtype=np.float32)
    dst = np.zeros(4, np.float32)
    ro = src.copy()
    ro.flags.writeable = False      # read-only input is fine: the kernel never writes it
    copy_in_out.forall(4)(ro, dst)
    np.testing.assert_array_equal(dst, src + 1)
    glsl = copy_in_out.glsl(vkp.Array[vkp.f32], vkp.Array[vkp.f32])
    assert "readonly buffer src_buffer" in glsl and "readonly buffer dst_buffer" not in glsl
    with pytest.raises(ValueError, match="writes 'dst' but the NumPy array is read-only"):
        copy_in_out.forall(4)(src, ro)


def test_glsl_is_readable_and_spirv_validates():
    glsl = copy_in_out.glsl(vkp.Array[vkp.f32], vkp.Array[vkp.f32])
    assert "// test_kernel_launch.py:" in glsl
    assert "int i;" in glsl and "dst[i] = src[i] + 1.0;" in glsl
    spv = copy_in_out.spirv(vkp.Array[vkp.f32], vkp.Array[vkp.f32])
    assert spv[:4] == b"\x03\x02\x23\x07"
    from vkpersist.vk.glslang import compiler
    import os
    val = os.path.join(os.path.dirname(compiler()[0]), "spirv-val")
    if os.path.exists(val):
        run = subprocess.run([val, "--target-env", "vulkan1.2", "-"], input=spv,
                             capture_output=True, env=compiler()[1])
        assert run.returncode == 0, run.stderr


@vkp.kernel
def long_loop(out, n: vkp.i32):
    i = vkp.global_id(0)
    s = 0
    for k in range(n):
        s += k % 7
    if i == 0:
        out[0] = s


def test_lavapipe_loop_limit_is_reported_not_truncated(ctx):
    out = ctx.zeros(1, np.int32)
    long_loop.forall(1)(out, 60_000)
    assert out.numpy()[0] == sum(k % 7 for k in range(60_000))
    long_loop.forall(1)(out, 200_000)
    if not ctx.info.is_lavapipe:
        assert out.numpy()[0] == sum(k % 7 for k in range(200_000))
        return
    with pytest.raises(vkp.DeviceLimitError, match="kernel 'long_loop'.*~65,535 per invocation"):
        out.numpy()
    long_loop.forall(1)(out, 10)     # the context stays usable
    assert out.numpy()[0] == sum(k % 7 for k in range(10))


def test_emit_glsl_cli(tmp_path):
    src = tmp_path / "kernels.py"
    src.write_text(textwrap.dedent("""
        import vkpersist as vkp

        @vkp.kernel
        def add_one(x: vkp.Array[vkp.f32]):
            i = vkp.global_id(0)
            if i < x.shape[0]:
                x[i] += 1.0

        @vkp.kernel
        def untyped(x):
            x[0] = 1
    """))
    run = subprocess.run([sys.executable, "-m", "vkpersist", "emit-glsl", f"{src}:add_one"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "void main()" in run.stdout and "// kernels.py:8" in run.stdout
    run = subprocess.run([sys.executable, "-m", "vkpersist", "emit-glsl", str(src)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "untyped" in run.stderr and "needs a type" in run.stderr
    run = subprocess.run([sys.executable, "-m", "vkpersist", "emit-glsl", f"{src}:nope"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "no kernel or program 'nope'" in run.stderr and "add_one" in run.stderr


@vkp.kernel
def nested_loops(out, n: vkp.i32, m: vkp.i32):
    c = 0
    for i in range(n):
        for j in range(m):
            c += 1
        c += 1
    out[0] = c


def test_loops_inside_loops_count_their_final_tests(ctx):
    """lavapipe counts every evaluation of a loop's header: an inner loop that runs 0 times
    still costs one, so 40,000 outer iterations are cut at 32,768 there. The guard counts
    the same way and reports it."""
    out = ctx.zeros(1, np.int32)
    nested_loops.forall(1)(out, 30_000, 0)          # 60,000 tests: below the limit
    assert out.numpy()[0] == 30_000
    nested_loops.forall(1)(out, 40_000, 0)
    if not ctx.info.is_lavapipe:
        assert out.numpy()[0] == 40_000
        return
    with pytest.raises(vkp.DeviceLimitError, match="kernel 'nested_loops'"):
        out.numpy()


@vkp.kernel
def frame_after_a_long_loop(sock: vkp.Socket, n: vkp.i32):
    i = vkp.global_id(0)
    s = 0
    for k in range(n):
        s += 1
    sock.frame[i] = s
    sock.commit()


def test_a_frame_from_a_cut_short_kernel_is_not_delivered(ctx):
    sock = vkp.MemSock("cut", np.int32, 4, capacity=2, ctx=ctx)
    frame_after_a_long_loop[1, 4](sock, 1000)
    with sock.wait(5) as frame:
        assert (frame.data == 1000).all()
    frame_after_a_long_loop[1, 4](sock, 100_000)
    if not ctx.info.is_lavapipe:
        with sock.wait(5) as frame:
            assert (frame.data == 100_000).all()
        sock.free()
        return
    with pytest.raises(vkp.DeviceLimitError, match="frame 1 was written while an invocation"
                       ".*loop less in each invocation: launch more invocations"):
        sock.wait(5)
    with pytest.raises(vkp.DeviceLimitError, match="frame_after_a_long_loop"):
        ctx.synchronize()
    frame_after_a_long_loop[1, 4](sock, 10)          # the socket goes on with the next frame
    with sock.wait(5) as frame:
        assert frame.seq == 2 and (frame.data == 10).all()
    sock.free()


TABLE = None       # a device array the kernels below read from their globals


@vkp.func
def _table_at(j):
    return TABLE[j]


@vkp.kernel
def reads_a_global_device_array(out):
    i = vkp.global_id(0)
    if i < 3:
        out[i] = _table_at(i) + TABLE[2 - i]      # in a device function and in the kernel


def test_device_arrays_in_globals_are_bound_by_reference(ctx):
    """As numba binds a global device array: the kernel binds that very array (after its
    parameters), so writes made to it later are seen by later launches; views keep their
    strides; another Context's or a freed array is refused by name."""
    global TABLE
    TABLE = ctx.asarray(np.array([1.0, 2.0, 4.0], np.float32))
    out = ctx.zeros(3)
    reads_a_global_device_array[1, 3](out)
    np.testing.assert_array_equal(out.numpy(), [5, 4, 5])
    TABLE.copy_from(np.array([10.0, 20.0, 40.0], np.float32))   # by reference: seen
    reads_a_global_device_array[1, 3](out)
    np.testing.assert_array_equal(out.numpy(), [50, 40, 50])
    grid = ctx.asarray(np.arange(24, dtype=np.float32).reshape(4, 6))
    view = grid[:, ::2]

    @vkp.kernel
    def through_a_view(out):
        i = vkp.global_id(0)
        if i < 4:
            out[i] = view[i, 1] + view[i, 2]
            grid[i, 0] = -1.0                 # and written

    res = ctx.zeros(4)
    through_a_view[1, 4](res)
    np.testing.assert_array_equal(res.numpy(),
                                  np.arange(24).reshape(4, 6)[:, [2, 4]].sum(axis=1))
    np.testing.assert_array_equal(grid.numpy()[:, 0], -1)
    with vkp.Context(ctx.info.index) as other:
        with pytest.raises(vkp.VkPersistError, match="reads from its globals .* belongs to "
                                                      "another Context"):
            reads_a_global_device_array[1, 3](other.zeros(3))
    TABLE.free()
    with pytest.raises(vkp.VkPersistError, match="reads from its globals .* freed"):
        reads_a_global_device_array[1, 3](out)
    TABLE = None


@vkp.kernel
def double_add(x, by):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] = x[i] * 2 + by


def test_launches_in_a_batched_block_are_one_submission_in_order(ctx):
    """ctx.batched(): the launches inside go out as one command buffer when the block
    ends, in order (x = 2x + i depends on it), with their own scalar values; reading an
    array inside the block submits what was recorded so far first."""
    from vkpersist.vk.sequence import _BATCHES
    x = ctx.zeros(64, np.int32)
    double_add[1, 64](x, 0)                        # compiled outside the block
    ctx.synchronize()
    want = 0
    with ctx.batched():
        for i in range(20):
            double_add[1, 64](x, i)
            want = want * 2 + i
        batch = _BATCHES[ctx._core]
        before = batch.submissions
    assert batch.submissions == before + 1 and np.all(x.numpy() == want)
    with ctx.batched():
        double_add[1, 64](x, 1)
        assert np.all(x.numpy() == want * 2 + 1)   # a read inside submits first
        double_add[1, 64](x, 0)
    assert np.all(x.numpy() == (want * 2 + 1) * 2)
