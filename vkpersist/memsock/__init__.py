"""MemSock: rings of frames that kernels write and the host reads while the GPU runs.

The host side (reservation, reading, release) and the protocol are in `_core.py`; the GPU
side (the GLSL of frame writes and commit) in `_device.py`, registered with the GLSL writer;
the front-end side (what `sock.frame[i] = v`, `sock.commit()` in kernel code lower to) in
`_frontend.py`, registered with the front end."""
from . import _device, _frontend  # noqa: F401  (register the GPU side and the front end)
from ._core import Frame, MemSock
from ._relay import Relay

__all__ = ["Frame", "MemSock", "Relay"]
