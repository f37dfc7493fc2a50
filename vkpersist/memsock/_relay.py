"""Relay: the frames one device publishes into a MemSock on SharedPages, handed in order to
work on a second device that imports the same pages: a pipeline between devices, no copy.

Ordering (docs/pipelines.md): device A publishes frame `seq` by storing its header word
after the frame's data (release); the host sees the header (MemSock.poll) and only then
calls `consume(frame, data)`, which launches B's work on `data`, B's import of the frame.
B's work is submitted after A finished writing, so no device ever polls a word another
device or the host writes: this is the variant that works on every driver (a running
shader on NVIDIA never sees host writes to system memory, VULKAN_FACTS.md §1).

Back-pressure: a slot goes back to A only after B's work on it completed (B's fences), so
A never overwrites a frame B still reads. The relay releases finished frames whenever B is
idle, and waits for B once `window` frames are outstanding; A's MemSock policy decides
what a full ring does ("drop": A's launch drops its frame, counted; "block": `run` hands
frames to B, and waits for B, before launching A again).

Shutdown: an error on either side (A's launch, B's launch or B's completion, a timeout)
stops A from producing, waits for both devices (bounded by each Context's timeout) so no
device is still reading or writing the pages, and propagates. Every wait is bounded.
"""
from __future__ import annotations

import collections
import contextlib

from .._errors import VkPersistError
from .._polling import poll_until_async
from ._core import Frame, MemSock


class Relay:
    """`relay = vkp.Relay(sock, ctx_b, consume)`: hands each frame `sock` publishes (a
    MemSock on vkp.SharedPages, written by kernels or a program on another Context) to
    `consume(frame, data)` in order, where `data` is `ctx_b`'s vkp.Array of that frame, in
    the same pages. `consume` launches `ctx_b`'s kernels on `data` (it may also read
    `frame.data` and `frame.payload` with NumPy); the frame's slot is reused once they have
    completed. `window`: frames handed to B before the relay waits for B (default: half
    the ring)."""

    def __init__(self, sock: MemSock, ctx, consume, *, window: int | None = None):
        if not isinstance(sock, MemSock) or sock.pages is None:
            raise ValueError("Relay: the MemSock must keep its ring in vkp.SharedPages "
                             "(MemSock(..., frames=vkp.SharedPages(nbytes))) so that the "
                             "consuming device can import the same pages")
        if not callable(consume):
            raise TypeError(f"Relay: consume must be a function (frame, data), not {consume!r}")
        window = max(1, sock.capacity // 2) if window is None else window
        if isinstance(window, bool) or not isinstance(window, int) \
                or not 1 <= window <= sock.capacity:
            raise ValueError(f"Relay: window must be an int in 1..{sock.capacity} (the ring's "
                             f"capacity), got {window!r}")
        self.sock, self.ctx, self.consume, self.window = sock, ctx, consume, window
        self.frames = sock.pages.array(ctx, sock.dtype, (sock.capacity, *sock.frame_shape))
        self._slots = [self.frames[s] for s in range(sock.capacity)]
        self._pending: collections.deque = collections.deque()   # handed, B not known done
        self.consumed = 0          # frames handed to consume
        self._stopped = False

    def __repr__(self) -> str:
        return (f"vkpersist.Relay({self.sock.name!r}: {self.sock.ctx.info.name} -> "
                f"{self.ctx.info.name}, consumed={self.consumed})")

    def stop(self) -> None:
        """Ask `run()` to launch no more producer work (from `produce` or `consume`); the
        frames already reserved are still handed to `consume`."""
        self._stopped = True

    # ---- handing frames ------------------------------------------------------------------
    def _hand(self, frame: Frame) -> None:
        self._pending.append(frame)     # released only after B completes (even if consume raises)
        self.consume(frame, self._slots[frame.slot])
        self.consumed += 1
        if len(self._pending) >= self.window:
            self._retire(wait=True)

    def _retire(self, wait: bool) -> None:
        """Release the handed frames once B has completed its work on them: now if B is
        idle, or after waiting for B (bounded by its timeout) when `wait`."""
        if not self._pending:
            return
        if not wait and not self.ctx._core_alive().idle():
            return
        # B is done (or waited for): this reports its errors (a loop limit) before the
        # frames go; an idle B skipped it, and a relay whose B was always idle when
        # polled reported them only at the next window-full wait
        self.ctx.synchronize()
        while self._pending:
            self._pending.popleft().release()

    def pump(self) -> int:
        """Hand every frame published so far to `consume`, in order; never waits for A.
        Returns how many were handed."""
        n = 0
        while (frame := self.sock.poll()) is not None:
            self._hand(frame)
            n += 1
        self._retire(wait=False)
        return n

    def finish(self, timeout: float | None = None) -> None:
        """Hand every frame the producer reserved (each waited for up to `timeout`, default
        A's context timeout), then wait for B to complete them and release them all."""
        while self.sock._may_exist(self.sock.next_read):
            self._hand(self.sock.wait(timeout))
        self._retire(wait=True)

    def run(self, produce, count: int) -> int:
        """A launch-mode pipeline: `produce(i)` launches A's kernels that publish one frame
        each, for i in range(count) or until `stop()`; frames are handed to `consume` as
        they are published, then every reserved frame is finished. Returns how many frames
        were handed. With policy "block" a full ring waits for B before A launches again;
        with "drop" A's launch drops its frame (`sock.dropped`)."""
        sock, start = self.sock, self.consumed
        try:
            for i in range(count):
                if self._stopped:
                    break
                while sock.policy == "block" and sock.head - sock.tail >= sock.capacity:
                    self._make_room()
                produce(i)
                self.pump()
            self.finish()
        except BaseException:
            self._shutdown()
            raise
        return self.consumed - start

    def _make_room(self) -> None:
        """The ring is full: hand B every frame A has published (at least the oldest,
        waiting for it), then wait for B and release them, so A can queue several again."""
        self.pump()
        if self.sock.head - self.sock.tail >= self.sock.capacity:
            if not self._pending:
                self._hand(self.sock.wait())
            self._retire(wait=True)

    def _shutdown(self) -> None:
        """After an error: let neither device touch the pages any more (each wait bounded),
        then give the slots B finished back. Errors here would hide the first one."""
        with contextlib.suppress(VkPersistError):
            self.sock.ctx.synchronize()
        try:
            self._retire(wait=True)
        except VkPersistError:
            self._pending.clear()     # B failed: its frames are not released as consumed

    # ---- program sessions -------------------------------------------------------------
    async def handle(self, frame: Frame) -> None:
        """A MemSock handler for program sessions (`sock.on("frame")(relay.handle)`): hands
        the frame to `consume` and returns once B has completed it (the session then
        releases it), polling B without blocking trio, up to B's timeout."""
        self.consume(frame, self._slots[frame.slot])
        self.consumed += 1
        core = self.ctx._core_alive()
        await poll_until_async(lambda: True if core.idle() else None, self.ctx.timeout,
                               lambda: f"{self!r}: {self.ctx.info.name} did not complete "
                               f"frame {frame.seq} within {self.ctx.timeout:g} s")
        self.ctx.synchronize()      # completed: this only reports B's errors (loop limit, ...)

    # ---- lifetime ----------------------------------------------------------------------
    def close(self) -> None:
        """Wait for B's outstanding work (bounded), release its frames and end B's import
        of the pages (idempotent)."""
        if not self.frames.buffer.alive:
            return
        try:
            self._retire(wait=True)
        finally:
            self._pending.clear()
            self.frames.free()

    def __enter__(self) -> "Relay":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
