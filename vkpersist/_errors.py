"""The exceptions vkpersist raises. Every one says what went wrong and what would be valid."""


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


class CompileError(VkPersistError):
    """Shader source could not be compiled; the message shows the offending line."""
