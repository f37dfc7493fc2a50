"""The live window: slices and the probe trace redrawn from memsock frames while the GPU
runs, under trio; keys steer the run through the program's commands.

    space  pause / resume          + / -  source frequency x1.1 / /1.1
    a / z  amplitude x2 / /2       ] / [  snapshot interval /2 / x2
    h / n  hot-cell threshold x1.25 / /1.25                q  stop
"""
from __future__ import annotations

import sys
import time

import numpy as np
import trio

from .output import atomic, on_screen, unit

KEYS = __doc__.split("\n\n")[1]


REDRAW_S = 0.25         # at most 4 redraws a second,
DRAW_SHARE = 0.2        # and at most this share of the time: a draw blocks trio, and with it
                        # the run's launches (a 3-panel draw takes 0.3-2 s on a loaded CPU)


class SliceView:
    """One slice's image, colour bar and hot-cell overlay, updated in place (set_data)
    rather than redrawn from a cleared axes, which costs a redraw of everything."""

    def __init__(self, fig, ax, sl, sim):
        self.ax, self.sl = ax, sl
        self.signed = "|" not in sl.field
        _, u, v, _ = on_screen(sl, np.zeros((2, 2)))
        self.image = ax.imshow(np.zeros((2, 2)), origin="lower", interpolation="nearest",
                               cmap="RdBu_r" if self.signed else "inferno")
        fig.colorbar(self.image, ax=ax, fraction=0.046, pad=0.03, label=f"{sl.field} ({unit(sl.field)})")
        ax.set_xlabel(f"{u} (cells)")
        ax.set_ylabel(f"{v} (cells)")
        hot = sim.hot
        self.hot = hot is not None and hot.axis == sl.axis and hot.index == sl.index
        self.overlay = ax.scatter([], [], s=4, c="lime", marker="s",
                                  label="hot cells" if self.hot else None)

    def update(self, step, data, hot_cells):
        top = float(np.abs(data).max()) or 1e-30
        shown, _, _, cells = on_screen(self.sl, data, hot_cells)
        self.image.set_data(shown)
        self.image.set_extent((-0.5, shown.shape[1] - 0.5, -0.5, shown.shape[0] - 0.5))
        self.image.set_clim(-top if self.signed else 0.0, top)   # zero is white when signed
        self.ax.set_title(f"{self.sl.field} at {self.sl.axis} = {self.sl.index}, step {step}")
        if self.hot:
            self.overlay.set_offsets(cells if cells is not None and len(cells)
                                     else np.zeros((0, 2)))


async def steer(run, **values) -> bool:
    """Send a key's command; one the controls refuse (out of its declared range, or not
    finite: the scene's limits) is said on stderr and the run goes on unchanged."""
    try:
        await run.send(**values)
    except ValueError as exc:
        print(f"fdtd3d: not sent: {exc}", file=sys.stderr)
        return False
    return True


def live(sim, args):
    import matplotlib.pyplot as plt
    from tqdm import tqdm
    latest = {}

    def on_slice(name, step, data):
        latest[name] = (step, np.array(data, copy=True))

    sim.build()                                  # the slices' planes are known from here
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.4))
    fig.subplots_adjust(left=0.05, right=0.98, bottom=0.2, top=0.9, wspace=0.6)
    views = {sl.name: SliceView(fig, ax, sl, sim) for ax, sl in zip(axes[:2], sim.slices)}
    trace_ax = axes[2]
    probe = sim.probes[0] if sim.probes else None       # the first probe's first field
    field = probe.fields[0] if probe else None
    trace_ax.set_title(f"probe {probe.name!r}: {field}" if probe else "no probe in the scene")
    trace_ax.set_xlabel("t (ns)")
    if probe:
        trace_ax.set_ylabel(f"{field} ({unit(field)})")
    (trace,) = trace_ax.plot([], [])
    status = fig.text(0.01, 0.005, "", family="monospace")
    commands = []
    fig.canvas.mpl_connect("key_press_event", lambda ev: commands.append(ev.key))
    print(KEYS)

    def redraw(run, rate, freq, amp, snap, thresh, paused):
        hot = sim.hot_frames[-1][1] if sim.hot_frames else None
        for name, view in views.items():
            if name in latest:
                view.update(*latest[name], hot)
        p = sim.probe(probe.name) if probe else {}
        if field in p and len(p[field]):
            trace.set_data(p["t_e" if field[0] == "e" else "t_h"] * 1e9, p[field])
            trace_ax.relim()
            trace_ax.autoscale_view()
        status.set_text(f"step {run.steps_done}/{args.steps}  {rate:7.0f} steps/s  "
                        f"f = {freq / 1e9:.3f} GHz  amp = {amp:g}  snap every {snap}"
                        f"  hot > {thresh or 0:.3g} V/m{'  PAUSED' if paused else ''}"
                        "     keys: space + - a z [ ] h n q")
        fig.canvas.draw()

    async def main():
        freq = float(sim.sources[0].frequency)
        amp = float(sim.sources[0].amplitude)
        snap = sim.snap_every
        thresh = sim.hot.threshold if sim.hot is not None else None
        paused = False
        bar = tqdm(total=args.steps, unit="step", desc="fdtd3d", mininterval=1.0,
                   disable=None)           # None: off when stderr is no terminal (CI logs)
        async with sim.session(args.steps, mode=args.mode, keep_frames=False,
                               on_slice=on_slice) as run:
            mark = (time.perf_counter(), 0)         # the last redraw: time, steps done
            drawn, pause_s = mark[0], REDRAW_S
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
                        new = freq * 1.1 if key == "+" else freq / 1.1
                        if await steer(run, freq=new):
                            freq = new
                    elif key in ("a", "z"):
                        new = amp * 2 if key == "a" else amp / 2
                        if await steer(run, amp=new):
                            amp = new
                    elif key in ("]", "["):
                        new = max(1, snap // 2) if key == "]" else snap * 2
                        if await steer(run, snap_every=new):
                            snap = new
                    elif key in ("h", "n") and thresh is not None:
                        new = thresh * 1.25 if key == "h" else thresh / 1.25
                        if await steer(run, hot_threshold=new):
                            thresh = new
                    elif key == "q":
                        await run.stop()
                        bar.close()
                        return
                now = time.perf_counter()
                if now - drawn >= pause_s:
                    rate = (run.steps_done - mark[1]) / (now - mark[0])
                    mark = (now, run.steps_done)
                    redraw(run, rate, freq, amp, snap, thresh, paused)
                    drawn = time.perf_counter()
                    pause_s = max(REDRAW_S, (drawn - now) * (1 - DRAW_SHARE) / DRAW_SHARE)
                    bar.n = run.steps_done
                    bar.refresh()
                fig.canvas.flush_events()           # delivers the keys
                await trio.sleep(0.05)
            await run.wait()
            redraw(run, 0.0, freq, amp, snap, thresh, paused)
            fig.canvas.flush_events()
            bar.n = run.steps_done
            bar.close()
    plt.show(block=False)
    trio.run(main)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        with atomic(args.out / "live_last.png") as tmp:
            fig.savefig(tmp, dpi=80)
    plt.close(fig)
