"""Persistent programs: the megakernel and its per-launch fallback, on every device.

Numerics are checked against NumPy (float32, same operation order; tolerance 1e-5
relative, since a GPU compiler may fuse a multiply-add); the two modes against each other
bit for bit.
"""
import os

import numpy as np
import pytest
import trio

import vkpersist as vkp
from programs_lib import (bfs, bfs_reference, chain, combo, counted, counters, jacobi,
                          jacobi_reference, long_loop, producer, random_graph, slow, threshold,
                          wave, wave_expected)

MODES = ["persistent", "launch"]


@pytest.mark.parametrize("mode", MODES)
def test_jacobi_matches_numpy(ctx, mode):
    prog, A, init = jacobi(ctx, 12)
    report = prog.run(25, mode=mode)
    assert report.steps == 25 and report.mode == mode
    assert int(prog.step) == 25
    np.testing.assert_allclose(A.numpy(), jacobi_reference(init, 25), rtol=1e-5, atol=1e-6)
    prog.free()


@pytest.mark.parametrize("groups", [1, 2])
def test_persistent_and_launch_are_bit_identical(ctx, groups):
    states = {}
    for mode in MODES:
        prog, A, _ = jacobi(ctx, 10, seed=3)
        prog.run(40, mode=mode, groups=groups)
        states[mode] = A.numpy()
        if mode == "persistent":
            assert 1 <= prog._runner.participants <= groups
        prog.free()
    assert np.array_equal(states["persistent"], states["launch"])


def test_persistent_with_two_participants_agrees(ctx):
    """Occupancy discovery admits the workgroups that run at once: on lavapipe with two or
    more threads, two participate in about half the epochs (one when the second thread
    wakes too late); the result never depends on it."""
    prog, A, init = jacobi(ctx, 8)
    seen, epochs = set(), 0
    while epochs < 200 and not (epochs >= 12 and 2 in seen):
        prog.run(2, mode="persistent", groups=2)
        seen.add(prog._runner.participants)
        epochs += 1
    assert seen <= {1, 2}
    if ctx.info.is_lavapipe and (os.cpu_count() or 1) >= 2:
        assert 2 in seen, "two workgroups never ran the megakernel together in 200 epochs"
    np.testing.assert_allclose(A.numpy(), jacobi_reference(init, 2 * epochs), rtol=1e-5,
                               atol=1e-6)
    prog.free()


@pytest.mark.parametrize("mode", MODES)
def test_every_and_step_counter(ctx, mode):
    prog, counts, log = counters(ctx, every_ctl=3)
    prog.run(10, mode=mode)
    # steps 0..9: every step 10, even steps 5, steps divisible by 3: 0, 3, 6, 9
    assert counts.numpy().tolist() == [10, 5, 4]
    assert log.numpy()[:12].tolist() == list(range(1, 11)) + [0, 0]
    prog.ctl["period"] = 0            # 0 means never; read at the next step boundary
    prog.run(5, mode=mode)
    assert counts.numpy().tolist() == [15, 8, 4]     # steps 10, 12, 14 are even
    prog.free()


def test_epochs_on_lavapipe_run_far_past_the_loop_limit(ctx):
    """One workgroup of 128 invocations loops 2 x 16³/128 = 64 times per step: 2,000 steps
    are 128,000 iterations, about twice lavapipe's per-invocation limit."""
    prog, A, init = jacobi(ctx, 16)
    report = prog.run(2000, mode="persistent", groups=1, local=128)
    assert report.steps == 2000
    if ctx.info.is_lavapipe:
        assert report.epochs >= 128_000 // 60_000 + 1
    np.testing.assert_allclose(A.numpy(), jacobi_reference(init, 2000), rtol=1e-4, atol=1e-6)
    prog.free()


def test_a_step_longer_than_the_loop_limit_is_an_error(ctx):
    if not ctx.info.is_lavapipe:
        pytest.skip("only lavapipe cuts loops short")
    prog, out = long_loop(ctx, 70_000)
    with pytest.raises(vkp.DeviceLimitError, match="long_loop"):
        prog.run(1, mode="persistent")
    prog.free()


@pytest.mark.parametrize("mode", MODES)
def test_session_commands_pause_resume_stop(ctx, mode):
    prog, A, init = jacobi(ctx, 8)

    async def main():
        async with prog.session(mode=mode) as run:
            await trio.sleep(0.02)
            paused = await run.pause()
            await trio.sleep(0.02)
            assert run.steps_done == paused          # nothing runs while paused
            await run.resume()
            ack = await run.send(alpha=0.05)
            assert ack.step >= paused
            while run.steps_done < ack.step + 5:
                await trio.sleep(0.005)
            stopped = await run.stop()
            assert not run.running
        return ack, stopped

    ack, stopped = trio.run(main)
    assert int(prog.step) == stopped > ack.step
    got = A.numpy()
    # the command took effect exactly before step ack.step
    expected = jacobi_reference(jacobi_reference(init, ack.step), stopped - ack.step, alpha=0.05)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
    prog.free()


def test_commands_at_a_step_match_the_fallback_bit_for_bit(ctx):
    prog, A, _ = jacobi(ctx, 8, seed=5)

    async def main():
        async with prog.session(mode="persistent") as run:
            while run.steps_done < 20:
                await trio.sleep(0.001)
            ack = await run.send(alpha=0.02)
            while run.steps_done < ack.step + 50:
                await trio.sleep(0.001)
            stopped = await run.stop()
        return ack, stopped

    ack, stopped = trio.run(main)
    persistent = A.numpy()
    prog.free()
    prog, A, _ = jacobi(ctx, 8, seed=5)
    prog.run(ack.step, mode="launch")
    prog.ctl["alpha"] = 0.02           # read at the next step boundary
    prog.run(stopped - ack.step, mode="launch")
    assert np.array_equal(A.numpy(), persistent)
    prog.free()


def test_session_body_error_stops_the_program(ctx):
    prog, _, _ = jacobi(ctx, 8)

    async def main():
        async with prog.session(mode="persistent") as run:
            while run.steps_done < 3:
                await trio.sleep(0.002)
            raise ValueError("host handler failed")

    with pytest.raises(ValueError, match="host handler failed"):
        trio.run(main)
    assert not prog._runner.running
    before = int(prog.step)
    assert before > 0
    prog.run(3)                         # the program is usable again
    assert int(prog.step) == before + 3
    prog.free()


def test_session_with_step_count_finishes(ctx):
    prog, A, init = jacobi(ctx, 8)

    async def main():
        async with prog.session(steps=50) as run:
            assert await run.wait() == 50
            with pytest.raises(vkp.VkPersistError, match="finished"):
                await run.send(alpha=0.3)

    trio.run(main)
    np.testing.assert_allclose(A.numpy(), jacobi_reference(init, 50), rtol=1e-5, atol=1e-6)
    prog.free()


def test_stalled_heartbeat_raises_device_timeout(ctx):
    # ~0.3 s on a 2-core lavapipe; ~1 s on an H200
    prog, out = slow(ctx, *((1 << 19, 200) if ctx.info.is_lavapipe else (1 << 24, 4000)))
    with pytest.raises(vkp.DeviceTimeout, match="no progress"):
        prog.run(1, mode="launch", timeout=0.01)
    ctx.synchronize()
    report = prog.run(1, mode="launch")       # recovers once the device is done
    assert report.steps == 1
    prog.free()


def test_glsl_is_readable(ctx):
    prog, _, _ = jacobi(ctx, 4)
    mega = prog.glsl()
    assert "void main()" in mega and "stage_sweep_ab" in mega and "_vkp_grid_sync" in mega
    assert "occupancy discovery" in mega and "test_programs" not in mega
    assert "programs_lib.py" in mega           # stage lines carry their Python source line
    fallback = prog.glsl("launch")
    assert fallback.count("void main()") == 3
    with pytest.raises(ValueError, match="'persistent' or 'launch'"):
        prog.glsl("megakernel")
    prog.free()


def test_statistics_give_the_drivers_figures_or_say_it_has_none(ctx):
    prog, _, _ = jacobi(ctx, 8)
    if not ctx.info.pipeline_statistics:         # lavapipe: the extension is missing
        with pytest.raises(vkp.UnsupportedError, match="VK_KHR_pipeline_executable_properties"):
            prog.statistics()
    else:
        mega = prog.statistics()["megakernel"]
        assert mega.values and mega.subgroup_size >= 1
        assert mega.registers is None or mega.registers > 0
        launch = prog.statistics("launch")
        assert set(launch) == {stage.name for stage, _ in prog.schedule}
        assert all(s.values for s in launch.values())
    with pytest.raises(ValueError, match="'persistent' or 'launch'"):
        prog.statistics("fast")
    prog.free()


def test_the_fallback_reads_step_words_through_the_cache(ctx):
    """The megakernel's workgroups poll the scheduler words while they run: coherent. The
    fallback's kernels only read words an earlier dispatch wrote, ordered by a pipeline
    barrier: plain loads, which do not all contend for one address past the cache."""
    prog, _, _ = jacobi(ctx, 4)
    assert "coherent buffer _vkp_sched_buffer" in prog.glsl()
    assert "buffer _vkp_sched_buffer" in prog.glsl("launch")
    assert "coherent buffer _vkp_sched_buffer" not in prog.glsl("launch")
    prog.free()


def test_program_shaders_index_with_literal_shapes(ctx):
    """A program's shapes are fixed when it is built: its shaders index with literals (the
    compiler folds them) and carry no push constants for them."""
    prog, _, _ = jacobi(ctx, 4)
    for src in (prog.glsl(), prog.glsl("launch")):
        assert "push_constant" not in src and "_shape" not in src
        assert "A[((i) * 4 + j) * 4 + k]" in src
    prog.free()


def test_declaration_mistakes(ctx):
    prog = vkp.Program(ctx, name="bad")
    a = prog.array("a", (4,), np.float32)
    with pytest.raises(ValueError, match="already has an array, queue or memsock 'a'"):
        prog.array("a", (4,))
    with pytest.raises(ValueError, match="identifier"):
        prog.array("_x", (4,))
    with pytest.raises(TypeError, match="takes 2 index parameters; it has 1"):
        @prog.stage(domain=(4, 4))
        def wrong(i):
            a[i] = 1.0
    with pytest.raises(ValueError, match="domain must be 1-3 positive ints"):
        prog.stage(domain=(4, 0))(lambda i, j: None)
    with pytest.raises(ValueError, match="no control field 'nope'"):
        prog.loop(vkp.every("nope", _stage(prog, a)))
    with pytest.raises(TypeError, match="not a stage"):
        prog.loop(lambda i: None)
    with pytest.raises(vkp.VkPersistError, match="nothing to run"):
        prog.run(1)
    with pytest.raises(ValueError, match="mode must be one of"):
        prog.run(1, mode="fast")
    prog.free()


def _stage(prog, a):
    @prog.stage(domain=4)
    def fill(i):
        a[i] = 2.0
    return fill


def test_stage_language_mistakes(ctx):
    prog = vkp.Program(ctx, name="bad_stage")
    a = prog.array("a", (4,), np.float32)

    @prog.stage(domain=4)
    def uses_ids(i):
        a[i] = vkp.global_id(0)

    prog.loop(uses_ids)
    with pytest.raises(vkp.CompileError, match=r"test_programs.py:\d+.*cannot call vkp.global_id"):
        prog.run(1)
    prog.free()
    prog = vkp.Program(ctx, name="bad_index")
    b = prog.array("b", (4, 3), np.float32)

    @prog.stage(domain=4)
    def past_the_end(i):
        b[i, 3] = 1.0          # the array's shape is known: the write would vanish

    prog.loop(past_the_end)
    with pytest.raises(vkp.CompileError, match=r"index 3 is out of range for axis 1 of size 3 "
                                               r"\(valid: -3..2\)"):
        prog.run(1)
    prog.free()


def test_declaring_after_compiling_is_refused(ctx):
    prog, _, _ = jacobi(ctx, 4)
    prog.run(1, mode="launch")
    with pytest.raises(vkp.VkPersistError, match="after the program was compiled"):
        prog.array("late", (4,))
    prog.free()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("groups", [1, 2])
def test_queue_bfs_matches_cpu(ctx, mode, groups):
    offsets, edges = random_graph(3000, 3, seed=2)
    prog, dist, frontier = bfs(ctx, offsets, edges)
    for source in (0, 17):
        dist.set(np.where(np.arange(3000) == source, 0, -1))
        frontier.fill([source])
        prog.run(1, mode=mode, groups=groups)
        assert np.array_equal(dist.numpy(), bfs_reference(offsets, edges, source))
        assert len(frontier) == 0 and frontier.dropped == 0
    prog.free()


@pytest.mark.parametrize("mode", MODES)
def test_queue_overflow_is_counted_and_reported(ctx, mode):
    prog, consumed, q = producer(ctx, 100, capacity=64)
    with pytest.warns(vkp.QueueOverflow, match=r"queue 'q' \(capacity 64\) was full: 72 items"):
        prog.run(2, mode=mode)
    assert q.dropped == 72                     # 100 pushed, 64 kept, per step
    assert consumed.numpy()[0] == 128
    prog.free()


def test_queue_rounds_beyond_the_fallback_limit(ctx):
    prog, seen, q = chain(ctx, 40)
    q.fill([0])
    prog.run(1, mode="persistent")
    assert seen.numpy().sum() == 41            # 41 rounds, one item each
    seen.set(np.zeros(41, np.int32))
    q.fill([0])
    with pytest.raises(vkp.DeviceLimitError, match="queue 'q' still had items after 16 rounds"):
        prog.run(1, mode="launch")
    prog.free()


def test_queue_host_side(ctx):
    prog, seen, q = chain(ctx, 3)
    q.fill([2, 3])
    assert len(q) == 2 and q.items().tolist() == [2, 3]
    with pytest.raises(ValueError, match="holds 4 items, got 5"):
        q.fill([1, 2, 3, 4, 5])
    with pytest.raises(TypeError, match="items must be vkp.i32, vkp.u32 or vkp.f32"):
        prog.queue("bad", np.float64, capacity=4)
    with pytest.raises(ValueError, match="capacity must be an int from 1"):
        vkp.Program(ctx).queue("q", vkp.u32, capacity=0)
    with pytest.raises(TypeError, match="takes one parameter, the item; it has 2"):
        @prog.stage(consumes=q)
        def two(a, b):
            pass
    with pytest.raises(TypeError, match="domain=.* or consumes=queue"):
        prog.stage(domain=4, consumes=q)
    prog.run(1)
    assert len(q) == 0 and seen.numpy().tolist() == [0, 0, 1, 1]
    prog.free()


@pytest.mark.parametrize("mode", MODES)
def test_memsock_frames_from_a_stage(ctx, mode):
    prog, snap = wave(ctx, 8, period=2, capacity=4)
    prog.run(6, mode=mode)                       # frames at steps 0, 2, 4
    frames = []
    while (frame := snap.poll()) is not None:
        with frame:
            step = int(frame.payload["step"])
            np.testing.assert_array_equal(frame.data, wave_expected(8, step))
            frames.append((frame.seq, step))
    assert frames == [(0, 0), (1, 2), (2, 4)] and snap.dropped == 0
    prog.run(12, mode=mode)                      # 6 more frames into a ring of 4: 2 dropped
    assert [snap.wait(1).seq for _ in range(4)] == [3, 4, 5, 6]
    assert snap.poll() is None and snap.dropped == 2
    prog.free()


@pytest.mark.parametrize("mode", MODES)
def test_stage_names_like_a_memsocks_frame_words(ctx, mode):
    """A memsock `snap` has frame words the scheduler names snap_slot and snap_seq (in the
    megakernel, macros over the step's shared words): a stage's own local or parameter of
    those names is renamed, not rewritten (the GLSL did not compile)."""
    prog = vkp.Program(ctx, name="names")
    f = prog.array("f", (16,))
    snap = prog.memsock("snap", np.float32, (16,), capacity=4)

    @prog.stage(domain=16)
    def emit(snap_slot):
        snap_seq = f[snap_slot] * 2.0
        snap.frame[snap_slot] = snap_seq
        f[snap_slot] = snap_seq

    prog.loop(emit)
    f.set(np.arange(16, dtype=np.float32))
    prog.run(2, mode=mode)
    for k in range(2):
        with snap.wait(5) as frame:
            np.testing.assert_array_equal(frame.data, np.arange(16) * 2.0 ** (k + 1))
    prog.free()


@pytest.mark.parametrize("mode", MODES)
def test_memsock_block_policy_loses_nothing(ctx, mode):
    prog, snap = wave(ctx, 8, period=1, capacity=2, policy="block")

    async def main():
        got = []
        async with prog.session(mode=mode, steps=30) as run:
            assert run.memsock("snap") is snap
            with pytest.raises(KeyError, match="no memsock 'snp'; memsocks: 'snap'"):
                run.memsock("snp")
            async for frame in run.memsock("snap"):     # MemSock.__aiter__
                with frame:
                    assert int(frame.payload["step"]) == frame.seq
                    np.testing.assert_array_equal(frame.data, wave_expected(8, frame.seq))
                    got.append(frame.seq)
                await trio.sleep(0.001)            # a slow reader
                if len(got) == 30:
                    break
        return got

    assert trio.run(main) == list(range(30))
    assert snap.dropped == 0
    with pytest.raises(vkp.DeviceTimeout, match="memsock 'snap' is full .policy 'block'"):
        prog.run(5, mode=mode, timeout=0.3)     # nobody reads: a clear error, no hang
    prog.free()


def test_memsock_mistakes(ctx):
    prog = vkp.Program(ctx, name="socks")
    a = prog.array("a", (4,), np.float32)
    s = prog.memsock("s", np.float32, 4)

    @prog.stage(domain=4)
    def one(i):
        s.frame[i] = a[i]

    @prog.stage(domain=4)
    def two(i):
        s.frame[i] = 2.0 * a[i]

    prog.loop(one, two)
    with pytest.raises(vkp.VkPersistError, match="memsock 's' is written by one, two"):
        prog.run(1)
    with pytest.raises(vkp.VkPersistError, match="belongs to program 'socks'"):
        s._bind()
    prog.free()


@pytest.mark.parametrize("mode", MODES)
def test_memsock_handlers_see_every_frame(ctx, mode):
    prog, snap = wave(ctx, 8, period=3, capacity=8, policy="block")
    seen = []

    @snap.on("frame")
    def record(frame):
        np.testing.assert_array_equal(frame.data, wave_expected(8, frame.seq * 3))
        seen.append(int(frame.payload["step"]))

    @snap.on("message")                 # the same event; async handlers are awaited
    async def pause_a_little(frame):
        await trio.sleep(0)

    async def main():
        async with prog.session(mode=mode, steps=60) as run:
            await run.wait()

    trio.run(main)
    assert seen == list(range(0, 60, 3))
    with pytest.raises(ValueError, match="no event 'frames'; events: 'frame', 'message'"):
        snap.on("frames")
    prog.free()


def test_handler_error_stops_the_program(ctx):
    prog, snap = wave(ctx, 8, period=1, capacity=4)

    @snap.on("frame")
    def fail(frame):
        if frame.seq == 5:
            raise RuntimeError("plot window closed")

    async def main():
        async with prog.session(mode="persistent") as run:
            await trio.sleep(30)           # the handler's error ends this early
            assert run.steps_done < 0

    with pytest.raises(RuntimeError, match="plot window closed"):
        trio.run(main)
    assert not prog._runner.running and not prog._session.running
    steps = int(prog.step)
    assert steps >= 6
    prog.run(2)                            # and the program is usable again
    assert int(prog.step) == steps + 2
    prog.free()


@pytest.mark.parametrize("mode", MODES)
def test_when_condition_on_device_data(ctx, mode):
    prog, fired = threshold(ctx, 5)
    prog.run(10, mode=mode)                 # step s starts with x == s: fires on 5..9
    assert fired.numpy()[0] == 5
    prog.ctl["limit"] = 100
    prog.run(5, mode=mode)
    assert fired.numpy()[0] == 5
    assert "when_reached" in prog.glsl(mode)
    prog.free()


def test_when_mistakes(ctx):
    with pytest.raises(TypeError, match="must take no parameters"):
        vkp.when(lambda i: i > 0, None)
    prog = vkp.Program(ctx, name="bad_when")
    a = prog.array("a", (1,), np.float32)

    @vkp.func
    def not_bool():
        return a[0] + 1.0

    @prog.stage(domain=1)
    def s(i):
        a[0] = 1.0

    prog.loop(vkp.when(not_bool, s))
    with pytest.raises(vkp.CompileError, match="condition not_bool must return a bool"):
        prog.run(1)
    prog.free()


def test_session_misuse_is_refused(ctx):
    prog, A, _ = jacobi(ctx, 8)
    other = vkp.Program(ctx, name="other")
    stranger = _stage(other, other.array("b", (4,)))
    with pytest.raises(ValueError, match="belongs to program 'other'"):
        prog.loop(stranger)

    async def main():
        async with prog.session(mode="persistent") as run:
            while run.steps_done < 2:
                await trio.sleep(0.001)
            with pytest.raises(vkp.VkPersistError, match="cannot read array .A. while the program runs; pause"):
                A.numpy()
            with pytest.raises(vkp.VkPersistError, match="runs in a session"):
                prog.run(1)
            await run.pause()
            A.numpy()                        # fine while paused
            await run.stop()

    trio.run(main)
    with pytest.raises(ValueError, match="steps must be a non-negative int"):
        prog.run(-1)
    with pytest.raises(ValueError, match="groups must be a positive int"):
        prog.run(1, mode="persistent", groups=0)
    with pytest.raises(ValueError, match=r"groups=4,294,967,297 is more workgroups than .* "
                       r"dispatches at once \(\d[\d,]*, maxComputeWorkGroupCount\[0\]\)"):
        prog.run(1, mode="persistent", groups=2**32 + 1)    # not truncated to 1 (held calls)
    prog.free()
    other.free()


@pytest.mark.parametrize("mode", MODES)
def test_step_count_from_a_control(ctx, mode):
    prog, ticks = counted(ctx, 30)
    assert prog.run(mode=mode).steps == 30 and ticks.numpy()[0] == 30
    assert prog.run(mode=mode).steps == 0           # already there
    prog.ctl["total"] = 50
    assert prog.run(5, mode=mode).steps == 5          # a count still caps the run
    assert prog.run(mode=mode).steps == 15 and int(prog.step) == 50

    async def main():                                  # extended while it runs
        async with prog.session(mode=mode) as run:
            ack = await run.send(total=80)
            await run.wait()
        return ack

    trio.run(main)
    assert int(prog.step) == 80 and ticks.numpy()[0] == 80
    prog.free()


def test_step_count_mistakes(ctx):
    prog, _, _ = jacobi(ctx, 4)
    with pytest.raises(ValueError, match=r"loop\(steps=...\): no control field 'total'"):
        prog.loop(prog.stages["sweep_ab"], steps="total")
    with pytest.raises(ValueError, match="needs a step count, unless"):
        prog.run()
    prog.free()


def test_everything_together_is_identical_in_both_modes(ctx):
    results = {}
    for mode in MODES:
        prog, f, hits, snap = combo(ctx)
        frames = []

        async def main():
            async with prog.session(mode=mode) as run:
                ack = await run.send(gain=0.25)      # queued before the first step
                async for frame in snap.frames(timeout=10):
                    with frame:
                        frames.append((frame.seq, int(frame.payload["step"]),
                                       float(frame.payload["g"]), frame.copy()))
                    if len(frames) == 14:
                        break
                await run.wait()
            return ack

        ack = trio.run(main)
        assert ack.step == 0 and int(prog.step) == 40            # loop(steps="total")
        assert [fr[1] for fr in frames] == list(range(0, 40, 3))  # every("period")
        assert all(fr[2] == 0.25 for fr in frames)
        results[mode] = (f.numpy(), hits.numpy(), frames)
        prog.free()
    (fa, ha, fra), (fb, hb, frb) = results["persistent"], results["launch"]
    assert np.array_equal(fa, fb) and np.array_equal(ha, hb)
    assert ha[0] == 20 and ha[1] == 38                  # 20 items pushed (even steps), max 38
    assert all(np.array_equal(x[3], y[3]) for x, y in zip(fra, frb))


def test_host_arrays_in_stages_are_explained(ctx):
    prog = vkp.Program(ctx, name="host_arrays")
    a = prog.array("a", (4,), np.float32)
    host = np.ones(4, np.float32)

    @prog.stage(domain=4)
    def reads_host(i):
        a[i] = host[i]

    prog.loop(reads_host)
    with pytest.raises(vkp.CompileError, match="'host' is an array the program does not hold"):
        prog.run(1)
    prog.free()


def test_control_fields_on_the_host_are_handles(ctx):
    """`ctl.period` is the field (live in every() and loop(steps=)); `ctl["period"]` is its
    value now, which every() refuses rather than freezing it silently."""
    prog, counts, _ = counters(ctx, every_ctl=3)
    ctl = prog.ctl
    assert repr(ctl.period) == "<vkpersist.ControlField 'period'>"
    with pytest.raises(TypeError, match=r"its value now is ctl\['period'\]"):
        int(ctl.period)
    with pytest.raises(TypeError, match=r"its value now is ctl\['period'\]"):
        ctl.period + 1
    with pytest.raises(AttributeError, match=r"no attribute or control field 'perod' \(fields: period\)"):
        ctl.perod
    with pytest.raises(TypeError, match=r"pass the field itself, ctl.name"):
        vkp.every(ctl["period"], prog.stages["second"])
    other = vkp.Program(ctx, name="other")
    foreign = other.controls(period=vkp.u32(2))
    with pytest.raises(ValueError, match="belongs to another ControlBuffer"):
        prog.loop(vkp.every(foreign.period, prog.stages["second"]))
    with pytest.raises(ValueError, match="belongs to another ControlBuffer"):
        prog.loop(prog.stages["each"], steps=foreign.period)
    prog.run(6)
    assert counts.numpy().tolist() == [6, 3, 2]         # by_control on steps 0 and 3
    prog.free()
    other.free()


def test_a_program_runs_one_run_at_a_time_across_threads(ctx):
    """Issue 53: two threads' runs of one Program raised internal errors or both went
    ahead, and prog.step stayed behind the device for good. Now the second is refused
    by name, the first runs whole, and reads from the other thread wait their turn."""
    import threading
    from checkpoint_programs import heat
    prog = heat(ctx, n=64)
    prog.run(1, mode="launch")
    started, results = threading.Event(), {}

    def run(name):
        started.set()
        try:
            prog.run(200, mode="launch")
            results[name] = "ran"
        except vkp.VkPersistError as exc:
            results[name] = str(exc)

    first = threading.Thread(target=run, args=("first",))
    first.start()
    started.wait(10)
    run("second")                  # while the first is (very likely) running
    first.join(60)
    outcomes = sorted(results.values())
    ran = outcomes.count("ran")
    assert int(prog.step) == 1 + 200 * ran        # never drifts
    if ran == 1:                                   # the usual case: they overlapped
        assert "cannot run: it is busy with a run started by another thread" in outcomes[0]
    for _ in range(3):                             # and it runs on normally afterwards
        prog.run(10, mode="launch")
    assert int(prog.step) == 1 + 200 * ran + 30


@vkp.kernel
def _busy_sines(x, rounds):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        v = x[i]
        for _ in range(rounds):
            v = vkp.sin(v) + 1.0
        x[i] = v


def test_a_persistent_timeout_says_how_far_the_start_got(ctx):
    """A persistent epoch's timeout says whether its workgroups finished starting
    (occupancy discovery) and how many took part: issue 53's start that never passed step
    0 showed only the heartbeat. Here the epoch waits behind a busy kernel, so it has not
    started when the timeout comes; then it runs."""
    prog, A, init = jacobi(ctx, 8)
    prog.run(1, mode="persistent")                   # built and warm
    n, rounds = (1 << 19, 200) if ctx.info.is_lavapipe else (1 << 24, 4000)
    _busy_sines.forall(n)(ctx.zeros(n), rounds)      # ~0.3 s on a 2-core lavapipe
    with pytest.raises(vkp.DeviceTimeout, match=r"heartbeat stays at step 1, mode "
                       r"'persistent'; its workgroups never finished starting: occupancy "
                       r"discovery did not close, \d+ workgroups of \d+ were dispatched"):
        prog.run(1, mode="persistent", timeout=0.01)
    ctx.synchronize()
    assert prog.run(1, mode="persistent").steps == 1
    prog.free()
