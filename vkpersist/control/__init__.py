"""ControlBuffer: named, typed words shared by the host and running kernels. The host side
(layout, values, commands, acknowledgements) is in _host.py; the GPU side (the GLSL the
kernel operations become) in _device.py, registered with the GLSL writer."""
from . import _device  # noqa: F401  (registers the GPU side)
from ._host import (Ack, ControlBuffer, ControlField, control_placement, control_value,
                    control_words)

__all__ = ["Ack", "ControlBuffer", "ControlField", "control_placement", "control_value",
           "control_words"]
