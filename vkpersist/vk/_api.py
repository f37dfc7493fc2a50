"""The one place that imports the `vulkan` binding, and the one place its quirks are handled.

Quirks (VULKAN_FACTS.md §7) handled here or by convention:
- Non-success codes such as VK_NOT_READY and VK_TIMEOUT arrive as exceptions; `translated()`
  turns every binding exception into a vkpersist error and `fence_signaled()` turns
  VK_NOT_READY into False.
- Struct constructors free the temporaries of *nested* structs as soon as the nested Python
  object dies. Convention in vkpersist.vk: every struct passed to Vulkan is bound to a local
  (or stored on the owning object) before the call; never build one inline inside another.
- VK_WHOLE_SIZE overflows unsigned fields: sizes are always passed explicitly.
"""
from __future__ import annotations

import contextlib

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


def fence_signaled(device, fence) -> bool:
    """Non-blocking fence test: the binding raises VkNotReady instead of returning it."""
    with translated("vkGetFenceStatus"):
        try:
            vk.vkGetFenceStatus(device, fence)
        except vk.VkNotReady:
            return False
    return True


def wait_fences(device, fences, timeout_s: float, what: str) -> None:
    """Wait for all `fences`, raising DeviceTimeout (never hanging) after `timeout_s`."""
    if not fences:
        return
    ns = max(0, int(timeout_s * 1e9))
    try:
        with translated(what):
            vk.vkWaitForFences(device, len(fences), fences, vk.VK_TRUE, ns)
    except DeviceTimeout:
        raise DeviceTimeout(f"{what}: the device did not finish within {timeout_s:g} s. "
                            "The work may still be running; raise the timeout "
                            "(timeout=, or VKPERSIST_TIMEOUT) if it is simply long") from None


def version_string(v: int) -> str:
    return f"{v >> 22}.{(v >> 12) & 0x3FF}.{v & 0xFFF}"
