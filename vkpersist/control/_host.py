"""ControlBuffer: named, typed words shared by the host and running kernels.

    ctrl = vkp.ControlBuffer(freq=vkp.f32(1.0), mode=vkp.u32(0), gains=np.zeros(4, np.float32),
                             status={"heartbeat": vkp.u32, "hot": vkp.u32})
    ctrl["freq"] = 2.0              # host writes; a running kernel sees it (when ctrl.live)
    ctrl["heartbeat"]               # host reads what the kernel wrote

    @vkp.kernel
    def step(ctrl: vkp.Controls, field: vkp.Array[vkp.f32]):
        f = ctrl.freq               # an atomic load with acquire semantics
        ctrl.heartbeat = 1          # an atomic store with release semantics

Keyword fields are written by the host (they take an initial value: `vkp.f32(1.0)`, a bare
type for zero, or a 1-d array of up to 64 32-bit elements); `status` fields are written by
kernels. The two groups live on separate 64-byte lines so host writes and GPU writes do not
share a cache line.

Placement: a running shader must see host writes. That holds only for some memory
(VULKAN_FACTS.md §1: on NVIDIA only device-local host-visible memory), so the first
ControlBuffer of a Context runs the bounded visibility self-test and uses the first memory
type that passes, device-local ones first. If none passes, `live` is False: kernels see the
values current at their launch, not changes made while they run.

Values: every host write (item assignment, the read-modify-write helpers, commands, a
program's `run.send`) goes through `control_value`, which refuses what the field cannot
hold instead of storing something else (None as NaN, 1e39 as inf, 2.5 as 2).

Withdrawing commands: the host may rewrite a queued command only while no kernel can be
reading the ring, i.e. while the Context has no work in flight (host atomics on device
memory are not atomic with the device's). A `send()` whose wait ends without the
acknowledgement (cancelled, timed out, interrupted) withdraws its command then; while
work runs, the command stays queued for it and is withdrawn at the next point the device
is idle (its next synchronize, e.g. the end of a program's epoch) if nothing applied it.
A withdrawn entry stays in the ring, redirected to `_cmd_void`, so sequence numbers and
acknowledgements are unchanged.
"""
from __future__ import annotations

import math
import numbers
import threading
import time
from typing import NamedTuple

import numpy as np

from .._errors import DeviceTimeout, VkPersistError
from .._polling import poll_until, poll_until_async
from ..lang import types as T
from ..vk import visibility
from ..vk.array import to_scalar
from ..vk.buffer import Buffer, in_flight
from ..vk.context import Context, default_context

LINE_WORDS = 16          # 64-byte lines
MAX_FIELD_ELEMENTS = 64


def _declared_limits(limits, fields) -> dict:
    """{name: (low, high)} checked: host fields of this buffer, closed ranges of numbers
    (None: unbounded, finite; math.inf: infinity allowed)."""
    if limits is None:
        return {}
    if not isinstance(limits, dict):
        raise TypeError(f"limits= takes a dict of field name: (low, high), got {limits!r}")
    out = {}
    for name, pair in limits.items():
        f = fields.get(name)
        if f is None or name.startswith("_") or f.side != "host":
            host = [n for n, x in fields.items() if x.side == "host" and not n.startswith("_")]
            raise ValueError(f"limits: {name!r} is not a host field of these controls (host "
                             f"fields: {', '.join(host) or 'none'})")
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(
                b is None or (isinstance(b, numbers.Real) and not isinstance(b, bool)
                              and not math.isnan(b)) for b in pair)):
            raise TypeError(f"limits[{name!r}] takes (low, high): numbers or None (no "
                            f"bound), got {pair!r}")
        low, high = pair
        if low is not None and high is not None and low > high:
            raise ValueError(f"limits[{name!r}] = {pair!r}: low is above high")
        out[name] = (low, high)
    return out


def _range_text(low, high) -> str:
    return (f"[{low:g}" if low is not None else "(-inf") + ", " + \
        (f"{high:g}]" if high is not None else "inf)")


def _field_spec(name, value, side):
    if isinstance(value, T.Scalar):
        t, init = value, np.zeros((), value.dtype)
    elif isinstance(value, np.generic):
        t, init = T.scalar_of_dtype(value.dtype), np.asarray(value)
    elif isinstance(value, np.ndarray):
        if value.ndim != 1 or not 1 <= value.size <= MAX_FIELD_ELEMENTS:
            raise ValueError(f"control field {name!r}: arrays must be 1-d with 1 to "
                             f"{MAX_FIELD_ELEMENTS} elements, got shape {value.shape}")
        t, init = T.scalar_of_dtype(value.dtype), value
    else:
        raise TypeError(f"control field {name!r}: give a typed value (vkp.f32(1.0), vkp.u32(0)), "
                        f"a type (vkp.u32) or a 1-d NumPy array, not {value!r}")
    if t not in (T.i32, T.u32, T.f32):
        raise TypeError(f"control field {name!r}: {t} is not supported; control words are "
                        "int32, uint32 or float32")
    return t, init, side


_F32 = np.dtype(np.float32)


def control_value(field: T.ControlField, value, what: str) -> np.generic:
    """`value` as `field`'s type (int32, uint32, float32), by the one rule of host scalars
    (vk/array.py's to_scalar, which kernel arguments, push constants and fill() follow):
    no None, strings or arrays, nothing outside the type's range (1e39 would be stored as
    inf in float32), nothing non-integral in an integer field. NaN and inf given as such
    convert (they are IEEE values); the buffer then refuses NaN in a host field, and inf
    unless the field's declared range includes it (ControlBuffer._within_limits). One rule
    more for controls: a bool for a float field is refused (flags are integer fields, where
    True is 1)."""
    dtype = field.type.dtype
    if isinstance(value, (bool, np.bool_)) and dtype == _F32:
        raise TypeError(f"{what} ({dtype}) takes a number, not the bool {value!r}")
    return to_scalar(value, dtype, what)[()]


class Ack(NamedTuple):
    """A command's acknowledgement: its sequence number and the step the kernel passed to
    `ctrl.apply(step)` when it applied it."""
    seq: int
    step: int


class ControlField:
    """`ctl.name` on the host: the field itself, not its value. Program loops take it where a
    value must follow the control while the program runs (`vkp.every(ctl.snap_every, ...)`,
    `prog.loop(..., steps=ctl.total)`); the value now is `ctl["name"]`."""
    __slots__ = ("controls", "name")

    def __init__(self, controls: "ControlBuffer", name: str):
        self.controls, self.name = controls, name

    def __repr__(self) -> str:
        return f"<vkpersist.ControlField {self.name!r}>"

    def _value_error(self, *_):
        raise TypeError(f"ctl.{self.name} is the control field itself (for vkp.every(), "
                        f"loop(steps=) and stages); its value now is ctl[{self.name!r}]")

    __index__ = __int__ = __float__ = __bool__ = _value_error
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _value_error
    __lt__ = __le__ = __gt__ = __ge__ = _value_error


class ControlBuffer:
    def __init__(self, ctx: Context | None = None, *, status: dict | None = None,
                 commands: int = 16, limits: dict | None = None,
                 _internal: dict | None = None, _internal_status: dict | None = None,
                 **fields):
        self.ctx = ctx if ctx is not None else default_context()
        if not isinstance(commands, int) or commands < 0:
            raise ValueError(f"commands must be an int >= 0 (the command ring's capacity), "
                             f"got {commands!r}")
        self.command_capacity = commands
        specs = {}
        for name, value in fields.items():
            specs[name] = _field_spec(name, value, "host")
        for name, value in (status or {}).items():
            if name in specs:
                raise ValueError(f"control field {name!r} is declared twice")
            specs[name] = _field_spec(name, value, "gpu")
        if not specs and not _internal:
            raise ValueError("a ControlBuffer needs at least one field")
        for name in specs:
            if not name.isidentifier() or name.startswith("_"):
                raise ValueError(f"control field name {name!r} must be an identifier not "
                                 "starting with '_'")
        for side, extra in (("host", _internal), ("gpu", _internal_status)):
            for name, t in (extra or {}).items():   # words a Program keeps for itself
                specs[name] = (t, np.zeros((), t.dtype), side)
        if commands:
            # the command ring: host-written head and entries (field word, value bits),
            # GPU-written tail and acknowledgement
            specs["_cmd_head"] = (T.u32, np.zeros((), np.uint32), "host")
            specs["_cmd_ring"] = (T.u32, np.zeros(2 * commands, np.uint32), "host")
            # withdrawn commands write the void word (last, so no other word moves)
            for name in ("_cmd_tail", "_ack_seq", "_ack_step", "_cmd_void"):
                specs[name] = (T.u32, np.zeros((), np.uint32), "gpu")
        layout, word = [], 0
        for side in ("host", "gpu"):
            word = (word + LINE_WORDS - 1) // LINE_WORDS * LINE_WORDS
            for name, (t, init, s) in specs.items():
                if s == side:
                    count = int(np.size(init)) if np.ndim(init) else 1
                    layout.append(T.ControlField(name, t, word, count if np.ndim(init) else 0,
                                                 side))
                    word += count
        words = (word + LINE_WORDS - 1) // LINE_WORDS * LINE_WORDS
        self.type = T.ControlsType(tuple(layout))
        self._fields = {f.name: f for f in layout}
        self.memory_type, self.live = control_placement(self.ctx)
        self.buffer, self._words = control_words(self.ctx, words)
        self.shape = ()
        self._host_lock = threading.Lock()
        self._send_lock = threading.Lock()     # a send's ring places and head
        self._orphans: list[tuple[int, int]] = []    # cancelled sends a kernel may still apply
        self._owner = None          # a Program sets its name here (for error messages)
        self._limits = _declared_limits(limits, self._fields)
        for name, (t, init, _) in specs.items():
            self[name] = init

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(n for n in self._fields if not n.startswith("_"))

    # ---- commands ------------------------------------------------------------------------
    def send_nowait(self, **values) -> int:
        """Queue a command that sets host fields; a kernel applies queued commands in order
        when it calls `ctrl.apply(step)`, all the fields of one command at the same step.
        Returns the sequence number to wait for (`wait_ack`, `send`). The command stays
        queued until a kernel applies it."""
        return self._enqueue(values)[1]

    def _enqueue(self, values: dict) -> tuple[int, int]:
        """Queue the commands; (ring index of the first, sequence number of the last)."""
        words = self._live("send commands")
        if not self.command_capacity:
            raise VkPersistError("this ControlBuffer has no command ring (commands=0)")
        if not values:
            raise TypeError("send() needs at least one field=value")
        entries = []
        for name, value in values.items():
            f = self._field(name)
            if name.startswith("_") or f.side != "host" or f.count:
                raise ValueError(f"commands set scalar host fields; {name!r} is not one (host "
                                 f"fields: {', '.join(self._host_scalars())})")
            item = control_value(f, value, f"command for control field {name!r}")
            self._within_limits(f, item, f"command for control field {name!r}")
            entries.append((f.word, int(np.array(item).view(np.uint32))))
        cap = self.command_capacity
        if len(entries) > cap:
            raise ValueError(
                f"a send of {len(entries)} fields needs {len(entries)} free places in the "
                f"command ring, which holds {cap}; send fewer fields at once or declare "
                f"the ControlBuffer with commands={len(entries)} or more")
        head_w = self._fields["_cmd_head"].word
        ring_w = self._fields["_cmd_ring"].word
        tail_w = self._fields["_cmd_tail"].word
        with self._send_lock:       # one sender at a time (GUI thread, trio task, ...)
            head = int(words[head_w])
            deadline = time.perf_counter() + self.ctx.timeout
            while (head - int(words[tail_w])) & 0xFFFFFFFF > cap - len(entries):
                if time.perf_counter() > deadline:
                    raise DeviceTimeout(
                        f"the command ring is full ({cap - len(entries) + 1} or more of its {cap} "
                        f"commands not yet applied) after {self.ctx.timeout:g} s: is a kernel "
                        "calling ctrl.apply(step)?")
                time.sleep(0.0002)
            for k, (word, bits) in enumerate(entries):
                entry = ring_w + 2 * ((head + k) % cap)
                words[entry] = word
                words[entry + 1] = bits
            # one publication for all of the send's fields, after its entries: a kernel
            # applies them all at one step (published one by one, a step could fall between
            # two of them, and its acknowledgement would name only the later one's step)
            _store_fence()
            words[head_w] = (head + len(entries)) & 0xFFFFFFFF
            return head, (head + len(entries)) & 0xFFFFFFFF

    def ack(self) -> Ack:
        """The latest acknowledgement (sequence number 0: nothing applied yet)."""
        words = self._live("read acknowledgements")
        seq_w, step_w = self._fields["_ack_seq"].word, self._fields["_ack_step"].word
        busy_since = None
        while True:   # a seqlock: the kernel writes busy, step, seq (see ctrl.apply)
            seq = int(words[seq_w])
            if seq == _BUSY:
                now = time.perf_counter()
                busy_since = now if busy_since is None else busy_since
                if now - busy_since > self.ctx.timeout:
                    raise DeviceTimeout(
                        f"the acknowledgement stayed half-written for {self.ctx.timeout:g} s: "
                        "the kernel applying commands stopped in the middle of it")
                continue
            step = int(words[step_w])
            if int(words[seq_w]) == seq:
                return Ack(seq, step)

    def _acked(self, seq: int) -> Ack | None:
        ack = self.ack()
        return ack if ((ack.seq - seq) & 0xFFFFFFFF) < 2**31 else None

    def wait_ack(self, seq: int, timeout: float | None = None) -> Ack:
        limit = self.ctx.timeout if timeout is None else timeout
        return poll_until(lambda: self._acked(seq), limit, lambda: _no_ack(seq, limit))

    async def send(self, *, timeout: float | None = None, **values) -> Ack:
        """Under trio: queue the commands and return their acknowledgement (the step at
        which a kernel applied them); DeviceTimeout if none comes within `timeout`.

        A send that returns no acknowledgement (cancelled, timed out, interrupted) takes
        effect only if a kernel already running applies it before the device is next
        idle; otherwise it is withdrawn (see the module's docs). To keep a command queued
        whatever happens to the waiter, use `send_nowait` and `wait_ack`."""
        return await self._send(values, timeout)

    async def _send(self, values: dict, timeout: float | None, ended=None,
                    ended_message=None) -> Ack:
        """`send`; `ended` (an event-like object): stop waiting once it is set, withdraw
        the command and raise VkPersistError(ended_message() + what became of it)."""
        first, seq = self._enqueue(values)
        limit = self.ctx.timeout if timeout is None else timeout

        def check():
            ack = self._acked(seq)
            if ack is None and ended is not None and ended.is_set():
                return _ENDED
            return ack
        try:
            ack = await poll_until_async(check, limit, lambda: _no_ack(seq, limit))
        except DeviceTimeout as exc:
            raise DeviceTimeout(f"{exc}; {self._abandon(first, seq)}") from None
        except BaseException:          # cancelled or interrupted: nobody waits for it
            self._abandon(first, seq)
            raise
        if ack is _ENDED:
            raise VkPersistError(f"{ended_message()}; {self._abandon(first, seq)}")
        return ack

    def _abandon(self, first: int, seq: int) -> str:
        """Withdraw the unacknowledged commands first..seq now if no kernel can be reading
        the ring, else when the device is next idle. Says what became of them."""
        if not self.buffer.alive:
            return "the ControlBuffer is gone, and the command with it"
        if self._acked(seq) is not None:
            return "it has been applied meanwhile"
        try:
            idle = self._ring_idle()
        except VkPersistError:     # a lost device: keep the error for whoever waits next
            idle = False
        if idle:
            self._withdraw(first, seq)
            return "the command was withdrawn"
        self._orphans.append((first, seq))
        core = self.ctx._core
        if self._sweep not in core.after_sync:
            core.after_sync.insert(0, self._sweep)   # before checks that may raise
        return ("the command stays queued for the work running now, which may still apply "
                "it; it is withdrawn once the device is idle if nothing did")

    def _ring_idle(self) -> bool:
        """No kernel can be reading the command ring: no work in flight binds it."""
        return not self.ctx._core.holds(in_flight(self.buffer))

    def _withdraw(self, first: int, seq: int) -> None:
        words = self._words
        tail = int(words[self._fields["_cmd_tail"].word])
        pending = (int(words[self._fields["_cmd_head"].word]) - tail) & 0xFFFFFFFF
        ring_w, void = self._fields["_cmd_ring"].word, self._fields["_cmd_void"].word
        for k in range((seq - first) & 0xFFFFFFFF):
            index = (first + k) & 0xFFFFFFFF
            if ((index - tail) & 0xFFFFFFFF) < pending:          # not applied yet
                words[ring_w + 2 * (index % self.command_capacity)] = void

    def _sweep(self) -> None:
        """Withdraw what cancelled sends left queued (the device is idle: after_sync)."""
        if self.buffer.alive:
            for first, seq in self._orphans:
                self._withdraw(first, seq)
        self._orphans.clear()
        core = self.ctx._core
        if self._sweep in core.after_sync:
            core.after_sync.remove(self._sweep)

    def __repr__(self) -> str:
        parts = ", ".join(f"{f.name}: {f.type}{f'[{f.count}]' if f.count else ''} ({f.side})"
                          for f in self._fields.values() if not f.name.startswith("_"))
        return f"vkpersist.ControlBuffer({parts}; live={self.live})"

    def _field(self, name):
        try:
            return self._fields[name]
        except KeyError:
            raise KeyError(f"no control field {name!r}; fields: {', '.join(self.fields)}") from None

    def __getattr__(self, name):
        """`ctl.field`: a ControlField handle (only names that are no attribute of the
        buffer get here)."""
        fields = self.__dict__.get("_fields")
        if fields is None or name.startswith("_") or name not in fields:
            have = ", ".join(self.fields) if fields is not None else "none yet"
            raise AttributeError(f"ControlBuffer has no attribute or control field {name!r} "
                                 f"(fields: {have})")
        return ControlField(self, name)

    def _host_scalars(self) -> list[str]:
        return [x.name for x in self._fields.values()
                if x.side == "host" and not x.count and not x.name.startswith("_")]

    def _live(self, what: str) -> np.ndarray:
        """The words, refusing `what` once they are released (reading them would crash)."""
        if not self.buffer.alive:
            name = self._owner or f"ControlBuffer({', '.join(self.fields)})"
            why = "its Context was closed" if self.ctx.closed else \
                f"it was freed ({'prog' if self._owner else 'ctrl'}.free())"
            raise VkPersistError(f"{name}: cannot {what}: {why}")
        return self._words

    def __getitem__(self, name):
        f = self._field(name)
        raw = self._live(f"read {name!r}")[f.word:f.word + max(f.count, 1)].view(f.type.dtype)
        return raw.copy() if f.count else raw[0]

    def __setitem__(self, name, value):
        f = self._field(name)
        what = f"control field {name!r}"
        if f.count:
            data = np.asarray(value)
            if data.shape != (f.count,):
                raise ValueError(f"{what} holds {f.count} values, got shape {data.shape}")
            vals = np.array([control_value(f, v, f"{what}[{k}]") for k, v in enumerate(data)],
                            f.type.dtype)
            for k, v in enumerate(vals):
                self._within_limits(f, v, f"{what}[{k}]")
        else:
            vals = np.array([control_value(f, value, what)], f.type.dtype)
            self._within_limits(f, vals[0], what)
        self._live(f"write {name!r}")[f.word:f.word + vals.size] = vals.view(np.uint32)

    def _within_limits(self, f: T.ControlField, value, what: str) -> None:
        """Refuse a value outside the field's declared range; in a float field, NaN always
        and infinities unless the range names them (a NaN or inf frequency ran the FDTD to
        NaN fields in 40 steps, acknowledged: issue 53)."""
        if f.name.startswith("_") or f.side != "host":
            return
        v = value.item()
        low, high = self._limits.get(f.name, (None, None))
        if isinstance(v, float):
            if math.isnan(v):
                raise ValueError(f"{what}: NaN is not a control value (every step that read it "
                                 "would compute NaN); give a number")
            if math.isinf(v) and not (v == low or v == high):
                raise ValueError(f"{what}: {v} is not finite; a float control takes finite "
                                 "values unless its declared range includes infinity "
                                 f"(limits={{{f.name!r}: (low, math.inf)}})")
        if (low is not None and v < low) or (high is not None and v > high):
            raise ValueError(f"{what}: {v!r} is outside its declared range "
                             f"{_range_text(low, high)}")

    # ---- read-modify-write on the host ------------------------------------------------------
    def add(self, name: str, delta):
        """Add `delta` to host field `name`; returns the old value. Atomic with respect to
        other host threads (e.g. a GUI thread and a trio task both steering)."""
        if isinstance(delta, (bool, np.bool_)) or not isinstance(delta, numbers.Real):
            raise TypeError(f"add({name!r}, delta): delta must be a number, got {delta!r}")
        return self._modify(name, lambda old: old.item() + delta, "add")

    def exchange(self, name: str, value):
        """Set host field `name` to `value`; returns the old value (atomic among host
        threads)."""
        return self._modify(name, lambda old: value, "exchange")

    def compare_exchange(self, name: str, expected, value):
        """Set host field `name` to `value` if it holds `expected`; returns the old value
        (atomic among host threads)."""
        return self._modify(name, lambda old: value if old == expected else old,
                            "compare_exchange")

    def _modify(self, name, update, what):
        f = self._field(name)
        if f.side != "host" or f.count or name.startswith("_"):
            raise ValueError(
                f"{what}({name!r}): read-modify-write works on scalar host fields (host "
                f"fields: {', '.join(self._host_scalars())}); "
                "fields kernels write cannot be updated atomically from the host (a host "
                "read-modify-write over PCIe is not atomic with the device's atomics): let a "
                "kernel update them, or send a command")
        with self._host_lock:
            old = self[name]
            self[name] = update(old)
            return old

    def _bind(self):
        """(buffers, push values) for a kernel launch that takes this buffer."""
        self._live("launch a kernel with it")
        if self._orphans and self._ring_idle():    # before a new kernel could apply them
            self._sweep()
        return [self.buffer], []

    def free(self) -> None:
        """Release the words now; every later use is refused."""
        self.buffer.free()
        self._sweep()


def _no_ack(seq: int, limit: float) -> str:
    return (f"command {seq} was not acknowledged within {limit:g} s (is a kernel calling "
            "ctrl.apply(step)?)")


_BUSY = 0xFFFFFFFF     # the acknowledgement is being rewritten
_ENDED = object()      # _send: what it waited on ended first
_fence_lock = threading.Lock()


def _store_fence() -> None:
    """Order host stores to mapped memory: BAR memory is usually write-combining, whose
    buffers x86 drains on a locked instruction, which acquiring a lock executes. Python
    has no plain fence; this is the cheapest portable one."""
    with _fence_lock:
        pass


def control_words(ctx: Context, count: int) -> tuple[Buffer, np.ndarray]:
    """A zeroed buffer of `count` uint32 words where running kernels see host writes
    (control_placement), and its host view."""
    memory_type, _ = control_placement(ctx)
    buffer = Buffer(ctx._core_alive(), count * 4, "host", memory_type=memory_type)
    words = buffer.host_view().view(np.uint32)
    words[:] = 0
    return buffer, words


def control_placement(ctx: Context) -> tuple[int, bool]:
    """(memory type, live) for control words on this context, measured once per context."""
    cached = getattr(ctx, "_control_placement", None)
    if cached is not None:
        return cached
    info = ctx.info
    candidates = visibility.preferred_order(info)
    if not candidates:
        raise VkPersistError(f"{info.name} has no host-visible coherent memory for controls")
    choice = (candidates[0], False)
    for mt in candidates:
        if visibility.probe(ctx, mt).live:
            choice = (mt, True)
            break
    ctx._control_placement = choice
    return choice
