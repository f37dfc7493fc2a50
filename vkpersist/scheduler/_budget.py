"""lavapipe's loop budget in the megakernel: every grid barrier keeps to it.

lavapipe ends every loop of an invocation silently once it has run ~65,535 iterations in
all (VULKAN_FACTS.md §5); the loop guard counts them and reports a kernel that reaches
LOOP_GUARD_LIMIT (vk/loop_guard.py), so a megakernel's epoch must end before any of its
invocations gets there. Two things consume the count:

- work: the stages' grid-stride loops and their own loops, the step boundary. Measured:
  each invocation's count less its waits grows by at most `_vkp_worst` a step (the most
  over the workgroup's invocations and the epoch's steps so far), carried to the next
  epoch in WORK_RAW and, times the participants, WORK_NORM (one participant does twice
  the work of two);
- waits: invocation 0 of every workgroup spins at each grid barrier until all have
  arrived, Target.spin_unroll polls (~23 ns each on lavapipe) a counted iteration. On a
  loaded 2-core machine a peer's thread was descheduled for up to 62 ms in a 513² D2Q9 run
  (a wait of 42,228 iterations of 64 polls, 2026-12-07): most of a whole epoch's budget,
  which no estimate made before the step bounds (the boundary's former estimate, 4 times
  the last step's growth with 20,000 to spare, let such waits reach the limit: issue 47).

So the budget is kept at each grid barrier, exactly, by the workgroup itself: it arrives
only if its count plus what the next step needs (at the end of a step) or what the rest of
its step needs (between stages) stays below Target.loop_budget, and its waiter stops
waiting once that no longer holds. Either way it *cuts* the barrier: it records the
barrier's target (NAME_CUT, by atomicMax) and sets CUT in the counter while the count is
short of it, atomically (this workgroup has not arrived, or a compare-and-swap on the count
it just read), so no participant has passed the barrier or ever will: each sees CUT, finds
its own target recorded and leaves the step loop. One still polling an earlier barrier,
which did complete, finds a later target recorded and passes (only the barrier all have
reached can be cut, so the largest target recorded is the cut one's).

A cut at the end of a step ends the epoch after that step: the steps prepared beyond it are
withdrawn (`_vkp_unprepare`: their memsock frames, drops and counts; commands they applied
stay applied, acknowledged with the step the next epoch runs them at). A cut between stages
leaves the step half done: the participants record where (CUT_AT, RESUME_*) and the last
one to leave publishes it in the `_resume` status word; the next epoch resumes the step
after that barrier with the words it had, and the host always runs that epoch before it
pauses, stops or gives the arrays back (_runner.py). Each stage, barrier and queue round of
a step is gated by its place (`_vkp_resume`, `_vkp_stop`). Occupancy discovery keeps the
budget too: a workgroup that waits half of it for the poll to close abandons the epoch (no
step; the next one starts afresh).

Masked passes: lavapipe runs a workgroup as vectors of 8 invocations and counts a loop's
pass also in a vector none of whose invocations runs it (measured: around a loop that only
invocation 0 runs, an outer loop was cut after 32,768 passes in the other vectors), which
the guard lines of the loop never see. So every invocation counts the loops of a block that
only some run (invocation 0's waits, the planner's boundary, every()/when() stages) with
`_vkp_count`.
"""
from __future__ import annotations

import re

from ..vk.target import LOOP_GUARD_LIMIT
from ._declare import C_DROPPED, C_HEAD, Q_HEAD, Q_HI, Q_LO, Q_TAIL
from ._words import (REASON_CUT, REASON_LOOP_LIMIT, SLOTS, STATE_ENDED, STATE_RUNNING,
                     W_FLAGS, W_SLOT, W_STATE)

CUT = 0x40000000            # set in a grid barrier's counter (or the occupancy word): cut there
NO_CUT = 0xFFFFFFFF         # `_vkp_stop` while the step runs on
MARGIN_PART = 32            # the end of a step keeps 1/32 of the budget for the next beyond
#                             9/8 of its worst so far: its waits between stages (2,000 of
#                             lavapipe's, ~0.75 ms at 16 polls an iteration; longer ones cut
#                             it there, and the next epoch finishes it) and costlier work
OPENING = 2048              # about what an epoch's start costs before its first step (the
#                             occupancy poll's QUIET_ROUNDS, the first boundary)
AFTER_ROUND = 0x80000000    # RESUME_ROUND: the cut barrier came after a round was consumed
KEPT = 0x80000000           # END_CUT: the step whose start was cut is a resumed one
_LOOP = re.compile(r"\b(?:while|for) \(")


class LoopBudget:
    """Mixed into MegakernelWriter: the megakernel's code for the loop budget (loop-guard
    targets only; elsewhere none of it is emitted)."""

    # ---- counting -----------------------------------------------------------------------
    def static_loops(self, lines) -> int:
        """Loops a pass through `lines` meets once each where none of its invocations runs
        them: their own, and those of the functions and helpers they call."""
        text = "\n".join(lines)
        n = len(_LOOP.findall(text))
        calls = list(self.loops_of.items()) + \
            [(f"_vkp_{key}", len(_LOOP.findall(code))) for key, code in self.helpers.items()]
        for name, k in calls:
            if k:
                n += k * len(re.findall(rf"\b{re.escape(name)}\(", text))
        return n

    def count_loops(self, name: str, lines) -> None:
        """Remember how many loops function `name` (emitted as `lines`) meets."""
        self.loops_of[name] = self.static_loops(lines)

    def count_line(self, lines, what: str) -> list[str]:
        """`_vkp_count` for the loops of `lines`, which some invocations skip."""
        n = self.static_loops(lines)
        return [f"_vkp_count({n}u);   // {what}"] if n else []

    # ---- helpers ------------------------------------------------------------------------
    def budget_globals(self) -> list[str]:
        return [
            "shared uint _vkp_worst;          // the most iterations a step may cost an invocation",
            "shared uint _vkp_measured;       // the most one did in this epoch",
            "shared uint _vkp_cut_shared;     // the grid barrier within the step that was cut",
            "shared uint _vkp_resume_shared;",
            "uint _vkp_spins = 0u;     // this invocation's iterations spent waiting at barriers",
            "uint _vkp_counted = 0u;   // its other iterations when its step began",
            "uint _vkp_resume = 0u;    // the resumed step goes on after this barrier (0: none)",
            f"uint _vkp_stop = {NO_CUT:#x}u;   // the barrier at which this step was cut",
            "bool _vkp_end_cut = false;   // invocation 0: the end of its last step was cut",
        ]

    def budget_helpers(self) -> list[str]:
        budget = self.target.loop_budget
        return [
            "// lavapipe's loop budget (scheduler/_budget.py)",
            "void _vkp_count(uint n) {   // loop passes lavapipe counts where no guard line runs",
            "    uint before = _vkp_iterations;",
            "    _vkp_iterations += n;",
            f"    if (before < {LOOP_GUARD_LIMIT}u && _vkp_iterations >= {LOOP_GUARD_LIMIT}u) "
            f"atomicCompSwap(_vkp_status[0], 0u, {self.kernel_id}u);",
            "}",
            "",
            "uint _vkp_need() {   // the iterations a step may cost an invocation but waits",
            "    uint w = _vkp_worst;",
            f"    return w == 0u ? {budget // 4}u : w + w / 8u;   // 0: none measured yet",
            "}",
            ""]

    # ---- grid barriers ------------------------------------------------------------------
    def cut_barrier(self, counter: str, target: str) -> list[str]:
        """Cut the barrier on `counter` whose target is `target`, which cannot complete
        (this workgroup has not arrived)."""
        return [f"atomicMax({self.sched(counter + '_CUT')}, {target});",
                f"atomicOr({self.sched(counter)}, {CUT:#x}u);"]

    def budget_sync(self, signature: str, arrive: list, counter: str, target: str,
                    guard: list, after, end: bool, cut: list, joins: str) -> list[str]:
        """A grid barrier under the loop budget (see the module docs): `end` for the end of
        a step (the next step must fit), else between stages (the rest of the step must);
        `cut` runs in invocation 0 where the barrier was cut, `after` where it completed;
        `joins`: `target` once `arrive` has run."""
        word = self.sched(counter)
        budget = self.target.loop_budget
        poll = f"{self.poll_load(word)} >= {target}"
        polls = [f"        if ({poll}"] + \
            [f"                || {poll}" for _ in range(self.spin_unroll - 1)]
        polls[-1] += ") break;"
        used = f"_vkp_group_iterations + {budget // MARGIN_PART}u" if end \
            else "_vkp_counted + _vkp_spins"
        body = [
            "if (gl_LocalInvocationIndex == 0u) {",
            "    uint _from = _vkp_iterations;",
            f"    uint _need = {used} + _vkp_need();",
            f"    uint _room = _need < {budget}u ? {budget}u - _need : 0u;   // it may wait this "
            "long",
            f"    if (_room == 0u) {{   // the {'next step' if end else 'rest of the step'} "
            "would not fit",
            *["        " + line for line in self.cut_barrier(counter, joins)],
            "    }",
            *["    " + line for line in arrive],
            *["    " + g for g in guard],
            "    while (true) {",
            *["        " + g for g in guard],
            *polls,
            "        if (_vkp_iterations - _from >= _room) {   // out of budget: cut the barrier",
            f"            atomicMax({self.sched(counter + '_CUT')}, {target});",
            f"            uint v = {self.atomic_load(word)};",
            f"            if (v < {target}) atomicCompSwap({word}, v, v | {CUT:#x}u);",
            "        }",
            "    }",
            "    _vkp_spins += _vkp_iterations - _from;",
            f"    if (({self.atomic_load(word)} & {CUT:#x}u) != 0u "
            f"&& {self.atomic_load(self.sched(counter + '_CUT'))} == {target}) {{   // cut here",
            *["        " + line for line in cut],
            *(["    } else {", *["        " + line for line in after]] if after else []),
            "    }",
            "}"]
        function = [
            f"void {signature} {{",
            *["    " + line for line in self.count_line(body, "invocation 0's loops, in the "
                                                                  "others")],
            *(["    uint _work = _vkp_iterations - _vkp_spins;   // its iterations but waits",
               "    atomicMax(_vkp_measured, _work - _vkp_counted);   // what the step cost it",
               "    atomicMax(_vkp_worst, _work - _vkp_counted);",
               "    _vkp_counted = _work;"] if end else []),
            "    atomicMax(_vkp_group_iterations, _vkp_iterations);",
            "    memoryBarrierBuffer();",
            "    barrier();",
            *["    " + line for line in body],
            "    barrier();",
            *([] if end else ["    _vkp_stop = _vkp_cut_shared;"]),
            "}",
            ""]
        self.count_loops(signature.split("(")[0], function)
        return function

    def end_cut(self, slot: str) -> list[str]:
        """Invocation 0 where the end of a step was cut: the epoch ends after that step, and
        the last participant to leave withdraws the steps prepared after it (`slot`, the
        next, unless it is the one a resumed epoch restored)."""
        return [f"{self.shared_word(W_STATE)} = {STATE_ENDED}u;   // the epoch ends here",
                "_vkp_end_cut = true;",
                f"{self.sched('END_CUT')} = ({slot} + 1u) | (_vkp_resume != 0u ? "
                f"{KEPT:#x}u : 0u);"]

    def mid_cut(self, queue: bool = False) -> list[str]:
        """Invocation 0 where a barrier between stages (a queue round's: `queue`) was cut:
        where the next epoch resumes the step; a planner waiting at the step's end leaves
        too."""
        return ["_vkp_cut_shared = point;",
                f"{self.sched('CUT_AT')} = point;",
                f"{self.sched('RESUME_SLOT')} = {self.shared_word(W_SLOT)};",
                f"{self.sched('RESUME_FLAGS')} = {self.shared_word(W_FLAGS)};",
                *([f"{self.sched('RESUME_ROUND')} = _vkp_round | "
                   f"(after_round ? {AFTER_ROUND:#x}u : 0u);"] if queue else []),
                "memoryBarrierBuffer();",
                *self.cut_barrier("ENDS", "_vkp_end_target + _vkp_nparts")]

    # ---- resume points ------------------------------------------------------------------
    def barrier_call(self) -> str:
        """A grid barrier between stages; under the loop budget a place the step may be cut
        and resumed at."""
        if not self.loop_guard:
            return "_vkp_grid_sync();"
        self.point += 1
        j = self.point
        return f"if (_vkp_resume < {j}u && {j}u < _vkp_stop) _vkp_grid_sync({j}u);"

    def gated(self, lines: list) -> list[str]:
        """`lines`, the step's code after the last resume point so far: run unless the step
        resumes past it or was cut before it."""
        if not self.loop_guard:
            return lines
        r = self.point
        return [f"if (_vkp_resume <= {r}u && {r}u < _vkp_stop) {{",
                *["    " + line for line in lines], "}"]

    def queue_round_setup(self, n: str, s: str, after_round: str) -> list[str]:
        """Fix the next round of queue `n` (its words at parity `s`): mark the round just
        consumed (when `after_round`), then take [head, tail)."""
        return [f"if ({after_round}) {n}_q[{Q_HEAD}] = {n}_q[{Q_HI} + 2u * ({s} ^ 1u)];",
                f"{n}_q[{Q_LO} + 2u * {s}] = {n}_q[{Q_HEAD}];",
                f"{n}_q[{Q_HI} + 2u * {s}] = atomicAdd({n}_q[{Q_TAIL}], 0u);"]

    # ---- the epoch's start and end --------------------------------------------------------
    def budget_discovery(self, nparts: str) -> list[str]:
        """Invocation 0 of a participant, once `nparts` is known: its shared words."""
        raw, norm = self.sched("WORK_RAW"), self.sched("WORK_NORM")
        return [f"_vkp_worst = max({raw}, ({norm} + {nparts} - 1u) / max({nparts}, 1u));",
                "_vkp_measured = 0u;",
                f"_vkp_cut_shared = {NO_CUT:#x}u;",
                f"_vkp_resume_shared = {self.ctl('_resume')};"]

    def abandoned(self) -> list[str]:
        """Participant 0, closing the poll, finds it abandoned: an epoch of no step."""
        return [f"if ((closed & {CUT:#x}u) != 0u) {{   // abandoned: no step this epoch",
                f"    {self.ctl('_step')} = {self.sched('STEPS_DONE')};",
                f"    {self.ctl('_reason')} = {REASON_LOOP_LIMIT}u;",
                "    part = -1;",
                "}"]

    def resume_start(self) -> list[str]:
        """The planner, at the start of an epoch that resumes a step the one before cut: its
        slot's words back, a queue round cut at its barrier fixed again, the steps after it
        prepared as usual."""
        r = self.sched("RESUME_SLOT")
        out = [f"uint r = {r};",
               f"{self.step_word(0, 'r')} = {STATE_RUNNING}u;",
               f"{self.step_word(1, 'r')} = {self.sched('RESUME_FLAGS')};",
               f"{self.step_word(2, 'r')} = {self.sched('STEPS_DONE')};",
               f"{self.sched('STARTED')} = 1u;"]
        round_ = self.sched("RESUME_ROUND")
        for point, n in self.consume_points.items():
            out += [f"if (_vkp_resume == {point}u) {{   // within the rounds of queue {n}",
                    f"    uint q = {round_} & 1u;",
                    *["    " + line for line in self.queue_round_setup(
                        n, "q", f"({round_} & {AFTER_ROUND:#x}u) != 0u")],
                    "}"]
        return out + [f"_vkp_boundary((r + {k}u) % {SLOTS}u);" for k in range(1, self.ahead)]

    def budget_exit(self) -> list[str]:
        """Every participant's invocation 0 as it leaves: what a step cost in this epoch
        (measured: not the estimate it started with, which would feed on itself from one
        participant count to the other; not where a loop was cut short, whose counts are
        not the step's), for the next; the last to leave publishes how the epoch ended
        (see the module docs)."""
        cut_at, end_cut = self.sched("CUT_AT"), self.sched("END_CUT")
        return [
            "if (gl_LocalInvocationIndex == 0u) {",
            f"    if ({self.atomic_load('_vkp_status[0]')} == 0u) {{   // no loop cut short",
            f"        atomicMax({self.sched('WORK_RAW')}, _vkp_measured);",
            f"        atomicMax({self.sched('WORK_NORM')}, _vkp_measured * _vkp_nparts);",
            "    }",
            f"    if (atomicAdd({self.sched('EXITS')}, 1u) + 1u == _vkp_nparts) {{   // the last",
            f"        uint cut_at = {cut_at};",
            f"        uint end_cut = {end_cut};",
            "        uint k = (end_cut & 3u) - 1u;   // cut at a step's end: the next step, in k",
            f"        bool kept = (end_cut & {KEPT:#x}u) != 0u;   // (unless it is a resumed one)",
            f"        uint reason = kept ? {REASON_CUT}u : {REASON_LOOP_LIMIT}u;",
            "        if (cut_at != 0u) {   // cut within a step: the next epoch resumes it there",
            f"            {self.ctl('_resume')} = cut_at;",
            f"            k = {self.sched('RESUME_SLOT')};",
            "            kept = true;",
            f"            reason = {REASON_CUT}u;",
            "        }",
            f"        if ((cut_at != 0u || end_cut != 0u) && {self.step_word(0, 'k')} == "
            f"{STATE_RUNNING}u) {{",
            "            _vkp_unprepare(k, kept);",
            f"            {self.ctl('_reason')} = reason;",
            "        }",
            f"        {self.ctl('_step')} = {self.sched('STEPS_DONE')};",
            f"        {self.ctl('_done')} = {self.sched('DONE')};",
            "    }",
            "}"]

    def unprepare_function(self) -> list[str]:
        """`_vkp_unprepare(k, kept)`: the epoch ends with the step in slot `k` next (not
        `kept`) or resumed (`kept`): the counts say so, and every step prepared after it is
        withdrawn: the memsock frames they reserved are released again and the frames they
        dropped uncounted (its own stay when `kept`)."""
        out = ["void _vkp_unprepare(uint k, bool kept) {",
               f"    uint number = {self.step_word(2, 'k')};",
               f"    {self.sched('STEPS_DONE')} = number;",
               f"    {self.sched('DONE')} = number - {self.sched('FIRST')};"]
        for m, (var, _, index) in enumerate(self.plan.sockets):
            n = var.name
            cursor = f"{n}_cursor"
            out += [f"    {{   // memsock {n}",
                    f"        bool mine = kept && int({self.socket_word(m, 'k', 0)}) >= 0;",
                    f"        {cursor}[{C_HEAD}] = {self.socket_word(m, 'k', 1)} + "
                    "(mine ? 1u : 0u);"]
            for d in range(SLOTS):
                j = f"((k + {d}u) % {SLOTS}u)"
                later = f"{self.step_word(2, j)} > number" if d else "!kept"
                runs = self._socket_runs(index, self.step_word(1, j))
                out.append(f"        if ({self.step_word(0, j)} == {STATE_RUNNING}u && {later} "
                           f"&& int({self.socket_word(m, j, 0)}) < 0 && {runs}) "
                           f"{cursor}[{C_DROPPED}] -= 1u;")
            out.append("    }")
        return out + ["}", ""]

