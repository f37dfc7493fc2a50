"""The parts a Program is declared with: resident arrays, queues, memsocks, stages, every()
and when() entries, the step counter, and the IR variables a program's shaders bind them
to. The Program class (_program.py) assembles them; the build, the runner and the session
read them without importing the Program."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .._errors import VkPersistError
from ..control import ControlField, control_words
from ..memsock import MemSock
from ..lang import ir
from ..lang.channels import ChannelFrontend, ChannelValue, register_channel_frontend
from ..lang.source import glsl_name
from ..lang import types as T
from ..lang.values import PyValue
from ..vk.array import Array

if TYPE_CHECKING:
    from ._program import Program

MAX_PERIODS = 32


class ProgramArray:
    """A resident array of a Program: stages index it like a kernel array argument; the host
    reads it with `numpy()` and replaces its contents with `set(data)`."""
    _program_resource = True

    def __init__(self, program: "Program", name: str, array: Array):
        self.program = program
        self.name = name
        self.array = array

    shape = property(lambda self: self.array.shape)
    dtype = property(lambda self: self.array.dtype)
    ndim = property(lambda self: len(self.array.shape))

    def __array__(self, dtype=None, copy=None):
        """`np.asarray(A)`: a copy of the contents, like `A.numpy()`."""
        out = self.numpy()
        return out if dtype is None else out.astype(dtype, copy=False)

    def numpy(self) -> np.ndarray:
        """A copy of the current contents (waits for running work on this program)."""
        self.program._require_idle(f"read array {self.name!r}")
        return self.array.numpy()

    def set(self, data) -> None:
        self.program._require_idle(f"write array {self.name!r}")
        data = np.asarray(data)
        if data.shape != self.shape:
            raise ValueError(f"array {self.name!r} has shape {self.shape}, got data of shape "
                             f"{data.shape}")
        self.array.copy_from(data.astype(self.dtype, copy=False))

    def __repr__(self) -> str:
        return f"<program array {self.name!r} {self.dtype} {self.shape}>"


class PairHalf(ProgramArray):
    """One name of an array pair (`prog.array_pair`): `role` 0 is the state a step reads
    (`A`), 1 the state it writes (`A_next`). Both live in one device array of shape
    (2, *shape), `storage`; which half each name means follows the parity of the step, so
    the pair swaps at every step end without a copy: stages index `A` at offset
    (step % 2) * size and `A_next` at the other half, and the host reads the half that
    holds the state now."""

    def __init__(self, program: "Program", name: str, storage: Array, role: int, partner: str):
        super().__init__(program, name, storage)
        self.role = role
        self.partner = partner

    shape = property(lambda self: self.array.shape[1:])
    ndim = property(lambda self: len(self.array.shape) - 1)
    size = property(lambda self: math.prod(self.shape))

    def _half(self) -> int:
        """The half of `storage` this name means now (the steps done so far decide)."""
        return (self.program.steps_done + self.role) & 1

    def numpy(self) -> np.ndarray:
        """A copy of the current contents: for `A`, the state after the steps done so far;
        for `A_next`, the state before the last step (what the next step overwrites)."""
        self.program._require_idle(f"read array {self.name!r}")
        return self.array[self._half()].numpy()

    def set(self, data) -> None:
        """Replace the contents: `A.set(x)` writes both halves (the state, and the one the
        next step writes, so elements no stage writes stay `x`); `A_next.set(x)` only its own."""
        self.program._require_idle(f"write array {self.name!r}")
        data = np.asarray(data)
        if data.shape != self.shape:
            raise ValueError(f"array {self.name!r} has shape {self.shape}, got data of shape "
                             f"{data.shape}")
        data = data.astype(self.dtype, copy=False)
        if self.role == 0:
            self.array.copy_from(np.stack([data, data]))
        else:
            self.array[self._half()] = data

    def swap_halves(self) -> None:
        """Exchange the halves' contents (reset_step to a step of the other parity keeps
        `A` the state it was)."""
        self.array.copy_from(self.array.numpy()[::-1].copy())

    def __repr__(self) -> str:
        which = "the state steps read" if self.role == 0 else "the state steps write"
        return f"<program array {self.name!r} {self.dtype} {self.shape}: {which} (pair " \
               f"with {self.partner!r})>"


class StepCounter:
    """`prog.step`: inside stages, the step being run (vkp.u32); on the host, `int(prog.step)`
    is the number of steps the program has completed."""
    _program_resource = True

    def __init__(self, program: "Program"):
        self.program = program

    def __index__(self) -> int:
        return self.program.steps_done

    __int__ = __index__

    def __repr__(self) -> str:
        return f"<{self.program.name} step {self.program.steps_done}>"


# queue header words (in control-placement memory, so the host reads them directly)
Q_TAIL, Q_HEAD, Q_DROPPED, Q_LO, Q_HI, Q_UNDRAINED, Q_ARGS = 0, 1, 2, 3, 4, 7, 8
QUEUE_HEADER_WORDS = 16      # LO/HI of parity s at Q_LO + 2s / Q_HI + 2s; ARGS: x, y, z
QUEUE_TYPES = (T.i32, T.u32, T.f32)


class ProgramQueue:
    """A bounded work queue of a Program. Stages push items (`q.push(item)`, False when
    the queue is full: the item is dropped and counted in `dropped`); a stage declared with
    `consumes=q` is called once per item until the queue is empty, items pushed meanwhile
    included. Between runs the host can `fill(items)` it and read `len(q)` and `items()`."""
    _program_resource = True

    def __init__(self, program: "Program", name: str, elem, capacity: int):
        self.program = program
        self.name = name
        self.type = T.QueueType(elem, capacity)
        self.dtype = elem.dtype
        self.capacity = capacity
        self.header, self._words = control_words(program.ctx, QUEUE_HEADER_WORDS)
        self.items_array = program.ctx.zeros(capacity, self.dtype)
        self._dropped_seen = 0

    def __len__(self) -> int:
        self.program._require_idle(f"read queue {self.name!r}")
        return int((self._words[Q_TAIL] - self._words[Q_HEAD]) & 0xFFFFFFFF)

    @property
    def dropped(self) -> int:
        """Items dropped so far because the queue was full."""
        self.program._usable(f"read queue {self.name!r}")
        return int(self._words[Q_DROPPED])

    def items(self) -> np.ndarray:
        """The waiting items, oldest first (a copy)."""
        n = len(self)
        head = int(self._words[Q_HEAD])
        data = self.items_array.numpy()
        return data[(head + np.arange(n)) % self.capacity]

    def fill(self, items) -> None:
        """Replace the queue's contents with `items` (the dropped count is kept)."""
        self.program._require_idle(f"fill queue {self.name!r}")
        data = np.asarray(items, dtype=self.dtype).reshape(-1)
        if data.size > self.capacity:
            raise ValueError(f"queue {self.name!r} holds {self.capacity} items, got {data.size}")
        full = np.zeros(self.capacity, self.dtype)
        full[:data.size] = data
        self.items_array.copy_from(full)
        self._words[Q_HEAD] = 0
        self._words[Q_TAIL] = data.size

    def free(self) -> None:
        self.header.free()
        self.items_array.free()

    def __repr__(self) -> str:
        return f"<program queue {self.name!r} of {self.type.elem}, capacity {self.capacity}>"


class QueuePush(ChannelValue):
    """`queue.push` inside a stage, before the call: the IR intrinsic queue_push, which the
    program's writer lays out (_codegen.py `queue_push`)."""
    __slots__ = ()

    def call(self, c, node):
        if len(node.args) != 1:
            raise c.src.error(node, "push(item) takes one item")
        var = self.var
        item = c.convert(c.value(c.expr(node.args[0]), node.args[0]), var.type.elem, node)
        var.written = True
        return ir.Intrinsic(T.bool_, c.src.loc(node), "queue_push", [var, item])


class QueueFrontend(ChannelFrontend):
    """A queue in stage code (lang/channels.py `register_channel_frontend`): `q.push(item)`."""

    def parameter(self, c, name, t):
        return c.bound_arrays[name]

    def attribute(self, c, var, node):
        if node.attr != "push":
            raise c.src.error(node, f"queues have .push(item), not .{node.attr}")
        return PyValue(QueuePush(var))


register_channel_frontend(T.QueueType, QueueFrontend())


# program socket cursor words: the host's release cursor, then the GPU's counters
C_RELEASED, C_HEAD, C_DROPPED = 0, 1, 2


class ProgramSocket(MemSock):
    """A MemSock a Program's stages write: one frame per step in which its stage runs.
    The step boundary reserves the frame's slot on the device, against the release cursor
    the host writes into live control memory. When the ring is full, policy "drop" drops
    the frame and counts it (`dropped`); policy "block" ends the epoch before the step, and
    the host starts the next one once the reader has released a frame (waiting at most the
    context's timeout). The frame is published once its stage has run everywhere. Read it like any MemSock: `poll`, `wait`, `async for frame
    in sock.frames()`."""
    _program_resource = True
    _freed_by = "prog.free()"

    def __init__(self, program: "Program", name, dtype, frame_shape, capacity, policy,
                 payload, frames):
        super().__init__(name, dtype, frame_shape, capacity=capacity, policy=policy,
                         payload=payload, ctx=program.ctx, frames=frames)
        self.program = program
        self.cursor, self._cursor = control_words(program.ctx, 4)
        self.buffers = (self.frame_buffer, self.header, self.cursor)

    @property
    def dropped(self) -> int:
        self._open("read its drop count")
        return int(self._cursor[C_DROPPED])

    def has_room(self) -> bool:
        """Whether the device can reserve another frame."""
        self._open("reserve frames")
        return ((int(self._cursor[C_HEAD]) - self.tail) & 0xFFFFFFFF) < self.capacity

    def _may_exist(self, seq: int) -> bool:
        return True                # reserved on the device; the header word decides

    def _release(self, seq: int) -> None:
        super()._release(seq)
        if self.cursor.alive:       # a frame may outlive its freed socket
            self._cursor[C_RELEASED] = self.tail & 0xFFFFFFFF

    def _bind(self):
        raise VkPersistError(f"MemSock {self.name!r} belongs to program "
                             f"{self.program.name!r}: its stages write it")


class Stage:
    def __init__(self, program: "Program", fn, domain, consumes: ProgramQueue | None = None):
        self.program = program
        self.fn = fn
        self.name = fn.__name__
        self.consumes = consumes
        if consumes is not None:
            self.domain = None
            self.size = consumes.capacity
            nparams = fn.__code__.co_argcount
            if nparams != 1:
                raise TypeError(f"stage {self.name} consumes queue {consumes.name!r}: it takes "
                                f"one parameter, the item; it has {nparams}")
            return
        if isinstance(domain, (int, np.integer)):
            domain = (domain,)
        if not isinstance(domain, tuple) or not 1 <= len(domain) <= 3 or \
                not all(isinstance(n, (int, np.integer)) and n > 0 for n in domain):
            raise ValueError(f"stage {self.name}: domain must be 1-3 positive ints, got {domain!r}")
        self.domain = tuple(int(n) for n in domain)
        self.size = math.prod(self.domain)
        if self.size >= 2**31:
            raise ValueError(f"stage {self.name}: domain {self.domain} has {self.size} indices; "
                             "at most 2**31 - 1 are supported")
        nparams = fn.__code__.co_argcount
        if nparams != len(self.domain):
            raise TypeError(f"stage {self.name}: its domain {self.domain} has {len(self.domain)} "
                            f"axes, so it takes {len(self.domain)} index parameters; it has "
                            f"{nparams}")

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"stage {self.name} runs on the GPU as part of its program: put it in "
                           "prog.loop(...) and call prog.run(steps)")

    def __repr__(self) -> str:
        if self.consumes is not None:
            return f"<stage {self.name} consuming queue {self.consumes.name!r}>"
        return f"<stage {self.name} over {self.domain}>"

    def param_types(self) -> list:
        if self.consumes is not None:
            return [self.consumes.type.elem]
        return [T.i32] * len(self.domain)


def _stages_of(what: str, stages) -> tuple:
    if not stages:
        raise TypeError(f"{what} needs at least one stage")
    for s in stages:
        if not isinstance(s, Stage):
            raise TypeError(f"{what}: {s!r} is not a stage (declare it with @prog.stage)")
    return stages


class Every:
    """`vkp.every(n, *stages)`: the stages run on steps divisible by n."""

    def __init__(self, n, stages):
        if isinstance(n, np.generic):
            raise TypeError(f"every(n, ...): got the NumPy value {n!r}. If it was read from a "
                            "control (ctl['name']), that is its value now, frozen for the "
                            "whole run: pass the field itself, ctl.name, for a period that "
                            "follows the control, or int(...) for a constant period")
        self.controls = None      # the ControlBuffer of a field handle, checked by loop()
        if isinstance(n, ControlField):
            n, self.controls = n.name, n.controls
        if isinstance(n, bool) or not isinstance(n, (int, str)):
            raise TypeError(f"every(n, ...): n must be a positive int, a control field (ctl.name) "
                            f"or its name, got {n!r}")
        if not isinstance(n, str) and n < 1:
            raise ValueError(f"every(n, ...): n must be >= 1, got {n}")
        self.n = n if isinstance(n, str) else int(n)
        self.stages = _stages_of("every(n, *stages)", stages)


class When:
    """`vkp.when(condition, *stages)`: the stages run on steps where `condition()` is true."""

    def __init__(self, condition, stages):
        fn = getattr(condition, "pyfunc", condition)     # a @vkp.func or a plain function
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TypeError(f"when(condition, ...): condition must be a function, got "
                            f"{condition!r}")
        if fn.__code__.co_argcount:
            raise TypeError(f"when(): condition {fn.__name__} must take no parameters; it "
                            "reads the program's arrays and controls as globals")
        self.condition = fn
        self.stages = _stages_of("when(condition, *stages)", stages)

    def __repr__(self) -> str:
        return f"when({self.condition.__name__})"


def when(condition, *stages) -> When:
    """Run `stages` on steps where `condition()` holds: a function of no parameters
    returning a bool, in the kernel language, reading program arrays and controls as they
    are when the step starts (after the previous step, before any stage of this one)."""
    return When(condition, stages)


def every(n, *stages) -> Every:
    """Run `stages` on steps divisible by `n`: an int, or a u32/i32/f32 control field of the
    program (`ctl.snap_every`, or its name "snap_every"), read at each step boundary, so a
    command changes the period of a running program (0 means never)."""
    return Every(n, stages)


class RunReport:
    """What `prog.run` did: `steps`, and `epochs`, the dispatches that ran them: megakernel
    epochs in mode "persistent", recorded batches of steps in mode "launch" (the repr
    says which)."""

    def __init__(self, mode: str, steps: int, epochs: int, participants: int | None):
        self.mode = mode
        self.steps = steps
        self.epochs = epochs
        self.participants = participants

    def __repr__(self) -> str:
        parts = f", participants={self.participants}" if self.participants is not None else ""
        what = "batches" if self.mode == "launch" else "epochs"
        return (f"vkpersist.RunReport(mode={self.mode!r}, steps={self.steps}, "
                f"{what}={self.epochs}{parts})")


def resource_vars(prog: Program, coherent: bool, sched_len: int
                  ) -> tuple[dict, list, ir.Var, ir.Var]:
    """Fresh IR variables for one shader of `prog`: (resources for the Unit, array and queue
    vars in binding order, the controls var, the scheduler-words var of `sched_len` words).
    A program's shapes are fixed when it is built, so its shaders carry them as literals
    (`static_shape`), not push constants: +8% on the 128³ stencil on the H200."""
    resources, arrays = {}, []
    for name, a in prog.arrays.items():
        # only stages touch it, between the grid barriers
        var = ir.Var(glsl_name(name), T.ArrayType(T.scalar_of_dtype(a.dtype), a.ndim),
                     "array_param", coherent=coherent, barrier_synced=True, static_shape=a.shape)
        resources[id(a)] = var
        arrays.append(var)
    for name, q in prog.queues.items():
        var = ir.Var(glsl_name(name), q.type, "queue")
        resources[id(q)] = var
        arrays.append(var)
    for name, sock in prog.sockets.items():
        # slot and seq come from the step words
        var = ir.Var(glsl_name(name), sock.type, "socket", scheduled=True,
                     static_shape=sock.frame_shape)
        resources[id(sock)] = var
        arrays.append(var)
    # the step boundary reads host writes with plain loads
    ctl_var = ir.Var("_vkp_controls", prog.ctl.type, "controls", coherent=True)
    resources[id(prog.ctl)] = ctl_var
    resources[id(prog.step)] = "step"
    sched = ir.Var("_vkp_sched", T.ArrayType(T.u32, 1), "array_param", coherent=coherent,
                   written=True, static_shape=(sched_len,))
    # the order Build binds the buffers in; an array pair's two names are one device
    # array, so they share its binding (two blocks declared on it): a pair costs one of the
    # device's storage-buffer bindings (32 per shader on lavapipe), not two
    seconds = {resources[id(a)]: resources[id(prog.arrays[a.partner])]
               for a in prog.arrays.values() if isinstance(a, PairHalf) and a.role == 1}
    ir.assign_bindings([v for v in arrays if v not in seconds] + [ctl_var, sched])
    for var, first in seconds.items():
        var.binding = first.binding
    # the megakernel's workgroups poll and exchange these words while they run; the
    # fallback's kernels only read what an earlier dispatch wrote, ordered by a pipeline
    # barrier, so there they may come from L1: every invocation of a stage reads its
    # step's words, and coherent loads of one address from all of them contend (2.2x
    # the launch mode's steps/s at 128³ on the H200, docs/measurements-log.md)
    return resources, arrays, ctl_var, sched


def period_text(period) -> str:
    if isinstance(period, str):
        return f"every(ctl.{period})"
    return f"every({period})" if isinstance(period, int) else repr(period)
