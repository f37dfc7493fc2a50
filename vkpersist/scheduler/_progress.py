"""Progress of a run or a session: steps done, the recent steps/s and the time left.

`prog.run(steps)` shows them as a terminal progress bar (tqdm) when stderr is a terminal
and the run lasts more than a second; sessions give the same numbers as `run.progress`.
The rate is measured over the last few seconds of completed epochs (batches), so it
follows a program whose speed changes (a command, a consumer that starts blocking) instead
of averaging over the whole run.
"""
from __future__ import annotations

import sys
import threading
import time
from collections import deque
from typing import NamedTuple

WINDOW_S = 3.0               # the rate is taken over the epochs of the last 3 s
BAR_DELAY_S = 1.0            # runs shorter than this show no bar


class Progress(NamedTuple):
    """Where a run or session stands: `steps` done of `total` (None: until stopped),
    `elapsed` seconds, the recent `steps_per_second` and `eta` (seconds left at that rate,
    None when unknown)."""
    steps: int
    total: int | None
    elapsed: float
    steps_per_second: float
    eta: float | None

    def __str__(self) -> str:
        total = "" if self.total is None else f"/{self.total}"
        eta = "" if self.eta is None else f", ETA {self.eta:.1f} s"
        return (f"{self.steps}{total} steps in {self.elapsed:.1f} s, "
                f"{self.steps_per_second:.0f} steps/s{eta}")


class Meter:
    """Steps against time, recorded by whoever completes epochs (the session's driver
    thread, or `run()`), read from any thread."""

    def __init__(self, total: int | None):
        self.total = total
        self.start = time.perf_counter()
        self._samples = deque([(self.start, 0)])
        self._lock = threading.Lock()

    def record(self, steps: int) -> None:
        """`steps` done since the start, now."""
        now = time.perf_counter()
        with self._lock:
            self._samples.append((now, steps))
            while len(self._samples) > 2 and now - self._samples[1][0] > WINDOW_S:
                self._samples.popleft()

    def read(self, steps: int | None = None, ended: bool = False) -> Progress:
        """The progress now; `steps`: a fresher count than the last recorded one. While
        running (not `ended`), no epoch for WINDOW_S means no steps now: 0 steps/s."""
        now = time.perf_counter()
        with self._lock:
            (t0, s0), (t1, s1) = self._samples[0], self._samples[-1]
        rate = (s1 - s0) / (t1 - t0) if t1 > t0 else 0.0
        if not ended and now - t1 > WINDOW_S:     # paused, or waiting for a reader
            rate = 0.0
        steps = s1 if steps is None else max(steps, s1)
        eta = None
        if self.total is not None and rate > 0:
            eta = max(0.0, (self.total - steps) / rate)
        return Progress(steps, self.total, now - self.start, rate, eta)


def wants_bar(progress) -> bool:
    """`progress=None` (the default): a bar only where someone watches, a terminal on
    stderr; True or False decide."""
    if progress is None:
        stream = sys.stderr
        return bool(stream is not None and hasattr(stream, "isatty") and stream.isatty())
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True, False or None (a bar when stderr is a "
                        f"terminal), got {progress!r}")
    return progress


class Bar:
    """A tqdm bar of steps (nothing when `enabled` is false): shown once the run has lasted
    BAR_DELAY_S, updated at each epoch, with steps/s and the ETA."""

    def __init__(self, enabled: bool, total: int | None, name: str):
        self._bar = None
        if enabled:
            from tqdm import tqdm
            self._bar = tqdm(total=total, desc=name, unit="step", delay=BAR_DELAY_S,
                             mininterval=0.25, dynamic_ncols=True, leave=True)

    def update(self, steps: int) -> None:
        if self._bar is not None:
            self._bar.update(steps - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
