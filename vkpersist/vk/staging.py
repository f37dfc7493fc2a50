"""Moving bytes between NumPy and device memory through host-visible staging buffers.

Downloads wait for the device (the host needs the bytes). They go through the Context's one
staging buffer in chunks, so a large array never needs an equally large staging allocation;
a transfer through it holds the Context's lock from start to end (another thread's transfer
would overwrite the buffer in between).

Uploads of up to CHUNK_BYTES do not wait: the bytes go into the next free region of a ring
(one host-visible buffer, `_Ring`) and the copy is queued behind the pending launches, which
keep the region until the copy has run. So a loop that launches and uploads keeps the device
busy instead of draining it at every upload. Regions come back in the order they were taken
(the queue completes submissions in order); when the ring is full an upload waits for the
oldest pending work, and the ring grows (to RING_MAX) when one upload needs more than a
quarter of it. A new staging buffer per upload, as before, cost an allocation and a
mapping each time: with the host running ahead of the device none came back from the
buffer pool in time, and the upload loop of benchmarks/uploads.py was 6.7x slower queued
than waiting on an H100 (2026-12-05). Larger uploads go chunk by chunk through the shared
buffer and wait, as staging them whole would double their memory.
"""
from __future__ import annotations

import collections
import weakref

import numpy as np

from .._errors import internal_error
from . import commands
from .buffer import Buffer, in_flight

CHUNK_BYTES = 32 << 20
RING_MIN = 1 << 20          # the upload ring's first size
RING_MAX = 4 * CHUNK_BYTES  # at most this much staging memory is held by queued uploads
_ALIGN = 256                # regions start on this boundary (whole cache lines for memcpy)
_MIN_STAGE = 1 << 16


class Staging:
    def __init__(self, core):
        self._core = core
        self._kind = "cached" if "cached" in core.info.memory_kinds else "host"
        self._buffer: Buffer | None = None
        self._ring: _Ring | None = None

    def _get(self, nbytes: int) -> Buffer:
        want = min(max(nbytes, _MIN_STAGE), CHUNK_BYTES)
        if self._buffer is None or not self._buffer.alive or self._buffer.nbytes < want:
            # the old one is idle (every transfer through it waited): dropped, not freed,
            # as free() would wait for the pending launches first
            self._buffer = None
            self._buffer = Buffer(self._core, want, self._kind)
        return self._buffer

    def download(self, src: Buffer, nbytes: int, offset: int = 0) -> np.ndarray:
        out = np.empty(nbytes, np.uint8)
        with self._core.lock:
            stage = self._get(nbytes)
            view = stage.host_view()
            for start in range(0, nbytes, stage.nbytes):
                n = min(stage.nbytes, nbytes - start)
                commands.run_now(self._core,
                                 lambda cb: commands.copy(cb, src, stage, n,
                                                           src_offset=offset + start))
                out[start:start + n] = view[:n]
        return out

    def upload(self, dst: Buffer, raw: np.ndarray, offset: int = 0) -> None:
        """Copy `raw` (bytes) into `dst` at `offset`, behind the pending launches."""
        if not raw.size:
            return
        if raw.size <= min(CHUNK_BYTES, RING_MAX // 4):
            self._queue_upload(dst, raw, offset)
            return
        with self._core.lock:
            stage = self._get(raw.size)
            view = stage.host_view()
            for start in range(0, raw.size, stage.nbytes):
                n = min(stage.nbytes, raw.size - start)
                view[:n] = raw[start:start + n]
                commands.run_now(self._core,
                                 lambda cb: commands.copy(cb, stage, dst, n,
                                                           dst_offset=offset + start))

    def _queue_upload(self, dst: Buffer, raw: np.ndarray, offset: int) -> None:
        core = self._core
        n = raw.size
        with core.lock:
            ring = self._ring
            if ring is None or not ring.buffer.alive or 4 * n > ring.capacity < RING_MAX:
                # the old ring stays alive while its pending copies hold it
                size = max(RING_MIN, 1 << (4 * n - 1).bit_length())
                ring = self._ring = _Ring(core, min(size, RING_MAX), self._kind)
            start, token = ring.take(n)
            try:
                ring.view[start:start + n] = raw
                commands.submit_now(core, lambda cb: commands.copy(cb, ring.buffer, dst, n,
                                                                  src_offset=start,
                                                                  dst_offset=offset),
                                    keep=(ring.buffer, token, in_flight(dst)))
            except BaseException:
                ring.undo(start)    # not submitted (a traceback may keep the token alive)
                raise

    def _held(self) -> int:
        """Bytes of the ring still held by queued uploads (a ring replaced by a larger one
        is not counted: while the ring grows, up to about twice RING_MAX is held)."""
        return 0 if self._ring is None else self._ring.held()


def _up(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


class _Span:
    """Held by the submission of one queued upload: its region of the ring is free again
    once the submission completes and drops it."""
    __slots__ = ("__weakref__",)


class _Ring:
    """A host-visible buffer whose regions queued uploads take in turn. `spans` lists the
    regions still held, oldest first, as (start, end, weak reference to their _Span)."""

    def __init__(self, core, capacity: int, kind: str):
        self.core, self.capacity = core, capacity
        self.buffer = Buffer(core, capacity, kind)
        self.view = self.buffer.host_view()
        self.spans: collections.deque = collections.deque()
        self.head = 0

    def _free_done(self) -> None:
        spans = self.spans
        while spans and spans[0][2]() is None:
            spans.popleft()
        if not spans:
            self.head = 0

    def _room(self, n: int) -> int | None:
        """Where `n` bytes fit, or None. The head never catches up with the oldest held
        region (equal, they would read as an empty ring)."""
        self._free_done()
        if not self.spans:
            return 0
        tail, head = self.spans[0][0], self.head
        if head >= tail:                # free: [head, capacity) and [0, tail)
            if self.capacity - head >= n:
                return head
            return 0 if _up(n) < tail else None
        return head if _up(head + n) < tail else None

    def take(self, n: int) -> tuple[int, _Span]:
        """The start of a free region of `n` bytes and the token that holds it, waiting
        for the oldest pending work while the ring is full."""
        core = self.core
        start = self._room(n)
        if start is None:
            core.retire()
            start = self._room(n)
        while start is None:
            if not core.pending:        # every copy has run: nothing can hold the ring
                raise internal_error("the upload ring is full but no work is pending")
            core.wait_oldest()
            start = self._room(n)
        token = _Span()
        self.spans.append((start, start + n, weakref.ref(token)))
        self.head = _up(start + n)
        return start, token

    def undo(self, start: int) -> None:
        """Give back the region just taken at `start` (its copy was not submitted)."""
        if self.spans and self.spans[-1][0] == start:
            self.spans.pop()
            self.head = start
            self._free_done()

    def held(self) -> int:
        self._free_done()
        return sum(end - start for start, end, _ in self.spans)
