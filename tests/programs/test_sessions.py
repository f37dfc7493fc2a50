"""Sessions as users meet them (issue 16): a slow or blocking session body never stalls the
device, memsock policies decide what a slow consumer costs, errors on either side end the
session cleanly, rendering off the event loop, progress numbers, occupancy reports.

The mechanism is checked, not a speed ratio (benchmarks/probes/slow_consumer.py measures that):
the driver completes epochs while the body blocks the event loop."""
import dataclasses
import os
import pathlib
import sys
import time

import numpy as np
import pytest
import trio

import vkpersist as vkp
from vkpersist.scheduler import _progress, _runner
from vkpersist import OccupancyWarning
from programs_lib import jacobi, jacobi_reference, wave, wave_expected

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from examples import grayscott                        # noqa: E402

MODES = ["persistent", "launch"]


@pytest.mark.parametrize("mode", MODES)
def test_the_device_runs_while_the_body_blocks_the_event_loop(ctx, mode):
    """The body calls time.sleep (what a synchronous plot does): the driver, a thread of
    its own, goes on launching epochs. With the driver in the event loop no epoch was
    completed during the block."""
    prog, A, init = jacobi(ctx, 8)

    async def main():
        async with prog.session(mode=mode) as run:
            while prog._runner.epochs < 2:
                await trio.sleep(0.01)
            epochs, steps = prog._runner.epochs, run.steps_done
            time.sleep(2.0)                       # blocks the loop; no await
            assert prog._runner.epochs - epochs >= 2
            assert run.steps_done > steps
            return await run.stop()

    stopped = trio.run(main)
    np.testing.assert_allclose(A.numpy(), jacobi_reference(init, stopped), rtol=1e-4,
                               atol=1e-6)
    prog.free()


def _grayscott_session(ctx, mode, n, steps, every, change_after, first_sleep, sleep):
    """A Gray-Scott session whose consumer sleeps on every frame (blocking the loop) and
    switches F, k once; returns (frames, ack, steps done after the first sleep, final
    U, V)."""
    prog, arrays, sock = grayscott.build(ctx, n, every=every, capacity=4, policy="block")
    frames = []

    async def main():
        ack = after_first = None
        async with prog.session(steps=steps, mode=mode) as run:
            async for frame in run.memsock("v"):
                with frame:
                    frames.append((frame.seq, int(frame.payload["step"]),
                                   float(frame.payload["F"]), frame.copy()))
                time.sleep(first_sleep if len(frames) == 1 else sleep)
                if after_first is None:
                    after_first = run.steps_done
                if ack is None and frames[-1][1] >= change_after:
                    ack = await run.send(F=grayscott.CORAL[0], k=grayscott.CORAL[1])
                if frames[-1][1] + every >= steps:
                    break
            await run.wait()
        return ack, after_first

    ack, after_first = trio.run(main)
    assert sock.dropped == 0
    u, v = grayscott.state(prog, arrays)
    prog.free()
    return frames, ack, after_first, u, v


def _grayscott_replay(ctx, mode, n, steps, ack_step):
    """The same program run with prog.run, F and k switched before step ack_step."""
    prog, arrays, sock = grayscott.build(ctx, n, every=10**6)
    prog.run(ack_step, mode=mode)
    prog.ctl["F"], prog.ctl["k"] = grayscott.CORAL
    prog.run(steps - ack_step, mode=mode)
    u, v = grayscott.state(prog, arrays)
    prog.free()
    return u, v


def test_grayscott_with_a_slow_consumer_in_both_modes(ctx):
    """Frames in order, none lost ("block"), the command acknowledged with the step it
    took effect at, results against NumPy, and each mode bit for bit against the other
    (replayed with the same command step). The consumer sleeps 2 s on the first frame,
    blocking the loop: meanwhile the device runs on until the ring of 4 is full (frames
    at steps 20-80), before step 100."""
    n, steps, every = 48, 240, 20
    u0, v0 = grayscott.initial_state(n)
    for mode, other in (("persistent", "launch"), ("launch", "persistent")):
        frames, ack, after_first, u, v = _grayscott_session(ctx, mode, n, steps, every,
                                                          change_after=100,
                                                          first_sleep=2.0, sleep=0.05)
        assert [f[0] for f in frames] == list(range(steps // every))
        assert [f[1] for f in frames] == list(range(0, steps, every))
        assert after_first == 5 * every, (mode, after_first)
        assert 100 < ack.step <= steps
        assert all((f[2] == np.float32(grayscott.CORAL[0])) == (f[1] >= ack.step)
                   for f in frames), [(f[1], f[2]) for f in frames]
        ref_u, ref_v = grayscott.reference(u0, v0, ack.step)
        ref_u, ref_v = grayscott.reference(ref_u, ref_v, steps - ack.step, grayscott.CORAL)
        np.testing.assert_allclose(u, ref_u, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(v, ref_v, rtol=1e-4, atol=1e-5)
        rep_u, rep_v = _grayscott_replay(ctx, other, n, steps, ack.step)
        assert np.array_equal(u, rep_u) and np.array_equal(v, rep_v), mode
        _, ref_v40 = grayscott.reference(u0, v0, 41)        # V after step 40
        np.testing.assert_allclose(frames[2][3], ref_v40, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_drop_policy_counts_what_a_slow_consumer_misses(ctx, mode):
    """With "drop" the device never waits for the reader: every step runs, and every frame
    is either received, in order and intact, or counted as dropped."""
    prog, snap = wave(ctx, 8, period=1, capacity=2, policy="drop")
    steps = 200
    got = []

    async def main():
        async with prog.session(mode=mode, steps=steps) as run:
            while not run.finished:
                frame = snap.poll()
                if frame is None:
                    await trio.sleep(0.001)
                    continue
                with frame:
                    step = int(frame.payload["step"])
                    np.testing.assert_array_equal(frame.data, wave_expected(8, step))
                    got.append(step)
                time.sleep(0.02)                     # slow, and blocking the loop
        while (frame := snap.poll()) is not None:    # what was published at the end
            with frame:
                got.append(int(frame.payload["step"]))

    trio.run(main)
    assert int(prog.step) == steps
    assert got == sorted(got) and len(set(got)) == len(got)
    assert len(got) + snap.dropped == steps and snap.dropped > 0
    prog.free()


def test_a_body_error_ends_a_session_waiting_for_a_reader(ctx):
    """The driver waits for a reader of a full "block" memsock (up to the timeout, here a
    minute); an error of the body ends that wait at once, and the program is usable."""
    prog, snap = wave(ctx, 8, period=1, capacity=2, policy="block")

    async def main():
        async with prog.session(mode="persistent", timeout=60) as run:
            while run.steps_done < 2:
                await trio.sleep(0.01)
            await trio.sleep(0.2)
            raise ValueError("plot window closed")

    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="plot window closed"):
        trio.run(main)
    assert time.perf_counter() - t0 < 20
    assert not prog._runner.running and prog._session.finished
    assert int(prog.step) == 2                     # the ring held 2 frames
    while (frame := snap.poll()) is not None:
        frame.release()
    assert prog.run(2, mode="persistent").steps == 2       # 2 more frames fill the ring
    prog.free()


def test_nobody_reading_a_block_memsock_times_out_cleanly(ctx):
    prog, snap = wave(ctx, 8, period=1, capacity=2, policy="block")

    async def main():
        async with prog.session(mode="launch", timeout=0.5) as run:
            await trio.sleep(30)              # the driver's DeviceTimeout ends this early
            assert run.steps_done < 0

    with pytest.raises(vkp.DeviceTimeout, match="memsock 'snap' is full .policy 'block'"):
        trio.run(main)
    assert prog._session.finished and int(prog.step) == 2
    prog.free()


def test_pause_while_blocked_on_a_reader_parks(ctx):
    """Pausing a session whose "block" memsock is full parks the program (no timeout
    while nobody reads); it returns the steps done; frames go on after resume."""
    prog, snap = wave(ctx, 8, period=1, capacity=2, policy="block")

    async def main():
        async with prog.session(mode="persistent", steps=6, timeout=0.5) as run:
            while run.steps_done < 2:
                await trio.sleep(0.01)
            paused = await run.pause()
            assert paused == 2 == run.steps_done
            await trio.sleep(1.0)             # longer than the timeout: parked, not waiting
            await run.resume()
            got = []
            async for frame in run.memsock("snap"):
                with frame:
                    got.append(frame.seq)
                if len(got) == 6:
                    break
            await run.wait()
        return got

    assert trio.run(main) == list(range(6))
    prog.free()


def test_render_in_thread(tmp_path):
    """Figures render in a worker thread, while other trio tasks run; PNG files or pixels."""
    def draw(fig, data, title, delay=0.0):
        ax = fig.add_subplot()
        ax.imshow(data)
        ax.set_title(title)
        time.sleep(delay)                    # a slow render: the loop stays free

    data = np.random.default_rng(0).random((16, 16))

    async def main():
        ticks = 0

        async def tick():
            nonlocal ticks
            while True:
                await trio.sleep(0.01)
                ticks += 1

        async with trio.open_nursery() as nursery:
            nursery.start_soon(tick)
            pixels = await vkp.render_in_thread(draw, data, "pixels", figsize=(3, 2), dpi=50,
                                                delay=0.5)
            path = await vkp.render_in_thread(draw, data, "file", path=tmp_path / "f.png")
            nursery.cancel_scope.cancel()
        return pixels, path, ticks

    pixels, path, ticks = trio.run(main)
    assert pixels.shape == (100, 150, 4) and pixels.dtype == np.uint8
    assert pixels[..., :3].std() > 0                  # something was drawn
    assert ticks >= 10                                # the loop ran during the render
    assert pathlib.Path(path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(TypeError, match="draw must be a function of a matplotlib Figure"):
        trio.run(vkp.render_in_thread, "draw")


def test_run_progress_bar(ctx, capsys, monkeypatch):
    prog, _, _ = jacobi(ctx, 4)
    prog.run(5, progress=False)
    prog.run(5)                              # stderr is not a terminal under pytest
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(_progress, "BAR_DELAY_S", 0.0)
    prog.run(20, progress=True)
    err = capsys.readouterr().err
    assert "20/20" in err and "step/s" in err and prog.name in err
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        prog.run(1, progress="yes")
    prog.free()


def test_session_progress(ctx):
    prog, _, _ = jacobi(ctx, 8)

    async def main():
        async with prog.session(mode="launch", steps=400) as run:
            first = run.progress
            while run.steps_done < 100:
                await trio.sleep(0.01)
            mid = run.progress
            await run.wait()
            return first, mid, run.progress

    first, mid, last = trio.run(main)
    assert first.total == 400 and first.steps < 100
    assert mid.steps >= 100 and mid.steps_per_second > 0 and mid.eta is not None
    assert last.steps == 400 and last.eta == 0.0
    assert "400/400 steps" in str(last) and "steps/s" in str(last)
    prog.free()


def test_occupancy_is_reported(ctx, monkeypatch):
    """On a device that runs a known number of workgroups at once (lavapipe), asking for
    more is explained, and epochs that ran on fewer are reported, not silent (from a
    second of them on; here from any). The device is made to look wider than it is, so
    the short epochs are certain."""
    if ctx.target.workgroups_at_once is None:
        pytest.skip("only CPU devices run a known number of workgroups at once")
    threads = ctx.target.workgroups_at_once
    prog, A, init = jacobi(ctx, 8)
    with pytest.warns(OccupancyWarning, match=rf"groups={threads + 2}, but .* runs "
                                              rf"{threads} workgroup"):
        prog.run(2, mode="persistent", groups=threads + 2)
    prog.free()
    real = ctx.target
    monkeypatch.setattr(_runner, "SHORT_EPOCHS_REPORTED_S", 0.0)
    ctx.target = dataclasses.replace(real, workgroups_at_once=threads + 64)
    try:
        prog, A, init = jacobi(ctx, 8)
        with pytest.warns(OccupancyWarning, match=rf"in \d+ of \d+ epochs fewer than the "
                                                  rf"{threads + 64} workgroups"):
            prog.run(3, mode="persistent")
        np.testing.assert_allclose(A.numpy(), jacobi_reference(init, 3), rtol=1e-5,
                                   atol=1e-6)
    finally:
        ctx.target = real
    prog.free()


def test_grayscott_example_writes_pngs(tmp_path):
    """The example as a user runs it, small: PNGs of V, the regime switched halfway."""
    import subprocess
    run = subprocess.run([sys.executable, "-m", "examples.grayscott", "--size", "48",
                          "--steps", "400", "--every", "50", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=300,
                         cwd=pathlib.Path(__file__).resolve().parents[2],
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(
                             [str(pathlib.Path(__file__).resolve().parents[2])]
                             + os.environ.get("PYTHONPATH", "").split(os.pathsep))})
    assert run.returncode == 0, run.stderr
    pngs = sorted(tmp_path.glob("v_*.png"))
    assert [p.name for p in pngs] == [f"v_{s:07d}.png" for s in range(0, 400, 50)]
    assert "switched to coral before step" in run.stdout


def test_a_cancelled_session_stops_the_device(ctx):
    """Cancelling the scope around a session (a deadline of the caller) stops the program
    at a step boundary, the driver thread ends, and the program is usable again."""
    prog, A, init = jacobi(ctx, 8)

    async def main():
        with trio.move_on_after(0.5) as scope:
            async with prog.session(mode="persistent") as run:
                await trio.sleep(30)
        assert scope.cancelled_caught and run.finished and not run.running

    trio.run(main)
    done = int(prog.step)
    assert not prog._runner.running              # (steps done: whatever 0.5 s allowed)
    assert prog.run(3, mode="launch").steps == 3
    np.testing.assert_allclose(A.numpy(), jacobi_reference(init, done + 3), rtol=1e-4,
                               atol=1e-6)
    prog.free()


def test_a_paused_session_reports_no_speed(ctx, monkeypatch):
    monkeypatch.setattr(_progress, "WINDOW_S", 0.3)
    prog, _, _ = jacobi(ctx, 8)

    async def main():
        async with prog.session(mode="launch") as run:
            while run.steps_done < 50:
                await trio.sleep(0.01)
            await run.pause()
            await trio.sleep(0.5)
            paused = run.progress
            await run.stop()
            return paused

    paused = trio.run(main)
    assert paused.steps_per_second == 0.0 and paused.total is None and paused.eta is None
    prog.free()
