"""The megakernel's main(): occupancy discovery, then the steps, each the schedule's stages
between grid barriers, with the step boundary prepared ahead by participant 0 (see
_codegen.py's module docs for the scheme). A mixin of ProgramWriter: it provides the
plan, the step words and the boundary; this part writes the synchronisation and the loop.

Grid barriers are arrivals on monotonic counters (ARRIVED between stages, ENDS at the end of
each step); only participants, workgroups known to be running, are ever waited for, so no
occupancy can deadlock it. Polls are unrolled (the target says how many per loop
iteration) and, under the Vulkan memory model, relaxed loads with one acquire fence after
the loop. On lavapipe every barrier also keeps the loop budget, and may end the epoch there
(_budget.py).
"""
from __future__ import annotations

from ._budget import CUT, NO_CUT, LoopBudget
from ._declare import Q_HI, Q_LO, period_text
from ._words import (CHUNKS, SLOTS, STATE_RUNNING, W_FLAGS, W_SLOT, W_SOCKETS, W_STATE,
                     W_STEP)

QUIET_ROUNDS = 1024         # the first participant closes the poll after this many rounds of
                            # unrolled polls without a join (lavapipe's pool threads take
                            # tens of µs to wake)
QUIET_UNROLL = 8            # polls per round at least: the window of 8,192 polls GPUs were
                            # measured with stays when barriers poll once per iteration
QUIET_UNROLL_GUARDED = 64   # lavapipe: the window of 65,536 polls (~1.5 ms) it was measured
                            # with when its barriers polled 64 times an iteration


class MegakernelWriter(LoopBudget):
    def poll_load(self, word: str) -> str:
        """A load of a barrier counter in a spin loop: with the memory model a relaxed
        load, and one acquire fence once the loop ends (`poll_acquire`). Measured on the
        H200 within the noise of acquire loads in every poll (docs/measurements-log.md). A
        relaxed atomic names no storage class (spirv-val: VUID-StandaloneSpirv-
        MemorySemantics-10871); the fence names the buffers."""
        if self.memory_model:
            return (f"atomicLoad({word}, gl_ScopeDevice, gl_StorageSemanticsNone, "
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
        arrays, whose every load bypasses L1 (docs/measurements-log.md). Shared memory too: the
        end of step passes on `_vkp_words`."""
        if self.vulkan_memory_model:
            scope = "gl_ScopeWorkgroup" if self.release_arrivals else "gl_ScopeDevice"
            return [f"controlBarrier(gl_ScopeWorkgroup, {scope}, "
                    "gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, "
                    "gl_SemanticsAcquireRelease | "
                    "gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);"]
        return ["barrier();"]

    @property
    def release_arrivals(self) -> bool:
        """Target.grid_barrier "release": the arrival carries the device-scope release (the
        workgroup barrier before it only makes the group's writes available to the group:
        an availability chain, workgroup then device), and the acquire fence after the
        polls the device-scope visibility the workgroup barrier then passes on."""
        return self.vulkan_memory_model and self.target.grid_barrier == "release"

    def arrive(self, counter: str) -> str:
        """An arrival on grid-barrier counter `counter` (returns the count before it)."""
        word = self.sched(counter)
        if self.release_arrivals:
            return (f"atomicAdd({word}, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, "
                    "gl_SemanticsRelease | gl_SemanticsMakeAvailable)")
        return f"atomicAdd({word}, 1u)"

    # ---- the running step's words ------------------------------------------------------
    # Invocation 0 copies them into shared memory at each end of step; the names stages use
    # (_vkp_step, _vkp_parity, NAME_slot, _vkp_host_NAME, ...) are macros over that copy.
    # Held in registers instead, each was live across every stage of the step, the heaviest
    # included: a monitor's frame slot and sequence number or a control it reads raised the
    # FDTD megakernel from 29 to 36 registers, and 6 workgroups fit per SM instead of 8
    # (-13% at 256³ on the H200, docs/measurements-log.md).
    @staticmethod
    def shared_word(index: int) -> str:
        return f"_vkp_words[{index}]"

    def host_word(self, name: str) -> int:
        return W_SOCKETS + 2 * len(self.plan.sockets) + list(self.host_scalars).index(name)

    def step_word_macros(self) -> list[str]:
        w = self.shared_word
        out = ["// the running step's values: the shared copy of its words (_megakernel.py)",
               f"#define _vkp_step {w(W_STEP)}",
               f"#define _vkp_snap (_vkp_SNAPSHOT + {self.snapshot_words}u * {w(W_SLOT)})"]
        if self.plan.pairs:
            out.append(f"#define _vkp_parity int({w(W_STEP)} & 1u)")
        for k, (var, _, _) in enumerate(self.plan.sockets):
            out += [f"#define {var.name}_slot int({w(W_SOCKETS + 2 * k)})",
                    f"#define {var.name}_seq {w(W_SOCKETS + 2 * k + 1)}"]
        return out

    def step_word_sources(self, slot: str) -> list[str]:
        """The words of the step in slot `slot`, in the order of `_vkp_words`."""
        out = [self.step_word(i, slot) for i in range(3)] + [slot]
        for k in range(len(self.plan.sockets)):
            out += [self.socket_word(k, slot, 0), self.socket_word(k, slot, 1)]
        out += [f"_vkp_sched[_vkp_SNAPSHOT + {self.snapshot_words}u * {slot} + {word}u]"
                for word in self.host_scalars.values()]
        return out

    def end_sync_function(self, guard: list) -> list[str]:
        """The end of a step: every participant, the planner too. Invocation 0 then copies
        the next step's words into `_vkp_words`; with steps prepared ahead they are ready a
        step early (the first step's are not) and loaded before the arrival."""
        sources = self.step_word_sources("slot")
        early = self.ahead > 1
        arrive = [f"{self.arrive('ENDS')};", "_vkp_end_target += _vkp_nparts;"]
        if early:
            loads = [f"_w{i} = {src};" for i, src in enumerate(sources)]
            arrive = [f"uint {', '.join(f'_w{i}' for i in range(len(sources)))};",
                      "if (ready) {   // prepared a step ago: load them before the barrier",
                      *["    " + line for line in loads], "}", *arrive]
            after = ["if (!ready) {", *["    " + line for line in loads], "}",
                     *[f"{self.shared_word(i)} = _w{i};" for i in range(len(sources))]]
        else:
            after = [f"{self.shared_word(i)} = {src};" for i, src in enumerate(sources)]
        self.globals.append(f"shared uint _vkp_words[{len(sources)}];   // the running "
                            "step's words")
        return self.sync_function(
            f"_vkp_end_sync(uint slot{', bool ready' if early else ''})", arrive, "ENDS",
            "_vkp_end_target", guard, after, self.end_cut("slot") if self.loop_guard else None,
            "_vkp_end_target + _vkp_nparts")

    def end_sync(self, slot: str, ready: bool) -> str:
        return f"_vkp_end_sync({slot}{(', ' + str(ready).lower()) if self.ahead > 1 else ''});"

    def megakernel(self) -> None:
        load = self.atomic_load
        lg = self.loop_guard
        guard = [self.guard_line()] if lg else []
        occ = self.sched('OCCUPANCY')
        # occupancy discovery's polls a round
        unroll = max(self.spin_unroll, QUIET_UNROLL_GUARDED if lg else QUIET_UNROLL)
        ahead = self.ahead
        # with a dedicated planner, workgroup 0 runs no stages (vk/target.py says when)
        least = self.target.dedicated_planner_from
        w0 = "0u" if least is None else f"(_vkp_nparts >= {least}u ? 1u : 0u)"
        self.ordered = self.plan.ordered
        joined = "0x3FFFFFFFu" if lg else "0x7FFFFFFFu"   # lavapipe: bit 30 abandons the epoch
        if lg:
            close = ["uint closed = atomicOr(" + occ + ", 0x80000000u);",
                     f"nparts = closed & {joined};", *self.abandoned()]
            abandon = [f"if ((v & 0xC0000000u) == 0u && _vkp_iterations >= "
                       f"{self.target.loop_budget // 2}u) atomicCompSwap({occ}, v, v | {CUT:#x}u);"
                       "   // waited half the budget: abandon the epoch"]
        else:
            close, abandon = [f"nparts = atomicOr({occ}, 0x80000000u) & {joined};"], []
        discovery = [
            "if (gl_LocalInvocationIndex == 0u) {",
            "    uint groups = gl_NumWorkGroups.x;",
            f"    uint w = {load(occ)};",
            "    bool joined = false;",
            *["    " + g for g in guard],
            "    while ((w & 0x80000000u) == 0u && !joined) {",
            *["        " + g for g in guard],
            f"        uint prev = atomicCompSwap({occ}, w, w + 1u);",
            "        if (prev == w) joined = true; else w = prev;",
            "    }",
            "    int part = joined ? int(w) : -1;",
            "    uint nparts = 0u;",
            "    if (part == 0) {",
            "        uint seen = 1u;",
            "        uint quiet = 0u;",
            *["        " + g for g in guard],
            f"        while (seen < groups && quiet < {QUIET_ROUNDS}u) {{",
            *["            " + g for g in guard],
            *_polled_max("            ", "uint c", load(occ), unroll),
            "            c &= 0x7FFFFFFFu;",
            "            if (c == seen) quiet += 1u; else { seen = c; quiet = 0u; }",
            "        }",
            *["        " + line for line in close],
            f"        {self.ctl('_parts')} = nparts;",
            "    } else if (part > 0) {",
            f"        uint v = {load(occ)};",
            *["        " + g for g in guard],
            f"        while ((v & {'0xC0000000u' if lg else '0x80000000u'}) == 0u) {{",
            *["            " + g for g in guard],
            *_polled_max("            ", "v", load(occ), unroll),
            *["            " + line for line in abandon],
            "        }",
            f"        nparts = v & {joined};",
            *([f"        if ((v & {CUT:#x}u) != 0u) part = -1;"] if lg else []),
            "    }",
            "    _vkp_part_shared = part;",
            "    _vkp_nparts_shared = nparts;",
            *(["    _vkp_group_iterations = 0u;",
               *["    " + line for line in self.budget_discovery("nparts")]] if lg else []),
            "}"]
        self.emit_all([
            *(["shared uint _vkp_chunk_shared;   // the chunk the workgroup took",
               "shared uint _vkp_chunk_base;     // invocation 0: grabs before this stage"]
              if self.ordered else []),
            "shared int _vkp_part_shared;",
            "shared uint _vkp_nparts_shared;",
            *(["shared uint _vkp_group_iterations;", *self.budget_globals()] if lg else []),
            "int _vkp_part;          // this workgroup's participant index",
            "uint _vkp_nparts;       // participating workgroups",
            "int _vkp_worker;        // its index among those that run stages (-1: none)",
            "uint _vkp_workers;      // participating workgroups that run stages",
            "uint _vkp_target = 0u;  // arrivals that complete the current barrier between stages",
            "uint _vkp_end_target = 0u;   // arrivals that complete the current end of step",
            "uint _vkp_round = 0u;   // queue rounds so far: their words alternate by parity",
            "",
            *(self.budget_helpers() + self.unprepare_function() if lg else []),
            "// Grid barriers: arrivals on monotonic counters; only participants (workgroups",
            "// known to be running) are ever waited for. Between stages: the workers.",
            *self.sync_function("_vkp_grid_sync(uint point)" if lg else "_vkp_grid_sync()", [
                f"{self.arrive('ARRIVED')};",
                "_vkp_target += _vkp_workers;"], "ARRIVED", "_vkp_target", guard,
                cut=self.mid_cut() if lg else None, joins="_vkp_target + _vkp_workers"),
            *self.end_sync_function(guard),
            *self.queue_syncs(guard)])
        # the step's body first: under the loop budget its resume points decide how an
        # epoch starts (resume_start)
        self.point = 0
        self.consume_points: dict[int, str] = {}
        mark, self.indent = len(self.lines), 3
        if self.plan.conditions:     # every worker evaluates them, then all wait so
            self.emit_all([          # no stage changes their data before all have
                *self.gated([*self.evaluate_conditions(),
                             "if (gl_LocalInvocationIndex == 0u) "
                             f"{self.shared_word(W_FLAGS)} |= _whens;"]),
                self.barrier_call()])
        for segment in self.plan.segments:
            self.segment(segment, guard)
        self.indent = 0
        body, self.lines[mark:] = self.lines[mark:], []
        planner = "the planner's loops, in the others"
        boundary = self.count_line([f"_vkp_boundary({k}u);" for k in range(ahead)],
                                   planner) if lg else []
        next_boundary = self.count_line(["_vkp_boundary(0u);"], planner) if lg else []
        if lg:
            start = [
                f"{self.sched('FIRST')} = {self.sched('STEPS_DONE')};",
                "if (_vkp_resume != 0u) {   // the epoch before was cut within this step",
                *["    " + line for line in self.resume_start()],
                "} else {",
                *[f"    _vkp_boundary({k}u);" for k in range(ahead)],
                "}"]
            first = [f"uint s = _vkp_resume != 0u ? {self.sched('RESUME_SLOT')} : 0u;   // the "
                     "slot of the step being run",
                     "_vkp_counted = _vkp_iterations - _vkp_spins;",
                     self.end_sync("s", False),
                     f"if (_planner && !_vkp_end_cut) {self.ctl('_resume')} = 0u;   // resumed"]
        else:
            start = [f"_vkp_boundary({k}u);" for k in range(ahead)]
            first = [self.end_sync("0u", False),
                     "uint s = 0u;          // the slot of the step being run"]
        self.emit_all([
            "void main() {",
            "    // occupancy discovery: workgroups join while the poll is open; the first",
            "    // participant closes it once no one has joined for a while (or all have)",
            *(["    " + line for line in self.count_line(discovery, "invocation 0's loops, "
                                                            "in the others")] if lg else []),
            *["    " + line for line in discovery],
            "    barrier();",
            "    _vkp_part = _vkp_part_shared;",
            "    _vkp_nparts = _vkp_nparts_shared;",
            *(["    _vkp_resume = _vkp_resume_shared;"] if lg else []),
            "    if (_vkp_part < 0) return;     // not running alongside the others: leave",
            f"    uint w0 = {w0};   // 1: participant 0 only plans",
            "    _vkp_workers = _vkp_nparts - w0;",
            "    _vkp_worker = _vkp_part - int(w0);",
            "    uint _stride = _vkp_workers * gl_WorkGroupSize.x;",
            "    uint _first = uint(_vkp_worker) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;",
            "    bool _planner = _vkp_part == 0 && gl_LocalInvocationIndex == 0u;",
            *(["    if (gl_LocalInvocationIndex == 0u) _vkp_chunk_base = 0u;"]
              if self.ordered else []),
            *["    " + line for line in boundary],
            f"    if (_planner) {{      // the first {'step' if ahead == 1 else f'{ahead} steps'}",
            *["        " + line for line in start],
            "    }",
            *["    " + line for line in first],
            "    while (true) {",
            *["        " + g for g in guard],      # the step loop counts too
            f"        if ({self.shared_word(W_STATE)} != {STATE_RUNNING}u) break;",
            f"        uint _next = s == {SLOTS - 1}u ? 0u : s + 1u;",
            "        if (_vkp_worker >= 0) {",
            *body,
            "        }",
            *([f"        if (_vkp_worker < 0) {line}" for line in self.count_line(
                body, "a planner that runs no stages meets their loops")]
              if lg and least is not None else []),
            *([f"        if (_vkp_stop != {NO_CUT:#x}u) break;   // cut within the step"]
              if lg else []),
            *["        " + line for line in next_boundary],
            f"        if (_planner) _vkp_boundary((s + {ahead}u) % {SLOTS}u);   "
            f"// prepare step + {ahead}",
            f"        {self.end_sync('_next', True)}",
            *([f"        if (_planner && !_vkp_end_cut && {load('_vkp_status[0]')} == 0u)   "
               "// no loop cut short",
               f"            {self.sched('SAFE')} = {self.step_word(2, 's')} + 1u - "
               f"{self.sched('FIRST')};"] if lg else []),
            "        s = _next;",
            *(["        _vkp_resume = 0u;"] if lg else []),
            "    }",
            *(["    " + line for line in self.budget_exit()] if lg else [
                "    if (_planner) {      // exact counts, now that the epoch's last step is "
                "complete",
                f"        {self.ctl('_step')} = {self.sched('STEPS_DONE')};",
                f"        {self.ctl('_done')} = {self.sched('DONE')};",
                "    }"]),
            "}"])

    def queue_syncs(self, guard: list) -> list[str]:
        """A grid barrier per consumed queue whose last arrival fixes the next round: it
        marks the round just consumed (when `after_round`) and takes [head, tail) as the
        next, with every push of every worker in it, then arrives once more."""
        out = []
        for qname in sorted({st.consumes.name for st, _ in self.plan.schedule
                             if st.consumes is not None}):
            n = self.plan.queue_vars[qname].name
            point = ", uint point" if self.loop_guard else ""
            out += self.sync_function(f"_vkp_queue_sync_{n}(uint s, bool after_round{point})", [
                "_vkp_target += _vkp_workers;",
                f"if ({self.arrive('ARRIVED')} + 1u == _vkp_target) {{",
                *["    " + line for line in self.queue_round_setup(n, "s", "after_round")],
                "    memoryBarrierBuffer();",
                f"    {self.arrive('ARRIVED')};",
                "}",
                "_vkp_target += 1u;"], "ARRIVED", "_vkp_target", guard,
                cut=self.mid_cut(queue=True) if self.loop_guard else None,
                joins="_vkp_target + _vkp_workers + 1u")
        return out

    def sync_function(self, signature: str, arrive: list, counter: str, target: str,
                      guard: list, after: list = (), cut: list | None = None,
                      joins: str = "") -> list:
        """A grid barrier function: every invocation's writes are fenced, invocation 0
        runs `arrive` (counting itself and advancing `target`), spins until the counter
        reaches the target, then runs `after`. Under the loop guard, the budget's form
        (_budget.py), with `cut` where the barrier is cut and `joins`, the target once
        `arrive` has run."""
        if self.loop_guard:
            return self.budget_sync(signature, arrive, counter, target, guard, after,
                                    counter == "ENDS", cut, joins)
        poll = f"{self.poll_load(self.sched(counter))} >= {target}"
        arrived = [f"            if ({poll}"] + \
            [f"                    || {poll}" for _ in range(self.spin_unroll - 1)]
        arrived[-1] += ") break;"
        return [
            f"void {signature} {{",
            *([] if self.vulkan_memory_model else ["    memoryBarrierBuffer();"]),
            *["    " + line for line in self.group_barrier],
            "    if (gl_LocalInvocationIndex == 0u) {",
            *["        " + line for line in arrive],
            "        while (true) {",
            *arrived,     # polls unrolled (the target says how many), one per line
            "        }",
            *["        " + line for line in self.poll_acquire],
            *["        " + line for line in after],
            "    }",
            *["    " + line for line in self.group_barrier],
            "}",
            ""]

    def consume_segment(self, stage, fn, guard) -> None:
        n = self.plan.queue_vars[stage.consumes.name].name
        cap = stage.consumes.capacity
        first = f"_vkp_queue_sync_{n}(_vkp_round & 1u, false);"
        again = f"_vkp_queue_sync_{n}(_vkp_round & 1u, true);"
        cut = []
        if self.loop_guard:       # a resume point: its round barriers may be cut
            self.point += 1
            p = self.point
            self.consume_points[p] = n
            first = (f"if (_vkp_resume == {p}u) _vkp_round = "
                     f"{self.sched('RESUME_ROUND')} & {CUT - 1:#x}u;   // resumed in a round\n"
                     f"else _vkp_queue_sync_{n}(_vkp_round & 1u, false, {p}u);")
            again = f"_vkp_queue_sync_{n}(_vkp_round & 1u, true, {p}u);"
            cut = [f"    if (_vkp_stop != {NO_CUT:#x}u) break;   // cut at a round's barrier"]
        lines = [
            f"// stage {stage.name}: one call per item of queue {stage.consumes.name}, in "
            "rounds, until a round finds it empty",
            *first.split("\n"),
            *guard,
            "while (true) {",
            *["    " + g for g in guard],
            *cut,
            f"    uint lo = {n}_q[{Q_LO} + 2u * (_vkp_round & 1u)];",
            f"    uint count = {n}_q[{Q_HI} + 2u * (_vkp_round & 1u)] - lo;",
            "    if (count == 0u) break;",
            *["    " + g for g in guard],
            "    for (uint _k = _first; _k < count; _k += _stride) {",
            *["        " + g for g in guard],
            f"        {fn.name}({n}_items[(lo + _k) % {cap}u]);",
            "    }",
            "    _vkp_round += 1u;",
            f"    {again}",
            "}",
        ]
        self.emit_all(self.gated(lines))

    def segment(self, segment, guard) -> None:
        """One schedule entry: (stage index, barrier before it, barrier after it)."""
        index, before, after = segment
        stage, bit = self.plan.schedule[index]
        fn = self.plan.stage_functions[stage.name]
        if bit is not None:
            self.emit(f"if (({self.shared_word(W_FLAGS)} & {1 << bit}u) != 0u) {{   "
                      f"// {period_text(self.plan.periods[bit])}")
            self.indent += 1
        start = len(self.lines)
        if stage.consumes is not None:
            self.consume_segment(stage, fn, guard)
        else:
            self.domain_segment(index, stage, fn, guard, before, after)
        if bit is not None:
            skipped = self.lines[start:]
            self.indent -= 1
            self.emit("}")
            if self.loop_guard:
                self.emit_all(self.count_line(skipped, "the loops above, where they do not run"))

    def domain_segment(self, index, stage, fn, guard, before, after) -> None:
        if before:
            self.emit(self.barrier_call())
        lines = [f"// stage {stage.name} over {stage.domain}", *guard]
        if index in self.ordered:
            chunks = f"(({stage.size}u + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x)"
            lines += [
                "// indices in chunks of a workgroup, in order, from a counter",
                "while (true) {",
                *["    " + g for g in guard],
                "    if (gl_LocalInvocationIndex == 0u) _vkp_chunk_shared = "
                f"atomicAdd(_vkp_sched[{CHUNKS}u], 1u) - _vkp_chunk_base;",
                "    barrier();",
                "    uint _c = _vkp_chunk_shared;",
                "    barrier();",
                f"    if (_c >= {chunks}) break;",
                "    uint _i = _c * gl_WorkGroupSize.x + gl_LocalInvocationIndex;",
                f"    if (_i < {stage.size}u) "
                f"{fn.name}({', '.join(self._unravel(stage.domain, '_i'))});",
                "}",
                "if (gl_LocalInvocationIndex == 0u) "
                f"_vkp_chunk_base += {chunks} + _vkp_workers;   // one failed grab each"]
        else:
            lines += [f"for (uint _i = _first; _i < {stage.size}u; _i += _stride) {{",
                      *["    " + g for g in guard],
                      f"    {fn.name}({', '.join(self._unravel(stage.domain, '_i'))});",
                      "}"]
        self.emit_all(self.gated(lines))
        if after:
            self.emit(self.barrier_call())
        publish = [f"if (_vkp_worker == 0 && gl_LocalInvocationIndex == 0u) {{ {self.publish(k)} }}"
                   for k, (_, _, emitter) in enumerate(self.plan.sockets) if emitter == index]
        if publish:                # written everywhere now: publish the frame
            self.emit_all(self.gated(publish))


def _polled_max(indent: str, target: str, load: str, unroll: int) -> list[str]:
    """`target` = the largest of `unroll` polls of `load`, one poll per line."""
    name = target.split()[-1]
    return [f"{indent}{target} = {load};"] + \
        [f"{indent}{name} = max({name}, {load});" for _ in range(unroll - 1)]
