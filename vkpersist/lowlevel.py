"""vkpersist.lowlevel: the runtime underneath kernels and programs, for who needs it.

    from vkpersist import lowlevel
    saxpy = lowlevel.glsl_kernel(GLSL_SOURCE)        # shaders already written in GLSL
    pages = lowlevel.host_array((8, 64), np.float32)  # host pages a device can write into
    lowlevel.MEMORY_KINDS, lowlevel.SUPPORTED_DTYPES  # what arrays can be
    info: lowlevel.DeviceInfo = vkp.list_devices()[0]
    target: lowlevel.Target = ctx.target              # what code is generated for a device
    prog.statistics()["megakernel"].registers         # lowlevel.ExecutableStatistics
    prog.step_plan()                                  # [lowlevel.PlannedStage]: barriers

Everything here is stable API, just not what a simulation usually needs; the names of
`vkpersist` itself are the ones the tutorials use.
"""
from .scheduler._plan import PlannedStage
from .vk.array import SUPPORTED_DTYPES
from .vk.buffer import host_array
from .vk.devices import DeviceInfo
from .vk.executables import ExecutableStatistics
from .vk.glsl_kernel import GLSLKernel, glsl_kernel
from .vk.memory import KINDS as MEMORY_KINDS
from .vk.target import Target

__all__ = ["DeviceInfo", "ExecutableStatistics", "GLSLKernel", "MEMORY_KINDS", "PlannedStage",
           "SUPPORTED_DTYPES", "Target", "glsl_kernel", "host_array"]
