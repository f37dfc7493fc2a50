"""Running a Program under trio while the host steers it.

    async with prog.session(steps=10_000) as run:
        ack = await run.send(alpha=0.2)    # applied at a step boundary: ack.step says which
        await run.pause()                  # the program stops at a step boundary...
        print(run.steps_done)
        await run.resume()                 # ...and goes on from there
        await run.wait()                   # until the steps are done (or run.stop())

The device is driven from a thread of its own (the driver): it launches the epochs
(megakernel) or batches (fallback) one after another, watches the heartbeat, and waits for
a reader where a "block" memsock is full. It needs nothing from the event loop, so the
body of the session may be as slow as it likes, even blocking the loop (a matplotlib
call, a file write), without the device waiting for it: only a memsock's own policy
stops the program ("block" when its ring is full; "drop" never). Earlier the driver was a
trio task: a body that did 0.3 s of work per frame kept it from relaunching epochs, and
the device idled half the time.

The body talks to the driver through a lock-protected word (`run`, `pause`, `stop`) and
the halt word the step boundary reads: pause and stop end the running epoch at the next
step boundary (with live control memory; else at the end of the epoch) and the driver
parks or leaves. The driver reports back through trio's token (`run_sync_soon`, never
waiting for the loop). Every wait of the driver is bounded: the heartbeat (`timeout`
without a new step raises DeviceTimeout), the readers of a full "block" memsock (the same
timeout), a pause (until resumed or stopped, checked every 50 ms). Leaving the block stops
the program, also when the body raises; errors of the driver (DeviceTimeout,
DeviceLimitError) are raised from the `async with`. Memsocks with `@sock.on("frame")`
handlers are served by tasks of the session: every frame, in order, until the program
ends; a handler that raises stops the program the same way.
"""
from __future__ import annotations

import contextlib
import math
import threading
import time

import trio

from .._errors import DeviceTimeout, VkPersistError
from .._polling import check_timeout, poll_until
from ..control import Ack
from ._words import REASON_BLOCKED, REASON_DONE
from ._progress import Meter, Progress

PARK_CHECK_S = 0.05          # a parked driver looks for stop this often


class Session:
    def __init__(self, runner, steps: int | None, timeout: float | None, checkpoints=None):
        if steps is not None and (not isinstance(steps, int) or steps < 0):
            raise ValueError(f"steps must be a non-negative int or None (run until stopped), "
                             f"got {steps!r}")
        self.runner = runner
        self.prog = runner.prog
        self.mode = runner.mode
        self.timeout = self.prog.ctx.timeout if timeout is None else \
            check_timeout(timeout, "session(timeout=)")
        self._left = math.inf if steps is None else steps
        self._first = self.prog.steps_done
        self._meter = Meter(steps)
        self._lock = threading.Lock()   # _want, _left and starting/finishing an epoch
        self._want = "run"              # run | pause | stop
        self._resumed = threading.Event()
        self._parked = trio.Event()
        self._finished = trio.Event()
        self._token = trio.lowlevel.current_trio_token()
        self.checkpoints = checkpoints          # vkp.Checkpoints: taken between epochs
        if checkpoints is not None:
            checkpoints.start(self.prog)

    # ---- what the body sees -----------------------------------------------------------
    @property
    def steps_done(self) -> int:
        """Steps the program has completed (all sessions and runs together)."""
        with self._lock:
            extra = int(self.prog.ctl["_done"]) if self.runner.running else 0
            return self.prog.steps_done + extra

    @property
    def progress(self) -> Progress:
        """Steps this session has run (of `steps=`, if given), the recent steps/s and the
        time left at that rate: `print(run.progress)`."""
        return self._meter.read(self.steps_done - self._first, self.finished)

    @property
    def steps_per_second(self) -> float:
        """The recent rate: steps completed over the last few seconds of epochs (0 while
        paused or waiting for a reader)."""
        return self.progress.steps_per_second

    @property
    def participants(self) -> int | None:
        """Workgroups that took part in the latest epoch (persistent mode)."""
        return self.runner.participants

    @property
    def running(self) -> bool:
        """True unless paused, stopped or finished."""
        return not self._finished.is_set() and self._want == "run"

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    def memsock(self, name: str):
        """The program's memsock `name` (read it with `async for frame in ...`)."""
        try:
            return self.prog.sockets[name]
        except KeyError:
            have = ", ".join(map(repr, self.prog.sockets)) or "none"
            raise KeyError(f"{self.prog.name} has no memsock {name!r}; memsocks: {have}") from None

    async def send(self, **values) -> Ack:
        """Queue commands that set control fields and return their acknowledgement: the
        step before which they were applied. A send that returns no acknowledgement
        never takes effect in a later epoch or run: when the program ends first,
        VkPersistError says so, and a cancelled or timed-out send withdraws its command,
        unless the epoch running at that moment applies it at one of its step boundaries
        (then `ctl.ack()` shows it). Details: vkpersist/control.py."""
        self._check_alive("send commands")
        return await self.prog.ctl._send(
            values, self.timeout, ended=self._finished,
            ended_message=lambda: (f"{self.prog.name}: the program ended "
                                   f"({self.prog.steps_done} steps done) before a step "
                                   "boundary applied the command"))

    async def pause(self) -> int:
        """Stop at the next step boundary and wait until the program is parked there;
        returns `prog.steps_done`, the steps the program has completed (all runs and
        sessions together), the same as `run.steps_done` while paused. Arrays can be read
        and set until `resume()`."""
        self._check_alive("pause")
        with self._lock:
            if self._want == "run":
                self._want = "pause"
                self._resumed = threading.Event()
                self._parked = trio.Event()
                self.runner.halt()
            parked = self._parked
        await self._wait_for(parked, "pause")
        return self.prog.steps_done

    async def resume(self) -> None:
        self._check_alive("resume")
        with self._lock:
            if self._want == "pause":
                self._want = "run"
                self._resumed.set()

    async def stop(self) -> int:
        """Stop at the next step boundary and end the session's program; returns
        `prog.steps_done` (all runs and sessions together). Safe to call more than once."""
        if not self._finished.is_set():
            self._request_stop()
            await self._wait_for(self._finished, "stop")
        return self.prog.steps_done

    async def wait(self) -> int:
        """Until the session's steps are done (or it is stopped); returns
        `prog.steps_done`."""
        await self._finished.wait()
        return self.prog.steps_done

    def __repr__(self) -> str:
        state = "finished" if self._finished.is_set() else self._want
        return f"<session of {self.prog.name!r}: {state}, mode {self.mode!r}, {self.steps_done} steps>"

    def _check_alive(self, what: str) -> None:
        if self._finished.is_set():
            raise VkPersistError(f"cannot {what}: the session's program has finished "
                                 f"({self.prog.steps_done} steps done)")

    def _request_stop(self) -> None:
        with self._lock:
            self._want = "stop"
            self._resumed.set()            # a parked driver leaves
            self.runner.halt()

    async def _wait_for(self, event: trio.Event, what: str) -> None:
        with trio.move_on_after(self.timeout) as scope:
            await event.wait()
        if scope.cancelled_caught:
            raise DeviceTimeout(f"{self.prog.name}: {what} not done within {self.timeout:g} s "
                                "(no step boundary reached: a stage may loop forever)")

    # ---- the driver ---------------------------------------------------------------------
    async def _drive(self) -> None:
        """Run the driver thread; whatever ends it, the session is finished after it.
        The thread cannot be abandoned (it may be waiting for the device): it ends at the
        next step boundary once stop is requested, and every wait in it is bounded."""
        try:
            await trio.to_thread.run_sync(self._drive_thread,
                                          limiter=trio.CapacityLimiter(1))
            self.runner.report_occupancy(stacklevel=2)
        finally:
            self._parked.set()
            self._finished.set()

    def _notify(self, event: trio.Event) -> None:
        """Set a trio Event from the driver thread, without waiting for the event loop."""
        try:
            self._token.run_sync_soon(event.set)
        except trio.RunFinishedError:      # the loop is gone: nobody waits for it
            pass

    def _drive_thread(self) -> None:
        runner = self.runner
        limit = self.timeout
        try:
            while True:
                with self._lock:
                    want = self._want
                    if runner.resume:      # an epoch left a step half done: finish it first
                        runner.start(int(min(self._left, 1 << 31)) if want == "run" else 1)
                        want = "run"
                    elif want == "stop" or self._left <= 0:
                        return
                    elif want == "run":
                        budget = int(min(self._left, 1 << 31))
                        if self.checkpoints is not None:      # end an epoch where one is due
                            budget = min(budget, self.checkpoints.steps_until_due(
                                self.prog.steps_done))
                        runner.start(budget)
                    else:
                        parked, resumed = self._parked, self._resumed
                if want == "pause":
                    self._notify(parked)
                    while not resumed.wait(PARK_CHECK_S):
                        pass                # resume() and stop() both set it
                    continue
                runner.wait_epoch(limit, spin=0.0)
                with self._lock:
                    done, reason = runner.finish()
                    self._left -= done
                    self._meter.record(self.prog.steps_done - self._first)
                    if self.checkpoints is not None and not runner.resume \
                            and self.checkpoints.due(self.prog.steps_done):
                        self.checkpoints.take(self.prog)
                if reason == REASON_DONE:           # the loop's own step count is reached
                    return
                if reason == REASON_BLOCKED and self._left > 0:
                    self._wait_for_readers(limit)
        except BaseException as exc:
            if runner.running and not isinstance(exc, DeviceTimeout):   # ended by an error
                self._halt_now(limit)                                   # mid-epoch: stop it
            runner.abandon_step()
            raise
        finally:
            if self.checkpoints is not None:
                self.checkpoints.finish()     # the last file written (or its error raised)

    def _wait_for_readers(self, limit: float) -> None:
        """Until every "block" memsock has room (the reader released a frame), the body
        pauses or stops the session or sends a command, or `limit` passes (DeviceTimeout
        naming the full memsocks). A command ends the wait because a body that awaits its
        acknowledgement reads no frames meanwhile: the next epoch applies it at its first
        step boundary (acknowledged with the step that waits for room) and ends there
        again, blocked. Without spinning, as in the epoch's wait: the room comes from a
        reader on the body's thread, which needs the GIL that a spinning driver holds (up
        to the 5 ms switch interval at a time)."""
        ctl = self.prog.ctl
        head, tail = (ctl._fields[f].word for f in ("_cmd_head", "_cmd_tail"))

        def room():
            if self._want != "run" or ctl._words[head] != ctl._words[tail]:
                return True
            return self.runner._room()
        poll_until(room, limit, lambda: self.runner._no_room(limit), spin=0.0)

    def _halt_now(self, limit: float) -> None:
        """End the running epoch at its next step boundary and collect it (bounded)."""
        runner = self.runner
        runner.halt()
        deadline = time.perf_counter() + limit
        while not runner.core.idle() and time.perf_counter() < deadline:
            time.sleep(0.001)
        if runner.core.idle():
            with self._lock:
                runner.finish()


@contextlib.asynccontextmanager
async def open_session(runner, steps, timeout, checkpoints=None):
    with runner.prog._exclusive("session"):
        async with _session(runner, steps, timeout, checkpoints) as run:
            yield run


@contextlib.asynccontextmanager
async def _session(runner, steps, timeout, checkpoints):
    run = Session(runner, steps, timeout, checkpoints)
    runner.prog._session = run
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run._drive)
            for sock in runner.prog.sockets.values():
                if sock.handlers:      # @sock.on("frame") handlers, until the program ends
                    nursery.start_soon(sock.serve, run._finished, math.inf)
            try:
                yield run
            finally:
                with trio.CancelScope(shield=True):
                    await run.stop()
    except BaseExceptionGroup as group:      # one failure: raise it as itself
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise
