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
  as before, so a user's view never shows a later array's values.
- When a buffer comes back depends on who touches its memory. The host-visible kinds
  (staging, 'host' arrays) are written by the host directly, so a pending submission keeps
  the whole Buffer and it comes back only once that work is done. A 'device' array comes
  back as soon as it is dropped, while launches that use it may still be queued, as
  CuPy's pool does on a stream: the next array's work is submitted later on the same
  queue, and every submission ends with a barrier before all later work
  (vk/commands.py), so its writes cannot overtake the old reads; the host touches a
  'device' array's memory only when the queue is idle (vk/array.py). Pending submissions
  keep the allocation itself (`buffer.in_flight`), so nothing is destroyed under them.
  The two never share memory: 'device' buffers take only what 'device' buffers gave back
  (a host-visible buffer taking memory a launch still reads would overwrite it at once;
  where all kinds are one memory type, as on lavapipe, the upload ring did). Before, a loop that uploads and computes while the host runs ahead (benchmarks/
  uploads.py) found no buffer to reuse and allocated every array anew: 6.7x slower than
  waiting after each upload on an H100 (2026-12-05).
- A reused buffer's contents are undefined, as a new allocation's are (`zeros` fills).
- At most PER_SIZE buffers of a (memory type, size, 'device' or not) and 1/16 of that
  memory's heap in all are kept; past that the oldest are dropped. PER_SIZE was 4: a long
  np.sort takes five buffers of its row's size (keys and indices twice, the values), so
  every call allocated one anew; on an H100 a 2**24 float32 sort took 8.6 ms against
  argsort's 5.6 (four such buffers), the likeliest cause being that 64 MB allocation.
  An explicit `free()` releases to the driver, and so does the Context's close; an
  allocation the driver refuses empties the pool and is tried once more.
"""
from __future__ import annotations

import collections

PER_SIZE = 8            # buffers kept per (memory type, size)
HEAP_SHARE = 16         # at most 1/HEAP_SHARE of a heap is kept


class BufferPool:
    def __init__(self):
        # (memory type, size, for 'device' buffers) -> [buffer._Allocation], the key least
        # recently added to first
        self.free: collections.OrderedDict = collections.OrderedDict()
        self.bytes = 0
        self.reused = 0             # buffers handed out again (tests read it)

    def take(self, memory_type: int, size: int, device: bool):
        """A kept allocation of this memory type and size for a buffer of kind 'device'
        (`device`) or of a host-visible kind, or None. The two never share: a 'device'
        allocation comes back while launches may still use it, and a host-visible buffer's
        memory is written by the host at once (where all kinds are one memory type, as on
        lavapipe, the upload ring took one and overwrote what a pending launch read)."""
        key = (memory_type, size, device)
        entries = self.free.get(key)
        if not entries:
            return None
        alloc = entries.pop()
        if not entries:
            del self.free[key]
        self.bytes -= size
        self.reused += 1
        return alloc

    def put(self, alloc, heap_size: int, device: bool) -> None:
        """Keep `alloc` (of a buffer of kind 'device' or not: `take`) if the limits allow;
        one not kept, or pushed out by it, is dropped (destroyed once no pending submission
        holds it)."""
        limit = heap_size // HEAP_SHARE
        size, key = alloc.size, (alloc.memory_type, alloc.size, device)
        entries = self.free.get(key, ())
        if size > limit or len(entries) >= PER_SIZE:
            return
        self.free.setdefault(key, []).append(alloc)
        self.free.move_to_end(key)
        self.bytes += size
        while self.bytes > limit and self.free:
            old_key, entries = next(iter(self.free.items()))
            # empty while a take() of this thread is between its pop and its del: the
            # garbage collector ran a buffer's finalizer (this put) in the middle of it
            if entries:
                entries.pop(0)
                self.bytes -= old_key[1]
            if not entries:
                del self.free[old_key]

    def drain(self, core) -> None:
        """Drop every kept allocation (the Context closes, or the driver ran out of memory):
        each is destroyed now, or once the submissions that still hold it complete."""
        self.free, self.bytes = collections.OrderedDict(), 0
