"""Compiling a Program for one mode: shaders, pipelines and the recorded sequences.

persistent: one megakernel; an epoch is (zero the epoch's scheduler words, dispatch it).
launch: a boundary kernel plus one kernel per schedule entry; a batch of k steps is
(zero the batch words, then k times: boundary, stages..., then a final boundary).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .._errors import CompileError, VkPersistError
from ..kernel import loop_status_array, register_kernel_name
from ..lang import ir
from ..lang.compiler import Unit
from ..vk.glsl_kernel import GLSLKernel, push_struct
from ..vk.sequence import DispatchSequence
from ._codegen import EPOCH_WORDS, ProgramWriter, sched_words
from ._program import Program, resource_vars

MAX_GROUPS_X = 65535        # the smallest maxComputeWorkGroupCount[0] Vulkan allows


@dataclasses.dataclass
class ShaderPlan:
    """What ProgramWriter needs to know about the program for one shader."""
    ctl_var: ir.Var
    schedule: list
    periods: list
    stage_functions: dict
    segment_list: list

    def segments(self) -> list:
        return self.segment_list


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
        self.info = ctx.info
        self.loop_guard = bool(self.info.is_lavapipe)
        self.kernel_id = register_kernel_name(f"program {prog.name!r} ({mode})")
        self.sched_words = ctx.zeros(sched_words(prog.ctl.type), np.uint32)
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
            self.source = "\n".join([self.boundary.source] +
                                    [s.source for s in self.stage_shaders])

    # ---- compiling -----------------------------------------------------------------------
    def _shader(self, kind, entries, coherent: bool) -> _Shader:
        prog = self.prog
        resources, arrays, ctl_var, sched_var = resource_vars(prog, coherent)
        unit = Unit(self.info, resources)
        functions = {}
        for index in entries:
            stage = prog.schedule[index][0]
            if stage.name not in functions:
                functions[stage.name] = unit.compile_stage(stage.fn, len(stage.domain),
                                                           f"stage_{stage.name}")
        plan = ShaderPlan(ctl_var, prog.schedule, prog.periods, functions,
                          _segments(prog.schedule, functions) if kind == "mega" else [])
        main = ir.Function("main", prog.name, [], arrays + [ctl_var, sched_var], [], [],
                           is_kernel=True)
        writer = ProgramWriter(main, unit, plan, kind, loop_guard=self.loop_guard,
                               kernel_id=self.kernel_id - 1)
        source = writer.module()
        label = f"{prog.name}:{kind if isinstance(kind, str) else prog.schedule[kind][0].name}"
        try:
            kernel = GLSLKernel(source, name=label)
        except CompileError as exc:     # a bug in vkpersist, not in the user's code
            raise VkPersistError(f"internal error: generated GLSL for {label} did not compile; "
                                 f"please report it.\n{exc}\n--- GLSL ---\n{source}") from None
        return _Shader(source, kernel, writer)

    # ---- launching -----------------------------------------------------------------------
    def buffers(self) -> list:
        out = [a.array.buffer for a in self.prog.arrays.values()]
        out += [self.prog.ctl.buffer, self.sched]
        if self.status is not None:
            out.append(self.status.buffer)
        return out

    def _push(self, shader: _Shader) -> bytes:
        values = []
        for name in shader.push_names:
            base, _, axis = name.rpartition("_shape")
            if base == "_vkp_sched":
                values.append(self.sched_words.size)
            else:
                values.append(self._array_by_glsl_name(base).shape[int(axis)])
        packer = push_struct(shader.kernel.reflection, shader.push_names)
        return packer.pack(*values) if shader.push_names else b""

    def _array_by_glsl_name(self, name):
        from ..lang.frontend import glsl_name
        for n, a in self.prog.arrays.items():
            if glsl_name(n) == name:
                return a
        raise VkPersistError(f"internal error: no array for push constant {name!r}")

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
            for shader, (stage, _) in zip(self.stage_shaders, self.prog.schedule):
                groups = -(-stage.size // local)
                gx = min(groups, MAX_GROUPS_X)
                stages.append((shader.kernel._pipeline(ctx, (local, 1, 1)), buffers,
                               (gx, -(-groups // gx), 1), self._push(shader)))
            dispatches = (([boundary] + stages) * steps) + [boundary]
            seq = DispatchSequence(ctx._core, [(self.sched, 0, EPOCH_WORDS * 4)], dispatches,
                                   label=f"{self.prog.name} batch")
            self.sequences[key] = seq
        return seq

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
            if node.name.startswith("atomic_"):
                writes.add(node.args[0].var.name)
            elif node.name == "control_load":
                reads.add(node.args[0].name)
            elif node.name == "control_store":
                writes.add(node.args[0].name)
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


def _segments(schedule, functions) -> list:
    """(entry index, grid barrier before it, grid barrier after it) for the megakernel. A
    stage waits when it conflicts (read-after-write, write-after-read or -write) with a
    stage that may have run since the last barrier every workgroup passed; a conditional
    stage syncs after itself, so nothing it did is pending whether or not it ran."""
    access = {name: _accesses(fn) for name, fn in functions.items()}
    pending: list = []
    out = []
    for index, (stage, bit) in enumerate(schedule):
        r, w = access[stage.name]
        before = any(w & (pr | pw) or r & pw
                     for pr, pw in (access[p.name] for p in pending))
        last = index == len(schedule) - 1
        if bit is None:
            if before:
                pending = []
            pending.append(stage)
            out.append((index, before, False))
        else:
            out.append((index, before, not last))
    return out
