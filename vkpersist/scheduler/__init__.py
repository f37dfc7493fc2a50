"""Persistent programs: resident arrays, controls and stages, run as one megakernel that
schedules its own steps on the GPU, or as per-launch kernels (the fallback)."""
from ._program import Every, Program, ProgramArray, RunReport, Stage, every
from ._session import Session

__all__ = ["Every", "Program", "ProgramArray", "RunReport", "Session", "Stage", "every"]
