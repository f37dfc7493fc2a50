"""Running a Program: epochs of the megakernel, or batches of the fallback, one at a time.

The host's side of both modes is the same loop: write the epoch's step budget into the
control words, submit the recorded sequence, watch the heartbeat (the `_step` status word
the step boundary publishes) until the submission completes, then read how many steps ran
and why the epoch ended (budget, a halt command, or lavapipe's loop limit). A heartbeat
that stops moving for `timeout` seconds raises DeviceTimeout instead of waiting forever.

Epoch sizes adapt: the megakernel aims at ~0.25 s per epoch (short enough for driver
watchdogs and prompt pause/stop, long enough that relaunching costs nothing), the fallback
at ~50 ms per batch of at most 256 recorded steps. On lavapipe the megakernel itself ends
each epoch before any invocation nears the loop limit (VULKAN_FACTS.md §5), at a grid
barrier, within a step if need be (_budget.py): the runner then launches the epoch that
finishes that step before anything else (a pause, a stop, Ctrl-C), so the host never sees
a step half done.

An error that leaves one half done all the same (lavapipe's loop guard reports that a loop
was cut short, a queue stage of the fallback was not drained, or the runner is interrupted
while a step waits for its second half) marks the program: `prog.steps_done` is the last
step known complete, and runs and sessions refuse until the arrays are set again and
`prog.reset_step()` says which step they hold (Program._refuse_if_cut).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import time
import warnings

from .._errors import DeviceLimitError, DeviceTimeout, VkPersistError, internal_error
from .._polling import SPIN_S, check_timeout, poll_until
from ._budget import MARGIN_PART, OPENING
from ._build import FALLBACK_ROUNDS, build_for
from ._words import REASON_BLOCKED, REASON_BUDGET, REASON_CUT, REASON_DONE, REASON_LOOP_LIMIT
from ._declare import Q_UNDRAINED, RunReport
from ._progress import Bar, wants_bar

if TYPE_CHECKING:
    from ._program import Program


class QueueOverflow(RuntimeWarning):
    """A program's work queue was full and dropped items."""


class OccupancyWarning(RuntimeWarning):
    """The megakernel ran on fewer workgroups than the device runs at once (lavapipe)."""


MODES = ("auto", "persistent", "launch")
LAVAPIPE_LOCAL = 128
GPU_LOCAL = 512
GPU_GROUPS = 256             # at most this many participants on GPUs (barriers cost more
                             # with more; see docs/measurements-log.md), co-resident ones join
GPU_FILL = (1056, 256)       # stages of more than GPU_FILL_FROM indices: bandwidth-bound,
                             # fill the GPU (H200: 132 SMs x 8 workgroups of 256, every SM
                             # full: the 256³ FDTD ran 42.0 instead of 27.3 Gcells/s)
GPU_FILL_FROM = 1 << 21      # measured on the H200: filling lost below it (the 64³ FDTD
                             # 25.9 -> 19.4 Gcells/s, the 128³ heat stencil's 2²¹ indices
                             # 37.6k -> 32.0k steps/s) and won above (129³ FDTD nodes:
                             # 24.8 -> 37.2 Gcells/s)
FILL_LOCAL = 1024            # the megakernel of a stage larger than GPU_GROUPS x GPU_LOCAL,
FILL_REGISTERS = 32          # where it needs at most this many registers: every SM full of
                             # workgroups of 1,024 (see fill_launch)
EPOCH_TARGET_S = 0.25
BATCH_TARGET_S = 0.05
MAX_BATCH = 256
WAIT_SLICE_S = 0.05           # an epoch's wait blocks this long at most between heartbeat
                              # checks (Ctrl-C is seen then too)
SHORT_EPOCHS_REPORTED_S = 1.0    # report_occupancy() warns from this much time on
STALLED_EPOCHS = 16           # lavapipe: epochs in a row that end before a step's next grid
                              # barrier (the loop budget) before the runner gives up; fewer
                              # participants than usual (one of 2 pool threads late: half
                              # the epochs on a loaded 2-core machine) can be the cause


def choose_mode(prog: Program, mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(map(repr, MODES))}; got {mode!r}")
    if mode != "auto":
        return mode
    if prog.ctl is None:
        prog.ctl = prog._make_controls(16, None, {})
    # persistent needs host writes to reach the running megakernel (commands, pause, stop).
    # On a CPU device the fallback: lavapipe spreads each dispatch over all its threads,
    # while the megakernel's participants spin at grid barriers and are only the threads
    # that started in time. On an idle machine persistent can win a little, on a busy
    # one it loses 3x (docs/measurements-log.md, benchmarks/probes/grayscott_modes.py).
    if prog.ctx.info.kind == "cpu":
        return "launch"
    return "persistent" if prog.ctl.live else "launch"


def default_launch(prog: Program, ctx) -> tuple[int, int]:
    """(groups, local) for the megakernel when the caller does not choose. Measured on the
    H200 (docs/measurements-log.md): 512 invocations per workgroup and about one workgroup per
    512 indices of the largest stage, up to 256 workgroups, were within 10% of the best
    settings for 32³ and 64³ stencils; larger stages get GPU_FILL, enough workgroups to
    fill every SM (the runner may choose workgroups of 1,024 instead: fill_launch). Where
    participant 0 plans instead of computing (target.dedicated_planner_from participants
    or more), it comes on top. On a device that runs a known number of workgroups at once
    (lavapipe: one per pool thread), that many."""
    target = ctx.target
    if target.workgroups_at_once is not None:
        return target.workgroups_at_once, LAVAPIPE_LOCAL
    local = min(GPU_LOCAL, ctx.info.max_workgroup_invocations)
    largest = max(stage.size for stage, _ in prog.schedule) if prog.schedule else 1
    groups = max(1, min(GPU_GROUPS, -(-largest // local)))
    if largest > GPU_FILL_FROM:
        # this much work per stage: memory bandwidth, not barriers, bounds a step, and it
        # takes every SM full of workgroups to reach it
        fill_groups, fill_local = GPU_FILL
        local = min(fill_local, ctx.info.max_workgroup_invocations)
        groups = min(fill_groups, -(-largest // local))
    planner = target.dedicated_planner_from
    if planner is not None and groups + 1 >= planner:   # one more for the planner
        groups += 1
    return groups, local


def fill_launch(prog: Program, build, shape: tuple[int, int]) -> tuple[int, int]:
    """The megakernel's (groups, local) when the caller chooses neither: `shape`
    (default_launch's), except on a device that says how many SMs it has and how many
    invocations each holds (VK_NV_shader_sm_builtins), that loads through readonly aliases
    (Target.readonly_alias: the shape was measured with them), for a program whose largest
    stage has more than GPU_GROUPS x GPU_LOCAL indices and whose megakernel needs at most
    FILL_REGISTERS registers an invocation (as the driver reports): then workgroups of
    FILL_LOCAL, as many as fill every SM (the planner among them) or give each invocation
    one index, plus the planner. Measured on an H100 (2026-12-06; 132 SMs of 2,048: 264
    workgroups), against 257 x 512 and 1,057 x 256: the 64³ FDTD 29.3k -> 35.3k Mcells/s
    (the CUDA graph's 35.1k), 128³ 30.6k -> 32.1k, 256³ 34.8k -> 35.3k; the heat stencil
    72.8k -> 83.5k steps/s at 128³, 8.1k -> 8.7k at 256³, 196k either way at 64³ (32³,
    65 x 512, lost with any shape of 1,024). Workgroups of 1,024 needing more registers,
    or on SMs of 1,536 invocations, would leave part of each SM idle where smaller ones
    fill it: those keep `shape`."""
    ctx = prog.ctx
    info, target = ctx.info, ctx.target
    per_unit = info.invocations_per_unit
    largest = max(stage.size for stage, _ in prog.schedule)
    if not target.readonly_alias or target.workgroups_at_once is not None \
            or largest <= GPU_GROUPS * GPU_LOCAL or info.compute_units == 0 \
            or per_unit < FILL_LOCAL or per_unit % FILL_LOCAL \
            or min(info.max_workgroup_invocations, info.max_workgroup_size[0]) < FILL_LOCAL:
        return shape
    try:
        registers = build.statistics(build.mega, FILL_LOCAL).registers
    except VkPersistError:       # statistics unsupported, or that pipeline not made
        return shape
    if registers is None or registers > FILL_REGISTERS:
        return shape
    slots = info.compute_units * (per_unit // FILL_LOCAL)
    groups = -(-largest // FILL_LOCAL)
    planner = target.dedicated_planner_from
    if planner is not None and groups + 1 >= planner:
        groups += 1
    return min(groups, slots), FILL_LOCAL


def launch_shape(prog: Program, build, mode: str) -> tuple[int, int]:
    """(groups, local) of a run in `mode` whose caller chooses neither: default_launch's,
    and for the megakernel fill_launch's."""
    shape = default_launch(prog, prog.ctx)
    return fill_launch(prog, build, shape) if mode == "persistent" else shape


class Runner:
    def __init__(self, prog: Program, mode: str, groups: int | None, local: int | None):
        self.prog = prog
        self.mode = choose_mode(prog, mode)
        info = prog.ctx.info
        self.build = build_for(prog, self.mode)
        default_groups, default_local = launch_shape(prog, self.build, self.mode) \
            if groups is None and local is None else default_launch(prog, prog.ctx)
        self.local = local or default_local
        self.groups = groups or default_groups
        self.ctl = prog.ctl
        self.core = prog.ctx._core
        self.epoch_steps = 1024 if self.mode == "persistent" else 16
        self.running = False
        self.epochs = 0
        self.participants = None
        self.short_epochs = self._counted_epochs = 0     # see report_occupancy()
        self._fewest = None
        self._short_seconds = 0.0
        self.at_once = prog.ctx.target.workgroups_at_once if self.mode == "persistent" \
            else None
        if self.at_once is not None and self.groups > self.at_once:
            warnings.warn(
                f"{prog.name}: groups={self.groups}, but {info.name} runs "
                f"{self.at_once} workgroup(s) at once (one per thread of its pool, "
                "LP_NUM_THREADS or the CPU count): the other "
                f"{self.groups - self.at_once} can never join the megakernel, and every "
                f"epoch starts by waiting for them in vain; leave groups to the default "
                f"({self.at_once})", OccupancyWarning, stacklevel=5)
        self._started = self._last_beat = 0.0
        self._last_step = None
        self.resume = 0              # a step the last epoch cut: resumed after this barrier
        self._stalled = 0            # epochs in a row that made no progress (lavapipe)
        # on a CPU device (lavapipe) a host spinning on the result takes a core from the
        # device's own threads (and kept the megakernel to one participant on 2 cores)
        self.spin = 0.0 if info.kind == "cpu" else SPIN_S

    # ---- one epoch (batch) --------------------------------------------------------------
    def start(self, steps_left: int) -> None:
        """Submit the next epoch, running at most `steps_left` steps."""
        if self.running:
            raise internal_error("an epoch was started while one is running")
        if self.ctl._orphans:
            # commands whose sends gave up while other work was pending (a queued write,
            # say) are withdrawn once the device is idle (control/_host.py): now, before
            # this epoch could apply them (an H100 under load applied one cancelled while
            # the session was paused)
            self.core.synchronize()
            self.ctl._sweep()
        self.build.count_from(self.prog.steps_done)     # after reset_step, a mode switch
        budget = min(steps_left, self.epoch_steps)
        if self.mode == "persistent":
            sequence = self.build.epoch(self.groups, self.local)
            self.ctl["_parts"] = 0     # the megakernel's start sets it: a hang says where
        else:
            budget = 1 << (budget.bit_length() - 1)      # batches are recorded in powers of 2
            sequence = self.build.batch(budget, self.local)
        self.ctl["_budget"] = budget
        self.ctl["_done"] = 0          # not the last epoch's count while this one starts
        sequence.launch()
        self.running = True
        self._started = self._last_beat = time.perf_counter()
        self._last_step = int(self.ctl["_step"])

    def finished(self, timeout: float) -> bool:
        """True once the epoch has completed; DeviceTimeout when its heartbeat has not moved
        for `timeout` seconds."""
        if self.core.idle():
            return True
        now = time.perf_counter()
        step = int(self.ctl["_step"])
        if step != self._last_step:
            self._last_step, self._last_beat = step, now
        elif now - self._last_beat > timeout:
            raise DeviceTimeout(
                f"{self.prog.name}: no progress for {timeout:g} s (the heartbeat stays at step "
                f"{step}, mode {self.mode!r}{self._start_state()}); a stage may loop forever "
                "or the device hangs. The program may still be running on the device.")
        return False

    def _start_state(self) -> str:
        """Where a persistent epoch's start got to, for a timeout's message: whether its
        workgroups' occupancy discovery closed, and with how many participants."""
        if self.mode != "persistent":
            return ""
        parts = int(self.ctl["_parts"])
        if not parts:
            return ("; its workgroups never finished starting: occupancy discovery did not "
                    f"close, {self.groups} workgroups of {self.local} were dispatched")
        return f"; {parts} of {self.groups} workgroups took part"

    def finish(self) -> tuple[int, int]:
        """(steps run, why the epoch ended) of the completed epoch."""
        cut_short = self.build.loop_limit_reported()    # before the synchronize clears it
        error = None
        try:
            self.core.synchronize()   # instant; runs the loop-limit check on lavapipe
        except Exception as exc:      # counted first, raised below
            error = exc
        elapsed = time.perf_counter() - self._started
        done, reason = int(self.ctl["_done"]), int(self.ctl["_reason"])
        if cut_short:                 # the steps known complete before any loop was cut
            done = self.build.word("SAFE")
        resume = int(self.ctl["_resume"]) if self.mode == "persistent" else 0
        progress = done > 0 or resume > self.resume
        self.epochs += 1
        self.prog.steps_done += done
        self.build.device_steps = -1 if cut_short else self.prog.steps_done & 0xFFFFFFFF
        self.resume = resume
        self.running = False          # with the count: Ctrl-C cannot come in between
        if cut_short:
            raise self.cut_short(str(error)) from error
        if error is not None:
            raise error
        if self.mode == "persistent":
            self.participants = int(self.ctl["_parts"])
            if self.at_once is not None:
                self._counted_epochs += 1
                if self.participants < min(self.groups, self.at_once):
                    self.short_epochs += 1
                    self._short_seconds += elapsed
                    self._fewest = min(self._fewest or self.participants, self.participants)
        self.ctl["_halt"] = 0          # whoever asked for the halt decides what comes next
        self._check_queues()
        self._stalled = 0 if progress or reason not in (REASON_LOOP_LIMIT, REASON_CUT) \
            else self._stalled + 1
        if self._stalled >= STALLED_EPOCHS:
            self._stalled = 0
            raise self._stalled_error()
        if done and reason == REASON_BUDGET:        # a full epoch: size the next one
            target = EPOCH_TARGET_S if self.mode == "persistent" else BATCH_TARGET_S
            rate = done / max(elapsed, 1e-6)
            limit = 1 << 30 if self.mode == "persistent" else MAX_BATCH
            self.epoch_steps = int(max(1, min(limit, rate * target, 4 * self.epoch_steps)))
        return done, reason

    def cut_short(self, report: str) -> DeviceLimitError:
        """The error of an epoch (batch) in which lavapipe's loop guard reported a loop of
        this program's cut short (`report`): the steps after prog.steps_done may be half
        done, so the program refuses to run on until its state is set again."""
        step = self.prog.steps_done
        self.prog._refuse(
            f"its run in mode {self.mode!r} was cut short within step {step} (an invocation "
            f"reached {self.prog.ctx.info.name}'s loop limit), so its arrays may hold part of "
            "that step or of later ones")
        return DeviceLimitError(
            f"{report}\n{self.prog.name}: the run was cut short within step {step} "
            f"(prog.steps_done = {step}: steps before it are complete); its arrays may hold "
            "part of that step or of later ones, so the program runs no more until you set "
            "its arrays (A.set(data)) and say which step they hold (prog.reset_step(n))")

    def _stalled_error(self) -> DeviceLimitError:
        """STALLED_EPOCHS epochs in a row ended before a step could go on (_budget.py)."""
        parts = self.participants or 1
        raw, norm = self.build.word("WORK_RAW"), self.build.word("WORK_NORM")
        worst = max(raw, -(-norm // parts))
        budget = self.build.target.loop_budget
        need = worst + worst // 8 + budget // MARGIN_PART      # as the megakernel reckons
        if self.resume:
            self.prog._refuse(f"a step was left half done at step {self.prog.steps_done}")
        why = (f"a step needs ~{need:,} loop iterations per invocation (the most one took "
               f"so far, with {parts} participating workgroup(s)), past the {budget:,} an "
               f"epoch may use on {self.prog.ctx.info.name}, which cuts every loop short "
               "after ~65,535 per invocation; run it with mode='launch', or with a larger "
               "local size (local=) so that each invocation does less"
               if need + OPENING >= budget else
               "their workgroups spent the loop budget waiting at the first grid barrier "
               "for others whose CPU threads did not run (a heavily loaded machine); run it "
               "with mode='launch', which does not depend on that")
        return DeviceLimitError(f"{self.prog.name}: {STALLED_EPOCHS} epochs in a row ended "
                                f"before a step could go on: {why}")

    def report_occupancy(self, stacklevel: int = 5) -> None:
        """Warn once per run or session if epochs ran on fewer workgroups than a CPU
        device runs at once, for a second or more in all. On lavapipe every workgroup of
        the megakernel is one pool thread; a thread that starts late (another process or
        Python thread held its core) misses the occupancy poll, and its epoch runs on the
        others alone: half the speed on 2 threads, from run to run. Silent, it looked like
        a slow program; a run that lost less than a second to it is not worth a warning
        (short runs and tests would see it often on a busy machine)."""
        short, epochs, fewest = self.short_epochs, self._counted_epochs, self._fewest
        seconds = self._short_seconds
        self.short_epochs = self._counted_epochs = 0
        self._fewest, self._short_seconds = None, 0.0
        if seconds >= SHORT_EPOCHS_REPORTED_S:
            want = min(self.groups, self.at_once)
            warnings.warn(
                f"{self.prog.name}: in {short} of {epochs} epochs fewer than the {want} "
                f"workgroups {self.prog.ctx.info.name} runs at once joined the megakernel "
                f"(as few as {fewest}: on an otherwise idle machine about {fewest}/{want} "
                "of the speed). A workgroup joins only if its CPU thread starts while the "
                "first one polls for the others, a fraction of a millisecond: another "
                "process or thread held the core. "
                "mode='launch' (the default on CPU devices) spreads every dispatch over "
                "all threads and does not depend on it", OccupancyWarning,
                stacklevel=stacklevel)

    def _check_queues(self) -> None:
        """Queue overflows are reported, never silent: a warning per epoch that dropped
        items; a queue stage that the fallback could not drain within a step is an error."""
        for q in self.prog.queues.values():
            dropped = q.dropped
            if dropped != q._dropped_seen:
                warnings.warn(f"{self.prog.name}: queue {q.name!r} (capacity {q.capacity}) "
                              f"was full: {dropped - q._dropped_seen} items dropped (total "
                              f"{dropped}); give it more capacity", QueueOverflow,
                              stacklevel=4)
                q._dropped_seen = dropped
            if q._words[Q_UNDRAINED]:
                q._words[Q_UNDRAINED] = 0
                self.prog._refuse(f"a stage consuming queue {q.name!r} left items unconsumed "
                                 f"in a step before step {self.prog.steps_done}")
                raise DeviceLimitError(
                    f"{self.prog.name}: a stage consuming queue {q.name!r} still had items "
                    f"after {FALLBACK_ROUNDS} rounds in one step (mode 'launch' records that "
                    "many); the step's results are incomplete, and the program runs no more "
                    "until you set its arrays and queues again and say which step they hold "
                    "(prog.reset_step(n)). Use mode='persistent', or push fewer rounds of "
                    "work per step")

    def _room(self):
        """True when every memsock with policy "block" can take a frame, else None."""
        full = [s for s in self.prog.sockets.values() if s.policy == "block" and not s.has_room()]
        return None if full else True

    def _no_room(self, limit: float) -> str:
        names = ", ".join(repr(s.name) for s in self.prog.sockets.values()
                          if s.policy == "block" and not s.has_room())
        return (f"{self.prog.name}: memsock {names} is full (policy 'block') and no frame was "
                f"released within {limit:g} s; read and release its frames (frame.release(), "
                "or `with frame:`) while the program runs, e.g. from a trio task")

    def wait_epoch(self, limit: float, spin: float) -> None:
        """Until the epoch has completed (DeviceTimeout when its heartbeat stops for
        `limit` s): spinning for `spin` s (a blocking wait costs a thread wake-up), then in
        blocking waits of WAIT_SLICE_S, the heartbeat checked between them. Not in short
        sleeps: the session driver runs this on its own thread, and each wake-up has to
        take the GIL back from the body's thread (`core.wait_idle`); for the same reason
        the driver does not spin (Session._drive_thread)."""
        spin_until = time.perf_counter() + spin
        while not self.finished(limit):
            if time.perf_counter() >= spin_until:
                self.core.wait_idle(WAIT_SLICE_S)

    def wait_for_readers(self, limit: float) -> None:
        poll_until(self._room, limit, lambda: self._no_room(limit), spin=self.spin)

    def _stop_interrupted(self, limit: float) -> None:
        """After Ctrl-C: halt the epoch at its next step boundary and count the steps it
        ran, so prog.steps_done says what the device did. Further Ctrl-Cs meanwhile are
        absorbed (the epoch ends within a step; the heartbeat timeout bounds the wait)."""
        self.halt()
        while self.running or self.resume:
            try:
                if not self.running:
                    self.start(1)       # the rest of a step the epoch left half done
                self.wait_epoch(limit, self.spin)
                self.finish()
            except KeyboardInterrupt:
                continue

    def abandon_step(self) -> None:
        """An error ends the run while a step waits for the epoch that finishes it: the
        program keeps it half done, and says so."""
        if self.resume:
            self.prog._refuse(f"an error ended its run with step {self.prog.steps_done} half "
                             "done")

    def halt(self) -> None:
        """End the running epoch at its next step boundary (no-op when none runs)."""
        if self.running:
            self.ctl["_halt"] = 1

    # ---- a whole run, synchronously -----------------------------------------------------------
    def run(self, steps: int | None, timeout: float | None, progress=None,
            checkpoints=None) -> RunReport:
        show = wants_bar(progress)
        total = steps
        if steps is None:
            if self.prog.steps_field is None:
                raise ValueError(f"{self.prog.name}: run(steps) needs a step count, unless "
                                 "the loop takes it from a control (loop(..., steps=field))")
            steps = 2**62
            total = max(0, int(self.ctl[self.prog.steps_field]) - self.prog.steps_done)
        if not isinstance(steps, int) or steps < 0:
            raise ValueError(f"steps must be a non-negative int, got {steps!r}")
        limit = self.prog.ctx.timeout if timeout is None else \
            check_timeout(timeout, "run(timeout=)")
        left, epochs0, reason = steps, self.epochs, None
        bar = Bar(show, total, self.prog.name)
        if checkpoints is not None:
            checkpoints.start(self.prog)
        try:
            while left > 0 and reason != REASON_DONE:
                budget = min(left, 2**31)
                if checkpoints is not None and not self.resume:   # end an epoch where due
                    budget = min(budget, checkpoints.steps_until_due(self.prog.steps_done))
                self.start(budget)
                try:
                    self.wait_epoch(limit, self.spin)
                    done, reason = self.finish()
                except KeyboardInterrupt:     # Ctrl-C: stop the device too, then give up
                    self._stop_interrupted(limit)
                    raise
                left -= done
                bar.update(steps - left)
                if checkpoints is not None and not self.resume \
                        and checkpoints.due(self.prog.steps_done):
                    checkpoints.take(self.prog)
                if reason == REASON_BLOCKED and left > 0:
                    self.wait_for_readers(limit)
            if checkpoints is not None:
                checkpoints.finish()
        except BaseException:
            self.abandon_step()
            raise
        finally:
            bar.close()
        self.report_occupancy()
        return RunReport(self.mode, steps - left, self.epochs - epochs0, self.participants)


def runner_for(prog: Program, mode: str, groups, local) -> Runner:
    """The program's runner for these settings (one at a time: a program has one state)."""
    for what, v in (("groups", groups), ("local", local)):
        if v is not None and (not isinstance(v, int) or v < 1):
            raise ValueError(f"{what} must be a positive int, got {v!r}")
    most = prog.ctx.info.max_workgroup_count[0]
    if groups is not None and groups > most:
        raise ValueError(f"groups={groups:,} is more workgroups than {prog.ctx.info.name} "
                         f"dispatches at once ({most:,}, maxComputeWorkGroupCount[0]); a "
                         "persistent program runs best on the default (what runs at once)")
    prog._refuse_if_cut()
    r = prog._runner
    want = choose_mode(prog, mode)
    session = prog._session
    if session is not None and not session.finished:
        raise VkPersistError(f"{prog.name} runs in a session; stop it (await run.stop()) first")
    if r is not None and r.running:
        if not r.core.idle():    # an epoch a DeviceTimeout gave up on is still running
            raise VkPersistError(f"{prog.name} is still running on the device; wait for it "
                                 "(ctx.synchronize()) first")
        r.finish()
    if r is None or r.mode != want or (groups and groups != r.groups) or \
            (local and local != r.local):
        r = Runner(prog, want, groups, local)
        prog._runner = r
    return r
