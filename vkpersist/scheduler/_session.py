"""Running a Program under trio while the host steers it.

    async with prog.session(steps=10_000) as run:
        ack = await run.send(alpha=0.2)    # applied at a step boundary: ack.step says which
        await run.pause()                  # the program stops at a step boundary...
        print(run.steps_done)
        await run.resume()                 # ...and goes on from there
        await run.wait()                   # until the steps are done (or run.stop())

A background task runs the epochs (megakernel) or batches (fallback) one after another and
watches the heartbeat. Pause and stop set a halt word the step boundary reads: the running
epoch ends at the next boundary (with live control memory; else at the end of the epoch)
and no further epoch starts until `resume()`. Leaving the block stops the program, also
when the body raises; errors of the background task (DeviceTimeout, DeviceLimitError) are
raised from the `async with`. Memsocks with `@sock.on("frame")` handlers are served by
tasks of the session: every frame, in order, until the program ends; a handler that raises
stops the program the same way.
"""
from __future__ import annotations

import contextlib
import math

import trio

from .._errors import DeviceTimeout, VkPersistError
from .._polling import check_timeout, poll_until_async
from ..control import Ack
from ._codegen import REASON_BLOCKED, REASON_DONE


class Session:
    def __init__(self, runner, steps: int | None, timeout: float | None):
        if steps is not None and (not isinstance(steps, int) or steps < 0):
            raise ValueError(f"steps must be a non-negative int or None (run until stopped), "
                             f"got {steps!r}")
        self.runner = runner
        self.prog = runner.prog
        self.mode = runner.mode
        self.timeout = self.prog.ctx.timeout if timeout is None else \
            check_timeout(timeout, "session(timeout=)")
        self._left = math.inf if steps is None else steps
        self._want = "run"              # run | pause | stop
        self._resumed = trio.Event()
        self._parked = trio.Event()
        self._finished = trio.Event()

    # ---- what the body sees -----------------------------------------------------------
    @property
    def steps_done(self) -> int:
        """Steps the program has completed (all sessions and runs together)."""
        extra = int(self.prog.ctl["_done"]) if self.runner.running else 0
        return self.prog.steps_done + extra

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
        """The program's memsock `name` (read it with `async for frame in ...frames()`)."""
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
        """Stop at the next step boundary; returns the number of steps done."""
        self._check_alive("pause")
        if self._want == "run":
            self._want = "pause"
            self._resumed = trio.Event()
            self._parked = trio.Event()
            self.runner.halt()
        await self._wait_for(self._parked, "pause")
        return self.prog.steps_done

    async def resume(self) -> None:
        self._check_alive("resume")
        if self._want == "pause":
            self._want = "run"
            self._resumed.set()

    async def stop(self) -> int:
        """Stop at the next step boundary and end the session's program; returns the number
        of steps done. Safe to call more than once."""
        if not self._finished.is_set():
            was = self._want
            self._want = "stop"
            if was == "pause":
                self._resumed.set()
            else:
                self.runner.halt()
            await self._wait_for(self._finished, "stop")
        return self.prog.steps_done

    async def wait(self) -> int:
        """Until the session's steps are done (or it is stopped); returns steps done."""
        await self._finished.wait()
        return self.prog.steps_done

    def __repr__(self) -> str:
        state = "finished" if self._finished.is_set() else self._want
        return f"<session of {self.prog.name!r}: {state}, mode {self.mode!r}, {self.steps_done} steps>"

    def _check_alive(self, what: str) -> None:
        if self._finished.is_set():
            raise VkPersistError(f"cannot {what}: the session's program has finished "
                                 f"({self.prog.steps_done} steps done)")

    async def _wait_for(self, event: trio.Event, what: str) -> None:
        with trio.move_on_after(self.timeout) as scope:
            await event.wait()
        if scope.cancelled_caught:
            raise DeviceTimeout(f"{self.prog.name}: {what} not done within {self.timeout:g} s "
                                "(no step boundary reached: a stage may loop forever)")

    # ---- the background task ------------------------------------------------------------
    async def _drive(self) -> None:
        runner = self.runner
        limit = self.timeout
        stalled = False
        try:
            while self._want != "stop" and self._left > 0:
                if self._want == "pause":
                    self._parked.set()
                    await self._resumed.wait()
                    continue
                runner.start(int(min(self._left, 1 << 31)))
                await runner.wait_epoch_async(limit)
                done, reason = runner.finish()
                self._left -= done
                if reason == REASON_DONE:           # the loop's own step count is reached
                    break
                if reason == REASON_BLOCKED and self._want == "run" and self._left > 0:
                    await runner.wait_for_readers_async(limit)
        except DeviceTimeout:
            stalled = True
            raise
        finally:
            if runner.running and not stalled:   # cancelled mid-epoch: stop the device
                await self._halt_now(limit)
            self._parked.set()
            self._finished.set()

    async def _halt_now(self, limit: float) -> None:
        """End the running epoch at its next step boundary and collect it (shielded: this
        runs while the session is being cancelled)."""
        runner = self.runner
        with trio.CancelScope(shield=True):
            runner.halt()
            with trio.move_on_after(limit):
                await poll_until_async(lambda: True if runner.core.idle() else None,
                                       math.inf, lambda: "")
            if runner.core.idle():
                runner.finish()

    async def _shutdown(self) -> None:
        with trio.CancelScope(shield=True):
            await self.stop()


@contextlib.asynccontextmanager
async def open_session(runner, steps, timeout):
    run = Session(runner, steps, timeout)
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
                await run._shutdown()
    except BaseExceptionGroup as group:      # one failure: raise it as itself
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise
