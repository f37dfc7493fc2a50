"""Recording command buffers: the barriers every submission carries, and one-shot commands
(copies, fills) that run now and wait."""
from __future__ import annotations

from ._api import RawSubmit, translated, vk

_ALL = None


def _stages():
    global _ALL
    if _ALL is None:
        _ALL = (vk.VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                vk.VK_ACCESS_MEMORY_WRITE_BIT,
                vk.VK_ACCESS_MEMORY_READ_BIT | vk.VK_ACCESS_MEMORY_WRITE_BIT,
                vk.VK_PIPELINE_STAGE_HOST_BIT,
                vk.VK_ACCESS_HOST_READ_BIT | vk.VK_ACCESS_HOST_WRITE_BIT)
    return _ALL


def barrier_after_previous(cb) -> None:
    """Order this command buffer after everything submitted before it, and make host
    writes made before submission visible (submission itself makes them available)."""
    all_cmds, write, read_write, _, _ = _stages()
    barrier = vk.VkMemoryBarrier(srcAccessMask=write | vk.VK_ACCESS_HOST_WRITE_BIT,
                                 dstAccessMask=read_write)
    vk.vkCmdPipelineBarrier(cb, all_cmds | vk.VK_PIPELINE_STAGE_HOST_BIT, all_cmds, 0,
                            1, [barrier], 0, None, 0, None)


def barrier_between(cb) -> None:
    """Make every write of the commands recorded so far visible to the ones after."""
    all_cmds, write, read_write, _, _ = _stages()
    barrier = vk.VkMemoryBarrier(srcAccessMask=write, dstAccessMask=read_write)
    vk.vkCmdPipelineBarrier(cb, all_cmds, all_cmds, 0, 1, [barrier], 0, None, 0, None)


def barrier_before_host(cb) -> None:
    """Make every write of this command buffer visible to the host once its fence signals."""
    all_cmds, write, _, host, host_access = _stages()
    barrier = vk.VkMemoryBarrier(srcAccessMask=write, dstAccessMask=host_access)
    vk.vkCmdPipelineBarrier(cb, all_cmds, host, 0, 1, [barrier], 0, None, 0, None)


def allocate(core, count: int = 1) -> list:
    info = vk.VkCommandBufferAllocateInfo(commandPool=core.command_pool,
                                          level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          commandBufferCount=count)
    with translated("allocating command buffers"):
        return list(vk.vkAllocateCommandBuffers(core.device, info))


def free(core, cbs: list) -> None:
    """Return command buffers to the core's pool (under its lock; freeing cannot fail)."""
    if cbs and core.device is not None:
        vk.vkFreeCommandBuffers(core.device, core.command_pool, len(cbs), cbs)


def record(cb, body, *, reusable: bool) -> None:
    """Record `body(cb)` between the standard barriers. Reusable buffers may be submitted
    again while a previous submission of them is still pending."""
    flags = (vk.VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT if reusable
             else vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT)
    begin = vk.VkCommandBufferBeginInfo(flags=flags)
    with translated("recording commands"):
        vk.vkBeginCommandBuffer(cb, begin)
        barrier_after_previous(cb)
        body(cb)
        barrier_before_host(cb)
        vk.vkEndCommandBuffer(cb)


def run_now(core, body, keep=(), timeout: float | None = None) -> None:
    """Record `body`, submit it after all pending work, and wait for everything (holding
    the core's lock: the command pool and the one-shot buffers are shared)."""
    with core.lock:
        if not core.one_shot:
            core.one_shot.extend(allocate(core))
        cb = core.one_shot.pop()
        try:
            with translated("resetting a command buffer"):
                vk.vkResetCommandBuffer(cb, 0)
            record(cb, body, reusable=False)
            core.submit(RawSubmit(cb), keep)
            core.synchronize(timeout)
        except BaseException:
            if core.device is not None and not core.pending:
                core.one_shot.append(cb)
            raise
        core.one_shot.append(cb)


def copy(cb, src, dst, nbytes: int, src_offset: int = 0, dst_offset: int = 0) -> None:
    region = vk.VkBufferCopy(srcOffset=src_offset, dstOffset=dst_offset, size=nbytes)
    vk.vkCmdCopyBuffer(cb, src.handle, dst.handle, 1, [region])


def fill_words(cb, dst, word: int, nbytes: int, offset: int = 0) -> None:
    """Fill `nbytes` (a multiple of 4) with a repeated 32-bit word."""
    vk.vkCmdFillBuffer(cb, dst.handle, offset, nbytes, word)
