"""Declaring a program: resident arrays, controls, stages and the loop that schedules them.

    prog = vkp.Program(ctx)
    T, T_next = prog.array_pair("T", (n, n, n), np.float32, init=t0)   # swapped each step
    ctl = prog.controls(alpha=vkp.f32(0.1))

    @prog.stage(domain=(n, n, n))
    def diffuse(i, j, k):                   # one call per index of the domain
        T_next[i, j, k] = T[i, j, k] + ctl.alpha * laplacian(T, i, j, k)

    prog.loop(diffuse, vkp.every(10, record))
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

import contextlib
import math
import os
import threading

import numpy as np

from .._errors import UnsupportedError, VkPersistError, user_frames_only
from ..control import ControlBuffer, ControlField
from ..lang import types as T
from ..lang.bounds import debug_default
from ..lang.source import glsl_name
from ..vk.context import Context, default_context
from . import _checkpoint
from ._build import build_for
from ._checkpoints import Checkpoints
from ._declare import (MAX_PERIODS, QUEUE_TYPES, Every, PairHalf, ProgramArray, ProgramQueue,
                       ProgramSocket, RunReport, Stage, StepCounter, When, every, when)
from ._runner import launch_shape, runner_for
from ._session import open_session

__all__ = ["Program", "RunReport", "every", "when"]


# the names the generated GLSL derives from a declaration's (scheduler/_codegen.py,
# lang/glsl.py): its buffer blocks, an array's word view for float atomics, a queue's words
# and items, a memsock's frames, header, cursor and its step's frame slot and sequence
_DERIVED = {"array": ("buffer", "bits", "bits_buffer"),
            "queue": ("q", "q_buffer", "items", "items_buffer"),
            "memsock": ("frames", "frames_buffer", "header", "header_buffer", "cursor",
                        "cursor_buffer", "slot", "seq")}


class Program:
    """A simulation that lives on the device: declare its arrays, controls, queues,
    memsocks and stages, then its step with `loop(...)`; run it with `run(steps)` or
    `session()` (see docs/programs.md)."""

    def __init__(self, ctx: Context | None = None, *, name: str = "program",
                 debug: bool | None = None):
        if debug is not None and not isinstance(debug, bool):
            raise TypeError(f"Program(debug=...) takes True or False, got {debug!r}")
        self.ctx = ctx if ctx is not None else default_context()
        self.name = name
        # check every index of its stages on the device (lang/bounds.py); the first one out
        # of range raises vkp.BoundsError from run() or the session, with its Python line
        self.debug = debug_default() if debug is None else debug
        self.arrays: dict[str, ProgramArray] = {}
        self._glsl_names: dict[str, str] = {}     # generated name: the declaration it is of
        self.queues: dict[str, ProgramQueue] = {}
        self.sockets: dict[str, ProgramSocket] = {}
        self.stages: dict[str, Stage] = {}
        self.schedule: list = []          # [(Stage, every-bit or None)]
        self.periods: list = []           # bit -> every's n (int or control field) or When
        self.steps_field: str | None = None   # control field with the total step count
        self.ctl: ControlBuffer | None = None
        self._step = StepCounter(self)
        self.steps_done = 0
        self._runner = None
        self._session = None
        self._builds: dict = {}
        self._freed = False
        self._cut: str | None = None     # why it refuses to run (_refuse())
        # one run or session at a time: a second thread's run was let through and left
        # prog.step behind the device for good (issue 53); held by the thread that runs
        self._busy = threading.Lock()
        self._busy_thread: int | None = None
        self._busy_what = ""

    def __repr__(self) -> str:
        return (f"<vkpersist.Program {self.name!r}: {len(self.arrays)} arrays, {len(self.stages)} stages, "
                f"{self.steps_done} steps done>")

    @property
    def step(self) -> StepCounter:
        """In stages, the step being run (steps count from 0); on the host, `int(prog.step)`
        is the number of steps completed. Read-only: `prog.reset_step()` sets the count."""
        return self._step

    @step.setter
    def step(self, value) -> None:
        raise AttributeError(f"{self.name}: prog.step is the device's step counter and cannot "
                             "be assigned (the device would carry on counting); use "
                             "prog.reset_step(n) to make the next step run as step n")

    def reset_step(self, step: int = 0) -> None:
        """Make the next step run as step `step` (default 0): `prog.step` in stages and
        `every(n)` periods count from there, `int(prog.step)` reads `step`. Arrays, queues,
        memsocks and controls are kept as they are (restart a simulation by also setting
        its arrays: `A.set(initial)`). Refused while a session runs; allowed while it is
        paused, and the session then resumes from `step`."""
        self._require_idle("reset its step count")
        if isinstance(step, (bool, np.bool_)) or not isinstance(step, (int, np.integer)) \
                or not 0 <= step < 2**32:
            raise ValueError(f"{self.name}: reset_step(step) takes an int from 0 to 2**32 - 1 "
                             f"(the step the program runs next), got {step!r}")
        if self._cut is not None:      # the state it refused to run on is the caller's now
            self._cut = None
            if self._runner is not None:
                self._runner.resume = 0
            self.ctl["_resume"] = 0    # a half-done step is not resumed
        if (self.steps_done ^ int(step)) & 1:      # the halves' meaning would flip
            for a in self.arrays.values():
                if isinstance(a, PairHalf) and a.role == 0:
                    a.swap_halves()
        self.steps_done = int(step)

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

    def _check_bindable(self, what: str, elements: int, dtype) -> None:
        """Refuse, before allocating, a buffer larger than one storage-buffer binding may
        span (maxStorageBufferRange: 4 GiB on NVIDIA, 128 MiB on lavapipe): bound whole,
        the driver would not refuse it, and what a stage reads past the range is not
        defined (lavapipe happens to run it). As launches of kernels refuse it."""
        item = np.dtype(dtype).itemsize
        limit = self.ctx.info.max_storage_buffer_range
        if elements * item > limit:
            raise UnsupportedError(
                f"{self.name}: {what} would be {elements * item:,} bytes, and "
                f"{self.ctx.info.name} binds at most {limit:,} bytes per storage buffer "
                f"(maxStorageBufferRange), so no stage could reach all of it: split it into "
                f"arrays of at most {limit // item:,} elements")

    def array(self, name: str, shape, dtype=np.float32, *, init=None) -> ProgramArray:
        """A resident device array, zero-filled or copied from `init`."""
        self._check_open("add arrays")
        names = self._check_name(name, "array")
        if init is not None:
            data = np.asarray(init)
            if shape is not None and tuple(data.shape) != tuple(np.atleast_1d(shape)):
                raise ValueError(f"array {name!r}: init has shape {data.shape}, the array {shape}")
            self._check_bindable(f"array {name!r}", data.size, dtype)
            arr = self.ctx.asarray(data.astype(dtype, copy=False))
        else:
            self._check_bindable(f"array {name!r}", math.prod(np.atleast_1d(shape).tolist()),
                                 dtype)
            arr = self.ctx.zeros(shape, dtype)
        handle = ProgramArray(self, name, arr)
        self.arrays[name] = handle
        self._glsl_names.update(names)
        return handle

    def array_pair(self, name: str, shape, dtype=np.float32, *, init=None,
                   next_name: str | None = None) -> tuple:
        """Double buffering: `A, A_next = prog.array_pair("A", shape, dtype, init=...)`.
        Stages read the state as `A` and write the new one into `A_next`; at every step end
        the pair swaps (no copy: the step's parity picks which device half each name
        means), so the next step reads what this one wrote. The host's `A.numpy()` always
        reads the current state. `init` fills both halves (so elements no stage writes keep
        it); `next_name` defaults to NAME + "_next"."""
        self._check_open("add arrays")
        next_name = f"{name}_next" if next_name is None else next_name
        if next_name == name:
            raise ValueError(f"array_pair({name!r}): next_name must differ from the name")
        names = self._check_name(name, "array")
        names.update(self._check_name(next_name, "array", names))
        shape = tuple(np.atleast_1d(shape).tolist())
        self._check_bindable(f"array pair {name!r} (both halves are one buffer)",
                             2 * math.prod(shape), dtype)
        if init is not None:
            data = np.asarray(init)
            if tuple(data.shape) != shape:
                raise ValueError(f"array pair {name!r}: init has shape {data.shape}, the array "
                                 f"{shape}")
            storage = self.ctx.asarray(np.stack([data, data]).astype(dtype, copy=False))
        else:
            storage = self.ctx.zeros((2, *shape), dtype)
        pair = (PairHalf(self, name, storage, 0, next_name),
                PairHalf(self, next_name, storage, 1, name))
        self.arrays[name], self.arrays[next_name] = pair
        self._glsl_names.update(names)
        return pair

    def queue(self, name: str, dtype, *, capacity: int) -> ProgramQueue:
        """A bounded work queue of vkp.i32, vkp.u32 or vkp.f32 items."""
        self._check_open("add queues")
        names = self._check_name(name, "queue")
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
        self._check_bindable(f"queue {name!r}'s items", int(capacity), np.uint32)
        q = ProgramQueue(self, name, elem, int(capacity))
        self.queues[name] = q
        self._glsl_names.update(names)
        return q

    def memsock(self, name: str, dtype, frame_shape, *, capacity: int = 8,
                policy: str = "drop", payload: dict | None = None,
                frames=None) -> ProgramSocket:
        """A MemSock one stage of this program writes (`sock.frame[...] = v`, payload fields
        `sock.step = prog.step`): one frame per step in which that stage runs. `frames`:
        your own host pages for the ring (see vkp.MemSock)."""
        self._check_open("add memsocks")
        names = self._check_name(name, "memsock")
        sock = ProgramSocket(self, name, dtype, frame_shape, capacity, policy, payload,
                             frames)
        self.sockets[name] = sock
        self._glsl_names.update(names)
        return sock

    def _check_name(self, name, what: str, also: dict | None = None) -> dict:
        """Refuse a name that is no identifier, is taken, or whose generated-code names
        clash with another declaration's (or with `also`, names about to be taken); returns
        its generated-code names ({name: owner}), which the caller reserves once the
        declaration has succeeded (a refused one leaves its name free)."""
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise ValueError(f"{what} name {name!r} must be an identifier not starting with '_'")
        if name in self.arrays or name in self.queues or name in self.sockets:
            raise ValueError(f"{self.name} already has an array, queue or memsock {name!r}")
        # the generated code names each declaration's buffers and words after its GLSL name
        # (a memsock 'snap' has snap_frames, snap_seq...; an array 'out', a GLSL word, is
        # out_py, with out_py_buffer): a new name may take none of another's
        base = glsl_name(name)
        mine = {base} | {f"{base}_{suffix}" for suffix in _DERIVED[what]}
        taken = {**self._glsl_names, **(also or {})}
        for other in sorted(mine & taken.keys()):
            raise ValueError(f"{what} name {name!r}: the code generated for "
                             f"{taken[other]} already uses the name {other!r}; "
                             "choose another name")
        return dict.fromkeys(mine, f"{what} {name!r}")

    def controls(self, *, commands: int = 16, status: dict | None = None,
                 limits: dict | None = None, **fields) -> ControlBuffer:
        """The program's ControlBuffer: stages read its fields (`ctl.freq`); the host changes
        them with commands (`run.send(freq=2.0)`), applied at a step boundary. `limits`:
        {field: (low, high)}, the values a host field may take (None: no bound), checked
        when a command is sent or a field set, refused with the range; float fields never
        take NaN, nor infinity unless their range names it."""
        self._check_open("declare controls")
        if self.ctl is not None:
            raise VkPersistError(f"{self.name} already has its controls; declare every field "
                                 "in one prog.controls(...) call")
        self.ctl = self._make_controls(commands, status, fields, limits)
        return self.ctl

    def _make_controls(self, commands, status, fields, limits=None) -> ControlBuffer:
        ctl = ControlBuffer(self.ctx, commands=max(commands, 1), status=status, limits=limits,
                            _internal={"_halt": T.u32, "_budget": T.u32},
                            _internal_status={"_step": T.u32, "_done": T.u32,
                                              "_reason": T.u32, "_parts": T.u32,
                                              "_resume": T.u32}, **fields)
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
        self._usable("generate its GLSL")
        if mode not in ("persistent", "launch"):
            raise ValueError(f"mode must be 'persistent' or 'launch', got {mode!r}")
        return build_for(self, mode).source

    @user_frames_only
    def step_plan(self) -> list:
        """One step as the megakernel runs it: a `vkpersist.lowlevel.PlannedStage` per
        schedule entry, in order, saying when it runs, whether a grid barrier comes before
        and after it, and whether it takes its indices in order instead of by a grid
        stride (Target.ordered_from). The scheduler puts a barrier between two stages only
        where one writes what the other reads or writes, except at the stages' own index
        when both run over one domain (docs/programs.md); the end of a step is always one.
        Launch mode runs each entry as a dispatch of its own, ordered after the one
        before."""
        self._usable("plan its step")
        build = self._builds.get("persistent") or self._builds.get("launch") \
            or build_for(self, "persistent")
        return build.plan.planned()

    @user_frames_only
    def statistics(self, mode: str = "persistent", *, local: int | None = None) -> dict:
        """What the driver reports about the compiled shaders of `mode` (registers per
        invocation, code size; the names are the driver's): {"megakernel": stats} in
        mode "persistent", {stage name: stats} in mode "launch", each a
        `vkpersist.lowlevel.ExecutableStatistics` (`.registers`, `.values`). The megakernel holds
        every stage, so it gets the registers of its most demanding one, and a GPU keeps
        fewer invocations resident when it needs more (docs/programs.md). UnsupportedError
        where the device does not report them (lavapipe)."""
        self._usable("report its statistics")
        if mode not in ("persistent", "launch"):
            raise ValueError(f"mode must be 'persistent' or 'launch', got {mode!r}")
        build = build_for(self, mode)
        local = local or launch_shape(self, build, mode)[1]
        if mode == "persistent":
            shaders = {"megakernel": build.mega}
        else:
            shaders = {stage.name: shader for shader, (stage, _)
                       in zip(build.stage_shaders, self.schedule)}
        return {name: build.statistics(shader, local) for name, shader in shaders.items()}

    # ---- running ---------------------------------------------------------------------
    @user_frames_only
    def run(self, steps: int | None = None, *, mode: str = "auto", groups: int | None = None,
            local: int | None = None, timeout: float | None = None,
            progress: bool | None = None, checkpoints=None) -> "RunReport":
        """Run `steps` steps and wait (a script's way; under trio use `session`); with
        `loop(steps=field)`, at most `steps` (default: until the field's count is reached).
        Returns what ran (steps, epochs, mode, participants). Ctrl-C stops the device at the
        next step boundary before it raises. `progress`: a progress bar with steps/s and
        the time left, for runs longer than a second (default: when stderr is a
        terminal; True or False decide). `checkpoints`: a vkp.Checkpoints, which writes
        the program's state every N steps and/or T minutes while it runs."""
        self._usable("run")
        _check_checkpoints(checkpoints)
        with self._exclusive("run"):
            return runner_for(self, mode, groups, local).run(steps, timeout, progress,
                                                              checkpoints)

    @user_frames_only
    def session(self, *, steps: int | None = None, mode: str = "auto",
                groups: int | None = None, local: int | None = None,
                timeout: float | None = None, checkpoints=None):
        """`async with prog.session() as run:` under trio: the program runs in the
        background (until `steps` more steps, or until stopped) while the body reads
        progress, sends commands, pauses, resumes or stops it. Leaving the block stops the
        program (also when the body raises). `checkpoints`: a vkp.Checkpoints, taken
        between epochs while the session runs."""
        self._usable("open a session")
        _check_checkpoints(checkpoints)
        return open_session(runner_for(self, mode, groups, local), steps, timeout,
                            checkpoints)

    # ---- checkpoints -------------------------------------------------------------------
    def checkpoint(self, path, *, host: dict | None = None) -> "os.PathLike":
        """Write the program's whole state at this step boundary to the HDF5 file `path`
        (its arrays, controls, step count, queues and memsocks: scheduler/_checkpoint.py
        says what and how), crash-safe: the file appears whole or not at all. Refused while
        the program runs (pause a session first, or use its `run.checkpoint`) and after a
        step was left half done. `host`: NumPy arrays of your own state on the host
        (name: array), saved with it and given back by `restore(path, host={})`. Returns
        the path."""
        self._usable("write a checkpoint")
        state = _checkpoint.capture(self, host=host)
        return _checkpoint.write(state, path, program=self.name)

    def restore(self, path, *, host: dict | None = None) -> int:
        """Make this program's state the one `prog.checkpoint(path)` wrote: the program
        must be declared as it was then (the same arrays, shapes, dtypes, queues,
        memsocks, controls and stage code; what differs is named and nothing is changed).
        Its next step is the checkpoint's; returns that step. Refused while it runs.
        `host`: a dict that receives the host arrays saved with the checkpoint."""
        self._usable("restore a checkpoint")
        if host is not None and not isinstance(host, dict):
            raise TypeError(f"restore(host=...) takes a dict to fill with the checkpoint's "
                            f"host arrays, got {type(host).__name__}")
        state = _checkpoint.read(path)
        step = _checkpoint.restore(self, state, path)
        if host is not None:
            host.update(state["host"])
        return step

    @contextlib.contextmanager
    def _exclusive(self, what: str):
        """Hold the program for one run or session: another thread's is refused, clearly,
        instead of racing this one for the device's words and the step count."""
        if not self._busy.acquire(blocking=False):
            if self._busy_thread == threading.get_ident():
                yield           # this thread's own session: its checks say what is wrong
                return
            raise VkPersistError(
                f"{self.name}: cannot {what}: it is busy with a {self._busy_what} started "
                "by another thread; a program runs one run or session at a time (wait for "
                "that one to return, or stop its session)")
        self._busy_thread, self._busy_what = threading.get_ident(), what
        try:
            yield
        finally:
            self._busy_thread = None
            self._busy.release()

    def _refuse(self, why: str) -> None:
        """Refuse runs and sessions from now on, until reset_step(): `why`, an error left
        part of a step in the arrays (scheduler/_runner.py)."""
        self._cut = why

    def _refuse_if_cut(self) -> None:
        if self._cut is not None:
            raise VkPersistError(
                f"{self.name}: {self._cut}. It runs again once you set its arrays to a known "
                "state (A.set(data)) and say which step they hold: prog.reset_step(n)")

    def _require_idle(self, what: str) -> None:
        self._usable(what)
        owner = self._busy_thread
        if owner is not None and owner != threading.get_ident():
            raise VkPersistError(f"{self.name}: cannot {what} while another thread's "
                                 f"{self._busy_what} runs it; wait for it to return")
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


def _check_checkpoints(checkpoints) -> None:
    if checkpoints is not None and not isinstance(checkpoints, Checkpoints):
        raise TypeError(f"checkpoints= takes a vkp.Checkpoints(folder, every=..., "
                        f"minutes=...), got {checkpoints!r}")
