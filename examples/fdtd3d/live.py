"""The live window: slices and the probe trace redrawn from memsock frames while the GPU
runs, under trio; keys steer the run through the program's commands.

    space  pause / resume          + / -  source frequency x1.1 / /1.1
    a / z  amplitude x2 / /2       ] / [  snapshot interval /2 / x2
    h / n  hot-cell threshold x1.25 / /1.25                q  stop
"""
from __future__ import annotations

import time

import numpy as np
import trio

KEYS = __doc__.split("\n\n")[1]


def live(sim, args):
    import matplotlib.pyplot as plt
    latest = {}

    def on_slice(name, step, data):
        latest[name] = (step, np.array(data, copy=True))

    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    images = {}
    for ax, sl in zip(axes[:2], sim.slices):
        ax.set_title(sl.name)
        images[sl.name] = ax
    trace_ax = axes[2]
    trace_ax.set_title("probe 'forward' (Ez)")
    status = fig.text(0.01, 0.01, "", family="monospace")
    commands = []
    fig.canvas.mpl_connect("key_press_event", lambda ev: commands.append(ev.key))
    print(KEYS)

    async def main():
        freq = float(sim.sources[0].frequency)
        amp = float(sim.sources[0].amplitude)
        snap = sim.snap_every
        thresh = sim.hot.threshold if sim.hot is not None else None
        paused = False
        async with sim.session(args.steps, mode=args.mode, keep_frames=False,
                               on_slice=on_slice) as run:
            t0, s0 = time.perf_counter(), 0
            while not run.finished:
                while commands:
                    key = commands.pop(0)
                    if key == " ":
                        if paused:
                            await run.resume()
                        else:
                            await run.pause()
                        paused = not paused
                    elif key in ("+", "-"):
                        freq = freq * 1.1 if key == "+" else freq / 1.1
                        await run.send(freq=freq)
                    elif key in ("a", "z"):
                        amp = amp * 2 if key == "a" else amp / 2
                        await run.send(amp=amp)
                    elif key in ("]", "["):
                        snap = max(1, snap // 2) if key == "]" else snap * 2
                        await run.send(snap_every=snap)
                    elif key in ("h", "n") and thresh is not None:
                        thresh = thresh * 1.25 if key == "h" else thresh / 1.25
                        await run.send(hot_threshold=thresh)
                    elif key == "q":
                        await run.stop()
                        return
                for name, ax in images.items():
                    if name in latest:
                        step, data = latest[name]
                        ax.clear()
                        field = next(sl.field for sl in sim.slices if sl.name == name)
                        ax.imshow(data.T, origin="lower", cmap="inferno" if "|" in field
                                  else "RdBu_r", interpolation="nearest")
                        ax.set_title(f"{name} at step {step}")
                        hot = sim.hot_frames[-1] if sim.hot_frames else None
                        sl = next(x for x in sim.slices if x.name == name)
                        if hot is not None and sim.hot.axis == sl.axis and len(hot[1]):
                            ax.scatter(hot[1][:, 0], hot[1][:, 1], s=4, c="lime", marker="s")
                p = sim.probe("forward")
                if "ez" in p and len(p["ez"]):
                    trace_ax.clear()
                    trace_ax.plot(p["t_e"] * 1e9, p["ez"])
                    trace_ax.set_xlabel("t (ns)")
                now = time.perf_counter()
                rate = (run.steps_done - s0) / max(now - t0, 1e-9)
                t0, s0 = now, run.steps_done
                status.set_text(f"step {run.steps_done}/{args.steps}  {rate:9.0f} steps/s  "
                                f"f = {freq / 1e9:.3f} GHz  amp = {amp:g}  snap every {snap}"
                                f"  hot > {thresh or 0:.3g} V/m"
                                f"{'  PAUSED' if paused else ''}")
                fig.canvas.draw_idle()
                fig.canvas.flush_events()
                await trio.sleep(0.05)
            await run.wait()
    plt.show(block=False)
    trio.run(main)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        fig.savefig(args.out / "live_last.png", dpi=80)
    plt.close(fig)
