import pytest

import vkpersist as vkp
from vkpersist.vk.devices import select_device

from conftest import DEVICES


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
    d = DEVICES[0]
    assert select_device(0) == d
    assert select_device(d.kind).kind == d.kind
    assert select_device(d.name.split(" ")[0].upper()) is not None


def test_default_prefers_discrete_then_integrated_then_cpu(clean_env):
    order = ["dgpu", "igpu", "cpu", "virtual", "other"]
    best = min(DEVICES, key=lambda d: (order.index(d.kind), d.index))
    assert select_device() == best


def test_env_var_selects(clean_env, monkeypatch):
    monkeypatch.setenv("VKPERSIST_DEVICE", str(DEVICES[-1].index))
    assert select_device() == DEVICES[-1]
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
        assert not c.closed and c.name == DEVICES[0].name
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
