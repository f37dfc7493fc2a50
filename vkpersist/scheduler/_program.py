"""Declaring a program: resident arrays, controls, stages and the loop that schedules them.

    prog = vkp.Program(ctx)
    T = prog.array("T", (n, n, n), np.float32, init=t0)
    T2 = prog.array("T2", (n, n, n), np.float32)
    ctl = prog.controls(alpha=vkp.f32(0.1))

    @prog.stage(domain=(n, n, n))
    def diffuse(i, j, k):                   # one call per index of the domain
        T2[i, j, k] = T[i, j, k] + ctl.alpha * laplacian(T, i, j, k)

    @prog.stage(domain=(n, n, n))
    def copy_back(i, j, k):
        T[i, j, k] = T2[i, j, k]

    prog.loop(diffuse, copy_back, vkp.every(10, record))
    prog.run(1000)                          # or: async with prog.session() as run: ...

Stages are kernel-language functions of their domain indices; they read and write the
program's arrays and controls as globals, may call @vkp.func functions, and read the step
being run as `prog.step`. The loop runs every step; `vkp.every(n, *stages)` runs stages on
steps divisible by n (an int, or the name of a control field, read at each step boundary).

Grid barriers between stages are derived from what the stages access: a stage waits for
every stage before it in the step that wrote an array it reads or writes, or read an
array it writes. Deriving them (rather than asking for declarations) keeps the program
text free of synchronisation, and it cannot be forgotten; the analysis is conservative
(whole arrays, not index ranges), which costs a barrier (~1-5 µs on a GPU) where a
finer analysis could prove one unnecessary.
"""
from __future__ import annotations

import math

import numpy as np

from .._errors import VkPersistError, user_frames_only
from ..control import ControlBuffer, ControlField, control_words
from ..memsock import MemSock
from ..lang import ir
from ..lang.source import glsl_name
from ..lang import types as T
from ..vk.array import Array
from ..vk.context import Context, default_context

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


class Program:
    """A simulation that lives on the device: declare its arrays, controls, queues,
    memsocks and stages, then its step with `loop(...)`; run it with `run(steps)` or
    `session()` (see docs/programs.md)."""

    def __init__(self, ctx: Context | None = None, *, name: str = "program"):
        self.ctx = ctx if ctx is not None else default_context()
        self.name = name
        self.arrays: dict[str, ProgramArray] = {}
        self.queues: dict[str, ProgramQueue] = {}
        self.sockets: dict[str, ProgramSocket] = {}
        self.stages: dict[str, Stage] = {}
        self.schedule: list = []          # [(Stage, every-bit or None)]
        self.periods: list = []           # bit -> every's n (int or control field) or When
        self.steps_field: str | None = None   # control field with the total step count
        self.ctl: ControlBuffer | None = None
        self.step = StepCounter(self)
        self.steps_done = 0
        self._runner = None
        self._session = None
        self._builds: dict = {}
        self._freed = False

    def __repr__(self) -> str:
        return (f"<vkpersist.Program {self.name!r}: {len(self.arrays)} arrays, {len(self.stages)} stages, "
                f"{self.steps_done} steps done>")

    # ---- declaration -------------------------------------------------------------------
    def _usable(self, what: str) -> None:
        """Refuse `what` on a freed program or a closed Context: its buffers are gone, and
        a dispatch bound to them would read and write released memory."""
        if self._freed:
            raise VkPersistError(f"{self.name}: cannot {what}: the program was freed "
                                 "(prog.free()); declare a new Program")
        if self.ctx.closed:
            raise VkPersistError(f"{self.name}: cannot {what}: its Context "
                                 f"({self.ctx.info.name}) is closed")

    def _check_open(self, what: str) -> None:
        self._usable(what)
        if self._builds:
            raise VkPersistError(f"{self.name}: cannot {what} after the program was compiled "
                                 "(first run or glsl()); declare everything first")

    def array(self, name: str, shape, dtype=np.float32, *, init=None) -> ProgramArray:
        """A resident device array, zero-filled or copied from `init`."""
        self._check_open("add arrays")
        self._check_name(name, "array")
        if init is not None:
            data = np.asarray(init)
            if shape is not None and tuple(data.shape) != tuple(np.atleast_1d(shape)):
                raise ValueError(f"array {name!r}: init has shape {data.shape}, the array {shape}")
            arr = self.ctx.asarray(data.astype(dtype, copy=False))
        else:
            arr = self.ctx.zeros(shape, dtype)
        handle = ProgramArray(self, name, arr)
        self.arrays[name] = handle
        return handle

    def queue(self, name: str, dtype, *, capacity: int) -> ProgramQueue:
        """A bounded work queue of vkp.i32, vkp.u32 or vkp.f32 items."""
        self._check_open("add queues")
        self._check_name(name, "queue")
        elem = T.resolve_type(dtype) if not isinstance(dtype, T.Scalar) else dtype
        if elem is None and dtype is not None:
            try:
                elem = T.scalar_of_dtype(np.dtype(dtype))
            except (TypeError, KeyError):
                elem = None
        if elem not in QUEUE_TYPES:
            raise TypeError(f"queue {name!r}: items must be vkp.i32, vkp.u32 or vkp.f32, got "
                            f"{dtype!r}")
        if not isinstance(capacity, (int, np.integer)) or not 1 <= capacity < 2**31:
            raise ValueError(f"queue {name!r}: capacity must be an int from 1 to 2**31 - 1, got "
                             f"{capacity!r}")
        q = ProgramQueue(self, name, elem, int(capacity))
        self.queues[name] = q
        return q

    def memsock(self, name: str, dtype, frame_shape, *, capacity: int = 8,
                policy: str = "drop", payload: dict | None = None,
                frames: np.ndarray | None = None) -> ProgramSocket:
        """A MemSock one stage of this program writes (`sock.frame[...] = v`, payload fields
        `sock.step = prog.step`): one frame per step in which that stage runs. `frames`:
        your own host pages for the ring (see vkp.MemSock)."""
        self._check_open("add memsocks")
        self._check_name(name, "memsock")
        sock = ProgramSocket(self, name, dtype, frame_shape, capacity, policy, payload,
                             frames)
        self.sockets[name] = sock
        return sock

    def _check_name(self, name, what: str) -> None:
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise ValueError(f"{what} name {name!r} must be an identifier not starting with '_'")
        if name in self.arrays or name in self.queues or name in self.sockets:
            raise ValueError(f"{self.name} already has an array, queue or memsock {name!r}")

    def controls(self, *, commands: int = 16, status: dict | None = None,
                 **fields) -> ControlBuffer:
        """The program's ControlBuffer: stages read its fields (`ctl.freq`); the host changes
        them with commands (`run.send(freq=2.0)`), applied at a step boundary."""
        self._check_open("declare controls")
        if self.ctl is not None:
            raise VkPersistError(f"{self.name} already has its controls; declare every field "
                                 "in one prog.controls(...) call")
        self.ctl = self._make_controls(commands, status, fields)
        return self.ctl

    def _make_controls(self, commands, status, fields) -> ControlBuffer:
        ctl = ControlBuffer(self.ctx, commands=max(commands, 1), status=status,
                            _internal={"_halt": T.u32, "_budget": T.u32},
                            _internal_status={"_step": T.u32, "_done": T.u32,
                                              "_reason": T.u32, "_parts": T.u32}, **fields)
        ctl._owner = f"the controls of program {self.name!r}"
        return ctl

    def stage(self, *, domain=None, consumes: ProgramQueue | None = None):
        """Decorator: a stage called once per index of `domain` (1-3 ints), or once per item
        of the queue it `consumes` until that queue is empty, each time it runs."""
        self._check_open("add stages")
        if (domain is None) == (consumes is None):
            raise TypeError("@prog.stage takes domain=(n, ...) or consumes=queue (one of them)")
        if consumes is not None and (not isinstance(consumes, ProgramQueue)
                                     or consumes.program is not self):
            raise TypeError(f"consumes= takes a queue of this program (prog.queue(...)), got "
                            f"{consumes!r}")

        def declare(fn):
            if not callable(fn) or not hasattr(fn, "__code__"):
                raise TypeError(f"@prog.stage decorates a Python function, not {fn!r}")
            st = Stage(self, fn, domain, consumes)
            if st.name in self.stages:
                raise ValueError(f"{self.name} already has a stage {st.name!r}")
            self.stages[st.name] = st
            return st
        return declare

    def loop(self, *entries, steps: str | None = None) -> None:
        """What one step runs, in order: stages, `vkp.every(n, *stages)` and
        `vkp.when(condition, *stages)`. `steps`: the name of a control field that holds
        how many steps the program runs in all; it then ends by itself when `prog.step`
        reaches that value, read at each step boundary (a command can extend or shorten a
        running program), and `run()` and `session()` need no step count."""
        self._check_open("change the loop")
        if isinstance(steps, ControlField):
            if steps.controls is not self.ctl:
                raise ValueError(f"loop(steps=ctl.{steps.name}): that field belongs to "
                                 "another ControlBuffer than this program's controls")
            steps = steps.name
        if steps is not None:
            self._period_field(steps, "loop(steps=...)")
            if self.ctl.type.field(steps).type == T.f32:
                raise ValueError(f"loop(steps={steps!r}): the step count must be an integer "
                                 "control field (vkp.u32 or vkp.i32)")
        schedule, periods = [], []
        for e in entries:
            if isinstance(e, Stage):
                schedule.append((self._own(e), None))
            elif isinstance(e, (Every, When)):
                if isinstance(e, Every) and isinstance(e.n, str):
                    self._period_field(e.n, f"every({e.n!r}, ...)")
                    if e.controls is not None and e.controls is not self.ctl:
                        raise ValueError(f"every(ctl.{e.n}, ...): that field belongs to another "
                                         "ControlBuffer than this program's controls")
                if len(periods) == MAX_PERIODS:
                    raise ValueError(f"at most {MAX_PERIODS} every(...) and when(...) entries "
                                     "per loop")
                periods.append(e.n if isinstance(e, Every) else e)
                schedule += [(self._own(s), len(periods) - 1) for s in e.stages]
            else:
                raise TypeError(f"loop() takes stages (declared with @prog.stage), "
                                f"vkp.every(n, *stages) and vkp.when(condition, *stages); "
                                f"{e!r} is not a stage")
        if not schedule:
            raise TypeError("loop() needs at least one stage")
        self.schedule, self.periods, self.steps_field = schedule, periods, steps

    def _own(self, st: Stage) -> Stage:
        if st.program is not self:
            raise ValueError(f"stage {st.name} belongs to program {st.program.name!r}")
        return st

    def _period_field(self, name: str, what: str) -> None:
        if self.ctl is None or name not in self.ctl.fields:
            have = ", ".join(self.ctl.fields) if self.ctl is not None else "none declared"
            raise ValueError(f"{what}: no control field {name!r} (fields: {have})")
        f = self.ctl.type.field(name)
        if f.side != "host" or f.count:
            raise ValueError(f"{what}: {name!r} must be a scalar host field")

    # ---- compiled forms ------------------------------------------------------------------
    @user_frames_only
    def glsl(self, mode: str = "persistent") -> str:
        """The GLSL that runs: the megakernel (mode="persistent"), or the boundary and stage
        kernels of the fallback (mode="launch"), concatenated."""
        from ._build import build_for
        self._usable("generate its GLSL")
        if mode not in ("persistent", "launch"):
            raise ValueError(f"mode must be 'persistent' or 'launch', got {mode!r}")
        return build_for(self, mode).source

    # ---- running ---------------------------------------------------------------------
    @user_frames_only
    def run(self, steps: int | None = None, *, mode: str = "auto", groups: int | None = None,
            local: int | None = None, timeout: float | None = None) -> "RunReport":
        """Run `steps` steps and wait (a script's way; under trio use `session`); with
        `loop(steps=field)`, at most `steps` (default: until the field's count is reached).
        Returns what ran (steps, epochs, mode, participants). Ctrl-C stops the device at the
        next step boundary before it raises."""
        from ._runner import runner_for
        self._usable("run")
        return runner_for(self, mode, groups, local).run(steps, timeout)

    @user_frames_only
    def session(self, *, steps: int | None = None, mode: str = "auto",
                groups: int | None = None, local: int | None = None,
                timeout: float | None = None):
        """`async with prog.session() as run:` under trio: the program runs in the
        background (until `steps` more steps, or until stopped) while the body reads
        progress, sends commands, pauses, resumes or stops it. Leaving the block stops the
        program (also when the body raises)."""
        from ._session import open_session
        from ._runner import runner_for
        self._usable("open a session")
        return open_session(runner_for(self, mode, groups, local), steps, timeout)

    def _require_idle(self, what: str) -> None:
        self._usable(what)
        session = self._session
        if session is not None and session.running:
            raise VkPersistError(f"{self.name}: cannot {what} while the program runs; pause "
                                 "or stop it first (await run.pause())")
        self.ctx.synchronize()

    def free(self) -> None:
        """Release everything the program holds on the device now (waiting for its work
        first). Idempotent; every later use of the program, its arrays, queues, memsocks
        and controls is refused. Frames already taken keep their data until released."""
        session = self._session
        if session is not None and not session.finished:
            raise VkPersistError(f"{self.name}: cannot free the program while its session "
                                 "runs; leave the `async with` block (or await run.stop()) "
                                 "first")
        if self._freed:
            return
        self._freed = True
        self._runner = None
        for b in self._builds.values():
            b.free()
        self._builds.clear()
        for a in self.arrays.values():
            a.array.free()
        for q in list(self.queues.values()) + list(self.sockets.values()):
            q.free()
        if self.ctl is not None:
            self.ctl.free()


class RunReport:
    """What `prog.run` did."""

    def __init__(self, mode: str, steps: int, epochs: int, participants: int | None):
        self.mode = mode
        self.steps = steps
        self.epochs = epochs
        self.participants = participants

    def __repr__(self) -> str:
        parts = f", participants={self.participants}" if self.participants is not None else ""
        return f"vkpersist.RunReport(mode={self.mode!r}, steps={self.steps}, epochs={self.epochs}{parts})"


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
    ir.assign_bindings(arrays + [ctl_var, sched])    # the order Build binds the buffers in
    # the megakernel's workgroups poll and exchange these words while they run; the
    # fallback's kernels only read what an earlier dispatch wrote, ordered by a pipeline
    # barrier, so there they may come from L1: every invocation of a stage reads its
    # step's words, and coherent loads of one address from all of them contend (2.2x
    # the launch mode's steps/s at 128³ on the H200, docs/benchmarks.md)
    return resources, arrays, ctl_var, sched
