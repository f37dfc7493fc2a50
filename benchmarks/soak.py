"""Soak: a persistent program steered for a long time, every frame and every acknowledgement
checked, host and device memory watched.

    python benchmarks/soak.py --minutes 30           # the record in docs/measurements-log.md

The program updates a field every step and emits one frame per step holding the control
`gain` in effect and the step number. A trio task sends a new gain every 10 ms; each
command's acknowledgement names the step it took effect at, so every frame's gain is known
in advance: a frame whose gain differs, a step out of order, a lost frame (received +
dropped must equal the steps run) or a missing acknowledgement fails the run. Host memory
(RSS) and, on NVIDIA, device memory (nvidia-smi) are sampled every 10 s; after a warm-up
minute they must stay flat (growth under 32 MiB).
"""
from __future__ import annotations

import argparse
import bisect
import json
import shutil
import subprocess
import time

import numpy as np
import trio

import vkpersist as vkp
from _device import selector                       # benchmarks/_device.py

GROWTH_LIMIT = 32 << 20


def rss() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def device_used() -> int | None:
    if shutil.which("nvidia-smi") is None:
        return None
    out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, timeout=10)
    return int(out.stdout.split()[0]) << 20 if out.returncode == 0 else None


def build(ctx, n: int):
    prog = vkp.Program(ctx, name="soak")
    field = prog.array("field", (n,), np.float32)
    ctl = prog.controls(gain=vkp.f32(0.0))
    sock = prog.memsock("frames", np.float32, (2,), capacity=256, policy="drop",
                        payload={"step": vkp.u32})

    @prog.stage(domain=n)
    def relax(i):
        field[i] = 0.5 * field[i] + ctl.gain

    @prog.stage(domain=2)
    def emit(i):
        if i == 0:
            sock.frame[0] = ctl.gain
            sock.step = prog.step
        else:
            sock.frame[1] = float(prog.step % 16777216)

    prog.loop(relax, emit)
    return prog, sock


async def soak(prog, sock, seconds: float, report: dict) -> None:
    acks_at, gains = [0], [0.0]          # from step acks_at[k] on, the gain is gains[k]
    pending = [None]                     # the gain of the command in flight
    received = 0
    last_step = -1
    samples = []

    async with prog.session(mode="persistent") as run:
        async def steer():
            k = 0
            while True:
                k += 1
                gain = float(np.float32(k % 1000 * 0.001))
                pending[0] = gain
                ack = await run.send(gain=gain)
                acks_at.append(ack.step)
                gains.append(gain)
                pending[0] = None
                report["commands"] = k
                await trio.sleep(0.01)

        async def watch():
            start = time.perf_counter()
            while True:
                samples.append((time.perf_counter() - start, rss(), device_used()))
                await trio.sleep(10)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(steer)
            nursery.start_soon(watch)
            deadline = time.perf_counter() + seconds
            async for frame in sock.frames(timeout=30):
                with frame:
                    step = int(frame.payload["step"])
                    gain, stamp = float(frame.data[0]), float(frame.data[1])
                assert step > last_step, f"step {step} after {last_step}"
                assert stamp == step % 16777216, (step, stamp)
                k = bisect.bisect_right(acks_at, step) - 1
                allowed = {gains[k]}
                if k == len(acks_at) - 1 and pending[0] is not None:
                    allowed.add(pending[0])   # applied, its acknowledgement not yet read
                assert gain in allowed, (step, gain, acks_at[k:k + 2], allowed)
                received += 1
                last_step = step
                if time.perf_counter() > deadline:
                    break
            nursery.cancel_scope.cancel()
        steps = await run.stop()
    # frames still in the ring after the stop
    while (frame := sock.poll()) is not None:
        with frame:
            received += 1
    report.update(steps=steps, received=received, dropped=sock.dropped,
                  epochs=prog._runner.epochs, samples=samples)
    assert received + sock.dropped == steps, (received, sock.dropped, steps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--size", type=int, default=1 << 16, help="field elements")
    parser.add_argument("--device", default=None)
    parser.add_argument("--json", default=None, help="write the report here too")
    args = parser.parse_args()
    ctx = vkp.Context(selector(args.device))
    prog, sock = build(ctx, args.size)
    report: dict = {"device": ctx.info.summary(), "minutes": args.minutes}
    t = time.perf_counter()
    trio.run(soak, prog, sock, args.minutes * 60, report)
    report["seconds"] = time.perf_counter() - t
    samples = [s for s in report.pop("samples") if s[0] >= 60] or report.get("samples", [])
    if len(samples) >= 2:
        report["rss_growth_mib"] = (samples[-1][1] - samples[0][1]) / 2**20
        if samples[0][2] is not None:
            report["device_growth_mib"] = (samples[-1][2] - samples[0][2]) / 2**20
    print(json.dumps(report, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    for key in ("rss_growth_mib", "device_growth_mib"):
        if report.get(key, 0) * 2**20 > GROWTH_LIMIT:
            print(f"FAIL: {key} = {report[key]:.1f} MiB")
            return 1
    print(f"OK: {report['steps']} steps, {report['received']} frames received, "
          f"{report['dropped']} dropped, {report.get('commands', 0)} commands acknowledged")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
