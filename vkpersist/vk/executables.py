"""What the driver says about the machine code it compiled (VK_KHR_pipeline_executable_properties).

Why it exists: a megakernel holds every stage in one shader, so the driver gives all of
them the registers of the most demanding one, and on a GPU that decides how many
invocations stay resident per SM, which is what a bandwidth-bound stage lives on. The
register count is the number that shows it (numba.cuda's `get_regs_per_thread`). The
statistics are captured on a second compilation of the same shader stage, made with
VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR and destroyed at once: the pipelines that
run are never compiled with the flag, which some drivers let bypass their caches.

Names and meanings are the driver's own (NVIDIA: "Register Count"; RADV: "VGPRs",
"SGPRs"); lavapipe does not offer the extension.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .._errors import UnsupportedError
from ._api import ffi, translated, vk

_FORMATS = {0: "b32", 1: "i64", 2: "u64", 3: "f64"}   # VkPipelineExecutableStatisticFormatKHR


@dataclass(frozen=True)
class ExecutableStatistics:
    """One compiled executable of a pipeline: its name and description as the driver gives
    them, the subgroup size it runs with, and {statistic name: value}."""
    name: str
    description: str
    subgroup_size: int
    values: dict = field(default_factory=dict)
    descriptions: dict = field(default_factory=dict)

    @property
    def registers(self) -> int | None:
        """Registers per invocation where the driver reports one such figure (NVIDIA's
        "Register Count", RADV's "VGPRs"), else None."""
        for key, value in self.values.items():
            low = key.lower()
            if "register" in low or low == "vgprs":
                return int(value)
        return None

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in self.values.items())
        return f"vkpersist.lowlevel.ExecutableStatistics({self.name!r}, {shown})"


def _proc(core, name: str):
    fn = vk.lib.vkGetDeviceProcAddr(core.device, name.encode())
    if fn == ffi.NULL:
        raise UnsupportedError(f"{core.info.name}: the driver has no {name}")
    return ffi.cast(f"PFN_{name}", fn)


def _check(result: int, what: str) -> None:
    if result != vk.VK_SUCCESS:
        raise UnsupportedError(f"{what} failed with VkResult {result}")


def pipeline_statistics(core, stage, layout, label: str) -> list[ExecutableStatistics]:
    """Compile `stage` with `layout` again, capturing statistics, and read them."""
    if not core.info.pipeline_statistics:
        raise UnsupportedError(
            f"{label}: {core.info.name} does not report statistics of compiled pipelines "
            "(it lacks VK_KHR_pipeline_executable_properties; NVIDIA, AMD and Intel drivers "
            "have it, lavapipe does not)")
    device = core.device
    create = vk.VkComputePipelineCreateInfo(
        stage=stage, layout=layout, flags=vk.VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR)
    with translated(f"{label}: compiling the pipeline again to capture its statistics"):
        handle = vk.vkCreateComputePipelines(device, None, 1, [create], None)[0]
    try:
        return _read(core, handle, label)
    finally:
        vk.vkDestroyPipeline(device, handle, None)


def _enumerate(fn, core, info, ctype: str, stype: int, what: str):
    """Vulkan's two-call enumeration: count, then fill structs whose sType is set."""
    count = ffi.new("uint32_t*")
    _check(fn(core.device, info, count, ffi.NULL), f"counting {what}")
    out = ffi.new(f"{ctype}[]", count[0])
    for i in range(count[0]):
        out[i].sType = stype
    _check(fn(core.device, info, count, out), f"reading {what}")
    return [out[i] for i in range(count[0])], out


def _read(core, handle, label: str) -> list[ExecutableStatistics]:
    get_props = _proc(core, "vkGetPipelineExecutablePropertiesKHR")
    get_stats = _proc(core, "vkGetPipelineExecutableStatisticsKHR")
    info = ffi.new("VkPipelineInfoKHR*")
    info.sType = vk.VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR
    info.pipeline = handle
    props, keep = _enumerate(get_props, core, info, "VkPipelineExecutablePropertiesKHR",
                             vk.VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR,
                             f"{label}: executables")
    out = []
    for index, p in enumerate(props):
        exe = ffi.new("VkPipelineExecutableInfoKHR*")
        exe.sType = vk.VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR
        exe.pipeline, exe.executableIndex = handle, index
        stats, _ = _enumerate(get_stats, core, exe, "VkPipelineExecutableStatisticKHR",
                              vk.VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR,
                              f"{label}: statistics")
        values, descriptions = {}, {}
        for s in stats:
            name = ffi.string(s.name).decode()
            value = getattr(s.value, _FORMATS.get(s.format, "u64"))
            values[name] = bool(value) if s.format == 0 else value
            descriptions[name] = ffi.string(s.description).decode()
        out.append(ExecutableStatistics(ffi.string(p.name).decode(),
                                        ffi.string(p.description).decode(),
                                        int(p.subgroupSize), values, descriptions))
    del keep
    return out
