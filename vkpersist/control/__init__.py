"""ControlBuffer: named, typed words shared by the host and running kernels. The host side
(layout, values, commands, acknowledgements) is in _host.py; the GPU side (the GLSL the
kernel operations become) in _device.py, registered with the GLSL writer; the front-end side
(what `ctrl.freq`, `ctrl.apply(step)` in kernel code lower to) in _frontend.py, registered
with the front end."""
from . import _device, _frontend  # noqa: F401  (register the GPU side and the front end)
from ._host import (Ack, ControlBuffer, ControlField, control_placement, control_value,
                    control_words)

__all__ = ["Ack", "ControlBuffer", "ControlField", "control_placement", "control_value",
           "control_words"]
