"""Compiling a Program for one mode: shaders, pipelines and the recorded sequences.

persistent: one megakernel; an epoch is (zero the epoch's scheduler words, dispatch it).
launch: a boundary kernel plus one kernel per schedule entry; a batch of k steps is
(zero the batch words, then k times: boundary, stages..., then a final boundary). A queue
stage there is FALLBACK_ROUNDS rounds of (setup kernel, consumer dispatched indirectly).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import dataclasses

import numpy as np

from .._errors import DeviceLimitError, VkPersistError
from ..vk.loop_guard import loop_status_array, register_kernel_name
from ..lang import ir
from ..lang import types as T
from ..lang.bounds import bounds_record
from ..lang.compiler import Unit
from ..vk.glsl_kernel import GLSLKernel, push_struct
from ..lang.glsl import compile_generated
from ..vk.target import SPIRV_OPT_PASSES
from ..vk.sequence import DispatchSequence
from ._codegen import PHASE_FINAL, PHASE_FIRST, PHASE_NEXT, ProgramWriter
from ._words import EPOCH_WORDS, W, sched_words
from ._plan import plan_step
from ._declare import Q_ARGS, PairHalf, When, resource_vars

if TYPE_CHECKING:
    from ._program import Program

MAX_GROUPS_X = 65535        # the smallest maxComputeWorkGroupCount[0] Vulkan allows
FALLBACK_ROUNDS = 16        # rounds of a queue stage per step in the fallback


@dataclasses.dataclass
class ShaderPlan:
    """What ProgramWriter needs to know about the program for one shader."""
    ctl_var: ir.Var
    schedule: list
    periods: list
    stage_functions: dict
    segments: list         # megakernel: (entry, barrier before, barrier after) per entry
    queue_vars: dict
    sockets: list          # [(socket var, ProgramSocket, schedule index of its stage)]
    conditions: dict       # when-bit -> compiled condition (megakernel and boundary only)
    steps_field: str | None   # control field with the program's total step count
    writes: frozenset      # buffers this shader's functions write (the others are readonly)
    functions: list        # the functions it contains, callees first
    pairs: dict = dataclasses.field(default_factory=dict)   # array-pair var name: (role,
    #                                                          elements per half)
    cached_loads: dict = dataclasses.field(default_factory=dict)   # function name: the
    #   buffers it loads through readonly aliases (_cached_loads)
    ordered: frozenset = frozenset()   # megakernel: schedule indices of the stages that take
    #   their indices in order (Entry.ordered)


class _Shader:
    def __init__(self, source: str, kernel: GLSLKernel, writer: ProgramWriter):
        self.source = source
        self.kernel = kernel
        self.push_names = [name for name, _ in writer.push_fields]


class Build:
    """A program compiled for one mode: its stages compiled once, the step's plan, and the
    shaders emitted from them (persistent: the megakernel; launch: the boundary kernel, a
    kernel per schedule entry, and the rounds' setup kernels of queue stages)."""

    def __init__(self, prog: Program, mode: str):
        if not prog.schedule:
            raise VkPersistError(f"{prog.name}: nothing to run; declare the step with "
                                 "prog.loop(stage, ...)")
        if prog.ctl is None:
            prog.ctl = prog._make_controls(16, None, {})
        self.prog = prog
        self.mode = mode
        ctx = prog.ctx
        self.target = ctx.target
        self.loop_guard = self.target.loop_guard
        self.kernel_id = register_kernel_name(f"program {prog.name!r} ({mode})")
        self.sched_words = ctx.zeros(sched_words(prog.ctl.type, len(prog.sockets)), np.uint32)
        self.sched = self.sched_words.buffer
        self.device_steps = 0          # the step count the device's words hold (STEPS_DONE)
        self.status = loop_status_array(ctx) if self.loop_guard else None
        self.sequences: dict = {}
        self._statistics: dict = {}     # (shader, local size): what the driver reports
        # the megakernel's arrays are written and read by other workgroups of the same
        # dispatch (coherent); the fallback's kernels are separated by pipeline barriers
        self.resources, self.arrays, self.ctl_var, self.sched_var = resource_vars(
            prog, mode == "persistent", self.sched_words.size)
        self._check_bindings(ctx.info)
        self.unit = Unit(self.target, self.resources)
        self.unit.debug = prog.debug
        self.bounds = bounds_record(ctx) if prog.debug else None
        self.functions = {}
        for stage, _ in prog.schedule:
            if stage.name not in self.functions:
                self.functions[stage.name] = self.unit.compile_stage(
                    stage.fn, stage.param_types(), f"stage_{stage.name}")
        self.conditions = {
            bit: self.unit.compile_condition(period.condition,
                                             f"when_{period.condition.__name__}_{bit}")
            for bit, period in enumerate(prog.periods) if isinstance(period, When)}
        self.plan = plan_step(prog, self.functions, self.resources)
        if mode == "persistent":
            self.mega = self._shader("mega", range(len(prog.schedule)))
            self.source = self.mega.source
        else:
            self.boundary = self._shader("boundary", [])
            self.stage_shaders = [self._shader(i, [i]) for i in range(len(prog.schedule))]
            self.setup_shaders = {e.index: self._shader(("setup", e.index), [])
                                  for e in self.plan.entries if e.kind == "queue"}
            self.source = "\n".join([self.boundary.source] +
                                    [s.source for s in self.stage_shaders] +
                                    [s.source for s in self.setup_shaders.values()])

    # ---- compiling -----------------------------------------------------------------------
    def _check_bindings(self, info) -> None:
        """Every shader of a program binds all its buffers; past the device's per-shader
        limit of storage buffers the driver may crash (lavapipe's limit is 32, and it
        segfaults beyond it), so refuse first, naming what takes the bindings."""
        used = ir.bindings_end(self.arrays + [self.ctl_var, self.sched_var]) + \
            (1 if self.loop_guard else 0) + (1 if self.prog.debug else 0)
        limit = info.max_storage_buffers
        if used > limit:
            raise DeviceLimitError(
                f"{self.prog.name}: its shaders would bind {used} storage buffers, and "
                f"{info.name} allows {limit} per shader. Each array and queue takes "
                f"one binding (an array pair one for both names, a queue two, a memsock "
                f"three), plus the controls, the "
                f"scheduler words{' and the loop guard' if self.loop_guard else ''}: "
                f"{_binding_report(self.arrays)}. Merge arrays that are used together "
                f"(stack them along a new first axis) or use fewer memsocks.")

    def _shader(self, kind, entries) -> _Shader:
        prog, plan = self.prog, self.plan
        stages = {}
        for index in entries:
            stage = prog.schedule[index][0]
            stages[stage.name] = self.functions[stage.name]
        conditions = self.conditions if kind in ("mega", "boundary") else {}
        contained = _with_callees(self.unit.order, [*stages.values(), *conditions.values()])
        queue_vars = {name: self.resources[id(q)] for name, q in prog.queues.items()}
        sockets = [(self.resources[id(sock)], sock, plan.emitters.get(name))
                   for name, sock in prog.sockets.items()]
        segments = [(e.index, e.barrier_before, e.barrier_after) for e in plan.entries] \
            if kind == "mega" else []
        ordered = frozenset(e.index for e in plan.entries if e.ordered) \
            if kind == "mega" else frozenset()
        writes = plan.writes_of(contained) | {self.sched_var.name}
        pairs = {self.resources[id(a)].name: (a.role, a.size)
                 for a in prog.arrays.values() if isinstance(a, PairHalf)}
        if kind == "mega":      # the halves swap roles between steps of the same dispatch:
            writes |= {self.resources[id(prog.arrays[a.partner])].name   # neither is readonly
                       for a in prog.arrays.values()
                       if isinstance(a, PairHalf) and self.resources[id(a)].name in writes}
        cached = self._cached_loads(writes, conditions) if kind == "mega" else {}
        shader_plan = ShaderPlan(self.ctl_var, prog.schedule, prog.periods, stages, segments,
                                 queue_vars, sockets, conditions, prog.steps_field,
                                 writes, contained, pairs, cached, ordered)
        params = []
        if isinstance(kind, tuple):             # a queue round's setup: which phase, and
            params = [ir.Var("_vkp_phase", T.u32, "scalar_param"),     # the consumer's
                      ir.Var("_vkp_local", T.u32, "scalar_param")]     # local size
        main = ir.Function("main", prog.name, params,
                           self.arrays + [self.ctl_var, self.sched_var], [], [], is_kernel=True)
        writer = ProgramWriter(main, self.unit, shader_plan, kind, kernel_id=self.kernel_id)
        source = writer.module()
        if isinstance(kind, str):
            label = f"{prog.name}:{kind}"
        elif isinstance(kind, tuple):
            label = f"{prog.name}:{prog.schedule[kind[1]][0].name} rounds"
        else:
            label = f"{prog.name}:{prog.schedule[kind][0].name}"
        passes = SPIRV_OPT_PASSES[self.target.spirv_opt] if kind == "mega" else ()
        return _Shader(source, compile_generated(source, label, passes), writer)

    def _cached_loads(self, writes, conditions) -> dict:
        """{function name: the arrays its loads may take through a readonly alias} for the
        megakernel (Target.readonly_alias): of the arrays the megakernel writes (the others
        are declared readonly anyway), those every stage that reaches the function may load
        so (the plan's cached_reads); none in conditions and what they call."""
        if not self.target.readonly_alias:
            return {}
        arrays = {v.name for v in self.arrays if v.role == "array_param"} & writes
        out: dict = {}
        for e in self.plan.entries:
            for fn in _with_callees(self.unit.order, [self.functions[e.stage.name]]):
                mine = e.cached_reads & arrays
                out[fn.name] = out[fn.name] & mine if fn.name in out else mine
        for fn in _with_callees(self.unit.order, list(conditions.values())):
            out[fn.name] = frozenset()
        return {name: names for name, names in out.items() if names}

    def statistics(self, shader: _Shader, local: int):
        """What the driver reports of `shader` in workgroups of `local` (an
        ExecutableStatistics: registers, code size; compiled once more to capture them, so
        remembered): for Program.statistics and the default launch shape (fill_launch).
        UnsupportedError where the device reports none."""
        key = (id(shader), local)
        if key not in self._statistics:
            pipeline = shader.kernel._pipeline(self.prog.ctx, (local, 1, 1))
            self._statistics[key] = pipeline.statistics()[0]
        return self._statistics[key]

    # ---- launching -----------------------------------------------------------------------
    def count_from(self, steps: int) -> None:
        """Before an epoch: make the device's step count `steps` (the program's), where
        it differs: after `prog.reset_step()`, or when the program ran in the other mode,
        whose build keeps its own words."""
        steps &= 0xFFFFFFFF
        if steps != self.device_steps:
            self.sched_words[W["STEPS_DONE"]] = steps
            self.device_steps = steps

    def loop_limit_reported(self) -> bool:
        """Whether one of this build's shaders reported lavapipe's loop limit (its loops may
        have been cut short): read before the synchronize whose check raises and clears it."""
        return self.status is not None and \
            int(self.status.buffer.host_view().view(np.uint32)[0]) == self.kernel_id

    def word(self, name: str) -> int:
        """Scheduler word `name` (_words.py), read back from the device."""
        return int(self.sched_words.numpy()[W[name]])

    def buffers(self) -> list:
        out = [a.array.buffer for a in self.prog.arrays.values()      # a pair binds once
               if not (isinstance(a, PairHalf) and a.role == 1)]
        for q in self.prog.queues.values():
            out += [q.header, q.items_array.buffer]
        for sock in self.prog.sockets.values():
            out += list(sock.buffers)
        out += [self.prog.ctl.buffer, self.sched]
        if self.status is not None:
            out.append(self.status.buffer)
        if self.bounds is not None:
            out.append(self.bounds.buffer)
        return out

    def _push(self, shader: _Shader, **params) -> bytes:
        values = [params[name] for name in shader.push_names]   # shapes are literals
        packer = push_struct(shader.kernel.reflection, shader.push_names)
        return packer.pack(*values) if shader.push_names else b""

    def epoch(self, groups: int, local: int) -> DispatchSequence:
        """The persistent epoch: zero the epoch words, dispatch `groups` workgroups."""
        key = ("epoch", groups, local)
        seq = self.sequences.get(key)
        if seq is None:
            pipeline = self.mega.kernel._pipeline(self.prog.ctx, (local, 1, 1))
            seq = DispatchSequence(
                self.prog.ctx._core, [(self.sched, 0, EPOCH_WORDS * 4)],
                [(pipeline, self.buffers(), (groups, 1, 1), self._push(self.mega))],
                label=f"{self.prog.name} epoch")
            self.sequences[key] = seq
        return seq

    def batch(self, steps: int, local: int) -> DispatchSequence:
        """`steps` steps of the fallback in one submission."""
        key = ("batch", steps, local)
        seq = self.sequences.get(key)
        if seq is None:
            ctx = self.prog.ctx
            buffers = self.buffers()
            boundary = (self.boundary.kernel._pipeline(ctx, (1, 1, 1)), buffers, (1, 1, 1),
                        self._push(self.boundary))
            stages = []
            for i, (shader, (stage, _)) in enumerate(zip(self.stage_shaders,
                                                         self.prog.schedule)):
                pipeline = shader.kernel._pipeline(ctx, (local, 1, 1))
                if stage.consumes is None:
                    groups = -(-stage.size // local)
                    gx = min(groups, MAX_GROUPS_X)
                    stages.append((pipeline, buffers, (gx, -(-groups // gx), 1),
                                   self._push(shader)))
                else:
                    stages += self._rounds(i, pipeline, buffers, local)
            dispatches = (([boundary] + stages) * steps) + [boundary]
            seq = DispatchSequence(ctx._core, [(self.sched, 0, EPOCH_WORDS * 4)], dispatches,
                                   label=f"{self.prog.name} batch")
            self.sequences[key] = seq
        return seq

    def _rounds(self, index, consumer, buffers, local) -> list:
        """The fallback's rounds of a queue stage: setup, then the consumer dispatched with
        the workgroup count setup wrote, FALLBACK_ROUNDS times, then a final setup that
        reports a queue not drained by then."""
        ctx = self.prog.ctx
        setup = self.setup_shaders[index]
        pipeline = setup.kernel._pipeline(ctx, (1, 1, 1))
        queue = self.prog.schedule[index][0].consumes
        out = []
        for r in range(FALLBACK_ROUNDS):
            phase = PHASE_FIRST if r == 0 else PHASE_NEXT
            out.append((pipeline, buffers, (1, 1, 1),
                        self._push(setup, _vkp_phase=phase, _vkp_local=local)))
            out.append((consumer, buffers, ("indirect", queue.header, Q_ARGS * 4), b""))
        out.append((pipeline, buffers, (1, 1, 1),
                    self._push(setup, _vkp_phase=PHASE_FINAL, _vkp_local=local)))
        return out

    def free(self) -> None:
        self.sequences.clear()      # their command buffers are reused once not pending
        self.sched.free()


def _binding_report(arrays) -> str:
    first = {}                                  # an array pair's names share one binding
    for v in arrays:
        first.setdefault(v.binding, v)
    per = [(v.name, ir.binding_count(v.type)) for v in arrays if first[v.binding] is v]
    return ", ".join(f"{n} ({c})" if c > 1 else n for n, c in per)


def build_for(prog: Program, mode: str) -> Build:
    b = prog._builds.get(mode)
    if b is None:
        b = Build(prog, mode)
        prog._builds[mode] = b
    return b


def _with_callees(order: list, roots: list) -> list:
    """`roots` and every function they call, in the unit's order (callees first)."""
    keep, todo = set(), list(roots)
    while todo:
        fn = todo.pop()
        if id(fn) not in keep:
            keep.add(id(fn))
            todo += fn.callees
    return [fn for fn in order if id(fn) in keep]
