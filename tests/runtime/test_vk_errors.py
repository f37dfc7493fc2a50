"""Failures of Vulkan binding calls reach the user as vkpersist errors naming the operation,
and leave nothing behind (docs/reliability.md, "Driver errors"). Each failure is injected
by replacing a function of the `vulkan` binding with one that raises the binding's own
exception class (or, for the launch path's direct C call, returns the VkResult); the
handles created meanwhile are tracked and must all be destroyed, and the Context must keep
working afterwards."""
import gc
import re

import numpy as np
import pytest
import vulkan

import vkpersist as vkp
from vkpersist.vk import _api, commands, devices
from vkpersist.vk.baseline import prerecorded_submit_wait_us

GLSL = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer A { float a[]; };
void main() { a[0] += 1.0; }   // %s
"""


@vkp.kernel
def bump(x):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] = x[i] + 1.0


def failing(exc_cls):
    def fail(*args, **kwargs):
        raise exc_cls()
    return fail


def _key(handle) -> int:
    return int(_api.ffi.cast("uintptr_t", handle))


class Handles:
    """The handles `create` returns and those `destroy` is given (its argument `arg`; a list
    of them with `count_arg`) while the test runs."""

    def __init__(self, monkeypatch, create: str, destroy: str, arg: int, many: bool = False):
        self.created, self.destroyed = [], []
        real_create, real_destroy = getattr(vulkan, create), getattr(vulkan, destroy)

        def created(*args, **kwargs):
            out = real_create(*args, **kwargs)
            self.created += [_key(h) for h in (out if many else [out])]
            return out

        def destroyed(*args, **kwargs):
            handles = args[arg]
            self.destroyed += [_key(h) for h in (handles if many else [handles])]
            return real_destroy(*args, **kwargs)

        monkeypatch.setattr(vulkan, create, created)
        monkeypatch.setattr(vulkan, destroy, destroyed)

    def leaked(self) -> list:
        return [h for h in self.created if h not in self.destroyed]


def _works(ctx):
    """The Context still launches, copies and synchronizes correctly."""
    x = ctx.zeros(64)
    bump[1, 64](x)
    bump[1, 64](x)
    ctx.synchronize()
    assert np.all(x.numpy() == 2)


def _unpooled(ctx):
    """Empty the buffer pool, so the next array is a new allocation (driver calls)."""
    ctx._core.buffer_pool.drain(ctx._core)


@pytest.fixture
def fresh(device_info):
    """A Context of its own, for failures that leave it lost or need its first fence."""
    with vkp.Context(device_info.index) as c:
        yield c


# ---- buffers and memory -------------------------------------------------------------------
@pytest.mark.parametrize("exc, says", [
    (vulkan.VkErrorOutOfDeviceMemory, "the driver is out of device memory"),
    (vulkan.VkErrorOutOfHostMemory, "the driver is out of host memory")])
def test_a_failed_allocation_says_so_and_destroys_its_buffer(ctx, monkeypatch, exc, says):
    buffers = Handles(monkeypatch, "vkCreateBuffer", "vkDestroyBuffer", 1)
    _unpooled(ctx)
    monkeypatch.setattr(vulkan, "vkAllocateMemory", failing(exc))
    with pytest.raises(vkp.OutOfDeviceMemory) as err:
        ctx.zeros(1024)
    assert re.match(rf"allocating 4\.0 KiB of 'device' memory on {re.escape(ctx.info.name)}: "
                    f"{says}$", str(err.value)), err.value
    assert isinstance(err.value.__cause__, exc)
    assert buffers.created and not buffers.leaked()
    monkeypatch.undo()
    _works(ctx)


def test_a_failed_buffer_creation_allocates_nothing(ctx, monkeypatch):
    memory = Handles(monkeypatch, "vkAllocateMemory", "vkFreeMemory", 1)
    _unpooled(ctx)
    monkeypatch.setattr(vulkan, "vkCreateBuffer", failing(vulkan.VkErrorOutOfHostMemory))
    with pytest.raises(vkp.OutOfDeviceMemory, match=r"^creating a 4\.0 KiB buffer: the driver "
                       "is out of host memory$"):
        ctx.zeros(1024)
    assert not memory.created
    monkeypatch.undo()
    _works(ctx)


def test_a_failed_mapping_frees_the_buffer_and_its_memory(ctx, monkeypatch):
    if not ctx.info.memory_types[ctx.info.memory_kinds["device"]].host_visible:
        pytest.skip("device memory is not mapped on this device")
    buffers = Handles(monkeypatch, "vkCreateBuffer", "vkDestroyBuffer", 1)
    memory = Handles(monkeypatch, "vkAllocateMemory", "vkFreeMemory", 1)
    _unpooled(ctx)
    monkeypatch.setattr(vulkan, "vkMapMemory", failing(vulkan.VkErrorMemoryMapFailed))
    with pytest.raises(vkp.VkPersistError, match="^mapping memory failed: VkErrorMemoryMapFailed$"):
        ctx.zeros(1024)
    assert buffers.created and not buffers.leaked()
    assert memory.created and not memory.leaked()
    monkeypatch.undo()
    _works(ctx)


def test_a_refused_allocation_empties_the_buffer_pool_and_tries_again(ctx, monkeypatch):
    ctx.zeros(3000)                     # dropped at once: pooled once its fill has run
    ctx.synchronize()
    core = ctx._core
    assert core.buffer_pool.bytes >= 12000
    real, calls = vulkan.vkAllocateMemory, []

    def once(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise vulkan.VkErrorOutOfDeviceMemory()
        return real(*args, **kwargs)
    monkeypatch.setattr(vulkan, "vkAllocateMemory", once)
    x = ctx.zeros(5000)                 # another size: a new allocation, refused once
    assert len(calls) == 2 and core.buffer_pool.bytes == 0
    monkeypatch.undo()
    assert np.all(x.numpy() == 0)
    _works(ctx)


# ---- pipelines and command buffers --------------------------------------------------------
def test_a_failed_pipeline_layout_destroys_what_was_made_before_it(ctx, monkeypatch):
    k = vkp.lowlevel.glsl_kernel(GLSL % "failed pipeline layout")
    modules = Handles(monkeypatch, "vkCreateShaderModule", "vkDestroyShaderModule", 1)
    layouts = Handles(monkeypatch, "vkCreateDescriptorSetLayout", "vkDestroyDescriptorSetLayout", 1)
    monkeypatch.setattr(vulkan, "vkCreatePipelineLayout", failing(vulkan.VkErrorOutOfHostMemory))
    a = ctx.zeros(1)
    with pytest.raises(vkp.OutOfDeviceMemory, match="creating the pipeline: the driver is out of "
                       "host memory"):
        k[1](a)
    assert modules.created and not modules.leaked()
    assert layouts.created and not layouts.leaked()
    monkeypatch.undo()
    k[1](a)                        # nothing half-made was cached: it is created again
    assert a.numpy()[0] == 1
    _works(ctx)


def test_a_failed_recording_returns_its_command_buffer(ctx, monkeypatch):
    x = ctx.zeros(7)         # a new launch key, recorded at the launch (zeros itself records
                             # a fill on a discrete GPU: before the failure is injected)
    ctx._core.spare_command_buffers.append(commands.spare(ctx._core))    # one at least
    spares = list(ctx._core.spare_command_buffers)
    monkeypatch.setattr(commands, "end_commands", lambda cb: -2)   # OUT_OF_DEVICE_MEMORY
    with pytest.raises(vkp.OutOfDeviceMemory, match="^recording commands: the driver is out of "
                       "device memory$"):
        bump[1, 64](x)
    assert sorted(map(_key, ctx._core.spare_command_buffers)) == sorted(map(_key, spares))
    monkeypatch.undo()
    bump[1, 64](x)
    assert np.all(x.numpy() == 1)


def test_a_failed_one_shot_recording_leaves_one_shot_commands_working(ctx, monkeypatch):
    src, dst = ctx.zeros(16).fill(3.0), ctx.zeros(16)
    monkeypatch.setattr(commands, "begin_commands", lambda cb, info: -2)
    with pytest.raises(vkp.OutOfDeviceMemory, match="^recording commands: the driver is out "
                       "of device memory$"):
        dst.copy_from(src)
    monkeypatch.undo()
    assert np.all(dst.copy_from(src).numpy() == 3)


# ---- submission ---------------------------------------------------------------------------
def test_a_refused_submission_leaves_the_context_usable(ctx, monkeypatch):
    x = ctx.zeros(64)
    bump[1, 64](x)
    ctx.synchronize()
    core = ctx._core_alive()
    fences = len(core.free_fences)
    monkeypatch.setattr(_api.held, "vkQueueSubmit", lambda *args: -2)   # VK_ERROR_OUT_OF_DEVICE_MEMORY
    with pytest.raises(vkp.OutOfDeviceMemory, match="^vkQueueSubmit: the driver is out of device memory$"):
        bump[1, 64](x)
    monkeypatch.undo()
    # its fence went back, unsubmitted: the one it took, or one made for it (on a discrete
    # GPU the fill of zeros() is fenced too, and signalled fences are reset 8 at a time)
    assert len(core.free_fences) == max(fences, 1)
    ctx.synchronize(timeout=30)             # returns: nothing waits for the refused launch
    bump[1, 64](x)
    assert np.all(x.numpy() == 2)           # the refused launch did not run
    _works(ctx)


def test_a_submission_that_reports_the_device_lost_loses_the_context(fresh, monkeypatch):
    x = fresh.zeros(64)
    monkeypatch.setattr(_api.held, "vkQueueSubmit", lambda *args: -4)   # VK_ERROR_DEVICE_LOST
    with pytest.raises(vkp.DeviceLost, match=rf"^{re.escape(fresh.info.name)}: vkQueueSubmit: "
                       "the device was lost"):
        bump[1, 64](x)
    monkeypatch.undo()
    with pytest.raises(vkp.DeviceLost, match="refuses further use"):
        bump[1, 64](x)
    fresh.close()                           # releases it, without waiting for anything


def test_a_failed_fence_creation_leaves_the_context_usable(fresh, monkeypatch):
    x = fresh.empty(64)      # not zeros: on a discrete GPU that submits a fill, with a fence
    bump.glsl(vkp.Array[vkp.f32])
    monkeypatch.setattr(vulkan, "vkCreateFence", failing(vulkan.VkErrorOutOfDeviceMemory))
    with pytest.raises(vkp.OutOfDeviceMemory, match="^creating a fence: the driver is out of "
                       "device memory$"):
        bump[1, 64](x)                      # the first launch needs a fence
    monkeypatch.undo()
    fresh.synchronize(timeout=30)
    _works(fresh)


def test_the_raw_binding_baseline_reports_a_lost_device_and_destroys_its_fence(ctx, monkeypatch):
    core = ctx._core_alive()
    with core.lock:
        cb = commands.allocate(core)[0]
    try:
        fences = Handles(monkeypatch, "vkCreateFence", "vkDestroyFence", 1)
        monkeypatch.setattr(vulkan, "vkQueueSubmit", failing(vulkan.VkErrorDeviceLost))
        with pytest.raises(vkp.DeviceLost, match="^baseline: submitting and waiting with the "
                           "raw binding: the device was lost"):
            prerecorded_submit_wait_us(ctx, _api.RawSubmit(cb), 10)
        assert fences.created and not fences.leaked()
    finally:
        with core.lock:
            commands.free(core, [cb])
    monkeypatch.undo()
    _works(ctx)


# ---- devices ------------------------------------------------------------------------------
def test_a_failed_command_pool_destroys_the_new_device(device_info, monkeypatch):
    made = Handles(monkeypatch, "vkCreateDevice", "vkDestroyDevice", 0)
    monkeypatch.setattr(vulkan, "vkCreateCommandPool", failing(vulkan.VkErrorOutOfDeviceMemory))
    with pytest.raises(vkp.OutOfDeviceMemory, match=rf"^creating a command pool on "
                       rf"{re.escape(device_info.name)}: the driver is out of device memory$"):
        vkp.Context(device_info.index)
    assert made.created and not made.leaked()
    monkeypatch.undo()
    with vkp.Context(device_info.index) as c:
        _works(c)


def test_a_failed_extension_query_names_the_device_and_releases_the_instance(monkeypatch):
    instances = Handles(monkeypatch, "vkCreateInstance", "vkDestroyInstance", 0)
    monkeypatch.setattr(devices, "_instance", None)       # enumerate afresh (restored after)
    monkeypatch.setattr(vulkan, "vkEnumerateDeviceExtensionProperties",
                        failing(vulkan.VkErrorOutOfHostMemory))
    with pytest.raises(vkp.OutOfDeviceMemory, match="^listing the extensions of Vulkan device 0: "
                       "the driver is out of host memory$"):
        vkp.list_devices()
    gc.collect()                  # the half-made _Instance (its traceback is gone) destroys it
    assert instances.created and not instances.leaked()
    monkeypatch.undo()
    assert vkp.list_devices()
