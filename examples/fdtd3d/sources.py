"""Sources: waveforms, the point dipole (a soft current source) and the plane wave that a
total-field/scattered-field box injects.

Waveforms, with f the source frequency in Hz (names and the first two definitions as gprMax):
    gaussian             exp(-ζ(t-χ)²),                      ζ = 2π²f², χ = 1/f
    ricker               -(2ζ(t-χ)² - 1)·exp(-ζ(t-χ)²),       ζ = π²f²,  χ = √2/f
    modulated_gaussian   exp(-((t-t₀)/τ)²)·sin(2πf(t-t₀)),   τ = 2√ln2/(π·bw·f), t₀ = 4τ
                         (spectral full width at half maximum bw·f)
    sine                 sin(2πft)·r²(3-2r), r = min(1, ft/ramp): ramped on over `ramp` periods
Each has a host version (NumPy, for plots and reference solutions) and a kernel version the
GPU evaluates every step, with the frequency and amplitude of the steerable source read
from the program's controls.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import vkpersist as vkp

from .grid import AXES

WAVEFORMS = ("gaussian", "ricker", "modulated_gaussian", "sine")


def check_waveform(name: str) -> int:
    if name not in WAVEFORMS:
        raise ValueError(f"unknown waveform {name!r}; choose one of {', '.join(WAVEFORMS)}")
    return WAVEFORMS.index(name)


def waveform_host(name: str, t, f: float, amplitude: float = 1.0, bandwidth: float = 0.5,
                  ramp: float = 2.0):
    """The waveform `name` at times `t` (s), in float64."""
    t = np.asarray(t, float)
    kind = check_waveform(name)
    if kind == 0:
        zeta, chi = 2 * np.pi ** 2 * f ** 2, 1 / f
        w = np.exp(-zeta * (t - chi) ** 2)
    elif kind == 1:
        zeta, chi = np.pi ** 2 * f ** 2, np.sqrt(2) / f
        w = -(2 * zeta * (t - chi) ** 2 - 1) * np.exp(-zeta * (t - chi) ** 2)
    elif kind == 2:
        tau = 2 * np.sqrt(np.log(2)) / (np.pi * bandwidth * f)
        w = np.exp(-((t - 4 * tau) / tau) ** 2) * np.sin(2 * np.pi * f * (t - 4 * tau))
    else:
        r = np.clip(f * t / ramp, 0, 1)
        w = np.sin(2 * np.pi * f * t) * r * r * (3 - 2 * r)
    return amplitude * w


def check_drive(source) -> None:
    """What every source's waveform fields must satisfy."""
    check_waveform(source.waveform)
    if not (source.frequency > 0 and math.isfinite(source.frequency)):
        raise ValueError(f"source frequency must be a finite number > 0 Hz, got "
                         f"{source.frequency}")
    if not math.isfinite(source.amplitude):
        raise ValueError(f"source amplitude must be a finite number, got {source.amplitude}")
    for name in ("bandwidth", "ramp"):
        value = getattr(source, name)
        if not (value > 0 and math.isfinite(value)):
            raise ValueError(f"source {name} must be a finite number > 0, got {value}")


@vkp.func
def waveform(kind: vkp.i32, t, f, bandwidth, ramp):
    """The kernel version of waveform_host (kind: the index in WAVEFORMS, a constant)."""
    w = 0.0
    if kind == 0:
        zeta = 19.739208802178716 * f * f          # 2π²f²
        u = t - 1.0 / f
        w = math.exp(-zeta * u * u)
    elif kind == 1:
        zeta = 9.869604401089358 * f * f           # π²f²
        u = t - 1.4142135623730951 / f
        w = -(2.0 * zeta * u * u - 1.0) * math.exp(-zeta * u * u)
    elif kind == 2:
        tau = 0.5300207270387938 / (bandwidth * f)     # 2√ln2/π / (bw·f)
        u = t - 4.0 * tau
        w = math.exp(-(u / tau) * (u / tau)) * math.sin(6.283185307179586 * f * u)
    else:
        r = min(max(f * t / ramp, 0.0), 1.0)
        turns = f * t
        turns = turns - math.floor(turns)          # keep the sine's argument small
        w = math.sin(6.283185307179586 * turns) * r * r * (3.0 - 2.0 * r)
    return w


@dataclass(frozen=True)
class Dipole:
    """A soft current source: current `amplitude`·w(t) amperes along `polarization` ("x",
    "y" or "z") through the E component of the cell at `position` (metres)."""
    position: tuple
    polarization: str = "z"
    waveform: str = "gaussian"
    frequency: float = 1e9
    amplitude: float = 1.0
    bandwidth: float = 0.5
    ramp: float = 2.0

    def __post_init__(self):
        check_drive(self)
        if self.polarization not in AXES:
            raise ValueError(f"dipole polarization must be 'x', 'y' or 'z', got {self.polarization!r}")


DIRECTIONS = ("+x", "-x", "+y", "-y", "+z", "-z")


@dataclass(frozen=True)
class PlaneWave:
    """A plane wave travelling along `direction` ("+x" ... "-z") with E along `polarization`
    (an axis across the direction), injected on the faces of the total-field box
    [`lo`, `hi`] (metres). Its amplitude is the incident E in V/m."""
    lo: tuple
    hi: tuple
    direction: str = "+x"
    polarization: str = "z"
    waveform: str = "gaussian"
    frequency: float = 1e9
    amplitude: float = 1.0
    bandwidth: float = 0.5
    ramp: float = 2.0

    def __post_init__(self):
        check_drive(self)
        if self.direction not in DIRECTIONS:
            raise ValueError(f"plane-wave direction must be one of {', '.join(DIRECTIONS)}, "
                             f"got {self.direction!r}")
        if self.polarization not in AXES or self.polarization == self.direction[1]:
            ok = [a for a in AXES if a != self.direction[1]]
            raise ValueError(f"a plane wave along {self.direction} has E along {ok[0]!r} or "
                             f"{ok[1]!r}, got {self.polarization!r}")

    @property
    def axis(self) -> int:
        return AXES.index(self.direction[1])

    @property
    def sign(self) -> int:
        return 1 if self.direction[0] == "+" else -1

    def h_direction(self) -> tuple[int, int]:
        """(axis, sign) of the incident H: k̂ × ê."""
        k = np.zeros(3)
        k[self.axis] = self.sign
        e = np.zeros(3)
        e[AXES.index(self.polarization)] = 1
        h = np.cross(k, e)
        a = int(np.argmax(np.abs(h)))
        return a, int(np.sign(h[a]))
