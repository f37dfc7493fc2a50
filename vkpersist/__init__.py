"""vkpersist: long-running, steerable GPU simulations in Python on any Vulkan device.

    import vkpersist as vkp
    ctx = vkp.Context()                         # best device; lavapipe (CPU) when no GPU
    x = ctx.asarray(np.arange(8, dtype=np.float32))
    print(x.numpy())
"""
from ._errors import (CompileError, DeviceLimitError, DeviceLost, DeviceNotFound, DeviceTimeout,
                      OutOfDeviceMemory, UnsupportedError, VkPersistError, VulkanUnavailable)
from .vk.array import SUPPORTED_DTYPES, Array
from .vk.context import Context, default_context, synchronize
from .vk.devices import DeviceInfo, list_devices
from .vk.glsl_kernel import GLSLKernel, glsl_kernel
from .vk.memory import KINDS as MEMORY_KINDS

__version__ = "0.1.0"

__all__ = [
    "Array", "CompileError", "Context", "DeviceInfo", "DeviceLimitError", "DeviceLost",
    "DeviceNotFound", "DeviceTimeout", "GLSLKernel", "MEMORY_KINDS", "OutOfDeviceMemory", "SUPPORTED_DTYPES",
    "UnsupportedError", "VkPersistError", "VulkanUnavailable", "default_context",
    "glsl_kernel", "list_devices", "synchronize",
]
