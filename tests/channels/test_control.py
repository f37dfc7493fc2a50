"""ControlBuffer: layout, host access, kernel access, and steering a running kernel."""
import time

import numpy as np
import pytest

import vkpersist as vkp
from vkpersist.vk.memory import DEVICE_LOCAL


@pytest.fixture
def ctrl(ctx):
    c = vkp.ControlBuffer(ctx, stop=vkp.u32, freq=vkp.f32(1.5), offset=vkp.i32(-3),
                          gains=np.arange(4, dtype=np.float32),
                          status={"iterations": vkp.u32, "started": vkp.u32, "seen": vkp.f32})
    yield c
    c.free()


def test_layout_separates_host_and_gpu_words(ctrl):
    host = [f for f in ctrl.type.fields if f.side == "host"]
    gpu = [f for f in ctrl.type.fields if f.side == "gpu"]
    assert max(f.word + max(f.count, 1) for f in host) <= min(f.word for f in gpu)
    assert min(f.word for f in gpu) % 16 == 0          # a new 64-byte line
    assert ctrl.buffer.nbytes % 64 == 0


def test_host_reads_and_writes_typed_fields(ctrl):
    assert ctrl["freq"] == np.float32(1.5) and ctrl["offset"] == -3 and ctrl["stop"] == 0
    np.testing.assert_array_equal(ctrl["gains"], [0, 1, 2, 3])
    ctrl["freq"] = 2.25
    ctrl["gains"] = [5, 6, 7, 8]
    assert ctrl["freq"] == np.float32(2.25)
    np.testing.assert_array_equal(ctrl["gains"], [5, 6, 7, 8])
    assert "freq: float32 (host)" in repr(ctrl) and "iterations: uint32 (gpu)" in repr(ctrl)


@pytest.mark.parametrize("action, error, match", [
    (lambda c: c["frq"], KeyError, "no control field 'frq'; fields: stop, freq, offset, gains"),
    (lambda c: c.__setitem__("stop", -1), TypeError,
     "'stop' \\(uint32\\): -1 is out of uint32's range 0..4294967295"),
    (lambda c: c.__setitem__("offset", 1.5), TypeError,
     "'offset' \\(int32\\) takes an integer, got 1.5"),
    (lambda c: c.__setitem__("gains", [1, 2]), ValueError, "holds 4 values, got shape \\(2,\\)"),
    (lambda c: c.__setitem__("gains", [1, 2, None, 4]), TypeError,
     "'gains'\\[2\\] \\(float32\\) takes a number, got None"),
])
def test_host_mistakes_are_explained(ctrl, action, error, match):
    with pytest.raises(error, match=match):
        action(ctrl)


@pytest.mark.parametrize("field, value, match", [
    ("freq", None, "'freq' \\(float32\\) takes a number, got None"),
    ("freq", "2.0", "'freq' \\(float32\\) takes a number, got '2.0'"),
    ("freq", True, "'freq' \\(float32\\) takes a number, not the bool True"),
    ("freq", 1e39, "'freq' \\(float32\\): 1e\\+39 is beyond float32's range .* stored as inf"),
    ("freq", -10**40, "beyond float32's range"),
    ("freq", 10**400, "beyond float32's range"),
    ("offset", 2**31, "'offset' \\(int32\\): 2147483648 is out of int32's range"),
    ("offset", float("nan"), "'offset' \\(int32\\) takes an integer, got nan"),
    ("offset", float("inf"), "takes an integer, got inf"),
    ("stop", np.int64(2**32), "'stop' \\(uint32\\): np.int64\\(4294967296\\) is out of uint32's"),
    ("stop", 1 + 0j, "takes a number"),
])
def test_values_a_field_cannot_hold_are_refused_and_nothing_is_stored(ctrl, field, value, match):
    before = ctrl[field]
    with pytest.raises(TypeError, match=match):
        ctrl[field] = value
    assert ctrl[field] == before or np.isnan(before) and np.isnan(ctrl[field])


@pytest.mark.parametrize("field, value, stored", [
    ("freq", 3.4028235e38, np.finfo(np.float32).max),  # the largest float32 itself
    ("freq", 7, np.float32(7.0)),
    ("freq", np.float64(0.1), np.float32(0.1)),
    ("offset", 2.0, np.int32(2)),                      # integral floats are integers
    ("offset", -2**31, np.int32(-2**31)),
    ("stop", True, np.uint32(1)),                      # flags are integer fields
    ("stop", np.uint64(2**32 - 1), np.uint32(2**32 - 1)),
])
def test_values_a_field_can_hold_are_stored_exactly(ctrl, field, value, stored):
    ctrl[field] = value
    assert ctrl[field] == stored and ctrl[field].dtype == np.asarray(stored).dtype


@pytest.mark.parametrize("value, match", [
    (float("nan"), "NaN is not a control value"),
    (float("inf"), "inf is not finite; a float control takes finite values unless its "
                   "declared range includes infinity"),
    (-np.inf, "-inf is not finite")])
def test_nan_and_infinities_are_refused_in_a_float_field(ctrl, value, match):
    """Issue 53: a NaN or inf frequency was acknowledged and ran the FDTD to NaN fields."""
    before = ctrl["freq"]
    with pytest.raises(ValueError, match=match):
        ctrl["freq"] = value
    with pytest.raises(ValueError, match=match):
        ctrl.send_nowait(freq=value)
    assert ctrl["freq"] == before


def test_declared_limits_are_checked_where_values_enter(ctx):
    import math
    c = vkp.ControlBuffer(ctx, freq=vkp.f32(2.0), every=vkp.u32(1), cap=vkp.f32(0.0),
                          limits={"freq": (1.0, None), "every": (1, 100),
                                  "cap": (0.0, math.inf)})
    for act in (lambda: c.__setitem__("freq", 0.5), lambda: c.send_nowait(freq=-1.0),
                lambda: c.exchange("freq", 0.0), lambda: c.add("freq", -5.0)):
        with pytest.raises(ValueError, match=r"'freq': .* is outside its declared range "
                                             r"\[1, inf\)"):
            act()
    assert c["freq"] == 2.0
    with pytest.raises(ValueError, match=r"'every': 101 is outside its declared range "
                                         r"\[1, 100\]"):
        c["every"] = 101
    c["cap"] = math.inf                        # the range names infinity: "no limit"
    assert c["cap"] == np.inf
    c["every"] = 100
    c.send_nowait(freq=1.0)
    with pytest.raises(ValueError, match="'freq': 0.0 is outside"):
        vkp.ControlBuffer(ctx, freq=vkp.f32(0.0), limits={"freq": (1.0, None)})


@pytest.mark.parametrize("limits, error, match", [
    ({"nope": (0, 1)}, ValueError, "'nope' is not a host field of these controls \(host "
                                   "fields: freq\)"),
    ({"freq": (2, 1)}, ValueError, "low is above high"),
    ({"freq": 3}, TypeError, "takes \(low, high\): numbers or None"),
    ({"freq": (float("nan"), 1)}, TypeError, "takes \(low, high\)"),
    ([("freq", (0, 1))], TypeError, "limits= takes a dict")])
def test_bad_limits_are_explained(ctx, limits, error, match):
    with pytest.raises(error, match=match):
        vkp.ControlBuffer(ctx, freq=vkp.f32(1.0), limits=limits)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(x=1.0), TypeError, "give a typed value"),
    (dict(x=vkp.f64(1.0)), TypeError, "int32, uint32 or float32"),
    (dict(x=np.zeros((2, 2), np.float32)), ValueError, "1-d with 1 to 64 elements"),
    (dict(), ValueError, "at least one field"),
    (dict(x=vkp.u32, status={"x": vkp.u32}), ValueError, "declared twice"),
])
def test_declaration_mistakes(ctx, kwargs, error, match):
    with pytest.raises(error, match=match):
        vkp.ControlBuffer(ctx, **kwargs)


def test_placement_is_live_and_prefers_device_local_memory(ctx, ctrl):
    info = ctx.info
    assert ctrl.live, "every device tested so far sees host writes in some memory"
    flags = info.memory_types[ctrl.memory_type].flags
    has_bar = any(t.flags & 7 == 7 for t in info.memory_types)
    if has_bar:
        assert flags & DEVICE_LOCAL


@vkp.kernel
def use_controls(ctrl: vkp.Controls, out: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < out.shape[0]:
        out[i] = ctrl.freq * i + ctrl.offset + ctrl.gains[i % 4]
    if i == 0:
        ctrl.seen = ctrl.freq
        ctrl.iterations += 5


def test_kernels_read_and_write_fields(ctx, ctrl):
    out = ctx.zeros(10)
    use_controls.forall(10)(ctrl, out)
    np.testing.assert_allclose(out.numpy(), 1.5 * np.arange(10) - 3 + np.arange(10) % 4)
    assert ctrl["seen"] == np.float32(1.5) and ctrl["iterations"] == 5
    glsl = use_controls.glsl(ctrl.type, vkp.Array[vkp.f32])
    assert "/* freq */" in glsl and "control words" in glsl


@vkp.kernel
def spin_until_stopped(ctrl: vkp.Controls, limit: vkp.u32):
    if vkp.global_id(0) == 0:
        ctrl.started = 1
        n = 0
        while ctrl.stop == 0 and n < limit:
            n += 1
        ctrl.iterations = n


def test_a_running_kernel_sees_the_host_stop_word(ctx, ctrl):
    """The steering channel: a kernel polls `stop` while it runs; the host sets it."""
    limit = 60_000            # below lavapipe's loop limit; the GPU stops far earlier
    # On lavapipe 60,000 iterations take milliseconds: a busy host may miss the window, so
    # a run that simply finished is retried; seeing the stop once proves the channel.
    for _attempt in range(100):
        ctrl["stop"] = 0
        ctrl["started"] = 0
        spin_until_stopped[1, 1](ctrl, limit)
        t = time.perf_counter()
        while ctrl["started"] == 0 and time.perf_counter() - t < 5:
            pass
        ctrl["stop"] = 1
        ctx.synchronize()
        assert ctrl["started"] == 1
        if ctrl["iterations"] < limit:
            return
    pytest.fail(f"the kernel never saw the stop word (ran {ctrl['iterations']} iterations)")


def test_controls_annotation_requires_a_control_buffer(ctx):
    with pytest.raises(TypeError, match="expects a ControlBuffer, got ndarray"):
        use_controls.forall(1)(np.zeros(1, np.float32), np.zeros(1, np.float32))


def test_unknown_field_in_kernel_is_a_compile_error(ctx, ctrl):
    @vkp.kernel
    def typo(c: vkp.Controls):
        c.frequency = 1.0
    with pytest.raises(vkp.CompileError, match="no control field 'frequency'; fields: stop, freq"):
        typo[1, 1](ctrl)


@vkp.kernel
def stepper(ctrl: vkp.Controls, out: vkp.Array[vkp.f32], step: vkp.u32):
    i = vkp.global_id(0)
    if i == 0:
        out[step] = ctrl.freq + ctrl.offset * 100   # the values this step runs with
        ctrl.apply(step)                           # commands take effect from the next step


def test_commands_apply_in_order_and_are_acknowledged_with_their_step(ctx, ctrl):
    out = ctx.zeros(10)
    stepper[1, 1](ctrl, out, 0)
    ctx.synchronize()
    seq = ctrl.send_nowait(freq=2.0)
    ctrl.send_nowait(offset=1)
    last = ctrl.send_nowait(freq=3.0, offset=2)          # later commands win, in order
    assert ctrl.ack().seq < seq
    stepper[1, 1](ctrl, out, 1)
    ack = ctrl.wait_ack(last, timeout=10)
    assert ack == (last, 1)
    stepper[1, 1](ctrl, out, 2)
    np.testing.assert_allclose(out.numpy()[:3], [1.5 - 300, 1.5 - 300, 3.0 + 200])
    assert ctrl["freq"] == np.float32(3.0) and ctrl["offset"] == 2


def test_send_under_trio_returns_the_ack(ctx, ctrl):
    """Steps go on until one has run after the acknowledged one (on a loaded H100 the
    command landed in the last of a fixed five steps, and no step showed its effect)."""
    import trio
    out = ctx.zeros(64)
    acks = []

    async def main():
        async with trio.open_nursery() as nursery:
            async def steps():
                for k in range(64):
                    stepper[1, 1](ctrl, out, k)
                    if acks and k > acks[0].step:
                        return
                    await trio.sleep(0.005)
            nursery.start_soon(steps)
            acks.append(await ctrl.send(freq=9.0, timeout=10))
    trio.run(main)
    ack = acks[0]
    assert 0 <= ack.step < 63 and ctrl["freq"] == np.float32(9.0)
    assert out.numpy()[ack.step + 1] == np.float32(9.0 - 300)


def test_command_mistakes(ctx, ctrl):
    with pytest.raises(ValueError, match="commands set scalar host fields; 'iterations' is not one"):
        ctrl.send_nowait(iterations=3)
    with pytest.raises(ValueError, match="'gains' is not one"):
        ctrl.send_nowait(gains=1.0)
    with pytest.raises(KeyError, match="no control field 'frq'"):
        ctrl.send_nowait(frq=1.0)
    with pytest.raises(TypeError,
                       match="command for control field 'stop' \\(uint32\\): -1 is out"):
        ctrl.send_nowait(stop=-1)
    head = ctrl._words[ctrl._fields["_cmd_head"].word]
    for bad in (dict(freq=None), dict(freq=1e39), dict(offset=0.5), dict(freq=1.0, stop=-1)):
        with pytest.raises(TypeError, match="command for control field"):
            ctrl.send_nowait(**bad)
    assert ctrl._words[ctrl._fields["_cmd_head"].word] == head   # nothing was queued
    with pytest.raises(vkp.DeviceTimeout, match="not acknowledged within 0.05 s"):
        ctrl.wait_ack(ctrl.send_nowait(freq=1.0), timeout=0.05)
    small = vkp.ControlBuffer(ctx, x=vkp.u32, commands=2)
    small.send_nowait(x=1)
    small.send_nowait(x=2)
    old = ctx.timeout
    ctx.timeout = 0.1
    try:
        with pytest.raises(vkp.DeviceTimeout, match="command ring is full"):
            small.send_nowait(x=3)
    finally:
        ctx.timeout = old
    pair = vkp.ControlBuffer(ctx, x=vkp.u32, y=vkp.u32, z=vkp.u32, commands=2)
    with pytest.raises(ValueError, match=r"a send of 3 fields needs 3 free places in the "
                                         r"command ring, which holds 2; .* commands=3 or more"):
        pair.send_nowait(x=1, y=2, z=3)
    none = vkp.ControlBuffer(ctx, x=vkp.u32, commands=0)
    with pytest.raises(vkp.VkPersistError, match="no command ring"):
        none.send_nowait(x=1)


def test_host_read_modify_write(ctx):
    import threading
    ctrl = vkp.ControlBuffer(ctx, count=vkp.u32(0), gain=vkp.f32(1.0),
                             status={"seen": vkp.u32})

    def bump():
        for _ in range(2000):
            ctrl.add("count", 1)

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ctrl["count"] == 8000                     # no update lost between threads
    assert ctrl.exchange("gain", 2.5) == 1.0 and ctrl["gain"] == 2.5
    assert ctrl.compare_exchange("gain", 1.0, 3.0) == 2.5 and ctrl["gain"] == 2.5
    assert ctrl.compare_exchange("gain", 2.5, 3.0) == 2.5 and ctrl["gain"] == 3.0
    with pytest.raises(ValueError, match="host fields: count, gain.*let a kernel update them"):
        ctrl.add("seen", 1)
    with pytest.raises(KeyError, match="no control field 'cnt'"):
        ctrl.add("cnt", 1)
    ctrl.free()


def test_read_modify_write_refuses_what_the_field_cannot_hold(ctx):
    ctrl = vkp.ControlBuffer(ctx, count=vkp.u32(0), gain=vkp.f32(3e38))
    with pytest.raises(TypeError, match="'count' \\(uint32\\): -1 is out of uint32's range"):
        ctrl.add("count", -1)
    with pytest.raises(TypeError,
                       match="add\\('count', delta\\): delta must be a number, got '1'"):
        ctrl.add("count", "1")
    with pytest.raises(TypeError, match="'gain' \\(float32\\): .* beyond float32's range"):
        ctrl.add("gain", 1e38)
    with pytest.raises(TypeError, match="'gain' \\(float32\\) takes a number, got None"):
        ctrl.exchange("gain", None)
    with pytest.raises(TypeError, match="'count' \\(uint32\\) takes an integer, got 0.5"):
        ctrl.compare_exchange("count", 0, 0.5)
    assert ctrl["count"] == 0 and ctrl["gain"] == np.float32(3e38)     # nothing stored
    assert ctrl.add("count", 2) == 0 and ctrl.add("count", -1) == 2 and ctrl["count"] == 1
    ctrl.free()


# ---- commands whose sender stopped waiting ---------------------------------------------

def test_a_cancelled_send_is_withdrawn_when_no_kernel_runs(ctx, ctrl):
    import trio
    out = ctx.zeros(10)

    async def cancelled():
        with trio.move_on_after(0.02):
            await ctrl.send(freq=9.0)
        with pytest.raises(vkp.DeviceTimeout, match="not acknowledged within 0.02 s \\(is a "
                                                    ".*\\); the command was withdrawn"):
            await ctrl.send(offset=7, timeout=0.02)
    trio.run(cancelled)
    stepper[1, 1](ctrl, out, 0)                  # applies the ring: both entries are void
    ctx.synchronize()
    seq = ctrl.send_nowait(freq=2.0)             # numbering goes on past the withdrawn ones
    stepper[1, 1](ctrl, out, 1)
    assert ctrl.wait_ack(seq, timeout=10) == (seq, 1)
    stepper[1, 1](ctrl, out, 2)
    np.testing.assert_allclose(out.numpy()[:3], [1.5 - 300, 1.5 - 300, 2.0 - 300])
    assert ctrl["offset"] == -3


@vkp.kernel
def spin_then_apply(ctrl: vkp.Controls, limit: vkp.u32, step: vkp.u32):
    if vkp.global_id(0) == 0:
        ctrl.started = 1
        n = 0
        while ctrl.stop == 0 and n < limit:
            n += 1
        ctrl.iterations = n
        ctrl.apply(step)


@vkp.kernel
def busy(a, rounds: vkp.u32):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        v = a[i]
        for _ in range(rounds):
            v = v * 0.5 + 1.0
        a[i] = v


def test_a_cancelled_send_is_withdrawn_while_only_other_work_runs(ctx, ctrl):
    """Work in flight that does not bind the ControlBuffer cannot apply its commands: a
    send cancelled meanwhile is withdrawn at once (a queued write into a 'device' array
    had kept it queued on an H100)."""
    import trio
    work = ctx.zeros(1 << 16)
    busy[256, 256](work, 10)                     # compiles

    async def cancelled():
        with trio.move_on_after(0):
            await ctrl.send(freq=9.0)

    launches = 1
    for _attempt in range(20):   # a loaded host may only get there once the work is done:
        ctx.synchronize()        # then more work is queued the next time (each launch
        for _ in range(launches):                # stays under lavapipe's loop limit)
            busy[256, 256](work, 60_000)         # tens of ms on lavapipe, ms on a GPU
        launches = min(2 * launches, 64)
        trio.run(cancelled)
        pending = not ctx._core.idle()
        assert not ctrl._orphans                 # withdrawn at once, whatever ran
        stepper[1, 1](ctrl, ctx.zeros(10), 0)    # applies the ring: the entry is void
        ctx.synchronize()
        assert ctrl["freq"] == np.float32(1.5)
        if pending:
            break
    else:
        pytest.fail("the other work was never still running after the cancellation")


@pytest.mark.parametrize("applies", [True, False], ids=["kernel-applies", "kernel-does-not"])
def test_a_send_cancelled_while_a_kernel_runs_stays_queued_for_that_kernel_only(
        ctx, ctrl, applies):
    """The host cannot take a command back while a kernel may be reading the ring; the
    kernel running then may apply it, and nothing later does."""
    import trio
    limit = 60_000
    kernel = spin_then_apply if applies else spin_until_stopped
    args = (limit, 7) if applies else (limit,)

    async def cancel_while_running():
        t = time.perf_counter()
        while ctrl["started"] == 0 and time.perf_counter() - t < 5:
            await trio.lowlevel.checkpoint()
        with trio.move_on_after(0):
            await ctrl.send(freq=9.0)
        ctrl["stop"] = 1

    for _attempt in range(100):   # lavapipe ends such a kernel within ms: retry a missed window
        ctrl["stop"] = ctrl["started"] = 0
        ctrl["freq"] = 1.5
        kernel[1, 1](ctrl, *args)
        trio.run(cancel_while_running)
        ctx.synchronize()                 # the device is idle: what is left is withdrawn
        assert not ctrl._orphans
        after_kernel = ctrl["freq"]
        stepper[1, 1](ctrl, ctx.zeros(10), 8)      # a later kernel applies nothing of it
        ctx.synchronize()
        assert ctrl["freq"] == after_kernel
        if ctrl["iterations"] < limit:    # the kernel ran until after the cancellation
            break
    else:
        pytest.fail("the kernel never ran past the cancellation")
    assert ctrl["freq"] == (np.float32(9.0) if applies else np.float32(1.5))


def test_a_send_cancelled_while_other_work_is_pending_stays_withdrawn(ctx, monkeypatch):
    """A send cancelled while the session is paused but the device still has other work
    in flight (a queued write) cannot be withdrawn at once; the next epoch must not apply
    it: the runner synchronizes first, which withdraws it (seen on an H100 under load)."""
    import trio
    from programs_lib import threshold
    prog, fired = threshold(ctx, 1000)

    async def main():
        async with prog.session(mode="launch") as run:
            await run.pause()
            monkeypatch.setattr(prog.ctl, "_ring_idle", lambda: False)   # work pending
            with trio.move_on_after(0.02):
                await run.send(limit=3)
            monkeypatch.undo()
            assert prog.ctl._orphans
            await run.resume()
            while run.steps_done < 50:
                await trio.sleep(0.005)
            await run.stop()
        return int(prog.ctl["limit"])
    assert trio.run(main) == 1000 and not prog.ctl._orphans
    prog.free()


def test_session_sends_never_take_effect_in_a_later_run(ctx):
    """Cancelled while paused (withdrawn at once), cancelled while running (applied by the
    running epoch or withdrawn at its end), or outlived by the program (VkPersistError):
    whatever the session ended with is what the next run starts with."""
    import trio
    from programs_lib import threshold
    prog, fired = threshold(ctx, 1000)

    async def main():
        async with prog.session(mode="launch") as run:
            await run.pause()
            with trio.move_on_after(0.02):
                await run.send(limit=3)
            await run.resume()
            await trio.sleep(0.05)
            assert prog.ctl["limit"] == 1000
            with trio.move_on_after(0):
                await run.send(limit=5)              # the epoch running now may apply it
            await trio.sleep(0.05)
            await run.pause()

            async def outlived():
                with pytest.raises(vkp.VkPersistError, match=(
                        "threshold: the program ended \\(\\d+ steps done\\) before a step "
                        "boundary applied the command; the command was withdrawn")):
                    await run.send(limit=7)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(outlived)
                await trio.sleep(0.05)
                await run.stop()
        return int(prog.ctl["limit"])
    ended_with = trio.run(main)
    assert ended_with in (1000, 5)
    prog.run(5)
    assert prog.ctl["limit"] == ended_with and not prog.ctl._orphans
    prog.free()


@pytest.mark.parametrize("mode", ["persistent", "launch"])
def test_the_fields_of_one_send_take_effect_at_the_same_step(ctx, mode, monkeypatch):
    """A send of several fields is one command: no step runs with some of them. They were
    published one by one, and a step could fall between two (the FDTD test's steered run
    then differed from its replay on GPUs, now and then). The host's store fence sleeps
    3 ms here, which widened that gap to hundreds of steps (the test failed every time)."""
    import trio
    from programs_lib import recorder
    from vkpersist.control import _host
    fence = _host._store_fence
    monkeypatch.setattr(_host, "_store_fence", lambda: (time.sleep(0.003), fence()))
    prog, seen = recorder(ctx, 4000)
    old, new = np.float32(1.5 - 300), np.float32(2.0 + 100)

    async def main():
        async with prog.session(mode=mode) as run:
            while run.steps_done < 20:
                await trio.sleep(0.001)
            ack = await run.send(freq=2.0, offset=1)
            while run.steps_done < ack.step + 50:
                await trio.sleep(0.001)
            return ack.step, await run.stop()
    changed, end = trio.run(main)
    assert end < 4000, "raise the recorder's size"
    got = seen.numpy()[:end]
    assert np.array_equal(got[:changed], np.full(changed, old)), np.unique(got[:changed])
    assert np.array_equal(got[changed:], np.full(end - changed, new)), np.unique(got[changed:])
    prog.free()
