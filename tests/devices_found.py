"""The Vulkan devices the tests run on, probed once and only when a test needs one.

Collecting or running tests that need no device (tests/nodevice/) never touches Vulkan, so
they run on a machine without it. A test that needs a device (it requests the `ctx` or the
`device_info` fixture, or calls `devices()`) fails loudly there: CI must always have
lavapipe, and a silent skip would hide a broken machine."""
import functools

import vkpersist as vkp


class NoVulkan(RuntimeError):
    """No Vulkan device for a test that needs one."""


@functools.cache
def _probe():
    try:
        return tuple(vkp.list_devices()), None
    except vkp.VulkanUnavailable as exc:
        return (), exc


def devices() -> tuple:
    """Every Vulkan device found (DeviceInfo records, in index order); raises NoVulkan when
    there is none."""
    found, error = _probe()
    if error is not None:
        raise NoVulkan(f"no Vulkan available for the tests that need a device (CI must always "
                       f"have lavapipe; tests/nodevice runs without one): {error}") from error
    if not found:
        raise NoVulkan("the Vulkan loader lists no device for the tests that need one")
    return found


def device_id(info) -> str:
    """A device test's id: `0-llvmpipe`, the index and the first word of the name."""
    return f"{info.index}-{info.name.split(' ')[0]}"
