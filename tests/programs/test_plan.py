"""The step plan (scheduler/_plan.py) on its own: accesses with index offsets, memsock
emitters and grid-barrier placement, for the programs of programs_lib.py. Building a plan
compiles the stages and allocates the program's arrays; nothing is dispatched."""
import dataclasses

import numpy as np
import pytest

import programs_lib as pl
import vkpersist as vkp
from vkpersist.scheduler._build import build_for


def plan_of(prog, mode="persistent"):
    return build_for(prog, mode).plan


def test_stencil_accesses_carry_their_offsets(ctx):
    prog, _, _ = pl.jacobi(ctx, 8)
    first, second = plan_of(prog).entries
    reads = {a.offsets for a in first.accesses if a.buffer == "A" and not a.write}
    assert reads == {(0, 0, 0), (-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1),
                     (0, 0, 1)}                   # through the @vkp.func helpers at() and sweep()
    assert {a.offsets for a in first.accesses if a.write} == {(0, 0, 0)}
    assert first.writes == {"B"} and second.writes == {"A"}
    assert "_vkp_controls" in first.reads          # ctl.alpha
    prog.free()


def test_barriers_follow_the_conflicts(ctx):
    prog, _, _ = pl.jacobi(ctx, 8)
    first, second = plan_of(prog).entries
    assert not first.barrier_before and second.barrier_before   # sweep_ba reads B
    assert not first.barrier_after and not second.barrier_after  # the end of step syncs
    prog.free()
    prog, _, _ = pl.counters(ctx)
    each, second, by_control = plan_of(prog).entries
    assert each.bit is None and second.bit is not None and by_control.bit is not None
    # whole buffers: counts[1] conflicts with counts[0] (constant indices: no offsets)
    assert second.barrier_before and {a.index for a in second.accesses} == {(None,)}
    assert second.barrier_after and not by_control.barrier_after   # conditional; last
    prog.free()


def test_memsock_emitters_and_queue_entries(ctx):
    prog, _, _, _ = pl.combo(ctx)
    plan = plan_of(prog, "launch")
    kinds = [(e.stage.name, e.kind) for e in plan.entries]
    assert kinds == [("grow", "domain"), ("count", "queue"), ("when_hot", "domain"),
                     ("emit", "domain")]
    assert plan.emitters == {"snap": 3} and plan.entries[3].emits == ("snap",)
    assert plan.entries[3].barrier_after           # its frame is published after a barrier
    grow = plan.entries[0]
    assert {a.offsets for a in grow.accesses if a.buffer == "f"} == {(0, 0)}
    prog.free()


def test_a_memsock_written_by_two_stages_is_refused(ctx):
    prog = vkp.Program(ctx, name="two_writers")
    sock = prog.memsock("s", vkp.f32, (4,), capacity=2)

    @prog.stage(domain=4)
    def one(i):
        sock.frame[i] = 1.0

    @prog.stage(domain=4)
    def two(i):
        sock.frame[i] = 2.0

    prog.loop(one, two)
    with pytest.raises(vkp.VkPersistError, match="memsock 's' is written by one, two"):
        prog.glsl()
    prog.free()


def _chain(ctx, n=16):
    """A step of pointwise stages around a stencil: scale (u -> v, pointwise), shift (v -> w,
    reads v[i - 1]), square (w -> w, pointwise), and a transpose-like stage over another
    domain shape."""
    prog = vkp.Program(ctx, name="pointwise_chain")
    u = prog.array("u", (n,), vkp.f32, init=np.linspace(0, 1, n, dtype=np.float32))
    v = prog.array("v", (n,), vkp.f32)
    w = prog.array("w", (n,), vkp.f32)
    m = prog.array("m", (4, n // 4), vkp.f32)

    @prog.stage(domain=n)
    def scale(i):
        v[i] = u[i] * 1.5 + 0.25

    @prog.stage(domain=n)
    def bump(i):
        v[i] = v[i] + 1.0                     # pointwise on what scale wrote: no barrier

    @prog.stage(domain=n)
    def shift(i):
        w[i] = v[i - 1] if i > 0 else v[i]    # a neighbour of what bump wrote: barrier

    @prog.stage(domain=n)
    def square(i):
        u[i] = w[i] * w[i] * 0.5              # pointwise on shift's w: none

    @prog.stage(domain=(4, n // 4))
    def fold(i, j):
        m[i, j] = u[i * (n // 4) + j]         # another domain shape: barrier

    prog.loop(scale, bump, shift, square, fold)
    return prog, u, m


def test_barriers_between_pointwise_stages_are_elided(ctx):
    prog, u, m = _chain(ctx)
    plan = plan_of(prog)
    before = {e.stage.name: e.barrier_before for e in plan.entries}
    assert before == {"scale": False, "bump": False, "shift": True, "square": False,
                      "fold": True}
    src = prog.glsl("persistent")
    body = src[src.index("// stage scale over"):]
    body = body[:body.index("// stage fold over")]
    assert body.count("_vkp_grid_sync(") == 2      # before shift and before fold only
    prog.free()


@pytest.mark.parametrize("groups", [None, 2])
def test_elided_barriers_keep_both_modes_bit_identical(ctx, groups):
    results = {}
    for mode in ("launch", "persistent"):
        prog, u, m = _chain(ctx)
        prog.run(25, mode=mode, **({"groups": groups} if mode == "persistent" and groups
                                   else {}))
        results[mode] = (u.numpy(), m.numpy())
        prog.free()
    for a, b in zip(results["launch"], results["persistent"]):
        np.testing.assert_array_equal(a, b)
    x = np.linspace(0, 1, 16, dtype=np.float32)
    for _ in range(25):                    # the same steps in NumPy float32
        v = x * np.float32(1.5) + np.float32(0.25) + np.float32(1.0)
        w = np.concatenate([v[:1], v[:-1]])
        x = w * w * np.float32(0.5)
    np.testing.assert_allclose(results["launch"][0], x, rtol=1e-6)


def test_step_plan_shows_each_entry_as_the_megakernel_runs_it(ctx, monkeypatch):
    """prog.step_plan(), the plan for users: every kind of entry (a queue stage, when(),
    every(control), a memsock stage), the barriers, and which stage is ordered."""
    prog = pl.combo(ctx)[0]
    rows = prog.step_plan()
    assert [(r.stage, r.indices, r.runs) for r in rows] == [
        ("grow", 256, "every step"), ("count", None, "every step"),
        ("when_hot", 1, "when(hot)"), ("emit", 256, "every(ctl.period)")]
    entries = plan_of(prog).entries
    assert [(r.barrier_before, r.barrier_after) for r in rows] == \
        [(e.barrier_before, e.barrier_after) for e in entries]
    assert rows[3].barrier_after                     # a frame is published after a barrier
    assert not any(r.in_order for r in rows)
    assert repr(rows[0]).startswith("vkpersist.lowlevel.PlannedStage(stage='grow', ")
    prog.free()
    # in order: a step's one stage of ordered_from indices or more, not two
    monkeypatch.setattr(ctx, "target", dataclasses.replace(ctx.target, ordered_from=100))
    prog = pl.combo(ctx)[0]                          # grow and emit: 256 indices each
    assert not any(r.in_order for r in prog.step_plan())
    prog.free()
    prog = vkp.Program(ctx, name="one_large")
    x = prog.array("x", (300,))
    total = prog.array("total", (1,))

    @prog.stage(domain=300)
    def scale(i):
        x[i] = x[i] * 0.5

    @prog.stage(domain=1)
    def add(i):
        total[0] = total[0] + x[0]

    prog.loop(scale, add)
    assert [(r.stage, r.in_order, r.barrier_before) for r in prog.step_plan()] == [
        ("scale", True, False), ("add", False, True)]
    prog.free()
