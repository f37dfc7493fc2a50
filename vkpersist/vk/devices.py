"""The Vulkan instance, the devices it sees, and device selection.

One instance serves the whole process; it is created on first use and destroyed at exit
after every Context (weakref.finalize runs in reverse creation order).
"""
from __future__ import annotations

import os
import weakref
from dataclasses import dataclass

from .._errors import DeviceNotFound, VulkanUnavailable
from ._api import INSTALL_HINT, ffi, translated, version_string, vk
from .memory import MemoryHeap, MemoryType, resolve_kinds

_KIND_OF_TYPE = {0: "other", 1: "igpu", 2: "dgpu", 3: "virtual", 4: "cpu"}
_KIND_PREFERENCE = ("dgpu", "igpu", "cpu", "virtual", "other")
DEVICE_KINDS = ("dgpu", "igpu", "cpu", "virtual", "other")
_VENDORS = {0x10DE: "NVIDIA", 0x1002: "AMD", 0x1022: "AMD", 0x8086: "Intel", 0x13B5: "ARM",
            0x5143: "Qualcomm", 0x106B: "Apple", 0x1010: "ImgTec", 0x10005: "Mesa",
            0x14E4: "Broadcom", 0x144D: "Samsung"}
from .target import DRIVER_ID_LLVMPIPE  # noqa: E402  (one definition, re-exported)


@dataclass(frozen=True)
class DeviceInfo:
    """What vkpersist knows about one Vulkan device, read without creating a Context."""
    index: int
    name: str
    kind: str                      # dgpu | igpu | cpu | virtual | other
    vendor: str
    vendor_id: int
    device_id: int
    driver: str                    # driver name, e.g. "llvmpipe", "NVIDIA"
    driver_info: str
    driver_id: int
    driver_version: str
    vulkan_version: str
    float64: bool
    int64: bool
    int16: bool
    int8: bool                     # 8-bit integer arithmetic in shaders
    float16: bool                  # float16 arithmetic in shaders
    storage16: bool                # 16-bit types in storage buffers
    storage8: bool                 # 8-bit types in storage buffers
    atomic_int64: bool
    atomic_float: bool             # float32 atomic add/exchange on buffers and shared memory
    memory_model: bool
    subgroup_size: int
    heaps: tuple[MemoryHeap, ...]
    memory_types: tuple[MemoryType, ...]
    memory_kinds: dict             # kind -> memory type index, only kinds the device has
    uma: bool                      # one memory serves host and device
    external_memory_host: bool     # VK_EXT_external_memory_host (import host pages)
    host_pointer_alignment: int    # what imported host pages must be aligned to (0: none)
    shader_clock: bool             # VK_KHR_shader_clock
    max_storage_buffer_range: int
    max_storage_buffers: int       # storage-buffer bindings one shader may use (lavapipe: 32)
    max_allocation_size: int
    max_workgroup_invocations: int
    max_workgroup_size: tuple[int, int, int]
    max_workgroup_count: tuple[int, int, int]
    max_push_constants_size: int
    timestamp_period_ns: float
    timestamps: bool
    # subgroup operations compute shaders have ("basic", "vote", "arithmetic", "ballot",
    # "shuffle", "shuffle_relative", "clustered", "quad"; "extended_types": 64-bit integers
    # in them too): warp functions need them
    subgroup_ops: frozenset = frozenset()
    # float bit widths whose signed zeros, infinities and NaNs shaders may ask the driver to
    # keep (SPIR-V's SignedZeroInfNanPreserve, VkPhysicalDeviceFloatControlsProperties)
    float_preserve: frozenset = frozenset()
    atomic_int64_shared: bool = False   # 64-bit integer atomics on shared memory
    # VK_KHR_pipeline_executable_properties: the driver reports registers, code size...
    # of compiled pipelines (Pipeline.statistics)
    pipeline_statistics: bool = False
    # minStorageBufferOffsetAlignment: where a bound window of a larger buffer may start
    storage_offset_alignment: int = 256
    # maxComputeSharedMemorySize: Vulkan promises 16 KB (lavapipe and NVIDIA offer more)
    max_shared_memory: int = 16384
    # VK_NV_shader_sm_builtins: streaming multiprocessors, and the invocations one holds
    # (warps x subgroup size); 0 where the device does not say (the megakernel's launch
    # shape, scheduler/_runner.py: fill_launch)
    compute_units: int = 0
    invocations_per_unit: int = 0

    @property
    def subgroup_arithmetic(self) -> bool:
        """subgroupAdd/Mul/Min/Max... in compute shaders (the reductions' subgroup path)."""
        return "arithmetic" in self.subgroup_ops

    @property
    def is_lavapipe(self) -> bool:
        return self.driver_id == DRIVER_ID_LLVMPIPE

    def summary(self) -> str:
        return f"[{self.index}] {self.name} ({self.kind}, {self.driver_info or self.driver + ' ' + self.driver_version})"


class _Instance:
    """The process-wide VkInstance and the physical devices it enumerates."""

    def __init__(self):
        self._app = vk.VkApplicationInfo(pApplicationName="vkpersist", applicationVersion=1,
                                         pEngineName="vkpersist", engineVersion=1,
                                         apiVersion=vk.VK_MAKE_VERSION(1, 3, 0))
        self._create_info = vk.VkInstanceCreateInfo(pApplicationInfo=self._app)
        with translated("creating the Vulkan instance"):
            try:
                self.handle = vk.vkCreateInstance(self._create_info, None)
            except vk.VkErrorIncompatibleDriver:
                raise VulkanUnavailable(f"the Vulkan loader found no driver; {INSTALL_HINT}") from None
        self._destroy = weakref.finalize(self, vk.vkDestroyInstance, self.handle, None)
        with translated("enumerating Vulkan devices"):
            self.physical_devices = list(vk.vkEnumeratePhysicalDevices(self.handle))
        self.infos = [_describe(i, pd) for i, pd in enumerate(self.physical_devices)]

    def keep(self) -> None:
        """Never destroy the instance: one of its devices was left open under running work,
        and destroying the instance under it crashes the driver. Process exit reclaims it."""
        self._destroy.detach()


_instance: _Instance | None = None


def instance() -> _Instance:
    global _instance
    if _instance is None:
        _instance = _Instance()
    return _instance


def list_devices() -> list[DeviceInfo]:
    """Every Vulkan device present, in the driver's order (`index` is that position)."""
    return list(instance().infos)


def select_device(selector=None) -> DeviceInfo:
    """Resolve a device selector: None (env VKPERSIST_DEVICE, else the best device:
    dgpu > igpu > cpu), an int index, a kind ('dgpu', 'igpu', 'cpu', 'virtual', 'other'),
    or a case-insensitive substring of the device name."""
    infos = list_devices()
    if not infos:
        raise VulkanUnavailable(f"no Vulkan device found; {INSTALL_HINT}")
    source = "device"
    if selector is None:
        selector = os.environ.get("VKPERSIST_DEVICE") or None
        source = "VKPERSIST_DEVICE"
        if selector is not None and selector.strip().lstrip("-").isdigit():
            selector = int(selector)
    if selector is None:
        return min(infos, key=lambda d: (_KIND_PREFERENCE.index(d.kind), d.index))
    listing = "; ".join(d.summary() for d in infos)
    if isinstance(selector, bool) or not isinstance(selector, (int, str)):
        raise TypeError(f"{source} must be an int index, a kind ({', '.join(DEVICE_KINDS)}) or "
                        f"a name substring, not {type(selector).__name__}")
    if isinstance(selector, int):
        if 0 <= selector < len(infos):
            return infos[selector]
        raise DeviceNotFound(f"{source}={selector}: no device with that index; devices: {listing}")
    key = selector.strip().lower()
    if key in DEVICE_KINDS:
        found = [d for d in infos if d.kind == key]
    else:
        found = [d for d in infos if key and key in d.name.lower()]
    if not found:
        raise DeviceNotFound(f"{source}={selector!r} matches no device; use an index, a kind "
                             f"({', '.join(DEVICE_KINDS)}) or part of a name. Devices: {listing}")
    return found[0]


def _text(chars) -> str:
    return chars if isinstance(chars, str) else ffi.string(chars).decode()


def _driver_version(vendor_id: int, v: int) -> str:
    if vendor_id == 0x10DE:  # NVIDIA packs 10.8.8.6 bits
        return f"{v >> 22}.{(v >> 14) & 0xFF}.{(v >> 6) & 0xFF}"
    return version_string(v)


def _describe(index: int, pd) -> DeviceInfo:
    props = vk.vkGetPhysicalDeviceProperties(pd)
    api = props.apiVersion
    with translated(f"listing the extensions of Vulkan device {index}"):
        exts = {e.extensionName for e in vk.vkEnumerateDeviceExtensionProperties(pd, None)}
    feats = vk.vkGetPhysicalDeviceFeatures(pd)
    f11 = f12 = None
    driver, driver_info, driver_id, subgroup = "", "", 0, 1
    subgroup_ops = float_preserve = frozenset()
    max_alloc = 1 << 30
    host_alignment = compute_units = per_unit = 0
    atomic_float = False
    if "VK_EXT_shader_atomic_float" in exts and api >= vk.VK_MAKE_VERSION(1, 2, 0):
        af = vk.VkPhysicalDeviceShaderAtomicFloatFeaturesEXT()
        af2 = vk.VkPhysicalDeviceFeatures2(pNext=af)
        vk.vkGetPhysicalDeviceFeatures2(pd, af2)
        atomic_float = bool(af.shaderBufferFloat32AtomicAdd and af.shaderSharedFloat32AtomicAdd
                            and af.shaderBufferFloat32Atomics and af.shaderSharedFloat32Atomics)
    if api >= vk.VK_MAKE_VERSION(1, 2, 0):
        f12 = vk.VkPhysicalDeviceVulkan12Features()
        f11 = vk.VkPhysicalDeviceVulkan11Features(pNext=f12)
        f2 = vk.VkPhysicalDeviceFeatures2(pNext=f11)
        vk.vkGetPhysicalDeviceFeatures2(pd, f2)
        sm = vk.VkPhysicalDeviceShaderSMBuiltinsPropertiesNV() \
            if "VK_NV_shader_sm_builtins" in exts else None
        hp = vk.VkPhysicalDeviceExternalMemoryHostPropertiesEXT(**_next(sm)) \
            if "VK_EXT_external_memory_host" in exts else sm
        sg = vk.VkPhysicalDeviceSubgroupProperties(**_next(hp))
        fc = vk.VkPhysicalDeviceFloatControlsProperties(pNext=sg)
        m3 = vk.VkPhysicalDeviceMaintenance3Properties(pNext=fc)
        dp = vk.VkPhysicalDeviceDriverProperties(pNext=m3)
        p2 = vk.VkPhysicalDeviceProperties2(pNext=dp)
        vk.vkGetPhysicalDeviceProperties2(pd, p2)
        driver, driver_info, driver_id = _text(dp.driverName), _text(dp.driverInfo), dp.driverID
        subgroup, max_alloc = sg.subgroupSize, m3.maxMemoryAllocationSize
        float_preserve = frozenset(w for w in (16, 32, 64)
                                   if getattr(fc, f"shaderSignedZeroInfNanPreserveFloat{w}"))
        if sg.supportedStages & vk.VK_SHADER_STAGE_COMPUTE_BIT:
            subgroup_ops = frozenset(name for bit, name in _SUBGROUP_OPS
                                     if sg.supportedOperations & bit)
            if f12.shaderSubgroupExtendedTypes:    # 64-bit integers in subgroup operations
                subgroup_ops |= {"extended_types"}
        if "VK_EXT_external_memory_host" in exts:
            host_alignment = int(hp.minImportedHostPointerAlignment)
        if sm is not None:
            compute_units = int(sm.shaderSMCount)
            per_unit = int(sm.shaderWarpsPerSM) * subgroup
    mp = vk.vkGetPhysicalDeviceMemoryProperties(pd)
    heaps = tuple(MemoryHeap(i, mp.memoryHeaps[i].size, bool(mp.memoryHeaps[i].flags & 1))
                  for i in range(mp.memoryHeapCount))
    types = tuple(MemoryType(i, mp.memoryTypes[i].propertyFlags, mp.memoryTypes[i].heapIndex)
                  for i in range(mp.memoryTypeCount))
    kind = _KIND_OF_TYPE.get(props.deviceType, "other")
    uma = kind in ("igpu", "cpu") or all(h.device_local for h in heaps)
    queues = vk.vkGetPhysicalDeviceQueueFamilyProperties(pd)
    lim = props.limits
    return DeviceInfo(
        index=index, name=_text(props.deviceName), kind=kind,
        vendor=_VENDORS.get(props.vendorID, hex(props.vendorID)), vendor_id=props.vendorID,
        device_id=props.deviceID, driver=driver or _VENDORS.get(props.vendorID, "unknown"),
        driver_info=driver_info, driver_id=driver_id,
        driver_version=_driver_version(props.vendorID, props.driverVersion),
        vulkan_version=version_string(api),
        float64=bool(feats.shaderFloat64), int64=bool(feats.shaderInt64),
        int16=bool(feats.shaderInt16), int8=bool(f12 and f12.shaderInt8),
        float16=bool(f12 and f12.shaderFloat16), storage16=bool(f11 and f11.storageBuffer16BitAccess),
        storage8=bool(f12 and f12.storageBuffer8BitAccess),
        atomic_int64=bool(f12 and f12.shaderBufferInt64Atomics), atomic_float=atomic_float,
        memory_model=bool(f12 and f12.vulkanMemoryModel and f12.vulkanMemoryModelDeviceScope),
        subgroup_size=subgroup, heaps=heaps, memory_types=types,
        memory_kinds=resolve_kinds(list(types)), uma=uma,
        external_memory_host="VK_EXT_external_memory_host" in exts and host_alignment > 0,
        host_pointer_alignment=host_alignment,
        shader_clock="VK_KHR_shader_clock" in exts,
        max_storage_buffer_range=lim.maxStorageBufferRange, max_allocation_size=max_alloc,
        max_storage_buffers=lim.maxPerStageDescriptorStorageBuffers,
        max_workgroup_invocations=lim.maxComputeWorkGroupInvocations,
        max_workgroup_size=tuple(lim.maxComputeWorkGroupSize),
        max_workgroup_count=tuple(lim.maxComputeWorkGroupCount),
        max_push_constants_size=lim.maxPushConstantsSize,
        timestamp_period_ns=float(lim.timestampPeriod),
        timestamps=any(q.timestampValidBits for q in queues if q.queueFlags & vk.VK_QUEUE_COMPUTE_BIT),
        subgroup_ops=subgroup_ops, float_preserve=float_preserve,
        atomic_int64_shared=bool(f12 and f12.shaderSharedInt64Atomics),
        pipeline_statistics=_pipeline_statistics(pd, exts, api),
        storage_offset_alignment=int(lim.minStorageBufferOffsetAlignment),
        max_shared_memory=int(lim.maxComputeSharedMemorySize),
        compute_units=compute_units, invocations_per_unit=per_unit,
    )


def _next(struct) -> dict:
    """pNext=struct for a Vulkan structure's constructor, nothing where there is none."""
    return {} if struct is None else {"pNext": struct}


def _pipeline_statistics(pd, exts, api) -> bool:
    """Whether the device reports statistics of compiled pipelines (the extension and its
    feature)."""
    if "VK_KHR_pipeline_executable_properties" not in exts or api < vk.VK_MAKE_VERSION(1, 2, 0):
        return False
    pe = vk.VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR()
    vk.vkGetPhysicalDeviceFeatures2(pd, vk.VkPhysicalDeviceFeatures2(pNext=pe))
    return bool(pe.pipelineExecutableInfo)


# VkSubgroupFeatureFlagBits -> the name of the GLSL extension GL_KHR_shader_subgroup_<name>
_SUBGROUP_OPS = ((1, "basic"), (2, "vote"), (4, "arithmetic"), (8, "ballot"), (16, "shuffle"),
                 (32, "shuffle_relative"), (64, "clustered"), (128, "quad"))


def _fmt_bytes(n: int) -> str:
    return f"{n / (1 << 30):.0f} GiB" if n >= 1 << 30 else f"{n >> 20} MiB"


def device_table() -> str:
    """The devices as a table, the default marked (python -m vkpersist devices)."""
    infos = list_devices()
    default = select_device().index if infos else None
    rows = [("#", "name", "kind", "driver", "vulkan", "f64", "i64", "subgroup", "memory kinds",
             "heaps")]
    for d in infos:
        kinds = ",".join(d.memory_kinds) + (" (unified)" if d.uma else "")
        heaps = " + ".join(_fmt_bytes(h.size) + ("*" if h.device_local else "") for h in d.heaps)
        rows.append((f"{d.index}{'*' if d.index == default else ''}", d.name, d.kind,
                     d.driver_info or f"{d.driver} {d.driver_version}", d.vulkan_version,
                     "yes" if d.float64 else "no", "yes" if d.int64 else "no",
                     str(d.subgroup_size), kinds, heaps))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.append("\n* default device (override with VKPERSIST_DEVICE); heap* = device-local")
    return "\n".join(lines)
