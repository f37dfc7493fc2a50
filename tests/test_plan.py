"""The step plan (scheduler/_plan.py) on its own: accesses with index offsets, memsock
emitters and grid-barrier placement, for the programs of programs_lib.py. Building a plan
compiles the stages and allocates the program's arrays; nothing is dispatched."""
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
