"""Deferred launches: kernel launches made while the device is busy go out together.

Why: the device side of a submission costs more than a small kernel. On an H100
(2026-12-06, benchmarks/probes/submit_floor.py, two rounds of 5,000) the device took 12.7-15.5 µs
per vkQueueSubmit of one small dispatch however fast the host submitted, 7.3 µs per
command buffer when 32 went in one submission, and 5.2-5.8 µs per dispatch recorded into
one buffer. An asynchronous launch loop (benchmarks/launch_overhead.py) was bound by the
first: 15.5 µs per launch, against 4.5-4.7 for CuPy's; with this module 6.6-6.7 µs (old and
new in one call, two runs each; docs/measurements-log.md).

The policy (`launch`):
- a launch made while the device is idle is submitted at once: no latency is added where
  it would show (launch, then wait);
- one made while earlier work is still running waits in `core.deferred`, and the waiting
  launches go out as one submission of their command buffers (RawSubmitMany) as soon as
  _DEFER_MAX wait, a later launch finds the device idle, anything else is submitted or
  waited for (a copy, a read, `synchronize()`, a batched block, an event: `_Core.submit`
  flushes them first, so the order on the queue never changes), or the flusher thread
  sees the device go idle or has waited _DEFER_WAIT_S. So no launch is left unsubmitted
  while the host does something else: a launch runs without any later call, as
  numba.cuda promises.
Every flush carries a fence, so one fence query tells whether the device is idle.

Only launches of `@vkp.kernel` functions (array operations are such kernels) that bind no
channel are deferred: `glsl_kernel` launches, programs and kernels that take a MemSock or
a ControlBuffer are submitted at once, since their users watch device memory (a frame, a
control word) rather than the queue. A reader spinning on a frame holds the GIL the
flusher thread needs: on an H100 per-launch MemSock frames fell from 7,323 to 2,700 a
second while their launches were deferred (benchmarks/channels.py, docs/measurements-log.md).
"""
from __future__ import annotations

import threading
import time

from .._errors import DeviceLost, VkPersistError
from ._api import RawSubmitMany, fence_wait, raw_fence_signaled, raw_submit

_DEFER_MAX = 32        # launches per submission (the measured 7.3 µs/launch was at 32)
_DEFER_WAIT_S = 0.001  # the flusher submits waiting launches at most this late (plus the
                       # GIL: a thread running Python without pause keeps it up to 5 ms);
                       # a bound chosen, not measured against other values


def launch(core, submit, keep) -> None:
    """Submit a kernel launch's command buffer now if the device is idle, else defer it
    (module docs). `keep` stays referenced until the launch completes. A launch that
    raises (a lost device, Ctrl-C while waiting for room) does not run later."""
    with core.lock:
        if core.lost is not None:
            raise core.refusal()
        if core.closing or core.flusher_error is not None:
            core.check_open()
        deferred = core.deferred
        if deferred:
            now = len(deferred) + 1 >= _DEFER_MAX or device_idle(core)
            entry = (submit, keep)
            deferred.append(entry)
            if now:
                try:
                    flush(core)
                except BaseException:
                    if core.deferred and core.deferred[-1] is entry:
                        core.deferred.pop()      # this launch raised: it must not run later
                    raise
            return
        if device_idle(core):
            core.submit(submit, keep)
            return
        deferred.append((submit, keep))
        _wake_flusher(core)


def device_idle(core) -> bool:
    """Whether all submitted work has completed, as far as one fence query tells:
    unfenced submissions count as running. The fences are left to retire as usual:
    recycling them here emptied `inflight`, so the submission after every idle check was
    fenced (_Core.submit), and a launch loop bound by recording (a new scalar each launch)
    went 19 -> 23 µs a launch on an H100."""
    if core.open_keeps:
        return False
    inflight = core.inflight
    try:
        return not inflight or raw_fence_signaled(core.device, inflight[-1][0])
    except DeviceLost as exc:
        raise core._lose(exc) from None


def flush(core) -> None:
    """Submit the deferred launches, _DEFER_MAX at a time, each submission fenced (under
    the core's lock). A wait for room that fails (a timeout, Ctrl-C) leaves the rest
    deferred; a submission the driver refuses drops its launches, and the error says so."""
    many = core.submit_many
    if many is None:
        many = core.submit_many = RawSubmitMany(_DEFER_MAX)
    try:
        while core.deferred:
            core.make_room()
            fence = core.fence()
            chunk = core.deferred[:_DEFER_MAX]
            many.fill([s for s, _ in chunk])
            # the keeps before the submission (context.py's _Core: never drop running
            # work's); out of the deferred list before it, so it is never submitted twice
            core.open_keeps.append(chunk)
            del core.deferred[:len(chunk)]
            core.unchecked = True
            try:
                raw_submit(core.queue, many, fence)
            except VkPersistError as exc:      # the driver refused it: the fence is unused
                core.free_fences.append(fence)
                if isinstance(exc, DeviceLost):
                    raise
                raise type(exc)(f"{exc} (submitting {len(chunk)} deferred kernel launches, "
                                "which did not run)") from None
            core.inflight.append((fence, core.open_keeps))
            core.open_keeps = []
    except DeviceLost as exc:
        raise core._lose(exc) from None


def raise_flusher_error(core) -> None:
    """Raise what the flusher thread failed with, once (the launches it held did not run)."""
    error = core.flusher_error
    if error is not None:
        core.flusher_error = None
        if core.lost is not None:
            raise core.refusal() from error
        raise VkPersistError(f"a background submission of deferred kernel launches "
                             f"failed, and those launches did not run: {error}") from error


def _wake_flusher(core) -> None:
    flusher = core.flusher
    if flusher is None or not flusher.is_alive():
        flusher = threading.Thread(target=_flusher, args=(core,), daemon=True,
                                   name=f"vkpersist flusher ({core.info.name})")
        flusher.start()
        core.flusher = flusher
    else:
        core.flusher_wake.notify()


def _flusher(core) -> None:
    """The flusher thread: while launches are deferred, wait (the GIL released) until the
    device is idle or _DEFER_WAIT_S has passed, then submit them. Ends when the core
    closes (or starts closing: close() then submits what is left itself). A failure is
    kept for the next launch, wait or close() to report."""
    while True:
        with core.lock:
            while not core.deferred and not core.closing:
                core.flusher_wake.wait()
            if core.closing:
                return
            fence, device = None, core.device
            if core.inflight and not core.open_keeps:
                fence = core.inflight[-1][0]     # covers all submitted work
                core.waited[fence] += 1          # pinned: not reset or destroyed meanwhile
        error = None
        try:
            if fence is not None:
                fence_wait(device, fence, _DEFER_WAIT_S, "waiting to submit deferred launches")
            else:                                # unfenced work: no fence covers it all
                time.sleep(_DEFER_WAIT_S)
        except BaseException as exc:             # reported below, under the lock
            error = exc
        finally:
            with core.lock:
                if fence is not None:
                    core.waited[fence] -= 1
                    if not core.waited[fence]:
                        del core.waited[fence]
                        core.unwaited.notify_all()
        with core.lock:
            if core.closing:
                return
            try:
                if isinstance(error, DeviceLost):
                    raise core._lose(error)
                if error is not None:
                    raise error
                flush(core)
            except BaseException as exc:      # kept for the launching thread
                core.flusher_error = exc
                core.deferred = []            # none of them will run
