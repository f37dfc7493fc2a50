"""Memory kind resolution on the device layouts of VULKAN_FACTS.md and a few others."""
import dataclasses
import types

import pytest

import vkpersist as vkp
from vkpersist.vk.buffer import Buffer
from vkpersist.vk.memory import MemoryType, kind_name_of_type, resolve_kinds

DL, HV, HC, CACHED = 1, 2, 4, 8


def _types(*flags):
    return [MemoryType(i, f, 0) for i, f in enumerate(flags)]


def test_h200_layout():
    kinds = resolve_kinds(_types(0, DL, HV | HC, HV | HC | CACHED, DL | HV | HC))
    assert kinds == {"device": 1, "host": 2, "cached": 3, "rebar": 4}
    assert kind_name_of_type(kinds, 4) == "rebar"


def test_lavapipe_collapses_to_one_type():
    kinds = resolve_kinds(_types(DL | HV | HC | CACHED))
    assert kinds == dict.fromkeys(("device", "host", "cached", "rebar"), 0)
    assert kind_name_of_type(kinds, 0) == "host"


def test_discrete_without_bar_has_no_rebar():
    kinds = resolve_kinds(_types(DL, HV | HC, HV | HC | CACHED))
    assert "rebar" not in kinds and kinds["device"] == 0


def test_igpu_prefers_pure_device_memory_for_device_kind():
    kinds = resolve_kinds(_types(DL, DL | HV | HC | CACHED, DL | HV | HC))
    assert kinds["device"] == 0 and kinds["cached"] == 1 and kinds["host"] == 2


def test_coherence_is_required_for_host_kinds():
    kinds = resolve_kinds(_types(DL, HV | CACHED))   # non-coherent only: not offered
    assert set(kinds) == {"device"}


def test_unavailable_kind_names_the_available_ones(ctx):
    info = dataclasses.replace(ctx.info, memory_kinds={"device": 0, "host": 0})
    core = types.SimpleNamespace(info=info, device=None)
    with pytest.raises(vkp.UnsupportedError, match="'rebar' is not available.*available kinds: device, host"):
        Buffer(core, 64, "rebar")


def test_unknown_kind(ctx):
    with pytest.raises(ValueError, match="unknown memory kind 'vram'; valid kinds: device, host, cached, rebar"):
        ctx.empty(4, memory="vram")
