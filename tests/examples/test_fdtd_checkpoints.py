"""The FDTD example's checkpoints (sim.checkpoint / sim.restore, the CLI's
--checkpoint-every and --restart): a run restarted half-way, in the other mode, ends with
every field, the running DFTs (so the cross-section), the probe series and the hot cells
bit-identical to the uninterrupted run's."""
import numpy as np
import pytest

from examples.fdtd3d.grid import FIELDS
from examples.fdtd3d.scenes import mie_sphere

STEPS = 60


def scene(ctx):
    return mie_sphere(42, radius_cells=3, ctx=ctx, snap_every=20)


def outcome(sim) -> dict:
    out = {f: sim.field(f) for f in FIELDS}
    for d in sim.dfts:
        for key, value in sim.dft(d.name).items():
            out[f"dft {d.name} {key}"] = value
    for p in sim.probes:
        for key, value in sim.probe(p.name).items():
            out[f"probe {p.name} {key}"] = value
    # the hot cells of a frame come in the order the device's atomics pushed them
    out["hot"] = [(s, sorted(map(tuple, c.tolist()))) for s, c in sim.hot_frames]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("first, second", [("persistent", "launch"), ("launch", "persistent")])
def test_a_simulation_restarted_half_way_ends_bit_identical(ctx, tmp_path, first, second):
    whole = scene(ctx)
    whole.run(2 * STEPS, mode=first)
    part = scene(ctx)
    part.run(STEPS, mode=first)
    path = part.checkpoint(tmp_path / "half.h5")
    again = scene(ctx)
    assert again.restore(path) == STEPS
    again.run(STEPS, mode=second)
    want, got = outcome(whole), outcome(again)
    assert want.keys() == got.keys()
    for key in want:
        if key == "hot":
            assert got[key] == want[key]
        else:
            np.testing.assert_array_equal(got[key], want[key], err_msg=key)
    assert len(want["probe forward ez"]) == 2 * STEPS


@pytest.mark.slow
def test_the_cli_restarts_from_a_checkpoint_and_ends_as_the_uninterrupted_run(tmp_path):
    pytest.importorskip("miepython")
    h5py = pytest.importorskip("h5py")
    from examples.fdtd3d.__main__ import main
    common = ["--headless", "--size", "42", "--radius", "3", "--steps", str(2 * STEPS),
              "--snap-every", "30", "--mode", "launch"]
    whole, restarted = tmp_path / "whole", tmp_path / "restarted"
    assert main([*common, "--out", str(whole), "--checkpoint-every", str(STEPS // 2),
                 "--keep", "2"]) == 0
    kept = sorted(p.name for p in (whole / "checkpoints").iterdir())
    assert kept == [f"fdtd3d_{s:012d}.h5" for s in (3 * STEPS // 2, 2 * STEPS)]
    half = whole / "checkpoints" / kept[0]
    assert main([*common, "--out", str(restarted), "--restart", str(half)]) == 0
    with h5py.File(whole / "results.h5") as a, h5py.File(restarted / "results.h5") as b:
        for key in ("cross_section/fdtd_m2", "probes/forward/ez"):
            np.testing.assert_array_equal(a[key][()], b[key][()], err_msg=key)
    with pytest.raises(SystemExit, match="not before --steps"):
        main([*common, "--out", str(restarted), "--restart",
              str(whole / "checkpoints" / kept[1])])
    with pytest.raises(SystemExit, match="no checkpoint in"):
        main([*common, "--out", str(tmp_path / "none"), "--restart", "latest"])


def test_the_cli_refuses_an_output_folder_that_is_a_file(tmp_path, capsys):
    """Issue 53: --out naming a file gave a traceback after the run had been set up."""
    from examples.fdtd3d.__main__ import main
    taken = tmp_path / "taken"
    taken.write_text("x")
    with pytest.raises(SystemExit):
        main(["--headless", "--out", str(taken)])
    assert f"--out {taken} is a file, not a folder" in capsys.readouterr().err


def test_outputs_are_checked_before_the_run_and_written_whole(tmp_path, capsys):
    """Issue 53: an unwritable results folder was found after the whole run, and Ctrl-C
    during output left a truncated PNG."""
    import os
    from examples.fdtd3d import output
    from examples.fdtd3d.__main__ import main
    if os.geteuid() == 0:
        blocked = tmp_path / "file" / "sub"           # root writes anywhere: a file in the way
        (tmp_path / "file").write_text("x")
    else:
        blocked = tmp_path / "ro"
        blocked.mkdir()
        blocked.chmod(0o500)
    with pytest.raises(SystemExit, match="cannot write into"):
        main(["--headless", "--size", "42", "--radius", "3", "--steps", "5",
              "--out", str(blocked)])
    target = tmp_path / "picture.png"
    target.write_bytes(b"the old picture")
    with pytest.raises(KeyboardInterrupt):
        with output.atomic(target) as tmp:
            tmp.write_bytes(b"half a pict")
            raise KeyboardInterrupt
    assert target.read_bytes() == b"the old picture"        # not cut short
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_ctrl_c_in_a_headless_run_keeps_its_state(tmp_path, monkeypatch, capsys):
    from examples.fdtd3d.__main__ import main
    from examples.fdtd3d.simulation import Simulation
    real_run = Simulation.run

    def interrupted(self, steps, **kwargs):          # Ctrl-C after 10 steps
        real_run(self, 10, mode="launch")
        raise KeyboardInterrupt
    monkeypatch.setattr(Simulation, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        main(["--headless", "--size", "42", "--radius", "3", "--steps", "40",
              "--out", str(tmp_path)])
    saved = tmp_path / "checkpoints" / "fdtd3d_000000000010.h5"
    assert saved.is_file()
    assert f"interrupted at step 10; its state is in {saved}" in capsys.readouterr().err
