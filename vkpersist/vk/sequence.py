"""Recorded sequences of dispatches: many kernel launches in one command buffer.

A persistent program's epoch is (reset the scheduler words, dispatch the megakernel); its
fallback runs many steps of (boundary kernel, stage kernels...) per submission. Both are
recorded once and submitted again and again, so a batch costs one vkQueueSubmit however
many dispatches it holds. Consecutive dispatches are separated by a memory barrier: each
sees everything the previous ones wrote.

`batched(ctx)` does the same for ordinary launches: the kernel launches made inside
`with batched(ctx):` are recorded into one command buffer and submitted once, when the block
ends (or earlier, as soon as anything else is submitted or waited for, so the order on the
queue never changes). A two-pass reduction is then one submission, not two; the command
buffer is cached per (pipelines, buffers, workgroup counts, push constants), so a repeated
batch records nothing.
"""
from __future__ import annotations

import collections
import weakref

from . import commands, deferral
from .buffer import names

_MAX_BATCHES = 64       # recorded batches kept per device, least recently recorded dropped


class DispatchSequence:
    """fills: [(buffer, word, nbytes)] run first; dispatches: [(pipeline, buffers, groups,
    push bytes)] in order, groups either (x, y, z) or ("indirect", buffer, byte offset) for
    workgroup counts an earlier dispatch wrote. Submit with `launch()`; the sequence stays alive (and its command
    buffer recorded) until every submission of it has completed."""

    def __init__(self, core, fills, dispatches, label: str = "sequence",
                 hold_buffers: bool = True):
        self.core = core
        self.label = label
        self.count = len(dispatches)
        with core.lock:      # the command pool is shared with other threads' recording
            self._submit = _record(core, fills, dispatches)
        # the pipelines and buffers must outlive every submission of this sequence; a
        # cached batch holds only its pipelines, each launch() keeps its buffers
        self._uses = [(p, tuple(b)) if hold_buffers else p for p, b, _, _ in dispatches] \
            + [f[0] for f in fills]

    def launch(self, keep=()) -> None:
        """Submit asynchronously (after everything submitted before); `keep` stays
        referenced until this submission completes."""
        self.core.submit(self._submit, (self, self._uses, keep))


def _record(core, fills, dispatches):
    """A reusable command buffer holding the fills, then the dispatches, barriers between
    (after the last, the one every command buffer ends with: commands.record)."""
    def body(cb):
        for buffer, word, nbytes in fills:
            commands.fill_words(cb, buffer, word, nbytes)
        for k, (pipeline, buffers, groups, push) in enumerate(dispatches):
            if k or fills:
                commands.barrier_between(cb)
            commands.dispatch(cb, pipeline, buffers, groups, push)
    cb = commands.spare(core)
    try:
        commands.record(cb, body, reusable=True)
    except BaseException:
        core.spare_command_buffers.append(cb)
        raise
    return commands.Recorded(core, cb)


class Batch:
    """The launches of one device waiting to be submitted together (see the module docs),
    and the command buffers recorded for earlier batches. `core.batch` is this object while
    a `batched` block is open (the block holds the core's lock, so only its own thread's
    launches join); Pipeline.launch then calls add() instead of submitting."""

    def __init__(self, core):
        self.core = core
        self.dispatches: list = []        # (pipeline, buffers, groups, push bytes)
        self.keeps: list = []
        self.recorded: collections.OrderedDict = collections.OrderedDict()
        self.submissions = 0              # batches submitted (tests count them)
        # what the last flush submitted and what holds its command buffer valid: a caller
        # may submit it again itself (_reduce_subgroup.py's plans)
        self.last = None
        core.forget_listeners.append(self.forget)

    def add(self, pipeline, buffers, groups, push: bytes, keep) -> None:
        self.dispatches.append((pipeline, buffers, groups, push))
        self.keeps.append(keep)

    def flush(self) -> None:
        """Submit the launches added so far as one command buffer (called under the lock)."""
        dispatches, keeps = self.dispatches, self.keeps
        if not dispatches:
            return
        self.dispatches, self.keeps = [], []
        self.submissions += 1
        if len(dispatches) == 1:                  # the pipeline's own cached launch
            ready = dispatches[0][0].command_buffer(*dispatches[0][1:])
            self.core.submit(ready, keeps[0])
            self.last = (ready, dispatches[0][0])
            return
        key = tuple([(id(p), tuple([b.serial for b in buffers]), groups, push)
                     for p, buffers, groups, push in dispatches])
        seq = self.recorded.get(key)
        if seq is None:
            for p, buffers, groups, _ in dispatches:
                p.check_launch(buffers, groups)
            # holds its pipelines, so the ids in its key stay theirs while it is cached
            seq = self.recorded[key] = DispatchSequence(self.core, [], dispatches, "batch",
                                                        hold_buffers=False)
            if len(self.recorded) > _MAX_BATCHES:
                # its command buffer is reused once no submission holds it (Recorded)
                self.recorded.popitem(last=False)
        seq.launch(keeps)
        self.last = (seq._submit, seq)

    def forget(self, serial: int) -> None:
        """A buffer died: drop the recorded batches that bind it (none is pending: a
        submission keeps its buffers alive)."""
        for key in [k for k in self.recorded if any(names(d[1], serial) for d in k)]:
            del self.recorded[key]


_BATCHES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class batched:
    """`with batched(ctx):` submits the launches made inside as one command buffer when the
    block ends (module docs). Nested blocks join the outer one; a block left by an
    exception submits nothing of what it recorded."""
    __slots__ = ("core", "outer")

    def __init__(self, ctx):
        self.core = ctx._core

    def __enter__(self) -> None:
        core = self.core
        core.lock.acquire()
        self.outer = core.batch is not None
        if not self.outer:
            if core.deferred:      # launches waiting for the device go now, not at the end
                try:
                    deferral.flush(core)
                except BaseException:
                    core.lock.release()
                    raise
            batch = _BATCHES.get(core)
            if batch is None:
                batch = _BATCHES[core] = Batch(core)
                core.on_close.append(lambda: _BATCHES.pop(core, None))
            core.batch = batch

    def __exit__(self, kind, value, tb) -> None:
        core = self.core
        try:
            if not self.outer:
                batch, core.batch = core.batch, None
                if kind is None:
                    batch.flush()
                else:
                    batch.dispatches, batch.keeps = [], []
        finally:
            core.lock.release()
