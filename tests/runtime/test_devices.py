import pytest

import vkpersist as vkp
from vkpersist.vk.devices import select_device

from devices_found import devices


def test_lists_every_device_with_its_facts():
    infos = vkp.list_devices()
    assert infos, "CI machines always have lavapipe"
    for i, d in enumerate(infos):
        assert d.index == i
        assert d.kind in ("dgpu", "igpu", "cpu", "virtual", "other")
        assert d.name and d.vendor and d.driver
        assert d.vulkan_version.count(".") == 2
        assert d.subgroup_size >= 1
        assert d.heaps and all(h.size > 0 for h in d.heaps)
        assert "device" in d.memory_kinds and "host" in d.memory_kinds
        assert isinstance(d.external_memory_host, bool)


def test_lavapipe_is_described_as_measured():
    lavapipe = [d for d in vkp.list_devices() if d.is_lavapipe]
    if not lavapipe:
        pytest.skip("no lavapipe here")
    d = lavapipe[0]
    assert d.kind == "cpu" and d.uma and d.driver == "llvmpipe"
    assert set(d.memory_kinds) == {"device", "host", "cached", "rebar"}
    assert len(set(d.memory_kinds.values())) == 1  # one memory serves every kind


def test_selects_by_index_kind_and_name(clean_env):
    d = devices()[0]
    assert select_device(0) == d
    assert select_device(d.kind).kind == d.kind
    assert select_device(d.name.split(" ")[0].upper()) is not None


def test_default_prefers_discrete_then_integrated_then_cpu(clean_env):
    order = ["dgpu", "igpu", "cpu", "virtual", "other"]
    best = min(devices(), key=lambda d: (order.index(d.kind), d.index))
    assert select_device() == best


def test_env_var_selects(clean_env, monkeypatch):
    monkeypatch.setenv("VKPERSIST_DEVICE", str(devices()[-1].index))
    assert select_device() == devices()[-1]
    monkeypatch.setenv("VKPERSIST_DEVICE", "no-such-gpu")
    with pytest.raises(vkp.DeviceNotFound, match="VKPERSIST_DEVICE='no-such-gpu'.*Devices: \\[0\\]"):
        vkp.Context()


@pytest.mark.parametrize("selector, match", [
    (99, "no device with that index; devices: \\[0\\]"),
    ("quantum", "matches no device; use an index, a kind \\(dgpu, igpu, cpu"),
])
def test_unknown_device_names_the_valid_choices(clean_env, selector, match):
    with pytest.raises(vkp.DeviceNotFound, match=match):
        vkp.Context(selector)


def test_bad_selector_type(clean_env):
    with pytest.raises(TypeError, match="int index, a kind"):
        vkp.Context(1.5)


def test_context_lifecycle(clean_env):
    with vkp.Context(0) as c:
        assert not c.closed and c.name == devices()[0].name
        assert "closed" not in repr(c)
    assert c.closed and "closed" in repr(c)
    c.close()  # idempotent
    with pytest.raises(vkp.VkPersistError, match="is closed"):
        c.empty(4)


def test_default_context_is_shared_and_recreated(clean_env):
    a = vkp.default_context()
    assert vkp.default_context() is a
    a.close()
    b = vkp.default_context()
    assert b is not a and not b.closed


@pytest.mark.parametrize("bad", [0, -1, "soon"])
def test_timeout_must_be_positive_seconds(clean_env, bad):
    with pytest.raises((ValueError, TypeError)):
        vkp.Context(0, timeout=bad)


def test_timeout_env_var_checked(clean_env, monkeypatch):
    monkeypatch.setenv("VKPERSIST_TIMEOUT", "abc")
    with pytest.raises(ValueError, match="VKPERSIST_TIMEOUT='abc'"):
        vkp.Context(0)
    monkeypatch.setenv("VKPERSIST_TIMEOUT", "7.5")
    with vkp.Context(0) as c:
        assert c.timeout == 7.5


def test_pipeline_statistics_are_read_as_the_extension_defines(monkeypatch):
    """vk/executables.py's reading of VK_KHR_pipeline_executable_properties, against
    stand-ins for the driver's two functions (lavapipe lacks the extension): the two-call
    enumeration, sType set on every output struct, the four value formats, the register
    figure under NVIDIA's and RADV's names."""
    from types import SimpleNamespace

    from vkpersist.vk import executables as ex
    from vkpersist.vk._api import ffi, vk

    figures = [("Register Count", 1, 40), ("Binary Size", 2, 9000), ("Spills", 0, 0),
               ("Occupancy", 3, 0.75)]
    seen = []

    def props(device, info, count, out):
        if out == ffi.NULL:
            count[0] = 1
        else:
            seen.append(out[0].sType)
            out[0].name, out[0].description, out[0].subgroupSize = b"main", b"compute", 32
        return vk.VK_SUCCESS

    def stats(device, info, count, out):
        assert info.executableIndex == 0
        if out == ffi.NULL:
            count[0] = len(figures)
            return vk.VK_SUCCESS
        for s, (name, fmt, value) in zip([out[i] for i in range(count[0])], figures):
            seen.append(s.sType)
            s.name, s.description, s.format = name.encode(), b"what it is", fmt
            setattr(s.value, ex._FORMATS[fmt], value)
        return vk.VK_SUCCESS

    fns = {"vkGetPipelineExecutablePropertiesKHR": props,
           "vkGetPipelineExecutableStatisticsKHR": stats}
    monkeypatch.setattr(ex, "_proc", lambda core, name: fns[name])
    (exe,) = ex._read(SimpleNamespace(device=None), ffi.NULL, "test")
    assert (exe.name, exe.description, exe.subgroup_size) == ("main", "compute", 32)
    assert exe.values == {"Register Count": 40, "Binary Size": 9000, "Spills": False,
                          "Occupancy": 0.75}
    assert exe.registers == 40 and exe.descriptions["Spills"] == "what it is"
    assert seen == [vk.VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR] + \
        [vk.VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR] * 4
    radv = ex.ExecutableStatistics("cs", "", 64, {"SGPRs": 30, "VGPRs": 24})
    assert radv.registers == 24 and "VGPRs=24" in repr(radv)
    assert ex.ExecutableStatistics("cs", "", 8, {"Code size": 5}).registers is None
