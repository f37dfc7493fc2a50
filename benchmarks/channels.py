"""Channels between the host and running kernels: latency, frame throughput, idle cost.

    python benchmarks/channels.py [--device SELECTOR]

Rows, measured in this run on one device:
  round trip      host writes a ticket into a ControlBuffer, a running kernel (one
                  invocation polling with acquire loads) echoes it into a status word, the
                  host spins until it sees the echo: median and p99 over 2000 tickets
  frames 4 KiB    per-launch kernels each publish one MemSock frame of 1024 uint32 (16
                  workgroups write it), the host reads and releases every frame in order
  frames 4 MiB    the same with 1M float32 per frame (4096 workgroups)
  frames (program) a program whose stage writes one frame per step (mode "auto": the
                  megakernel on GPUs), read by a trio task, policy "block"
  idle reader     CPU time of `async for frame in sock.frames()` under trio for 2 s with no
                  frames arriving, as a fraction of one core
Targets (issue "ControlBuffer, MemSock and the trio host loop"): on the H200 round trip
<= 10 µs median and >= 40 GB/s for large frames.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import trio

import vkpersist as vkp
from _device import selector                  # benchmarks/_device.py


@vkp.kernel
def echo(ctrl: vkp.Controls, limit: vkp.u32):
    if vkp.global_id(0) == 0:
        ctrl.started = 1
        n = 0
        while ctrl.stop == 0 and n < limit:
            ctrl.echo = ctrl.ticket
            n += 1


@vkp.kernel
def small_frame(sock: vkp.Socket):
    i = vkp.global_id(0)
    if i < 1024:
        sock.frame[i] = sock.seq
    sock.commit()


@vkp.kernel
def large_frame(sock: vkp.Socket, n: vkp.i32):
    i = vkp.global_id(0)
    if i < n:
        sock.frame[i] = 1.0
    sock.commit()


def round_trip(ctx, tickets: int):
    ctrl = vkp.ControlBuffer(ctx, stop=vkp.u32, ticket=vkp.u32,
                             status={"echo": vkp.u32, "started": vkp.u32})
    limit = 60_000 if ctx.target.loop_guard else 1 << 30
    lat = []
    while len(lat) < tickets:
        ctrl["stop"] = 0
        ctrl["started"] = 0
        echo[1, 1](ctrl, limit)
        t = time.perf_counter()
        while ctrl["started"] == 0 and time.perf_counter() - t < 5:
            pass
        words = ctrl._words                 # raw view: the spin loop itself must be cheap
        ticket_w, echo_w = ctrl.type.field("ticket").word, ctrl.type.field("echo").word
        for _ in range(tickets - len(lat)):
            value = len(lat) + 1
            t0 = time.perf_counter_ns()
            words[ticket_w] = value
            deadline = t0 + 20_000_000
            while words[echo_w] != value and time.perf_counter_ns() < deadline:
                pass
            if words[echo_w] != value:      # the kernel ran out of iterations (lavapipe)
                break
            lat.append(time.perf_counter_ns() - t0)
        ctrl["stop"] = 1
        ctx.synchronize()
    ctrl.free()
    lat = np.array(lat) / 1000
    return np.median(lat), np.percentile(lat, 99)


def frames(ctx, kern, frame_shape, dtype, count, groups, extra=()):
    sock = vkp.MemSock("bench", dtype, frame_shape, capacity=8, policy="block", ctx=ctx)
    nbytes = int(np.prod(frame_shape)) * np.dtype(dtype).itemsize
    launch = kern[groups, 64]
    for _ in range(4):                      # warm up: compile, record
        launch(sock, *extra)
        sock.wait(30).release()
    t = time.perf_counter()
    read = 0
    for _ in range(count):
        launch(sock, *extra)
        while sock.head - sock.tail >= sock.capacity:
            sock.wait(30).release()
            read += 1
    while read < count:
        sock.wait(30).release()
        read += 1
    dt = time.perf_counter() - t
    sock.free()
    return count / dt, count * nbytes / dt / 1e9


def program_frames(ctx, n: int, count: int):
    """(frames/s, GB/s, mode) of a program whose one stage writes a frame of n float32
    every step; a trio reader releases every frame (policy block: nothing is dropped)."""
    prog = vkp.Program(ctx, name="frames")
    sock = prog.memsock("out", np.float32, n, capacity=8, policy="block")

    @prog.stage(domain=n)
    def emit(i):
        sock.frame[i] = 1.0

    prog.loop(emit)
    warm = 4

    async def main():
        got, start = 0, None
        async with prog.session(steps=count + warm) as run:
            async for frame in sock.frames():
                frame.release()
                got += 1
                if got == warm:
                    start = time.perf_counter()
                if got == count + warm:
                    return time.perf_counter() - start, run.mode
    dt, mode = trio.run(main)
    assert sock.dropped == 0
    prog.free()
    return count / dt, count * n * 4 / dt / 1e9, mode


def idle_cpu(ctx, seconds=2.0):
    sock = vkp.MemSock("idle", np.float32, 4, ctx=ctx)

    async def main():
        with trio.move_on_after(seconds):
            async for _ in sock.frames(timeout=seconds * 10):
                pass
    c0, w0 = time.process_time(), time.perf_counter()
    trio.run(main)
    share = (time.process_time() - c0) / (time.perf_counter() - w0)
    sock.free()
    return share


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    args = parser.parse_args()
    ctx = vkp.Context(selector(args.device))
    lavapipe = ctx.info.is_lavapipe
    median, p99 = round_trip(ctx, 2000)
    small_fps, small_gbs = frames(ctx, small_frame, 1024, np.uint32, 2000, 16)
    n_large = 1 << 20
    large_fps, large_gbs = frames(ctx, large_frame, n_large, np.float32,
                                  50 if lavapipe else 400, n_large // 64, (n_large,))
    prog_small = program_frames(ctx, 1024, 2000)
    prog_large = program_frames(ctx, n_large, 50 if lavapipe else 2000)
    idle = idle_cpu(ctx)
    print(f"channels on {ctx.name} ({ctx.info.driver_info or ctx.info.driver})\n")
    print(f"round trip host->GPU->host     median {median:8.2f} µs   p99 {p99:8.2f} µs")
    print(f"frames 4 KiB (per launch)      {small_fps:10.0f} frames/s  {small_gbs:8.3f} GB/s")
    print(f"frames 4 MiB (per launch)      {large_fps:10.0f} frames/s  {large_gbs:8.2f} GB/s")
    for label, (fps, gbs, mode) in (("4 KiB", prog_small), ("4 MiB", prog_large)):
        print(f"frames {label} (program, {mode:<10}) {fps:8.0f} frames/s  {gbs:8.2f} GB/s")
    print(f"idle trio reader               {100 * idle:8.1f} % of one core")
    ctx.close()


if __name__ == "__main__":
    main()
