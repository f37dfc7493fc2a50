"""A pipeline between two devices over shared host pages, against the copy-based pipeline
and against device A's plain copy into host memory, measured in the same run.

    python3 benchmarks/pipeline.py [--producer SEL] [--consumer SEL] [--frame-mib 4]
                                   [--frames 200] [--capacity 8] [--repeat 3]

SEL: a device index, a kind (dgpu, igpu, cpu) or part of a name (e.g. `--producer 0
--consumer llvmpipe`). Default: the best two devices found (dgpu > igpu > cpu), or the
best device twice (two Contexts, two logical devices) on a machine with one.

Rows (frames of FRAME_MIB float32, the same kernels on each side):
  A: copy into host memory   A's kernel copies a device-local array into 'host' memory,
                             one launch per frame: the bandwidth ceiling of A's writes
  shared pages (Relay)       A's kernel writes each frame into a MemSock ring on
                             vkp.SharedPages; B imports the same pages and its kernel reads
                             the frame in place (out = 2 * frame) once the host has seen it
                             published; a slot is reused once B is done (policy "block")
  copy-based                 A's kernel writes each frame into an ordinary MemSock (host-cached
                             memory); the host uploads it into B's device memory
                             (`b_in.copy_from(frame.data)`) and B's kernel reads it there
Both pipelines are checked against NumPy at the end (B's output of the last frame).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import vkpersist as vkp
from _device import selector                  # benchmarks/_device.py

LOCAL = 256


@vkp.kernel
def emit(sock: vkp.Socket, src: vkp.Array[vkp.f32], step: vkp.f32):
    i = vkp.global_id(0)
    if i < src.shape[0]:
        sock.frame[i] = src[i] + step
    sock.commit()


@vkp.kernel
def copy(src: vkp.Array[vkp.f32], dst: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < src.shape[0]:
        dst[i] = src[i]


@vkp.kernel
def consume(frame: vkp.Array[vkp.f32], out: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < frame.shape[0]:
        out[i] = 2.0 * frame[i]


def open_devices(producer, consumer):
    """(A, B) Contexts: as asked, else the best device and the next best, else the best
    device twice (two Contexts: two logical devices)."""
    a = vkp.Context(selector(producer))      # None: the best device (dgpu > igpu > cpu)
    if consumer is not None:
        return a, vkp.Context(selector(consumer))
    order = ("dgpu", "igpu", "cpu", "virtual", "other")
    rest = sorted((d for d in vkp.list_devices() if d.index != a.info.index),
                  key=lambda d: (order.index(d.kind), d.index))
    return a, vkp.Context(rest[0].index if rest else a.info.index)


def timed(count, step, finish):
    t = time.perf_counter()
    for i in range(count):
        step(i)
    finish()
    return time.perf_counter() - t


def plain_copy(a, n, count):
    src = a.asarray(np.arange(n, dtype=np.float32))
    dst = a.empty(n, np.float32, memory="host")
    launch = copy[(n + LOCAL - 1) // LOCAL, LOCAL]
    launch(src, dst)
    a.synchronize()
    dt = timed(count, lambda i: launch(src, dst), a.synchronize)
    assert np.array_equal(dst.numpy(), np.arange(n, dtype=np.float32))
    return dt


def shared_pipeline(a, b, n, count, capacity):
    src = a.asarray(np.arange(n, dtype=np.float32))
    pages = vkp.SharedPages(capacity * n * 4)
    sock = vkp.MemSock("frames", np.float32, (n,), capacity=capacity, policy="block",
                       frames=pages, ctx=a)
    out = b.empty(n, np.float32)
    groups = (n + LOCAL - 1) // LOCAL
    launch_b = consume[groups, LOCAL]
    relay = vkp.Relay(sock, b, lambda frame, data: launch_b(data, out))
    produce = emit[groups, LOCAL]
    relay.run(lambda i: produce(sock, src, float(i)), 4)          # compile, warm up
    t = time.perf_counter()
    relay.run(lambda i: produce(sock, src, float(i)), count)
    dt = time.perf_counter() - t
    expect = 2.0 * (np.arange(n, dtype=np.float32) + np.float32(count - 1))
    assert np.array_equal(out.numpy(), expect), "shared-pages pipeline: wrong data on B"
    relay.close()
    sock.free()
    pages.free()
    return dt


def copy_pipeline(a, b, n, count, capacity):
    src = a.asarray(np.arange(n, dtype=np.float32))
    sock = vkp.MemSock("frames", np.float32, (n,), capacity=capacity, policy="block", ctx=a)
    b_in, out = b.empty(n, np.float32), b.empty(n, np.float32)
    groups = (n + LOCAL - 1) // LOCAL
    produce, launch_b = emit[groups, LOCAL], consume[groups, LOCAL]

    def take():
        with sock.wait() as frame:
            b_in.copy_from(frame.data)            # A's frame -> host -> B's device memory
        launch_b(b_in, out)

    def step(i):
        while sock.head - sock.tail >= sock.capacity:
            take()
        produce(sock, src, float(i))

    def finish():
        while sock.next_read < sock.head:
            take()
        b.synchronize()

    timed(4, step, finish)                        # compile, warm up
    dt = timed(count, step, finish)
    expect = 2.0 * (np.arange(n, dtype=np.float32) + np.float32(count - 1))
    assert np.array_equal(out.numpy(), expect), "copy-based pipeline: wrong data on B"
    sock.free()
    return dt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--producer", default=None, help="device A (index, kind or name)")
    parser.add_argument("--consumer", default=None, help="device B (index, kind or name)")
    parser.add_argument("--frame-mib", type=float, default=4.0)
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--capacity", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs per row")
    args = parser.parse_args()
    a, b = open_devices(args.producer, args.consumer)
    ia, ib = a.info, b.info
    for ctx in (a, b):
        if not ctx.info.external_memory_host:
            raise SystemExit(f"{ctx.info.name} lacks VK_EXT_external_memory_host: no shared "
                             "pages on it")
    n = int(args.frame_mib * (1 << 20)) // 4
    nbytes, count = n * 4, args.frames
    same = " (one device, two Contexts)" if ia.index == ib.index else ""
    print(f"A (producer): [{ia.index}] {ia.name}\nB (consumer): [{ib.index}] {ib.name}{same}")
    print(f"{count} frames of {nbytes / (1 << 20):.2f} MiB, ring of {args.capacity}, "
          f"best of {args.repeat} runs per row\n")
    def best(measure):
        return min(measure() for _ in range(args.repeat))

    rows = [("A: copy into host memory", best(lambda: plain_copy(a, n, count))),
            ("shared pages (Relay)", best(lambda: shared_pipeline(a, b, n, count, args.capacity))),
            ("copy-based (A -> host -> B)", best(lambda: copy_pipeline(a, b, n, count,
                                                                       args.capacity)))]
    base = rows[0][1]
    print(f"{'row':30s} {'frames/s':>10s} {'GB/s':>8s} {'vs A copy':>10s} {'vs copy-based':>14s}")
    for name, dt in rows:
        print(f"{name:30s} {count / dt:10.1f} {count * nbytes / dt / 1e9:8.2f} "
              f"{base / dt:10.2f} {rows[2][1] / dt:14.2f}")
    a.close()
    b.close()


if __name__ == "__main__":
    main()
