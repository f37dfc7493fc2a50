"""A host that polls mapped memory in a tight loop: does the device slow down?

    python3 benchmarks/probes/host_polling.py [--device SELECTOR] [--seconds 1.5]
                                       [--modes launch persistent]

Why: tests/channels/test_frame_integrity.py's launch-mode case stalled on GPUs. Its reader polls a
program memsock in a loop that never sleeps (`await trio.sleep(0)`). The cause was the
GIL: the session driver's thread gave it up in every Vulkan call and had to win it back
from that loop each time (a dump: the driver recording a batch, no heartbeat poll in
4.5 s). Short calls now keep the GIL, and the driver waits once per batch; this measures
what a tight-polling body still costs, per read and per mode (docs/measurements-log.md).

The test's program (tests/programs_lib.py `ticker`: one memsock frame per step, capacity
4, policy "drop") runs unbounded in a session while its trio body, for `--seconds` each,
calls one of these in a loop, yielding with `trio.sleep(0)` (and, for two of them, with a
0.2 ms sleep instead):
  poll+dropped   sock.poll() (a frame, if any, released at once) and sock.dropped
  poll           sock.poll() only: the header word, in host memory
  dropped        sock.dropped only: the drop count, in device-local host-visible memory
  control word   a word of the program's ControlBuffer (device-local host-visible)
  nothing        no read: the trio loop alone
Each row: the body's reads per second and the program's steps per second meanwhile.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

import trio

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))    # the root: vkpersist
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))    # benchmarks/
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests"))
import vkpersist as vkp                            # noqa: E402
from _device import selector                       # noqa: E402  (benchmarks/_device.py)
from programs_lib import ticker                    # noqa: E402  (the stalled test's program)


def readers(prog, sock):
    def poll():
        frame = sock.poll()
        if frame is not None:
            frame.release()

    def poll_dropped():
        poll()
        return sock.dropped

    words = prog.ctl._words
    return {"poll+dropped": poll_dropped, "poll": poll, "dropped": lambda: sock.dropped,
            "control word": lambda: int(words[0]), "nothing": lambda: None}


def measure(ctx, mode: str, seconds: float) -> list[tuple[str, float, float, float]]:
    prog, sock, _ = ticker(ctx, capacity=4)
    rows = []

    async def main():
        async with prog.session(mode=mode) as run:
            await trio.sleep(0.5)                     # compiled, running, clocks up
            for name, read in readers(prog, sock).items():
                for pause in ((0.0, 0.0002) if name in ("poll+dropped", "nothing") else (0.0,)):
                    s0, t0 = run.steps_done, time.perf_counter()
                    reads = 0
                    while time.perf_counter() - t0 < seconds:
                        read()
                        reads += 1
                        await trio.sleep(pause)
                    s1, t1 = run.steps_done, time.perf_counter()
                    while (frame := sock.poll()) is not None:
                        frame.release()
                    rows.append((name, pause, reads / (t1 - t0), (s1 - s0) / (t1 - t0)))
            await run.stop()
    trio.run(main)
    prog.free()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--modes", nargs="*", default=["launch", "persistent"])
    args = parser.parse_args()
    ctx = vkp.Context(selector(args.device))
    print(f"device: {ctx.info.name}; {args.seconds:g} s a row")
    print(f"{'mode':<11} {'read':<13} {'yield':<10} {'reads/s':>10} {'steps/s':>10}")
    for mode in args.modes:
        for name, pause, reads, steps in measure(ctx, mode, args.seconds):
            yield_ = "sleep(0)" if pause == 0 else f"{pause * 1e3:g} ms"
            print(f"{mode:<11} {name:<13} {yield_:<10} {reads:>10,.0f} {steps:>10,.0f}",
                  flush=True)


if __name__ == "__main__":
    main()
