"""Rendering frames with matplotlib off the trio event loop.

    async for frame in run.memsock("v"):
        with frame:                        # the view stays valid until the render returns
            await vkp.render_in_thread(draw, frame.data, step, path=f"v_{step}.png")

Rendering a figure takes tens to hundreds of milliseconds. Done in the body of a session
it blocks the event loop: the device goes on (its driver has a thread of its own), but
every other task of the loop waits, and the frames queue up. `render_in_thread` runs
`draw(fig, *args)` on a fresh `matplotlib.figure.Figure` in a worker thread (trio's
`to_thread`) and saves it or returns its pixels. It uses the object-oriented Figure API
with the Agg canvas, never pyplot, whose global state (the current figure, the GUI event
loop) is not thread-safe; renders run one at a time, since matplotlib's shared caches (fonts,
colormaps) are not meant for concurrent use.
"""
from __future__ import annotations

import os

import numpy as np
import trio

_one_at_a_time = trio.lowlevel.RunVar("vkpersist_render_limiter")


def _limiter() -> trio.CapacityLimiter:
    try:
        return _one_at_a_time.get()
    except LookupError:
        limiter = trio.CapacityLimiter(1)
        _one_at_a_time.set(limiter)
        return limiter


def _render(draw, args, kwargs, path, figsize, dpi, savefig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=figsize, dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    draw(fig, *args, **kwargs)
    if path is not None:
        fig.savefig(path, **savefig)
        return os.fspath(path)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba()).copy()


async def render_in_thread(draw, *args, path=None, figsize=(6.4, 4.8), dpi: float = 100,
                           savefig: dict | None = None, **kwargs):
    """Under trio: call `draw(fig, *args, **kwargs)` on a new matplotlib Figure in a
    worker thread, then save it to `path` (any format `fig.savefig` knows, options in
    `savefig`) and return the path, or, without a path, return its pixels as an RGBA
    uint8 array of shape (height, width, 4). `draw` must use the Figure it is given
    (`fig.add_subplot()`, `ax.imshow(...)`), not pyplot. Arrays passed in are read while
    the render runs: pass `frame.data` inside the frame's `with` block (it is released
    after the await returns), or `frame.copy()`. Renders run one at a time; the await
    waits for its own, so a cancelled caller returns once that render ends."""
    if not callable(draw):
        raise TypeError(f"render_in_thread(draw, ...): draw must be a function of a "
                        f"matplotlib Figure, got {draw!r}")
    return await trio.to_thread.run_sync(
        _render, draw, args, kwargs, path, figsize, dpi, dict(savefig or {}),
        limiter=_limiter())
