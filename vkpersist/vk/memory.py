"""Memory kinds: the four placements vkpersist offers, resolved to a device's memory types.

    device  device-local, not host-visible where the device separates them: simulation state
    host    host-visible + host-coherent system memory: frames and acks the GPU writes for the host
    cached  as `host`, and host-cached: fast host reads of GPU output
    rebar   device-local + host-visible + host-coherent (BAR/ReBAR): words the host writes and a
            running shader polls (VULKAN_FACTS.md §1: on NVIDIA only this memory is seen live)

On unified-memory devices (lavapipe, most iGPUs) one memory serves several kinds; the
resolution below collapses them naturally because preferences, not requirements, separate
the kinds. Host-visible kinds always require HOST_COHERENT, so no flush/invalidate is needed.
"""
from __future__ import annotations

from dataclasses import dataclass

KINDS = ("device", "host", "cached", "rebar")

DEVICE_LOCAL = 0x1
HOST_VISIBLE = 0x2
HOST_COHERENT = 0x4
HOST_CACHED = 0x8
LAZILY_ALLOCATED = 0x10
PROTECTED = 0x20
_UNUSABLE = LAZILY_ALLOCATED | PROTECTED | 0x40 | 0x80 | 0x100  # + AMD device-coherent/uncached, RDMA

_FLAG_NAMES = ((DEVICE_LOCAL, "DEVICE_LOCAL"), (HOST_VISIBLE, "HOST_VISIBLE"),
               (HOST_COHERENT, "HOST_COHERENT"), (HOST_CACHED, "HOST_CACHED"),
               (LAZILY_ALLOCATED, "LAZILY_ALLOCATED"), (PROTECTED, "PROTECTED"))

# kind -> (required flags, flags to avoid in order of importance, flags to prefer)
_RULES = {
    "device": (DEVICE_LOCAL, (HOST_VISIBLE,), 0),
    "host": (HOST_VISIBLE | HOST_COHERENT, (DEVICE_LOCAL, HOST_CACHED), 0),
    "cached": (HOST_VISIBLE | HOST_COHERENT | HOST_CACHED, (DEVICE_LOCAL,), 0),
    "rebar": (DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT, (), HOST_CACHED),
}


@dataclass(frozen=True)
class MemoryType:
    index: int
    flags: int
    heap: int

    @property
    def host_visible(self) -> bool:
        return bool(self.flags & HOST_VISIBLE)

    def describe(self) -> str:
        names = [n for bit, n in _FLAG_NAMES if self.flags & bit]
        return "|".join(names) or "none"


@dataclass(frozen=True)
class MemoryHeap:
    index: int
    size: int
    device_local: bool


def resolve_kinds(types: list[MemoryType]) -> dict[str, int]:
    """Map each memory kind to the memory type index that serves it; kinds the device cannot
    provide are absent. Ties go to the lowest index, which Vulkan orders by preference."""
    out = {}
    for kind, (required, avoid, prefer) in _RULES.items():
        usable = [t for t in types if t.flags & required == required and not t.flags & _UNUSABLE]
        if not usable:
            continue
        best = min(usable, key=lambda t: (tuple(bool(t.flags & a) for a in avoid),
                                          not (t.flags & prefer) if prefer else False,
                                          t.index))
        out[kind] = best.index
    return out


def check_kind(kind) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown memory kind {kind!r}; valid kinds: {', '.join(KINDS)}")
    return kind


def kind_name_of_type(kinds: dict[str, int], type_index: int) -> str:
    """The user-facing name of a memory type: the first kind (in the order host, cached,
    rebar, device) that resolves to it, e.g. 'host' for lavapipe's single memory type."""
    for kind in ("host", "cached", "rebar", "device"):
        if kinds.get(kind) == type_index:
            return kind
    return f"type {type_index}"
