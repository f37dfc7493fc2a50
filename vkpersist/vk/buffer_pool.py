"""Released buffers kept for reuse, per device (`core.buffer_pool`).

Creating a buffer is four driver calls through the binding (create, memory requirements,
allocate, bind) plus a map for host-visible memory: 112 µs per buffer on lavapipe
(scratch probe, 2026-12-05), more than the work of a small array operation. The array
layer makes a new array for every result, so a loop of `x.sum()` or `a + b` paid that on
every call. As CuPy's memory pool does, a released buffer's VkBuffer and memory (and
mapping) wait here, keyed by (memory type, size), and the next buffer of that type and size
takes them instead of allocating.

Rules that keep it invisible:
- Only buffers whose memory nobody else can see come here: a mapped buffer with NumPy views
  that keep its memory mapped (`host_view(keep_mapped=True)`, a MemSock frame) is released
  as before, so a user's view never shows a later array's values.
- A reused buffer gets a new serial (caches key on serials), its contents are undefined as
  a new allocation's are (`zeros` fills).
- At most MAX_BYTES are kept per device; past that the oldest are destroyed. An explicit
  `free()` releases to the driver, and so does the Context's close; an allocation the
  driver refuses empties the pool and is tried once more.
"""
from __future__ import annotations

import collections

from ._api import vk

MAX_BYTES = 256 << 20       # kept per device
MAX_BUFFER = 64 << 20       # larger buffers go back to the driver at once


class BufferPool:
    def __init__(self):
        # (memory type, size) -> [(handle, memory, mapping, address)], oldest first overall
        self.free: collections.OrderedDict = collections.OrderedDict()
        self.bytes = 0
        self.reused = 0             # buffers handed out again (tests read it)

    def take(self, memory_type: int, size: int):
        """(handle, memory, mapping, address) of a kept buffer, or None."""
        entries = self.free.get((memory_type, size))
        if not entries:
            return None
        entry = entries.pop()
        if not entries:
            del self.free[(memory_type, size)]
        self.bytes -= size
        self.reused += 1
        return entry

    def put(self, core, memory_type: int, size: int, entry) -> bool:
        """Keep `entry`; False when it is too large to keep (the caller destroys it)."""
        if size > MAX_BUFFER:
            return False
        key = (memory_type, size)
        self.free.setdefault(key, []).append(entry)
        self.free.move_to_end(key)
        self.bytes += size
        while self.bytes > MAX_BYTES:
            old_key, entries = next(iter(self.free.items()))
            destroy(core, entries.pop(0))
            self.bytes -= old_key[1]
            if not entries:
                del self.free[old_key]
        return True

    def drain(self, core) -> None:
        """Destroy every kept buffer (the Context closes, or the driver ran out of memory)."""
        for entries in self.free.values():
            for entry in entries:
                destroy(core, entry)
        self.free.clear()
        self.bytes = 0


def destroy(core, entry) -> None:
    handle, memory = entry[0], entry[1]
    vk.vkDestroyBuffer(core.device, handle, None)
    if memory is not None:
        vk.vkFreeMemory(core.device, memory, None)
    # a mapping frees its memory when this last reference goes (buffer.py)
