"""Slower FDTD validation: the scattering cross-section of a dielectric sphere against the
Mie series (miepython), with both Yee updates, and the headless CLI end to end."""
import numpy as np
import pytest

import examples.fdtd3d as fd
from examples.fdtd3d.scenes import mie_reference, mie_sphere, scattering_cross_section

pytestmark = pytest.mark.slow


def _needs_miepython():
    """The Mie series comes from miepython, which `make test` installs; the GPU machine
    cannot carry it (it needs numba), so there these checks are skipped, not failed."""
    pytest.importorskip("miepython")


@pytest.fixture(scope="module")
def mie_runs(ctx):
    """The smoothed sphere with the update the device's users get (update="auto": split on
    CPU devices, fused on GPUs), the staircased one with the other formulation: each is
    held to its Mie bounds, so both updates are validated against the series (their
    agreement to float32 rounding is tests/examples/test_fdtd_fused.py's)."""
    _needs_miepython()
    out = {}
    for smoothing in (True, False):
        update = "auto" if smoothing else ("split" if out[True][0].fused else "fused")
        sim = mie_sphere(52, smoothing=smoothing, ctx=ctx, update=update)
        sim.run(1600)
        out[smoothing] = (sim, scattering_cross_section(sim), mie_reference(sim))
    return out


def test_dielectric_sphere_cross_section_against_mie(mie_runs):
    """n = 2 sphere of radius 8 cells, wavelengths 20 .. 40 cells in vacuum (10 .. 20 in the
    sphere). Measured on lavapipe (docs/fdtd.md): smoothed +0.8, +1.0, +1.8, +0.9 % (the
    3 % target at all four); staircased -2.1, -3.9, +0.9, -2.0 %, mostly the staircase's
    volume (its volume-equivalent radius is 7.95 cells, which alone gives -0.6, -4.5,
    -0.5, -4.2 %)."""
    for smoothing, bound in ((False, (0.03, 0.05, 0.02, 0.03)), (True, (0.03,) * 4)):
        sim, sigma, ref = mie_runs[smoothing]
        err = np.abs(sigma / ref - 1)
        assert np.all(err < bound), (smoothing, sigma / ref - 1)
        # the shape of the curve: the cross-section peaks at the 25-cell wavelength, as Mie's
        assert np.argmax(sigma) == np.argmax(ref) == 1


def test_both_updates_are_held_to_the_mie_bounds(mie_runs):
    """mie_runs ran one sphere with each formulation of the update (the bounds are
    test_dielectric_sphere_cross_section_against_mie's)."""
    assert mie_runs[True][0].fused != mie_runs[False][0].fused


def test_scattered_energy_balances_with_the_field_behind(mie_runs):
    sim, sigma, ref = mie_runs[True]
    fwd = np.abs(sim.probe("forward")["ez"]).max()
    back = np.abs(sim.probe("back")["ez"]).max()
    assert 0 < back < fwd                # a sphere this size scatters mostly forward


def test_headless_cli_writes_its_pictures_and_results(tmp_path):
    _needs_miepython()
    from examples.fdtd3d.__main__ import main
    import h5py
    assert main(["--headless", "--size", "48", "--radius", "6", "--steps", "300",
                 "--snap-every", "50", "--out", str(tmp_path)]) == 0
    names = {p.name for p in tmp_path.iterdir()}
    assert {"ez_z.gif", "probe_spectrum.png", "cross_section.png", "results.h5"} <= names
    assert any(n.startswith("ez_z_") and n.endswith(".png") for n in names)
    with h5py.File(tmp_path / "results.h5") as h5:
        assert h5.attrs["steps"] == 300
        assert h5["probes/forward/ez"].shape == (300,)
        assert h5["dft/boxx+/e_tangential"].shape[0] == 4


def test_cpml_reflection_against_a_grid_too_large_to_reflect(ctx):
    """Taflove & Hagness §7.11.1 in 3-D: a broadband dipole at the centre of a 20-cell
    interior with a 10-cell CPML; probes 2 cells from the layer (on a face axis, an edge
    and the corner diagonal), against the same source in a grid whose walls are 55 cells
    away, from where nothing returns to the probes within the 150 steps. Measured on
    lavapipe: 1.3e-5 (face) .. 3e-5 (corner) of the peak; the target is 1e-4 (-80 dB)."""
    d = 1e-3

    def run(n_half):
        sim = fd.Simulation(shape=(2 * n_half,) * 3, spacing=d, ctx=ctx)
        c = n_half * d
        sim.add_source(fd.Dipole((c, c, c), "z", "ricker", 1.5e10))
        for name, off in (("face", (8, 0, 0)), ("edge", (0, 8, 8)), ("corner", (8, 8, 8))):
            sim.add_probe(tuple(c + o * d for o in off), ("ez", "ex"), name=name)
        sim.run(150)
        return sim
    small, big = run(20), run(65)
    for name in ("face", "edge", "corner"):
        for comp in ("ez", "ex"):
            ref = big.probe(name)[comp]
            err = np.max(np.abs(small.probe(name)[comp] - ref)) / np.max(np.abs(ref))
            assert err < 1e-4, (name, comp, err)


def test_live_window_runs_to_the_end_and_keys_steer_it(ctx, tmp_path, monkeypatch):
    """The live window's loop under Agg (no display here; docs/fdtd.md says how it was
    checked under Xvfb): it runs every step, draws the slices, hot cells and probe trace,
    saves its last frame, and a key pressed in the figure steers the run ("a": amplitude
    x2, sent before the pulse leaves its source, so the forward probe's peak doubles)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backend_bases import KeyEvent
    from examples.fdtd3d import live as live_mod
    from examples.fdtd3d.__main__ import parse

    def show(block=True):                   # the window is up: press "a"
        canvas = plt.gcf().canvas
        canvas.callbacks.process("key_press_event", KeyEvent("key_press_event", canvas, "a"))
    monkeypatch.setattr(plt, "show", show)
    monkeypatch.setattr(live_mod, "REDRAW_S", 0.0)
    sim = mie_sphere(48, radius_cells=6, ctx=ctx, snap_every=20)
    live_mod.live(sim, parse(["--live", "--steps", "160", "--out", str(tmp_path)]))
    assert sim.step == 160
    assert (tmp_path / "live_last.png").stat().st_size > 10_000
    ref = mie_sphere(48, radius_cells=6, ctx=ctx, snap_every=20)
    ref.run(160)
    peak = np.abs(sim.probe("forward")["ez"]).max() / np.abs(ref.probe("forward")["ez"]).max()
    assert abs(peak - 2) < 0.05, peak
