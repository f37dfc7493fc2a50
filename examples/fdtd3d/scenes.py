"""Ready-made scenes: the ones the CLI, `make demo` and the tutorials run."""
from __future__ import annotations

import numpy as np

from .grid import C0
from .materials import Material, Sphere
from .simulation import Simulation
from .sources import PlaneWave

MIE_WAVELENGTHS = (20, 25, 30, 40)        # in cells, vacuum, for the default 8-cell radius


def mie_sphere(size: int = 52, *, radius_cells: float = 8, spacing: float = 1e-3,
               smoothing: bool = True, eps_r: float = 4.0, ctx=None, precision="float32",
               snap_every: int = 20, hot_threshold: float = 0.4, wavelengths=None,
               gap_cells: int = 3, update: str = "auto"):
    """A lossless dielectric sphere (refractive index 2 by default) in a plane wave from
    -x, polarised along z, inside a TFSF box, with a DFT flux box around it at the
    wavelengths MIE_WAVELENGTHS (cells), a probe behind it, slices through its centre and
    the cells of the z slice where |E| exceeds `hot_threshold` times the incident field:
    the scattering validation against the Mie series. `wavelengths` (cells) defaults to
    MIE_WAVELENGTHS scaled by radius_cells / 8; the pulse is centred at 3.375 radii.
    `gap_cells`: cells between the sphere and the total-field box; `update`: Simulation's."""
    n = int(size)
    need = 2 * radius_cells + 2 * gap_cells + 2 * 2 + 2 * 3 + 2 * 10
    if n < need:
        raise ValueError(f"the Mie scene needs at least {need:.0f} cells per side for a sphere "
                         f"of radius {radius_cells} cells, got {n}")
    sim = Simulation(shape=(n, n, n), spacing=spacing, ctx=ctx, precision=precision,
                     snap_every=snap_every, update=update)
    c = n / 2 * spacing
    r = radius_cells * spacing
    sim.add(Sphere((c, c, c), r), Material(eps_r=eps_r), smoothing=smoothing)
    tf = r + gap_cells * spacing
    if wavelengths is None:
        wavelengths = tuple(w * radius_cells / 8 for w in MIE_WAVELENGTHS)
    freqs = C0 / (np.array(wavelengths, dtype=float) * spacing)
    f_c = C0 / (3.375 * radius_cells * spacing)
    sim.add_source(PlaneWave((c - tf,) * 3, (c + tf,) * 3, "+x", "z", "modulated_gaussian",
                             f_c, bandwidth=1.2))
    fb = tf + 2 * spacing
    sim.add_flux_box((c - fb,) * 3, (c + fb,) * 3, freqs)
    sim.add_probe((c + fb + 2 * spacing, c, c), ("ez",), name="forward")
    sim.add_probe((c - fb - 2 * spacing, c, c), ("ez",), name="back")
    sim.add_slice("ez", "z", c, name="ez_z")
    sim.add_hot_cells("z", c, threshold=hot_threshold, capacity=2048)
    sim.add_slice("|e|", "y", c, name="abs_e_y")
    sim.mie = {"radius": r, "eps_r": eps_r, "freqs": freqs, "wavelengths": tuple(wavelengths)}
    return sim


def mie_reference(sim) -> np.ndarray:
    """The Mie-series scattering cross-section (m²) at the scene's DFT frequencies."""
    try:
        import miepython
    except ImportError:
        raise ImportError("the Mie reference needs miepython, one of vkpersist's example "
                          "extras: pip install 'vkpersist[examples]' (make setup installs "
                          "it)") from None
    m = np.sqrt(sim.mie["eps_r"])
    x = 2 * np.pi * sim.mie["radius"] * sim.mie["freqs"] / C0
    _, qsca, _, _ = miepython.efficiencies_mx(m, x)
    return np.asarray(qsca) * np.pi * sim.mie["radius"] ** 2


def scattering_cross_section(sim) -> np.ndarray:
    """σ = P_scat / I_inc: the net scattered flux out of the DFT box (it lies in the
    scattered-field region) over the incident intensity ½Re(E_inc·H_inc*) of the 1-D grid."""
    from .validation import box_flux
    inc = sim.incident_dft(sim.dft("boxx+")["freqs"])
    intensity = 0.5 * np.real(inc["e"] * np.conj(inc["h"]))
    return box_flux(sim, "box") / intensity
