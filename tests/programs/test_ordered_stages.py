"""Target.ordered_from: large domain stages of the megakernel hand out their indices in
chunks of a workgroup, in order, from an atomic counter, instead of a fixed grid stride
(scheduler/_plan.py, `place_ordered`). A step's only stage that large is ordered wherever
it sits; with ORDER_A_SINGLE_LARGE_STAGE off (the `ordered` fixture), every large stage
with a grid barrier on each side is: a barrier elided between two pointwise stages relies
on both giving index i to the same invocation. Forced on for every stage here, on every
device, the programs must still compute what they compute with the stride (against NumPy,
bit for bit), and the stages next to an elided barrier must keep the stride."""
import dataclasses
import re

import numpy as np
import pytest

import vkpersist as vkp

import random_programs
import test_megakernel_shapes as shapes
from programs_lib import jacobi, skipped_barrier, skipped_barrier_reference
from test_cached_loads import run_and_compare
from vkpersist.scheduler import _plan

ORDERED = "in order, from a counter"


@pytest.fixture(params=["own shape", "gpu shape"])
def ordered(ctx, monkeypatch, request):
    """Every stage ordered that may be, with the device's shape and, on lavapipe, also
    with a GPU's (steps prepared two ahead, a planner workgroup that runs no stages: the
    hand-out counts only the workers' failed grabs)."""
    change = {"ordered_from": 1}
    # the hand-out itself, in programs of many stages (the megakernel orders only a step's
    # single large stage: test_only_a_single_large_stage_is_ordered)
    monkeypatch.setattr(_plan, "ORDER_A_SINGLE_LARGE_STAGE", False)
    if request.param == "gpu shape":
        if not ctx.info.is_lavapipe:
            pytest.skip("a GPU has its own shape")
        change.update(steps_ahead=2, dedicated_planner_from=2)
    monkeypatch.setattr(ctx, "target", dataclasses.replace(ctx.target, **change))


def _step_loop(src: str) -> list:
    """The megakernel's step loop as (indent, text) lines."""
    loop = src[src.index("uint s = "):src.index("_vkp_end_sync(_next")]
    return [(len(line) - len(line.lstrip()), line.strip()) for line in loop.splitlines()
            if line.strip()]


def _runs(src: str):
    """For each combination of the every()/when() flags, the step's events as the
    megakernel runs them: "sync" for a grid barrier, (stage, ordered) for a stage."""
    lines = _step_loop(src)
    bits = sorted({int(m.group(1)) for _, t in lines
                   if (m := re.match(r"if \(\(_vkp_words\[1\] & (\d+)u\)", t))})
    for on in range(1 << len(bits)):
        flags = {b for k, b in enumerate(bits) if on >> k & 1}
        events, skip, pending = ["sync"], None, False
        for indent, text in lines:
            if skip is not None:
                if indent == skip and text == "}":
                    skip = None
                continue
            if m := re.match(r"if \(\(_vkp_words\[1\] & (\d+)u\)", text):
                if int(m.group(1)) not in flags:
                    skip = indent
            elif "_vkp_grid_sync(" in text or "_vkp_queue_sync_" in text:
                events.append("sync")
            elif ORDERED in text:
                pending = True
            elif m := re.search(r"\bstage_(\w+)\(", text):
                events.append((m.group(1), pending))
                pending = False
        yield flags, events + ["sync"]


def _assert_ordered_only_between_barriers(src: str) -> int:
    """Every ordered stage runs between two grid barriers under every combination of
    flags; returns how many stage calls are ordered. (The rule is conservative: a stage
    next to a conditional one keeps the stride even where another barrier follows it
    whenever that one is skipped.)"""
    for flags, events in _runs(src):
        for k, e in enumerate(events):
            if e != "sync" and e[1]:
                assert events[k - 1] == "sync" and events[k + 1] == "sync", (flags, events)
    return sum(ORDERED in text for _, text in _step_loop(src))


@pytest.mark.parametrize("seed", range(8))
def test_random_programs_with_every_stage_ordered_that_may_be(ctx, ordered, tmp_path, seed):
    """Random mixes of elided barriers and every()/when() stages (random_programs.py), with
    two workgroups, against NumPy; the ordered stages only those with a grid barrier on
    each side in the generated step loop."""
    prog, arrays, init = random_programs.build(ctx, seed, tmp_path)
    _assert_ordered_only_between_barriers(prog.glsl())
    run_and_compare(prog, arrays, random_programs.reference(seed, init, 20), "persistent",
                    20, groups=2)


def test_the_random_programs_order_stages(ctx, ordered, tmp_path):
    """Not vacuous: most of the random programs above have stages that are ordered."""
    counts = []
    for seed in range(8):
        prog = random_programs.build(ctx, seed, tmp_path)[0]
        counts.append(_assert_ordered_only_between_barriers(prog.glsl()))
        prog.free()
    assert sum(c > 0 for c in counts) >= 6, counts


def test_a_barrier_elided_between_stages_keeps_their_stride(ctx, ordered):
    prog, arrays = skipped_barrier(ctx)
    # shift (under every(2)) has barriers on both sides; bump and use, with the barrier
    # between them elided on odd steps, keep the stride
    assert _assert_ordered_only_between_barriers(prog.glsl()) == 1
    want = skipped_barrier_reference(arrays[0].shape[0], 31)
    run_and_compare(prog, dict(zip("xyz", arrays)), dict(zip("xyz", want)), "persistent",
                    31, groups=2)


def test_the_stencil_ordered_in_both_stages_matches_launch_mode(ctx, ordered):
    states = []
    for mode in ("persistent", "launch"):
        prog, a = jacobi(ctx, 12)[:2]
        if mode == "persistent":
            assert _assert_ordered_only_between_barriers(prog.glsl()) == 2
        prog.run(33, mode=mode, **({"groups": 2} if mode == "persistent" else {}))
        states.append(a.numpy())
        prog.free()
    assert np.array_equal(*states)


@pytest.mark.parametrize("case", ["bit-identical, 2 groups", "every and step counter",
                                  "when conditions", "everything together",
                                  "elided barriers, 2 groups"])
def test_program_shapes_with_ordered_stages(ctx, ordered, case):
    shapes.CASES[case](ctx)


def test_nvidia_targets_order_only_large_stages(ctx):
    """The choice per device: NVIDIA's megakernels order stages of ORDERED_FROM indices
    and more (measured there), other devices none."""
    from vkpersist.vk.target import ORDERED_FROM, Target
    nvidia = dataclasses.replace(ctx.info, driver_id=4, memory_model=True)
    assert Target.for_device(nvidia).ordered_from == ORDERED_FROM
    other = dataclasses.replace(ctx.info, driver_id=13)
    assert Target.for_device(other).ordered_from == 0


def test_only_a_single_large_stage_is_ordered(ctx, monkeypatch):
    """By default a step orders its stage only where it is the step's one stage of
    ordered_from indices or more (the two-stage stencil lost in order on an H100, the fused
    FDTD update gained): the two sweeps of the stencil keep the stride, a program whose
    other stages are smaller orders its large one, and it still computes what NumPy does."""
    monkeypatch.setattr(ctx, "target", dataclasses.replace(ctx.target, ordered_from=1000))
    prog = jacobi(ctx, 12)[0]             # two sweeps of 1,728 cells
    assert _assert_ordered_only_between_barriers(prog.glsl()) == 0
    prog.free()
    prog = vkp.Program(ctx, name="one_large")
    n = 1500
    x = prog.array("x", (n,), init=np.arange(n, dtype=np.float32))
    y = prog.array("y", (n,), np.float32)
    total = prog.array("total", (1,), np.float32)

    @prog.stage(domain=n)
    def shift(i):
        y[i] = x[(i + 7) % n] * 0.5

    @prog.stage(domain=1)
    def first(i):
        total[0] = total[0] + y[0]

    prog.loop(shift, first)
    assert _assert_ordered_only_between_barriers(prog.glsl()) == 1
    prog.run(5, mode="persistent", groups=2)
    want = np.roll(np.arange(n, dtype=np.float32), -7) * np.float32(0.5)
    assert np.array_equal(y.numpy(), want)
    assert total.numpy()[0] == 5 * want[0]
    prog.free()


@pytest.mark.parametrize("shape", ["own shape", "gpu shape"])
def test_a_single_large_stage_is_ordered_between_unrelated_stages(ctx, monkeypatch, shape):
    """The step's one large stage is ordered wherever it sits: no barrier on either side
    here (its neighbours share no buffer with it), none elided that relies on its stride
    (a pointwise partner would be as large), and the step's end separates its hand-out
    from the next step's. As the fused FDTD update between its monitors' stages."""
    change = {"ordered_from": 1000}
    if shape == "gpu shape":
        if not ctx.info.is_lavapipe:
            pytest.skip("a GPU has its own shape")
        change.update(steps_ahead=2, dedicated_planner_from=2)
    monkeypatch.setattr(ctx, "target", dataclasses.replace(ctx.target, **change))
    prog = vkp.Program(ctx, name="unrelated_neighbours")
    n = 1500
    x = prog.array("x", (n,), init=np.arange(n, dtype=np.float32))
    y = prog.array("y", (n,), np.float32)
    before = prog.array("before", (4,), np.float32)
    after = prog.array("after", (4,), np.float32)

    @prog.stage(domain=4)
    def count(i):
        before[i] = before[i] + x[i]

    @prog.stage(domain=n)
    def shift(i):
        y[i] = y[i] + x[(i + 7) % n] * 0.5

    @prog.stage(domain=4)
    def tally(i):
        after[i] = after[i] + 1.0

    prog.loop(count, shift, tally)
    src = prog.glsl()
    assert src.count(ORDERED) == 1
    for _, events in _runs(src):          # shift has no barrier on either side
        k = events.index(("shift", True))
        assert events[k - 1] == ("count", False) and events[k + 1] == ("tally", False)
    steps = 7
    prog.run(steps, mode="persistent", groups=2)
    want = np.roll(np.arange(n, dtype=np.float32), -7) * np.float32(0.5)
    assert np.array_equal(y.numpy(), sum(want for _ in range(steps)))
    assert np.array_equal(before.numpy(), steps * np.arange(4, dtype=np.float32))
    assert np.array_equal(after.numpy(), np.full(4, steps, np.float32))
    prog.free()
