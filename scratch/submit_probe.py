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
bound = [x.buffer] + ([plan.status.buffer] if plan.status is not None else [])
ready = plan.pipeline.command_buffer(bound, (1, 1, 1), push)
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
    seq = DispatchSequence(core, [], [(plan.pipeline, bound, (1, 1, 1), push)] * K, hold_buffers=False)
    def rec(seq=seq, K=K):
        for _ in range(N // K):
            fn(core.queue, 1, seq._submit.info, ffi.NULL)
    drain(f"(c) one command buffer of {K} dispatches + barriers", rec, N)

print("x ok:", np.all(x.numpy() == x.numpy()[0]))
