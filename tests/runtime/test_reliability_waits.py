"""Waits, signals, device loss, exit and threads (docs/reliability.md). Every case that could
crash or hang runs in its own process with a hard timeout and checks its exit status."""
import pathlib
import subprocess
import sys
import textwrap

import pytest

# A script prelude: `busy(seconds)` queues launches that keep the device busy about that
# long (each invocation loops 60,000 times, under lavapipe's 65,535-iteration limit).
PRELUDE = '''
import math, os, signal, sys, threading, time, warnings
import numpy as np
import vkpersist as vkp
BUSY = """#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform P { uint iters; };
layout(std430, binding = 0) buffer A { float a[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float v = a[i];
    for (uint k = 0u; k < iters; ++k) v = v * 0.999999 + 1e-6;
    a[i] = v;
}
"""
K = vkp.lowlevel.glsl_kernel(BUSY)

@vkp.kernel
def bump(x: vkp.Array[vkp.f32], by: vkp.f32):      # the threads' cases: x += by
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] += by

def busy(ctx, seconds):
    # few, long launches (a GPU runs 4,096 invocations in no time: give it millions), so
    # that queueing them never waits for the oldest (at most ~1,000 in flight)
    n = 64 * 64 if ctx.info.kind == "cpu" else 1 << 24
    a = ctx.zeros(n)
    # the warm-up and the calibration wait with a long timeout of their own: cases that
    # give the Context a short one (0.2 s) mean it for the work queued after, and one
    # launch can take longer than that on a loaded machine. The fastest of three: a GPU
    # shared with other test processes timed one launch slow, so too little was queued.
    K[n // 64](a, iters=60000)                  # compiles and warms up
    ctx.synchronize(timeout=60)
    once = math.inf
    for _ in range(3):
        t = time.perf_counter()
        K[n // 64](a, iters=60000)
        ctx.synchronize(timeout=60)
        once = min(once, time.perf_counter() - t)
    for _ in range(max(1, math.ceil(seconds / once))):
        K[n // 64](a, iters=60000)
    return a
'''


def _run(tmp_path, body: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run PRELUDE + body as a script file (kernel and stage sources are read from files)."""
    script = tmp_path / "case.py"
    script.write_text(PRELUDE + textwrap.dedent(body))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=timeout, cwd=tmp_path)


def _no_crash(run: subprocess.CompletedProcess) -> None:
    assert run.returncode == 0, f"exit status {run.returncode}\n{run.stdout}\n{run.stderr}"
    assert "Segmentation" not in run.stderr and "Traceback" not in run.stderr, run.stderr


# ---- Ctrl-C -----------------------------------------------------------------------------
def test_ctrl_c_interrupts_synchronize_promptly_and_exit_is_clean(tmp_path):
    run = _run(tmp_path, '''
        ctx = vkp.Context(timeout=30)
        a = busy(ctx, 2.0)
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
        t = time.perf_counter()
        try:
            ctx.synchronize()
            print("not interrupted")
        except KeyboardInterrupt:
            print(f"interrupted after {time.perf_counter() - t:.3f} s", flush=True)
        ctx.synchronize()                    # the work is intact and still waitable
        print("finite", bool(np.isfinite(a.numpy()).all()))
        busy(ctx, 1.0)                       # exit with work in flight: waits, then closes
    ''')
    _no_crash(run)
    lines = run.stdout.splitlines()
    assert lines[0].startswith("interrupted after"), run.stdout
    assert float(lines[0].split()[2]) < 1.0, "Ctrl-C must arrive within ~0.1 s of the signal"
    assert lines[1] == "finite True"
    assert "RuntimeWarning" not in run.stderr      # exit waited for the work within 30 s


def test_double_ctrl_c_during_run_keeps_the_step_count_true(tmp_path):
    """Ctrl-C halts prog.run at the next step boundary; more Ctrl-Cs while it stops must not
    leave prog.steps_done behind what the device ran (each step bumps a device counter)."""
    run = _run(tmp_path, '''
        ctx = vkp.Context()
        prog = vkp.Program(ctx, name="count")
        count = prog.array("count", (1,), np.int32)
        out = prog.array("out", (2048,), np.float32)

        @prog.stage(domain=2048)
        def work(i):
            x = out[i]
            for k in range(60000):
                x = vkp.sin(x) + 1.0
            out[i] = x

        @prog.stage(domain=1)
        def tick(i):
            count[0] += 1

        prog.loop(work, tick)
        prog.run(1, mode="launch")

        def interrupts():
            for _ in range(6):
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.03)
        sender = threading.Timer(0.4, interrupts)
        sender.start()
        t = time.perf_counter()
        try:
            prog.run(10**6, mode="launch")
        except KeyboardInterrupt:
            print(f"stopped after {time.perf_counter() - t:.2f} s", flush=True)
        # the Ctrl-Cs that come after the run returned only reach the script: ignore them
        # (absorbing them in a try races with where Python runs the handler)
        signal.signal(signal.SIGINT, lambda *_: None)
        sender.join()
        ctx.synchronize()
        print("steps", prog.steps_done, int(count.numpy()[0]))
    ''')
    _no_crash(run)
    lines = run.stdout.splitlines()
    assert lines[0].startswith("stopped after"), run.stdout
    _, steps_done, device_steps = lines[1].split()
    assert int(steps_done) == int(device_steps) > 1


# ---- exit after a timeout ---------------------------------------------------------------
def test_exit_after_device_timeout_with_work_queued_does_not_crash(tmp_path):
    """vkDestroyInstance (or vkDestroyDevice) under running work crashed the process at exit
    in most runs; now the device and the instance are left open with a warning."""
    for _ in range(2):
        run = _run(tmp_path, '''
            ctx = vkp.Context(timeout=0.2)
            print(ctx.name)
            busy(ctx, 2.0)
            try:
                ctx.synchronize()
            except vkp.DeviceTimeout as exc:
                print("timed out:", exc)
        ''')
        _no_crash(run)
        name = run.stdout.splitlines()[0]
        assert "timed out: synchronize(): the device did not finish within 0.2 s" in run.stdout
        assert (f"RuntimeWarning: vkpersist: work on {name} did not finish within 0.2 s; its "
                "device and the Vulkan instance are left open rather than destroyed under "
                "running work") in run.stderr


def test_close_after_timeout_can_be_retried(tmp_path):
    run = _run(tmp_path, '''
        ctx = vkp.Context(timeout=0.2)
        busy(ctx, 1.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ctx.close()
        print("first close:", ctx.closed, [str(w.message)[:40] for w in caught])
        ctx.timeout = 30
        ctx.close()
        print("second close:", ctx.closed)
    ''')
    _no_crash(run)
    assert "first close: False ['vkpersist: work on" in run.stdout
    assert "second close: True" in run.stdout


# ---- device loss (injected: lavapipe cannot lose its device) ------------------------------
@pytest.mark.parametrize("ending", ["close", "exit"])
def test_device_lost_is_raised_then_use_is_refused(tmp_path, ending):
    run = _run(tmp_path, f'''
        from vkpersist.vk import _api
        ctx = vkp.Context(timeout=30)
        a = busy(ctx, 0.5)                   # work in flight when the loss is reported
        _api.inject_device_lost()
        try:
            ctx.synchronize()
        except vkp.DeviceLost as exc:
            print("lost:", exc)
        for what, use in [("launch", lambda: K[64](a, iters=10)), ("read", a.numpy),
                          ("alloc", lambda: ctx.zeros(4)), ("sync", ctx.synchronize),
                          ("all", vkp.synchronize)]:
            try:
                use()
                print(what, "accepted")
            except vkp.DeviceLost as exc:
                print(what, "refused:", exc)
        if {ending!r} == "close":
            ctx.close()
            print("closed", ctx.closed)
        other = vkp.Context()
        print("new context", other.asarray([1.0, 2.0]).numpy().tolist())
    ''')
    _no_crash(run)
    out = run.stdout.splitlines()
    assert "synchronize() [injected by inject_device_lost()]: the device was lost (driver " \
           "crash or watchdog reset); close this Context and create a new one" in out[0]
    for line, what in zip(out[1:6], ["launch", "read", "alloc", "sync", "all"]):
        assert line.startswith(f"{what} refused: "), run.stdout
        assert "this Context's device was lost earlier and it refuses further use; the loss: " \
               "synchronize() [injected" in line
    if ending == "close":
        assert "closed True" in out
    assert out[-1] == "new context [1.0, 2.0]"


# ---- threads ----------------------------------------------------------------------------
def test_threads_launching_on_one_context_get_exact_results(tmp_path):
    """4 threads x 300 launches on one Context, each on its own array, every launch with its
    own push constants (so the shared pipeline records, caches and evicts command buffers
    while the others submit), plus reads and synchronize from every thread."""
    run = _run(tmp_path, '''
        ctx = vkp.Context(timeout=30)
        arrays = [ctx.zeros(256) for _ in range(4)]
        bump[4, 64](arrays[0], 0.0)
        ctx.synchronize()
        errors, partial = [], {}

        def work(t):
            try:
                total = 0.0
                for i in range(300):
                    by = float(t * 1000 + i)
                    bump[4, 64](arrays[t], by)
                    total += by
                    if i % 100 == 99:
                        got = arrays[t].numpy()
                        assert (got == total).all(), (t, i, got[:4], total)
                ctx.synchronize()
                partial[t] = total
            except BaseException as exc:
                errors.append(repr(exc))

        threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        ctx.synchronize()
        print("errors", errors)
        for t, a in enumerate(arrays):
            print(t, bool((a.numpy() == partial.get(t, -1)).all()))
    ''', timeout=180)
    _no_crash(run)
    assert run.stdout.splitlines() == ["errors []", "0 True", "1 True", "2 True", "3 True"]


@pytest.mark.parametrize("memory", ["device", "host"])
def test_a_read_sees_a_fill_from_another_thread_wholly_or_not_at_all(tmp_path, memory):
    """Issue 53: one thread fills an array while two others read it with numpy(); on
    lavapipe, where device memory is host-visible, 2,390 of 20,295 reads mixed two fills
    (the reader's wait and its copy were not one turn of the Context's lock, so a fill
    written by the host in between was half seen). Every read holds one value, and a
    thread's reads never go back in time."""
    run = _run(tmp_path, f'''
        ctx = vkp.Context(timeout=30)
        a = ctx.zeros(1 << 16, memory={memory!r})
        done = threading.Event()
        bad, reads = [], [0, 0]

        def filler():
            for v in range(1, 1500):
                a.fill(float(v))
            done.set()

        def reader(t):
            last = 0.0
            while not done.is_set():
                got = a.numpy()
                reads[t] += 1
                if got.min() != got.max() or got[0] < last:
                    bad.append((t, sorted(set(got.tolist()))[:4], last))
                last = float(got[0])

        threads = [threading.Thread(target=filler)] + [
            threading.Thread(target=reader, args=(t,)) for t in range(2)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        print("bad", bad[:3], len(bad))
        print("reads", min(reads) > 10, float(a.numpy()[0]))
    ''', timeout=180)
    _no_crash(run)
    assert run.stdout.splitlines() == ["bad [] 0", "reads True 1499.0"], run.stdout


def test_a_thread_driving_the_device_is_not_starved_by_a_busy_thread(tmp_path):
    """A thread that launches kernels, records and runs a program's batches and waits for
    them, while the main thread runs Python without pause (a trio body polling a memsock
    in `await trio.sleep(0)` is such a thread; the session driver is such a worker). A
    Vulkan call that gives up the GIL for microseconds waits to get it back until the
    busy thread is made to switch (sys.getswitchinterval(), 5 ms): this work took
    6.3-6.9 s on lavapipe (an H100 session ran 262 steps/s against 46,700; the
    frame-integrity test's reader saw no frame for 10 s while the driver recorded a
    batch). Now short calls keep the GIL and waits block in slices: well under 1 s."""
    run = _run(tmp_path, '''
        sys.path.insert(0, %r)
        from programs_lib import ticker

        ctx = vkp.Context(timeout=60)
        x = ctx.zeros(64)
        prog, sock, count = ticker(ctx, capacity=4)
        bump[1, 64](x, 0.0)
        prog.run(1, mode="launch")          # compiled
        ctx.synchronize()
        done, errors = threading.Event(), []

        def work():
            try:
                core = ctx._core_alive()
                for i in range(500):          # a new scalar: recorded and submitted each time
                    bump[1, 64](x, 1.0)
                    core.idle()
                prog.run(4000, mode="launch")   # records its batches, waits for each
            except BaseException as exc:
                errors.append(repr(exc))
            done.set()

        worker = threading.Thread(target=work)
        start = time.perf_counter()
        worker.start()
        spins = 0
        while not done.is_set() and time.perf_counter() - start < 60:
            spins += 1                        # Python without pause, never sleeping
        elapsed = time.perf_counter() - start
        worker.join()
        print("errors", errors)
        print("results", float(x.numpy()[0]), int(count.numpy()[0]))
        print(f"elapsed {elapsed:.3f}", file=sys.stderr)
        assert elapsed < 3.5, elapsed
    ''' % str(pathlib.Path(__file__).resolve().parents[1]), timeout=120)
    _no_crash(run)
    assert run.stdout.splitlines() == ["errors []", "results 500.0 4001"]


def test_close_waits_for_a_thread_waiting_on_a_fence_outside_the_lock(tmp_path):
    """`core.wait_idle` (the session driver's wait) waits on a fence outside the Context's
    lock. A close() from another thread meanwhile must not destroy that fence and the
    device under the wait (use after destroy: VkResult -13 on lavapipe, a crash elsewhere):
    it waits for the waiter. The waiter is held between taking its fence and waiting on
    it, as a thread switched out there would be."""
    run = _run(tmp_path, '''
        from vkpersist.vk import context as vkcontext
        ctx = vkp.Context(timeout=60)
        a = busy(ctx, 0.5)
        core = ctx._core_alive()
        real, log = vkcontext.fence_wait, []

        def slow_wait(device, fence, seconds, what):
            time.sleep(0.3)                  # switched out after taking its fence
            log.append(("waited", real(device, fence, seconds, what)))
            return log[-1][1]
        vkcontext.fence_wait = slow_wait

        def waiter():
            try:
                while not core.wait_idle(0.05):
                    pass
                log.append(("idle", core.device is None))
            except BaseException as exc:
                log.append(("error", repr(exc)))

        t = threading.Thread(target=waiter)
        t.start()
        time.sleep(0.1)                      # the waiter holds a fence now
        ctx.close()
        log.append(("closed", None))
        t.join(30)
        print(log[-1], ("error" not in [k for k, _ in log]), log.index(("closed", None)) > 0)
    ''')
    _no_crash(run)
    assert run.stdout.splitlines() == ["('closed', None) True True"], run.stdout
