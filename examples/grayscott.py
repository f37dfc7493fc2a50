"""Gray-Scott reaction-diffusion as a persistent program, steered from trio.

    python -m examples.grayscott                          # 128², PNGs in grayscott-out/
    python -m examples.grayscott --size 256 --steps 20000 --mode persistent

Two species on a periodic 2-D grid: U is fed at rate F, V eats U (U + 2V -> 3V) and dies
at rate F + k:

    dU/dt = Du ∇²U - U V² + F (1 - U)
    dV/dt = Dv ∇²V + U V² - (F + k) V

One program step is one explicit Euler step (dt = 1, the 5-point Laplacian), written as
two stages that swap the roles of (U, V) and (U2, V2) on odd steps. Every `--every`
steps a stage streams V through a memsock; the trio session saves each frame as a PNG,
rendered with matplotlib in a worker thread (`vkp.render_in_thread`), so the simulation runs
on at full speed however slow the rendering is. Halfway through, the session steers the
feed and kill rates from "mitosis" (spots that divide) to "coral" (a branching maze) with
one command, acknowledged with the step it took effect at.
"""
from __future__ import annotations

import argparse
import pathlib
import time

import numpy as np

import vkpersist as vkp

DU, DV = 0.16, 0.08
MITOSIS = (0.0367, 0.0649)
CORAL = (0.0545, 0.062)


def initial_state(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """U = 1, V = 0, with a noisy square of V in the middle (and a few random ones)."""
    rng = np.random.default_rng(seed)
    u = np.ones((n, n), np.float32)
    v = np.zeros((n, n), np.float32)
    for cy, cx in [(n // 2, n // 2), *rng.integers(n // 8, n - n // 8, (3, 2))]:
        r = max(2, n // 16)
        u[cy - r:cy + r, cx - r:cx + r] = 0.5
        v[cy - r:cy + r, cx - r:cx + r] = 0.25
    v += 0.02 * rng.random((n, n), dtype=np.float32)
    return u, v


def build(ctx=None, n: int = 128, every: int = 100, capacity: int = 8, policy: str = "block",
          feed_kill=MITOSIS, seed: int = 0):
    """The program, its arrays (U, V) and its memsock of V frames (payload: step, F, k)."""
    u0, v0 = initial_state(n, seed)
    prog = vkp.Program(ctx, name=f"grayscott{n}")
    U = prog.array("U", (n, n), init=u0)
    V = prog.array("V", (n, n), init=v0)
    U2 = prog.array("U2", (n, n))
    V2 = prog.array("V2", (n, n))
    ctl = prog.controls(F=vkp.f32(feed_kill[0]), k=vkp.f32(feed_kill[1]),
                        every=vkp.u32(every))
    frames = prog.memsock("v", np.float32, (n, n), capacity=capacity, policy=policy,
                          payload={"step": vkp.u32, "F": vkp.f32, "k": vkp.f32})

    @vkp.func
    def lap(a, i, j):
        return (a[(i + n - 1) % n, j] + a[(i + 1) % n, j] + a[i, (j + n - 1) % n]
                + a[i, (j + 1) % n] - 4.0 * a[i, j])

    @vkp.func
    def react(u, v, u_next, v_next, i, j):
        uu = u[i, j]
        vv = v[i, j]
        uvv = uu * vv * vv
        u_next[i, j] = uu + (DU * lap(u, i, j) - uvv + ctl.F * (1.0 - uu))
        v_next[i, j] = vv + (DV * lap(v, i, j) + uvv - (ctl.F + ctl.k) * vv)

    @prog.stage(domain=(n, n))
    def even(i, j):                    # steps 0, 2, 4...: (U, V) -> (U2, V2)
        if prog.step % 2 == 0:
            react(U, V, U2, V2, i, j)

    @prog.stage(domain=(n, n))
    def odd(i, j):                     # steps 1, 3, 5...: (U2, V2) -> (U, V)
        if prog.step % 2 == 1:
            react(U2, V2, U, V, i, j)

    @prog.stage(domain=(n, n))
    def emit(i, j):                    # V as it is after the step
        if prog.step % 2 == 0:
            frames.frame[i, j] = V2[i, j]
        else:
            frames.frame[i, j] = V[i, j]
        if i == 0 and j == 0:
            frames.step = prog.step
            frames.F = ctl.F
            frames.k = ctl.k

    prog.loop(even, odd, vkp.every(ctl.every, emit))
    return prog, (U, V, U2, V2), frames


def state(prog, arrays) -> tuple[np.ndarray, np.ndarray]:
    """(U, V) after the program's steps so far (the pair the last step wrote)."""
    U, V, U2, V2 = arrays
    return (U2.numpy(), V2.numpy()) if int(prog.step) % 2 else (U.numpy(), V.numpy())


def reference(u, v, steps: int, feed_kill=MITOSIS) -> tuple[np.ndarray, np.ndarray]:
    """The same scheme in NumPy (float32, periodic), for checking."""
    f, k = np.float32(feed_kill[0]), np.float32(feed_kill[1])
    u, v = u.astype(np.float32), v.astype(np.float32)

    def lap(a):
        return (np.roll(a, 1, 0) + np.roll(a, -1, 0) + np.roll(a, 1, 1) + np.roll(a, -1, 1)
                - np.float32(4) * a)
    for _ in range(steps):
        uvv = u * v * v
        u, v = (u + (np.float32(DU) * lap(u) - uvv + f * (np.float32(1) - u)),
                v + (np.float32(DV) * lap(v) + uvv - (f + k) * v))
    return u, v


def draw(fig, frame_data, step, F, k):
    """Render one frame into a matplotlib Figure (object-oriented API: thread-safe)."""
    ax = fig.add_subplot()
    ax.imshow(frame_data, cmap="magma", vmin=0.0, vmax=0.45, interpolation="nearest")
    ax.set_title(f"Gray-Scott V, step {step}  (F={F:.4f}, k={k:.4f})")
    ax.set_axis_off()


async def steer(prog, out: pathlib.Path, steps: int, mode: str = "auto", work: float = 0.0):
    """The session: save every frame as a PNG off the event loop, switch to the coral
    regime at the first frame past halfway; returns (frames saved, the command's ack).
    The device runs on while a frame renders, but with policy "block" it stays at most
    the ring's capacity (2 here) frames ahead of this loop, so the switch lands before
    the program ends."""
    import trio
    out.mkdir(parents=True, exist_ok=True)
    saved, ack = [], None
    async with prog.session(steps=steps, mode=mode) as run:
        async for frame in run.memsock("v"):
            with frame:                  # frame.data stays valid until the render returns
                step = int(frame.payload["step"])
                path = out / f"v_{step:07d}.png"
                await vkp.render_in_thread(draw, frame.data, step, float(frame.payload["F"]),
                                           float(frame.payload["k"]), path=path,
                                           figsize=(5, 5), dpi=80,
                                           savefig={"bbox_inches": "tight"})
                saved.append(path)
            if work:
                time.sleep(work)         # a slow consumer, blocking the loop: the device runs on
            if ack is None and step >= steps // 2:
                ack = await run.send(F=CORAL[0], k=CORAL[1])
            if step + int(prog.ctl["every"]) >= steps:
                break
        await run.wait()
        print(f"  {run.progress}")
    return saved, ack


def main(argv=None):
    import trio
    ap = argparse.ArgumentParser(prog="python -m examples.grayscott", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=128, help="cells per side (default 128)")
    ap.add_argument("--steps", type=int, default=4000, help="steps (default 4000)")
    ap.add_argument("--every", type=int, default=400, help="steps between frames (default 400)")
    ap.add_argument("--mode", choices=("auto", "persistent", "launch"), default="auto")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("grayscott-out"))
    args = ap.parse_args(argv)
    for name in ("size", "steps", "every"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be >= 1, got {getattr(args, name)}")
    if args.steps < 4 * args.every:
        ap.error("--steps must be at least 4 x --every (the switch happens halfway, while "
                 "the program runs)")
    prog, arrays, frames = build(n=args.size, every=args.every, capacity=2)
    print(f"grayscott: {args.size}² cells, {args.steps} steps on "
          f"{prog.ctx.info.name}, mode {args.mode}")
    t0 = time.perf_counter()
    saved, ack = trio.run(steer, prog, args.out, args.steps, args.mode)
    wall = time.perf_counter() - t0
    print(f"  {int(prog.step)} steps in {wall:.1f} s ({int(prog.step) / wall:.0f} steps/s), "
          f"mode {prog._runner.mode}; F, k switched to coral before step {ack.step}")
    print(f"  {len(saved)} PNGs in {args.out}/, the last {saved[-1].name}")
    prog.free()


if __name__ == "__main__":
    main()
