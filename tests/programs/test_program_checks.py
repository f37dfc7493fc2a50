"""Programs as users meet them (issue 16): array pairs (double buffering without a copy),
races refused at build, debug mode's bounds checks, the read-only step counter and
reset_step. Numerics against NumPy; the two modes against each other bit for bit."""
import numpy as np
import pytest
import trio

import vkpersist as vkp
from vkpersist.scheduler._build import build_for

MODES = ["persistent", "launch"]


def relax_reference(a, steps):
    """Jacobi relaxation of the interior, edges fixed (float32, the stage's order)."""
    for _ in range(steps):
        b = a.copy()
        b[1:-1, 1:-1] = ((a[:-2, 1:-1] + a[2:, 1:-1]) + a[1:-1, :-2] + a[1:-1, 2:]) \
            * np.float32(0.25)
        a = b
    return a


def relax(ctx, n=12, **kw):
    init = np.random.default_rng(1).random((n, n)).astype(np.float32)
    prog = vkp.Program(ctx, name="relax", **kw)
    A, A_next = prog.array_pair("A", (n, n), np.float32, init=init)
    edge = prog.memsock("edge", np.float32, (n,), capacity=64, payload={"step": vkp.u32})

    @prog.stage(domain=(n - 2, n - 2))
    def sweep(i, j):          # reads A around (i+1, j+1), writes only A_next: no race
        A_next[i + 1, j + 1] = ((A[i, j + 1] + A[i + 2, j + 1]) + A[i + 1, j]
                                + A[i + 1, j + 2]) * 0.25

    @prog.stage(domain=n)
    def emit(i):              # the state as the step starts
        edge.frame[i] = A[1, i]
        if i == 0:
            edge.step = prog.step

    prog.loop(emit, sweep)
    return prog, A, A_next, init


def test_arrays_larger_than_one_binding_are_refused_before_allocating(ctx):
    """A buffer past maxStorageBufferRange (128 MiB on lavapipe, 4 GiB on NVIDIA) cannot
    be bound whole: refused when declared, naming the limit, nothing allocated."""
    limit = ctx.info.max_storage_buffer_range
    prog = vkp.Program(ctx, name="huge")
    with pytest.raises(vkp.UnsupportedError,
                       match=r"huge: array 'A' would be .* bytes per storage buffer "
                             r"\(maxStorageBufferRange\)"):
        prog.array("A", (limit // 4 + 1,), np.float32)
    with pytest.raises(vkp.UnsupportedError, match=r"array pair 'P' \(both halves"):
        prog.array_pair("P", (limit // 8 + 1,), np.float32)
    if limit // 4 + 1 < 2**31:
        with pytest.raises(vkp.UnsupportedError, match="queue 'q'"):
            prog.queue("q", vkp.i32, capacity=limit // 4 + 1)
    assert not prog.arrays and not prog.queues
    prog.array("A", (limit // 8,), np.float32)          # within the limit: fine
    prog.free()


@pytest.mark.parametrize("mode", MODES)
def test_an_array_pair_takes_one_binding(ctx, mode):
    """Both names of a pair are one device array bound once: as many pairs as the device
    has bindings to spare (capped at 40) build and run; on lavapipe (32 a shader) two
    bindings each would not (a DeviceLimitError before)."""
    n_pairs = min(ctx.info.max_storage_buffers - 4, 40)
    prog = vkp.Program(ctx, name="many_pairs")
    pairs = [prog.array_pair(f"p{k}", (8,), np.float32, init=np.full(8, k, np.float32))
             for k in range(n_pairs)]
    (A, A_next), (B, B_next) = pairs[0], pairs[-1]

    @prog.stage(domain=8)
    def bump(i):
        A_next[i] = A[i] + 1.0
        B_next[i] = B[i] * 2.0

    prog.loop(bump)
    prog.run(3, mode=mode)
    np.testing.assert_array_equal(A.numpy(), np.full(8, 3, np.float32))
    np.testing.assert_array_equal(B.numpy(), np.full(8, (n_pairs - 1) * 8, np.float32))
    np.testing.assert_array_equal(pairs[1][0].numpy(), np.full(8, 1, np.float32))
    prog.free()


@pytest.mark.parametrize("mode", MODES)
def test_array_pair_matches_numpy(ctx, mode):
    prog, A, A_next, init = relax(ctx)
    prog.run(7, mode=mode)              # odd: the state is in the second half now
    np.testing.assert_array_equal(A.numpy(), relax_reference(init, 7))
    np.testing.assert_array_equal(A_next.numpy(), relax_reference(init, 6))
    frames = []
    while (f := prog.sockets["edge"].poll()) is not None:
        with f:
            frames.append((int(f.payload["step"]), f.data.copy()))
    assert [s for s, _ in frames] == list(range(7))
    for s, data in frames:              # emitted from `A`: the state before step s
        np.testing.assert_array_equal(data, relax_reference(init, s)[1])
    prog.free()


def test_array_pair_modes_are_bit_identical_and_share_the_state(ctx):
    out = {}
    for mode in MODES:
        prog, A, _, init = relax(ctx)
        prog.run(5, mode=mode)
        out[mode] = A.numpy()
        prog.free()
    assert np.array_equal(out["persistent"], out["launch"])
    prog, A, _, init = relax(ctx)       # one program, switching modes mid-run
    prog.run(3, mode="persistent")
    prog.run(2, mode="launch")
    np.testing.assert_array_equal(A.numpy(), out["launch"])
    prog.free()


def test_array_pair_host_side(ctx):
    prog, A, A_next, init = relax(ctx, n=6)
    assert A.shape == A_next.shape == (6, 6) and A.ndim == 2
    assert "pair with 'A_next'" in repr(A)
    prog.run(1, mode="launch")
    x = np.arange(36, dtype=np.float32).reshape(6, 6)
    A.set(x)                            # both halves: the edges no stage writes stay x
    prog.run(1, mode="launch")
    np.testing.assert_array_equal(A.numpy(), relax_reference(x, 1))
    with pytest.raises(ValueError, match="has shape"):
        A.set(np.zeros(3))
    state = A.numpy()
    A_next.set(x)                       # its own half only
    np.testing.assert_array_equal(A_next.numpy(), x)
    np.testing.assert_array_equal(A.numpy(), state)
    prog.free()
    prog = vkp.Program(ctx)
    prog.array("B", (4,))
    with pytest.raises(ValueError, match="already has an array, queue or memsock 'B'"):
        prog.array_pair("A", (4,), next_name="B")
    with pytest.raises(ValueError, match="init has shape"):
        prog.array_pair("C", (4,), init=np.zeros(5))
    prog.free()


def test_array_pair_in_a_session_reads_the_current_state(ctx):
    prog, A, _, init = relax(ctx)

    async def main():
        async with prog.session(mode="persistent") as run:
            done = await run.pause()
            np.testing.assert_array_equal(A.numpy(), relax_reference(init, done))
            await run.resume()
            with trio.fail_after(30):
                while run.steps_done < done + 3:
                    await trio.sleep(0.01)
            done = await run.stop()
        return done

    done = trio.run(main)
    np.testing.assert_array_equal(A.numpy(), relax_reference(init, done))
    prog.free()


# ---- the step counter -------------------------------------------------------------------------
def step_log(ctx):
    prog = vkp.Program(ctx, name="steps")
    log = prog.array("log", (16,), np.uint32)
    hits = prog.array("hits", (1,), np.int32)

    @prog.stage(domain=1)
    def note(i):
        s = prog.step
        if s < 16:
            log[s] = log[s] + 1

    @prog.stage(domain=1)
    def third(i):
        hits[0] += 1

    prog.loop(note, vkp.every(3, third))
    return prog, log, hits


@pytest.mark.parametrize("mode", MODES)
def test_step_is_read_only_and_reset_step_restarts_the_count(ctx, mode):
    prog, log, hits = step_log(ctx)
    with pytest.raises(AttributeError, match=r"cannot be assigned.*prog.reset_step\(n\)"):
        prog.step = 0
    prog.run(4, mode=mode)                  # steps 0..3
    assert int(prog.step) == 4
    prog.reset_step()
    assert int(prog.step) == 0
    prog.run(2, mode=mode)                  # steps 0, 1 again
    assert log.numpy()[:5].tolist() == [2, 2, 1, 1, 0]
    assert hits.numpy()[0] == 3             # every(3): steps 0, 3, then 0 again
    prog.reset_step(10)
    prog.run(1, mode=mode)
    assert int(prog.step) == 11 and log.numpy()[10] == 1
    for bad in (-1, 1.5, True, 2**32):
        with pytest.raises(ValueError, match="reset_step"):
            prog.reset_step(bad)
    prog.free()


def test_steps_continue_across_modes(ctx):
    prog, log, _ = step_log(ctx)
    prog.run(3, mode="persistent")
    prog.run(2, mode="launch")              # its own scheduler words start from step 3
    prog.run(1, mode="persistent")
    assert log.numpy()[:7].tolist() == [1, 1, 1, 1, 1, 1, 0]
    prog.free()


def test_reset_step_keeps_an_array_pair_and_refuses_a_running_session(ctx):
    prog, A, _, init = relax(ctx)
    prog.run(4, mode="launch")
    before = A.numpy()
    prog.reset_step(1)                      # odd now: the halves are exchanged, A is kept
    np.testing.assert_array_equal(A.numpy(), before)
    prog.run(1, mode="launch")
    np.testing.assert_array_equal(A.numpy(), relax_reference(init, 5))

    prog.free()


@pytest.mark.parametrize("mode", MODES)
def test_reset_step_in_a_paused_session(ctx, mode):
    prog, log, _ = step_log(ctx)

    async def main():
        async with prog.session(mode=mode) as run:
            with pytest.raises(vkp.VkPersistError, match="while the program runs"):
                prog.reset_step()
            with trio.fail_after(30):
                while run.steps_done < 3:
                    await trio.sleep(0.005)
            done = await run.pause()
            prog.reset_step(0)              # paused: allowed; the session goes on from 0
            assert int(prog.step) == 0 and run.steps_done == 0
            await run.resume()
            with trio.fail_after(30):
                while run.steps_done < 2:
                    await trio.sleep(0.005)
            await run.stop()
        return done

    done = trio.run(main)
    counts = log.numpy()
    assert counts[0] == 2 and counts[1] == 2                 # steps 0 and 1 ran twice
    assert counts[:min(done, 16)].min() >= 1                 # before the reset, once each
    prog.free()


# ---- races -------------------------------------------------------------------------------------
def test_in_place_stencil_is_refused_with_the_line(ctx):
    prog = vkp.Program(ctx, name="inplace")
    A = prog.array("A", (8, 8))

    @prog.stage(domain=(7, 8))
    def smooth(i, j):
        A[i, j] = 0.5 * (A[i, j] + A[i + 1, j])

    prog.loop(smooth)
    line = smooth.fn.__code__.co_firstlineno + 2
    with pytest.raises(vkp.VkPersistError,
                       match=rf"inplace: stage smooth writes A\[i, j\] \(.*test_program_checks"
                             rf".py:{line}\) and reads A\[i \+ 1, j\].*race.*array pair.*two "
                             "stages"):
        prog.run(1)
    prog.free()


@pytest.mark.parametrize("case", ["leading", "middle"])
def test_an_offset_race_beside_constant_indices_is_refused(ctx, case):
    """Constant index components (a plane of a higher-rank array) that are equal leave the
    offsets on the other axes to race, on any rank (issue 47)."""
    prog = vkp.Program(ctx, name="planes")
    F = prog.array("F", (9, 8, 8))

    @prog.stage(domain=(8, 8))
    def shift(i, j):
        if i > 0:
            F[1, i, j] = F[1, i - 1, j]

    @prog.stage(domain=(8, 8))
    def middle(i, j):
        if i > 0:
            F[i, 2, j] = F[i - 1, 2, j] + 1.0

    stage, index, read = (shift, "1, i, j", "1, i - 1, j") if case == "leading" else \
        (middle, "i, 2, j", "i - 1, 2, j")
    prog.loop(stage)
    line = stage.fn.__code__.co_firstlineno + 3
    with pytest.raises(vkp.VkPersistError,
                       match=rf"planes: stage {stage.name} writes F\[{index}\] \(.*:{line}\) "
                             rf"and reads F\[{read}\] \(.*:{line}\).*race"):
        prog.run(1)
    prog.free()


def test_constant_indices_that_differ_or_match_exactly_are_accepted(ctx):
    """Another plane (constants that differ) is other memory; the same plane at the same
    offsets is each index's own element."""
    init = np.random.default_rng(2).random((9, 8, 8)).astype(np.float32)
    prog = vkp.Program(ctx, name="planes_fine")
    F = prog.array("F", (9, 8, 8), np.float32, init=init)
    G = prog.array("G", (9, 8, 8), np.float32, init=init)

    @prog.stage(domain=(8, 8))
    def planes(i, j):
        if i > 0:
            F[1, i, j] = F[2, i - 1, j] + 1.0
            G[i, 3, j] = G[i - 1, 4, j]
        F[5, i, j] = F[5, i, j] * 2.0

    prog.loop(planes)
    prog.run(1)
    want, g = init.copy(), init.copy()
    want[1, 1:] = init[2, :-1] + np.float32(1.0)
    want[5] = init[5] * np.float32(2.0)
    g[1:8, 3] = init[:7, 4]
    np.testing.assert_array_equal(F.numpy(), want)
    np.testing.assert_array_equal(G.numpy(), g)
    prog.free()


@pytest.mark.parametrize("case", ["read", "frame"])
def test_an_index_out_of_range_for_every_run_is_refused(ctx, case):
    """An access that runs for every index of the domain (no branch before it) and is
    the index plus a constant must stay in the shape for the whole domain."""
    prog = vkp.Program(ctx, name="edges")
    A = prog.array("A", (8, 8))
    B = prog.array("B", (8, 8))
    snap = prog.memsock("snap", np.float32, (4, 8))

    @prog.stage(domain=(8, 8))
    def shift(i, j):
        B[i, j] = A[i - 1, j]

    @prog.stage(domain=(8, 8))
    def emit(i, j):
        snap.frame[i, j] = A[i, j]

    @prog.stage(domain=(8, 8))
    def guarded(i, j):            # fine: the branch, and an index not of the domain's
        if i > 0:
            B[i, j] = A[i - 1, j]
        B[i, j] = B[i, j] + A[7 - i, j]

    @prog.stage(domain=(4, 8))
    def fits(i, j):               # fine: the domain fits the frame
        snap.frame[i, j] = A[i + 4, j]

    prog.loop(shift if case == "read" else emit)
    line = (shift if case == "read" else emit).fn.__code__.co_firstlineno + 2
    match = (rf"stage shift reads A\[i - 1, j\] \(.*:{line}\) for every index of its "
             r"domain \(8, 8\): with i from 0 to 7, axis 0 reaches -1, outside A's shape "
             r"\(8, 8\). Guard it \(if i >= 1: ...\)") if case == "read" else \
        (rf"stage emit writes snap.frame\[i, j\] \(.*:{line}\) .* axis 0 reaches 7, "
         r"outside the frames of memsock 'snap', of shape \(4, 8\). Guard it \(if i < 4")
    with pytest.raises(vkp.BoundsError, match=match):
        prog.run(1)
    prog.free()
    prog = vkp.Program(ctx, name="inside")
    A = prog.array("A", (8, 8))
    B = prog.array("B", (8, 8))
    snap = prog.memsock("snap", np.float32, (4, 8))
    prog.stage(domain=(8, 8))(guarded.fn)      # they close over A, B, snap: now these
    prog.stage(domain=(4, 8))(fits.fn)
    prog.loop(*prog.stages.values())
    prog.run(1)
    prog.free()


def test_what_is_not_a_race_is_accepted(ctx):
    prog = vkp.Program(ctx, name="fine")
    A = prog.array("A", (8,), np.float32, init=np.arange(8))
    F = prog.array("F", (9,), np.int32)
    B, B_next = prog.array_pair("B", (8,))

    @prog.stage(domain=4)
    def halves(i):            # offsets 4 apart over a domain of 4: never the same element
        A[i] = A[i] + A[i + 4]

    @prog.stage(domain=8)
    def scatter(i):           # atomics never race
        vkp.atomic.add(F, i, 1)
        vkp.atomic.add(F, i + 1, 1)

    @prog.stage(domain=7)
    def pair(i):              # different names of a pair: different halves
        B_next[i] = B[i + 1] + 1.0

    prog.loop(halves, scatter, pair)
    prog.run(1)
    np.testing.assert_array_equal(A.numpy(), [4, 6, 8, 10, 4, 5, 6, 7])
    np.testing.assert_array_equal(F.numpy(), [1] + [2] * 7 + [1])
    np.testing.assert_array_equal(B.numpy(), [1] * 7 + [0])
    prog.free()


# ---- debug mode --------------------------------------------------------------------------------
@vkp.kernel(debug=True)
def shift_checked(x: vkp.Array[vkp.f32, 2], y: vkp.Array[vkp.f32, 2], d: vkp.i32):
    i = vkp.global_id(0)
    j = vkp.global_id(1)
    if i < y.shape[0] and j < y.shape[1]:
        y[i, j] = x[i - d, j]


def test_debug_kernel_reports_the_first_index_out_of_range(ctx):
    x = ctx.asarray(np.arange(48, dtype=np.float32).reshape(6, 8))
    y = ctx.zeros((6, 8), np.float32)
    shift_checked.forall((6, 8))(x, y, 0)          # in range: the right result
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    line = shift_checked.pyfunc.__code__.co_firstlineno + 5
    with pytest.raises(vkp.BoundsError,
                       match=rf"test_program_checks.py:{line}: index \[-1, \d\] is out of range "
                             r"for x of shape \(6, 8\) \(axis 0: -1 is not in 0..5\)") as info:
        shift_checked.forall((6, 8))(x, y, 1)
    assert isinstance(info.value, IndexError) and info.value.shape == (6, 8)
    shift_checked.forall((6, 8))(x, y, 0)          # reported once: the record is cleared
    view = x[:, ::2]                                # a strided view: its own shape
    with pytest.raises(vkp.BoundsError, match=r"out of range for x of shape \(6, 4\)"):
        shift_checked.forall((6, 8))(view, y, 0)


def test_debug_is_off_by_default_and_follows_the_environment(ctx, monkeypatch):
    @vkp.kernel
    def copy(x, y):
        i = vkp.global_id(0)
        y[i] = x[i + 1]

    types = (vkp.Array[vkp.f32], vkp.Array[vkp.f32])
    assert "_vkp_debug" not in copy.glsl(*types)
    monkeypatch.setenv("VKPERSIST_DEBUG", "1")
    assert "_vkp_at_x" in copy.glsl(*types)
    with pytest.raises(vkp.BoundsError, match=r"index \[8\] is out of range for x of shape"):
        copy.forall(8)(ctx.zeros(8, np.float32), ctx.zeros(8, np.float32))
    with pytest.raises(TypeError, match="debug=..."):
        vkp.kernel(debug="yes")(lambda x: None)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", ["array", "frame"])
def test_debug_program_checks_arrays_and_frames(ctx, mode, case):
    prog = vkp.Program(ctx, name="checked", debug=True)
    A, A_next = prog.array_pair("A", (8, 8))
    snap = prog.memsock("snap", np.float32, (4, 8), capacity=4)   # smaller than the domain

    @prog.stage(domain=(8, 8))
    def shift(i, j):
        if i < 8:                 # the guard is wrong: only debug mode can tell
            A_next[i, j] = A[i - 1, j]

    @prog.stage(domain=(8, 8))
    def emit(i, j):
        if i < 5:                 # one row too many for the frame
            snap.frame[i, j] = A[i, j]

    prog.loop(shift if case == "array" else emit)
    match = r"index \[-1, \d\] is out of range for A of shape \(8, 8\)" if case == "array" \
        else r"index \[4, \d\] is out of range for snap of shape \(4, 8\)"
    with pytest.raises(vkp.BoundsError, match=match):
        prog.run(2, mode=mode)
    prog.free()


def test_debug_program_results_in_range_are_unchanged(ctx):
    out = {}
    for debug in (False, True):
        prog, A, _, init = relax(ctx, debug=debug)
        prog.run(3, mode="launch")
        out[debug] = A.numpy()
        assert ("_vkp_at_A" in build_for(prog, "launch").source) == debug
        prog.free()
    assert np.array_equal(out[False], out[True])


def test_names_the_generated_code_derives_are_taken(ctx):
    """A memsock 'snap' makes snap_frames, snap_seq...; a queue 'q' makes q_items...: a
    declaration whose name (or whose own derived names) would reuse one is refused at
    once, naming both (it failed as GLSL that did not compile)."""
    prog = vkp.Program(ctx, name="names")
    prog.memsock("snap", np.float32, (4,))
    prog.queue("work", vkp.i32, capacity=8)
    with pytest.raises(ValueError, match="array name 'snap_seq': the code generated for "
                                         "memsock 'snap' already uses the name 'snap_seq'"):
        prog.array("snap_seq", (4,))
    with pytest.raises(ValueError, match="queue 'work' already uses the name 'work_items'"):
        prog.memsock("work_items", np.float32, (4,))
    prog.array("field", (4,))
    with pytest.raises(ValueError, match="array 'field' already uses the name 'field_buffer'"):
        prog.queue("field_buffer", vkp.i32, capacity=8)
    with pytest.raises(ValueError, match="already has an array, queue or memsock 'field'"):
        prog.memsock("field", np.float32, (4,))
    prog.array("out", (4,))                    # a GLSL word: the code calls it out_py
    with pytest.raises(ValueError, match="array 'out' already uses the name 'out_py'"):
        prog.array("out_py", (4,))             # (GLSL that did not compile: 'out_py_buffer')
    prog.array("snap_seq_ok", (4,))            # names that only start alike are fine
