"""Context: one logical Vulkan device, its queue, submissions and the resources it owns.

Ownership and shutdown: a Context's resources (buffers, pipelines) are released when they
are garbage-collected, or when the Context closes (`close()`, `with`, garbage collection or
interpreter exit), children first, then the device, then (at exit) the instance. A Context
whose work did not finish within its timeout (or whose wait was interrupted) is not torn
down, and then neither is the instance: destroying either under running work crashes the
driver. It is reported with a RuntimeWarning instead, and a later close() tries again.

Threads: one reentrant lock per Context serialises submission, recording, waiting and
releasing (see _Core); docs/reliability.md describes the model.

Submissions: every command buffer vkpersist submits ends with one barrier from all its
commands to every later command on the queue and to the host (commands.barrier_at_end), so
successive submissions are ordered and their results are visible to the host once their
fence signals. Launches are asynchronous;
`synchronize()` waits for all of them with a timeout. Launches made inside
`sequence.batched(ctx)` share one submission.
"""
from __future__ import annotations

import collections
import itertools
import os
import threading
import warnings
import weakref

import numpy as np

from .._errors import DeviceLost, DeviceTimeout, UnsupportedError, VkPersistError
from .._polling import check_timeout
from ._api import (RawSubmit, fence_wait, raw_fence_signaled, raw_reset_fences, raw_submit,
                   raw_submit_fence_only, spin_until_signaled, translated, vk, wait_fences)
from .buffer import Buffer, release_device
from .buffer_pool import BufferPool
from . import deferral
from .sequence import batched
from .devices import DeviceInfo, instance, select_device
from .staging import Staging
from .target import Target
from .array import SUPPORTED_DTYPES, Array

DEFAULT_TIMEOUT_S = 60.0
_FENCE_EVERY = 32       # submissions per fence
_RETIRE_AT = 4          # fenced batches in flight before a fenced submission polls for done ones
_MAX_BATCHES = 32       # fenced batches in flight before a launch waits for the oldest
_RESET_TOGETHER = 8     # signalled fences reset by one vkResetFences (_recycle)
SPIN_S = 0.0005         # synchronize() polls this long before it blocks


def _default_timeout() -> float:
    value = os.environ.get("VKPERSIST_TIMEOUT")
    if not value:
        return DEFAULT_TIMEOUT_S
    try:
        return check_timeout(float(value), "VKPERSIST_TIMEOUT")
    except ValueError:
        raise ValueError(f"VKPERSIST_TIMEOUT={value!r} is not a valid timeout: set it to a "
                         "positive number of seconds (e.g. 60), or inf for no timeout") from None


def _feature_chain(info: DeviceInfo):
    """VkPhysicalDeviceFeatures2 enabling every optional feature vkpersist uses that the
    device has. Returns (head, keepalive)."""
    base = vk.VkPhysicalDeviceFeatures(shaderFloat64=info.float64, shaderInt64=info.int64,
                                       shaderInt16=info.int16)
    if tuple(int(p) for p in info.vulkan_version.split(".")[:2]) < (1, 2):
        return None, [base]
    f12 = vk.VkPhysicalDeviceVulkan12Features(
        storageBuffer8BitAccess=info.storage8, shaderInt8=info.int8,
        shaderFloat16=info.float16, shaderBufferInt64Atomics=info.atomic_int64,
        shaderSharedInt64Atomics=info.atomic_int64_shared,
        vulkanMemoryModel=info.memory_model, vulkanMemoryModelDeviceScope=info.memory_model,
        timelineSemaphore=True)
    keep = [base, f12]
    if info.atomic_float:
        atomic_float = vk.VkPhysicalDeviceShaderAtomicFloatFeaturesEXT(
            pNext=f12, shaderBufferFloat32Atomics=True, shaderBufferFloat32AtomicAdd=True,
            shaderSharedFloat32Atomics=True, shaderSharedFloat32AtomicAdd=True)
        keep.append(atomic_float)
    if info.pipeline_statistics:
        keep.append(vk.VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR(
            pNext=keep[-1], pipelineExecutableInfo=True))
    f11 = vk.VkPhysicalDeviceVulkan11Features(pNext=keep[-1],
                                              storageBuffer16BitAccess=info.storage16)
    head = vk.VkPhysicalDeviceFeatures2(pNext=f11, features=base)
    return head, keep + [f11]


class _Core:
    """The handles of one logical device, shared by the Context and everything it owns
    (children hold the core, not the Context, so no reference cycles are needed).

    Threads: `lock` (reentrant) serialises everything that touches the queue, the command
    pool, fences and the bookkeeping below: submission, retirement, synchronize, recording,
    releasing children. Vulkan requires external synchronisation of queues and command
    pools, and the bookkeeping is shared.

    Exceptions (Ctrl-C) can arrive between any two steps, so the order is: keep references
    before submitting, track a fence only after its submission. An interrupted step may
    leak a fence or hold a reference longer, never track an unsubmitted fence (a wait that
    could only time out) or drop a reference to work still running."""

    def __init__(self, info: DeviceInfo, timeout: float):
        self.info = info
        self.timeout = timeout
        self.lock = threading.RLock()
        self.instance = instance()             # keeps the instance alive past this device
        physical = self.instance.physical_devices[info.index]
        families = vk.vkGetPhysicalDeviceQueueFamilyProperties(physical)
        compute = [i for i, q in enumerate(families) if q.queueFlags & vk.VK_QUEUE_COMPUTE_BIT]
        if not compute:
            raise UnsupportedError(f"{info.name} has no compute queue")
        self.queue_family = compute[0]
        priorities = [1.0]
        queue_info = vk.VkDeviceQueueCreateInfo(queueFamilyIndex=self.queue_family,
                                                queueCount=1, pQueuePriorities=priorities)
        features2, keep = _feature_chain(info)
        extensions = ["VK_EXT_shader_atomic_float"] if info.atomic_float else []
        if info.external_memory_host:       # host pages imported as buffers (memsocks)
            extensions.append("VK_EXT_external_memory_host")
        if info.pipeline_statistics:        # Pipeline.statistics (registers, code size)
            extensions.append("VK_KHR_pipeline_executable_properties")
        if features2 is not None:
            create = vk.VkDeviceCreateInfo(pNext=features2, pQueueCreateInfos=[queue_info],
                                           ppEnabledExtensionNames=extensions or None)
        else:
            create = vk.VkDeviceCreateInfo(pQueueCreateInfos=[queue_info], pEnabledFeatures=keep[0])
        with translated(f"creating a device on {info.name}"):
            self.device = vk.vkCreateDevice(physical, create, None)
        self.queue = vk.vkGetDeviceQueue(self.device, self.queue_family, 0)
        pool_info = vk.VkCommandPoolCreateInfo(
            queueFamilyIndex=self.queue_family,
            flags=vk.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT)
        try:
            with translated(f"creating a command pool on {info.name}"):
                self.command_pool = vk.vkCreateCommandPool(self.device, pool_info, None)
        except BaseException:
            vk.vkDestroyDevice(self.device, None)     # nothing else was created on it
            self.device = None
            raise
        self.free_fences: list = []
        self.spent_fences: list = []        # signalled, reset together (see _recycle)
        self.waited = collections.Counter()   # fences wait_idle waits for outside the lock
        self.unwaited = threading.Condition(self.lock)   # notified when none is waited for
        self.open_keeps: list = []          # keepalives of submissions no fence covers yet
        self.one_shot: list = []                                  # reusable command buffers
        self.spare_command_buffers: list = []     # recorded into next (commands.spare)
        self.buffer_pool = BufferPool()           # released buffers kept for reuse
        self.inflight: collections.deque = collections.deque()   # (fence, [keepalive...])
        self.children: dict[int, weakref.finalize] = {}
        self._keys = itertools.count()
        self.forget_listeners: list = []
        # what modules keep per core in tables keyed by it (batches, a kernel's pipelines),
        # dropped at close: an entry that holds its core kept the core, and so every
        # closed or collected Context's Python side, alive for good
        self.on_close: list = []
        self.after_sync: list = []   # checks run once all submitted work has completed
        self.unchecked = False       # work was submitted since the checks last ran
        self.lost: str | None = None  # the error that reported the device lost
        self.batch = None            # the open sequence.Batch: launches join it (batched)
        # kernel launches waiting while the device is busy (deferral.py): (submit, keep)
        self.deferred: list = []
        self.submit_many = None      # deferral's RawSubmitMany, made on first use
        self.flusher = None          # deferral's thread, started on the first deferral
        self.flusher_wake = threading.Condition(self.lock)
        self.flusher_error: BaseException | None = None
        self.closing = False         # close() runs: new submissions are refused

    # ---- resources -------------------------------------------------------------------
    def track(self, obj, release, *args) -> weakref.finalize:
        """Register `release(*args)` to run once, when `obj` dies or the device closes."""
        key = next(self._keys)
        fin = weakref.finalize(obj, self._release_child, key, release, args)
        # At interpreter exit the device's own close() waits for pending work and then
        # releases its children; a child released first could pull memory out from under
        # a running launch.
        fin.atexit = False
        self.children[key] = fin
        return fin

    def _release_child(self, key, release, args) -> None:
        with self.lock:          # garbage collection may run this on any thread
            self.children.pop(key, None)
            release(*args)

    def forget(self, serial: int) -> None:
        with self.lock:
            for listener in list(self.forget_listeners):
                listener(serial)

    # ---- device loss -----------------------------------------------------------------
    def _lose(self, exc: DeviceLost) -> DeviceLost:
        """Remember the loss (every later use is refused); the error to raise names the
        device, once (an error that passed through here already is named again as is)."""
        text, prefix = str(exc), f"{self.info.name}: "
        self.lost = text.removeprefix(prefix)
        return DeviceLost(prefix + self.lost)

    def check_open(self) -> None:
        """Before new work: refuse it while close() runs (from another thread), and raise
        what a background submission of deferred launches failed with."""
        if self.closing:
            raise VkPersistError(f"this Context ({self.info.name}) is closing")
        deferral.raise_flusher_error(self)

    def refusal(self) -> DeviceLost:
        return DeviceLost(f"{self.info.name}: this Context's device was lost earlier and it "
                          f"refuses further use; the loss: {self.lost}")

    # ---- submission ------------------------------------------------------------------
    def fence(self):
        if self.free_fences:
            return self.free_fences.pop()
        info = vk.VkFenceCreateInfo()
        with translated("creating a fence"):       # rare: fences are recycled
            return vk.vkCreateFence(self.device, info, None)

    def submit(self, submit: RawSubmit, keep=()) -> None:
        """Submit one recorded command buffer asynchronously; `keep` stays referenced until
        the work completes. This is the launch hot path: keep it lean.

        Only every _FENCE_EVERY-th submission (and the first after the queue went idle)
        carries a fence: a fence signalled by vkQueueSubmit covers all work submitted
        before it on the queue, and fences are the expensive part of a submission on some
        drivers. The unfenced ones wait in `open_keeps` for the next fence."""
        if self.lost is not None:
            raise self.refusal()
        with self.lock:
            if self.closing or self.flusher_error is not None:
                self.check_open()
            if self.deferred:
                deferral.flush(self)          # launches deferred before this go first
            if self.batch is not None and self.batch.dispatches:
                self.batch.flush()            # launches batched before this go first
            open_keeps = self.open_keeps
            # before submitting (see the class docs); the submitted command buffer too, so
            # it is not recorded again meanwhile (commands.Recorded)
            open_keeps.append((keep, submit))
            self.unchecked = True
            n = len(open_keeps)
            try:
                if n <= _FENCE_EVERY and (n > 1 or self.inflight):
                    raw_submit(self.queue, submit, None)       # joins the open batch
                    return
                self.make_room()
                fence = self.free_fences.pop() if self.free_fences else self.fence()
                try:
                    raw_submit(self.queue, submit, fence)
                except VkPersistError:     # the driver refused it: the fence stays unused
                    self.free_fences.append(fence)
                    raise
            except DeviceLost as exc:
                raise self._lose(exc) from None
            self.inflight.append((fence, open_keeps))
            self.open_keeps = []

    def make_room(self) -> None:
        """Before a fenced submission: recycle finished batches, and wait for the oldest
        while _MAX_BATCHES are in flight."""
        if len(self.inflight) >= _RETIRE_AT:
            self.retire()
            if len(self.inflight) >= _MAX_BATCHES:
                self.wait_oldest()

    @property
    def pending(self) -> bool:
        return bool(self.inflight or self.open_keeps or self.deferred)

    def _close_open_batch(self) -> None:
        """Submit the deferred launches and put a fence behind the unfenced submissions (an
        empty submission: its fence signals once everything submitted before it has
        completed)."""
        if self.deferred:
            deferral.flush(self)              # fenced: it covers the open batch too
        if self.open_keeps:
            fence = self.free_fences.pop() if self.free_fences else self.fence()
            try:
                raw_submit_fence_only(self.queue, fence)
            except VkPersistError:
                self.free_fences.append(fence)
                raise
            self.inflight.append((fence, self.open_keeps))
            self.open_keeps = []

    def retire(self) -> None:
        """Recycle the fences of finished submissions, oldest first, without waiting."""
        with self.lock:
            done = []
            while self.inflight and raw_fence_signaled(self.device, self.inflight[0][0]):
                done.append(self.inflight.popleft()[0])
            self._recycle(done)

    def _recycle(self, fences: list) -> None:
        """Signalled fences go back to the pool, reset _RESET_TOGETHER at a time: one
        vkResetFences through the binding costs ~3.6 µs on the H200 however many fences it
        resets, a launch-and-synchronize loop spent that on every iteration."""
        spent = self.spent_fences
        spent += fences
        if len(spent) >= _RESET_TOGETHER:
            waited = self.waited       # one wait_idle waits for, outside the lock: not yet
            ready = [f for f in spent if f not in waited] if waited else spent
            if ready:
                raw_reset_fences(self.device, ready)
                self.free_fences += ready
            spent[:] = [f for f in spent if f in waited] if waited else []

    def _retire_now(self) -> None:
        """Fence the unfenced submissions and recycle what has completed, never waiting;
        the caller holds the lock."""
        if self.lost is not None:
            raise self.refusal()
        deferral.raise_flusher_error(self)
        try:
            self._close_open_batch()
            self.retire()
        except DeviceLost as exc:
            raise self._lose(exc) from None

    def idle(self) -> bool:
        """True once all submitted work has completed; never waits (for pollers that must
        not block, such as a trio task watching a long-running dispatch)."""
        with self.lock:
            self._retire_now()
            return not self.inflight

    def wait_idle(self, seconds: float) -> bool:
        """Block up to `seconds` until all submitted work has completed: whether it has.
        One driver wait with the GIL released, outside the lock (other threads submit
        meanwhile), for a thread that waits for long work: the session driver. Polling
        with short sleeps instead, each wake-up has to take the GIL back, and a thread
        that runs Python without pause (a trio body polling a memsock with
        `await trio.sleep(0)`) keeps it long each time: such a body held a launch-mode
        session on an H100 to 5,500 steps/s against 53,000 (benchmarks/probes/host_polling.py).
        The fence waited on stays pinned (`waited`, counted per waiter) so that neither
        `_recycle` resets it nor `close()` destroys it meanwhile."""
        pinned = None
        try:
            with self.lock:
                self._retire_now()
                if self.device is None or not self.inflight:
                    return True
                device, pinned = self.device, self.inflight[-1][0]   # covers all before it
                self.waited[pinned] += 1
            fence_wait(device, pinned, seconds, "waiting for the device")
        except DeviceLost as exc:
            raise self._lose(exc) from None
        finally:
            if pinned is not None:
                with self.lock:
                    self.waited[pinned] -= 1
                    if not self.waited[pinned]:
                        del self.waited[pinned]
                        self.unwaited.notify_all()
        return self.idle()

    def holds(self, obj) -> bool:
        """Whether work not yet complete (submitted, or batched and not yet submitted)
        keeps `obj`, as `buffer.in_flight` names what a launch binds: whether it may still
        read it. Never waits. Unlike `not idle()`, other work does not count: a queued
        write into an unrelated 'device' array (on a discrete GPU, even an idle queue
        takes those) kept a cancelled command from being withdrawn (seen on an H100)."""
        with self.lock:
            self._retire_now()
            stack = [keep for _, keep in self.inflight]   # (the deferred were flushed)
            if self.batch is not None:
                stack.append(self.batch.keeps)
            while stack:
                keep = stack.pop()
                if keep is obj:
                    return True
                if isinstance(keep, (tuple, list)):
                    stack.extend(keep)
            return False

    def wait_oldest(self) -> None:
        """Wait for the oldest fenced batch (fencing the open one first if it is all)."""
        if not self.inflight:
            self._close_open_batch()
        fence, _ = self.inflight[0]
        wait_fences(self.device, [fence], self.timeout, "waiting for a queued launch")
        self.retire()

    def synchronize(self, timeout: float | None = None) -> None:
        """Wait (up to `timeout`, default the context's) until all submitted work has
        completed, then run the after-sync checks. Holds the lock while it waits: other
        threads' submissions queue up behind it (the queue runs them in order anyway)."""
        if self.lost is not None:
            raise self.refusal()
        with self.lock:
            deferral.raise_flusher_error(self)
            if self.batch is not None:
                self.batch.flush()
            try:
                self._wait_all(self.timeout if timeout is None else timeout, "synchronize()")
            except DeviceLost as exc:
                raise self._lose(exc) from None
            if self.unchecked:
                self.unchecked = False
                for check in list(self.after_sync):
                    check()

    def _wait_all(self, timeout: float, what: str) -> None:
        self._close_open_batch()
        if self.inflight:
            last = self.inflight[-1][0]   # covers every earlier submission on the queue
            if not spin_until_signaled(self.device, last, SPIN_S, what):
                try:
                    wait_fences(self.device, [last], timeout, what)
                except DeviceTimeout:
                    self.retire()
                    raise
            fences = [f for f, _ in self.inflight]
            self.inflight.clear()
            self._recycle(fences)

    # ---- shutdown --------------------------------------------------------------------
    def close(self) -> None:
        """Wait for pending work (up to the timeout), then destroy the children, the device
        and its handles. Work that does not finish (a timeout, Ctrl-C during the wait) leaves
        the device open, and the instance with it: destroying either under running work
        crashes drivers. A later close() (or interpreter exit) tries again."""
        with self.lock:
            if self.device is None:
                return
            # from here other threads' submissions are refused and the flusher thread ends:
            # waiting for pinned fences below releases the lock, and work submitted then
            # would run on a destroyed device
            self.closing = True
            self.flusher_wake.notify_all()
            if self.flusher_error is not None:
                warnings.warn(f"vkpersist: deferred kernel launches on {self.info.name} were "
                              f"never submitted ({self.flusher_error}); closing the Context",
                              RuntimeWarning, stacklevel=3)
                self.flusher_error = None
            while True:
                try:
                    self._wait_all(self.timeout, f"closing the Context on {self.info.name}")
                except DeviceTimeout as exc:
                    self._leave_open(exc)
                    return
                except VkPersistError:
                    pass     # a lost device runs nothing any more: it can be destroyed
                except BaseException as exc:    # Ctrl-C while waiting
                    self._leave_open(exc)
                    raise
                # threads in wait_idle and the flusher wait on a fence outside the lock: not
                # destroyed under them (their waits are slices of 50 ms at most)
                if not self.unwaited.wait_for(lambda: not self.waited, self.timeout):
                    self._leave_open(DeviceTimeout("a thread still waits on a fence"))
                    return
                if not self.pending or self.lost is not None:
                    break
            for fin in list(self.children.values()):
                fin()
            self.children.clear()
            self.buffer_pool.drain(self)
            for fence in self.free_fences + self.spent_fences:
                vk.vkDestroyFence(self.device, fence, None)
            self.free_fences.clear()
            self.spent_fences.clear()
            vk.vkDestroyCommandPool(self.device, self.command_pool, None)
            device, self.device = self.device, None
            release_device(self, device)    # after the last NumPy view of its memory (buffer.py)
            for drop in self.on_close:
                drop()
            self.on_close.clear()
            # the checks and listeners hold views of mapped words (sync_words) and caches
            # of the closed device; dropped, the last mappings are freed (and the device
            # destroyed, release_device) instead of keeping each other alive for good
            self.after_sync.clear()
            self.forget_listeners.clear()

    def _leave_open(self, exc: BaseException) -> None:
        self.closing = False                 # still usable; a later close() tries again
        self.instance.keep()
        why = (f"did not finish within {self.timeout:g} s" if isinstance(exc, DeviceTimeout)
               else f"was still running when the wait was interrupted ({type(exc).__name__})")
        warnings.warn(f"vkpersist: work on {self.info.name} {why}; its device and the Vulkan "
                      "instance are left open rather than destroyed under running work",
                      RuntimeWarning, stacklevel=4)

    def allocate(self, nbytes: int, kind: str) -> Buffer:
        return Buffer(self, nbytes, kind)


_contexts: "weakref.WeakSet[Context]" = weakref.WeakSet()
_default: "Context | None" = None


class Context:
    """One Vulkan device, ready for arrays and kernels.

    device: None (env VKPERSIST_DEVICE, else the best device: dgpu > igpu > cpu), an int
    index into `list_devices()`, a kind ('dgpu', 'igpu', 'cpu', 'virtual', 'other') or a
    substring of the device name. timeout: seconds any wait may take before DeviceTimeout
    (default: env VKPERSIST_TIMEOUT, else 60); a positive number, or math.inf to wait as
    long as the work takes (Ctrl-C still interrupts). docs/reliability.md lists the waits.

    A Context may be used from several threads: launches, copies and waits are serialised
    by one lock per Context (see docs/reliability.md for what that means for throughput).
    """

    def __init__(self, device=None, *, timeout: float | None = None):
        timeout = _default_timeout() if timeout is None else \
            check_timeout(timeout, "Context(timeout=)")
        self.info: DeviceInfo = select_device(device)
        self.target: Target = Target.for_device(self.info)   # what code is generated for it
        self._core = _Core(self.info, timeout)
        self._close = weakref.finalize(self, self._core.close)
        # what the layers above keep per context (launch plans, recipes, reduction
        # scratch): here, so that it dies with the context. Kept in module-level tables
        # keyed by context, whose entries held the context, every dropped Context stayed
        # alive with its memory and threads (300 of them: +1.36 GB; issue 53).
        self._caches: dict = {}
        self._stager: Staging | None = None
        _contexts.add(self)

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def timeout(self) -> float:
        return self._core.timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self._core.timeout = check_timeout(seconds, "Context.timeout")

    @property
    def closed(self) -> bool:
        return self._core.device is None

    def close(self) -> None:
        """Wait for pending work (with the timeout), then release everything this Context
        owns. Idempotent. Work still running after the timeout is never destroyed: the
        device stays open with a RuntimeWarning, and a later close() (or exit) tries again."""
        self._core.close()

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"vkpersist.Context({self.info.summary()}{', closed' if self.closed else ''})"

    # ---- arrays ----------------------------------------------------------------------
    def empty(self, shape, dtype=np.float32, memory: str = "device") -> Array:
        """An uninitialised array."""
        return Array(self, shape, dtype, memory)

    def zeros(self, shape, dtype=np.float32, memory: str = "device") -> Array:
        return self.empty(shape, dtype, memory).fill(0)

    def full(self, shape, value, dtype=np.float32, memory: str = "device") -> Array:
        return self.empty(shape, dtype, memory).fill(value)

    def asarray(self, data, dtype=None, memory: str = "device") -> Array:
        """A device copy of `data` (an ndarray or anything NumPy accepts). An Array of this
        context with the same dtype and memory kind is returned as it is."""
        if isinstance(data, Array):
            if data.ctx is self and (dtype is None or np.dtype(dtype) == data.dtype) \
                    and data.memory == memory:
                return data
            if data.ctx is self and data.memory == memory:
                return data.astype(dtype)            # converted on the device
            data = data.numpy()
        host = np.asarray(data, dtype=dtype)
        if host.dtype == np.dtype(object):
            raise TypeError("asarray(): data has object dtype (ragged or non-numeric); "
                            f"supported dtypes: {', '.join(SUPPORTED_DTYPES)}")
        out = Array(self, host.shape, host.dtype, memory)
        out.copy_from(host)
        return out

    # ---- work ------------------------------------------------------------------------
    def batched(self):
        """`with ctx.batched():` records the kernel launches made inside into one command
        buffer, submitted when the block ends (or as soon as anything else is submitted or
        waited for: reading an array, a copy, `synchronize()`), so the order on the queue
        never changes. Many small launches then cost one submission (on the H200 a
        separate submission takes ~11 µs of device time however small its kernel), at the
        price of starting none of them before the block ends. A repeated block of the same
        launches reuses its recorded commands. The block holds the context's lock: other
        threads' launches on this context wait for it to end."""
        self._core_alive()
        return batched(self)

    def synchronize(self, timeout: float | None = None) -> None:
        """Wait until every launch submitted on this context has finished: DeviceTimeout
        after `timeout` seconds (default: the context's; math.inf: no limit), the work left
        running and waitable again."""
        core = self._core_alive()
        core.synchronize(None if timeout is None else
                         check_timeout(timeout, "synchronize(timeout=)"))

    def _core_alive(self) -> _Core:
        core = self._core
        if core.device is None:
            raise VkPersistError(f"this Context ({self.info.name}) is closed")
        if core.lost is not None:
            raise core.refusal()
        return core

    def _staging(self) -> Staging:
        core = self._core_alive()
        with core.lock:
            if self._stager is None:
                self._stager = Staging(core)
            return self._stager


def default_context() -> Context:
    """The Context used by calls that name none; created on first use."""
    global _default
    if _default is None or _default.closed:
        _default = Context()
    return _default


def synchronize(timeout: float | None = None) -> None:
    """Wait for the pending launches of every open Context (each up to `timeout`, default
    its own timeout)."""
    if timeout is not None:
        timeout = check_timeout(timeout, "vkp.synchronize(timeout=)")
    for ctx in list(_contexts):
        if not ctx.closed:
            ctx.synchronize(timeout)
