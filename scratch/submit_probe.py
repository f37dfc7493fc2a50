"""Floor of per-launch submission on this device: CPU and drain µs per launch for
(a) one vkQueueSubmit per launch, unfenced; (b) K command buffers per vkQueueSubmit;
(c) one command buffer with K dispatches; (d) recording one dispatch via the binding."""
import time, statistics
import numpy as np
import vkpersist as vkp
from vkpersist.vk._api import ffi, vk, raw_submit, RawSubmit
from vkpersist.vk import commands

@vkp.kernel
def bump(x: vkp.Array[vkp.f32], by: vkp.f32):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] += by

ctx = vkp.Context()
core = ctx._core
x = ctx.zeros(64)
bump[1, 64](x, 1.0); ctx.synchronize()
plan = next(iter(bump._plans.values()))
push = plan.packer.pack(1.0, 64)
ready = plan.pipeline.command_buffer([x.buffer], (1, 1, 1), push)
h = ready.handles[0]
N = 4000
fn = vk.lib.vkQueueSubmit

def drain(label, body, per):
    rows = []
    for _ in range(5):
        ctx.synchronize()
        t = time.perf_counter()
        body()
        c = time.perf_counter()
        vk.vkQueueWaitIdle(core.queue)
        e = time.perf_counter()
        rows.append(((c - t) / per * 1e6, (e - t) / per * 1e6))
    cpu = statistics.median(r[0] for r in rows); tot = statistics.median(r[1] for r in rows)
    print(f"{label:55s} cpu {cpu:7.2f} µs/launch   drained {tot:7.2f} µs/launch", flush=True)

def one_each():
    for _ in range(N):
        fn(core.queue, 1, ready.info, ffi.NULL)
drain("(a) one vkQueueSubmit per launch, no fence", one_each, N)

for K in (4, 16, 64):
    handles = ffi.new(f"VkCommandBuffer[{K}]", [h] * K)
    info = ffi.new("VkSubmitInfo*", {"sType": vk.VK_STRUCTURE_TYPE_SUBMIT_INFO,
                                     "commandBufferCount": K, "pCommandBuffers": handles})
    def many(info=info, K=K):
        for _ in range(N // K):
            fn(core.queue, 1, info, ffi.NULL)
    drain(f"(b) {K} command buffers per vkQueueSubmit", many, N)

for K in (16, 64, 256):
    from vkpersist.vk.sequence import DispatchSequence
    seq = DispatchSequence(core, [], [(plan.pipeline, [x.buffer], (1, 1, 1), push)] * K, hold_buffers=False)
    def rec(seq=seq, K=K):
        for _ in range(N // K):
            fn(core.queue, 1, seq._submit.info, ffi.NULL)
    drain(f"(c) one command buffer of {K} dispatches + barriers", rec, N)

# (d) recording cost per dispatch through the binding (what an implicit batch would pay)
cb = commands.allocate(core)[0]
ds = plan.pipeline.cache.descriptor_set([x.buffer])
data = ffi.new("char[]", push)
times = []
for _ in range(5):
    vk.vkResetCommandBuffer(cb, 0)
    vk.vkBeginCommandBuffer(cb, vk.VkCommandBufferBeginInfo(flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))
    t = time.perf_counter()
    for _ in range(1000):
        vk.vkCmdBindPipeline(cb, vk.VK_PIPELINE_BIND_POINT_COMPUTE, plan.pipeline.handle)
        vk.vkCmdBindDescriptorSets(cb, vk.VK_PIPELINE_BIND_POINT_COMPUTE, plan.pipeline.layout, 0, 1, [ds], 0, None)
        vk.vkCmdPushConstants(cb, plan.pipeline.layout, vk.VK_SHADER_STAGE_COMPUTE_BIT, 0, len(push), data)
        vk.vkCmdDispatch(cb, 1, 1, 1)
        commands.barrier_between(cb)
    times.append((time.perf_counter() - t) / 1000 * 1e6)
    vk.vkEndCommandBuffer(cb)
print(f"(d) recording one dispatch (5 binding calls), cpu {statistics.median(times):.2f} µs", flush=True)
lib = vk.lib
ds_arr = ffi.new("VkDescriptorSet[1]", [ds])
times = []
for _ in range(5):
    vk.vkResetCommandBuffer(cb, 0)
    vk.vkBeginCommandBuffer(cb, vk.VkCommandBufferBeginInfo(flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))
    t = time.perf_counter()
    for _ in range(1000):
        lib.vkCmdBindPipeline(cb, 1, plan.pipeline.handle)
        lib.vkCmdBindDescriptorSets(cb, 1, plan.pipeline.layout, 0, 1, ds_arr, 0, ffi.NULL)
        lib.vkCmdPushConstants(cb, plan.pipeline.layout, vk.VK_SHADER_STAGE_COMPUTE_BIT, 0, len(push), data)
        lib.vkCmdDispatch(cb, 1, 1, 1)
    times.append((time.perf_counter() - t) / 1000 * 1e6)
    vk.vkEndCommandBuffer(cb)
print(f"(e) the same 4 calls through vk.lib directly (no barrier), cpu {statistics.median(times):.2f} µs", flush=True)
print("x ok:", np.all(x.numpy() == x.numpy()[0]), x.numpy()[0])
