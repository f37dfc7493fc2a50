"""The exceptions vkpersist raises. Every one says what went wrong and what would be valid."""
from __future__ import annotations

import functools


class VkPersistError(Exception):
    """Base class of every error vkpersist raises on purpose."""


class VulkanUnavailable(VkPersistError):
    """No Vulkan loader, or no Vulkan device, on this machine."""


class DeviceNotFound(VkPersistError, LookupError):
    """A device selector matched none of the Vulkan devices present."""


class UnsupportedError(VkPersistError):
    """The device cannot do what was asked (a memory kind, a dtype, a feature)."""


class OutOfDeviceMemory(VkPersistError, MemoryError):
    """An allocation is larger than the device can provide."""


class DeviceTimeout(VkPersistError, TimeoutError):
    """The device did not finish within the timeout. The work may still be running."""


class DeviceLost(VkPersistError):
    """The driver reported the device lost (a crash, a watchdog reset). The context is unusable."""


class DeviceLimitError(VkPersistError):
    """A kernel hit a driver limit that would otherwise silently truncate its work."""


class BoundsError(VkPersistError, IndexError):
    """Debug mode: a kernel or stage indexed an array outside its shape (the message names
    the Python line, the array, the index and the shape)."""


class CheckpointError(VkPersistError):
    """A checkpoint that cannot be restored into this program: not a vkpersist checkpoint,
    written in a newer format, damaged, or of a program declared otherwise (the message
    names each difference)."""


class CompileError(VkPersistError):
    """Shader source could not be compiled; the message shows the offending line."""


def internal_error(what: str, detail: str = "") -> VkPersistError:
    """A failure that is vkpersist's fault, never the user's: one wording for all of them."""
    return VkPersistError(f"internal error in vkpersist: {what}; please report it"
                          + (f" with what follows.\n{detail}" if detail else ""))


def user_frames_only(fn):
    """Decorator for the public entry points that compile: a CompileError leaves them with
    none of the compiler's frames in its traceback (the message already points at the
    user's line), only the caller's and this one."""
    @functools.wraps(fn)
    def entry(*args, **kwargs):
        __tracebackhide__ = True          # noqa: F841  (pytest hides this frame)
        try:
            return fn(*args, **kwargs)
        except CompileError as exc:
            raise exc.with_traceback(None)
    return entry
