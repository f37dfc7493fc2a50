"""Moving bytes between NumPy and device memory through host-visible staging buffers.

Downloads wait for the device (the host needs the bytes). They go through the Context's one
staging buffer in chunks, so a large array never needs an equally large staging allocation;
a transfer through it holds the Context's lock from start to end (another thread's transfer
would overwrite the buffer in between).

Uploads of up to CHUNK_BYTES do not wait: the bytes go into a staging buffer of their own
(from the buffer pool, sized to a power of two so sizes meet again), and the copy is queued
behind the pending launches, which keeps the staging buffer until it has run. So a loop
that launches and uploads keeps the device busy instead of draining it at every upload. At
most PENDING_BYTES of such staging memory is held at once; past that an upload waits for
the device first. Larger uploads go chunk by chunk through the shared buffer and wait, as
staging them whole would double their memory.
"""
from __future__ import annotations

import weakref

import numpy as np

from . import commands
from .buffer import Buffer

CHUNK_BYTES = 32 << 20
PENDING_BYTES = 8 * CHUNK_BYTES
_MIN_STAGE = 1 << 16


class Staging:
    def __init__(self, core):
        self._core = core
        self._kind = "cached" if "cached" in core.info.memory_kinds else "host"
        self._buffer: Buffer | None = None
        self._queued: list = []     # weak references to the staging buffers of queued uploads

    def _get(self, nbytes: int) -> Buffer:
        want = min(max(nbytes, _MIN_STAGE), CHUNK_BYTES)
        if self._buffer is None or not self._buffer.alive or self._buffer.nbytes < want:
            if self._buffer is not None:
                self._buffer.free()
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
        if raw.size <= CHUNK_BYTES:
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
        size = max(_MIN_STAGE, 1 << (raw.size - 1).bit_length())
        with core.lock:
            if self._held() + size > PENDING_BYTES:
                core.retire()
                if self._held() + size > PENDING_BYTES:
                    core.synchronize()
            stage = Buffer(core, size, self._kind)
            stage.host_view()[:raw.size] = raw
            n = raw.size
            commands.submit_now(core, lambda cb: commands.copy(cb, stage, dst, n,
                                                              dst_offset=offset),
                                keep=(stage, dst))
            self._queued.append(weakref.ref(stage))

    def _held(self) -> int:
        """Bytes of staging memory still kept by queued uploads."""
        stages = [s for s in (ref() for ref in self._queued) if s is not None]
        self._queued = [weakref.ref(s) for s in stages]
        return sum(s.size for s in stages)
