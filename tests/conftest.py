"""Every device test runs once per Vulkan device found (lavapipe in CI): request the
`ctx` fixture (one Context per device for the whole session) or the `device_info` one.

The devices are probed only when a collected test requests one of those (devices_found.py):
tests that need no device run without Vulkan (`pytest tests/nodevice`), and a test that
needs one fails its collection loudly when there is none."""
import os
import pathlib
import sys

import numpy as np
import pytest

import vkpersist as vkp

from devices_found import NoVulkan, device_id, devices

# The tests live in folders by layer (nodevice, lang, kernels, array, runtime, channels,
# programs, golden, examples, api) and import each other's modules by bare name, as in the
# flat layout: programs_lib.py here at the top, random_programs, snapshot_cases, test_docs,
# test_plan, the language tests whose kernels the golden GLSL pins. Every folder is on
# sys.path, whichever subset runs (module names stay unique across folders).
TESTS = pathlib.Path(__file__).resolve().parent
for _folder in sorted({p.parent for p in TESTS.rglob("*.py")}, reverse=True):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

# every SPIR-V module the tests make goes through spirv-val before the driver sees it
os.environ.setdefault("VKPERSIST_VALIDATE", "1")


@pytest.hookimpl(tryfirst=True)      # first, so the device leads the ids: test[0-llvmpipe-...]
def pytest_generate_tests(metafunc):
    """One run per device for every test that requests `device_info`, directly or through
    `ctx` (or another fixture built on it); the others never probe Vulkan."""
    if "device_info" in metafunc.fixturenames:
        try:
            found, error = devices(), None
        except NoVulkan as exc:
            found, error = (), str(exc)
        if error:                   # fail loudly: CI must always have lavapipe
            pytest.fail(error, pytrace=False)
        metafunc.parametrize("device_info", found, ids=device_id, indirect=True)


@pytest.fixture(scope="session")
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
