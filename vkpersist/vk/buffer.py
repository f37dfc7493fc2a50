"""Buffers: one VkBuffer bound to its own VkDeviceMemory, mapped when host-visible.

A Buffer is released when it is garbage-collected, when `free()` is called, or when its
Context closes, whichever comes first; the release runs once. Every buffer has a serial
number so caches (descriptor sets, recorded command buffers) can forget it when it dies,
even if the driver later reuses its handle value.

Views that users hold (`Array.numpy_view()`, a MemSock frame's `data`) are made with
`host_view(keep_mapped=True)`: they keep the *memory* mapped past the release, because
freeing mapped memory under a NumPy array turns its next read into a segfault. Releasing
the buffer destroys the VkBuffer (no launch can use it any more); its memory is freed
when the last such view is gone, and a closed Context's device is destroyed after the
last of its memory (`release_device`). Internal views (`host_view()`) do not: their
owners check `alive` before each use.
"""
from __future__ import annotations

import itertools
import threading
import weakref

import numpy as np

from .._errors import OutOfDeviceMemory, UnsupportedError, VkPersistError
from ._api import ffi, translated, vk
from .memory import check_kind

_serials = itertools.count(1)
_USAGE = None


def _usage():
    global _USAGE
    if _USAGE is None:
        _USAGE = (vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | vk.VK_BUFFER_USAGE_TRANSFER_SRC_BIT
                  | vk.VK_BUFFER_USAGE_TRANSFER_DST_BIT | vk.VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT)
    return _USAGE


def _fmt(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


class Buffer:
    """Raw device memory; `host_view()` gives zero-copy NumPy access when it is host-visible."""

    offset = 0          # bound from its first byte (a Window binds from its own offset)

    def __init__(self, core, nbytes: int, kind: str, memory_type: int | None = None):
        """`memory_type` overrides the kind's resolution (used to test each memory type)."""
        check_kind(kind)
        info = core.info
        if kind not in info.memory_kinds:
            raise UnsupportedError(
                f"memory kind {kind!r} is not available on {info.name}; available kinds: "
                f"{', '.join(info.memory_kinds)}")
        if nbytes < 0:
            raise ValueError(f"buffer size must be >= 0, got {nbytes}")
        type_index = info.memory_kinds[kind] if memory_type is None else memory_type
        mtype = info.memory_types[type_index]
        heap = info.heaps[mtype.heap]
        limit = min(heap.size, info.max_allocation_size)
        if nbytes > limit:
            raise OutOfDeviceMemory(
                f"cannot allocate {_fmt(nbytes)} of {kind!r} memory on {info.name}: the largest "
                f"single allocation is {_fmt(limit)} (heap {mtype.heap}: {_fmt(heap.size)}, "
                f"maxMemoryAllocationSize {_fmt(info.max_allocation_size)})")
        self.nbytes = nbytes
        self.kind = kind
        self.memory_type = type_index
        size = max(4, (nbytes + 3) // 4 * 4)   # Vulkan forbids size 0; fills work on words
        self.size = size
        self._core = core
        with core.lock:
            alloc = core.buffer_pool.take(type_index, size, kind == "device")
        if alloc is None:
            alloc = self._create(core, size, type_index, mtype, kind)
        # a reused allocation keeps its serial: caches keyed on it stay valid
        self._alloc = alloc
        self.handle, self.address, self.serial = alloc.handle, alloc.address, alloc.serial
        self._keeper = alloc.mapping
        self._poolable = [True]           # free() clears it: that memory goes to the driver
        self._finalizer = core.track(self, _release, core, alloc, self._poolable, heap.size,
                                     kind == "device")

    def _create(self, core, size: int, type_index: int, mtype, kind: str) -> "_Allocation":
        """A new VkBuffer and memory, mapped when host-visible. A refusal for lack of
        memory waits for the pending work, empties the buffer pool and tries once more."""
        info = core.info

        def check_type(req):
            if not (req.memoryTypeBits >> type_index) & 1:
                raise VkPersistError(f"memory type {type_index} cannot back storage buffers on "
                                     f"{info.name}")
            return type_index

        what = f"{_fmt(size)} of {kind!r} memory on {info.name}"
        try:
            handle, memory, _ = _create_bound(core, size, check_type, what)
        except OutOfDeviceMemory:
            with core.lock:
                if not core.buffer_pool.bytes and not core.pending:
                    raise
                # queued writes and launches keep their arrays until they complete: wait
                # for them, so the arrays nobody holds any more come back, then free
                # everything kept for reuse
                core.synchronize()
                core.buffer_pool.drain(core)
            handle, memory, _ = _create_bound(core, size, check_type, what)
        if not mtype.host_visible:
            return _Allocation(core, handle, memory, type_index, size)
        try:
            with translated("mapping memory"):
                ptr = vk.vkMapMemory(core.device, memory, 0, size, 0)
        except BaseException:
            _destroy(core, handle, memory)
            raise
        address = int(ffi.cast("uintptr_t", ffi.from_buffer(ptr)))
        # the memory goes with its mapping (see the module's docs)
        return _Allocation(core, handle, None, type_index, size, _Mapping(core, memory), address)

    @property
    def alive(self) -> bool:
        return self._finalizer.alive

    @property
    def host_visible(self) -> bool:
        return self.address is not None

    def host_view(self, keep_mapped: bool = False) -> np.ndarray:
        """A uint8 view of the mapped memory. The view keeps this Buffer alive, so garbage
        collection can never unmap memory under it; with `keep_mapped` it also keeps the
        memory mapped after `free()` or the Context's close (for views handed to users),
        else whoever holds it must check `alive` before each use."""
        if self.address is None or not self.alive:
            raise VkPersistError("buffer is not host-visible or was freed")
        if not keep_mapped:
            return np.asarray(_MappedRegion(self, self))
        mapping = self._keeper()
        region = _MappedRegion(self, mapping)
        if isinstance(mapping, _Mapping):
            mapping.regions.add(region)     # while it lives, the memory is not reused
        return np.asarray(region)

    def free(self) -> None:
        """Release now (idempotent), after the context's pending work has finished (a
        launch may still be using this buffer); the memory goes back to the driver, not to
        the buffer pool."""
        if self._finalizer.alive and self._core.device is not None:
            self._core.synchronize()
        self._poolable[0] = False
        self._finalizer()
        self._alloc = None          # the last reference: the VkBuffer is destroyed now


def host_array(shape, dtype, alignment: int = 65536) -> np.ndarray:
    """A zeroed NumPy array whose memory a device can import (VK_EXT_external_memory_host):
    page-aligned, and backed by whole aligned pages (`alignment` covers every driver's
    minImportedHostPointerAlignment seen so far; 4096 on lavapipe and NVIDIA)."""
    import mmap
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    size = max(alignment, -(-nbytes // alignment) * alignment)
    pages = mmap.mmap(-1, size)         # anonymous mappings start on a page boundary
    return np.frombuffer(pages, np.uint8, nbytes).view(dtype).reshape(shape)


class ImportedBuffer(Buffer):
    """A Buffer over host pages the caller owns (a NumPy array): the device reads and writes
    the array's memory itself. The array is kept alive until the buffer is released."""

    def __init__(self, core, array: np.ndarray, what: str = "array", size: int | None = None):
        """`size`: bytes to import from the array's start (default: to the end of the
        memory object behind it); SharedPages give it, their mapping has slack after it."""
        info = core.info
        if not info.external_memory_host:
            raise UnsupportedError(f"{info.name} cannot import host memory "
                                   "(VK_EXT_external_memory_host is missing)")
        if not isinstance(array, np.ndarray) or not array.flags.c_contiguous \
                or not array.flags.writeable:
            raise ValueError(f"{what} must be a writeable, C-contiguous NumPy array")
        align = info.host_pointer_alignment
        address = array.ctypes.data
        pages = _pages_behind(array) if size is None else size
        if address % align or pages is None or pages % align:
            raise ValueError(
                f"{what} must start on a {align}-byte boundary of memory made of whole "
                f"{align}-byte pages ({info.name}'s minImportedHostPointerAlignment); "
                "allocate it with vkp.lowlevel.host_array(shape, dtype)")
        self.nbytes = array.nbytes
        self.kind = "host"
        size = pages
        self.size = size
        handle_type = vk.VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT
        pointer = ffi.cast("void*", address)

        def coherent_type(req):
            with translated("querying the memory types of imported host pages"):
                query = vk.vkGetDeviceProcAddr(core.device, "vkGetMemoryHostPointerPropertiesEXT")
                props = query(core.device, handle_type, pointer,
                              vk.VkMemoryHostPointerPropertiesEXT())
            bits = props.memoryTypeBits & req.memoryTypeBits
            coherent = [t.index for t in info.memory_types
                        if (bits >> t.index) & 1 and t.host_visible and t.flags & 0x4]
            if not coherent:
                raise UnsupportedError(f"{info.name} offers no host-coherent memory type for "
                                       f"imported host pages (types {bits:#x})")
            return coherent[0]

        handle, memory, self.memory_type = _create_bound(
            core, size, coherent_type, f"{_fmt(size)} of imported host memory on {info.name}",
            buffer_next=vk.VkExternalMemoryBufferCreateInfo(handleTypes=handle_type),
            alloc_next=vk.VkImportMemoryHostPointerInfoEXT(handleType=handle_type,
                                                           pHostPointer=pointer),
            allocation_size=size)
        self.address = address
        self.handle = handle
        self._core = core
        # the array rides along in the finalizer: its pages outlive the device memory, and
        # they are what views that keep the memory mapped hold on to
        self._keeper = weakref.ref(array)
        self._poolable = [False]          # the caller's pages: never reused for others
        self._alloc = _Allocation(core, handle, memory, self.memory_type, size, keep=array)
        self.serial = self._alloc.serial
        self._finalizer = core.track(self, _release, core, self._alloc, self._poolable, 0,
                                     False)


def _pages_behind(array: np.ndarray) -> int | None:
    """Bytes of the memory object the array starts at, from its start (None: unknown)."""
    base = array
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    try:
        view = memoryview(base)
    except TypeError:
        return None
    start = np.frombuffer(view, np.uint8).ctypes.data if view.nbytes else 0
    return view.nbytes - (array.ctypes.data - start)


class _MappedRegion:
    """Exposes mapped memory through the NumPy array interface while holding `owner`: the
    Buffer, or what keeps its memory mapped (a _Mapping, imported host pages)."""

    def __init__(self, buffer: Buffer, owner):
        self.owner = owner
        self.__array_interface__ = {"data": (buffer.address, False), "shape": (buffer.size,),
                                    "typestr": "|u1", "version": 3}


class _Mapping:
    """Mapped device memory, freed when the last reference goes: its Buffer's finalizer
    holds one until the buffer is released, each view made with keep_mapped one more
    (`regions`: those views' regions, while any lives the memory is not pooled)."""
    __slots__ = ("__weakref__", "regions")

    def __init__(self, core, memory):
        self.regions = weakref.WeakSet()
        device = core.device
        with _held_lock:
            held = _held.setdefault(core, _Held())
            held.mappings += 1
        fin = weakref.finalize(self, _free_mapping, core, device, memory)
        fin.atexit = False     # at exit the Context's close decides (see release_device)


class _Held:
    """Per device: mapped memory not yet freed, and the device handle once its Context
    closed while some of it was still viewed."""
    __slots__ = ("mappings", "device")

    def __init__(self):
        self.mappings = 0
        self.device = None


_held: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_held_lock = threading.Lock()


def _free_mapping(core, device, memory) -> None:
    vk.vkFreeMemory(device, memory, None)      # also unmaps it
    with _held_lock:
        held = _held[core]
        held.mappings -= 1
        last = held.device if not held.mappings else None
        if last is not None:
            held.device = None
    if last is not None:
        vk.vkDestroyDevice(last, None)


def release_device(core, device) -> None:
    """Destroy a closed Context's device (its children already released) now, or, while
    views still keep some of its memory mapped, once the last of them is gone."""
    with _held_lock:
        held = _held.get(core)
        if held is not None and held.mappings:
            held.device = device
            core.instance.keep()     # it must outlive the device, which may outlive exit
            return
    vk.vkDestroyDevice(device, None)


def _create_bound(core, size: int, memory_type_for, what: str, buffer_next=None,
                  alloc_next=None, allocation_size: int | None = None):
    """A storage buffer of `size` bytes bound to new memory of the type
    `memory_type_for(requirements)` picks, with optional pNext structs for its creation and
    its allocation; nothing leaks when a step fails. Returns (buffer, memory, type)."""
    device = core.device
    create_info = vk.VkBufferCreateInfo(pNext=buffer_next, size=size, usage=_usage(),
                                        sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE)
    with translated(f"creating a {_fmt(size)} buffer"):
        handle = vk.vkCreateBuffer(device, create_info, None)
    memory = None
    try:
        req = vk.vkGetBufferMemoryRequirements(device, handle)
        type_index = memory_type_for(req)
        alloc_info = vk.VkMemoryAllocateInfo(pNext=alloc_next,
                                             allocationSize=allocation_size or req.size,
                                             memoryTypeIndex=type_index)
        with translated(f"allocating {what}"):
            memory = vk.vkAllocateMemory(device, alloc_info, None)
            vk.vkBindBufferMemory(device, handle, memory, 0)
    except BaseException:
        if memory is not None:
            vk.vkFreeMemory(device, memory, None)
        vk.vkDestroyBuffer(device, handle, None)
        raise
    return handle, memory, type_index


class _Allocation:
    """A VkBuffer and its memory: destroyed when the last reference goes (its Buffer's,
    the buffer pool's, a pending submission's) or when the Context closes. A Buffer of
    kind 'device' lends only this to the submissions that use it (`in_flight`), so once
    the array is dropped its allocation goes back to the pool at once, although launches
    that use it may still be queued (buffer_pool.py says why that is safe)."""
    __slots__ = ("handle", "address", "serial", "memory_type", "size", "mapping",
                 "destroyer", "__weakref__")

    def __init__(self, core, handle, memory, memory_type: int, size: int, mapping=None,
                 address=None, keep=None):
        """`memory` None: `mapping` (a _Mapping) frees it once no view needs it; `keep`
        (imported host pages) lives until the memory is freed."""
        self.handle, self.address, self.serial = handle, address, next(_serials)
        # weakly: the destroyer holds it until the allocation is destroyed (a Context's
        # close included), then only views that keep the memory mapped do
        self.memory_type, self.size = memory_type, size
        self.mapping = None if mapping is None else weakref.ref(mapping)
        self.destroyer = core.track(self, _destroy_allocation, core, handle, memory,
                                    self.serial, mapping, keep)


def _destroy_allocation(core, handle, memory, serial, mapping, keep) -> None:
    """Forget the serial, destroy the VkBuffer and free its memory (a _Mapping frees its
    own once this, its last reference but for views, is gone)."""
    core.forget(serial)
    if core.device is not None:
        _destroy(core, handle, memory)


def _release(core, alloc: _Allocation, poolable, heap_size: int, device: bool) -> None:
    """The Buffer died (or was freed): its allocation goes to the buffer pool when it may,
    else this reference to it goes (it is destroyed once pending submissions drop theirs)."""
    mapping = alloc.mapping() if alloc.mapping is not None else None
    if core.device is not None and poolable[0] and alloc.destroyer.alive \
            and not (mapping is not None and mapping.regions):
        core.buffer_pool.put(alloc, heap_size, device)


def in_flight(buffer):
    """What a pending submission keeps alive for `buffer` (a Buffer, a Window or an Array):
    the allocation alone for kind 'device', whose memory the host touches only once the
    queue is idle (vk/array.py), so the array's memory may be lent again while the work
    is queued; the Buffer itself for the host-visible kinds, which the host writes
    directly (a staging buffer, a 'host' array), so they come back only once it is done."""
    if not isinstance(buffer, Buffer):
        buffer = buffer.buffer
    return buffer._alloc if buffer.kind == "device" else buffer


def _destroy(core, handle, memory) -> None:
    vk.vkDestroyBuffer(core.device, handle, None)
    if memory is not None:
        vk.vkFreeMemory(core.device, memory, None)


class Window:
    """A byte range of a Buffer, bound as a storage buffer of its own (descriptor offset and
    range). A device binds at most maxStorageBufferRange bytes per storage buffer (128 MiB
    on lavapipe, 4 GiB on NVIDIA) but allocates more; a view of a larger buffer binds the
    window around its elements instead of the whole buffer. Caches key it by
    (buffer serial, offset, size), and forget it with its buffer (`names`)."""
    __slots__ = ("buffer", "handle", "offset", "size", "nbytes", "serial")

    def __init__(self, buffer: Buffer, offset: int, size: int):
        self.buffer, self.handle, self.offset = buffer, buffer.handle, offset
        self.size = self.nbytes = size
        self.serial = (buffer.serial, offset, size)

    @property
    def alive(self) -> bool:
        return self.buffer.alive


def names(serials, serial: int) -> bool:
    """Whether a cache key's buffer serials name the buffer `serial` (itself or a window)."""
    return serial in serials or any(s.__class__ is tuple and s[0] == serial for s in serials)
