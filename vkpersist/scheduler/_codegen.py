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
boundary of step t + 2 runs during step t (AHEAD = 2), and at the end of step t each
workgroup's invocation 0 loads the words of step t + 1, ready since the step before, into
the workgroup's shared copy (_megakernel.py). With enough participants, participant 0
runs no stages: it only prepares steps, while the others compute (a workgroup in a
hundred costs ~1% of the throughput, and takes the boundary off the path from one step
to the next). On lavapipe (loop guard) steps are prepared one ahead
(AHEAD = 1) by participant 0 after its share of the step; there every grid barrier also
keeps to lavapipe's loop budget (_budget.py).

Two grid barrier counters: ARRIVED for the barriers between stages (the participants that
run stages), ENDS for the end of each step (every participant). The scheduler words and
their names are laid out in _words.py.
"""
from __future__ import annotations

from ..lang import ir
from ..lang import types as T
from ..lang.bounds import BoundsChecks
from ..lang.glsl import Writer, glsl_type
from ..memsock._device import frame_type
from ._megakernel import MegakernelWriter
from ._words import (REASON_BLOCKED, REASON_BUDGET, REASON_DONE, REASON_HALT, SLOTS,
                     STATE_ENDED, STATE_RUNNING, glsl_constants, snapshot_words)
from ._declare import (C_DROPPED, C_HEAD, C_RELEASED, Q_ARGS, Q_DROPPED, Q_HEAD, Q_HI, Q_LO,
                       Q_TAIL, Q_UNDRAINED)

PHASE_FIRST, PHASE_NEXT, PHASE_FINAL = 0, 1, 2    # fallback queue rounds (setup kernels)
BLOCK_POLLS = 64            # policy "block": polls for the reader before the epoch ends
BLOCK_POLLS_GPU = 1 << 14   # the same on GPUs: a reader that takes the GIL to release a
#                             frame can need milliseconds (the 5 ms switch interval), and each
#                             epoch ended there cost a relaunch and a driver wake-up
#                             (lavapipe's polls count towards its loop limit: 64 there)


class ProgramWriter(MegakernelWriter, BoundsChecks, Writer):
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
                         *glsl_constants(plan.ctl_var.type)]
        self.host_scalars: dict[str, int] = {}   # scalar host fields stages read: word
        self.loops_of: dict[str, int] = {}       # function: the loops a pass meets (_budget.py)
        # the scheduler's own names in the user's namespace, used inside stages by a
        # memsock's frame writes: a stage's local or parameter of the same name is renamed
        self.reserved_names |= {f"{var.name}_{what}" for var, _, _ in plan.sockets
                                for what in ("slot", "seq")}
        if kind == "mega":      # the same names, over the shared copy of the step's words
            self.globals += self.step_word_macros()
            self.cached_loads = plan.cached_loads
            return
        self.globals += ["uint _vkp_step;       // the step being run, as stages see it",
                         "uint _vkp_snap;       // where its snapshot of the host fields starts"]
        if plan.pairs:
            self.globals.append("int _vkp_parity;    // the step's parity: which half of "
                                "each array pair holds the state it reads")
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
                f"{{ {frame_type(var)} {n}_frames[]; }};   // MemSock frames",
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

    def linear(self, var, index) -> str:
        """An array pair's names index their half of the pair's storage: the state a step
        reads (role 0) at half step % 2, the one it writes at the other."""
        flat = super().linear(var, index)
        pair = self.plan.pairs.get(var.name)
        if pair is None:
            return flat
        role, size = pair
        half = "_vkp_parity" if role == 0 else "(1 - _vkp_parity)"
        return f"{half} * {size} + {flat}"

    def queue_push(self, var) -> str:
        """The push helper of queue `var`: reserve a slot with one atomicAdd unless the
        queue is full (then count the item as dropped), then store the item.

        Not a compare-and-swap loop: when thousands of invocations push at once, every
        successful swap makes all the others retry, so filling a queue cost
        capacity x pushers atomics on one word (on the H200 the hot-cell monitor of
        examples/fdtd3d, 65k pushers into 4,096 slots every 20 steps, took 80 % of the
        run). A push that finds the queue full with a plain load leaves the tail alone;
        one that reserves past the end (it lost the race for the last slots) takes its
        reservation back. The tail then exceeds head + capacity only while the queue
        is full, so no push succeeds once it is, and the rounds, which read the tail
        between stages, see it exact."""
        n, cap = var.name, var.type.capacity
        name = f"_vkp_push_{n}"
        tail = f"{n}_q[{Q_TAIL}]"
        if self.memory_model:     # a load racing with atomics must be atomic there
            tail = (f"atomicLoad({tail}, gl_ScopeDevice, gl_StorageSemanticsNone, "
                    "gl_SemanticsRelaxed)")
        if name not in self.helpers:
            lines = (self._push_per_subgroup(n, cap, tail) if "ballot" in self.target.subgroup_ops
                     else self._push_per_invocation(n, cap, tail))
            self.helpers[name] = "\n".join([
                f"bool {name}({glsl_type(var.type.elem)} item) {{",
                f"    uint head = {n}_q[{Q_HEAD}];",
                *lines,
                f"    {n}_items[t % {cap}u] = item;",
                "    return true;",
                "}"])
        return name

    @staticmethod
    def _push_per_invocation(n: str, cap: int, tail: str) -> list[str]:
        return [
            f"    if ({tail} - head >= {cap}u) {{      // full: drop and count",
            f"        atomicAdd({n}_q[{Q_DROPPED}], 1u);",
            "        return false;",
            "    }",
            f"    uint t = atomicAdd({n}_q[{Q_TAIL}], 1u);",
            f"    if (t - head >= {cap}u) {{      // filled meanwhile: undo, drop and count",
            f"        atomicAdd({n}_q[{Q_TAIL}], 0xFFFFFFFFu);",
            f"        atomicAdd({n}_q[{Q_DROPPED}], 1u);",
            "        return false;",
            "    }"]

    def _push_per_subgroup(self, n: str, cap: int, tail: str) -> list[str]:
        """The same with one reservation per subgroup: its pushing invocations count
        themselves with a ballot, the first of them reserves (or drops and counts) for
        all, and each takes the slot of its rank (32x fewer atomics on an NVIDIA warp)."""
        self.unit.uses_subgroup.update(("basic", "ballot"))
        return [
            "    uvec4 pushers = subgroupBallot(true);",
            "    uint k = subgroupBallotBitCount(pushers);",
            f"    uint base = head + {cap}u;      // full: every rank drops",
            "    if (subgroupElect()) {",
            "        uint reserved = 0u;",
            f"        if ({tail} - head < {cap}u) {{",
            f"            base = atomicAdd({n}_q[{Q_TAIL}], k);",
            "            reserved = k;",
            "        }",
            f"        uint kept = base - head >= {cap}u ? 0u : min(k, {cap}u - (base - head));",
            "        if (kept < k) {          // full, or filled meanwhile: undo, drop and count",
            f"            if (reserved > kept) atomicAdd({n}_q[{Q_TAIL}], kept - reserved);",
            f"            atomicAdd({n}_q[{Q_DROPPED}], k - kept);",
            "        }",
            "    }",
            "    uint t = subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(pushers);",
            f"    if (t - head >= {cap}u) return false;"]

    def channel_op(self, op: str, e) -> str:
        """A program lays out its queues itself, and its stages read the host fields from
        their step's snapshot; the rest is the channels' own."""
        if op == "queue_push":
            var, item = e.args
            return f"{self.queue_push(var)}({self.expr(item)})"
        if op == "control_load" and e.args[1].side == "host":
            return self.host_field(e)
        return super().channel_op(op, e)

    def host_field(self, e) -> str:
        """A stage's read of a host control field: from its step's snapshot (a scalar once
        per step, in begin_step), never the live word the host may be rewriting."""
        _, f, index = e.args
        if index is None:
            if f.name not in self.host_scalars:
                self.host_scalars[f.name] = f.word
                if self.kind == "mega":
                    self.globals.append(f"#define {_host_scalar(f.name)} "
                                        f"{self.shared_word(self.host_word(f.name))}")
                else:
                    self.globals.append(f"uint {_host_scalar(f.name)};   // host field "
                                        f"{f.name} in this step's snapshot")
            raw = _host_scalar(f.name)
        else:
            raw = f"_vkp_sched[_vkp_snap + {f.word}u + uint({self.expr(index)})]"
        return {T.f32: f"uintBitsToFloat({raw})", T.i32: f"int({raw})"}.get(f.type, raw)

    # ---- main -------------------------------------------------------------------------
    def function(self, fn: ir.Function) -> None:
        if not fn.is_kernel:
            start = len(self.lines)
            super().function(fn)
            self.count_loops(fn.name, self.lines[start:])
            return
        start = len(self.lines)
        self.boundary_function()
        self.count_loops("_vkp_boundary", self.lines[start:])
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
                *([f"    if ({self.atomic_load('_vkp_status[0]')} == 0u) "
                   f"{self.sched('SAFE')} = {self.sched('DONE')};   // no loop cut short so far"]
                  if self.loop_guard else []),
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
        self.channel(plan.ctl_var).apply_commands(self, plan.ctl_var, "step")
        apply_lines, self.pre = self.pre, saved
        ctl = plan.ctl_var.name
        words = self.snapshot_words
        # loads first, stores after: independent loads of the control words overlap,
        # where a load-store-load chain would wait one memory round trip per word
        snap_loads = [f"uint c{w} = {ctl}[{w}];" for w in range(words)]
        snap_stores = [f"_vkp_sched[_vkp_SNAPSHOT + {words}u * p + {w}u] = c{w};"
                       for w in range(words)]
        # the epoch's end is tested after every load is issued: one round trip, where
        # testing it first made two on the planner's path of every step
        self.emit_all([
            "// Prepares the step words in slot `p` for the next step (see the module's docs).",
            "void _vkp_boundary(uint p) {",
            f"    uint ended = {self.sched('ENDED')};",
            f"    uint head = {self.ctl('_cmd_head')};",
            f"    uint tail = {self.ctl('_cmd_tail')};",
            f"    uint halt = {self.ctl('_halt')};",
            f"    uint budget = {self.ctl('_budget')};",
            *["    " + line for line in snap_loads],
            f"    uint step = {self.sched('STEPS_DONE')};",
            f"    uint done = {self.sched('DONE')};",
            f"    uint started = {self.sched('STARTED')};",
            "    if (ended != 0u) {      // this epoch (batch) has ended",
            f"        {self.step_word(0, 'p')} = {STATE_ENDED}u;",
            "        return;",
            "    }",
            "    if (started != 0u) {      // a step was prepared before",
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
        if self.plan.pairs:
            out.append("_vkp_parity = int(_vkp_step & 1u);")
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
                f"{self.atomic_store(f'{n}_header[{slot}]', self.channel(var).published(self, seq))};")

    def _socket_runs(self, index, flags: str = "flags") -> str:
        if index is None:
            return "false"
        bit = self.plan.schedule[index][1]
        return "true" if bit is None else f"({flags} & {1 << bit}u) != 0u"

    def _socket_free(self, var, sock) -> str:
        n = var.name
        return (f"({n}_cursor[{C_HEAD}] - {self.atomic_load(f'{n}_cursor[{C_RELEASED}]')} "
                f"< {sock.capacity}u)")

    def blocked_checks(self) -> list[str]:
        """Boundary code: a full memsock with policy "block" ends the epoch before the step
        (after a wait, cut short by a halt); the host waits for its reader and starts the
        next epoch."""
        out = []
        polls = BLOCK_POLLS if self.loop_guard else BLOCK_POLLS_GPU
        halt = self.atomic_load(self.ctl('_halt'))
        for var, sock, index in self.plan.sockets:
            if sock.policy != "block" or index is None:
                continue
            free = self._socket_free(var, sock)
            out += [f"if (reason == 0u && {self._socket_runs(index)}) {{   "
                    f"// memsock {var.name} must have room",
                    "    bool room = false;",
                    *(["    " + self.guard_line()] if self.loop_guard else []),
                    f"    for (uint w = 0u; w < {polls}u && !room; w++) {{",
                    *(["        " + self.guard_line()] if self.loop_guard else []),
                    f"        room = {free};",
                    f"        if ({halt} != 0u) break;",
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


def _host_scalar(name: str) -> str:
    """The running step's copy of a scalar host field: stages read it from a register
    (the fallback) or shared memory (the megakernel), not with a coherent load from the
    snapshot per element (+3-6% on the stencil benchmark on the H200, docs/measurements-log.md)."""
    return f"_vkp_host_{name}"
