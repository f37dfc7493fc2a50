"""Does a running shader see host writes to a memory type? A bounded self-test.

The Vulkan spec promises no such thing, and on NVIDIA only device-local host-visible (BAR)
memory passes (VULKAN_FACTS.md §1), so vkpersist measures it per device before it relies on
it: one invocation polls a ticket word with atomicAdd(x, 0) and echoes it into host memory,
the host writes tickets and times the echo. Every loop is bounded: the shader by an
iteration cap (kept under lavapipe's 65,535-iteration loop limit, VULKAN_FACTS.md §5),
the host by timeouts. "Not live" needs evidence (the shader kept running long after the
host's write without seeing it), so a busy machine yields a retry, not a wrong verdict.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .buffer import Buffer
from .memory import DEVICE_LOCAL, HOST_COHERENT, HOST_VISIBLE, kind_name_of_type

_SOURCE = """#version 450
layout(local_size_x = 1) in;
layout(push_constant) uniform P { uint cap; };
layout(std430, binding = 0) buffer Control { uint stop; uint ticket; } ctrl;
layout(std430, binding = 1) buffer Echo { uint started; uint echo; uint finished; uint progress; } host;
uint last = 0u;
// Polls a few times per loop iteration: lavapipe allows ~65,535 iterations per invocation,
// and a longer-lived shader gives a busy host more time to answer.
void poll() {
    uint t = atomicAdd(ctrl.ticket, 0u);
    if (t != last) { last = t; atomicExchange(host.echo, t); }
}
void main() {
    atomicExchange(host.started, 1u);
    uint it = 0u;
    for (; it < cap; ++it) {
        poll(); poll(); poll(); poll(); poll(); poll(); poll(); poll();
        if (atomicAdd(ctrl.stop, 0u) != 0u) break;
        if ((it & 255u) == 0u) atomicExchange(host.progress, it);
    }
    atomicExchange(host.finished, it + 1u);
}
"""
_ROUNDS = 32
_EVIDENCE = 4_000         # loop iterations (8 polls each) a shader must run after a host
                          # write to prove it unseen
_MISSES = 3               # proven-unseen tickets for a "not live" verdict
_ATTEMPTS = 16
_WAIT_S = 2.0             # longest wait for one ticket before the run counts as inconclusive
_START_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Visibility:
    memory_type: int
    flags: str
    kind: str                 # the memory kind that resolves to this type, e.g. "rebar"
    live: bool                # host writes reach a running shader
    round_trip_us: float      # median host->GPU->host, NaN when not live
    p99_us: float
    detail: str


_kernel = None


def _probe_kernel():
    global _kernel
    if _kernel is None:
        from .glsl_kernel import GLSLKernel
        _kernel = GLSLKernel(_SOURCE, name="visibility_probe")
    return _kernel


def host_visible_types(info) -> list[int]:
    need = HOST_VISIBLE | HOST_COHERENT
    return [t.index for t in info.memory_types if t.flags & need == need and t.flags & 0x30 == 0]


def probe(ctx, memory_type: int) -> Visibility:
    """Measure whether shaders on `ctx` see host writes to `memory_type` while running."""
    core = ctx._core_alive()
    info = ctx.info
    mtype = info.memory_types[memory_type]
    kind = kind_name_of_type(info.memory_kinds, memory_type)
    pipeline = _probe_kernel()._pipeline(ctx, None)
    control = Buffer(core, 64, "host", memory_type=memory_type)
    echo = Buffer(core, 64, "host")
    cv, ev = control.host_view().view(np.uint32), echo.host_view().view(np.uint32)
    guarded = ctx.target.loop_guard     # loops end silently at ~65,535 iterations there
    cap = 60_000 if guarded else 1 << 16
    detail = ""
    try:
        for _attempt in range(_ATTEMPTS):
            cv[:] = 0
            ev[:] = 0
            push = np.uint32(cap).tobytes()
            cb = pipeline.command_buffer([control, echo], (1, 1, 1), push)
            core.submit(cb, keep=(pipeline, control, echo))
            latencies, unseen = _round_trips(cv, ev)
            cv[0] = 1                                   # stop (if it can see it)
            core.synchronize(max(ctx.timeout, 60.0))
            iterations = int(ev[2]) - 1
            if latencies:       # one echoed ticket proves it; more only refine the latency
                lat = np.array(latencies) / 1000.0
                return Visibility(memory_type, mtype.describe(), kind, True,
                                  float(np.median(lat)), float(np.percentile(lat, 99)),
                                  f"{len(lat)} round trip{'s' if len(lat) != 1 else ''}")
            if unseen >= _MISSES:
                detail = (f"a running shader never saw host writes ({unseen} tickets unseen "
                          f"for {_EVIDENCE:,}+ shader iterations each; it ran to "
                          f"{iterations:,} of {cap:,} iterations)")
                break
            # The shader ended, or one side was descheduled, before a verdict: try again.
            detail = f"inconclusive after {_ATTEMPTS} runs (a busy machine?)"
            if not guarded:
                cap *= 2
    finally:
        control.free()
        echo.free()
    return Visibility(memory_type, mtype.describe(), kind, False, float("nan"), float("nan"),
                      detail)


def _round_trips(cv, ev) -> tuple[list[int], int]:
    """Write tickets and time their echoes. A ticket counts as unseen only with evidence:
    the shader ran _EVIDENCE more iterations after the write without echoing it (a shader
    or host that was merely descheduled proves nothing)."""
    start = time.perf_counter()
    while ev[0] == 0:
        if ev[2] or time.perf_counter() - start > _START_TIMEOUT_S:
            return [], 0
    latencies, unseen = [], 0
    for ticket in range(1, _ROUNDS + 1):
        t0 = time.perf_counter_ns()
        cv[1] = ticket
        written_at = int(ev[3])             # shader progress when the write was issued
        deadline = t0 + int(_WAIT_S * 1e9)
        while ev[1] != ticket:
            if ev[2] or time.perf_counter_ns() > deadline:
                return latencies, unseen    # the shader ended, or no verdict in time
            # progress first, then the echo: the shader writes its echo before it advances,
            # so a descheduled host cannot mistake a late look for an unseen write
            progressed = int(ev[3]) - written_at
            if progressed >= _EVIDENCE and ev[1] != ticket:
                unseen += 1
                break
        else:
            latencies.append(time.perf_counter_ns() - t0)
            continue
        if unseen >= _MISSES:
            break
    return latencies, unseen


def preferred_order(info) -> list[int]:
    """Host-visible types in the order control words should try them: device-local (BAR)
    first, since it is also fast for the GPU, then the rest."""
    return sorted(host_visible_types(info),
                  key=lambda i: (not info.memory_types[i].flags & DEVICE_LOCAL, i))


def control_channel(results: list[Visibility], info) -> Visibility | None:
    """The memory for host-written words: the first live type in preferred order."""
    live = {r.memory_type: r for r in results if r.live}
    return next((live[i] for i in preferred_order(info) if i in live), None)
