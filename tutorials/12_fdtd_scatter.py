"""Lesson 12: the 3-D FDTD scatter, steered, with the hot-cell overlay.

examples/fdtd3d is a Maxwell solver (the Yee scheme) written on vkpersist's Program API:
one megakernel holds the fields, a plane wave (TFSF), absorbing CPML walls, running DFTs
and slices. Here a plane-wave pulse hits a dielectric sphere; every `snap_every` steps a
stage pushes the cells of the z slice where |E| exceeds a threshold onto a GPU work
queue, streamed to the host as the "hot cells" drawn over the slice. Mid-run the host
raises the threshold with an acknowledged command. At the end the scattering
cross-section from the DFT flux box is compared with the Mie series.

    python tutorials/12_fdtd_scatter.py [--size CELLS] [--steps STEPS]
"""
import sys
import pathlib

import numpy as np
import trio

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # examples/
import examples.fdtd3d as fd                                                 # noqa: E402
from examples.fdtd3d.scenes import scattering_cross_section                  # noqa: E402
from _common import parse, pyplot, save                                      # noqa: E402

SNAP, T1, T2 = 20, 0.4, 0.25                 # slice interval; hot thresholds (V/m)


def scene(n, radius_cells):
    dx = 1e-3                                # 1 mm cells
    sim = fd.Simulation(shape=(n, n, n), spacing=dx, snap_every=SNAP)  # CPML walls
    c, r = n / 2 * dx, radius_cells * dx
    sim.add(fd.Sphere((c, c, c), r), fd.Material(eps_r=4.0), smoothing=True)
    tf = r + 3 * dx                          # the total-field box around the sphere
    wavelengths = np.array([20, 25, 30, 40]) * radius_cells / 8 * dx
    f0 = fd.C0 / (3.375 * r)
    sim.add_source(fd.PlaneWave((c - tf,) * 3, (c + tf,) * 3, "+x", "z",
                                "modulated_gaussian", f0, bandwidth=1.2))   # E = 1 V/m
    fb = tf + 2 * dx
    sim.add_flux_box((c - fb,) * 3, (c + fb,) * 3, fd.C0 / wavelengths)     # outward flux
    sim.add_slice("ez", "z", c, name="ez_z")
    sim.add_hot_cells("z", c, threshold=T1, capacity=4096)
    return sim, r, wavelengths


async def steer(sim):
    """Lower the threshold in a running program. The session runs until stopped: on a fast
    GPU a session of a few hundred steps can end before the host's command reaches it
    (the command would then be refused, never lost: lesson 11)."""
    async with sim.session() as run:         # runs in the background under trio
        ack = await run.send(hot_threshold=T2)   # show the weaker scattered field too
        print(f"hot threshold {T1} -> {T2} V/m, in effect from step {ack.step}")
        await run.pause()                    # parks at a step boundary; leaving stops it
    return ack.step


def main():
    args = parse(__doc__, size=48, steps=1000, size_help="cells per side (>= 46)",
                 steps_help="time steps")
    radius = (args.size - 36) / 2            # the largest sphere the scene fits (8 at 52)
    sim, r, wavelengths = scene(args.size, radius)
    g = sim.grid
    print(f"{g.shape} cells, sphere of radius {radius:g} cells, {args.steps} steps of "
          f"{g.dt * 1e12:.3f} ps on {sim.ctx.info.name}")
    live = SNAP * (round(radius) + 1) + 1    # steps watched while the pulse passes the sphere
    if args.steps <= live:
        raise SystemExit(f"--steps must be more than {live} for this size")
    sim.run(live // 2)                       # the pulse reaches the sphere
    change = trio.run(steer, sim)
    # on to the first frame step at or after `live` (frames hold E after step s + 1)
    more = max(live, -(-(sim.step - 1) // SNAP) * SNAP + 1) - sim.step
    if more:
        sim.run(more)

    # 1. the hot cells are exactly the cells above the threshold in force
    step, cells = sim.hot_frames[-1]         # the frame of step s holds E after s + 1 steps
    e2 = sum(sim.field(f)[:, :, args.size // 2] ** 2 for f in ("ex", "ey", "ez"))
    expect = {tuple(x) for x in np.argwhere(e2 > T2 ** 2)}
    same = {tuple(x) for x in cells} == expect
    print(f"hot-cell frame of step {step}: {len(cells)} cells, equal to the cells with "
          f"|E| > {T2} V/m computed from the fields: {same}")
    assert step == sim.step - 1 and change <= step and same and sim.hot_dropped == 0

    if sim.step < args.steps:
        sim.run(args.steps - sim.step)       # the rest, for the DFTs to ring down
    # 2. the cross-section against the Mie series
    import miepython
    x = 2 * np.pi * r / wavelengths
    qsca = np.asarray(miepython.efficiencies_mx(2.0, x)[1])
    mie = qsca * np.pi * r ** 2
    sigma = scattering_cross_section(sim)
    print("  λ (cells)   2πr/λ   FDTD σ (mm²)   Mie σ (mm²)   error")
    for wl, xi, s, m in zip(wavelengths / g.spacing[0], x, sigma, mie):
        print(f"  {wl:9.4g}   {xi:5.3f}   {s * 1e6:12.3f}   {m * 1e6:11.3f}   {s / m - 1:+6.1%}")
    worst = float(np.abs(sigma / mie - 1).max())
    assert worst < 0.15, "the cross-section is far from the Mie series"

    # 3. the slices with the hot cells over them
    hot = dict(sim.hot_frames)
    frames = [(s, d) for s, d in sim.frames["ez_z"] if len(hot.get(s, ()))]
    frames = frames[:: max(1, len(frames) // 3)][:3] or sim.frames["ez_z"][-3:]
    plt = pyplot()
    fig, axes = plt.subplots(1, len(frames), figsize=(4 * len(frames), 3.8))
    vmax = max(np.abs(d).max() for _, d in frames)
    for ax, (s, d) in zip(np.atleast_1d(axes), frames):
        ax.imshow(d.T, origin="lower", cmap="RdBu_r", vmin=-vmax, vmax=vmax)
        ax.add_patch(plt.Circle((args.size / 2, args.size / 2), radius, fill=False, ls="--"))
        c = hot.get(s, np.zeros((0, 2)))
        ax.scatter(c[:, 0], c[:, 1], s=5, c="lime", marker="s", linewidths=0)
        ax.set_title(f"Ez, t = {s * g.dt * 1e9:.3f} ns: {len(c)} cells |E| > "
                     f"{T1 if s < change else T2}", fontsize=9)
    save(fig, args.out, "12_fdtd_scatter")
    print("lesson 12 OK")


if __name__ == "__main__":
    main()
