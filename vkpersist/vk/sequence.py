"""Recorded sequences of dispatches: many kernel launches in one command buffer.

A persistent program's epoch is (reset the scheduler words, dispatch the megakernel); its
fallback runs many steps of (boundary kernel, stage kernels...) per submission. Both are
recorded once and submitted again and again, so a batch costs one vkQueueSubmit however
many dispatches it holds. Consecutive dispatches are separated by a memory barrier: each
sees everything the previous ones wrote.
"""
from __future__ import annotations

from ._api import RawSubmit, ffi, vk
from . import commands


class DispatchSequence:
    """fills: [(buffer, word, nbytes)] run first; dispatches: [(pipeline, buffers, groups,
    push bytes)] in order, groups either (x, y, z) or ("indirect", buffer, byte offset) for
    workgroup counts an earlier dispatch wrote. Submit with `launch()`; the sequence stays alive (and its command
    buffer recorded) until every submission of it has completed."""

    def __init__(self, core, fills, dispatches, label: str = "sequence"):
        self.core = core
        self.label = label
        self.count = len(dispatches)
        with core.lock:      # the command pool is shared with other threads' recording
            cb = _record(core, fills, dispatches)
        self._submit = RawSubmit(cb)
        # the pipelines and buffers must outlive every submission of this sequence
        self._uses = [(p, tuple(b)) for p, b, _, _ in dispatches] + [f[0] for f in fills]
        self._finalizer = core.track(self, _free, core, cb)

    def launch(self) -> None:
        """Submit asynchronously (after everything submitted before)."""
        self.core.submit(self._submit, (self, self._uses))

    def free(self) -> None:
        self._finalizer()


def _record(core, fills, dispatches):
    """A reusable command buffer holding the fills, then the dispatches, barriers between."""
    keep = []                  # push-constant bytes, alive until recorded
    cb = commands.allocate(core)[0]

    def body(cb):
        for buffer, word, nbytes in fills:
            commands.fill_words(cb, buffer, word, nbytes)
        if fills:
            commands.barrier_between(cb)
        for pipeline, buffers, groups, push in dispatches:
            vk.vkCmdBindPipeline(cb, vk.VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle)
            if pipeline.reflection.bindings:
                ds = pipeline.cache.descriptor_set(buffers)
                vk.vkCmdBindDescriptorSets(cb, vk.VK_PIPELINE_BIND_POINT_COMPUTE,
                                           pipeline.layout, 0, 1, [ds], 0, None)
            if push:
                data = ffi.new("char[]", push)
                keep.append(data)
                vk.vkCmdPushConstants(cb, pipeline.layout, vk.VK_SHADER_STAGE_COMPUTE_BIT,
                                      0, len(push), data)
            if groups[0] == "indirect":     # ("indirect", buffer, byte offset)
                vk.vkCmdDispatchIndirect(cb, groups[1].handle, groups[2])
            else:
                vk.vkCmdDispatch(cb, *groups)
            commands.barrier_between(cb)
    try:
        commands.record(cb, body, reusable=True)
    except BaseException:
        commands.free(core, [cb])
        raise
    return cb


def _free(core, cb) -> None:
    if core.device is not None:
        vk.vkFreeCommandBuffers(core.device, core.command_pool, 1, [cb])
