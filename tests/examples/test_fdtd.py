"""examples/fdtd3d against physics: PEC cavity resonances against the Yee dispersion
relation and the continuum, energy conservation, the TFSF plane wave, persistent and
launch modes bit for bit, steering, and the errors users get for bad scenes. The CPML and
Mie scattering validations, which take longer, are in test_fdtd_physics.py."""
import numpy as np
import pytest
import trio

import vkpersist as vkp
import examples.fdtd3d as fd
from examples.fdtd3d import validation as V

CM = 1e-2


def cavity(ctx, scale=1, steps=4000):
    """A 12 x 10 x 8 cm PEC box, `scale` cells per cm, kicked by a Gaussian dipole."""
    d = CM / scale
    sim = fd.Simulation(shape=(12 * scale, 10 * scale, 8 * scale), spacing=d,
                        boundaries="pec", ctx=ctx)
    sim.add_source(fd.Dipole((3.1 * CM, 4.2 * CM, 2.3 * CM), "z", "gaussian", 4e9))
    sim.add_probe((7.2 * CM, 5.3 * CM, 5.1 * CM), ("ez", "hx"))
    sim.run(steps)
    return sim


def test_pec_cavity_resonances_match_the_yee_dispersion_relation(ctx):
    sim = cavity(ctx)
    g = sim.grid
    modes = V.cavity_modes(g.shape, g.spacing, g.dt, count=30)
    yee = np.array([m[1] for m in modes])
    p = sim.probe("probe0")
    matched = set()
    for field in ("ez", "hx"):
        # every second sample: the modes of interest are far below that Nyquist rate
        for f in V.esprit_frequencies(p[field][200::2], 2 * g.dt, 40):
            if f > 5.2e9:
                continue
            rel = np.abs(yee / f - 1)
            if rel.min() < 1e-5:
                matched.add(int(rel.argmin()))
    assert len(matched) >= 5, (matched, yee[:10])


def test_cavity_error_against_the_continuum_falls_4x_per_doubling(ctx):
    """The lowest mode, (1, 1, 0), at 1 and 2 cells per cm: the Yee scheme is second order,
    so its error against c/2·sqrt((m/a)² + (n/b)²) falls ~4x (the dispersion relation
    predicts 4.01x at these resolutions)."""
    errors = []
    for scale in (1, 2):
        sim = cavity(ctx, scale, steps=4000 * scale)      # the same record in time
        g = sim.grid
        f = V.esprit_frequencies(sim.probe("probe0")["ez"][200 * scale::2 * scale],
                                 2 * scale * g.dt, 40)
        (m, f_yee, f_cont), = V.cavity_modes(g.shape, g.spacing, g.dt, 1)
        measured = f[np.argmin(np.abs(f - f_yee))]
        assert abs(measured / f_yee - 1) < 1e-5
        errors.append(abs(measured / f_cont - 1))
    ratio = errors[0] / errors[1]
    assert 3.8 < ratio < 4.2, (errors, ratio)


def test_lossless_pec_box_conserves_the_discrete_energy(ctx):
    sim = fd.Simulation(shape=(14, 12, 10), spacing=CM, boundaries="pec", ctx=ctx)
    sim.add(fd.Box((5 * CM, 4 * CM, 3 * CM), (9 * CM, 8 * CM, 6 * CM)), fd.Material(eps_r=3.0))
    sim.add_source(fd.Dipole((3 * CM, 3 * CM, 3 * CM), "z", "gaussian", 6e9))
    sim.run(200)                              # the pulse is over by step ~60
    energies = []
    for _ in range(2):
        h = {c: sim.field(c) for c in ("hx", "hy", "hz")}
        e = {c: sim.field(c) for c in ("ex", "ey", "ez")}
        sim.run(1)
        h_next = {c: sim.field(c) for c in ("hx", "hy", "hz")}
        energies.append(V.yee_energy_of(sim, e, h, h_next))
        sim.run(4999)
    drift = abs(energies[1] / energies[0] - 1)
    assert energies[0] > 0 and drift < 1e-4, (energies, drift)


def plane_wave_scene(ctx, sphere=False, boundaries="cpml", waveform="gaussian"):
    n, d = 40, CM
    sim = fd.Simulation(shape=(n, n, n), spacing=d, boundaries=boundaries, ctx=ctx)
    if sphere:
        sim.add(fd.Sphere((20 * d,) * 3, 5 * d), fd.Material(eps_r=4.0, sigma=0.01))
    sim.add_source(fd.PlaneWave((12 * d,) * 3, (28 * d,) * 3, "+x", "z", waveform, 1.5e9))
    sim.add_probe((20 * d, 20 * d, 20 * d), ("ez", "hy"), name="inside")
    for name, pos in (("above", (20, 20, 31)), ("behind", (8, 20, 20)), ("beyond", (32, 20, 20)),
                      ("side", (20, 31, 20))):
        sim.add_probe(tuple(p * d for p in pos), ("ez",), name=name)
    return sim


@pytest.mark.parametrize("direction,pol", [("+x", "z"), ("-y", "x"), ("+z", "y")])
def test_tfsf_plane_wave_stays_inside_its_box(ctx, direction, pol):
    n, d = 36, CM
    sim = fd.Simulation(shape=(n, n, n), spacing=d, ctx=ctx)
    sim.add_source(fd.PlaneWave((12 * d,) * 3, (24 * d,) * 3, direction, pol, "gaussian", 1.5e9))
    sim.add_probe((18 * d,) * 3, (f"e{pol}",), name="inside")
    outside = [(18, 18, 27), (18, 27, 18), (27, 18, 18), (9, 18, 18), (18, 9, 18), (18, 18, 9)]
    for n_, pos in enumerate(outside):
        sim.add_probe(tuple(p * d for p in pos), ("ex", "ey", "ez"), name=f"out{n_}")
    sim.run(260)
    peak_in = np.abs(sim.probe("inside")[f"e{pol}"]).max()
    assert 0.98 < peak_in < 1.02          # the incident amplitude, 1 V/m
    leak = max(np.abs(sim.probe(f"out{n_}")[c]).max() for n_ in range(6) for c in ("ex", "ey", "ez"))
    assert leak / peak_in < 1e-2          # -40 dB (measured ~1e-7: float32 rounding)


def test_flux_inside_the_total_field_box_is_the_incident_intensity(ctx):
    """The normalisation of every cross-section: the DFT flux through a plane inside the
    total-field box, over the incident intensity of the 1-D grid times its area, is 1 at
    each frequency, asked in any order (they were paired with the ascending order once:
    the Mie errors of up to 8 %). The incident E/H, with H averaged to E's node, is
    η₀/cos(k̃Δx/2) with k̃ from the Yee dispersion relation along the axis."""
    n, d = 36, CM
    sim = fd.Simulation(shape=(n, n, n), spacing=d, ctx=ctx)
    sim.add_source(fd.PlaneWave((12 * d,) * 3, (24 * d,) * 3, "+x", "z", "modulated_gaussian",
                                1.5e9, bandwidth=1.2))
    lam = np.array([20.0, 40.0, 25.0])                 # cells, not in ascending frequency
    freqs = fd.C0 / (lam * d)
    sim.add_dft_plane("x", 18 * d, freqs, lo=(13 * d,) * 3, hi=(23 * d,) * 3, name="mid")
    sim.run(400)
    inc = sim.incident_dft(sim.dft("mid")["freqs"])
    intensity = 0.5 * np.real(inc["e"] * np.conj(inc["h"]))
    ratio = V.plane_flux(sim, "mid") / (intensity * (10 * d) ** 2)
    assert np.allclose(ratio, 1, atol=1e-4), ratio     # measured 1 ± 3e-7
    dt = sim.grid.dt
    k = 2 / d * np.arcsin(d / (fd.C0 * dt) * np.sin(np.pi * freqs * dt))
    impedance = np.abs(inc["e"] / inc["h"]) * np.cos(k * d / 2) / fd.ETA0
    assert np.allclose(impedance, 1, atol=1e-4), impedance
    with pytest.raises(ValueError, match="no incident DFT"):
        sim.incident_dft([1e9])


def run_steered(sim, mode, change_at):
    """Run unbounded; once `change_at` steps are done, send freq=2.2 GHz and amp=1.5, let
    at least 80 more steps run and stop. Returns (the command's ack step, the stop step).
    Unbounded, because a fast GPU runs a bounded 120 steps before the host sends."""
    steps = []

    async def main():
        async with sim.session(mode=mode) as run:
            while run.steps_done < change_at:
                await trio.sleep(0.001)
            ack = await run.send(freq=2.2e9, amp=1.5)
            while run.steps_done < ack.step + 80:
                await trio.sleep(0.001)
            steps.extend([ack.step, await run.stop()])
    trio.run(main)
    return steps


def test_persistent_and_launch_are_bit_identical_and_steering_is_exact(ctx):
    scene = lambda: plane_wave_scene(ctx, sphere=True)     # noqa: E731
    a, b = scene(), scene()
    a.run(120, mode="persistent")
    b.run(120, mode="launch")
    for f in ("ex", "ey", "ez", "hx", "hy", "hz"):
        assert np.array_equal(a.field(f), b.field(f)), f
    assert np.array_equal(a.probe("inside")["ez"], b.probe("inside")["ez"])
    # a frequency and amplitude command at a known step, against launch mode with the
    # change made between runs at that step; a continuous source, so that the change shows
    # whenever it lands (a fast GPU is past step 80, and past the Gaussian pulse, before
    # the host's command arrives)
    scene = lambda: plane_wave_scene(ctx, sphere=True, waveform="sine")     # noqa: E731
    s = scene()
    changed, end = run_steered(s, "persistent", change_at=40)
    r, u = scene(), scene()
    r.run(changed, mode="launch")
    r.ctl["freq"], r.ctl["amp"] = 2.2e9, 1.5
    r.run(end - changed, mode="launch")
    u.run(end, mode="launch")
    for f in ("ez", "hy"):
        assert np.array_equal(s.field(f), r.field(f)), f
    assert not np.array_equal(s.field("ez"), u.field("ez"))     # the command had an effect


def test_probe_series_is_complete_across_frames_and_runs(ctx):
    sim = fd.Simulation(shape=(10, 10, 10), spacing=CM, boundaries="pec", probe_block=16, ctx=ctx)
    sim.add_source(fd.Dipole((5 * CM,) * 3, "z", "ricker", 3e9))
    sim.add_probe((5 * CM,) * 3, ("ez", "hx"))
    sim.add_slice("ez", "z", every=10)
    sim.run(50)
    sim.run(27)
    p = sim.probe("probe0")
    assert len(p["t_e"]) == 77 and np.allclose(np.diff(p["t_e"]), sim.grid.dt)
    assert [s for s, _ in sim.frames["slice0"]] == list(range(0, 77, 10))
    assert sim.frames["slice0"][-1][1].shape == (11, 11)


def test_waveforms_on_the_gpu_match_the_host_definitions(ctx):
    t = np.linspace(0, 3e-9, 301).astype(np.float32)
    out = np.zeros((4, t.size), np.float32)

    @vkp.kernel
    def sample(t: vkp.Array[vkp.f32], out: vkp.Array[vkp.f32, 2]):
        i = vkp.global_id(0)
        if i < t.shape[0]:
            for kind in (0, 1, 2, 3):
                out[kind, i] = fd.sources.waveform(kind, t[i], 2e9, 0.5, 2.0)
    sample.forall(t.size)(ctx.asarray(t), dev := ctx.asarray(out))
    got = dev.numpy()
    for kind, name in enumerate(fd.WAVEFORMS):
        ref = fd.waveform_host(name, t.astype(np.float64), 2e9)
        assert np.max(np.abs(got[kind] - ref)) < 2e-5, name


@pytest.mark.parametrize("make,match", [
    (lambda: fd.Simulation(shape=(8, 8, 8), spacing=CM, courant=1.2), "Courant number"),
    (lambda: fd.Simulation(shape=(8, 8, 8), spacing=CM, boundaries=fd.CPML(cells=5)),
     "CPML on the x faces is 10 cells thick"),
    (lambda: fd.Simulation(shape=(8, 8, 8), spacing=CM, boundaries={"x-": "periodic"}),
     "periodic boundaries pair"),
    (lambda: fd.Simulation(shape=(8, 8, 8), spacing=CM, boundaries="absorbing"),
     "unknown boundary 'absorbing'"),
    (lambda: fd.Simulation(shape=(8, 8, 8), spacing=CM, precision="float16"), "precision"),
    (lambda: fd.Dipole((0, 0, 0), "z", "square"), "unknown waveform 'square'"),
    (lambda: fd.PlaneWave((0,) * 3, (1,) * 3, "+x", "x"), "has E along 'y' or 'z'"),
    (lambda: fd.Sphere((0, 0, 0), -1.0), "positive radius"),
])
def test_bad_scenes_are_refused_with_the_valid_choices(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


def test_steering_outside_physics_is_refused_before_it_reaches_the_device(ctx):
    """Issue 53: run.send(freq=0.0) was acknowledged and 40 steps later every field was
    NaN. The scene's controls declare their ranges; NaN and inf are refused anyway."""
    sim = fd.Simulation(shape=(30, 30, 30), spacing=CM, ctx=ctx)
    sim.add_source(fd.Dipole((0.15, 0.15, 0.15), "z", "ricker", 1e9))
    sim.build()
    for values, match in (({"freq": 0.0}, r"'freq': 0.0 is outside its declared range "
                                          r"\[1, inf\)"),
                          ({"freq": -1e9}, "outside its declared range"),
                          ({"freq": float("nan")}, "NaN is not a control value"),
                          ({"amp": float("inf")}, "inf is not finite"),
                          ({"snap_every": 0}, r"'snap_every': 0 is outside .*\[1, inf\)"),
                          ({"hot_threshold": -0.5}, "outside its declared range")):
        with pytest.raises(ValueError, match=match):
            sim.ctl.send_nowait(**values)
    sim.ctl.send_nowait(freq=2e9, amp=-3.0)           # within: queued


@pytest.mark.parametrize("make, match", [
    (lambda: fd.Simulation(shape=(10.5, 10, 10), spacing=CM), "3 whole numbers of cells"),
    (lambda: fd.Simulation(shape=(10, 1, 10), spacing=CM), "each at least 2"),
    (lambda: fd.Simulation(size=(-0.1, 0.1, 0.1), spacing=CM), "3 positive lengths"),
    (lambda: fd.Simulation(size=(1e-9, 0.1, 0.1), spacing=CM), "is \\(0, 10, 10\\) cells"),
    (lambda: fd.Box((float("nan"), 0, 0), (1, 1, 1)), "lo must be 3 finite coordinates"),
    (lambda: fd.Sphere((0, 0, float("nan")), 0.1), "center must be 3 finite coordinates"),
    (lambda: fd.Sphere((0, 0, 0), float("inf")), "finite positive radius"),
    (lambda: fd.Dipole((0, 0, 0), "z", "ricker", float("inf")), "finite number > 0 Hz"),
    (lambda: fd.Dipole((0, 0, 0), amplitude=float("nan")), "amplitude must be a finite"),
    (lambda: fd.Dipole((0, 0, 0), bandwidth=0.0), "bandwidth must be a finite number > 0")])
def test_scenes_that_are_not_physics_are_refused(make, match):
    """Issue 53: these were accepted: 10.5 cells as 10, a negative size as 2 cells, a NaN
    box or sphere painting nothing, an infinite frequency or NaN amplitude running to NaN
    fields."""
    with pytest.raises(ValueError, match=match):
        make()


def test_bad_placements_are_refused(ctx):
    sim = fd.Simulation(shape=(30, 30, 30), spacing=CM, ctx=ctx)
    with pytest.raises(ValueError, match="reaches outside the grid"):
        sim.add(fd.Sphere((0.05, 0.15, 0.15), 0.08), fd.Material(eps_r=2))
    with pytest.raises(ValueError, match="unknown field 'e'"):
        sim.add_slice("e", "z")
    with pytest.raises(ValueError, match=r"slice name 'ez' is taken by the solver itself .*"
                                         r"choose another, e.g. 'ez_slice'"):
        sim.add_slice("ez", "z", name="ez")        # refused here, not at the build
    with pytest.raises(ValueError, match="slice name 'my slice' must be a Python identifier"):
        sim.add_slice("ez", "z", name="my slice")
    sim.add_slice("ez", "z", name="mid")
    with pytest.raises(ValueError, match=r"a slice named 'mid' exists already \(slices: mid\)"):
        sim.add_slice("hx", "x", name="mid")
    sim.add(fd.Box((0.1, 0.1, 0.1), (0.2, 0.2, 0.2)), fd.PEC)
    sim.add_source(fd.Dipole((0.15, 0.15, 0.15), "z"))
    with pytest.raises(ValueError, match="inside a PEC object"):
        sim.build()
    with pytest.raises(vkp.OutOfDeviceMemory, match="needs about .* GiB of device memory"):
        fd.Simulation(shape=(4000, 4000, 4000), spacing=CM, boundaries="pec", ctx=ctx)


@pytest.mark.parametrize("mode", ["launch", "persistent"])
def test_hot_cells_are_the_cells_above_the_threshold_and_overflow_is_counted(ctx, mode):
    sim = fd.Simulation(shape=(24,) * 3, spacing=1e-3, snap_every=10, ctx=ctx)
    c = 12e-3
    sim.add_source(fd.Dipole((c,) * 3, "z", "ricker", 3e10))
    sim.add_hot_cells("z", c, threshold=50.0, capacity=2048)
    sim.run(31, mode=mode)                   # the frame of step 30 holds E after 31 steps
    step, cells = sim.hot_frames[-1]
    e2 = sum(sim.field(f)[:, :, 12] ** 2 for f in ("ex", "ey", "ez"))
    expect = {tuple(x) for x in np.argwhere(e2 > 50.0 ** 2)}
    assert step == 30 and len(expect) > 50
    assert {tuple(x) for x in cells} == expect and sim.hot_dropped == 0
    small = fd.Simulation(shape=(24,) * 3, spacing=1e-3, snap_every=10, ctx=ctx)
    small.add_source(fd.Dipole((c,) * 3, "z", "ricker", 3e10))
    small.add_hot_cells("z", c, threshold=50.0, capacity=16)
    with pytest.warns(vkp.QueueOverflow, match="hot_queue"):
        small.run(31, mode=mode)
    assert all(len(cells) == 16 for _, cells in small.hot_frames[2:])
    assert small.hot_dropped > 0
