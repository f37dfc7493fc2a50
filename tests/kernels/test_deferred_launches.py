"""Kernel launches made while the device is busy wait and go out together in one
submission (vk/deferral.py): in order with everything else, never left unsubmitted, and
submitted at once when the device is idle."""
import threading
import time

import numpy as np
import pytest

import vkpersist as vkp
from vkpersist.vk import _api, deferral

N = 1 << 18
SLOW_FLUSH_S = 2.0     # the flusher's timed wait in these tests (see `warm`): under the 5 s
                       # within which closing must end the flusher


@vkp.kernel
def slow_copy(src, dst, rounds, one):
    """dst = src after `rounds` multiply-adds (`one` is 1.0, unknown to the compiler, so
    the loop stays): keeps the device busy a while."""
    i = vkp.global_id(0)
    if i < src.shape[0]:
        v = src[i]
        for _ in range(rounds):
            v = v * one + (one - 1.0)
        dst[i] = v


@vkp.kernel
def step(x, k):
    """x[0] = 3 x[0] + k (mod 2**31): the result depends on the order of the steps."""
    x[0] = (x[0] * 3 + k) % 2147483647


def _expected(ks, start=1):
    v = start
    for k in ks:
        v = (v * 3 + k) % 2147483647
    return v


@vkp.kernel
def gate(ctrl: vkp.Controls, limit: vkp.u32):
    """Runs until the host sets ctrl.open (or `limit` polls: a test that dies leaves no
    kernel running for long)."""
    n = 0
    while ctrl.open == 0 and n < limit:
        n += 1


_GATES = []          # gates of the running test, opened at its end whatever happens


def _busy(ctx):
    """Keep the device busy until `_release()`, whatever the speed of the device and of
    the host (on an H100 under 8 test workers, fixed work finished before the host made
    its next launch): where loops may run long (GPUs), a kernel that waits for a control
    word; it binds a ControlBuffer, so it is submitted at once. Under lavapipe's loop
    guard, whose loops stop after ~65,000 iterations, work that keeps its CPU threads busy
    for tens of milliseconds instead (there the device slows down with the host)."""
    if ctx.target.loop_guard:
        slow_copy.forall(N)(ctx.zeros(N), ctx.empty(N), 2000, 1.0)
        return
    ctrl = vkp.ControlBuffer(ctx, open=vkp.u32)
    _GATES.append(ctrl)
    gate[1, 1](ctrl, 1 << 24)


def _release():
    """Let the device go idle: the gates open (a control word, no vkpersist call that
    would submit deferred launches itself). A closed Context's gate went with it (closing
    waited for its work, and the test had opened the gate before)."""
    for ctrl in _GATES:
        if not ctrl.ctx.closed:
            ctrl["open"] = 1


@pytest.fixture(autouse=True)
def _gates_open_at_the_end():
    yield
    _release()
    while _GATES:
        ctrl = _GATES.pop()
        if not ctrl.ctx.closed:
            ctrl.ctx.synchronize()
            ctrl.free()


@pytest.fixture
def warm(ctx, monkeypatch):
    """Both kernels compiled and the device idle. The flusher submits deferred launches
    when the device goes idle or 32 wait, and only seconds later otherwise: what each test
    counts must not depend on how fast the host makes its launches (a host slowed by 8
    test workers took over _DEFER_WAIT_S between two launches)."""
    monkeypatch.setattr(deferral, "_DEFER_WAIT_S", SLOW_FLUSH_S)
    x = ctx.asarray(np.ones(2, np.int64))
    step[1, 1](x, 0)
    slow_copy.forall(N)(ctx.zeros(N), ctx.empty(N), 1, 1.0)
    ctx.synchronize()
    return x


def test_a_launch_on_an_idle_device_is_submitted_at_once(ctx, warm):
    core = ctx._core
    step[1, 1](warm, 5)
    assert not core.deferred and (core.inflight or core.open_keeps)
    ctx.synchronize()
    assert warm.numpy()[0] == _expected([0, 5])


@pytest.fixture
def submissions(monkeypatch):
    """The number of launches in each submission of deferred ones, as they are made."""
    counts = []
    real = deferral.raw_submit

    def counted(queue, many, fence):
        counts.append(int(many.info.commandBufferCount))
        return real(queue, many, fence)
    monkeypatch.setattr(deferral, "raw_submit", counted)
    return counts


def test_launches_made_while_busy_wait_and_run_in_order(ctx, warm, submissions):
    core = ctx._core
    _busy(ctx)
    ks = list(range(1, 101))
    for k in ks:
        step[1, 1](warm, k)
    _release()
    ctx.synchronize()
    assert warm.numpy()[0] == _expected([0] + ks)
    assert sum(submissions) == 100          # every launch went out deferred...
    assert max(submissions) == deferral._DEFER_MAX    # ...in submissions of up to 32
    assert not core.deferred


def test_deferred_launches_run_without_any_later_call(ctx, warm):
    """The flusher thread submits them: nothing the host calls afterwards is needed."""
    core = ctx._core
    _busy(ctx)
    step[1, 1](warm, 7)
    assert core.deferred, "the device should still be busy with the slow kernel"
    _release()
    deadline = time.monotonic() + 30
    while core.deferred and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not core.deferred
    fence = core.inflight[-1][0]              # waited on raw: no vkpersist call flushes
    while not _api.raw_fence_signaled(core.device, fence) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _api.raw_fence_signaled(core.device, fence)
    assert warm.numpy()[0] == _expected([0, 7])


def test_writes_and_reads_keep_their_place_behind_deferred_launches(ctx, warm):
    _busy(ctx)
    step[1, 1](warm, 2)                       # deferred
    warm[1:] = 40                             # a queued write: the launch goes first
    step[1, 1](warm, 3)
    _release()
    assert warm.numpy().tolist() == [_expected([0, 2, 3]), 40]
    _busy(ctx)
    step[1, 1](warm, 4)
    with ctx.batched():                       # a batched block goes after it...
        assert not ctx._core.deferred         # ...and does not hold it back till its end
        step[1, 1](warm, 5)
        step[1, 1](warm, 6)
    _release()
    assert warm.numpy()[0] == _expected([0, 2, 3, 4, 5, 6])


def test_a_failed_background_submission_is_raised_at_the_next_wait(ctx, warm, monkeypatch):
    core = ctx._core

    def refused(queue, many, fence):
        raise vkp.VkPersistError("vkQueueSubmit failed with VkResult -13")
    _busy(ctx)
    monkeypatch.setattr(deferral, "raw_submit", refused)
    step[1, 1](warm, 9)
    _release()
    deadline = time.monotonic() + 30
    while core.flusher_error is None and time.monotonic() < deadline:
        time.sleep(0.01)
    monkeypatch.undo()
    with pytest.raises(vkp.VkPersistError, match="background submission of deferred kernel "
                       "launches failed, and those launches did not run: vkQueueSubmit"):
        ctx.synchronize()
    ctx.synchronize()                          # reported once; the context works on
    step[1, 1](warm, 1)
    assert warm.numpy()[0] == _expected([0, 1])


def test_a_launch_that_raises_does_not_run_later(ctx, warm, monkeypatch):
    """A launch whose flush fails (here a timeout waiting for room; Ctrl-C alike) raises
    and is dropped; the launches deferred before it still run, in order."""
    core = ctx._core
    _busy(ctx)
    for k in range(1, 32):
        step[1, 1](warm, k)
    assert len(core.deferred) == 31
    real = core.make_room

    def no_room():
        monkeypatch.setattr(core, "make_room", real)
        raise vkp.DeviceTimeout("waiting for a queued launch: timed out")
    monkeypatch.setattr(core, "make_room", no_room)
    with pytest.raises(vkp.DeviceTimeout):
        step[1, 1](warm, 32)                  # the 32nd: flushes, and fails
    assert len(core.deferred) == 31
    step[1, 1](warm, 33)
    _release()
    ctx.synchronize()
    assert warm.numpy()[0] == _expected([0, *range(1, 32), 33])


def test_threads_launching_together_lose_nothing(ctx, warm):
    arrays = [ctx.asarray(np.ones(2, np.int64)) for _ in range(4)]
    ks = list(range(1, 61))

    def worker(x):
        for k in ks:
            step[1, 1](x, k)
    _busy(ctx)
    threads = [threading.Thread(target=worker, args=(x,)) for x in arrays]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    _release()
    ctx.synchronize()
    assert [int(x.numpy()[0]) for x in arrays] == [_expected(ks)] * 4


def test_closing_submits_deferred_launches_and_ends_the_flusher(device_info, submissions,
                                                               monkeypatch):
    monkeypatch.setattr(deferral, "_DEFER_WAIT_S", SLOW_FLUSH_S)     # as in `warm`
    ctx = vkp.Context(device_info.index)
    core = ctx._core
    x = ctx.asarray(np.ones(2, np.int64))
    step[1, 1](x, 0)                          # compiled for this context before it is busy
    slow_copy.forall(N)(ctx.zeros(N), ctx.empty(N), 1, 1.0)
    ctx.synchronize()
    submissions.clear()
    _busy(ctx)
    for k in range(5):
        step[1, 1](x, k)
    flusher = core.flusher
    assert flusher is not None and core.deferred
    _release()
    ctx.close()
    assert sum(submissions) == 5 and not core.deferred and not core.inflight
    flusher.join(5)
    assert not flusher.is_alive()


def test_a_device_lost_while_launches_wait_is_reported_once_then_refused(tmp_path):
    """The fence query a launch makes to see whether the device is idle reports the loss
    (injected: lavapipe cannot lose its device); run in a child process, as every loss is
    (test_reliability_waits.py)."""
    from test_reliability_waits import _no_crash, _run
    run = _run(tmp_path, '''
        from vkpersist.vk import _api

        @vkp.kernel
        def add_one(x):
            x[0] += 1.0

        ctx = vkp.Context(timeout=30)
        x = ctx.zeros(4)
        add_one[1, 1](x)
        ctx.synchronize()
        a = busy(ctx, 0.5)                   # work in flight: the next launch asks the fence
        ctx._core.idle()                     # a fence behind all of it (not yet signalled)
        _api.inject_device_lost()
        for attempt in ("first", "second"):
            try:
                add_one[1, 1](x)
                print(attempt, "accepted")
            except vkp.DeviceLost as exc:
                print(attempt, "lost:", exc)
    ''')
    _no_crash(run)
    first, second = run.stdout.splitlines()
    name = first.split("lost: ", 1)[1].split(": ", 1)[0]
    assert first.startswith("first lost: ") and first.count(name + ":") == 1, run.stdout
    assert "vkGetFenceStatus [injected by inject_device_lost()]: the device was lost" in first
    assert second.startswith("second lost: ") and "refuses further use" in second
