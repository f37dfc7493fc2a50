"""Moving bytes between NumPy and device-only memory through a host-visible staging buffer,
in chunks so a large array never needs an equally large staging allocation. One staging
buffer serves a Context, so a transfer holds the Context's lock from start to end (another
thread's transfer would overwrite the buffer in between)."""
from __future__ import annotations

import numpy as np

from . import commands
from .buffer import Buffer

CHUNK_BYTES = 32 << 20


class Staging:
    def __init__(self, core):
        self._core = core
        self._kind = "cached" if "cached" in core.info.memory_kinds else "host"
        self._buffer: Buffer | None = None

    def _get(self, nbytes: int) -> Buffer:
        want = min(max(nbytes, 1 << 16), CHUNK_BYTES)
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
        with self._core.lock:
            stage = self._get(raw.size)
            view = stage.host_view()
            for start in range(0, raw.size, stage.nbytes):
                n = min(stage.nbytes, raw.size - start)
                view[:n] = raw[start:start + n]
                commands.run_now(self._core,
                                 lambda cb: commands.copy(cb, stage, dst, n,
                                                           dst_offset=offset + start))
