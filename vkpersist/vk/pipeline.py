"""Compute pipelines and the launch cache.

A Pipeline owns its shader module, layouts and pipeline, plus descriptor sets cached per
tuple of bound buffers and command buffers cached per (buffers, groups, push-constant bytes)
(least recently recorded evicted first): a repeated launch with the same arguments costs one
vkQueueSubmit. Cache entries die with
any buffer they reference (Buffer serials, via the core's forget listeners).

Local sizes and workgroup counts are checked against the device's limits here, the last
step before the driver, which does not refuse a bad size but crashes or loses the device.
"""
from __future__ import annotations

import collections

from .._errors import UnsupportedError, VkPersistError
from . import commands, deferral
from .buffer import names
from ._api import RawSubmit, ffi, translated, vk
from .spirv import Reflection

_SETS_PER_POOL = 64
_MAX_RECORDED = 256


class Pipeline:
    def __init__(self, core, code: bytes, reflection: Reflection, spec: dict[int, int] | None = None,
                 label: str = "kernel"):
        self.core = core
        self.reflection = reflection
        self.label = label
        device = core.device
        sets = {b.set for b in reflection.bindings}
        if sets - {0}:
            raise VkPersistError(f"{label}: only descriptor set 0 is supported, the shader uses "
                                 f"sets {sorted(sets)}")
        if reflection.push_size > core.info.max_push_constants_size:
            raise VkPersistError(f"{label}: {reflection.push_size} bytes of push constants exceed "
                                 f"the device limit of {core.info.max_push_constants_size}")
        _check_local_size(label, core.info, reflection, spec or {})
        self._keep = []
        module_info = vk.VkShaderModuleCreateInfo(codeSize=len(code), pCode=code)
        bindings = [vk.VkDescriptorSetLayoutBinding(
            binding=b.binding, descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            descriptorCount=1, stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT)
            for b in reflection.bindings]
        layout_info = vk.VkDescriptorSetLayoutCreateInfo(pBindings=bindings or None)
        self.module = self.set_layout = self.layout = self.handle = None
        try:
            with translated(f"{label}: creating the pipeline"):
                self.module = vk.vkCreateShaderModule(device, module_info, None)
                self.set_layout = vk.vkCreateDescriptorSetLayout(device, layout_info, None)
                set_layouts = [self.set_layout]
                if reflection.push_size:
                    ranges = [vk.VkPushConstantRange(stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT,
                                                     offset=0, size=reflection.push_size)]
                    pl_info = vk.VkPipelineLayoutCreateInfo(pSetLayouts=set_layouts,
                                                            pPushConstantRanges=ranges)
                else:
                    pl_info = vk.VkPipelineLayoutCreateInfo(pSetLayouts=set_layouts)
                self.layout = vk.vkCreatePipelineLayout(device, pl_info, None)
                spec_info = None
                if spec:
                    entries = [vk.VkSpecializationMapEntry(constantID=cid, offset=4 * i, size=4)
                               for i, cid in enumerate(spec)]
                    data = ffi.new("uint32_t[]", list(spec.values()))
                    spec_info = vk.VkSpecializationInfo(pMapEntries=entries, dataSize=4 * len(spec),
                                                        pData=data)
                    self._keep += [entries, data]
                stage = vk.VkPipelineShaderStageCreateInfo(
                    stage=vk.VK_SHADER_STAGE_COMPUTE_BIT, module=self.module, pName="main",
                    pSpecializationInfo=spec_info)
                self._stage = stage          # statistics() compiles it again, capturing them
                create = vk.VkComputePipelineCreateInfo(stage=stage, layout=self.layout)
                self.handle = vk.vkCreateComputePipelines(device, None, 1, [create], None)[0]
        except BaseException:          # nothing half-made is left behind
            _destroy_handles(device, self.handle, self.layout, self.set_layout, self.module)
            raise
        self.cache = _LaunchCache(core, self.set_layout, reflection, label)
        core.forget_listeners.append(self.cache.forget)
        self._finalizer = core.track(self, _destroy, core, self.handle, self.layout,
                                     self.set_layout, self.module, self.cache)

    def launch(self, buffers, groups: tuple[int, int, int], push: bytes, keep,
               defer: bool = False) -> None:
        """Submit one dispatch (recorded on first use, then cached); `keep` stays referenced
        until it completes. `defer`: while the device is busy, it may wait to go out with
        later launches in one submission (deferral.py). Finding the command buffer and
        submitting it happen under the core's lock together: another thread's launch could
        otherwise evict and free the cached buffer in between."""
        key = (tuple([b.serial for b in buffers]), groups, push)
        core = self.core
        with core.lock:
            if core.batch is not None:         # inside `with batched(ctx):` (sequence.py)
                core.batch.add(self, buffers, groups, push, keep)
                return
            ready = self.cache.recorded.get(key)
            if ready is None:
                ready = self._record(key, buffers, groups, push)
            if defer:
                deferral.launch(core, ready, keep)
            else:
                core.submit(ready, keep)

    def command_buffer(self, buffers, groups: tuple[int, int, int], push: bytes) -> RawSubmit:
        """A recorded (and cached) command buffer that dispatches this pipeline, ready to
        submit, for callers that submit it themselves (`launch` is the form that is safe while
        other threads launch the same pipeline)."""
        key = (tuple([b.serial for b in buffers]), groups, push)
        with self.core.lock:
            ready = self.cache.recorded.get(key)
            return ready if ready is not None else self._record(key, buffers, groups, push)

    def statistics(self) -> list:
        """What the driver reports about the machine code of this pipeline (registers per
        invocation, code size...): a list of `ExecutableStatistics`, one per executable
        (compute pipelines have one). UnsupportedError where the device does not report
        (VK_KHR_pipeline_executable_properties missing, as on lavapipe)."""
        from .executables import pipeline_statistics
        return pipeline_statistics(self.core, self._stage, self.layout, self.label)

    def check_launch(self, buffers, groups) -> None:
        """Refuse workgroup counts and buffer sizes beyond the device's limits (checked
        before recording: the driver does not refuse them, it crashes)."""
        _check_groups(self.label, self.core.info, groups)
        if len(buffers) != len(self.reflection.bindings):     # unbound descriptors crash
            raise VkPersistError(f"{self.label}: {len(buffers)} buffers given for the "
                                 f"{len(self.reflection.bindings)} bindings of its shader")
        limit = self.core.info.max_storage_buffer_range
        for spec, b in zip(self.reflection.bindings, buffers):
            if b.size > limit:
                raise UnsupportedError(
                    f"{self.label}: the array bound to {spec.name!r} is {b.nbytes} bytes; "
                    f"{self.core.info.name} binds at most {limit} bytes per storage buffer")

    def _record(self, key, buffers, groups, push) -> RawSubmit:
        self.check_launch(buffers, groups)
        cb = commands.spare(self.core)
        try:
            commands.record(cb, lambda cb: commands.dispatch(cb, self, buffers, groups, push),
                            reusable=True)
        except BaseException:
            self.core.spare_command_buffers.append(cb)
            raise
        ready = commands.Recorded(self.core, cb)
        self.cache.add(key, ready)
        return ready


def _check_local_size(label: str, info, reflection: Reflection, spec: dict) -> None:
    """The local size this pipeline runs with must be within the device's limits: a driver
    given more (or 0) crashes or loses the device instead of refusing."""
    local = tuple(spec.get(sid, size) if sid is not None else size
                  for size, sid in zip(reflection.local_size, reflection.local_size_spec_ids))
    for axis, (n, limit) in enumerate(zip(local, info.max_workgroup_size)):
        if not 1 <= n <= limit:
            raise ValueError(f"{label}: local size {local} is {n} on axis {'xyz'[axis]}; "
                             f"{info.name} takes 1 to {limit} there (maxComputeWorkGroupSize "
                             f"{info.max_workgroup_size})")
    total = local[0] * local[1] * local[2]
    if total > info.max_workgroup_invocations:
        raise ValueError(f"{label}: local size {local} has {total} invocations; the device "
                         f"allows {info.max_workgroup_invocations} per workgroup "
                         f"(maxComputeWorkGroupInvocations on {info.name})")


def _check_groups(label: str, info, groups) -> None:
    """Workgroup counts within the device's limits (0 launches nothing and is fine)."""
    for axis, (g, limit) in enumerate(zip(groups, info.max_workgroup_count)):
        if not 0 <= g <= limit:
            raise ValueError(f"{label}: {g:,} workgroups on axis {'xyz'[axis]}; {info.name} "
                             f"takes 0 to {limit:,} there (maxComputeWorkGroupCount "
                             f"{info.max_workgroup_count}): use larger workgroups, or let "
                             "each invocation loop over several items")


class _LaunchCache:
    """Descriptor sets per tuple of buffers and recorded command buffers per launch key.
    Separate from Pipeline so the forget listener does not keep the Pipeline alive."""

    def __init__(self, core, set_layout, reflection: Reflection, label: str):
        self.core = core
        self.set_layout = set_layout
        self.bindings = reflection.bindings
        self.label = label
        self.pools: list = []
        self.free_sets: list = []
        self.sets: dict[tuple, object] = {}
        self.recorded: collections.OrderedDict = collections.OrderedDict()

    def descriptor_set(self, buffers) -> object:
        """The descriptor set binding `buffers`, as the one-element array vkCmdBindDescriptorSets
        takes (written on first use, then cached)."""
        key = tuple(b.serial for b in buffers)
        ds = self.sets.get(key)
        if ds is not None:
            return ds
        if not self.free_sets:
            self._grow_pool()
        ds = self.free_sets.pop()
        pairs = list(zip(self.bindings, buffers))
        n = len(pairs)
        if n:       # built in C structs: a new result array each call writes a new set
            infos = ffi.new("VkDescriptorBufferInfo[]", n)
            writes = ffi.new("VkWriteDescriptorSet[]", n)
            for i, (spec, b) in enumerate(pairs):
                info, write = infos[i], writes[i]
                info.buffer, info.offset, info.range = b.handle, b.offset, b.size
                write.sType = vk.VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
                write.dstSet, write.dstBinding, write.descriptorCount = ds[0], spec.binding, 1
                write.descriptorType = vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                write.pBufferInfo = infos + i
            vk.lib.vkUpdateDescriptorSets(self.core.device, n, writes, 0, ffi.NULL)
        self.sets[key] = ds
        return ds

    def _grow_pool(self) -> None:
        n = max(1, len(self.bindings))
        sizes = [vk.VkDescriptorPoolSize(type=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                         descriptorCount=n * _SETS_PER_POOL)]
        info = vk.VkDescriptorPoolCreateInfo(maxSets=_SETS_PER_POOL, pPoolSizes=sizes)
        with translated(f"{self.label}: creating a descriptor pool"):
            pool = vk.vkCreateDescriptorPool(self.core.device, info, None)
        self.pools.append(pool)
        layouts = [self.set_layout] * _SETS_PER_POOL
        alloc = vk.VkDescriptorSetAllocateInfo(descriptorPool=pool,
                                               descriptorSetCount=_SETS_PER_POOL,
                                               pSetLayouts=layouts)
        with translated(f"{self.label}: allocating descriptor sets"):
            sets = vk.vkAllocateDescriptorSets(self.core.device, alloc)
        self.free_sets.extend(ffi.new("VkDescriptorSet[1]", [ds]) for ds in sets)

    def add(self, key, ready: RawSubmit) -> None:
        """Cache `ready`; past _MAX_RECORDED the least recently recorded is dropped. Its
        command buffer returns to the spare ones when its last submission has completed
        (commands.Recorded), so dropping never waits for the device."""
        self.recorded[key] = ready
        if len(self.recorded) > _MAX_RECORDED:
            self.recorded.popitem(last=False)

    def forget(self, serial: int) -> None:
        """A buffer died: drop every cached set and command buffer that names it. No pending
        work uses them: submissions keep their buffers alive until they complete."""
        for key in [k for k in self.sets if names(k, serial)]:
            self.free_sets.append(self.sets.pop(key))
        for key in [k for k in self.recorded if names(k[0], serial)]:
            del self.recorded[key]

    def release(self) -> None:
        if self.forget in self.core.forget_listeners:
            self.core.forget_listeners.remove(self.forget)
        self.recorded.clear()
        if self.core.device is not None:
            for pool in self.pools:
                vk.vkDestroyDescriptorPool(self.core.device, pool, None)
        self.pools.clear()


def _destroy(core, handle, layout, set_layout, module, cache) -> None:
    cache.release()
    if core.device is not None:
        _destroy_handles(core.device, handle, layout, set_layout, module)


def _destroy_handles(device, handle, layout, set_layout, module) -> None:
    """Destroy those of a pipeline's handles that exist (None: never created)."""
    if handle is not None:
        vk.vkDestroyPipeline(device, handle, None)
    if layout is not None:
        vk.vkDestroyPipelineLayout(device, layout, None)
    if set_layout is not None:
        vk.vkDestroyDescriptorSetLayout(device, set_layout, None)
    if module is not None:
        vk.vkDestroyShaderModule(device, module, None)
