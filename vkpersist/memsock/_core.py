"""MemSock: a ring of `capacity` frames in host-visible system memory.

Protocol, per-launch kernels (each launch of a kernel that takes the socket writes one
frame):
1. At launch the host reserves the next sequence number `seq` and its slot
   (`seq % capacity`) if the slot is free (released by the reader). When the ring is full,
   policy "drop" launches with slot -1 (the kernel writes nothing and the drop is counted,
   exactly) and policy "block" waits for the reader, up to the context timeout.
2. Any invocations of any workgroups write parts of the frame (`sock.frame[i, j] = v`) and
   payload fields (`sock.step = n`).
3. Every invocation ends with `sock.commit()`: each workgroup fences its writes and counts
   itself done on a device-memory counter; the last one resets the counter and publishes
   `seq + 1` into the slot's header word with release semantics.
4. The host reads frames in order: frame `seq` is complete once its slot's header word
   equals `seq + 1` (32-bit, compared for equality, so sequence numbers wrap safely). Its
   data is a zero-copy view until `release()`; the slot is reused only after that.

Lifetimes: a frame's view keeps the ring's memory mapped (buffer.py), so a frame taken
before `free()` or the Context's close still reads its data; a freed socket refuses to
poll, and a released frame refuses to show its data (its slot may hold a later frame).

Memory: frames and headers in host-cached system memory where the device has it (fast host
reads; GPU writes reach the host while kernels run, VULKAN_FACTS.md §2), the commit counter
in device memory.
"""
from __future__ import annotations

import inspect
import math
import time

import numpy as np

from .._errors import DeviceLimitError, DeviceTimeout, UnsupportedError, VkPersistError
from .._polling import poll_until, poll_until_async
from ..lang import types as T
from ..vk.buffer import Buffer, ImportedBuffer
from ..vk.context import Context, default_context
from ..vk.shared_pages import SharedPages

POLICIES = ("drop", "block")
EVENTS = ("frame", "message")
_DONE = object()
_PAYLOAD_TYPES = (T.i32, T.u32, T.f32)



# frame dtypes: 8- and 16-bit ones are storage types (the stage computes in 32 bits and the
# store narrows, as for arrays), for images and compact fields
_FRAME_DTYPES = tuple(np.dtype(t) for t in (np.uint8, np.int8, np.uint16, np.int16,
                                            np.float16, np.int32, np.uint32, np.float32,
                                            np.float64))
# itemsize (or "f8") -> (DeviceInfo feature, what it is)
_FRAME_FEATURE = {1: ("storage8", "8-bit storage buffers (storageBuffer8BitAccess)"),
                  2: ("storage16", "16-bit storage buffers (storageBuffer16BitAccess)"),
                  "f8": ("float64", "float64 in shaders (shaderFloat64)")}

class Frame:
    """One published frame. `data` is a zero-copy view, valid until `release()` (also on
    leaving a `with` block); `copy()` outlives it. `payload` is a copy."""

    def __init__(self, sock: "MemSock", seq: int):
        self.sock = sock
        self.seq = seq
        self.slot = seq % sock.capacity
        self._released = False
        self._data = sock._frame_view(self.slot)
        self.payload = sock._payload(self.slot)

    @property
    def data(self) -> np.ndarray:
        """The frame's data in the ring (no copy). Refused once the frame is released or
        its ring freed: the memory then holds another frame, or nothing of this one."""
        if not self.sock.frame_buffer.alive:
            raise VkPersistError(
                f"frame {self.seq} of MemSock {self.sock.name!r}: its ring was freed "
                f"({self.sock._freed_by}, or its Context closed); take frame.copy() before "
                "freeing it to keep the data")
        if self._released:
            raise VkPersistError(
                f"frame {self.seq} of MemSock {self.sock.name!r} was released: its slot may "
                "already hold a later frame; take frame.copy() before release() (or before "
                "the end of its `with` block) to keep the data")
        return self._data

    def copy(self) -> np.ndarray:
        return np.array(self.data, copy=True)

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._data = None
            self.sock._release(self.seq)

    def __enter__(self) -> "Frame":
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"vkpersist.Frame({self.sock.name!r}, seq={self.seq}{', released' if self._released else ''})"


class MemSock:
    def __init__(self, name: str, dtype, frame_shape, *, capacity: int = 8,
                 policy: str = "drop", payload: dict | None = None, ctx: Context | None = None,
                 frames=None):
        """`frames`: host pages of your own to hold the ring: a `vkp.SharedPages` (the ring
        starts at its first byte; other devices import the same pages, `vkp.Relay`), or an
        array of shape (capacity, *frame_shape) from `vkp.lowlevel.host_array`. The device
        writes frames straight into them (needs VK_EXT_external_memory_host). By default
        the ring is allocated in host-cached memory where the device has it."""
        self.ctx = ctx if ctx is not None else default_context()
        self.name = name
        self.dtype = np.dtype(dtype)
        elem = T.scalar_of_dtype(self.dtype) if self.dtype in _FRAME_DTYPES else None
        if elem is None:
            raise TypeError(f"MemSock {name!r}: frames of {self.dtype} are not supported; use "
                            f"one of {', '.join(str(d) for d in _FRAME_DTYPES)}")
        needs = _FRAME_FEATURE.get("f8" if self.dtype == np.float64 else self.dtype.itemsize)
        if needs is not None and not getattr(self.ctx.info, needs[0]):
            raise UnsupportedError(f"MemSock {name!r}: frames of {self.dtype} need {needs[1]}, "
                                   f"which {self.ctx.info.name} does not have; use float32, "
                                   "int32 or uint32 frames")
        if isinstance(frame_shape, int):
            frame_shape = (frame_shape,)
        self.frame_shape = tuple(int(n) for n in frame_shape)
        if not 1 <= len(self.frame_shape) <= 3 or any(n < 1 for n in self.frame_shape):
            raise ValueError(f"MemSock {name!r}: frame_shape must have 1-3 positive sizes, got "
                             f"{frame_shape!r}")
        if not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"MemSock {name!r}: capacity must be a positive int, got {capacity!r}")
        if policy not in POLICIES:
            raise ValueError(f"MemSock {name!r}: unknown policy {policy!r}; valid policies: "
                             f"{', '.join(POLICIES)}")
        self.capacity = capacity
        self.policy = policy
        fields = []
        for k, (pname, ptype) in enumerate((payload or {}).items()):
            if ptype not in _PAYLOAD_TYPES:
                raise TypeError(f"MemSock {name!r}: payload field {pname!r} must be vkp.i32, "
                                f"vkp.u32 or vkp.f32, got {ptype!r}")
            fields.append(T.ControlField(pname, ptype, capacity + k, 0, "gpu"))
        self.type = T.SocketType(elem, len(self.frame_shape), tuple(fields))
        self.frame_size = math.prod(self.frame_shape)
        core = self.ctx._core_alive()
        host_kind = "cached" if "cached" in self.ctx.info.memory_kinds else "host"
        self.pages = frames if isinstance(frames, SharedPages) else None
        if frames is None:
            self.frame_buffer = Buffer(core, capacity * self.frame_size * self.dtype.itemsize,
                                       host_kind)
        elif self.pages is not None:
            self.pages.numpy(self.dtype, (capacity, *self.frame_shape))    # the ring fits
            self.frame_buffer = self.pages.import_into(self.ctx, 0, f"MemSock {name!r} frames")
        else:
            want = (capacity, *self.frame_shape)
            if not isinstance(frames, np.ndarray) or frames.shape != want \
                    or frames.dtype != self.dtype:
                raise ValueError(
                    f"MemSock {name!r}: frames must be a {self.dtype} array of shape {want} "
                    f"(capacity, *frame_shape), got "
                    f"{getattr(frames, 'dtype', type(frames).__name__)} "
                    f"{getattr(frames, 'shape', '')}")
            self.frame_buffer = ImportedBuffer(core, frames, f"MemSock {name!r}: frames")
        self.header = Buffer(core, 4 * (capacity + capacity * len(fields)), host_kind)
        self.state = Buffer(core, 64, "device")
        self.buffers = (self.frame_buffer, self.header, self.state)
        self._header = self.header.host_view().view(np.uint32)     # check _open() first
        self._header[:] = 0
        from ..vk import commands
        commands.run_now(core, lambda cb: commands.fill_words(cb, self.state, 0, 64))
        self.shape = ()
        self.head = 0            # next sequence number to reserve
        self.tail = 0            # frames below this are released
        self.next_read = 0       # next sequence number poll() returns
        self._dropped = 0
        self._released = set()
        self.handlers: list = []        # @sock.on("frame")

    @property
    def dropped(self) -> int:
        """Frames dropped because the ring was full (policy "drop")."""
        return self._dropped

    def __repr__(self) -> str:
        return (f"vkpersist.MemSock({self.name!r}, {self.dtype}, frame_shape={self.frame_shape}, "
                f"capacity={self.capacity}, policy={self.policy!r})")

    # ---- producer side (called at kernel launch) -----------------------------------------
    def _reserve(self) -> tuple[int, int]:
        """(slot, seq) for the frame of the launch being submitted; slot -1 drops it."""
        if self.head - self.tail >= self.capacity:
            if self.policy == "drop":
                self._dropped += 1
                return -1, self.head & 0xFFFFFFFF
            deadline = time.perf_counter() + self.ctx.timeout
            while self.head - self.tail >= self.capacity:
                if time.perf_counter() > deadline:
                    raise DeviceTimeout(
                        f"MemSock {self.name!r} is full ({self.capacity} frames unreleased) and "
                        f"its policy is 'block': release frames, or read them in another thread, "
                        f"before launching more (waited {self.ctx.timeout:g} s)")
                time.sleep(0.0005)
        seq = self.head
        self.head += 1
        return seq % self.capacity, seq & 0xFFFFFFFF

    def _bind(self):
        """(buffers, push values) for a kernel launch that writes one frame."""
        self._open("launch a kernel that writes it")
        slot, seq = self._reserve()
        return list(self.buffers), [slot, seq, *self.frame_shape]

    def _open(self, what: str) -> None:
        """Refuse `what` once the socket's memory is released (its views would be dangling)."""
        if not self.frame_buffer.alive:
            why = ("its Context was closed" if self.ctx.closed
                   else f"it was freed ({self._freed_by})")
            raise VkPersistError(f"MemSock {self.name!r}: cannot {what}: {why}")

    _freed_by = "sock.free()"

    # ---- consumer side -------------------------------------------------------------------
    def _frame_view(self, slot):
        """Frame `slot`'s data, in a view that keeps the ring mapped while it lives."""
        start = slot * self.frame_size * self.dtype.itemsize
        raw = self.frame_buffer.host_view(keep_mapped=True)
        end = start + self.frame_size * self.dtype.itemsize
        return raw[start:end].view(self.dtype).reshape(self.frame_shape)

    def _payload(self, slot) -> dict:
        out = {}
        for f in self.type.payload:
            word = self._header[self.capacity + slot * len(self.type.payload)
                                + (f.word - self.capacity):][:1]
            out[f.name] = word.view(f.type.dtype)[0]
        return out

    def _may_exist(self, seq: int) -> bool:
        """Whether frame `seq` has been reserved (by a launch)."""
        return seq < self.head

    def poll(self) -> Frame | None:
        """The next frame in order if it is published, else None (never waits)."""
        self._open("read frames")
        seq = self.next_read
        if not self._may_exist(seq):
            return None
        header = int(self._header[seq % self.capacity])
        if header != ((seq + 1) & 0xFFFFFFFF):
            if header == (~(seq + 1) & 0xFFFFFFFF):     # published as cut short (glsl.py)
                self.next_read += 1
                self._release(seq)
                raise DeviceLimitError(
                    f"MemSock {self.name!r}: frame {seq} was written while an invocation "
                    f"was at {self.ctx.info.name}'s loop limit (65,535 iterations of a "
                    "loop), which cuts loops short silently, so its data may be incomplete; "
                    "it is not delivered. To fix it, loop less in each invocation: launch "
                    "more invocations (a larger grid, each doing a part), or split the "
                    "work into several launches; a GPU has no such limit. The next "
                    "synchronize names the kernel.")
            return None
        self.next_read += 1
        return Frame(self, seq)

    def wait(self, timeout: float | None = None) -> Frame:
        """The next frame, waiting up to `timeout` (default: the context's)."""
        limit = self.ctx.timeout if timeout is None else timeout
        return poll_until(self.poll, limit, lambda: (
            f"MemSock {self.name!r}: no frame within {limit:g} s (frames reserved: "
            f"{self.head}, read: {self.next_read})"))

    async def frames(self, timeout: float | None = None):
        """`async for frame in sock.frames():` under trio. Polls tightly (yielding to other
        tasks) for 1 ms after each frame, then backs off to 5 ms sleeps, so an idle reader
        costs little CPU. Raises DeviceTimeout when no frame arrives within `timeout` of
        the previous one (default: the context's timeout)."""
        limit = self.ctx.timeout if timeout is None else timeout
        last = time.perf_counter()
        while True:
            frame = await poll_until_async(
                self.poll, limit, lambda: f"MemSock {self.name!r}: no frame within {limit:g} s",
                start=last)
            last = time.perf_counter()    # the clock restarts at each frame's arrival
            yield frame

    # ---- handlers -----------------------------------------------------------------------
    def on(self, event: str):
        """Decorator: `@sock.on("frame")` registers a handler called with every frame, in
        order (a plain or an async function); the frame is released when the handlers
        return. Handlers run in `serve()`, which program sessions start for their memsocks."""
        if event not in EVENTS:
            raise ValueError(f"MemSock {self.name!r}: no event {event!r}; events: "
                             f"{', '.join(map(repr, EVENTS))} (\"message\" is the same as "
                             "\"frame\")")

        def register(handler):
            if not callable(handler):
                raise TypeError(f"@sock.on({event!r}) decorates a function, not {handler!r}")
            self.handlers.append(handler)
            return handler
        return register

    async def serve(self, until=None, timeout: float | None = None) -> None:
        """Under trio: call the handlers for every frame until `until` (a trio.Event) is set
        and every frame published by then is handled, or forever. DeviceTimeout when no
        frame comes within `timeout` (default: the context's; math.inf waits forever)."""
        limit = self.ctx.timeout if timeout is None else timeout

        def next_item():
            frame = self.poll()
            if frame is not None:
                return frame
            return _DONE if until is not None and until.is_set() else None

        while True:
            item = await poll_until_async(next_item, limit, lambda: (
                f"MemSock {self.name!r}: no frame within {limit:g} s"))
            if item is _DONE:
                return
            with item:
                for handler in list(self.handlers):
                    result = handler(item)
                    if inspect.isawaitable(result):
                        await result

    def __aiter__(self):
        """`async for frame in sock:` is `async for frame in sock.frames():`."""
        return self.frames()

    def _release(self, seq: int) -> None:
        self._released.add(seq)
        while self.tail in self._released:
            self._released.discard(self.tail)
            self.tail += 1

    def free(self) -> None:
        """Release the ring now. Frames already taken keep their data until released;
        the socket refuses further reads and launches."""
        for b in (*self.buffers, self.state):     # a program's socket binds no state
            b.free()
