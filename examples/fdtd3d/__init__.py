"""examples.fdtd3d: a 3-D FDTD electromagnetic solver as one vkpersist Program.

    import examples.fdtd3d as fd
    sim = fd.Simulation(shape=(64, 64, 64), spacing=5e-3)          # 5 mm cells, CPML walls
    sim.add(fd.Sphere((0.16, 0.16, 0.16), 0.05), fd.Material(eps_r=4.0))
    sim.add_source(fd.Dipole((0.08, 0.16, 0.16), "z", "ricker", 3e9))
    sim.add_probe((0.24, 0.16, 0.16), ("ez",))
    sim.add_slice("ez", "z")
    sim.run(400)

See docs/fdtd.md for the scene API, the physics and the validation.
"""
from .boundaries import CPML
from .grid import C0, EPS0, ETA0, MU0, Grid
from .materials import PEC, VACUUM, Box, Cylinder, Mask, Material, Sphere
from .simulation import Simulation
from .sources import WAVEFORMS, Dipole, PlaneWave, waveform_host

__all__ = ["C0", "CPML", "EPS0", "ETA0", "MU0", "PEC", "VACUUM", "WAVEFORMS", "Box", "Cylinder",
           "Dipole", "Grid", "Mask", "Material", "PlaneWave", "Simulation", "Sphere",
           "waveform_host"]
