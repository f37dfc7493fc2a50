"""GLSL for programs: the megakernel, and the boundary and stage kernels of the fallback.

All three share the step boundary (`_vkp_boundary`), the code one invocation runs between
two steps while every other invocation waits: count the finished step, apply host commands
and acknowledge them with the step number, publish the heartbeat, decide whether the next
step runs (budget, halt) and which `every(n)` stages run in it. The megakernel runs it
inside its grid barrier; the fallback runs it as a one-invocation kernel before each step.
Stage bodies are the same GLSL functions in both, called with the same indices, so a
deterministic program computes bit-identical results in both modes.

Scheduler words (`_vkp_sched`, device-local): 0-15 belong to one epoch (the megakernel) or
one batch (the fallback) and are zeroed before each; 16-31 persist across epochs; from 32
on, a snapshot of the host-written control fields taken at each step boundary. Stages read
controls from the snapshot: plain loads (fast, no contended atomics), and every invocation
sees the same values for the whole step, however the host writes them, so runs are
reproducible.
"""
from __future__ import annotations

from ..lang import ir
from ..lang import types as T
from ..lang.glsl import LOOP_GUARD_LIMIT, Writer

S_OCCUPANCY, S_ARRIVED, S_RELEASED, S_STATE, S_FLAGS, S_DONE, S_ITER_MAX, S_ITER_PREV = range(8)
EPOCH_WORDS = 16
P_STEP = 16
SNAPSHOT = 32               # from here: the host fields' values for the current step
STATE_RUNNING, STATE_ENDED = 1, 2
# why an epoch (batch) ended, published in the `_reason` status word
REASON_BUDGET, REASON_HALT, REASON_LOOP_LIMIT = 1, 2, 3
REASONS = {REASON_BUDGET: "budget", REASON_HALT: "halt", REASON_LOOP_LIMIT: "loop limit"}
CLOSED = 0x80000000
QUIET_POLLS = 1024          # the first participant closes the poll after this long without joins
LOOP_BUDGET = LOOP_GUARD_LIMIT - 5000     # lavapipe: end the epoch before any loop is cut
SPIN_UNROLL = 8             # polls per spin-loop iteration (lavapipe counts iterations)


class ProgramWriter(Writer):
    """Writer whose main() is a scheduler: `kind` is "mega", "boundary" or a stage index
    (a fallback stage kernel). `plan` is the Program's _Build."""

    def __init__(self, main_fn: ir.Function, unit, plan, kind, *, loop_guard: bool,
                 kernel_id: int):
        super().__init__(main_fn, unit, loop_guard=loop_guard, kernel_id=kernel_id)
        self.plan = plan
        self.kind = kind
        self.globals.append("uint _vkp_step;       // the step being run, as stages see it")

    # ---- helpers -----------------------------------------------------------------------
    def ctl(self, name: str) -> str:
        f = self.plan.ctl_var.type.field(name)
        return f"{self.plan.ctl_var.name}[{f.word}]"

    def sched(self, word: int) -> str:
        return f"_vkp_sched[{word}]"

    def guard_line(self) -> str:
        return (f"if (++_vkp_iterations == {LOOP_GUARD_LIMIT}u) "
                f"atomicCompSwap(_vkp_status[0], 0u, {self.kernel_id + 1}u);")

    def emit_all(self, text_lines) -> None:
        for line in text_lines:
            self.emit(line)

    def expr_Intrinsic(self, e):
        if e.name == "control_load" and e.args[1].side == "host":
            _, f, index = e.args
            word = f"{SNAPSHOT + f.word}u" if index is None else \
                f"{SNAPSHOT + f.word}u + uint({self.expr(index)})"
            raw = f"_vkp_sched[{word}]"
            return {T.f32: f"uintBitsToFloat({raw})", T.i32: f"int({raw})"}.get(f.type, raw)
        return super().expr_Intrinsic(e)

    # ---- main -------------------------------------------------------------------------
    def function(self, fn: ir.Function) -> None:
        if not fn.is_kernel:
            super().function(fn)
            return
        self.boundary_function()
        if self.kind == "mega":
            self.megakernel()
        elif self.kind == "boundary":
            self.emit_all(["// the step boundary of the fallback: one invocation, before each step",
                        "void main() {", "    _vkp_boundary();", "}"])
        else:
            self.stage_kernel(self.kind)

    def boundary_function(self) -> None:
        plan = self.plan
        saved, self.pre = self.pre, []
        self._control_apply(plan.ctl_var, "step")
        apply_lines, self.pre = self.pre, saved
        load, store = self.atomic_load, self.atomic_store
        self.emit_all([
            "// The step boundary, run by one invocation while all others wait: count the",
            "// finished step, apply host commands, publish the heartbeat, decide what runs next.",
            "void _vkp_boundary() {",
            f"    uint state = {self.sched(S_STATE)};",
            f"    if (state == {STATE_ENDED}u) return;      // this epoch (batch) has ended",
            f"    uint step = {self.sched(P_STEP)};",
            f"    if (state == {STATE_RUNNING}u) {{          // a step just finished",
            "        step += 1u;",
            f"        {self.sched(P_STEP)} = step;",
            f"        {self.sched(S_DONE)} += 1u;",
            "    }",
            *["    " + line for line in apply_lines],
            "    // the host fields' values for the next step",
            f"    for (uint w = 0u; w < {snapshot_words(plan.ctl_var.type)}u; w++) {{",
            *(["        " + self.guard_line()] if self.loop_guard else []),
            f"        _vkp_sched[{SNAPSHOT}u + w] = {load(plan.ctl_var.name + '[w]')};",
            "    }",
            f"    {store(self.ctl('_step'), 'step')};",
            f"    {store(self.ctl('_done'), self.sched(S_DONE))};",
            "    uint reason = 0u;",
            f"    if ({load(self.ctl('_halt'))} != 0u) reason = {REASON_HALT}u;",
            f"    else if ({self.sched(S_DONE)} >= {load(self.ctl('_budget'))}) "
            f"reason = {REASON_BUDGET}u;",
        ])
        if self.kind == "mega" and self.loop_guard:
            self.emit_all([
                "    else {   // lavapipe: end the epoch before any invocation nears the loop limit",
                f"        uint used = {self.sched(S_ITER_MAX)};",
                f"        uint grown = used - {self.sched(S_ITER_PREV)};",
                f"        {self.sched(S_ITER_PREV)} = used;",
                f"        if (used + 2u * grown + 1000u >= {LOOP_BUDGET}u) "
                f"reason = {REASON_LOOP_LIMIT}u;",
                "    }",
            ])
        self.emit_all([
            "    if (reason != 0u) {",
            f"        {self.sched(S_STATE)} = {STATE_ENDED}u;",
            f"        {store(self.ctl('_reason'), 'reason')};",
            "        return;",
            "    }",
            f"    {self.sched(S_STATE)} = {STATE_RUNNING}u;",
            "    uint flags = 0u;",
        ])
        for bit, period in enumerate(plan.periods):
            if isinstance(period, str):
                n = load(self.ctl(period))
                f = plan.ctl_var.type.field(period)
                if f.type == T.f32:
                    n = f"uint(uintBitsToFloat({n}))"
                self.emit(f"    {{ uint n = {n};   // every(ctl.{period})")
            else:
                self.emit(f"    {{ uint n = {period}u;   // every({period})")
            self.emit(f"      if (n != 0u && step % n == 0u) flags |= {1 << bit}u; }}")
        self.emit_all([f"    {self.sched(S_FLAGS)} = flags;", "}", ""])

    def _unravel(self, domain, index: str) -> list[str]:
        if len(domain) == 1:
            return [f"int({index})"]
        if len(domain) == 2:
            return [f"int({index} / {domain[1]}u)", f"int({index} % {domain[1]}u)"]
        return [f"int({index} / {domain[1] * domain[2]}u)",
                f"int(({index} / {domain[2]}u) % {domain[1]}u)", f"int({index} % {domain[2]}u)"]

    def stage_kernel(self, index: int) -> None:
        stage, bit = self.plan.schedule[index]
        fn = self.plan.stage_functions[stage.name]
        n = stage.size
        self.emit(f"// stage {stage.name} of the fallback: one invocation per index of {stage.domain}")
        self.emit("void main() {")
        self.indent += 1
        self.emit(f"if ({self.sched(S_STATE)} != {STATE_RUNNING}u) return;   // the batch has ended")
        if bit is not None:
            self.emit(f"if (({self.sched(S_FLAGS)} & {1 << bit}u) == 0u) return;   "
                      "// not this step")
        self.emit("uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * "
                  "gl_WorkGroupSize.x + gl_LocalInvocationIndex;")
        self.emit(f"if (_i >= {n}u) return;")
        self.emit(f"_vkp_step = {self.sched(P_STEP)};")
        self.emit(f"{fn.name}({', '.join(self._unravel(stage.domain, '_i'))});")
        self.indent -= 1
        self.emit("}")

    # ---- the megakernel ---------------------------------------------------------------
    def megakernel(self) -> None:
        load, store = self.atomic_load, self.atomic_store
        guard = [self.guard_line()] if self.loop_guard else []
        occ = self.sched(S_OCCUPANCY)
        self.emit_all([
            "shared int _vkp_part_shared;",
            "shared uint _vkp_nparts_shared;",
            *(["shared uint _vkp_group_iterations;"] if self.loop_guard else []),
            "int _vkp_part;       // this workgroup's participant index",
            "uint _vkp_nparts;    // participating workgroups",
            "uint _vkp_gen = 0u;  // grid barriers passed",
            "",
            "// Grid barrier on a monotonic counter; the last workgroup to arrive runs the step",
            "// boundary (when `boundary`) before it releases the others. Only participants",
            "// (workgroups known to be running) are ever waited for.",
            "void _vkp_grid_sync(bool boundary) {",
        ])
        if self.loop_guard:
            self.emit_all(["    atomicMax(_vkp_group_iterations, _vkp_iterations);"])
        self.emit_all([
            "    memoryBarrierBuffer();",
            "    barrier();",
            "    if (gl_LocalInvocationIndex == 0u) {",
            "        _vkp_gen += 1u;",
        ])
        if self.loop_guard:
            self.emit_all([f"        atomicMax({self.sched(S_ITER_MAX)}, _vkp_group_iterations);"])
        polls = " || ".join([f"{load(self.sched(S_RELEASED))} >= _vkp_gen"] * SPIN_UNROLL)
        self.emit_all([
            f"        if (atomicAdd({self.sched(S_ARRIVED)}, 1u) + 1u == _vkp_gen * _vkp_nparts) {{",
            "            memoryBarrierBuffer();",
            "            if (boundary) _vkp_boundary();",
            "            memoryBarrierBuffer();",
            f"            {store(self.sched(S_RELEASED), '_vkp_gen')};",
            "        } else {",
            "            while (true) {",
            *["                " + g for g in guard],
            f"                if ({polls}) break;",
            "            }",
            "        }",
            "        memoryBarrierBuffer();",
            "    }",
            "    barrier();",
            "}",
            "",
            "void main() {",
            "    // occupancy discovery: workgroups join while the poll is open; the first",
            "    // participant closes it once no one has joined for a while (or all have)",
            "    if (gl_LocalInvocationIndex == 0u) {",
            "        uint groups = gl_NumWorkGroups.x;",
            f"        uint w = {load(occ)};",
            "        bool joined = false;",
            "        while ((w & 0x80000000u) == 0u && !joined) {",
            *["            " + g for g in guard],
            f"            uint prev = atomicCompSwap({occ}, w, w + 1u);",
            "            if (prev == w) joined = true; else w = prev;",
            "        }",
            "        int part = joined ? int(w) : -1;",
            "        uint nparts = 0u;",
            "        if (part == 0) {",
            "            uint seen = 1u;",
            "            uint quiet = 0u;",
            f"            while (seen < groups && quiet < {QUIET_POLLS}u) {{",
            *["                " + g for g in guard],
            f"                uint c = {load(occ)} & 0x7FFFFFFFu;",
            "                if (c == seen) quiet += 1u; else { seen = c; quiet = 0u; }",
            "            }",
            f"            nparts = atomicOr({occ}, 0x80000000u) & 0x7FFFFFFFu;",
            f"            {store(self.ctl('_parts'), 'nparts')};",
            "        } else if (part > 0) {",
            f"            uint v = {load(occ)};",
            "            while ((v & 0x80000000u) == 0u) {",
            *["                " + g for g in guard],
            f"                v = {load(occ)};",
            "            }",
            "            nparts = v & 0x7FFFFFFFu;",
            "        }",
            "        _vkp_part_shared = part;",
            "        _vkp_nparts_shared = nparts;",
            *(["        _vkp_group_iterations = 0u;"] if self.loop_guard else []),
            "    }",
            "    barrier();",
            "    _vkp_part = _vkp_part_shared;",
            "    _vkp_nparts = _vkp_nparts_shared;",
            "    if (_vkp_part < 0) return;     // not running alongside the others: leave",
            "    uint _stride = _vkp_nparts * gl_WorkGroupSize.x;",
            "    uint _first = uint(_vkp_part) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;",
            "    while (true) {",
            "        _vkp_grid_sync(true);",
            f"        if ({self.sched(S_STATE)} != {STATE_RUNNING}u) break;",
            f"        uint _flags = {self.sched(S_FLAGS)};",
            f"        _vkp_step = {self.sched(P_STEP)};",
        ])
        self.indent = 2
        for segment in self.plan.segments():
            self.segment(segment, guard)
        self.indent = 0
        self.emit_all(["    }", "}"])

    def segment(self, segment, guard) -> None:
        """One schedule entry: (stage index, barrier before it, barrier after it)."""
        index, before, after = segment
        stage, bit = self.plan.schedule[index]
        fn = self.plan.stage_functions[stage.name]
        if bit is not None:
            self.emit(f"if ((_flags & {1 << bit}u) != 0u) {{   // every({_period_text(self.plan.periods[bit])})")
            self.indent += 1
        if before:
            self.emit("_vkp_grid_sync(false);")
        self.emit(f"// stage {stage.name} over {stage.domain}")
        self.emit(f"for (uint _i = _first; _i < {stage.size}u; _i += _stride) {{")
        self.indent += 1
        for g in guard:
            self.emit(g)
        self.emit(f"{fn.name}({', '.join(self._unravel(stage.domain, '_i'))});")
        self.indent -= 1
        self.emit("}")
        if after:
            self.emit("_vkp_grid_sync(false);")
        if bit is not None:
            self.indent -= 1
            self.emit("}")


def snapshot_words(ctl_type) -> int:
    """How many control words (from word 0) hold the user's host fields."""
    return max([f.word + max(f.count, 1) for f in ctl_type.fields
                if f.side == "host" and not f.name.startswith("_")], default=0)


def sched_words(ctl_type) -> int:
    return SNAPSHOT + snapshot_words(ctl_type)


def _period_text(period) -> str:
    return f"ctl.{period}" if isinstance(period, str) else str(period)
