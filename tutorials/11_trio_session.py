"""Lesson 11: the trio session: watch and steer a running program.

`async with prog.session() as run:` runs a persistent program in the background while your
trio code reads its frames as they arrive (`async for frame in sock`) and steers it:
`await run.send(freq=...)` changes a control at a step boundary and returns an
acknowledgement naming that step; `await run.pause()`, `run.resume()` and `run.stop()`
act at step boundaries too. Here a point source makes waves in a 2-D box; a third of the
way through the host changes its frequency, pauses to look at the field, resumes, and
stops. A NumPy replay of the same schedule checks that the change landed exactly at the
acknowledged step.

    python tutorials/11_trio_session.py [--size CELLS] [--steps FRAMES]
"""
import math

import numpy as np
import trio

import vkpersist as vkp
from _common import interactive, parse, pyplot, save

args = parse(__doc__, size=96, steps=18, size_help="cells per side",
             steps_help="frames to watch (one every 10 steps) before stopping")
n = args.size
EVERY, C2, F1, F2 = 10, 0.25, 0.02, 0.045     # frame interval, (c dt/dx)^2, source cycles/step

prog = vkp.Program(name="waves")
U = prog.array("U", (n, n))                  # the field now
Up = prog.array("Up", (n, n))                # one step ago
Un = prog.array("Un", (n, n))                # next
ctl = prog.controls(freq=vkp.f32(F1))
snap = prog.memsock("snap", np.float32, (n, n), capacity=8, policy="drop",
                    payload={"step": vkp.u32})


@vkp.func
def at(a, i, j):
    if i < 0 or j < 0 or i >= n or j >= n:
        return 0.0
    return a[i, j]


@prog.stage(domain=(n, n))
def leapfrog(i, j):
    lap = at(U, i - 1, j) + at(U, i + 1, j) + at(U, i, j - 1) + at(U, i, j + 1) - 4.0 * U[i, j]
    u = 2.0 * U[i, j] - Up[i, j] + C2 * lap
    if i == n // 2 and j == n // 3:
        u += math.sin(2.0 * math.pi * ctl.freq * prog.step)
    Un[i, j] = u


@prog.stage(domain=(n, n))
def shift(i, j):
    Up[i, j] = U[i, j]
    U[i, j] = Un[i, j]


@prog.stage(domain=(n, n))
def emit(i, j):
    snap.frame[i, j] = U[i, j]
    if i == 0 and j == 0:
        snap.step = prog.step


prog.loop(leapfrog, shift, vkp.every(EVERY, emit))


def replay(f_change_step, total):
    """The same scheme in float64 NumPy with the frequency changed before f_change_step."""
    u, up = np.zeros((n, n)), np.zeros((n, n))
    for s in range(total):
        p = np.pad(u, 1)
        lap = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u
        un = 2 * u - up + C2 * lap
        f = np.float32(F1 if s < f_change_step else F2)
        un[n // 2, n // 3] += math.sin(2 * math.pi * float(f) * s)
        up, u = u, un
    return u


async def watch():
    plt = pyplot()
    live = interactive()
    if live:
        plt.ion()
        fig, ax = plt.subplots()
        img = ax.imshow(np.zeros((n, n)), cmap="RdBu_r", vmin=-1, vmax=1, origin="lower")
    kept, log = {}, {}
    async with prog.session() as run:
        async for frame in snap:             # frames in order, while the GPU runs on
            with frame:
                step = int(frame.payload["step"])
                kept[step] = np.array(frame.data)
                if live:
                    img.set_data(frame.data)
                    ax.set_title(f"step {step}")
                    plt.pause(0.001)
            if len(kept) == args.steps // 3 and "ack" not in log:
                log["ack"] = await run.send(freq=F2)
                print(f"freq {F1} -> {F2} acknowledged: in effect from step {log['ack'].step}")
            if len(kept) == 2 * args.steps // 3 and "paused" not in log:
                log["paused"] = await run.pause()
                print(f"paused after {log['paused']} steps; the field is readable now: "
                      f"max |U| = {np.abs(U.numpy()).max():.3f}")
                await run.resume()
            if len(kept) >= args.steps:
                log["stopped"] = await run.stop()
                break
    print(f"stopped: {run!r}; {len(kept)} frames read, {snap.dropped} dropped")
    return kept, log


def main():
    kept, log = trio.run(watch)
    total, change = log["stopped"], log["ack"].step
    ref = replay(change, total)
    err = np.abs(U.numpy() - ref).max() / np.abs(ref).max()
    print(f"U after {total} steps against a NumPy replay with the change at step {change}: "
          f"max error {err:.1e} of max |U|")
    # a change one step earlier or later: (at some steps both frequencies give the same
    # source value, sin(2 pi f s) = 0 at s = 400 for both, so one of the two can coincide)
    wrong = max(np.abs(U.numpy() - replay(change + d, total)).max() / np.abs(ref).max()
                for d in (-1, 1))
    print(f"(a replay with the change one step earlier or later differs by up to {wrong:.1e})")
    assert err < 1e-4 < wrong, "the command did not land at the acknowledged step"

    plt = pyplot()
    shown = [s for s in sorted(kept) if s < change][-1:] + sorted(kept)[-1:]
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.8))
    for ax, s in zip(axes, shown):
        ax.imshow(kept[s], cmap="RdBu_r", vmin=-1, vmax=1, origin="lower")
        ax.set_title(f"step {s}: freq {F1 if s < change else F2}")
    save(fig, args.out, "11_trio_session")
    print("lesson 11 OK")


if __name__ == "__main__":
    main()
