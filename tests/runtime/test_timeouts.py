"""Waits never hang: a launch that outlives the timeout raises DeviceTimeout and can still
be waited for afterwards; every timeout a user gives is checked the same way."""
import math
import subprocess
import sys
import time

import numpy as np
import pytest
import trio

import vkpersist as vkp

# Each invocation loops `iters` times (kept below lavapipe's 65,535-iteration limit).
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


def _calibrated(ctx, k, a):
    """A launch function whose work takes about 0.3 s on this device."""
    groups = min(a.size // 64, ctx.info.max_workgroup_count[0])
    t = time.perf_counter()
    k[groups](a, iters=60_000)
    ctx.synchronize()
    once = time.perf_counter() - t
    reps = max(1, min(400, round(0.3 / once)))

    def launch():
        for _ in range(reps):
            k[groups](a, iters=60_000)
    return launch


def test_synchronize_times_out_then_completes(ctx):
    k = vkp.lowlevel.glsl_kernel(BUSY)
    a = ctx.zeros(64 * 256 if ctx.info.kind == "cpu" else 64 * 65535)
    slow = _calibrated(ctx, k, a)
    t = time.perf_counter()
    slow()
    ctx.synchronize()
    full = time.perf_counter() - t
    if full < 0.1:
        pytest.skip(f"could not make work that outlasts a short timeout ({full:.3f} s)")
    slow()
    t = time.perf_counter()
    with pytest.raises(vkp.DeviceTimeout, match="did not finish within 0.01 s"):
        ctx.synchronize(timeout=0.01)
    assert time.perf_counter() - t < 0.5 * full
    ctx.synchronize()                        # the work finishes and the context stays usable
    assert np.isfinite(a.numpy()).all()
    with pytest.raises(vkp.DeviceTimeout):   # the module-level wait honours its timeout too
        slow()
        vkp.synchronize(timeout=0.01)
    vkp.synchronize()


# ---- which timeouts are valid: the same everywhere ----------------------------------------
BAD_TIMEOUTS = [("5", TypeError), (True, TypeError), ([1.0], TypeError),
                (float("nan"), ValueError), (0, ValueError), (-1.5, ValueError),
                (-math.inf, ValueError)]


def _setter(ctx, value):
    ctx.timeout = value


@pytest.mark.parametrize("where, call", [
    ("Context(timeout=)", lambda ctx, v: vkp.Context(ctx.info.index, timeout=v)),
    ("Context.timeout", _setter),
    ("synchronize(timeout=)", lambda ctx, v: ctx.synchronize(timeout=v)),
    ("vkp.synchronize(timeout=)", lambda ctx, v: vkp.synchronize(timeout=v)),
])
@pytest.mark.parametrize("value, error", BAD_TIMEOUTS, ids=repr)
def test_invalid_timeouts_are_refused_naming_the_parameter(ctx, where, call, value, error):
    before = ctx.timeout
    with pytest.raises(error) as info:
        call(ctx, value)
    message = str(info.value)
    assert message.startswith(f"{where} must be a positive number of seconds")
    assert "math.inf for no timeout" in message and f"got {value!r}" in message
    assert ctx.timeout == before


@pytest.mark.parametrize("value", [2, 0.5, np.float32(0.25), 1e30, math.inf], ids=repr)
def test_valid_timeouts_work_in_every_wait(ctx, value):
    k = vkp.lowlevel.glsl_kernel(BUSY)
    a = ctx.zeros(64 * 4)
    before = ctx.timeout
    try:
        ctx.timeout = value
        assert ctx.timeout == float(value) and isinstance(ctx.timeout, float)
        k[4](a, iters=1000)
        ctx.synchronize()
        k[4](a, iters=1000)
        ctx.synchronize(timeout=value)
        k[4](a, iters=1000)
        vkp.synchronize(timeout=value)
    finally:
        ctx.timeout = before
    assert np.isfinite(a.numpy()).all()


@pytest.mark.parametrize("value", ["nan", "abc", "0", "-2", "1s"])
def test_invalid_env_timeout_is_refused(clean_env, monkeypatch, device_info, value):
    monkeypatch.setenv("VKPERSIST_TIMEOUT", value)
    with pytest.raises(ValueError, match=f"VKPERSIST_TIMEOUT={value!r} is not a valid timeout: "
                                         r"set it to a positive number of seconds \(e.g. 60\), "
                                         "or inf for no timeout"):
        vkp.Context(device_info.index)


@pytest.mark.parametrize("value, seconds", [("inf", math.inf), ("1e30", 1e30), (" 7.5 ", 7.5)])
def test_env_timeout_accepts_seconds_and_inf(clean_env, monkeypatch, device_info, value, seconds):
    monkeypatch.setenv("VKPERSIST_TIMEOUT", value)
    with vkp.Context(device_info.index) as c:
        assert c.timeout == seconds
        a = c.zeros(64)
        vkp.lowlevel.glsl_kernel(BUSY)[1](a, iters=10)
        c.synchronize()
        assert np.isfinite(a.numpy()).all()


def test_polled_waits_validate_their_timeout_too():
    """ControlBuffer, MemSock and program waits poll host memory through one helper, which
    checks its limit the same way (a NaN limit used to wait forever). In a subprocess: a
    regression would hang."""
    code = """if 1:
    import vkpersist as vkp
    ctrl = vkp.ControlBuffer(vkp.Context(), x=vkp.u32)
    for value in ("5", float("nan"), -1):
        try:
            ctrl.wait_ack(1, timeout=value)
        except (TypeError, ValueError) as exc:
            print(type(exc).__name__, exc)
    """
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 3, run.stdout
    assert lines[0].startswith("TypeError timeout must be a positive number of seconds")
    assert lines[1] == ("ValueError timeout must be a positive number of seconds, or math.inf "
                        "for no timeout; got nan")
    assert lines[2].endswith("got -1")


def test_program_waits_validate_their_timeout(ctx):
    from programs_lib import counters
    prog, counts, _ = counters(ctx)
    with pytest.raises(TypeError, match=r"run\(timeout=\) must be a positive number of seconds"):
        prog.run(2, mode="launch", timeout="5")

    async def session():
        async with prog.session(mode="launch", timeout=float("nan")):
            pass
    with pytest.raises(ValueError, match=r"session\(timeout=\) must be .* got nan"):
        trio.run(session)
    assert prog.run(3, mode="launch", timeout=math.inf).steps == 3
    assert int(counts.numpy()[0]) == 3
