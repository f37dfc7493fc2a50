"""Recording command buffers: the barrier every submission ends with, dispatches, and
one-shot commands (copies, fills): submitted behind the pending work without waiting
(`submit_now`), or submitted and waited for (`run_now`, for reads the host needs at once).

Recording goes straight to the C functions (`held`, with the GIL held: _api.py says why)
with structs built once per process: through the binding's Python wrappers one dispatch
took 48 µs of argument conversion on lavapipe's host (4 calls plus a barrier), directly
2.8 µs (scratch probe, 2026-12-05). A launch whose push constants change every time (a time
step passed as a scalar) records a command buffer per launch, so this is on its hot path.
"""
from __future__ import annotations

from ctypes import c_uint32, c_uint64

from ._api import RawSubmit, address, check_result, ffi, held, pointer, translated, vk

_CONST = None
_COMPUTE = 1            # VK_PIPELINE_BIND_POINT_COMPUTE
_SHADER_COMPUTE = 0x20  # VK_SHADER_STAGE_COMPUTE_BIT


def _constants():
    """(begin infos by reusable, the barrier at the end of every command buffer, the
    barrier between commands)."""
    global _CONST
    if _CONST is None:
        all_cmds = vk.VK_PIPELINE_STAGE_ALL_COMMANDS_BIT
        write = vk.VK_ACCESS_MEMORY_WRITE_BIT
        read_write = vk.VK_ACCESS_MEMORY_READ_BIT | vk.VK_ACCESS_MEMORY_WRITE_BIT
        host = vk.VK_PIPELINE_STAGE_HOST_BIT
        host_access = vk.VK_ACCESS_HOST_READ_BIT | vk.VK_ACCESS_HOST_WRITE_BIT

        def barrier(src, dst):
            return ffi.new("VkMemoryBarrier*", {"sType": vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                                "srcAccessMask": src, "dstAccessMask": dst})

        def begin(flags):
            return ffi.new("VkCommandBufferBeginInfo*", {
                "sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, "flags": flags})
        _CONST = ({True: begin(vk.VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT),
                   False: begin(vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT)},
                  (all_cmds, all_cmds | host, barrier(write, read_write | host_access)),
                  (all_cmds, all_cmds, barrier(write, read_write)))
    return _CONST


def _barrier(cb, which) -> None:
    src, dst, barrier = which
    held.vkCmdPipelineBarrier(address(cb), src, dst, 0, 1, address(barrier), 0, None, 0, None)


def barrier_at_end(cb) -> None:
    """The barrier that ends every command buffer: everything it wrote is visible to every
    command submitted after it and, once its fence signals, to the host. Its second scope
    is every later command in submission order, the next submissions' included, so it
    orders them after this one as a barrier at their start would; host writes made
    before a submission need no barrier (vkQueueSubmit is itself a memory dependency from
    them to the submitted commands: the Vulkan spec's "Host Write Ordering Guarantees").
    One barrier at the end instead of one at the start (after everything before, host
    writes included) and one to the host at the end: on an H100 (2026-12-06,
    benchmarks/probes/submit_floor.py) the device takes 15.5 µs per one-dispatch submission
    instead of 18.7-20.2 (12.9-13.2 with no barrier at all; a leading barrier alone cost
    17.7 with or without the host in it, a trailing one 15.7), and an asynchronous launch
    18.9 -> 15.8 µs, launch + wait 31.4 -> 27.7 (benchmarks/launch_overhead.py, old and
    new in one call)."""
    _barrier(cb, _constants()[1])


def barrier_between(cb) -> None:
    """Make every write of the commands recorded so far visible to the ones after."""
    _barrier(cb, _constants()[2])


def dispatch(cb, pipeline, buffers, groups, push: bytes) -> None:
    """Bind `pipeline` with `buffers` and its push constants, and dispatch `groups`: either
    (x, y, z) or ("indirect", buffer, byte offset) for counts an earlier dispatch wrote."""
    cb = address(cb)
    held.vkCmdBindPipeline(cb, _COMPUTE, address(pipeline.handle))
    if pipeline.reflection.bindings:
        held.vkCmdBindDescriptorSets(cb, _COMPUTE, address(pipeline.layout), 0, 1,
                                     address(pipeline.cache.descriptor_set(buffers)), 0, None)
    if push:        # the bytes are copied into the command buffer by the call
        held.vkCmdPushConstants(cb, address(pipeline.layout), _SHADER_COMPUTE, 0, len(push),
                                bytes(push))
    if groups[0] == "indirect":
        held.vkCmdDispatchIndirect(cb, address(groups[1].handle), c_uint64(groups[2]))
    else:
        x, y, z = groups      # ints of any kind (NumPy's too): held calls convert none
        held.vkCmdDispatch(cb, int(x), int(y), int(z))


def record(cb, body, *, reusable: bool) -> None:
    """Record `body(cb)` and the barrier at the end (`barrier_at_end`: every command buffer
    submitted to a queue is recorded here, so each is ordered after all submitted before
    it). Reusable buffers may be submitted again while a previous submission of them is
    still pending."""
    check_result(begin_commands(cb, _constants()[0][reusable]), "recording commands")
    body(cb)
    barrier_at_end(cb)
    check_result(end_commands(cb), "recording commands")


def begin_commands(cb, info) -> int:
    """vkBeginCommandBuffer's result; it also resets the buffer (the pool has
    RESET_COMMAND_BUFFER_BIT). Tests replace this and end_commands to make them fail."""
    return held.vkBeginCommandBuffer(address(cb), address(info))


def end_commands(cb) -> int:
    """vkEndCommandBuffer's result (where a recording error surfaces)."""
    return held.vkEndCommandBuffer(address(cb))


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


_SPARE_BLOCK = 16       # command buffers allocated together when none is spare


def spare(core):
    """A command buffer to record into (under the core's lock): one a dead `Recorded` gave
    back, else one of a new block. vkBeginCommandBuffer resets it (the pool has
    RESET_COMMAND_BUFFER_BIT); the pool's destruction frees the spare ones."""
    spares = core.spare_command_buffers
    if not spares:
        spares.extend(allocate(core, _SPARE_BLOCK))
    return spares.pop()


class Recorded(RawSubmit):
    """A recorded command buffer that goes back to the core's spare ones when the last
    reference dies: the launch cache's, and each pending submission's (core.submit keeps
    what it submits until a fence shows it complete). So a cache can drop an entry at any
    time without waiting for the device, and the next recording reuses the buffer."""
    __slots__ = ("spares",)

    def __init__(self, core, cb):
        super().__init__(cb)
        self.spares = core.spare_command_buffers

    def __del__(self):
        self.spares.append(self.handles[0])     # atomic under the GIL; taken under the lock


def submit_now(core, body, keep=()) -> None:
    """Record `body` and submit it behind all pending work, without waiting; `keep` (the
    buffers it touches) stays referenced until it completes. The queue runs submissions in
    order and every command buffer ends with `barrier_at_end`, so a fill or copy
    submitted here is seen by every later launch and read, and sees every earlier one.

    Writes into device arrays (`zeros`, uploads, `x[1:] = 0`) went through `run_now`,
    which waited for *all* pending work: an upload behind a long launch waited for it, and
    a loop of small writes serialised the host with the device. The command buffer is a
    spare one (`Recorded`) that goes back when the submission's fence retires."""
    with core.lock:
        recorded = Recorded(core, spare(core))
        record(recorded.handles[0], body, reusable=False)
        core.submit(recorded, keep)


def run_now(core, body, keep=(), timeout: float | None = None) -> None:
    """Record `body`, submit it after all pending work, and wait for everything (holding
    the core's lock: the command pool and the one-shot buffers are shared)."""
    with core.lock:
        if not core.one_shot:
            core.one_shot.extend(allocate(core))
        cb = core.one_shot.pop()
        try:
            record(cb, body, reusable=False)
            core.submit(RawSubmit(cb), keep)
            core.synchronize(timeout)
        except BaseException:
            if core.device is not None and not core.pending:
                core.one_shot.append(cb)
            raise
        core.one_shot.append(cb)


def copy(cb, src, dst, nbytes: int, src_offset: int = 0, dst_offset: int = 0) -> None:
    region = ffi.new("VkBufferCopy*", {"srcOffset": src_offset, "dstOffset": dst_offset,
                                       "size": nbytes})
    held.vkCmdCopyBuffer(address(cb), address(src.handle), address(dst.handle), 1,
                         pointer(region))


def fill_words(cb, dst, word: int, nbytes: int, offset: int = 0) -> None:
    """Fill `nbytes` (a multiple of 4) with a repeated 32-bit word."""
    held.vkCmdFillBuffer(address(cb), address(dst.handle), c_uint64(offset), c_uint64(nbytes),
                         c_uint32(word))


def repeat_prefix(cb, buf, seed: int, nbytes: int) -> None:
    """Fill bytes [seed, nbytes) of `buf` with copies of its first `seed` bytes, for
    patterns vkCmdFillBuffer's one repeated word cannot make (a float64 1.0, a complex
    value): each copy doubles the filled prefix, a barrier after each."""
    done = seed
    while done < nbytes:
        n = min(done, nbytes - done)
        copy(cb, buf, buf, n, 0, done)
        barrier_between(cb)
        done += n
