"""Reference measurements in plain `vulkan`-binding Python, for benchmarks to compare with.

`prerecorded_submit_wait_us` is what a careful user of the raw binding gets: a command
buffer recorded once, then vkQueueSubmit + vkWaitForFences + vkResetFences per launch
(VULKAN_FACTS.md §3 measured 55-77 µs on the H200 and 142 µs on lavapipe this way).
"""
from __future__ import annotations

import time

from ._api import RawSubmit, translated, vk


def prerecorded_submit_wait_us(ctx, ready: RawSubmit, iterations: int) -> float:
    core = ctx._core_alive()
    core.synchronize()
    device, queue = core.device, core.queue
    fence_info = vk.VkFenceCreateInfo()
    with translated("baseline: creating a fence"):
        fence = vk.vkCreateFence(device, fence_info, None)
    submit_info = vk.VkSubmitInfo(pCommandBuffers=[ready.handles[0]])
    try:
        # one `with` around the loops: what a failure says, at no cost per iteration
        with translated("baseline: submitting and waiting with the raw binding"):
            for _ in range(min(50, iterations)):
                vk.vkQueueSubmit(queue, 1, [submit_info], fence)
                vk.vkWaitForFences(device, 1, [fence], vk.VK_TRUE, 10**10)
                vk.vkResetFences(device, 1, [fence])
            t = time.perf_counter()
            for _ in range(iterations):
                vk.vkQueueSubmit(queue, 1, [submit_info], fence)
                vk.vkWaitForFences(device, 1, [fence], vk.VK_TRUE, 10**10)
                vk.vkResetFences(device, 1, [fence])
            return (time.perf_counter() - t) / iterations * 1e6
    finally:
        vk.vkDestroyFence(device, fence, None)
