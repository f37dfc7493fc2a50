"""Periodic checkpoints of a running program: `vkp.Checkpoints(folder, every=..., minutes=...,
keep=...)`, given to `prog.run` or `prog.session`.

    cp = vkp.Checkpoints("ckpt", every=10_000, keep=3)
    if cp.latest():                          # a run that was killed: go on from its last
        prog.restore(cp.latest())
    prog.run(1_000_000 - int(prog.step), checkpoints=cp)

A checkpoint is taken where the device is idle anyway: between two epochs (a persistent
program's megakernel ends every ~0.25 s and is launched again; a launch-mode batch ends
likewise), so the device stops only while the state is copied to the host. `every=N`
caps each epoch so that one ends at every multiple of N steps. The file is written by a
thread of its own while the next epochs run; a checkpoint due while the previous one is
still being written waits for it (so at most one state is held in host memory besides
the program's own). Files are `<folder>/<program>_<step>.h5`, each written crash-safe
(scheduler/_checkpoint.py); the `keep` newest stay.
"""
from __future__ import annotations

import concurrent.futures
import math
import os
import pathlib
import re
import time

import tqdm

from .._errors import VkPersistError
from . import _checkpoint

__all__ = ["Checkpoints"]


class Checkpoints:
    """When and where a running program writes its checkpoints (see the module's doc)."""

    def __init__(self, folder, *, every: int | None = None, minutes: float | None = None,
                 keep: int = 3, host=None, log=True):
        if every is None and minutes is None:
            raise ValueError("Checkpoints(folder, every=N steps and/or minutes=T): say how "
                             "often; neither was given")
        if every is not None and (isinstance(every, bool) or not isinstance(every, int)
                                  or every < 1):
            raise ValueError(f"Checkpoints(every=...) takes a step count >= 1, got {every!r}")
        if minutes is not None and (isinstance(minutes, bool)
                                    or not isinstance(minutes, (int, float))
                                    or not 0 < minutes < math.inf):
            raise ValueError(f"Checkpoints(minutes=...) takes a positive number, got "
                             f"{minutes!r}")
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            raise ValueError(f"Checkpoints(keep=...) takes how many files to keep, >= 1; got "
                             f"{keep!r}")
        if host is not None and not callable(host):
            raise TypeError(f"Checkpoints(host=...) takes a function returning a dict of "
                            f"host arrays to save with each checkpoint, got {host!r}")
        self.host = host          # () -> {name: array}, called at each checkpoint
        self.folder = pathlib.Path(folder)
        self.every, self.minutes, self.keep = every, minutes, keep
        # a line per checkpoint: True (stderr, above a progress bar), False, or a callable
        self._log = (lambda line: tqdm.tqdm.write(line)) if log is True else \
            (log if callable(log) else None)
        self._writer = None
        self._pending = None
        self._last_time = None
        self.written: list[tuple[int, pathlib.Path]] = []     # (step, path), oldest first

    def __repr__(self) -> str:
        when = " and ".join(w for w in (f"every {self.every} steps" if self.every else "",
                                        f"every {self.minutes:g} min" if self.minutes else "")
                            if w)
        return f"vkpersist.Checkpoints({str(self.folder)!r}: {when}, keep {self.keep})"

    # ---- the files ---------------------------------------------------------------------
    def path(self, prog, step: int) -> pathlib.Path:
        return self.folder / f"{prog.name}_{step:012d}.h5"

    def files(self, name: str | None = None) -> list[tuple[int, pathlib.Path]]:
        """The checkpoints in the folder, (step, path) oldest first (of program `name`,
        or of every program)."""
        pattern = re.compile(rf"({re.escape(name) if name else '.+'})_(\d+)\.h5")
        out = []
        if self.folder.is_dir():
            for p in self.folder.iterdir():
                m = pattern.fullmatch(p.name)
                if m:
                    out.append((int(m.group(2)), p))
        return sorted(out)

    def latest(self, name: str | None = None) -> pathlib.Path | None:
        """The newest checkpoint in the folder (of program `name`), or None."""
        found = self.files(name)
        return found[-1][1] if found else None

    # ---- during a run -------------------------------------------------------------------
    def start(self, prog) -> None:
        """At the start of a run: the folder exists, the clock starts."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._last_time = time.monotonic()
        self._last_step = prog.steps_done

    def steps_until_due(self, steps_done: int) -> int:
        """How many steps the next epoch may run so that it ends where one is due."""
        if self.every is None:
            return 1 << 62
        return self.every - steps_done % self.every

    def due(self, steps_done: int) -> bool:
        if steps_done == self._last_step:
            return False
        if self.every is not None and steps_done % self.every == 0:
            return True
        return self.minutes is not None and \
            time.monotonic() - self._last_time >= 60 * self.minutes

    def take(self, prog) -> None:
        """Copy the state now (the device idle between epochs), write it in the
        background."""
        self._wait_previous()
        started = time.perf_counter()
        state = _checkpoint.capture(prog, between_epochs=True,
                                    host=self.host() if self.host is not None else None)
        copied = time.perf_counter() - started
        path = self.path(prog, state["step"])
        self._last_time, self._last_step = time.monotonic(), state["step"]
        if self._writer is None:
            self._writer = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="vkpersist-checkpoint")
        self._pending = self._writer.submit(self._write, state, path, prog.name, copied)

    def _write(self, state, path, name, copied) -> None:
        started = time.perf_counter()
        _checkpoint.write(state, path, program=name)
        self.written.append((state["step"], path))
        old = self.files(name)
        for _, stale in old[:-self.keep] if len(old) > self.keep else ():
            try:
                os.unlink(stale)
            except OSError:
                pass
        if self._log is not None:
            size = path.stat().st_size
            self._log(f"vkpersist: {name}: checkpoint at step {state['step']} -> {path} "
                      f"({size / 2**20:.1f} MiB; device held {1e3 * copied:.0f} ms, written "
                      f"in {time.perf_counter() - started:.2f} s)")

    def _wait_previous(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            try:
                pending.result()
            except Exception as exc:
                raise VkPersistError(f"writing a checkpoint into {str(self.folder)!r} "
                                     f"failed: {exc}") from exc

    def finish(self) -> None:
        """At the end of a run: wait for the last file (its error, if any, raised here)."""
        self._wait_previous()
