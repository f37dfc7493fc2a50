"""Released buffers kept for reuse, per device (`core.buffer_pool`).

Creating a buffer is four driver calls through the binding (create, memory requirements,
allocate, bind) plus a map for host-visible memory: 112 µs per buffer on lavapipe
(scratch probe, 2026-12-05), more than the work of a small array operation. The array
layer makes a new array for every result, so a loop of `x.sum()` or `a + b` paid that on
every call. As CuPy's memory pool does, a released buffer's VkBuffer and memory (and
mapping) wait here, keyed by (memory type, size), and the next buffer of that type and size
takes them instead of allocating.

A kept buffer also keeps its serial, and the caches keyed on it (descriptor sets, recorded
command buffers) keep their entries: the VkBuffer is the same one. So `y = vkp.sin(x) + 1` in
a loop allocates nothing and records nothing after its first pass. The serial is forgotten
when the buffer is finally destroyed.

Rules that keep it invisible:
- Only buffers whose memory nobody else can see come here: a mapped buffer with NumPy views
  that keep its memory mapped (`host_view(keep_mapped=True)`, a MemSock frame) is released
  as before, so a user's view never shows a later array's values. A buffer is released
  only when no pending submission holds it, so reuse never races the device.
- A reused buffer's contents are undefined, as a new allocation's are (`zeros` fills).
- At most PER_SIZE buffers of a (memory type, size) and 1/16 of that memory's heap in all
  are kept; past that the oldest are destroyed. An explicit `free()` releases to the
  driver, and so does the Context's close; an allocation the driver refuses empties the
  pool and is tried once more.
"""
from __future__ import annotations

import collections

from ._api import vk

PER_SIZE = 4            # buffers kept per (memory type, size)
HEAP_SHARE = 16         # at most 1/HEAP_SHARE of a heap is kept


class BufferPool:
    def __init__(self):
        # (memory type, size) -> [(handle, memory, mapping, address, serial)], the key
        # least recently added to first
        self.free: collections.OrderedDict = collections.OrderedDict()
        self.bytes = 0
        self.reused = 0             # buffers handed out again (tests read it)

    def take(self, memory_type: int, size: int):
        """(handle, memory, mapping, address, serial) of a kept buffer, or None."""
        entries = self.free.get((memory_type, size))
        if not entries:
            return None
        entry = entries.pop()
        if not entries:
            del self.free[(memory_type, size)]
        self.bytes -= size
        self.reused += 1
        return entry

    def put(self, core, memory_type: int, size: int, heap_size: int, entry) -> bool:
        """Keep `entry`; False when it may not be kept (the caller destroys it)."""
        limit = heap_size // HEAP_SHARE
        key = (memory_type, size)
        entries = self.free.get(key, ())
        if size > limit or len(entries) >= PER_SIZE:
            return False
        self.free.setdefault(key, []).append(entry)
        self.free.move_to_end(key)
        self.bytes += size
        while self.bytes > limit:
            old_key, entries = next(iter(self.free.items()))
            destroy(core, entries.pop(0))
            self.bytes -= old_key[1]
            if not entries:
                del self.free[old_key]
        return True

    def drain(self, core) -> None:
        """Destroy every kept buffer (the Context closes, or the driver ran out of memory)."""
        free, self.free, self.bytes = self.free, collections.OrderedDict(), 0
        for entries in free.values():
            for entry in entries:
                destroy(core, entry)


def destroy(core, entry) -> None:
    """Forget the buffer's serial, destroy it and free its memory (a mapping frees its
    memory when this last reference to it goes: buffer.py)."""
    handle, memory, serial = entry[0], entry[1], entry[4]
    core.forget(serial)
    vk.vkDestroyBuffer(core.device, handle, None)
    if memory is not None:
        vk.vkFreeMemory(core.device, memory, None)
