"""`make demo` until the FDTD example lands: list the devices, run a kernel and check it,
then run a persistent program under trio, steer it mid-run and check it against NumPy."""
from __future__ import annotations

import time

import numpy as np

from .vk.devices import device_table
from .vk.context import default_context
from .vk.glsl_kernel import glsl_kernel

SOURCE = """#version 450
layout(local_size_x = 256) in;
layout(push_constant) uniform Params { float a; uint n; };
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def main() -> int:
    print("Vulkan devices:")
    print(device_table())
    ctx = default_context()
    print(f"\nRunning saxpy (y = a*x + y) on {ctx.name}:")
    print("\n".join("    " + line for line in SOURCE.strip().splitlines()))
    n = 1 << 22
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    dx, dy = ctx.asarray(x), ctx.asarray(y)
    saxpy = glsl_kernel(SOURCE, name="saxpy")
    groups = (n + 255) // 256
    saxpy[groups](dx, dy, a=2.0, n=n)
    ctx.synchronize()
    reps = 20
    t = time.perf_counter()
    for _ in range(reps):
        saxpy[groups](dx, dy, a=2.0, n=n)
    ctx.synchronize()
    dt = (time.perf_counter() - t) / reps
    got = dy.numpy()
    want = y.copy()
    for _ in range(reps + 1):
        want = np.float32(2.0) * x + want
    err = float(np.max(np.abs(got - want) / (1 + np.abs(want))))
    ok = err < 1e-5
    print(f"\n{n:,} elements, {dt * 1e3:.2f} ms per launch "
          f"({3 * 4 * n / dt / 1e9:.1f} GB/s), {reps + 1} launches")
    print(f"y[:4] = {got[:4]}  (NumPy: {want[:4]})")
    print(f"max relative error vs NumPy: {err:.1e} -> {'OK' if ok else 'MISMATCH'}")
    return 0 if ok and steered_program(ctx) else 1


N, STEPS, EVERY = 128, 1000, 250


def heat_program(ctx):
    """A 2-d plate with a heated spot: diffuse, copy back, re-impose the spot; a frame of
    the plate every EVERY steps."""
    import vkpersist as vkp
    prog = vkp.Program(ctx, name="plate")
    T = prog.array("T", (N, N))
    T2 = prog.array("T2", (N, N))
    ctl = prog.controls(spot=vkp.f32(1.0), alpha=vkp.f32(0.2))
    plate = prog.memsock("plate", np.float32, (N, N), capacity=4, policy="block",
                         payload={"step": vkp.u32})

    @prog.stage(domain=(N - 2, N - 2))
    def diffuse(i, j):
        c = T[i + 1, j + 1]
        T2[i + 1, j + 1] = c + ctl.alpha * (T[i, j + 1] + T[i + 2, j + 1] + T[i + 1, j]
                                             + T[i + 1, j + 2] - 4.0 * c)

    @prog.stage(domain=(N - 2, N - 2))
    def copy_back(i, j):
        T[i + 1, j + 1] = T2[i + 1, j + 1]

    @prog.stage(domain=1)
    def heat(i):
        T[N // 2, N // 2] = ctl.spot

    @prog.stage(domain=(N, N))
    def snapshot(i, j):
        plate.frame[i, j] = T[i, j]
        if i == 0 and j == 0:
            plate.step = prog.step

    prog.loop(diffuse, copy_back, heat, vkp.every(EVERY, snapshot))
    return prog, T, plate


def plate_reference(steps_and_spots, alpha=np.float32(0.2)):
    t = np.zeros((N, N), np.float32)
    for steps, spot in steps_and_spots:
        for _ in range(steps):
            c = t[1:-1, 1:-1]
            lap = t[:-2, 1:-1] + t[2:, 1:-1] + t[1:-1, :-2] + t[1:-1, 2:] - 4 * c
            t[1:-1, 1:-1] = c + alpha * lap
            t[N // 2, N // 2] = spot
    return t


def steered_program(ctx) -> bool:
    import trio
    prog, T, plate = heat_program(ctx)
    print(f"\nA program (a heated {N}x{N} plate, {STEPS} steps) running under trio; "
          "halfway, a command cools the spot:")

    async def main():
        # until stopped, not steps=STEPS: a fast GPU ends a bounded run before the host,
        # printing frames, sends the command
        async with prog.session() as run:
            ack = None
            async for frame in plate.frames():
                step = int(frame.payload["step"])
                with frame:
                    print(f"    step {step:5d}: mean {frame.data.mean():.5f}"
                          f", spot {frame.data[N // 2, N // 2]:+.2f}")
                if ack is None and step >= STEPS // 2:
                    ack = await run.send(spot=-1.0)
                    print(f"    command spot=-1.0 applied before step {ack.step}")
                if ack is not None and step >= STEPS - EVERY:
                    break
            while run.steps_done < STEPS:
                await trio.sleep(0.001)
            return ack, run.mode, await run.stop()

    t = time.perf_counter()
    ack, mode, done = trio.run(main)
    dt = time.perf_counter() - t
    want = plate_reference([(ack.step, np.float32(1.0)), (done - ack.step, np.float32(-1.0))])
    err = float(np.max(np.abs(T.numpy() - want)))
    ok = err < 1e-5
    print(f"{done} steps in {dt:.2f} s (mode {mode!r}); max error vs a NumPy replay with the "
          f"command at step {ack.step}: {err:.1e} -> {'OK' if ok else 'MISMATCH'}")
    prog.free()
    return ok
