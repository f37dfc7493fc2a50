"""MemSock: rings of frames that kernels write and the host reads while the GPU runs.

The host side (reservation, reading, release) and the protocol are in `_core.py`; the GPU
side (the GLSL of frame writes and commit) in `_device.py`, registered with the GLSL writer."""
from . import _device  # noqa: F401  (registers the GPU side)
from ._core import Frame, MemSock

__all__ = ["Frame", "MemSock"]
