"""Persistent programs: resident arrays, controls and stages, run as one megakernel that
schedules its own steps on the GPU, or as per-launch kernels (the fallback)."""
from ._program import (Every, Program, ProgramArray, ProgramQueue, ProgramSocket, RunReport,
                       Stage, When, every, when)
from ._runner import QueueOverflow
from ._session import Session

__all__ = ["Every", "Program", "ProgramArray", "ProgramQueue", "ProgramSocket", "QueueOverflow", "RunReport",
           "Session", "Stage", "When", "every", "when"]
