"""Every device test runs once per Vulkan device found (lavapipe in CI): request the
`ctx` fixture (one Context per device for the whole session) or the `device_info` one."""
import os

import numpy as np
import pytest

import vkpersist as vkp

# every SPIR-V module the tests make goes through spirv-val before the driver sees it
os.environ.setdefault("VKPERSIST_VALIDATE", "1")

try:
    DEVICES = vkp.list_devices()
except vkp.VulkanUnavailable as exc:  # fail loudly: CI must always have lavapipe
    raise pytest.UsageError(f"no Vulkan available for the tests: {exc}")


def _ids(info):
    return f"{info.index}-{info.name.split(' ')[0]}"


@pytest.fixture(scope="session", params=DEVICES, ids=_ids)
def device_info(request):
    return request.param


@pytest.fixture(scope="session")
def ctx(device_info):
    with vkp.Context(device_info.index) as c:
        yield c


@pytest.fixture(autouse=True)
def _isolated_spirv_cache(tmp_path_factory, monkeypatch):
    """Compiled shaders go to one cache per test session, never the user's."""
    monkeypatch.setenv("VKPERSIST_CACHE", str(tmp_path_factory.getbasetemp() / "spirv-cache"))


@pytest.fixture
def clean_env(monkeypatch):
    for var in ("VKPERSIST_DEVICE", "VKPERSIST_TIMEOUT"):
        monkeypatch.delenv(var, raising=False)
    return os.environ


@pytest.fixture(scope="session")
def keeps_f32_subnormals(ctx):
    """Whether this device's float32 arithmetic keeps subnormals (below 1.2e-38). Vulkan
    lets a device flush them to zero and NVIDIA's driver does, without offering to keep
    them (shaderDenormPreserveFloat32 false on the H200): tests of exact float32 results
    leave subnormals out there."""
    tiny = np.finfo(np.float32).tiny
    half = vkp.multiply(ctx.asarray(np.array([tiny], np.float32)), np.float32(0.5))
    return bool(half.numpy()[0] != 0)
