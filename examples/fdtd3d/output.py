"""What a headless run writes: PNG frames of the slices, an animated GIF of one slice, the
probe spectrum plot, the cross-section plot against the Mie series, and the HDF5 file with
the probe series and DFT results (readable from h5py, MATLAB, ParaView, HDFView)."""
from __future__ import annotations

import contextlib
import os
import pathlib

import numpy as np


@contextlib.contextmanager
def atomic(path: pathlib.Path):
    """A temporary path beside `path` (same suffix, so writers pick the format from it),
    renamed over `path` once written: a file is whole or absent, never cut short by an
    interrupted run (Ctrl-C during output left a truncated PNG: issue 53)."""
    path = pathlib.Path(path)
    tmp = path.with_name(f".{path.stem}.partial{path.suffix}")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def on_screen(sl, data, cells=None):
    """(image rows = the vertical axis, horizontal axis, vertical axis, hot cells as
    (horizontal, vertical)) of a slice frame: the earlier of the plane's two axes
    (x, then y, then z) runs left to right, so a y slice, stored (z, x), shows x across as
    the x and z slices do and a wave along +x moves to the right in all three."""
    u, v = sl.plane_axes
    swap = u > v
    if cells is not None and len(cells):
        cells = cells[:, ::-1] if swap else cells
    return (data if swap else data.T), (v if swap else u), (u if swap else v), cells


def lively_frames(frames, count: int):
    """Up to `count` frames evenly spread over the span where the slice holds more than 2 %
    of its largest value: the pulse arriving, crossing and ringing down, rather than
    evenly over a run whose later part is a blank grid."""
    peaks = np.array([float(np.abs(f).max()) for _, f in frames])
    live = np.flatnonzero(peaks >= 0.02 * peaks.max()) if len(peaks) and peaks.max() > 0 \
        else np.arange(len(frames))
    if not len(live):
        return []
    picks = np.unique(np.linspace(live[0], live[-1], min(count, live[-1] - live[0] + 1))
                      .round().astype(int))
    return [frames[k] for k in picks]


def slice_pngs(sim, out: pathlib.Path, name: str, every: int = 1,
               count: int | None = None) -> list[pathlib.Path]:
    """PNGs of slice `name`: every `every`-th frame, or `count` frames of lively_frames."""
    plt = _plt()
    frames = sim.frames[name]
    frames = lively_frames(frames, count) if count else frames[::every]
    if not frames:
        return []
    sl = next(s for s in sim.slices if s.name == name)
    vmax = max(float(np.abs(f).max()) for _, f in frames) or 1.0
    hot = dict(sim.hot_frames) if sim.hot is not None and sim.hot.axis == sl.axis \
        and sim.hot.index == sl.index else {}
    paths = []
    for step, data in frames:
        fig, ax = plt.subplots(figsize=(5, 4.4))
        _draw_slice(ax, sim, sl, data, vmax)
        cells = on_screen(sl, data, hot.get(step))[3]
        if cells is not None and len(cells):
            ax.scatter(cells[:, 0], cells[:, 1], s=4, c="lime", marker="s", linewidths=0,
                       label=f"|E| > {sim.hot.threshold:g} V/m ({len(cells)} cells)")
            ax.legend(loc="upper right", fontsize=7)
        ax.set_title(f"{sl.field} on {sl.axis} = {sl.index} cells, t = {step * sim.grid.dt * 1e9:.3f} ns")
        path = out / f"{name}_{step:06d}.png"
        with atomic(path) as tmp:
            fig.savefig(tmp, dpi=90)
        plt.close(fig)
        paths.append(path)
    return paths


def _draw_slice(ax, sim, sl, data, vmax):
    shown, across, up, _ = on_screen(sl, data)
    signed = not sl.field.startswith("|")
    img = ax.imshow(shown, origin="lower", cmap="RdBu_r" if signed else "inferno",
                    vmin=-vmax if signed else 0, vmax=vmax, interpolation="nearest")
    ax.set_xlabel(f"{across} (cells)")
    ax.set_ylabel(f"{up} (cells)")
    ax.figure.colorbar(img, ax=ax, shrink=0.8, label=f"{sl.field} ({unit(sl.field)})")
    return img


def unit(field: str) -> str:
    return "A/m" if "h" in field else "V/m"


def slice_gif(sim, out: pathlib.Path, name: str, fps: int = 10) -> pathlib.Path | None:
    plt = _plt()
    from matplotlib.animation import FuncAnimation, PillowWriter
    frames = sim.frames[name]
    if not frames:
        return None
    sl = next(s for s in sim.slices if s.name == name)
    vmax = max(float(np.abs(f).max()) for _, f in frames) or 1.0
    fig, ax = plt.subplots(figsize=(5, 4.4))
    img = _draw_slice(ax, sim, sl, frames[0][1], vmax)
    title = ax.set_title("")

    def update(k):
        step, data = frames[k]
        img.set_data(on_screen(sl, data)[0])
        title.set_text(f"{sl.field}, t = {step * sim.grid.dt * 1e9:.3f} ns")
        return img, title
    anim = FuncAnimation(fig, update, frames=len(frames))
    path = out / f"{name}.gif"
    with atomic(path) as tmp:
        anim.save(tmp, writer=PillowWriter(fps=fps), dpi=70)
    plt.close(fig)
    return path


def probe_spectrum_png(sim, out: pathlib.Path) -> pathlib.Path | None:
    plt = _plt()
    if not sim.probes:
        return None
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 6))
    for p in sim.probes:
        data = sim.probe(p.name)
        for f in p.fields:
            t = data["t_e"] if f[0] == "e" else data["t_h"]
            ax1.plot(t * 1e9, data[f], label=f"{p.name} {f}")
            spec = np.abs(np.fft.rfft(data[f]))
            freq = np.fft.rfftfreq(len(t), sim.grid.dt)
            ax2.semilogy(freq / 1e9, spec + 1e-30, label=f"{p.name} {f}")
    ax1.set_xlabel("t (ns)")
    ax1.set_ylabel("field (V/m, A/m)")
    ax1.legend()
    ax2.set_xlabel("f (GHz)")
    ax2.set_ylabel("|FFT|")
    fmax = 3 * max((s.frequency for s in sim.sources), default=1e9)
    ax2.set_xlim(0, fmax / 1e9)
    fig.tight_layout()
    path = out / "probe_spectrum.png"
    with atomic(path) as tmp:
        fig.savefig(tmp, dpi=90)
    plt.close(fig)
    return path


def cross_section_png(sim, sigma, reference, out: pathlib.Path) -> pathlib.Path:
    plt = _plt()
    wl = np.array(sim.mie["wavelengths"])
    x = 2 * np.pi * sim.mie["radius"] / (wl * sim.grid.spacing[0])
    fig, ax = plt.subplots(figsize=(6, 4))
    from .scenes import mie_reference
    import copy
    dense = copy.copy(sim)
    dense.mie = dict(sim.mie, freqs=np.linspace(0.8, 3.0, 200) / (2 * np.pi * sim.mie["radius"]) * 299792458.0)
    xs = np.linspace(0.8, 3.0, 200)
    ax.plot(xs, mie_reference(dense) / (np.pi * sim.mie["radius"] ** 2), "k-", label="Mie series")
    ax.plot(x, sigma / (np.pi * sim.mie["radius"] ** 2), "o", label="vkpersist FDTD")
    ax.set_xlabel("size parameter 2πr/λ")
    ax.set_ylabel("Q_sca = σ / πr²")
    ax.legend()
    ax.set_title(f"dielectric sphere, n = {np.sqrt(sim.mie['eps_r']):g}, r = "
                 f"{sim.mie['radius'] / sim.grid.spacing[0]:g} cells")
    fig.tight_layout()
    path = out / "cross_section.png"
    with atomic(path) as tmp:
        fig.savefig(tmp, dpi=90)
    plt.close(fig)
    return path


def write_hdf5(sim, path: pathlib.Path, extra: dict | None = None) -> pathlib.Path:
    import h5py
    with atomic(path) as tmp, h5py.File(tmp, "w") as h5:     # closed, then renamed
        g = sim.grid
        h5.attrs.update(shape=g.shape, spacing=g.spacing, dt=g.dt, courant=g.courant,
                        steps=sim.step, precision=str(np.dtype(g.dtype)))
        pg = h5.create_group("probes")
        for p in sim.probes:
            data = sim.probe(p.name)
            grp = pg.create_group(p.name)
            grp.attrs["position_m"] = p.position
            grp.create_dataset("t_e", data=data["t_e"])
            grp.create_dataset("t_h", data=data["t_h"])
            for f in p.fields:
                grp.create_dataset(f, data=data[f])
        dg = h5.create_group("dft")
        for d in sim.dfts:
            r = sim.dft(d.name)
            grp = dg.create_group(d.name)
            grp.attrs.update(axis=d.axis, index=d.index, lo=d.lo_idx, hi=d.hi_idx)
            grp.create_dataset("freqs", data=r["freqs"])
            grp.create_dataset("e_tangential", data=r["e"])
            grp.create_dataset("h_tangential", data=r["h"])
        for k, v in (extra or {}).items():
            h5.create_dataset(k, data=v)
    return path
