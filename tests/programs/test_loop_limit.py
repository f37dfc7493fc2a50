"""lavapipe's loop limit and persistent programs (issue 47): the megakernel keeps its loop
budget at every grid barrier, waits included, ending an epoch there (within a step if need
be, which the next epoch finishes), and a run that a loop limit cuts short anyway leaves a
program that says which step it reached and refuses to run on until its state is set again.

A D2Q9 lattice-Boltzmann step (9 distributions on a periodic (9, n, n) array pair, one
collide-and-stream stage) is the workload that reached the limit on a loaded machine.
"""
import collections
import dataclasses
import os
import subprocess
import sys

import numpy as np
import pytest
import trio

import vkpersist as vkp
import test_plan
import test_programs as tp
from vkpersist.scheduler import _runner
from vkpersist.scheduler._words import REASON_CUT

CX = (0, 1, 0, -1, 0, 1, -1, -1, 1)
CY = (0, 0, 1, 0, -1, 1, 1, -1, -1)
WT = (4 / 9, 1 / 9, 1 / 9, 1 / 9, 1 / 9, 1 / 36, 1 / 36, 1 / 36, 1 / 36)
K9 = tuple(range(9))
K40 = tuple(range(40))
TINY_BUDGET = 4000        # Target.loop_budget for the tests that want epochs cut often


def d2q9_init(n, seed=0):
    """Equilibrium at rest with a small random density: the distributions of a step 0."""
    rho = 1.0 + 0.01 * np.random.default_rng(seed).random((n, n))
    return (np.array(WT)[:, None, None] * rho).astype(np.float32)


def d2q9(ctx, n, omega=1.2, seed=0):
    """D2Q9 BGK on a periodic n x n grid: pull streaming and collision in one stage."""
    init = d2q9_init(n, seed)
    prog = vkp.Program(ctx, name=f"d2q9_{n}")
    F, F_next = prog.array_pair("F", (9, n, n), np.float32, init=init)
    om = np.float32(omega)

    @prog.stage(domain=(n, n))
    def collide_stream(i, j):
        fin = vkp.local.array(9, vkp.f32)
        for k in K9:
            fin[k] = F[k, (i - CX[k] + n) % n, (j - CY[k] + n) % n]
        rho = 0.0
        ux = 0.0
        uy = 0.0
        for k in K9:
            rho += fin[k]
            ux += CX[k] * fin[k]
            uy += CY[k] * fin[k]
        ux = ux / rho
        uy = uy / rho
        usq = ux * ux + uy * uy
        for k in K9:
            cu = CX[k] * ux + CY[k] * uy
            feq = WT[k] * rho * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * usq)
            F_next[k, i, j] = fin[k] - om * (fin[k] - feq)

    prog.loop(collide_stream)
    return prog, F, init


def d2q9_reference(f, steps, omega=1.2):
    f = f.astype(np.float32)
    om = np.float32(omega)
    for _ in range(steps):
        fin = np.stack([np.roll(f[k], (CX[k], CY[k]), axis=(0, 1)) for k in K9])
        rho, ux, uy = (np.zeros(f.shape[1:], np.float32) for _ in range(3))
        for k in K9:
            rho += fin[k]
            ux += CX[k] * fin[k]
            uy += CY[k] * fin[k]
        ux, uy = ux / rho, uy / rho
        usq = ux * ux + uy * uy
        out = np.empty_like(f)
        for k in K9:
            cu = CX[k] * ux + CY[k] * uy
            feq = np.float32(WT[k]) * rho * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * usq)
            out[k] = fin[k] - om * (fin[k] - feq)
        f = out
    return f


def spiky(ctx):
    """One step that loops past the limit: a stage whose index 0 loops `ctl.iterations`
    times on step `ctl.spike` (an array pair counts the steps in every element)."""
    prog = vkp.Program(ctx, name="spiky")
    A, A_next = prog.array_pair("A", (256,), np.float32)
    ctl = prog.controls(spike=vkp.u32(5), iterations=vkp.u32(70_000))

    @prog.stage(domain=256)
    def count(i):
        x = A[i] + 1.0
        if i == 0 and prog.step == ctl.spike:
            for k in range(ctl.iterations):
                x += 0.0
        A_next[i] = x

    prog.loop(count)
    return prog, A


@pytest.fixture
def lavapipe(ctx):
    if not ctx.info.is_lavapipe:
        pytest.skip("only lavapipe cuts loops short")


@pytest.fixture
def reasons(monkeypatch):
    """Why each epoch or batch ended, with whether it completed steps: Counter."""
    seen = collections.Counter()
    finish = _runner.Runner.finish

    def counted(self):
        done, reason = finish(self)
        seen[reason, done > 0] += 1
        return done, reason
    monkeypatch.setattr(_runner.Runner, "finish", counted)
    return seen


@pytest.fixture
def tiny_budget(ctx, lavapipe, monkeypatch):
    monkeypatch.setattr(ctx, "target", dataclasses.replace(ctx.target,
                                                           loop_budget=TINY_BUDGET))


# ---- (1) the budget holds, waits included: epochs cut at barriers, results unchanged ----
CASES = {
    "bit-identical, 2 groups": lambda ctx: tp.test_persistent_and_launch_are_bit_identical(
        ctx, groups=2),
    "every and step counter": lambda ctx: tp.test_every_and_step_counter(ctx, "persistent"),
    "commands, pause, resume, stop": lambda ctx: tp.test_session_commands_pause_resume_stop(
        ctx, "persistent"),
    "commands at a step": tp.test_commands_at_a_step_match_the_fallback_bit_for_bit,
    "queue BFS, 2 groups": lambda ctx: tp.test_queue_bfs_matches_cpu(ctx, "persistent", 2),
    "memsock block policy": lambda ctx: tp.test_memsock_block_policy_loses_nothing(
        ctx, "persistent"),
    "when conditions": lambda ctx: tp.test_when_condition_on_device_data(ctx, "persistent"),
    "everything together": tp.test_everything_together_is_identical_in_both_modes,
    "elided barriers, 2 groups": lambda ctx:
        test_plan.test_elided_barriers_keep_both_modes_bit_identical(ctx, groups=2),
}


@pytest.mark.parametrize("case", list(CASES))
def test_programs_under_a_tiny_loop_budget(ctx, tiny_budget, case):
    """Epochs of a few steps, ended at every kind of grid barrier (the end of a step,
    between stages, a queue round's, a when() condition's): the program tests' results."""
    CASES[case](ctx)


def lopsided(ctx, n=256):
    """Two stages with a grid barrier between them; in the first, the upper half of the
    indices (the second workgroup's, at 2 x 128) does much more work than the lower, so
    the first workgroup waits at the barrier every step."""
    prog = vkp.Program(ctx, name="lopsided")
    A = prog.array("A", (n,), np.float32, init=np.linspace(0, 1, n, dtype=np.float32))
    B = prog.array("B", (n,), np.float32)

    @prog.stage(domain=n)
    def heavy(i):
        x = A[i]
        if i >= n // 2:
            for k in range(200):
                for _ in K40:                  # unrolled: time, not counted iterations
                    x = vkp.sqrt(x * x + 1.0) * 0.5
        B[i] = x

    @prog.stage(domain=n)
    def light(i):
        A[i] = B[(i + 1) % n] + 0.25

    prog.loop(heavy, light)
    return prog, A


def test_steps_cut_between_stages_resume_bit_identical(ctx, tiny_budget, reasons):
    """The first of two workgroups waits between the stages every step, so the tiny budget
    runs out there: the epoch ends within the step and the next one finishes it. Runs until
    that has happened 3 times (at most 5,000 steps); the state matches the fallback's bit
    for bit. Where the two workgroups never ran together (a loaded machine), nothing
    waits."""
    prog, A = lopsided(ctx)
    steps, together = 0, 0
    while reasons[REASON_CUT, False] + reasons[REASON_CUT, True] < 3 and steps < 5000:
        prog.run(100, mode="persistent", groups=2)
        steps += 100
        together += prog._runner.participants == 2
    got = A.numpy()
    prog.free()
    prog, B = lopsided(ctx)
    prog.run(steps, mode="launch")
    assert np.array_equal(got, B.numpy())
    prog.free()
    cuts = reasons[REASON_CUT, False] + reasons[REASON_CUT, True]
    if cuts < 3 and not together:
        pytest.skip("two workgroups never ran the megakernel together")
    assert cuts >= 3, dict(reasons)


def test_d2q9_matches_numpy_and_the_fallback_bit_for_bit(ctx):
    """The same float32 operations in the same order (Target.float_as_written)."""
    states = {}
    for mode in ("persistent", "launch"):
        prog, F, init = d2q9(ctx, 24)
        prog.run(60, mode=mode)
        states[mode] = F.numpy()
        prog.free()
    assert np.array_equal(states["persistent"], states["launch"])
    assert np.array_equal(states["launch"], d2q9_reference(init, 60))


STRESS_RUNS, STRESS_N, STRESS_STEPS = 6, 129, 2000


# the child runs this file as a script: test_programs, beside it, imports programs_lib.py from
# the top of tests/
CHILD_PATH = os.pathsep.join([os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
                             + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                if p])


@pytest.mark.slow
def test_d2q9_under_load_in_fresh_processes(ctx, lavapipe, tmp_path):
    """The issue's workload: persistent D2Q9 at 129², each run in a new process (its own
    occupancy, its own epochs) while a busy process per core takes the CPU from lavapipe's
    threads at random. With the former estimate a user's runs reached the loop limit in 2
    of 6 at 129² and 3 of 5 at 513², and here 1 of 6 at 513² (a wait of 62 ms at one
    barrier; at 129² none of 8: waits were shorter): no run may raise now, and every state
    must be the fallback's bit for bit."""
    prog, F, init = d2q9(ctx, STRESS_N)
    prog.run(STRESS_STEPS, mode="launch")
    expected = F.numpy()
    prog.free()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(os.cpu_count() or 2)]
    try:
        for run in range(STRESS_RUNS):
            out = tmp_path / f"F{run}.npy"
            child = subprocess.run([sys.executable, __file__, str(STRESS_N), str(STRESS_STEPS),
                                    str(out)], capture_output=True, text=True, timeout=300,
                                   env={**os.environ, "VKPERSIST_DEVICE": str(ctx.info.index),
                                        "PYTHONPATH": CHILD_PATH})
            assert child.returncode == 0, child.stderr[-3000:]
            assert np.array_equal(np.load(out), expected), f"run {run}: {child.stdout}"
    finally:
        for p in busy:
            p.kill()
            p.wait(timeout=10)


# ---- (2) a run cut short anyway: the step it reached, and no running on ----------------
@pytest.mark.parametrize("mode", ["persistent", "launch"])
def test_a_run_cut_short_names_its_step_and_refuses_to_go_on(ctx, lavapipe, mode):
    prog, A = spiky(ctx)
    with pytest.raises(vkp.DeviceLimitError, match=r"(?s)program 'spiky' .*loop iterations.*"
                       r"the run was cut short within step 5 \(prog.steps_done = 5"):
        prog.run(10, mode=mode)
    assert int(prog.step) == prog.steps_done == 5
    refused = r"spiky: its run in mode '\w+' was cut short within step 5.*prog.reset_step"
    for other in ("persistent", "launch"):
        with pytest.raises(vkp.VkPersistError, match=refused):
            prog.run(1, mode=other)

    async def session():
        async with prog.session(mode=mode):
            pass
    with pytest.raises(vkp.VkPersistError, match=refused):
        trio.run(session)
    A.set(np.zeros(256, np.float32))      # a known state, and the step it is at
    prog.ctl["spike"] = 2**31
    prog.reset_step(0)
    prog.run(12, mode=mode)
    assert int(prog.step) == 12 and np.all(A.numpy() == 12)
    prog.free()


def test_a_step_that_cannot_fit_is_not_started(ctx, lavapipe, monkeypatch):
    """A step that costs an invocation more than an epoch's budget, measured once (the
    first step of a program runs unmeasured; below the loop guard's limit it completes), is
    not started again: the epochs end before it, and after STALLED_EPOCHS of them the run
    raises with the program at its last step, which the fallback can take on from."""
    monkeypatch.setattr(ctx, "target", dataclasses.replace(ctx.target, loop_budget=30_000))
    prog, A = spiky(ctx)
    prog.ctl["spike"] = 0
    prog.ctl["iterations"] = 40_000
    with pytest.raises(vkp.DeviceLimitError, match=r"spiky: 16 epochs in a row ended before a "
                       r"step could go on: a step needs ~\d\d,\d\d\d loop iterations per "
                       r"invocation .* past the 30,000 an epoch may use"):
        prog.run(3, mode="persistent")
    assert prog.steps_done == 1 and np.all(A.numpy() == 1)
    prog.run(2, mode="launch")
    assert prog.steps_done == 3 and np.all(A.numpy() == 3)
    prog.free()


def child(n: int, steps: int, out: str) -> None:
    """test_d2q9_under_load_in_fresh_processes's run: persistent, then save the state."""
    ctx = vkp.Context()
    prog, F, _ = d2q9(ctx, n)
    report = prog.run(steps, mode="persistent", progress=False)
    np.save(out, F.numpy())
    print(report)


if __name__ == "__main__":
    child(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
