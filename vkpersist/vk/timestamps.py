"""Device timestamps written into a context's command stream (numba.cuda's events).

`Timestamp.record()` submits a tiny command buffer after everything submitted before it on
the context's one queue: a timestamp query written once all earlier work has completed
(bottom of pipe: its own dependency on every earlier command; each submission before it
also ends with a barrier before all later work). The value is read
after a synchronize, so it never blocks without the context's timeout. Two timestamps'
difference, times the device's timestamp period (ns per tick), is the device time between
the two points of the stream.
"""
from __future__ import annotations

from .._errors import UnsupportedError, VkPersistError
from . import commands
from ._api import RawSubmit, ffi, translated, vk


class Timestamp:
    """One timestamp query of a context, re-recordable."""

    def __init__(self, ctx):
        info = ctx.info
        if not info.timestamps:
            raise UnsupportedError(f"{info.name} has no timestamps on its compute queue, so "
                                   "device time cannot be measured there; time on the host "
                                   "around ctx.synchronize() instead")
        self.ctx = ctx
        core = ctx._core_alive()
        self._core = core
        create = vk.VkQueryPoolCreateInfo(queryType=vk.VK_QUERY_TYPE_TIMESTAMP, queryCount=1)
        with core.lock:
            with translated("creating a timestamp query pool"):
                self._pool = vk.vkCreateQueryPool(core.device, create, None)
            try:
                self._cb = commands.allocate(core)[0]
                commands.record(self._cb, self._write, reusable=True)
            except BaseException:
                vk.vkDestroyQueryPool(core.device, self._pool, None)
                raise
        core.track(self, _release, core, self._pool, self._cb)
        self.recorded = self.pending = False
        self._bits = ffi.new("uint64_t[2]")

    def _write(self, cb) -> None:
        vk.vkCmdResetQueryPool(cb, self._pool, 0, 1)
        vk.vkCmdWriteTimestamp(cb, vk.VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, self._pool, 0)

    def record(self) -> None:
        """Write the timestamp after all work submitted so far (returns at once)."""
        self._core.submit(RawSubmit(self._cb), (self,))
        self.recorded = self.pending = True

    def done(self) -> bool:
        """Whether the timestamp has been written (never waits). A query keeps its previous
        value until the reset recorded with it runs, so until the queue has drained the
        answer is no (conservative: later work keeps it so too)."""
        if not self.recorded:
            return False
        if self.pending:
            if not self._core.idle():
                return False
            self.pending = False
        return self._read()

    def _read(self) -> bool:
        with self._core.lock:
            try:
                vk.vkGetQueryPoolResults(self._core.device, self._pool, 0, 1, 16, self._bits,
                                         16, vk.VK_QUERY_RESULT_64_BIT |
                                         vk.VK_QUERY_RESULT_WITH_AVAILABILITY_BIT)
            except vk.VkNotReady:
                return False
            except vk.VkException:
                with translated("reading a timestamp"):
                    raise
        return bool(self._bits[1])

    def ticks(self) -> int:
        """The timestamp in device ticks, waiting (with the context's timeout) for it."""
        if not self.recorded:
            raise RuntimeError("this event was never recorded: call event.record() first")
        if not self.done():
            self.ctx.synchronize()
            if not self.done():
                raise VkPersistError("the timestamp query gave no value after the work "
                                     "completed")
        return int(self._bits[0])


def _release(core, pool, cb) -> None:
    if core.device is not None:
        commands.free(core, [cb])
        vk.vkDestroyQueryPool(core.device, pool, None)


def elapsed_ms(start: Timestamp, end: Timestamp) -> float:
    """Device milliseconds from `start` to `end` (recorded on one context)."""
    if start.ctx._core is not end.ctx._core:
        raise ValueError("the two events were recorded on different devices; device times "
                         "compare only within one context")
    info = start.ctx.info
    ticks = end.ticks() - start.ticks()
    return ticks * info.timestamp_period_ns / 1e6
