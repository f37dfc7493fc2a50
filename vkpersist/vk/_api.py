"""The one place that imports the `vulkan` binding, and the one place its quirks are handled.

Quirks (VULKAN_FACTS.md §7) handled here or by convention:
- Non-success codes such as VK_NOT_READY and VK_TIMEOUT arrive as exceptions; `translated()`
  turns every binding exception into a vkpersist error and `fence_signaled()` turns
  VK_NOT_READY into False.
- Struct constructors free the temporaries of *nested* structs as soon as the nested Python
  object dies. Convention in vkpersist.vk: every struct passed to Vulkan is bound to a local
  (or stored on the owning object) before the call; never build one inline inside another.
- VK_WHOLE_SIZE overflows unsigned fields: sizes are always passed explicitly.

Errors: every binding call that can fail runs under `translated("what it was doing")`, so
its failure reaches the user as a vkpersist error (DeviceLost, OutOfDeviceMemory,
DeviceTimeout, else VkPersistError) naming the operation: creation and allocation
(instance, device, command pool, fences, buffers, memory, pipelines, descriptor pools and
sets, command buffers), mapping, enumeration and queries that return a VkResult, command
buffer begin/end/reset, and submission and waits (the launch path and recording call the C functions
directly and checks their result with `check_result`, one test per submit, no `with`). Left
unwrapped on purpose, because the specification gives them no failure to report: vkCmd*
recording (errors surface at vkEndCommandBuffer, which is wrapped), vkDestroy* and vkFree*
(void), vkUpdateDescriptorSets (void), vkGetDeviceQueue and the vkGet*Properties /
vkGet*Features / vkGetBufferMemoryRequirements queries (void). tests/runtime/test_vk_errors.py
makes the wrapped calls fail and checks what the user gets, and that nothing leaks.
"""
from __future__ import annotations

import contextlib
import ctypes
import time

from .._errors import (DeviceLost, DeviceTimeout, OutOfDeviceMemory, VkPersistError,
                       VulkanUnavailable)

_INSTALL_HINT = ("install the Vulkan loader and a driver; on Debian/Ubuntu: "
                 "`apt-get install libvulkan1 mesa-vulkan-drivers` (mesa-vulkan-drivers "
                 "provides lavapipe, a Vulkan device on the CPU); `make setup` does this")


class _Missing:
    """Stands in for the binding when libvulkan cannot be loaded, so `import vkpersist` works
    and the first real use explains what is missing."""

    def __init__(self, reason: str):
        self._reason = reason

    def __getattr__(self, name):
        raise VulkanUnavailable(f"the Vulkan loader could not be loaded ({self._reason}); "
                                f"{_INSTALL_HINT}")


try:
    import vulkan as vk  # noqa: F401  (re-exported for the rest of vkpersist.vk)
    from vulkan import ffi  # noqa: F401
except OSError as exc:  # libvulkan.so.1 missing
    vk = _Missing(str(exc))
    ffi = _Missing(str(exc))

INSTALL_HINT = _INSTALL_HINT


@contextlib.contextmanager
def translated(what: str):
    """Re-raise the binding's exceptions as vkpersist errors that say which operation failed."""
    try:
        yield
    except VkPersistError:
        raise
    except Exception as exc:  # the binding's exception classes all derive from Exception
        name = type(exc).__name__
        if name == "VkErrorDeviceLost":
            raise DeviceLost(f"{what}: the device was lost (driver crash or watchdog reset); "
                             "close this Context and create a new one") from exc
        if name == "VkTimeout":
            raise DeviceTimeout(f"{what}: timed out") from exc
        if name in ("VkErrorOutOfDeviceMemory", "VkErrorOutOfHostMemory"):
            raise OutOfDeviceMemory(f"{what}: the driver is out of "
                                    f"{'device' if 'Device' in name else 'host'} memory") from exc
        if name.startswith("Vk"):
            raise VkPersistError(f"{what} failed: {name}") from exc
        raise


WAIT_SLICE_S = 0.05     # longest single blocking wait: Ctrl-C is seen within this


def wait_fences(device, fences, timeout_s: float, what: str) -> None:
    """Wait for all `fences`, raising DeviceTimeout (never hanging) after `timeout_s`
    (math.inf: no limit).

    The driver's wait blocks in C, where Python cannot run its signal handlers, so it waits
    in slices of at most WAIT_SLICE_S: a Ctrl-C raises KeyboardInterrupt within that, the
    fences left as they were. A slice ends as soon as the fences signal, so slicing costs a
    wake-up per WAIT_SLICE_S of waiting and nothing on short waits. Infinity (or 1e30)
    never reaches the driver's nanosecond count."""
    if not fences:
        return
    if _lost_injections:
        _injected_loss(what)
    handles = ffi.new("VkFence[]", fences)
    deadline = time.perf_counter() + timeout_s
    left = timeout_s
    while True:
        if _signalled_within(device, len(fences), handles, min(left, WAIT_SLICE_S), what):
            return
        left = deadline - time.perf_counter()      # pending signal handlers run here
        if left <= 0:
            raise DeviceTimeout(f"{what}: the device did not finish within {timeout_s:g} s. "
                                "The work may still be running; raise the timeout "
                                "(timeout=, or VKPERSIST_TIMEOUT) if it is simply long")


def fence_wait(device, fence, seconds: float, what: str) -> bool:
    """One blocking wait (the GIL released) of at most `seconds` for `fence`: whether it
    signalled."""
    if _lost_injections:
        _injected_loss(what)
    return _signalled_within(device, 1, ffi.new("VkFence[1]", [fence]), seconds, what)


def _signalled_within(device, count: int, handles, seconds: float, what: str) -> bool:
    """One vkWaitForFences of at most `seconds` (the GIL released) for all `count` fences
    of `handles`: whether they signalled; errors raised as vkpersist errors."""
    result = vk.lib.vkWaitForFences(device, count, handles, vk.VK_TRUE,
                                    int(max(0.0, seconds) * 1e9))
    if result == _TIMEOUT:
        return False
    check_result(result, what)
    return True


# ---- the launch hot path: direct calls that keep the GIL --------------------------------
# The binding wraps every call in Python that converts each argument (tens of µs per launch
# on a fast GPU). Submission, fence polling and recording go straight to the C functions
# with structs built once; result codes are checked here.
#
# Those short calls keep the GIL (ctypes.PYFUNCTYPE); cffi releases it around every call.
# A thread that gives up the GIL for a microsecond call waits to get it back until the
# thread holding it is made to switch (sys.getswitchinterval(), 5 ms), when that thread
# runs Python without pause: a trio loop polling a memsock with `await trio.sleep(0)`. The
# session driver (its own thread) makes a few such calls per batch of fallback steps, and
# thousands when it records a new batch: on an H100 (2026-12-06, benchmarks/probes/host_polling.py)
# a launch-mode session ran 262 steps/s against 46,700 while its body polled a drop count,
# and tests/channels/test_frame_integrity.py's reader saw no frame for 10 s while the driver recorded
# a batch. A thread calling a C function 2,520 times/s through cffi while the main thread
# computed managed 936,000 calls/s through PYFUNCTYPE (1.7M alone; same cost per call).
# Waits that block (vkWaitForFences) still release the GIL. The price: while a held call
# runs, no other Python thread does. None of these calls waits for the device, except a
# vkQueueSubmit that a driver makes wait for room in its ring; vkpersist keeps at most
# _MAX_BATCHES x _FENCE_EVERY (1,024) submissions in flight (context.py), waiting for the
# oldest with the GIL released beyond that.
_SUCCESS, _NOT_READY, _TIMEOUT, _DEVICE_LOST = 0, 1, 2, -4

_RESULTS = {         # name: result type (None: void); the arguments are converted by hand
    "vkQueueSubmit": ctypes.c_int32, "vkGetFenceStatus": ctypes.c_int32,
    "vkResetFences": ctypes.c_int32, "vkBeginCommandBuffer": ctypes.c_int32,
    "vkEndCommandBuffer": ctypes.c_int32, "vkCmdPipelineBarrier": None,
    "vkCmdBindPipeline": None, "vkCmdBindDescriptorSets": None, "vkCmdPushConstants": None,
    "vkCmdDispatch": None, "vkCmdDispatchIndirect": None, "vkCmdCopyBuffer": None,
    "vkCmdFillBuffer": None,
}


class _HeldCalls:
    """`held.vkX(...)`: the loader's vkX, called with the GIL held. Without declared
    argument types (ctypes then converts nothing itself: ~300 ns a call against ~550 with
    them, and ~500 through cffi), so every argument is a ctypes object of the C type
    (handles and long-lived struct pointers from `address()`, sizes as c_uint64, any
    uint32 above 2**31 - 1 as c_uint32), a Python int below 2**31 for a uint32, None for
    NULL, or bytes for a pointer to their data."""

    def __getattr__(self, name: str):
        if name not in _RESULTS:
            raise AttributeError(f"held calls are {', '.join(_RESULTS)}; not {name!r}")
        function = ctypes.PYFUNCTYPE(_RESULTS[name])(
            int(ffi.cast("uintptr_t", getattr(vk.lib, name))))
        function.argtypes = None
        setattr(self, name, function)
        return function


held = _HeldCalls()
_ADDRESSES: dict = {}
_ADDRESSES_KEPT = 8192


def address(cdata) -> ctypes.c_void_p:
    """A binding handle or a long-lived C struct pointer as a ctypes pointer for `held`
    calls (memoised: a lookup costs ~40 ns, the conversion ~600). Never for a short-lived
    struct: the memo keeps its cdata alive until the memo is next cleared."""
    try:
        return _ADDRESSES[cdata]
    except KeyError:
        if len(_ADDRESSES) >= _ADDRESSES_KEPT:
            _ADDRESSES.clear()
        value = _ADDRESSES[cdata] = pointer(cdata)
        return value


def pointer(cdata) -> ctypes.c_void_p:
    """A cffi pointer or handle as a ctypes pointer for `held` calls, not memoised (for
    short-lived structs; `address()` for the rest)."""
    return ctypes.c_void_p(int(ffi.cast("uintptr_t", cdata)))


class RawSubmit:
    """A VkSubmitInfo for one command buffer, built once and reused for every submission."""
    __slots__ = ("handles", "info", "address")

    def __init__(self, command_buffer):
        self.handles = ffi.new("VkCommandBuffer[1]", [command_buffer])
        self.info = ffi.new("VkSubmitInfo*", {"sType": vk.VK_STRUCTURE_TYPE_SUBMIT_INFO,
                                              "commandBufferCount": 1,
                                              "pCommandBuffers": self.handles})
        self.address = pointer(self.info)


class RawSubmitMany:
    """One VkSubmitInfo for up to `capacity` recorded command buffers, built once: the
    deferred launches of deferral.py go out as one submission of several buffers."""
    __slots__ = ("handles", "info", "address")

    def __init__(self, capacity: int):
        self.handles = ffi.new("VkCommandBuffer[]", capacity)
        self.info = ffi.new("VkSubmitInfo*", {"sType": vk.VK_STRUCTURE_TYPE_SUBMIT_INFO,
                                              "commandBufferCount": 0,
                                              "pCommandBuffers": self.handles})
        self.address = pointer(self.info)

    def fill(self, submits) -> None:
        """The command buffers of `submits` (RawSubmits, at most `capacity`), in order."""
        handles = self.handles
        for i, submit in enumerate(submits):
            handles[i] = submit.handles[0]
        self.info.commandBufferCount = len(submits)


def check_result(result: int, what: str) -> None:
    if result == _SUCCESS:
        return
    if result == _DEVICE_LOST:
        raise DeviceLost(f"{what}: the device was lost (driver crash or watchdog reset); "
                         "close this Context and create a new one")
    if result == _TIMEOUT:
        raise DeviceTimeout(f"{what}: timed out")
    if result in (-1, -2):      # VK_ERROR_OUT_OF_HOST_MEMORY, VK_ERROR_OUT_OF_DEVICE_MEMORY
        raise OutOfDeviceMemory(f"{what}: the driver is out of "
                                f"{'host' if result == -1 else 'device'} memory")
    raise VkPersistError(f"{what} failed with VkResult {result}")


def raw_submit(queue, submit: RawSubmit, fence) -> None:
    result = held.vkQueueSubmit(address(queue), 1, submit.address,
                                None if fence is None else address(fence))
    if result:
        check_result(result, "vkQueueSubmit")


def raw_submit_fence_only(queue, fence) -> None:
    check_result(held.vkQueueSubmit(address(queue), 0, None, address(fence)), "vkQueueSubmit")


def raw_fence_signaled(device, fence) -> bool:
    if _lost_injections:
        _injected_loss("vkGetFenceStatus")
    result = held.vkGetFenceStatus(address(device), address(fence))
    if result == _NOT_READY:
        return False
    check_result(result, "vkGetFenceStatus")
    return True


def raw_reset_fences(device, fences: list) -> None:
    handles = (ctypes.c_void_p * len(fences))(*[address(f) for f in fences])
    check_result(held.vkResetFences(address(device), len(fences), handles), "vkResetFences")


def spin_until_signaled(device, fence, seconds: float, what: str = "vkGetFenceStatus") -> bool:
    """Poll a fence for up to `seconds`. A blocking wait costs a thread wake-up (measured
    50-140 µs on the H200 against ~21 µs spinning), so short waits spin first."""
    if _lost_injections:
        _injected_loss(what)
    status, device, fence = held.vkGetFenceStatus, address(device), address(fence)
    deadline = time.perf_counter() + seconds
    while True:
        result = status(device, fence)
        if result != _NOT_READY:
            check_result(result, what)
            return True
        if time.perf_counter() > deadline:
            return False


# ---- fault injection (tests) ----------------------------------------------------------
# lavapipe cannot be made to lose its device, so the DeviceLost path is tested by making
# the next fence query or wait report VK_ERROR_DEVICE_LOST, as a crashed driver would.
_lost_injections = 0


def inject_device_lost(count: int = 1) -> None:
    """Make the next `count` fence queries or waits (any context) report the device lost.
    For tests only: the device itself keeps working, and its real fences stay untouched."""
    global _lost_injections
    _lost_injections = count


def _injected_loss(what: str) -> None:
    global _lost_injections
    _lost_injections -= 1
    check_result(_DEVICE_LOST, f"{what} [injected by inject_device_lost()]")


def version_string(v: int) -> str:
    return f"{v >> 22}.{(v >> 12) & 0x3FF}.{v & 0xFFF}"
