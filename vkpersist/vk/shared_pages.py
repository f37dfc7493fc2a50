"""SharedPages: host pages allocated once and imported by several devices at the same time.

One allocation of page-aligned host memory is seen three ways without a copy: by NumPy
(`pages.numpy(dtype, shape)`), and by every Context that imports it, as an Array
(`pages.array(ctx, dtype, shape)`) or as the ring of a MemSock (`MemSock(..., frames=pages)`).
Each import is a VkDeviceMemory of that device over the same physical pages
(VK_EXT_external_memory_host), so what one device writes, the host and the other devices
read in place (docs/pipelines.md says when they see it).

The extension's rules, checked at each import with errors that name them: the pointer
must be a multiple of the device's `minImportedHostPointerAlignment`, and so must the
number of bytes imported. SharedPages starts on, and rounds its size up to, a multiple of
the largest alignment of the devices found (at least the OS page size), so every device
of the machine can import it.

Lifetime: the pages outlive every import. Each import holds the pages (the device memory
is released before the pages can be unmapped), and `free()` refuses while any import is
alive or any NumPy view of the pages exists, naming them, instead of unmapping memory a
device or an array still uses.
"""
from __future__ import annotations

import gc
import mmap
import weakref

import numpy as np

from .._errors import OutOfDeviceMemory, UnsupportedError, VkPersistError
from .array import Array, check_dtype, check_shape
from .buffer import ImportedBuffer, _fmt
from .devices import list_devices


def _rule_alignment() -> int:
    """The alignment every device found can import: the largest minImportedHostPointerAlignment,
    and at least the OS page size (imports pin whole pages)."""
    return max([mmap.PAGESIZE] + [d.host_pointer_alignment for d in list_devices()])


class SharedPages:
    """`pages = vkp.SharedPages(nbytes)`: zeroed, page-aligned host memory that NumPy and
    several devices use at once. `alignment`: a power of two that is a multiple of the OS
    page size (default: what every device found requires)."""

    def __init__(self, nbytes: int, *, alignment: int | None = None):
        if isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)) or nbytes < 1:
            raise ValueError(f"SharedPages(nbytes): a positive number of bytes, got {nbytes!r}")
        if alignment is None:
            alignment = _rule_alignment()
        elif (isinstance(alignment, bool) or not isinstance(alignment, (int, np.integer))
              or alignment < mmap.PAGESIZE or alignment & (alignment - 1)
              or alignment % mmap.PAGESIZE):
            raise ValueError(f"SharedPages(alignment={alignment!r}): a power of two that is a "
                             f"multiple of the page size ({mmap.PAGESIZE} bytes)")
        self.nbytes = int(nbytes)
        self.alignment = int(alignment)
        self.size = -(-self.nbytes // self.alignment) * self.alignment   # whole aligned pages
        # anonymous mappings start on a page boundary; a larger alignment takes slack
        try:
            self._map = mmap.mmap(-1, self.size + self.alignment - mmap.PAGESIZE)
        except (OSError, OverflowError) as exc:   # the host's refusal, said as ours
            raise OutOfDeviceMemory(
                f"SharedPages({self.nbytes:,}): the host cannot map {_fmt(self.size)} "
                f"({getattr(exc, 'strerror', None) or exc}); host pages are the host's RAM "
                "(and swap): ask for less") from None
        self._bytes = self._aligned()
        self.address = self._bytes.ctypes.data
        self._imports: list = []       # (weakref to ImportedBuffer, what imported it)

    def __repr__(self) -> str:
        state = "freed" if self.freed else f"{len(self.imports)} imports"
        return f"vkpersist.SharedPages({_fmt(self.size)}, alignment={self.alignment}, {state})"

    def _aligned(self) -> np.ndarray:
        whole = np.frombuffer(self._map, np.uint8)
        start = -whole.ctypes.data % self.alignment
        return whole[start:start + self.size]

    @property
    def freed(self) -> bool:
        return self._map is None

    def _check_open(self, what: str) -> None:
        if self._map is None:
            raise VkPersistError(f"SharedPages: cannot {what}: the pages were freed")

    # ---- views -------------------------------------------------------------------------
    def numpy(self, dtype=np.uint8, shape=None, offset: int = 0) -> np.ndarray:
        """A zero-copy NumPy view of the pages from byte `offset`: `shape` elements of
        `dtype` (default: as many as fit). The view keeps the pages mapped: `free()` refuses
        while it lives."""
        self._check_open("make a NumPy view")
        dtype = np.dtype(dtype)
        count, shape = self._extent(dtype, shape, offset)
        raw = self._bytes[offset:offset + count * dtype.itemsize]
        return raw.view(dtype).reshape(shape)

    def _extent(self, dtype: np.dtype, shape, offset: int):
        if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)) \
                or not 0 <= offset < self.size or offset % dtype.itemsize:
            raise ValueError(f"SharedPages: offset must be a multiple of {dtype.itemsize} "
                             f"({dtype}) in 0..{self.size - 1}, got {offset!r}")
        if shape is None:
            shape = ((self.size - offset) // dtype.itemsize,)
        shape = check_shape(shape)
        count = int(np.prod(shape))
        if offset + count * dtype.itemsize > self.size:
            raise ValueError(f"SharedPages: {shape} of {dtype} from byte {offset} needs "
                             f"{_fmt(offset + count * dtype.itemsize)}, and the pages hold "
                             f"{_fmt(self.size)}; allocate vkp.SharedPages(nbytes) with nbytes "
                             f">= {offset + count * dtype.itemsize}")
        return count, shape

    # ---- imports -----------------------------------------------------------------------
    def array(self, ctx, dtype=np.float32, shape=None, offset: int = 0) -> Array:
        """`ctx`'s import of the pages as a vkp.Array (memory 'host') of `shape` elements of
        `dtype` from byte `offset` (a multiple of the alignment): kernels on `ctx` read and
        write the pages themselves. `arr.free()` (or the Context's close) ends the import."""
        dtype = check_dtype(dtype, ctx.info)
        count, shape = self._extent(dtype, shape, offset)
        buffer = self.import_into(ctx, offset, f"vkp.Array {shape} {dtype}")
        return Array(ctx, shape, dtype, "host", buffer=buffer)

    def import_into(self, ctx, offset: int, what: str) -> ImportedBuffer:
        """The pages from byte `offset` to the end, imported into `ctx` (a buffer that holds
        them until it is released); the extension's rules checked first."""
        self._check_open(f"import them into {ctx.info.name}")
        info = ctx.info
        if not info.external_memory_host:
            raise UnsupportedError(
                f"{info.name} cannot import SharedPages: it lacks VK_EXT_external_memory_host. "
                "Every device of a shared-pages pipeline needs it; with this device, copy "
                "instead (MemSock without frames=, then other_ctx.asarray(frame.data))")
        align = info.host_pointer_alignment
        address, size = self.address + offset, self.size - offset
        if address % align:
            raise ValueError(
                f"VK_EXT_external_memory_host: an imported host pointer must be a multiple of "
                f"minImportedHostPointerAlignment ({align} bytes on {info.name}); these pages "
                f"from byte {offset} start at {address:#x}: use an offset that is a multiple "
                f"of {align}, or SharedPages(nbytes, alignment={max(align, self.alignment)})")
        if size % align:
            raise ValueError(
                f"VK_EXT_external_memory_host: the size of an import must be a multiple of "
                f"minImportedHostPointerAlignment ({align} bytes on {info.name}); these pages "
                f"are {size} bytes from byte {offset}: allocate SharedPages(nbytes, "
                f"alignment={max(align, self.alignment)})")
        view = self._bytes[offset:]
        buffer = ImportedBuffer(ctx._core_alive(), view, what, size=size)
        self._imports.append((weakref.ref(buffer), f"{what} on {info.name}"))
        return buffer

    @property
    def imports(self) -> list[str]:
        """What imports the pages now (an import ends when its array or memsock is freed or
        its Context closes)."""
        live = [(ref, what) for ref, what in self._imports
                if (b := ref()) is not None and b.alive]
        self._imports = live
        return [what for _, what in live]

    def free(self) -> None:
        """Unmap the pages now (idempotent). Refused while a device imports them or a NumPy
        view of them exists: free those first (`sock.free()`, `arr.free()`, `ctx.close()`,
        `del view`). Without free(), the pages go when the last of those goes."""
        if self._map is None:
            return
        users = self.imports
        if users:
            raise VkPersistError(
                "SharedPages.free(): the pages are still imported by " + "; ".join(users)
                + ". Free those first (sock.free(), array.free() or ctx.close()): a device "
                "must never keep memory whose pages are gone")
        self._bytes = None
        try:
            self._map.close()
        except BufferError:
            # views that only unreachable objects still hold (an array dropped inside a
            # reference cycle) are not the caller's: collect them once before refusing
            gc.collect()
            try:
                self._map.close()
            except BufferError:
                self._bytes = self._aligned()
                raise VkPersistError(
                    "SharedPages.free(): NumPy views of the pages (from pages.numpy(), a "
                    "frame's data or an array's numpy_view()) are still alive; delete them "
                    "first (`del view`), since reading them after the pages are unmapped "
                    "would crash") from None
        self._map = None

    def __enter__(self) -> "SharedPages":
        return self

    def __exit__(self, *exc) -> None:
        self.free()
