"""Compiling a Program for one mode: shaders, pipelines and the recorded sequences.

persistent: one megakernel; an epoch is (zero the epoch's scheduler words, dispatch it).
launch: a boundary kernel plus one kernel per schedule entry; a batch of k steps is
(zero the batch words, then k times: boundary, stages..., then a final boundary). A queue
stage there is FALLBACK_ROUNDS rounds of (setup kernel, consumer dispatched indirectly).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .._errors import VkPersistError
from ..vk.loop_guard import loop_status_array, register_kernel_name
from ..lang import ir
from ..lang.builtins import accessed
from ..lang import types as T
from ..lang.compiler import Unit
from ..vk.glsl_kernel import GLSLKernel, push_struct
from ..lang.glsl import compile_generated
from ..vk.sequence import DispatchSequence
from ._codegen import EPOCH_WORDS, PHASE_FINAL, PHASE_FIRST, PHASE_NEXT, ProgramWriter, sched_words
from ._program import Q_ARGS, Program, When, resource_vars

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


class _Shader:
    def __init__(self, source: str, kernel: GLSLKernel, writer: ProgramWriter):
        self.source = source
        self.kernel = kernel
        self.push_names = [name for name, _ in writer.push_fields]


class Build:
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
        self.emitters = _emitters(prog, self.target)
        self.sched_words = ctx.zeros(sched_words(prog.ctl.type, len(prog.sockets)), np.uint32)
        self.sched = self.sched_words.buffer
        self.status = loop_status_array(ctx) if self.loop_guard else None
        self.sequences: dict = {}
        if mode == "persistent":
            self.mega = self._shader("mega", range(len(prog.schedule)), coherent=True)
            self.source = self.mega.source
        else:
            self.boundary = self._shader("boundary", [], coherent=False)
            self.stage_shaders = [self._shader(i, [i], coherent=False)
                                  for i in range(len(prog.schedule))]
            self.setup_shaders = {i: self._shader(("setup", i), [], coherent=False)
                                  for i, (st, _) in enumerate(prog.schedule)
                                  if st.consumes is not None}
            self.source = "\n".join([self.boundary.source] +
                                    [s.source for s in self.stage_shaders] +
                                    [s.source for s in self.setup_shaders.values()])

    # ---- compiling -----------------------------------------------------------------------
    def _shader(self, kind, entries, coherent: bool) -> _Shader:
        prog = self.prog
        resources, arrays, ctl_var, sched_var = resource_vars(prog, coherent,
                                                              self.sched_words.size)
        unit = Unit(self.target, resources)
        functions = {}
        for index in entries:
            stage = prog.schedule[index][0]
            if stage.name not in functions:
                functions[stage.name] = unit.compile_stage(stage.fn, stage.param_types(),
                                                           f"stage_{stage.name}")
        conditions = {}
        if kind in ("mega", "boundary"):
            for bit, period in enumerate(prog.periods):
                if isinstance(period, When):
                    conditions[bit] = unit.compile_condition(
                        period.condition, f"when_{period.condition.__name__}_{bit}")
        queue_vars = {name: resources[id(q)] for name, q in prog.queues.items()}
        sockets = [(resources[id(sock)], sock, self.emitters.get(name))
                   for name, sock in prog.sockets.items()]
        plan = ShaderPlan(ctl_var, prog.schedule, prog.periods, functions,
                          _segments(prog.schedule, functions, set(self.emitters.values()))
                          if kind == "mega" else [],
                          queue_vars, sockets, conditions, prog.steps_field)
        params = []
        if isinstance(kind, tuple):             # a queue round's setup: which phase, and
            params = [ir.Var("_vkp_phase", T.u32, "scalar_param"),     # the consumer's
                      ir.Var("_vkp_local", T.u32, "scalar_param")]     # local size
        main = ir.Function("main", prog.name, params, arrays + [ctl_var, sched_var], [], [],
                           is_kernel=True)
        writer = ProgramWriter(main, unit, plan, kind, kernel_id=self.kernel_id)
        source = writer.module()
        if isinstance(kind, str):
            label = f"{prog.name}:{kind}"
        elif isinstance(kind, tuple):
            label = f"{prog.name}:{prog.schedule[kind[1]][0].name} rounds"
        else:
            label = f"{prog.name}:{prog.schedule[kind][0].name}"
        return _Shader(source, compile_generated(source, label), writer)

    # ---- launching -----------------------------------------------------------------------
    def buffers(self) -> list:
        out = [a.array.buffer for a in self.prog.arrays.values()]
        for q in self.prog.queues.values():
            out += [q.header, q.items_array.buffer]
        for sock in self.prog.sockets.values():
            out += list(sock.buffers)
        out += [self.prog.ctl.buffer, self.sched]
        if self.status is not None:
            out.append(self.status.buffer)
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
        for seq in self.sequences.values():
            seq.free()
        self.sequences.clear()
        self.sched.free()


def build_for(prog: Program, mode: str) -> Build:
    b = prog._builds.get(mode)
    if b is None:
        b = Build(prog, mode)
        prog._builds[mode] = b
    return b


# ---- which stages must wait for which -------------------------------------------------------
def _accesses(fn: ir.Function, seen=None) -> tuple[set, set]:
    """(names read, names written) of the buffers `fn` and its callees touch."""
    reads, writes = set(), set()
    seen = set() if seen is None else seen

    def walk(node):
        if isinstance(node, list):
            for x in node:
                walk(x)
            return
        if not dataclasses.is_dataclass(node) or isinstance(node, (ir.Var, ir.Loc)):
            return
        if isinstance(node, ir.Load):
            reads.add(node.var.name)
        elif isinstance(node, ir.Store):
            writes.add(node.var.name)
        elif isinstance(node, ir.Intrinsic):
            effect, var = accessed(node)      # what the builtin registry says it does
            if effect is not None:
                (reads if effect == "read" else writes).add(var.name)
        elif isinstance(node, ir.Call) and id(node.func) not in seen:
            seen.add(id(node.func))
            r, w = _accesses(node.func, seen)
            reads.update(r)
            writes.update(w)
        for f in dataclasses.fields(node):
            if f.name not in ("type", "loc", "func"):
                walk(getattr(node, f.name))

    walk(fn.body)
    return reads, writes


def _emitters(prog: Program, target) -> dict:
    """{memsock name: schedule index of the one stage that writes it}."""
    if not prog.sockets:
        return {}
    resources, _, _, _ = resource_vars(prog, coherent=False,
                                       sched_len=sched_words(prog.ctl.type, len(prog.sockets)))
    unit = Unit(target, resources)
    writers: dict = {}
    for index, (stage, _) in enumerate(prog.schedule):
        fn = unit.compile_stage(stage.fn, stage.param_types(), f"stage_{stage.name}")
        _, writes = _accesses(fn)
        for name, sock in prog.sockets.items():
            if resources[id(sock)].name in writes:
                writers.setdefault(name, []).append(index)
    out = {}
    for name, indices in writers.items():
        stages = [prog.schedule[i][0].name for i in indices]
        if len(indices) > 1:
            raise VkPersistError(f"{prog.name}: memsock {name!r} is written by "
                                 f"{', '.join(stages)}; one loop entry per memsock (it gets "
                                 "one frame per step in which that stage runs)")
        bit = prog.schedule[indices[0]][1]
        if bit is not None and isinstance(prog.periods[bit], When):
            raise VkPersistError(f"{prog.name}: stage {stages[0]} writes memsock {name!r} and "
                                 "runs under when(...); frames are reserved before a step's "
                                 "conditions are known: use every(n), or write the frame "
                                 "every step")
        if prog.schedule[indices[0]][0].consumes is not None:
            raise VkPersistError(f"{prog.name}: stage {stages[0]} consumes a queue and writes "
                                 f"memsock {name!r}; frames come from domain stages")
        out[name] = indices[0]
    return out


def _segments(schedule, functions, emitting=frozenset()) -> list:
    """(entry index, grid barrier before it, grid barrier after it) for the megakernel. A
    stage waits when it conflicts (read-after-write, write-after-read or -write) with a
    stage that may have run since the last barrier every workgroup passed; a conditional
    stage syncs after itself, so nothing it did is pending whether or not it ran."""
    access = {name: _accesses(fn) for name, fn in functions.items()}
    pending: list = []
    out = []
    for index, (stage, bit) in enumerate(schedule):
        if stage.consumes is not None:      # its queue barriers come before and after it
            out.append((index, False, False))
            if bit is None:
                pending = []
            continue
        r, w = access[stage.name]
        before = any(w & (pr | pw) or r & pw
                     for pr, pw in (access[p.name] for p in pending))
        last = index == len(schedule) - 1
        if index in emitting:       # its frame is published after a barrier
            out.append((index, before, True))
            if bit is None:
                pending = []
        elif bit is None:
            if before:
                pending = []
            pending.append(stage)
            out.append((index, before, False))
        else:
            out.append((index, before, not last))
    return out
