"""The floor of a per-launch kernel: what one queue submission of a one-dispatch command
buffer costs on the host and on the device, against the launch path and CuPy.

    python3 benchmarks/probes/submit_floor.py [--device SELECTOR] [--launches N]

Issue 21's target 3 asks for asynchronous launches of <= 8 µs each. Every `k[g, l](...)`
outside `ctx.batched()` is one vkQueueSubmit of a recorded command buffer that ends with
the barrier every command buffer ends with (vk/commands.py's barrier_at_end). This
submits such a buffer N times straight through the held call (no Python launch path),
then buffers without any barrier, with a full barrier before the dispatch as well (like the
leading barrier launches carried until 2026-12-06, without its host stage, which cost the
same), one holding 32 dispatches with barriers between, the same with compute-only
barriers between (`compute_barrier`), and one dispatch ending with a compute-only barrier; then N distinct command
buffers submitted once each, recorded without SIMULTANEOUS_USE (usage 0, and
ONE_TIME_SUBMIT), alone or 32 to a vkQueueSubmit; then the latency of a launch and a wait
for it, through a fence and through a word of host memory the command buffer fills
(`waited`: a fence, a timeline semaphore, a host word); "host" is the submitting loop's time per
submission, "until done" the time until the device has finished all of them (the
device's rate when it is the slower side). Then the launch path (`bump[1, 64](x)`, alone and inside `ctx.batched()`) and
CuPy's RawKernel launch in the same process (launch_overhead.py's rows). Two rounds.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

import vkpersist as vkp
from vkpersist.vk import _api, commands
from vkpersist.vk._api import address, ffi, held, vk

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))    # benchmarks/
from _device import selector                  # noqa: E402  (benchmarks/_device.py)
from _common import cupy_launch_rows          # noqa: E402  (launch_overhead.py's CuPy rows)


@vkp.kernel
def bump(x: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] += 1.0


_COMPUTE_ONLY = None


def compute_barrier(cb) -> None:
    """A barrier from compute-shader writes to compute-shader reads and writes (and
    indirect-dispatch reads) only, where the library's barriers name all commands and all
    memory accesses: an NVIDIA engineer measured the full barrier costing the GPU more
    than small kernels themselves (llama.cpp PR 8943: ~2x on an RTX 4090 with the narrow
    one). For timing; the library also orders copies, fills and the host with its barriers."""
    global _COMPUTE_ONLY
    if _COMPUTE_ONLY is None:
        barrier = ffi.new("VkMemoryBarrier*", {
            "sType": vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER,
            "srcAccessMask": vk.VK_ACCESS_SHADER_WRITE_BIT,
            "dstAccessMask": vk.VK_ACCESS_SHADER_READ_BIT | vk.VK_ACCESS_SHADER_WRITE_BIT
            | vk.VK_ACCESS_INDIRECT_COMMAND_READ_BIT})
        _COMPUTE_ONLY = (vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
                         | vk.VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, barrier)
    commands._barrier(cb, _COMPUTE_ONLY)


def recorded(core, dispatch, before: bool, after: bool, count: int = 1,
             between=commands.barrier_between, end=commands.barrier_at_end, info=None):
    """A command buffer of `count` dispatches (barriers `between`), with or without a full
    barrier before them (the leading barrier of launches until 2026-12-06, less its host
    stage) and the barrier every command buffer now ends with (or `end`); begun with
    `info` (default: the library's reusable buffers', SIMULTANEOUS_USE)."""
    cb = commands.spare(core)
    info = commands._constants()[0][True] if info is None else info
    _api.check_result(commands.begin_commands(cb, info), "begin")
    if before:
        commands.barrier_between(cb)
    for k in range(count):
        commands.dispatch(cb, *dispatch)
        if k + 1 < count:
            between(cb)
    if after:
        end(cb)
    _api.check_result(commands.end_commands(cb), "end")
    return commands.Recorded(core, cb)


def distinct(core, dispatch, count: int, flags: int) -> list:
    """`count` command buffers of the one dispatch and the end barrier, each recorded with
    usage `flags` (0: submitted again only once complete; ONE_TIME_SUBMIT: once), for
    the question whether SIMULTANEOUS_USE (which every reusable buffer of the library
    carries: a launch's cached command buffer may be pending again) costs the device."""
    info = ffi.new("VkCommandBufferBeginInfo*", {
        "sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, "flags": flags})
    return [recorded(core, dispatch, False, True, info=info) for _ in range(count)]


def grouped(recs: list, per: int) -> list:
    """One VkSubmitInfo naming `per` of `recs`' command buffers each (one vkQueueSubmit
    for several command buffers, in order)."""
    out = []
    for k in range(0, len(recs), per):
        handles = ffi.new("VkCommandBuffer[]", [r.handles[0] for r in recs[k:k + per]])
        info = ffi.new("VkSubmitInfo*", {"sType": vk.VK_STRUCTURE_TYPE_SUBMIT_INFO,
                                         "commandBufferCount": len(handles),
                                         "pCommandBuffers": handles})
        out.append((_api.pointer(info), (info, handles)))   # pointers made before timing
    return out


def submitted_each(ctx, submits: list) -> tuple[float, float]:
    """(host µs, µs until the device is done) per vkQueueSubmit of each of `submits`
    (ctypes pointers to VkSubmitInfos, with what keeps them alive), once each; the device
    time per submission."""
    core = ctx._core
    queue = address(core.queue)
    ctx.synchronize()
    t0 = time.perf_counter()
    for info, _ in submits:
        held.vkQueueSubmit(queue, 1, info, None)
    t1 = time.perf_counter()
    # fenced, and ending with the barrier every submission of the library relies on after
    # its predecessors (a variant without it must not leave the queue unordered)
    commands.submit_now(core, lambda cb: None, ())
    ctx.synchronize()
    t2 = time.perf_counter()
    n = len(submits)
    return (t1 - t0) / n * 1e6, (t2 - t0) / n * 1e6


def waited(ctx, dispatch, x, n: int) -> dict:
    """µs per launch-and-wait of the one dispatch, n times, three ways: the launch's own
    command buffer submitted with a fence, polled with vkGetFenceStatus until signalled (a
    fence per submission, reset together afterwards, as the library recycles them); a
    buffer that after the dispatch fills a word of 'host' memory, submitted without a
    fence, the word polled until it turns nonzero (what a completion word in host memory
    would save over the fence); and the library's `bump[1, 64](x); ctx.synchronize()`."""
    core = ctx._core
    queue = address(core.queue)
    ready = dispatch[0].command_buffer(*dispatch[1:])
    fences = [core.fence() for _ in range(n)]
    pointers = [_api.pointer(f) for f in fences]     # made before timing
    out = {}
    ctx.synchronize()
    t0 = time.perf_counter()
    for fence, pointer in zip(fences, pointers):
        held.vkQueueSubmit(queue, 1, ready.address, pointer)
        if not _api.spin_until_signaled(core.device, fence, 60):
            raise SystemExit("a fence was not signalled within 60 s")
    out["fence, vkGetFenceStatus polls"] = (time.perf_counter() - t0) / n * 1e6
    _api.raw_reset_fences(core.device, fences)
    core.free_fences += fences
    out["timeline semaphore, counter polls"] = timeline_waits(core, ready, n)
    word = ctx.zeros(1, np.uint32, memory="host")
    view = word.buffer.host_view(keep_mapped=True).view(np.uint32)
    cb = commands.spare(core)

    def body(cb):
        commands.dispatch(cb, *dispatch)
        commands.barrier_between(cb)
        commands.fill_words(cb, word.buffer, 1, 4)
    commands.record(cb, body, reusable=True)
    rec = commands.Recorded(core, cb)
    ctx.synchronize()
    t0 = time.perf_counter()
    deadline = time.perf_counter() + 60
    for _ in range(n):
        view[0] = 0
        held.vkQueueSubmit(queue, 1, rec.address, None)
        polls = 0
        while view[0] == 0:
            polls += 1
            if polls % 65536 == 0 and time.perf_counter() > deadline:
                raise SystemExit("the host word never turned nonzero within 60 s")
    out["host word, polled"] = (time.perf_counter() - t0) / n * 1e6
    commands.submit_now(core, lambda cb: None, (rec, word))
    ctx.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        bump[1, 64](x)
        ctx.synchronize()
    out["bump[1, 64](x); ctx.synchronize()"] = (time.perf_counter() - t0) / n * 1e6
    return out


def timeline_waits(core, ready, n: int) -> float:
    """µs per submission of `ready` signalling a timeline semaphore to the next value, then
    vkGetSemaphoreCounterValue polled until it gets there (what completion through one
    timeline semaphore, instead of a fence per submission, would cost a wait)."""
    kind = vk.VkSemaphoreTypeCreateInfo(semaphoreType=vk.VK_SEMAPHORE_TYPE_TIMELINE,
                                        initialValue=0)
    sem = vk.vkCreateSemaphore(core.device, vk.VkSemaphoreCreateInfo(pNext=kind), None)
    try:
        values = ffi.new("uint64_t[1]")
        sems = ffi.new("VkSemaphore[1]", [sem])
        timeline = ffi.new("VkTimelineSemaphoreSubmitInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
            "signalSemaphoreValueCount": 1, "pSignalSemaphoreValues": values})
        info = ffi.new("VkSubmitInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_SUBMIT_INFO, "pNext": timeline,
            "commandBufferCount": 1, "pCommandBuffers": ready.handles,
            "signalSemaphoreCount": 1, "pSignalSemaphores": sems})
        counter = ffi.new("uint64_t*")
        read = vk.lib.vkGetSemaphoreCounterValue
        queue, device = address(core.queue), core.device
        deadline = time.perf_counter() + 60
        t0 = time.perf_counter()
        for k in range(1, n + 1):
            values[0] = k
            _api.check_result(held.vkQueueSubmit(queue, 1, address(info), None),
                              "vkQueueSubmit")
            counter[0] = 0
            while counter[0] < k:
                _api.check_result(read(device, sem, counter), "vkGetSemaphoreCounterValue")
                if time.perf_counter() > deadline:
                    raise SystemExit("the timeline semaphore did not advance within 60 s")
        return (time.perf_counter() - t0) / n * 1e6
    finally:          # nothing pending may signal it once destroyed
        commands.submit_now(core, lambda cb: None, ())
        core.synchronize()
        vk.vkDestroySemaphore(core.device, sem, None)


def submitted(ctx, rec, n: int) -> tuple[float, float]:
    """(host µs, µs until the device is done) per submission of `rec`, n times."""
    return submitted_each(ctx, [(rec.address, rec)] * n)


def launched(ctx, x, n: int, batched: bool) -> tuple[float, float]:
    """(host µs, µs until done) per `bump[1, 64](x)`, n times, alone or batched."""
    t0 = time.perf_counter()
    if batched:
        with ctx.batched():
            for _ in range(n):
                bump[1, 64](x)
            t1 = time.perf_counter()
    else:
        for _ in range(n):
            bump[1, 64](x)
        t1 = time.perf_counter()
    ctx.synchronize()
    t2 = time.perf_counter()
    return (t1 - t0) / n * 1e6, (t2 - t0) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--launches", type=int, default=5000)
    args = parser.parse_args()
    ctx = vkp.Context(selector(args.device))
    n = args.launches
    print("device:", ctx.info.name)
    x = ctx.zeros(64)
    bump[1, 64](x)
    ctx.synchronize()
    core = ctx._core
    with ctx.batched():
        bump[1, 64](x)
        dispatch = core.batch.dispatches[0]          # (pipeline, buffers, groups, push)
    ctx.synchronize()
    variants = {"one barrier at the end": (dispatch[0].command_buffer(*dispatch[1:]), 1),
                "no barriers": (recorded(core, dispatch, False, False), 1),
                "barriers before and after": (recorded(core, dispatch, True, True), 1),
                "32 dispatches": (recorded(core, dispatch, False, True, 32), 32),
                "32, compute-only barriers": (recorded(core, dispatch, False, True, 32,
                                                       between=compute_barrier), 32),
                "one, compute-only barrier at the end": (
                    recorded(core, dispatch, False, True, end=compute_barrier), 1)}
    for rnd in range(2):
        for name, (rec, per) in variants.items():
            host, total = submitted(ctx, rec, n // per)
            print(f"round {rnd} {name:26} host {host:6.2f} us/submit  until done "
                  f"{total:6.2f} us/submit = {total / per:6.2f} us/dispatch", flush=True)
        for name, batched in (("bump[1, 64](x) async", False), ("batched", True)):
            host, total = launched(ctx, x, n, batched)
            print(f"round {rnd} {name}: host {host:.2f} us, until done {total:.2f} us")
    # SIMULTANEOUS_USE against buffers submitted once each; several buffers per submit
    # (the simultaneous row is the control: distinct buffers, the library's flag)
    for name, flags, per in (
            ("distinct buffers, simultaneous", vk.VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT, 1),
            ("distinct buffers, usage 0", 0, 1),
            ("distinct buffers, one-time", vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, 1),
            ("distinct buffers, 32 per submit", 0, 32)):
        for rnd in range(2):
            recs = distinct(core, dispatch, n, flags)
            submits = grouped(recs, per)
            host, total = submitted_each(ctx, submits)
            each = total * len(submits) / len(recs)
            print(f"round {rnd} {name:32} host {host:6.2f} us/submit  until done "
                  f"{total:6.2f} us/submit = {each:6.2f} us/command buffer", flush=True)
            del recs, submits
    for rnd in range(2):
        for name, us in waited(ctx, dispatch, x, max(1, n // 2)).items():
            print(f"round {rnd} launch and wait, {name}: {us:.2f} us", flush=True)
    for name, us in cupy_launch_rows(n):            # the same kernel launched through CuPy
        print(f"{name}: {us:.2f} us")


if __name__ == "__main__":
    main()
