"""Arrays: N-d typed views of one Buffer, with NumPy in and out.

An Array owns its buffer, or is a view of one that another Array owns (`base`): basic
indexing, `.T`, `transpose()` and `reshape()` make views with their own shape, element
strides and element offset, never a copy. Kernels take views as they are (a strided view
specialises the kernel to index through its strides: vkpersist/lang/glsl.py).

Reads (`numpy()`, `numpy_view()`) first wait for the context's pending launches, so a
result is never read half-written. Device-memory arrays move through a staging buffer;
host-visible ones are read and written in place. A strided view is read and written as
the smallest byte range of the buffer that holds it, after the context's pending work.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
import operator
import warnings
from collections.abc import Callable

import numpy as np

from .._errors import UnsupportedError, VkPersistError
from . import commands
from . import indexing
from .buffer import Window, in_flight
from .memory import check_kind

# dtype -> the DeviceInfo flag it needs (None: every device can store it)
_DTYPE_NEEDS = {
    np.dtype(np.bool_): None, np.dtype(np.int8): None, np.dtype(np.uint8): None,
    np.dtype(np.int16): "storage16", np.dtype(np.uint16): "storage16",
    np.dtype(np.float16): "storage16",
    np.dtype(np.int32): None, np.dtype(np.uint32): None, np.dtype(np.float32): None,
    np.dtype(np.int64): "int64", np.dtype(np.uint64): "int64", np.dtype(np.float64): "float64",
    np.dtype(np.complex64): None, np.dtype(np.complex128): "float64",
}
SUPPORTED_DTYPES = tuple(str(d) for d in _DTYPE_NEEDS)
_SEED_BYTES = 1 << 16    # fill(): elements whose words differ are uploaded this far, then copied


def check_dtype(dtype, info) -> np.dtype:
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{dtype!r} is not a NumPy dtype; supported: "
                        f"{', '.join(SUPPORTED_DTYPES)}") from None
    dt = dt.newbyteorder("=") if dt.byteorder == ">" else dt
    if dt not in _DTYPE_NEEDS:
        raise TypeError(f"vkpersist arrays do not support dtype {dt}; supported: "
                        f"{', '.join(SUPPORTED_DTYPES)}")
    need = _DTYPE_NEEDS[dt]
    if need and not getattr(info, need):
        can = [d for d, n in _DTYPE_NEEDS.items() if n is None or getattr(info, n)]
        raise UnsupportedError(f"{info.name} cannot use {dt} arrays (it lacks {need} support); "
                               f"dtypes it supports: {', '.join(map(str, can))}")
    return dt


def check_shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        out = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, got {shape!r}") from None
    if any(n < 0 for n in out):
        raise ValueError(f"shape must not have negative sizes, got {out}")
    return out


def to_scalar(value, dtype: np.dtype, what: str) -> np.ndarray:
    """`value` as a 0-d array of `dtype`, refusing every conversion that would change the
    value: 1.5 into an integer, 300 into uint8, -1 into an unsigned type, 1e39 into float32
    (NumPy would store inf, which for a simulation parameter is a typo, not a value), and
    anything that is not a real number (NumPy reads None as NaN and "1.5" as 1.5). inf and
    nan given as such are kept for float types. One rule for kernel arguments, push
    constants, control fields, commands and fill(); the errors name `what` and the type."""
    dtype = np.dtype(dtype)
    label = f"{what} ({dtype})"
    if dtype.kind == "c" and isinstance(value, (complex, np.complexfloating)):
        part = np.dtype(f"f{dtype.itemsize // 2}")      # each part by its float type's rule
        item = np.zeros((), dtype)
        item.real = to_scalar(value.real, part, f"{label}, real part")
        item.imag = to_scalar(value.imag, part, f"{label}, imaginary part")
        return item
    if value is None or isinstance(value, (str, bytes, complex, np.complexfloating)):
        raise TypeError(f"{label} takes a number, got {value!r}")
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise ValueError(f"{what}: expected a scalar, got shape {arr.shape}")
    if arr.dtype.kind in "biu":
        x = int(arr)
    elif arr.dtype.kind == "f":
        x = float(arr)
    elif isinstance(value, numbers.Real):  # Fraction, ints beyond 64 bits, ...
        x = value
    else:
        raise TypeError(f"{label} takes a number, got {value!r}")
    if dtype.kind in "biu":
        try:
            n = int(x)
        except (OverflowError, ValueError):     # inf, nan
            n = None
        if n is None or n != x:
            raise TypeError(f"{label} takes an integer, got {value!r}")
        lo, hi = (0, 1) if dtype.kind == "b" else (np.iinfo(dtype).min, np.iinfo(dtype).max)
        if not lo <= n <= hi:
            raise TypeError(f"{label}: {value!r} is out of {dtype}'s range {lo}..{hi}")
        return np.array(n, dtype)
    if isinstance(x, float) and not math.isfinite(x):
        return np.array(x, dtype)          # inf and nan are values the caller chose
    with np.errstate(over="ignore"):
        try:
            item = arr.astype(dtype) if arr.dtype.kind in "biuf" else np.array(float(x), dtype)
        except OverflowError:              # an int beyond float64
            item = np.array(np.inf, dtype)
    if not np.isfinite(item):
        raise TypeError(f"{label}: {value!r} is beyond {dtype}'s range "
                        f"(±{np.finfo(dtype).max:.8g}) and would be stored as inf; give inf "
                        "itself if that is what you mean")
    return item


def window_room(info) -> int:
    """The most bytes a view may span and still bind as one window of its buffer
    (`Array._window`): the device's limit less a window start's alignment."""
    return info.max_storage_buffer_range - max(info.storage_offset_alignment, 16)


@dataclasses.dataclass(frozen=True)
class NumPyBehaviour:
    """What a device array asks the array layer above this one for (`Array._numpy`): the
    runtime declares it, vkpersist/_core fills it in, once, at import."""
    # (numpy function, the array it was called on) -> the device implementation, or None
    function: Callable
    # (ufunc, method, inputs, kwargs) -> result or NotImplemented: NumPy's ufuncs and the
    # operators (`x + 1`, `np.sin(x)`, from NumPy's operator mixin)
    ufunc: Callable
    # (src view, dst contiguous Array) -> None: a copy through a kernel, for views too
    # strided for a buffer copy and for dtype conversions
    kernel_copy: Callable
    # (src, dst view) -> None: dst[...] = src in any layouts, broadcast and converted
    assign: Callable
    # index arrays and masks: .is_advanced(key), .get(array, key), .set(array, key, value)
    indexing: object


class Array(np.lib.mixins.NDArrayOperatorsMixin):
    """A typed N-d array in device memory. Create with `ctx.asarray`, `ctx.empty`,
    `ctx.zeros`, `ctx.full` or `vkp.to_device`. The class is the kernel annotation too:
    `vkp.Array[vkp.f32]` (1-d), `vkp.Array[vkp.f32, 3]`, `vkp.Array[vkp.vec4]` (backed by
    an (n, 4) float32 array)."""

    # Array[elem, ndim] -> the kernel type it names: set by the kernel language
    # (lang/types.py), which sits above this runtime layer
    _annotation = None
    # NumPy's behaviour on device arrays (ufuncs and operators, NumPy functions, kernel
    # copies, assignment between layouts, index arrays): a NumPyBehaviour installed by the
    # array layer above this one (vkpersist/_core). None: a bare runtime, where copies and
    # assignments go through the host and NumPy's functions are refused.
    _numpy = None
    # arrays stay hashable by identity although `==` is element-wise (it returns an array)
    __hash__ = object.__hash__
    # what the kernel language recognises a device array by, without importing this layer:
    # a kernel that reads one from its globals binds it by reference (lang/frontend.py)
    _vkp_device_array = True

    def __class_getitem__(cls, item):
        if cls._annotation is None:
            raise TypeError("vkpersist.Array[...] annotations need the kernel language: "
                            "import vkpersist")
        return cls._annotation(item)

    def __init__(self, ctx, shape, dtype, memory: str = "device", *, buffer=None):
        """`buffer`: an existing Buffer of this context and kind, large enough, to use
        instead of a new one (vk/shared_pages.py passes host pages a device imported)."""
        check_kind(memory)
        self.ctx = ctx
        self.shape = check_shape(shape)
        self.dtype = check_dtype(dtype, ctx.info)
        self.memory = memory
        self.size = math.prod(self.shape)
        self.nbytes = self.size * self.dtype.itemsize
        self.buffer = buffer if buffer is not None else \
            ctx._core_alive().allocate(self.nbytes, memory)
        self.base = None                          # the Array owning the memory, for views
        self._offset = 0                          # in elements
        self._estrides = indexing.c_strides(self.shape)
        # row-major without gaps; _plain: and from the buffer's first byte, which is what
        # kernels index without strides (views are specialised: see ArrayType.strided)
        self._contiguous = self._plain = True

    def _view(self, shape, estrides, offset) -> "Array":
        view = object.__new__(Array)
        view.ctx, view.dtype, view.memory, view.buffer = (self.ctx, self.dtype, self.memory,
                                                          self.buffer)
        view.shape, view._estrides, view._offset = tuple(shape), tuple(estrides), offset
        view.size = math.prod(view.shape)
        view.nbytes = view.size * self.dtype.itemsize
        view.base = self.base if self.base is not None else self
        view._contiguous = indexing.is_c_contiguous(view.shape, view._estrides)
        view._plain = view._offset == 0 and view._contiguous
        return view

    @property
    def strides(self) -> tuple[int, ...]:
        """Bytes to step along each axis, as NumPy's."""
        return tuple(s * self.dtype.itemsize for s in self._estrides)


    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return (f"vkpersist.Array(shape={self.shape}, dtype={self.dtype}, memory={self.memory!r}, "
                f"device={self.ctx.info.name!r})")

    def __str__(self) -> str:
        """The values, as NumPy and CuPy print them (`print(vkp.sum(x))` shows 45.0): a
        copy to the host, after the pending launches; the repr stays the description."""
        return str(self.numpy())

    def __array__(self, dtype=None, copy=None):
        out = self.numpy()
        return out if dtype is None else out.astype(dtype, copy=False)

    def __array_function__(self, func, types, args, kwargs):
        """NEP 18: `np.sum(dx)` runs `vkp.sum` on the device, every NumPy function that
        vkpersist has under the same name likewise (vkpersist/_core/dispatch.py). Any other
        NumPy function is refused by name rather than run on a silent host copy
        (`np.asarray(dx)` is the explicit copy)."""
        if not all(issubclass(t, (Array, np.ndarray)) for t in types):
            return NotImplemented
        impl = Array._numpy.function(func, self) if Array._numpy is not None else None
        if impl is None:
            name = f"{func.__module__}.{func.__name__}".replace("numpy.core.", "numpy.") \
                if hasattr(func, "__name__") else repr(func)
            raise TypeError(f"{name} has no device implementation for vkpersist arrays; "
                            "call np.asarray(x) (a copy to the host) first, or see "
                            "docs/arrays.md for the NumPy functions that run on the device")
        return impl(*args, **kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if Array._numpy is None:
            return NotImplemented
        return Array._numpy.ufunc(ufunc, method, inputs, kwargs)

    # ---- reading ---------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """A NumPy copy of the contents (waits for pending launches first)."""
        self._check_alive()
        lo, hi = self._byte_span()
        # the wait and the host's copy in one hold of the Context's lock: another thread's
        # fill or launch is issued wholly before the read or wholly after it, never half
        # seen (a download goes through the queue, which orders it)
        with self.ctx._core_alive().lock:
            self.ctx.synchronize()
            if self.buffer.host_visible:
                raw = self.buffer.host_view()[lo:hi].copy()
            else:
                raw = self.ctx._staging().download(self.buffer, hi - lo, offset=lo)
        if self._contiguous:
            return raw.view(self.dtype).reshape(self.shape)
        return self._strided(raw, lo).copy()

    def _window(self, limit: int):
        """(the Window of this view's buffer around its elements, the view's element offset
        in it) for a buffer larger than the device binds at once (`limit` bytes)."""
        lo, hi = self._byte_span() if self.size else (0, 0)     # empty: any window works
        itemsize = self.dtype.itemsize
        align = max(self.ctx.info.storage_offset_alignment, itemsize)   # powers of two
        # windows start at multiples of half the limit and bind the whole limit, so views
        # that move along a buffer (a loop over x[i:i + n]) share a few descriptor sets
        # instead of making one per offset; a view longer than half the limit gets its own
        half = limit // 2 // align * align
        start = lo // half * half
        if hi - start > limit:
            start = lo // align * align
        size = min(limit // 4 * 4, self.buffer.size - start)
        if hi - start > size:
            raise UnsupportedError(
                f"a view {self.shape} {self.dtype} spans {hi - lo} bytes of its buffer; "
                f"{self.ctx.info.name} binds at most {limit} bytes per storage buffer "
                f"(maxStorageBufferRange): pass it to kernels in parts of at most "
                f"{(limit - align) // itemsize} elements (views such as x[i:j])")
        return Window(self.buffer, start, size), self._offset - start // itemsize

    def _span_bytes(self) -> int:
        """How many bytes of the buffer the view's elements span (gaps included)."""
        lo, hi = self._byte_span()
        return hi - lo

    def _byte_span(self) -> tuple[int, int]:
        lo, hi = indexing.span(self.shape, self._estrides, self._offset)
        return lo * self.dtype.itemsize, hi * self.dtype.itemsize

    def _strided(self, raw: np.ndarray, lo: int) -> np.ndarray:
        """This view over `raw`, the bytes of the buffer from byte `lo` on."""
        first = self._offset * self.dtype.itemsize - lo
        return np.lib.stride_tricks.as_strided(raw[first:].view(self.dtype), self.shape,
                                               self.strides)

    def numpy_view(self) -> np.ndarray:
        """A zero-copy NumPy view of host-visible memory ('host', 'cached', 'rebar').

        Waits for pending launches, then returns memory the GPU may write again later:
        call `ctx.synchronize()` before reading it after further launches. The view keeps
        the memory mapped until it is garbage-collected, even past `free()` or the
        Context's close: it then holds the last contents, and no launch sees it again."""
        self._check_alive()
        if self.memory == "device":
            raise UnsupportedError(
                "numpy_view() needs host-visible memory, and this array lives in 'device' "
                "memory; use .numpy() for a copy, or create the array with memory='host', "
                "'cached' or 'rebar'")
        self.ctx.synchronize()
        view = self.buffer.host_view(keep_mapped=True)
        lo, hi = self._byte_span()
        if self._contiguous:
            return view[lo:hi].view(self.dtype).reshape(self.shape)
        return self._strided(view[lo:hi], lo)

    def copy_to_host(self, ary=None, stream=0) -> np.ndarray:
        """numba.cuda's spelling of `.numpy()`: a NumPy copy, or the contents written into
        the NumPy array `ary` (returned). `stream` is accepted and ignored."""
        out = self.numpy()
        if ary is None:
            return out
        ary[...] = out
        return ary

    # ---- writing ---------------------------------------------------------------------
    def copy_from(self, src) -> "Array":
        """Copy `src` (an Array or anything NumPy accepts) into this array. Shapes must match;
        the dtype is converted when NumPy's same-kind casting allows it."""
        self._check_alive()
        if isinstance(src, Array):
            src._check_alive()
            if src.ctx is not self.ctx:
                raise VkPersistError("copy_from() between arrays of different contexts; "
                                     "go through .numpy()")
            if src.shape != self.shape or src.dtype != self.dtype:
                raise ValueError(f"copy_from(): source is {src.shape} {src.dtype}, this array is "
                                 f"{self.shape} {self.dtype}; they must match")
            if not (src._contiguous and self._contiguous):
                if Array._numpy is not None:
                    Array._numpy.assign(src, self)
                    return self
                return self.copy_from(src.numpy())
            n, so, do = self.nbytes, src._byte_span()[0], self._byte_span()[0]
            if src.buffer is self.buffer and so < do + n and do < so + n and so != do:
                return self.copy_from(src.copy())    # overlapping regions: copied first
            if n:   # queued for 'device' arrays; host-visible kinds see it at once (fill())
                run = commands.submit_now if self.memory == "device" else commands.run_now
                run(self.ctx._core_alive(),
                    lambda cb: commands.copy(cb, src.buffer, self.buffer, n, src_offset=so,
                                             dst_offset=do),
                    keep=(in_flight(src), in_flight(self)))
            return self
        data = np.asarray(src)
        if data.shape != self.shape:
            raise ValueError(f"copy_from(): source shape {data.shape} does not match the "
                             f"array's shape {self.shape}")
        if data.dtype != self.dtype and not np.can_cast(data.dtype, self.dtype, "same_kind"):
            raise TypeError(f"copy_from(): cannot convert {data.dtype} to {self.dtype} "
                            "safely; convert it explicitly with .astype()")
        self._write(np.asarray(data, dtype=self.dtype))
        return self

    def copy_to_device(self, ary, stream=0) -> "Array":
        """numba.cuda's spelling of `copy_from` (`stream` is accepted and ignored)."""
        return self.copy_from(ary)

    def fill(self, value) -> "Array":
        """Set every element to `value` (converted to the array's dtype). A 'device' array's
        fill is queued behind the pending launches, nothing waits: one repeated word where
        it is one (any zeros: complex64 zeros went through the host, 77 ms for 275 MB on an
        H100), else a seed doubled by copies. Host-visible kinds are written by the host once
        the pending work is done, so their `numpy_view()` shows the values at once."""
        self._check_alive()
        item = to_scalar(value, self.dtype, "fill()")
        with self.ctx._core_alive().lock:       # as issued, among threads (numpy())
            self._fill(item)
        return self

    def _fill(self, item) -> None:
        words = np.full(4 // self.dtype.itemsize or 1, item, dtype=self.dtype).view(np.uint32)
        whole = self.nbytes == self.buffer.nbytes       # the padding to a word may be filled
        if not self._plain:
            self._write(np.broadcast_to(item, self.shape))
        elif self.buffer.host_visible and not self._queued():
            self.buffer.host_view()[:self.nbytes].view(self.dtype)[:] = item
        elif self.size and (words == words[0]).all() and (whole or self.nbytes % 4 == 0):
            size = self.buffer.size if whole else self.nbytes
            commands.submit_now(self.ctx._core_alive(), lambda cb: commands.fill_words(
                cb, self.buffer, int(words[0]), size), keep=(in_flight(self),))
        elif self.nbytes > _SEED_BYTES:        # a seed of elements, doubled on the device
            self._write_bytes(np.full(_SEED_BYTES // self.dtype.itemsize, item,
                                      dtype=self.dtype).view(np.uint8))
            commands.submit_now(self.ctx._core_alive(), lambda cb: commands.repeat_prefix(
                cb, self.buffer, _SEED_BYTES, self.nbytes), keep=(in_flight(self),))
        else:
            self._write_bytes(np.full(self.size, item, dtype=self.dtype).view(np.uint8))

    def _queued(self) -> bool:
        """Whether a write goes through the queue rather than the host: for 'device'
        arrays while launches may still run (one may still read the old contents). The
        host-visible kinds are for host access (`numpy_view()`), so their writes wait for
        the pending work and are visible at once. Launches batched but not yet submitted
        (`ctx.batched()`) count as pending."""
        core = self.ctx._core_alive()
        if self.memory != "device":
            self.ctx.synchronize()
            return False
        if core.batch is not None and core.batch.dispatches:
            return True
        if core.pending:
            core.retire()
        return core.pending

    def _write(self, data: np.ndarray) -> None:
        """Store `data` (this array's shape and dtype): a contiguous view as its bytes, a
        strided one by reading its byte span, writing through the strides and storing the
        span back (after the context's pending work, so no launch writes between)."""
        if self._contiguous:
            self._write_bytes(np.ascontiguousarray(data).reshape(-1).view(np.uint8),
                              self._byte_span()[0])
            return
        lo, hi = self._byte_span()
        with self.ctx._core_alive().lock:       # read, change, store back: one turn
            self.ctx.synchronize()
            if self.buffer.host_visible:
                self._strided(self.buffer.host_view()[lo:hi], lo)[...] = data
                return
            raw = self.ctx._staging().download(self.buffer, hi - lo, offset=lo)
            self._strided(raw, lo)[...] = data
            self._write_bytes(raw, lo)

    def _write_bytes(self, raw: np.ndarray, offset: int = 0) -> None:
        """Store bytes at `offset`: by the host into host-visible memory when `_queued()`
        says so, else through the queue (staging.py), behind the pending launches and
        without waiting for them."""
        with self.ctx._core_alive().lock:       # the check and the host's copy: one turn
            if self.buffer.host_visible and not self._queued():
                self.buffer.host_view()[offset:offset + raw.size] = raw
                return
        self.ctx._staging().upload(self.buffer, raw, offset=offset)

    # ---- views and copies ------------------------------------------------------------
    def __getitem__(self, key) -> "Array":
        """Basic indexing as NumPy's (integers, slices, ..., None): a view, never a copy;
        a full integer index gives a 0-d view (`float(a[3])`, `a[3].item()` read it)."""
        self._check_alive()
        if Array._numpy is not None and Array._numpy.indexing.is_advanced(key):
            return Array._numpy.indexing.get(self, key)      # index arrays and masks: a gather
        shape, strides, offset = indexing.index(self.shape, self._estrides, self._offset, key)
        return self._view(shape, strides, offset)

    def __setitem__(self, key, value) -> None:
        """`a[key] = value` with NumPy's broadcasting and casting (NumPy's rules for what
        converts: `int_array[0] = 1.7` stores 1, 300 into uint8 raises OverflowError)."""
        if Array._numpy is not None and Array._numpy.indexing.is_advanced(key):
            self._check_alive()
            Array._numpy.indexing.set(self, key, value)      # index arrays and masks: a scatter
            return
        view = self[key]
        if isinstance(value, Array) and value.ctx is self.ctx and value.shape == view.shape \
                and value.dtype == view.dtype:
            view.copy_from(value)
            return
        if isinstance(value, Array) and value.ctx is self.ctx and Array._numpy is not None:
            Array._numpy.assign(value, view)       # broadcast and converted on the device
            return
        data = value.numpy() if isinstance(value, Array) else value
        host = np.empty(view.shape, view.dtype)
        host[...] = data
        view._write(host)

    @property
    def T(self) -> "Array":
        return self.transpose()

    def transpose(self, *axes) -> "Array":
        """A view with the axes permuted (reversed when none are given), as NumPy's."""
        self._check_alive()
        shape, strides = indexing.transpose(self.shape, self._estrides, axes)
        return self._view(shape, strides, self._offset)

    def reshape(self, *shape, order: str = "C") -> "Array":
        """A view with a new shape (one axis may be -1) where the elements are contiguous;
        a reshaped copy otherwise, as NumPy does. Only order='C'."""
        if order != "C":
            raise ValueError(f"reshape(order={order!r}): vkpersist arrays are row-major; "
                             "only order='C' is supported")
        self._check_alive()
        new = indexing.reshape_shape(self.size, shape)
        src = self if self._contiguous else self.copy()
        return src._view(new, indexing.c_strides(new), src._offset)

    def ravel(self) -> "Array":
        return self.reshape(-1)

    def copy(self) -> "Array":
        """A new contiguous array on the device holding this one's elements."""
        return self.astype(self.dtype)

    def astype(self, dtype, copy: bool = True) -> "Array":
        """A contiguous copy converted to `dtype` on the device, with NumPy's conversions
        (float to int truncates; out-of-range values are as undefined as in NumPy). With
        copy=False the array itself is returned when nothing needs converting."""
        self._check_alive()
        dtype = check_dtype(dtype, self.ctx.info)
        if not copy and dtype == self.dtype and self._contiguous:
            return self
        if self.dtype.kind == "c" and dtype.kind != "c":
            if dtype.kind != "b":
                # NumPy's rule: complex to real keeps the real part, with its warning
                warnings.warn("Casting complex values to real discards the imaginary part",
                              np.exceptions.ComplexWarning, stacklevel=2)
                return self.real.astype(dtype)
            return self != 0
        out = Array(self.ctx, self.shape, dtype, self.memory)
        if dtype == self.dtype and self._contiguous:
            out.copy_from(self)
        elif self.size and Array._numpy is not None and 1 <= self.ndim <= 3 \
                and self.buffer.nbytes < 2**31 * self.dtype.itemsize:
            Array._numpy.kernel_copy(self, out)
        else:
            out.copy_from(self.numpy().astype(dtype))
        return out

    # ---- complex parts -----------------------------------------------------------------
    @property
    def real(self) -> "Array":
        """The real parts: of a complex array a float view of the same memory (writing it
        writes the array, as NumPy's `.real`); of a real array the array itself."""
        return self._part(0) if self.dtype.kind == "c" else self

    @property
    def imag(self) -> "Array":
        """The imaginary parts: of a complex array a float view of the same memory, as
        NumPy's; of a real array a new array of zeros (NumPy's is read-only zeros)."""
        if self.dtype.kind == "c":
            return self._part(1)
        return self.ctx.zeros(self.shape, self.dtype, self.memory)

    def _part(self, k: int) -> "Array":
        """The real (k=0) or imaginary (k=1) parts of a complex array: a float view with
        twice the element strides (NumPy's memory layout: interleaved pairs)."""
        self._check_alive()
        view = self._view(self.shape, tuple(2 * s for s in self._estrides), 2 * self._offset + k)
        view.dtype = np.dtype(f"f{self.dtype.itemsize // 2}")
        view.nbytes = view.size * view.dtype.itemsize
        return view

    def conjugate(self) -> "Array":
        """The complex conjugate, element-wise (np.conjugate): a new array."""
        return np.conjugate(self)

    conj = conjugate

    def item(self):
        """The one element of a size-1 array, as a Python scalar."""
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self.numpy().item()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        return bool(self.item())

    def _require_plain(self, what: str) -> None:
        """For consumers that bind the whole buffer (raw GLSL kernels, programs)."""
        if self.base is not None and not self._plain:
            raise UnsupportedError(f"{what} takes whole arrays, and this is a view with offset "
                                   f"{self._offset} and strides {self.strides}; pass "
                                   "view.copy() (a contiguous copy) instead")

    # ---- NumPy's method spellings of the reductions and products (vkpersist/_core/reduction.py,
    # linalg.py), through the table of NumPy functions ---------------------------------
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return np.sum(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def nonzero(self) -> tuple:
        return np.nonzero(self)

    def squeeze(self, axis=None) -> "Array":
        return np.squeeze(self, axis=axis)

    def swapaxes(self, axis1, axis2) -> "Array":
        return np.swapaxes(self, axis1, axis2)

    def take(self, indices, axis=None, out=None, mode="raise"):
        return np.take(self, indices, axis=axis, out=out, mode=mode)

    def repeat(self, repeats, axis=None) -> "Array":
        return np.repeat(self, repeats, axis=axis)

    def sort(self, axis=-1, kind=None, order=None) -> None:
        """Sort in place along `axis`, as NumPy's method (vkpersist/_sorting/sort.py)."""
        self[...] = np.sort(self, axis=axis, kind=kind, order=order)

    def argsort(self, axis=-1, kind=None, order=None) -> "Array":
        return np.argsort(self, axis=axis, kind=kind, order=order)

    def searchsorted(self, v, side="left", sorter=None) -> "Array":
        return np.searchsorted(self, v, side=side, sorter=sorter)

    def clip(self, min=None, max=None, out=None):
        return np.clip(self, min, max, out=out)

    def diagonal(self, offset=0, axis1=0, axis2=1) -> "Array":
        return np.diagonal(self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        return np.trace(self, offset, axis1, axis2, dtype, out)

    def tolist(self):
        """The elements as nested Python lists (a copy to the host, as NumPy's tolist)."""
        return self.numpy().tolist()

    def get(self, stream=None, order="C", out=None) -> np.ndarray:
        """CuPy's spelling of `.numpy()`: a NumPy copy (into `out` when given)."""
        if out is not None:
            out[...] = self.numpy()
            return out
        return self.numpy()

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    def __contains__(self, value) -> bool:
        return bool(np.any(self == value))

    def __complex__(self) -> complex:
        return complex(self.item())

    def __index__(self) -> int:
        if self.size != 1 or self.dtype.kind not in "iub":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self.item())

    def flatten(self, order: str = "C") -> "Array":
        """A contiguous 1-d copy (ravel() is a view where it can be)."""
        return self.reshape(-1, order=order).copy()

    def round(self, decimals=0, out=None):
        return np.round(self, decimals=decimals, out=out)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return np.prod(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return np.mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return np.var(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return np.std(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return np.min(self, axis=axis, out=out, keepdims=keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        return np.max(self, axis=axis, out=out, keepdims=keepdims)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        return np.argmin(self, axis=axis, out=out, keepdims=keepdims)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        return np.argmax(self, axis=axis, out=out, keepdims=keepdims)

    def any(self, axis=None, out=None, keepdims=False):
        return np.any(self, axis=axis, out=out, keepdims=keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        return np.all(self, axis=axis, out=out, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        return np.cumsum(self, axis=axis, dtype=dtype, out=out)

    def dot(self, b, out=None):
        return np.dot(self, b, out=out)

    def __matmul__(self, other):
        return np.matmul(self, other)

    def __rmatmul__(self, other):
        return np.matmul(other, self)

    # ---- lifetime --------------------------------------------------------------------
    def free(self) -> None:
        """Release the memory now instead of at garbage collection. Waits for pending
        launches first. Memory that views from numpy_view() still show is freed when the
        last of them is gone; until then they read the last contents."""
        if self.base is not None:
            raise VkPersistError("free() on a view: the memory belongs to its base array "
                                 f"{self.base!r}; free that one (every view of it ends too)")
        self.buffer.free()

    def _check_alive(self) -> None:
        if not self.buffer.alive:
            raise VkPersistError("this array was freed (or its Context closed)")
