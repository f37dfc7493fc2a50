"""Checkpoints (prog.checkpoint / prog.restore): a run restored from a checkpoint, in a
fresh process and in either mode, ends bit-identical to the uninterrupted run, for a
stencil on array pairs, Gray-Scott with Philox noise, a queue program, controls with a
command not yet applied and a memsock whose reader sees the sequence go on; a process
killed while writing never leaves a damaged checkpoint; a checkpoint of another program,
or a damaged or foreign file, is refused with the difference named and the program left
as it was."""
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import trio

import vkpersist as vkp
from checkpoint_programs import PROGRAMS, arrays
from programs_lib import ticker

HERE = pathlib.Path(__file__).resolve().parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(HERE), str(HERE.parent), str(HERE.parents[1]), os.environ.get("PYTHONPATH", "")])}
MODES = [("persistent", "launch"), ("launch", "persistent"), ("launch", "launch")]


def child(name, path, mode, steps, tmp_path):
    """Restore `path` into program `name` in a fresh interpreter and run `steps` more."""
    out = tmp_path / "child.npz"
    subprocess.run([sys.executable, str(HERE / "checkpoint_programs.py"), name, str(path),
                    mode, str(steps), str(out)], env=ENV, check=True, timeout=600)
    with np.load(out) as f:
        return {k: f[k] for k in f.files}


@pytest.mark.parametrize("name", ["heat", "gray_scott", "levels"])
@pytest.mark.parametrize("first, second", MODES, ids=[f"{a}-then-{b}" for a, b in MODES])
def test_a_restored_run_ends_where_the_uninterrupted_one_ends(ctx, tmp_path, name, first,
                                                             second):
    n = 6
    whole = PROGRAMS[name](ctx)
    whole.run(2 * n, mode=first)
    expected = arrays(whole)
    part = PROGRAMS[name](ctx)
    part.run(n, mode=first)
    before = arrays(part)
    path = part.checkpoint(tmp_path / f"{name}.h5")
    if name == "levels":
        assert len(part.queues["frontier"]) > 0          # a queue with items in it
    got = child(name, path, second, n, tmp_path)
    assert got.pop("_step") == 2 * n
    assert got.keys() == expected.keys()
    for key in expected:
        np.testing.assert_array_equal(got[key], expected[key], err_msg=key)
    assert any(not np.array_equal(before[k], expected[k]) for k in expected)   # it moved on


def test_the_file_is_readable_hdf5_with_openpmd_meshes(ctx, tmp_path):
    h5py = pytest.importorskip("h5py")
    prog = PROGRAMS["gray_scott"](ctx)
    prog.run(3, mode="launch")
    path = prog.checkpoint(tmp_path / "gs.h5")
    with h5py.File(path) as f:
        assert f.attrs["openPMD"] == "1.1.0" and f.attrs["basePath"] == "/data/%T/"
        mesh = f["data/3/meshes/U"]
        assert mesh.attrs["geometry"] == "cartesian" and list(mesh.attrs["gridSpacing"]) == [1, 1]
        np.testing.assert_array_equal(mesh[()], prog.arrays["U"].numpy())
        np.testing.assert_array_equal(f["data/3/meshes/V_next"][()],
                                      prog.arrays["V_next"].numpy())
        assert f["data/3/vkpersist/controls"].attrs["seed"] == 1234


def test_a_command_not_yet_applied_is_applied_after_the_restore(ctx, tmp_path):
    whole = PROGRAMS["recorder"](ctx)
    whole.run(5, mode="launch")
    whole.ctl.send_nowait(freq=3.0)
    whole.run(5, mode="launch")
    part = PROGRAMS["recorder"](ctx)
    part.run(5, mode="launch")
    part.ctl.send_nowait(freq=3.0)                 # queued; the next step applies it
    path = part.checkpoint(tmp_path / "rec.h5")
    got = child("recorder", path, "persistent", 5, tmp_path)
    np.testing.assert_array_equal(got["seen"], whole.arrays["seen"].numpy())
    assert list(got["seen"][:10]) == [1.0] * 5 + [3.0] * 5


def test_a_memsock_reader_sees_the_sequence_go_on(ctx, tmp_path):
    prog, sock, _ = ticker(ctx, capacity=32)
    prog.run(8, mode="launch")
    taken = [sock.poll() for _ in range(3)]
    for frame in taken[:2]:
        frame.release()               # frame 2 is held: taken, not released
    path = prog.checkpoint(tmp_path / "ticks.h5")
    taken[2].release()

    again, sock2, count = ticker(ctx, capacity=32)
    assert again.restore(path) == 8
    again.run(4, mode="persistent")
    seqs, steps = [], []
    while (frame := sock2.poll()) is not None:
        with frame:
            seqs.append(frame.seq)
            steps.append(int(frame.data[0]))
    assert seqs == list(range(2, 12))          # from the first frame not released, no gap
    assert steps == seqs                       # frame k is step k's
    assert int(count.numpy()[0]) == 12


def test_a_checkpoint_of_another_program_is_refused_naming_the_difference(ctx, tmp_path):
    prog = PROGRAMS["heat"](ctx)
    prog.run(2, mode="launch")
    path = prog.checkpoint(tmp_path / "heat.h5")
    other = PROGRAMS["heat"](ctx, n=16)
    before = arrays(other)
    with pytest.raises(vkp.CheckpointError, match=r"array 'T': shape \(24, 24\) in the "
                       r"checkpoint, \(16, 16\) in this program"):
        other.restore(path)
    assert int(other.step) == 0
    for k, v in arrays(other).items():
        np.testing.assert_array_equal(v, before[k])        # untouched
    with pytest.raises(vkp.CheckpointError, match="holds program 'heat' .* differs from "
                       "'gray_scott': the checkpoint has array 'T', which this program lacks;"
                       ".* this program has array 'U', which the checkpoint lacks.* control "
                       r"field 'F': absent in the checkpoint, vkp.f32 \(host\) in this program"):
        PROGRAMS["gray_scott"](ctx).restore(path)


def test_an_edited_stage_and_another_dtype_are_refused(ctx, tmp_path):
    source = textwrap.dedent("""
        import numpy as np
        import vkpersist as vkp

        def make(ctx, dtype=np.float32, factor=0.5):
            prog = vkp.Program(ctx, name="p")
            a = prog.array("a", (8,), dtype)

            @prog.stage(domain=8)
            def step(i):
                a[i] = a[i] * FACTOR + 1

            prog.loop(step)
            return prog
        """)
    made = [vkp.compile_source(source.replace("FACTOR", f), "edit")["make"]
            for f in ("0.5", "0.25")]
    prog = made[0](ctx)
    prog.run(3, mode="launch")
    path = prog.checkpoint(tmp_path / "p.h5")
    made[0](ctx).restore(path)                           # the same program: fine
    with pytest.raises(vkp.CheckpointError, match="stage 'step' was edited"):
        made[1](ctx).restore(path)
    with pytest.raises(vkp.CheckpointError, match="array 'a': dtype float32 in the checkpoint, "
                       "float64 in this program"):
        made[0](ctx, dtype=np.float64).restore(path)


def test_damaged_and_foreign_files_are_refused_clearly(ctx, tmp_path):
    h5py = pytest.importorskip("h5py")
    prog = PROGRAMS["heat"](ctx)
    prog.run(1, mode="launch")
    good = prog.checkpoint(tmp_path / "good.h5")
    cut = tmp_path / "cut.h5"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(vkp.CheckpointError, match="not a readable HDF5 file"):
        prog.restore(cut)
    foreign = tmp_path / "foreign.h5"
    with h5py.File(foreign, "w") as f:
        f["x"] = np.arange(3)
    with pytest.raises(vkp.CheckpointError, match="not a vkpersist checkpoint"):
        prog.restore(foreign)
    (tmp_path / "text.h5").write_text("hello")
    with pytest.raises(vkp.CheckpointError, match="not a readable HDF5 file"):
        prog.restore(tmp_path / "text.h5")
    with pytest.raises(FileNotFoundError, match="no checkpoint file"):
        prog.restore(tmp_path / "missing.h5")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        prog.checkpoint(tmp_path / "no" / "such" / "folder.h5")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.h5", "foreign.h5", "good.h5",
                                                          "text.h5"]


KILLED = textwrap.dedent("""
    import sys
    import numpy as np
    import vkpersist as vkp
    from vkpersist.scheduler import _checkpoint

    def announced(write_file):                # says when the file's contents are written
        def write(*args, **kwargs):
            print("inside", flush=True)
            write_file(*args, **kwargs)
        return write

    _checkpoint._write_file = announced(_checkpoint._write_file)
    path = sys.argv[1]
    with vkp.Context() as ctx:
        prog = vkp.Program(ctx, name="big")
        a = prog.array("a", (1 << 24,), np.float32)         # a 64 MiB file

        @prog.stage(domain=1 << 24)
        def bump(i):
            a[i] += 1.0

        prog.loop(bump)
        while True:
            prog.run(1, mode="launch")
            print("writing", int(prog.step), flush=True)
            prog.checkpoint(path)
    """)


@pytest.mark.slow
def test_a_process_killed_while_writing_leaves_the_previous_checkpoint(ctx, tmp_path):
    script = tmp_path / "writer.py"
    script.write_text(KILLED)
    path = tmp_path / "big.h5"
    cut_short = 0
    for delay in (0.0, 0.02, 0.06):
        proc = subprocess.Popen([sys.executable, str(script), str(path)], env=ENV,
                                stdout=subprocess.PIPE, text=True)
        lines = [proc.stdout.readline() for _ in range(6)]
        assert lines[-1] == "inside\n"          # two written, the third being written
        lines = [line for line in lines if line.startswith("writing")]
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        cut_short += any(tmp_path.glob(".big.h5.*.partial"))
        prog = vkp.Program(ctx, name="big")
        a = prog.array("a", (1 << 24,), np.float32)

        @prog.stage(domain=1 << 24)
        def bump(i):
            a[i] += 1.0

        prog.loop(bump)
        step = prog.restore(path)                     # whole, never cut short
        assert int(lines[1].split()[1]) <= step <= int(lines[2].split()[1])
        np.testing.assert_array_equal(a.numpy(), np.full(1 << 24, step, np.float32))
        prog.checkpoint(path)                         # and the partial file goes
        assert not any(tmp_path.glob(".big.h5.*.partial"))
        prog.free()
    assert cut_short, "no kill landed inside a write: the test did not test it"


def test_a_checkpoint_is_refused_while_a_session_runs(ctx, tmp_path):
    prog = PROGRAMS["heat"](ctx)

    async def main():
        async with prog.session(mode="launch") as run:
            with pytest.raises(vkp.VkPersistError, match="while the program runs"):
                prog.checkpoint(tmp_path / "x.h5")
            await run.pause()
            prog.checkpoint(tmp_path / "paused.h5")
            await run.stop()
        return int(prog.step)

    step = trio.run(main)
    again = PROGRAMS["heat"](ctx)
    assert again.restore(tmp_path / "paused.h5") <= step


@pytest.mark.parametrize("mode", ["persistent", "launch"])
def test_periodic_checkpoints_every_n_steps_keep_the_newest(ctx, tmp_path, mode):
    lines = []
    cp = vkp.Checkpoints(tmp_path / "ck", every=4, keep=2, log=lines.append)
    prog = PROGRAMS["heat"](ctx)
    prog.run(10, mode=mode, checkpoints=cp)
    assert [s for s, _ in cp.written] == [4, 8]
    assert [s for s, _ in cp.files()] == [4, 8] and cp.latest() == tmp_path / "ck" / \
        "heat_000000000008.h5"
    prog.run(7, mode=mode, checkpoints=cp)              # steps 10..17: 12 and 16
    assert [s for s, _ in cp.files()] == [12, 16]       # keep=2
    assert len(lines) == 4 and "checkpoint at step 16" in lines[-1]
    whole = PROGRAMS["heat"](ctx)
    whole.run(16, mode=mode)
    again = PROGRAMS["heat"](ctx)
    assert again.restore(cp.latest()) == 16
    np.testing.assert_array_equal(again.arrays["T"].numpy(), whole.arrays["T"].numpy())


@pytest.mark.filterwarnings("ignore::vkpersist.OccupancyWarning")    # a loaded CI host
def test_a_session_takes_checkpoints_between_epochs_without_losing_frames(ctx, tmp_path):
    cp = vkp.Checkpoints(tmp_path, every=5, keep=10, log=False)
    prog, sock, count = ticker(ctx, capacity=64)

    async def main():
        seen = []
        async with prog.session(steps=23, mode="persistent", checkpoints=cp) as run:
            async for frame in run.memsock("ticks"):
                with frame:
                    seen.append(frame.seq)
                if frame.seq == 22:
                    break
            await run.wait()
        return seen

    seen = trio.run(main)
    assert seen == list(range(23))                      # none lost, none twice
    assert [s for s, _ in cp.files()] == [5, 10, 15, 20]
    again, sock2, count2 = ticker(ctx, capacity=64)
    again.restore(cp.latest())
    assert int(count2.numpy()[0]) == 20


def test_checkpoints_are_checked(tmp_path):
    with pytest.raises(ValueError, match="say how often"):
        vkp.Checkpoints(tmp_path)
    with pytest.raises(ValueError, match="every=...\\) takes a step count >= 1, got 0"):
        vkp.Checkpoints(tmp_path, every=0)
    with pytest.raises(ValueError, match="minutes=...\\) takes a positive number"):
        vkp.Checkpoints(tmp_path, minutes=-1)
    with pytest.raises(ValueError, match="keep=...\\) takes how many files"):
        vkp.Checkpoints(tmp_path, every=3, keep=0)
    assert repr(vkp.Checkpoints(tmp_path, every=3, minutes=5)).endswith(
        "every 3 steps and every 5 min, keep 3)")


def test_run_refuses_what_is_not_a_checkpoints(ctx, tmp_path):
    prog = PROGRAMS["heat"](ctx)
    with pytest.raises(TypeError, match="checkpoints= takes a vkp.Checkpoints"):
        prog.run(2, checkpoints=str(tmp_path))


def test_host_arrays_travel_with_the_checkpoint(ctx, tmp_path):
    prog = PROGRAMS["heat"](ctx)
    prog.run(3, mode="launch")
    series = np.arange(12.0).reshape(3, 4)
    path = prog.checkpoint(tmp_path / "h.h5", host={"series": series, "count": 3})
    got = {}
    assert PROGRAMS["heat"](ctx).restore(path, host=got) == 3
    np.testing.assert_array_equal(got["series"], series)
    assert int(got["count"]) == 3
    with pytest.raises(TypeError, match="dict of name: NumPy array"):
        prog.checkpoint(tmp_path / "x.h5", host=[1, 2])
    with pytest.raises(TypeError, match="'bad' is not numbers"):
        prog.checkpoint(tmp_path / "x.h5", host={"bad": [object()]})
    with pytest.raises(TypeError, match="takes a dict to fill"):
        prog.restore(path, host=[])
    calls = []
    cp = vkp.Checkpoints(tmp_path / "p", every=2, log=False,
                         host=lambda: calls.append(1) or {"n": np.array(len(calls))})
    prog.run(4, mode="launch", checkpoints=cp)
    got = {}
    PROGRAMS["heat"](ctx).restore(cp.latest(), host=got)
    assert int(got["n"]) == len(calls) == 2
