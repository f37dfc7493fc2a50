"""Persistent programs: resident arrays, controls and stages, run as one megakernel that
schedules its own steps on the GPU, or as per-launch kernels (the fallback).

Only what users construct is exported (`vkp.Program`, `vkp.every`, `vkp.when`,
`vkp.Checkpoints`) and the
warning they may see; arrays, queues, memsocks, stages, sessions and run reports come from
a Program's methods."""
from ._checkpoints import Checkpoints
from ._program import Program, every, when
from ._runner import OccupancyWarning, QueueOverflow

__all__ = ["Checkpoints", "OccupancyWarning", "Program", "QueueOverflow", "every", "when"]
