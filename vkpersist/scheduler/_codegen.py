"""GLSL for programs: the megakernel, and the boundary and stage kernels of the fallback.

All three share the step boundary (`_vkp_boundary(s)`), the code one invocation runs to
prepare a step: count the steps started, apply host commands and acknowledge them with the
step number, snapshot the host-written control fields, publish the heartbeat, decide
whether the step runs (budget, halt) and which `every(n)` stages run in it.

What it prepares goes into one of three slots of step words (slot = step % 3). Nothing a
boundary does depends on what stages compute, and stages never read the control words
themselves, only the snapshot of their step; so commands are applied at exact step
boundaries, and every invocation sees the same control values for the whole step however
the host writes them, which keeps runs reproducible. The fallback runs the boundary as a
one-invocation kernel before each step. Stage bodies are the same GLSL functions in both
modes, called with the same indices: a deterministic program computes bit-identical
results in both.

The megakernel prepares steps ahead, so that no step waits for its boundary: on GPUs the
boundary of step t + 2 runs during step t (AHEAD = 2), and every participant loads the
words of step t + 1 as step t begins, so they are in registers when it ends. With enough
participants, participant 0 runs no stages: it only prepares steps, while the others
compute (a workgroup in a hundred costs ~1% of the throughput, and takes the boundary off
the path from one step to the next). On lavapipe (loop guard) steps are prepared one ahead
(AHEAD = 1) by participant 0 after its share of the step, because the loop-iteration budget
must be checked before each step on the iterations the steps before it used.

Two grid barrier counters: ARRIVED for the barriers between stages (the participants that
run stages), ENDS for the end of each step (every participant). The scheduler words and
their names are laid out in _words.py.
"""
from __future__ import annotations

from ..lang import ir
from ..lang import types as T
from ..lang.glsl import Writer, glsl_type
from ..vk.target import LOOP_GUARD_LIMIT
from ._words import SLOTS, glsl_constants, snapshot_words
from ._declare import (C_DROPPED, C_HEAD, C_RELEASED, Q_ARGS, Q_DROPPED, Q_HEAD, Q_HI, Q_LO,
                       Q_TAIL, Q_UNDRAINED)

STATE_RUNNING, STATE_ENDED = 1, 2
# why an epoch (batch) ended, published in the `_reason` status word
REASON_BUDGET, REASON_HALT, REASON_LOOP_LIMIT, REASON_BLOCKED, REASON_DONE = 1, 2, 3, 4, 5
QUIET_ROUNDS = 1024         # the first participant closes the poll after this many rounds of
                            # unrolled polls without a join (lavapipe's pool threads take
                            # tens of µs to wake)
LOOP_BUDGET = LOOP_GUARD_LIMIT - 20000    # lavapipe: end the epoch well before any loop is cut:
#                                             a spin whose peer thread is descheduled for tens of
#                                             ms runs thousands of iterations within one step
PHASE_FIRST, PHASE_NEXT, PHASE_FINAL = 0, 1, 2    # fallback queue rounds (setup kernels)
BLOCK_POLLS = 64            # policy "block": polls for the reader before the epoch ends


class ProgramWriter(Writer):
    """Writer whose main() is a scheduler: `kind` is "mega" (the megakernel), "boundary",
    a schedule index (that entry's fallback kernel) or ("setup", index) (a queue round's
    setup in the fallback). `plan` is the build's ShaderPlan."""

    def __init__(self, main_fn: ir.Function, unit, plan, kind, *, kernel_id: int):
        super().__init__(main_fn, unit, kernel_id=kernel_id)
        self.target = unit.target
        self.plan = plan
        self.kind = kind
        self.vulkan_memory_model = self.memory_model and kind == "mega"
        self.globals += ["// the scheduler words of _vkp_sched (vkpersist/scheduler/_words.py)",
                         *glsl_constants(plan.ctl_var.type),
                         "uint _vkp_step;       // the step being run, as stages see it",
                         "uint _vkp_snap;       // where its snapshot of the host fields starts"]
        self.host_scalars: dict[str, int] = {}   # scalar host fields stages read: word
        for var, _, _ in plan.sockets:
            self.globals += [f"int {var.name}_slot = -1;   // this step's frame of memsock "
                             f"{var.name} (-1: none)", f"uint {var.name}_seq;"]

    # ---- helpers -----------------------------------------------------------------------
    def contained_functions(self) -> list:
        """Only the stages (and conditions) of this shader: a program's stages are compiled
        once per build, into one unit, and each shader takes its own."""
        return self.plan.functions

    def is_written(self, var) -> bool:
        return var.name in self.plan.writes

    def ctl(self, name: str) -> str:
        f = self.plan.ctl_var.type.field(name)
        return f"{self.plan.ctl_var.name}[{f.word}]"

    def sched(self, name: str) -> str:
        """Scheduler word `name` (_words.py), by its GLSL constant."""
        return f"_vkp_sched[_vkp_{name}]"

    def emit_all(self, text_lines) -> None:
        for line in text_lines:
            self.emit(line)

    def step_word(self, what: int, slot: str) -> str:
        """what: 0 state, 1 flags, 2 step, of the step words in slot `slot`."""
        name = ("STEP_STATE", "STEP_FLAGS", "STEP_NUMBER")[what]
        return f"_vkp_sched[_vkp_{name} + 3u * {slot}]"

    @property
    def ahead(self) -> int:
        """How many steps ahead of the running one the boundary prepares (0: the fallback,
        whose boundary kernel runs right before its step)."""
        return self.target.steps_ahead if self.kind == "mega" else 0

    def _buffer_decl(self, var) -> str:
        if isinstance(var.type, T.SocketType):
            n, b = var.name, var.binding
            return "\n".join([
                f"layout(std430, binding = {b}) writeonly buffer {n}_frames_buffer "
                f"{{ {glsl_type(var.type.elem)} {n}_frames[]; }};   // MemSock frames",
                f"layout(std430, binding = {b + 1}) buffer {n}_header_buffer "
                f"{{ uint {n}_header[]; }};   // published sequence numbers, payload",
                f"layout(std430, binding = {b + 2}) coherent buffer {n}_cursor_buffer "
                f"{{ uint {n}_cursor[]; }};   // host's release cursor, reservations, drops"])
        if isinstance(var.type, T.QueueType):
            n, b = var.name, var.binding
            return "\n".join([
                f"layout(std430, binding = {b}) coherent buffer {n}_q_buffer {{ uint {n}_q[]; }};"
                "   // queue: tail, head, dropped, rounds",
                f"layout(std430, binding = {b + 1}) coherent buffer {n}_items_buffer "
                f"{{ {glsl_type(var.type.elem)} {n}_items[]; }};"])
        return super()._buffer_decl(var)

    def queue_push(self, var) -> str:
        """The push helper of queue `var`: reserve a slot unless the queue is full (then
        count the item as dropped), then store the item."""
        n, cap = var.name, var.type.capacity
        name = f"_vkp_push_{n}"
        if name not in self.helpers:
            guard = ["        " + self.guard_line()] if self.loop_guard else []
            self.helpers[name] = "\n".join([
                f"bool {name}({glsl_type(var.type.elem)} item) {{",
                f"    uint t = atomicAdd({n}_q[{Q_TAIL}], 0u);",
                *[line[4:] for line in guard],
                "    while (true) {",
                *guard,
                f"        if (t - {n}_q[{Q_HEAD}] >= {cap}u) {{      // full: drop and count",
                f"            atomicAdd({n}_q[{Q_DROPPED}], 1u);",
                "            return false;",
                "        }",
                f"        uint prev = atomicCompSwap({n}_q[{Q_TAIL}], t, t + 1u);",
                "        if (prev == t) break;",
                "        t = prev;",
                "    }",
                f"    {n}_items[t % {cap}u] = item;",
                "    return true;",
                "}"])
        return name

    def queue_push_call(self, e):
        var, item = e.args
        return f"{self.queue_push(var)}({self.expr(item)})"

    def control_load(self, e):
        if e.args[1].side == "host":
            _, f, index = e.args
            if index is None:       # loaded once per step, by begin_step
                if f.name not in self.host_scalars:
                    self.host_scalars[f.name] = f.word
                    self.globals.append(f"uint {_host_scalar(f.name)};   // host field "
                                        f"{f.name} in this step's snapshot")
                raw = _host_scalar(f.name)
            else:
                raw = f"_vkp_sched[_vkp_snap + {f.word}u + uint({self.expr(index)})]"
            return {T.f32: f"uintBitsToFloat({raw})", T.i32: f"int({raw})"}.get(f.type, raw)
        return super().control_load(e)

    # ---- main -------------------------------------------------------------------------
    def function(self, fn: ir.Function) -> None:
        if not fn.is_kernel:
            super().function(fn)
            return
        self.boundary_function()
        if self.kind == "mega":
            self.megakernel()
        elif self.kind == "boundary":
            publish = [self.publish(k, "q") for k in range(len(self.plan.sockets))]
            self.emit_all([
                "// the step boundary of the fallback: one invocation, before each step",
                "void main() {",
                f"    uint q = {self.sched('CUR')};   // the step before, now complete everywhere",
                f"    uint p = q == {SLOTS - 1}u ? 0u : q + 1u;",
                *([f"    if ({self.step_word(0, 'q')} == {STATE_RUNNING}u) {{",
                   *["        " + line for line in publish], "    }"] if publish else []),
                "    _vkp_boundary(p);",
                *([f"    if ({self.step_word(0, 'p')} == {STATE_RUNNING}u) {{",
                   *["        " + line for line in self.begin_step("p")],
                   *["        " + line for line in self.evaluate_conditions()],
                   f"        {self.step_word(1, 'p')} |= _whens;",
                   "    }"] if self.plan.conditions else []),
                f"    {self.sched('CUR')} = p;",
                "}"])
        elif isinstance(self.kind, tuple):          # ("setup", schedule index)
            self.queue_setup_kernel(self.kind[1])
        else:
            self.stage_kernel(self.kind)

    def boundary_function(self) -> None:
        plan = self.plan
        saved, self.pre = self.pre, []
        self._control_apply(plan.ctl_var, "step")
        apply_lines, self.pre = self.pre, saved
        ctl = plan.ctl_var.name
        words = self.snapshot_words
        # loads first, stores after: independent loads of the control words overlap,
        # where a load-store-load chain would wait one memory round trip per word
        snap_loads = [f"uint c{w} = {ctl}[{w}];" for w in range(words)]
        snap_stores = [f"_vkp_sched[_vkp_SNAPSHOT + {words}u * p + {w}u] = c{w};"
                       for w in range(words)]
        self.emit_all([
            "// Prepares the step words in slot `p` for the next step (see the module's docs).",
            "void _vkp_boundary(uint p) {",
            f"    if ({self.sched('ENDED')} != 0u) {{      // this epoch (batch) has ended",
            f"        {self.step_word(0, 'p')} = {STATE_ENDED}u;",
            "        return;",
            "    }",
            f"    uint head = {self.ctl('_cmd_head')};",
            f"    uint tail = {self.ctl('_cmd_tail')};",
            f"    uint halt = {self.ctl('_halt')};",
            f"    uint budget = {self.ctl('_budget')};",
            *["    " + line for line in snap_loads],
            f"    uint step = {self.sched('STEPS_DONE')};",
            f"    uint done = {self.sched('DONE')};",
            f"    if ({self.sched('STARTED')} != 0u) {{      // a step was prepared before",
            "        step += 1u;",
            "        done += 1u;",
            f"        {self.sched('STEPS_DONE')} = step;",
            f"        {self.sched('DONE')} = done;",
            "    }",
            f"    {self.sched('STARTED')} = 1u;",
            "    if (head != tail) {",
            *["        " + line for line in apply_lines],
            f"        halt = {self.ctl('_halt')};",
            *["        " + line.replace("uint ", "") for line in snap_loads],
            "    }",
            *["    " + line for line in snap_stores],
            *([f"    {self.ctl('_step')} = step;       // the heartbeat",
               f"    {self.ctl('_done')} = done;"] if not self.ahead else
              [f"    uint lag = min(done, {self.ahead}u);   // steps prepared, not yet complete",
               f"    {self.ctl('_step')} = step - lag;       // the heartbeat",
               f"    {self.ctl('_done')} = done - lag;"]),
            "    uint reason = 0u;",
            f"    if (halt != 0u) reason = {REASON_HALT}u;",
            f"    else if (done >= budget) reason = {REASON_BUDGET}u;",
        ])
        if plan.steps_field is not None:
            f = plan.ctl_var.type.field(plan.steps_field)
            self.emit(f"    else if (step >= uint(c{f.word})) reason = {REASON_DONE}u;   "
                      f"// loop(steps={plan.steps_field!r})")
        if self.kind == "mega" and self.loop_guard:
            self.emit_all([
                "    else {   // lavapipe: end the epoch before any invocation nears the loop limit",
                f"        uint used = {self.sched('ITER_MAX')};",
                f"        uint grown = used - {self.sched('ITER_PREV')};",
                f"        {self.sched('ITER_PREV')} = used;",
                f"        if (used + {3 + self.ahead}u * grown + 1000u >= {LOOP_BUDGET}u) "
                f"reason = {REASON_LOOP_LIMIT}u;",
                "    }",
            ])
        self.emit("    uint flags = 0u;")
        for bit, period in enumerate(plan.periods):
            if bit in plan.conditions or not isinstance(period, (int, str)):
                continue                  # when(...): evaluated once the step's data is final
            if isinstance(period, str):
                f = plan.ctl_var.type.field(period)
                n = f"c{f.word}"
                if f.type == T.f32:
                    n = f"uint(uintBitsToFloat({n}))"
                self.emit(f"    {{ uint n = {n};   // every(ctl.{period})")
            else:
                self.emit(f"    {{ uint n = {period}u;   // every({period})")
            self.emit(f"      if (n != 0u && step % n == 0u) flags |= {1 << bit}u; }}")
        self.emit_all(["    " + line for line in self.blocked_checks()])
        self.emit_all([
            "    if (reason != 0u) {",
            f"        {self.sched('ENDED')} = 1u;",
            f"        {self.step_word(0, 'p')} = {STATE_ENDED}u;",
            f"        {self.ctl('_reason')} = reason;",
            "        return;",
            "    }",
        ])
        self.emit_all(["    " + line for line in self.reservations()])
        self.emit_all([
            f"    {self.step_word(1, 'p')} = flags;",
            f"    {self.step_word(2, 'p')} = step;",
            f"    {self.step_word(0, 'p')} = {STATE_RUNNING}u;",
            "}", ""])

    @property
    def snapshot_words(self) -> int:
        return snapshot_words(self.plan.ctl_var.type)

    def socket_word(self, k: int, slot: str, what: int) -> str:
        """Memsock k's frame for the step in slot `slot`: what 0 frame slot, 1 seq."""
        return f"_vkp_sched[_vkp_SOCKETS + {2 * SLOTS * k + what}u + 2u * {slot}]"

    def evaluate_conditions(self) -> list[str]:
        """`when` conditions as flag bits in `_whens`."""
        if not self.plan.conditions:
            return []
        out = ["uint _whens = 0u;   // when(...) conditions, on the data as the step starts"]
        for bit, fn in self.plan.conditions.items():
            out.append(f"if ({fn.name}()) _whens |= {1 << bit}u;")
        return out

    def begin_step(self, at: str, step: str | None = None) -> list[str]:
        """Statements every invocation runs before the stages of the step in slot `at`
        (`step`: its number, when already loaded)."""
        out = [f"_vkp_step = {step or self.step_word(2, at)};",
               f"_vkp_snap = _vkp_SNAPSHOT + {self.snapshot_words}u * {at};"]
        out += [f"{_host_scalar(name)} = _vkp_sched[_vkp_snap + {word}u];"
                for name, word in self.host_scalars.items()]
        for k, (var, _, _) in enumerate(self.plan.sockets):
            out += [f"{var.name}_slot = int({self.socket_word(k, at, 0)});",
                    f"{var.name}_seq = {self.socket_word(k, at, 1)};"]
        return out

    def publish(self, k: int, at: str | None = None) -> str:
        """Publish memsock k's frame (of the step in slot `at`, else the current one)."""
        var = self.plan.sockets[k][0]
        n = var.name
        if at is None:
            slot, seq = f"{n}_slot", f"{n}_seq"
        else:
            slot, seq = (f"int({self.socket_word(k, at, 0)})",
                         self.socket_word(k, at, 1))
        return (f"if ({slot} >= 0) "
                f"{self.atomic_store(f'{n}_header[{slot}]', self.published(seq))};")

    def _socket_runs(self, index) -> str:
        if index is None:
            return "false"
        bit = self.plan.schedule[index][1]
        return "true" if bit is None else f"(flags & {1 << bit}u) != 0u"

    def _socket_free(self, var, sock) -> str:
        n = var.name
        return (f"({n}_cursor[{C_HEAD}] - {self.atomic_load(f'{n}_cursor[{C_RELEASED}]')} "
                f"< {sock.capacity}u)")

    def blocked_checks(self) -> list[str]:
        """Boundary code: a full memsock with policy "block" ends the epoch before the step
        (after a short wait); the host waits for its reader and starts the next epoch."""
        out = []
        for var, sock, index in self.plan.sockets:
            if sock.policy != "block" or index is None:
                continue
            free = self._socket_free(var, sock)
            out += [f"if (reason == 0u && {self._socket_runs(index)}) {{   "
                    f"// memsock {var.name} must have room",
                    "    bool room = false;",
                    *(["    " + self.guard_line()] if self.loop_guard else []),
                    f"    for (uint w = 0u; w < {BLOCK_POLLS}u && !room; w++) {{",
                    *(["        " + self.guard_line()] if self.loop_guard else []),
                    f"        room = {free};",
                    "    }",
                    f"    if (!room) reason = {REASON_BLOCKED}u;",
                    "}"]
        return out

    def reservations(self) -> list[str]:
        """Boundary code: reserve this step's frame of every memsock whose stage runs; a
        full memsock (policy "drop") drops the frame and counts it."""
        out = []
        for k, (var, sock, index) in enumerate(self.plan.sockets):
            n, cap = var.name, sock.capacity
            out += [f"{{   // the frame of memsock {n}",
                    "    int slot = -1;",
                    f"    uint head = {n}_cursor[{C_HEAD}];",
                    f"    if ({self._socket_runs(index)}) {{",
                    f"        if ({self._socket_free(var, sock)}) {{",
                    f"            slot = int(head % {cap}u);",
                    f"            {n}_cursor[{C_HEAD}] = head + 1u;",
                    f"        }} else {n}_cursor[{C_DROPPED}] += 1u;",
                    "    }",
                    f"    {self.socket_word(k, 'p', 0)} = uint(slot);",
                    f"    {self.socket_word(k, 'p', 1)} = head;",
                    "}"]
        return out

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
        if stage.consumes is not None:
            self.consume_kernel(stage, fn)
            return
        self.emit(f"// stage {stage.name} of the fallback: one invocation per index of "
                  f"{stage.domain}")
        self.emit("void main() {")
        self.indent += 1
        self.emit(f"uint p = {self.sched('CUR')};")
        self.emit(f"if ({self.step_word(0, 'p')} != {STATE_RUNNING}u) return;   "
                  "// the batch has ended")
        if bit is not None:
            self.emit(f"if (({self.step_word(1, 'p')} & {1 << bit}u) == 0u) return;   "
                      "// not this step")
        self.emit("uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * "
                  "gl_WorkGroupSize.x + gl_LocalInvocationIndex;")
        self.emit(f"if (_i >= {stage.size}u) return;")
        self.emit_all(self.begin_step("p"))
        self.emit(f"{fn.name}({', '.join(self._unravel(stage.domain, '_i'))});")
        self.indent -= 1
        self.emit("}")

    # ---- queue stages in the fallback -------------------------------------------------
    def queue_setup_kernel(self, index: int) -> None:
        """Before each round of a queue stage (and once after the last): mark the previous
        round consumed, take [head, tail) as the next round and size its dispatch."""
        stage, bit = self.plan.schedule[index]
        n = self.plan.queue_vars[stage.consumes.name].name
        cond = f"{self.step_word(0, 'p')} == {STATE_RUNNING}u"
        if bit is not None:
            cond += f" && ({self.step_word(1, 'p')} & {1 << bit}u) != 0u"
        self.emit_all([
            f"// rounds of stage {stage.name}, which consumes queue {stage.consumes.name}",
            "void main() {",
            f"    uint p = {self.sched('CUR')};",
            f"    bool runs = {cond};",
            f"    if (runs && _vkp_phase != {PHASE_FIRST}u) {n}_q[{Q_HEAD}] = {n}_q[{Q_HI}];",
            f"    uint lo = {n}_q[{Q_HEAD}];",
            f"    uint hi = runs ? {n}_q[{Q_TAIL}] : lo;",
            f"    if (_vkp_phase == {PHASE_FINAL}u) {{",
            f"        if (hi != lo) {n}_q[{Q_UNDRAINED}] += 1u;   // items left: report it",
            "        hi = lo;",
            "    }",
            f"    {n}_q[{Q_LO}] = lo;",
            f"    {n}_q[{Q_HI}] = hi;",
            f"    {n}_q[{Q_ARGS}] = min((hi - lo + _vkp_local - 1u) / _vkp_local, 65535u);",
            f"    {n}_q[{Q_ARGS + 1}] = 1u;",
            f"    {n}_q[{Q_ARGS + 2}] = 1u;",
            "}"])

    def consume_kernel(self, stage, fn) -> None:
        n = self.plan.queue_vars[stage.consumes.name].name
        cap = stage.consumes.capacity
        self.emit_all([
            f"// stage {stage.name} of the fallback: one round of queue {stage.consumes.name}",
            "void main() {",
            f"    uint p = {self.sched('CUR')};",
            *["    " + line for line in self.begin_step("p")],
            f"    uint lo = {n}_q[{Q_LO}];",
            f"    uint count = {n}_q[{Q_HI}] - lo;",
            "    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;",
            *(["    " + self.guard_line()] if self.loop_guard else []),
            "    for (uint k = gl_GlobalInvocationID.x; k < count; k += stride) {",
            *(["        " + self.guard_line()] if self.loop_guard else []),
            f"        {fn.name}({n}_items[(lo + k) % {cap}u]);",
            "    }",
            "}"])

    # ---- the megakernel ---------------------------------------------------------------
    def poll_load(self, word: str) -> str:
        """A load of a barrier counter in a spin loop: with the memory model a relaxed
        load, and one acquire fence once the loop ends (`poll_acquire`). Measured on the
        H200 within the noise of acquire loads in every poll (docs/benchmarks.md)."""
        if self.memory_model:
            return (f"atomicLoad({word}, gl_ScopeDevice, gl_StorageSemanticsBuffer, "
                    "gl_SemanticsRelaxed)")
        return self.atomic_load(word)

    @property
    def spin_unroll(self) -> int:
        return self.target.spin_unroll

    @property
    def poll_acquire(self) -> list[str]:
        if self.vulkan_memory_model:
            return ["memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, "
                    "gl_SemanticsAcquire | gl_SemanticsMakeVisible);   // acquire what the "
                    "others wrote"]
        return ["memoryBarrierBuffer();   // acquire what the others wrote"] \
            if self.memory_model else []

    @property
    def group_barrier(self) -> list[str]:
        """A grid barrier's workgroup barrier. Under the Vulkan memory model it also makes
        the arrays' writes available (before the arrival) and the others' visible (after
        the poll): +4% / +1% / +22% at 32³ / 64³ / 128³ on the H200 against `coherent`
        arrays, whose every load bypasses L1 (docs/benchmarks.md)."""
        if self.vulkan_memory_model:
            return ["controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, "
                    "gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease | "
                    "gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);"]
        return ["barrier();"]

    def megakernel(self) -> None:
        load = self.atomic_load
        guard = [self.guard_line()] if self.loop_guard else []
        occ = self.sched('OCCUPANCY')
        unroll = self.spin_unroll
        ahead = self.ahead
        # with a dedicated planner, workgroup 0 runs no stages (vk/target.py says when)
        least = self.target.dedicated_planner_from
        w0 = "0u" if least is None else f"(_vkp_nparts >= {least}u ? 1u : 0u)"
        words = ["_state", "_flags", "_stepno"]
        self.emit_all([
            "shared int _vkp_part_shared;",
            "shared uint _vkp_nparts_shared;",
            *(["shared uint _vkp_group_iterations;"] if self.loop_guard else []),
            "int _vkp_part;          // this workgroup's participant index",
            "uint _vkp_nparts;       // participating workgroups",
            "int _vkp_worker;        // its index among those that run stages (-1: none)",
            "uint _vkp_workers;      // participating workgroups that run stages",
            "uint _vkp_target = 0u;  // arrivals that complete the current barrier between stages",
            "uint _vkp_end_target = 0u;   // arrivals that complete the current end of step",
            "uint _vkp_round = 0u;   // queue rounds so far: their words alternate by parity",
            "",
            "// Grid barriers: arrivals on monotonic counters; only participants (workgroups",
            "// known to be running) are ever waited for. Between stages: the workers.",
            *self.sync_function("_vkp_grid_sync()", [
                f"atomicAdd({self.sched('ARRIVED')}, 1u);",
                "_vkp_target += _vkp_workers;"], "ARRIVED", "_vkp_target", guard),
            "// The end of a step: every participant, the planner too.",
            *self.sync_function("_vkp_end_sync()", [
                f"atomicAdd({self.sched('ENDS')}, 1u);",
                "_vkp_end_target += _vkp_nparts;"], "ENDS", "_vkp_end_target", guard),
            *self.queue_syncs(guard),
            "void main() {",
            "    // occupancy discovery: workgroups join while the poll is open; the first",
            "    // participant closes it once no one has joined for a while (or all have)",
            "    if (gl_LocalInvocationIndex == 0u) {",
            "        uint groups = gl_NumWorkGroups.x;",
            f"        uint w = {load(occ)};",
            "        bool joined = false;",
            *["        " + g for g in guard],
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
            *["            " + g for g in guard],
            f"            while (seen < groups && quiet < {QUIET_ROUNDS}u) {{",
            *["                " + g for g in guard],
            *_polled_max("                ", "uint c", load(occ), unroll),
            "                c &= 0x7FFFFFFFu;",
            "                if (c == seen) quiet += 1u; else { seen = c; quiet = 0u; }",
            "            }",
            f"            nparts = atomicOr({occ}, 0x80000000u) & 0x7FFFFFFFu;",
            f"            {self.ctl('_parts')} = nparts;",
            "        } else if (part > 0) {",
            f"            uint v = {load(occ)};",
            *["            " + g for g in guard],
            "            while ((v & 0x80000000u) == 0u) {",
            *["                " + g for g in guard],
            *_polled_max("                ", "v", load(occ), unroll),
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
            f"    uint w0 = {w0};   // 1: participant 0 only plans",
            "    _vkp_workers = _vkp_nparts - w0;",
            "    _vkp_worker = _vkp_part - int(w0);",
            "    uint _stride = _vkp_workers * gl_WorkGroupSize.x;",
            "    uint _first = uint(_vkp_worker) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;",
            "    bool _planner = _vkp_part == 0 && gl_LocalInvocationIndex == 0u;",
            f"    if (_planner) {{      // the first {'step' if ahead == 1 else f'{ahead} steps'}",
            *[f"        _vkp_boundary({k}u);" for k in range(ahead)],
            "    }",
            "    _vkp_end_sync();",
            "    uint s = 0u;          // the slot of the step being run",
            *[f"    uint {w} = {self.step_word(i, 's')};" for i, w in enumerate(words)],
            "    while (true) {",
            *["        " + g for g in guard],      # the step loop counts too
            f"        if (_state != {STATE_RUNNING}u) break;",
            f"        uint _next = s == {SLOTS - 1}u ? 0u : s + 1u;",
        ])
        if ahead > 1:
            self.emit("        // the next step's words, prepared before the last end of step: "
                      "loaded now, used when this step ends")
            self.emit_all([f"        uint _n{w[1:]} = {self.step_word(i, '_next')};"
                           for i, w in enumerate(words)])
        self.emit_all([
            "        if (_vkp_worker >= 0) {",
            *["            " + line for line in self.begin_step("s", "_stepno")]])
        if self.plan.conditions:     # every worker evaluates them, then all wait so
            self.emit_all([          # no stage changes their data before all have
                *["            " + line for line in self.evaluate_conditions()],
                "            _vkp_grid_sync();",
                "            _flags |= _whens;"])
        self.indent = 3
        for segment in self.plan.segments:
            self.segment(segment, guard)
        self.indent = 0
        self.emit_all([
            "        }",
            f"        if (_planner) _vkp_boundary((s + {ahead}u) % {SLOTS}u);   "
            f"// prepare step + {ahead}",
            "        _vkp_end_sync();",
        ])
        self.emit_all([
            *[f"        {w} = " + (f"_n{w[1:]};" if ahead > 1 else
                                   f"{self.step_word(i, '_next')};")
              for i, w in enumerate(words)],
            "        s = _next;",
            "    }",
            "    if (_planner) {      // exact counts, now that the epoch's last step is complete",
            f"        {self.ctl('_step')} = {self.sched('STEPS_DONE')};",
            f"        {self.ctl('_done')} = {self.sched('DONE')};",
            "    }",
            "}"])

    def queue_syncs(self, guard: list) -> list[str]:
        """A grid barrier per consumed queue whose last arrival fixes the next round: it
        marks the round just consumed (when `after_round`) and takes [head, tail) as the
        next, with every push of every worker in it, then arrives once more."""
        out = []
        for qname in sorted({st.consumes.name for st, _ in self.plan.schedule
                             if st.consumes is not None}):
            n = self.plan.queue_vars[qname].name
            out += self.sync_function(f"_vkp_queue_sync_{n}(uint s, bool after_round)", [
                "_vkp_target += _vkp_workers;",
                f"if (atomicAdd({self.sched('ARRIVED')}, 1u) + 1u == _vkp_target) {{",
                f"    if (after_round) {n}_q[{Q_HEAD}] = {n}_q[{Q_HI} + 2u * (s ^ 1u)];",
                f"    {n}_q[{Q_LO} + 2u * s] = {n}_q[{Q_HEAD}];",
                f"    {n}_q[{Q_HI} + 2u * s] = atomicAdd({n}_q[{Q_TAIL}], 0u);",
                "    memoryBarrierBuffer();",
                f"    atomicAdd({self.sched('ARRIVED')}, 1u);",
                "}",
                "_vkp_target += 1u;"], "ARRIVED", "_vkp_target", guard)
        return out

    def sync_function(self, signature: str, arrive: list, counter: str, target: str,
                      guard: list) -> list:
        """A grid barrier function: every invocation's writes are fenced, invocation 0
        runs `arrive` (counting itself and advancing `target`), then spins until the
        counter reaches the target; lavapipe's loop counts travel along."""
        poll = f"{self.poll_load(self.sched(counter))} >= {target}"
        arrived = [f"            if ({poll}"] + \
            [f"                    || {poll}" for _ in range(self.spin_unroll - 1)]
        arrived[-1] += ") break;"
        return [
            f"void {signature} {{",
            *(["    atomicMax(_vkp_group_iterations, _vkp_iterations);"]
              if self.loop_guard else []),
            *([] if self.vulkan_memory_model else ["    memoryBarrierBuffer();"]),
            *["    " + line for line in self.group_barrier],
            "    if (gl_LocalInvocationIndex == 0u) {",
            *([f"        atomicMax({self.sched('ITER_MAX')}, _vkp_group_iterations);"]
              if self.loop_guard else []),
            *["        " + line for line in arrive],
            *["        " + g for g in guard],
            "        while (true) {",
            *["            " + g for g in guard],
            *arrived,     # polls unrolled (the target says how many), one per line
            "        }",
            *["        " + line for line in self.poll_acquire],
            "    }",
            *["    " + line for line in self.group_barrier],
            "}",
            ""]

    def consume_segment(self, stage, fn, guard) -> None:
        n = self.plan.queue_vars[stage.consumes.name].name
        cap = stage.consumes.capacity
        self.emit_all([
            f"// stage {stage.name}: one call per item of queue {stage.consumes.name}, in "
            "rounds, until a round finds it empty",
            f"_vkp_queue_sync_{n}(_vkp_round & 1u, false);",
            *guard,
            "while (true) {",
            *["    " + g for g in guard],
            f"    uint lo = {n}_q[{Q_LO} + 2u * (_vkp_round & 1u)];",
            f"    uint count = {n}_q[{Q_HI} + 2u * (_vkp_round & 1u)] - lo;",
            "    if (count == 0u) break;",
            *["    " + g for g in guard],
            "    for (uint _k = _first; _k < count; _k += _stride) {",
            *["        " + g for g in guard],
            f"        {fn.name}({n}_items[(lo + _k) % {cap}u]);",
            "    }",
            "    _vkp_round += 1u;",
            f"    _vkp_queue_sync_{n}(_vkp_round & 1u, true);",
            "}",
        ])

    def segment(self, segment, guard) -> None:
        """One schedule entry: (stage index, barrier before it, barrier after it)."""
        index, before, after = segment
        stage, bit = self.plan.schedule[index]
        fn = self.plan.stage_functions[stage.name]
        if bit is not None:
            self.emit(f"if ((_flags & {1 << bit}u) != 0u) {{   "
                      f"// {_period_text(self.plan.periods[bit])}")
            self.indent += 1
        if stage.consumes is not None:
            self.consume_segment(stage, fn, guard)
        else:
            self.domain_segment(index, stage, fn, guard, before, after)
        if bit is not None:
            self.indent -= 1
            self.emit("}")

    def domain_segment(self, index, stage, fn, guard, before, after) -> None:
        if before:
            self.emit("_vkp_grid_sync();")
        self.emit(f"// stage {stage.name} over {stage.domain}")
        for g in guard:
            self.emit(g)
        self.emit(f"for (uint _i = _first; _i < {stage.size}u; _i += _stride) {{")
        self.indent += 1
        for g in guard:
            self.emit(g)
        self.emit(f"{fn.name}({', '.join(self._unravel(stage.domain, '_i'))});")
        self.indent -= 1
        self.emit("}")
        if after:
            self.emit("_vkp_grid_sync();")
        for k, (_, _, emitter) in enumerate(self.plan.sockets):
            if emitter == index:       # written everywhere now: publish the frame
                self.emit("if (_vkp_worker == 0 && gl_LocalInvocationIndex == 0u) "
                          f"{{ {self.publish(k)} }}")


def _period_text(period) -> str:
    if isinstance(period, str):
        return f"every(ctl.{period})"
    return f"every({period})" if isinstance(period, int) else repr(period)


def _host_scalar(name: str) -> str:
    """The private copy of a scalar host field for the running step: stages read it from
    a register, not with a coherent load from the snapshot per element (+3-6% on the
    stencil benchmark on the H200, docs/benchmarks.md)."""
    return f"_vkp_host_{name}"


def _polled_max(indent: str, target: str, load: str, unroll: int) -> list[str]:
    """`target` = the largest of `unroll` polls of `load`, one poll per line."""
    name = target.split()[-1]
    return [f"{indent}{target} = {load};"] + \
        [f"{indent}{name} = max({name}, {load});" for _ in range(unroll - 1)]
