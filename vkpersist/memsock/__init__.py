"""MemSock: rings of frames that kernels write and the host reads while the GPU runs.

See `_core.py` for the protocol."""
from ._core import Frame, MemSock

__all__ = ["Frame", "MemSock"]
