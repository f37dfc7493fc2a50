"""ControlBuffer, front-end side: what a kernel's `ctrl.freq`, `ctrl.gains[i]`,
`ctrl.freq = v` and `ctrl.apply(step)` lower to, the IR intrinsics control_load,
control_store and control_apply that the GPU side (_device.py) writes as GLSL. Registered
with the front end for ControlsType parameters (lang/channels.py
`register_channel_frontend`)."""
from __future__ import annotations

from ..lang import ir
from ..lang import types as T
from ..lang.channels import ChannelFrontend, ChannelValue, register_channel_frontend
from ..lang.source import glsl_name
from ..lang.values import PyValue


class ControlApply(ChannelValue):
    """`ctrl.apply` before its call."""
    __slots__ = ()

    def call(self, c, node):
        if len(node.args) != 1:
            raise c.src.error(node, "apply(step) takes the step number to acknowledge with")
        step = c.convert(c.value(c.expr(node.args[0]), node.args[0]), T.u32, node)
        self.var.written = True
        return ir.Intrinsic(T.void, c.src.loc(node), "control_apply", [self.var, step])


class ControlArray(ChannelValue):
    """An array field (`ctrl.gains`) before its index."""
    __slots__ = ("field",)

    def __init__(self, var, field):
        super().__init__(var)
        self.field = field

    def index(self, c, slice_node, node):
        index = c.value(c.expr(slice_node), slice_node)
        if not (isinstance(index.type, T.Scalar) and index.type.is_int):
            raise c.src.error(slice_node, f"control array index must be an integer, got {index.type}")
        if isinstance(index, ir.Const) and not 0 <= index.value < self.field.count:
            raise c.src.error(slice_node, f"index {index.value} is out of range for control "
                              f"field {self.field.name!r} of {self.field.count} elements")
        return c.convert(index, T.i32, node)

    def load(self, c, node):
        index = self.index(c, node.slice, node)
        return ir.Intrinsic(self.field.type, c.src.loc(node), "control_load",
                            [self.var, self.field, index])

    def store(self, c, target, value, node):
        return _store(c, self.var, self.field, self.index(c, target.slice, target), value, node)


def _field_spec(c, var, node):
    f = var.type.field(node.attr)
    if f is None:
        raise c.src.error(node, f"no control field {node.attr!r}; fields: "
                          f"{', '.join(x.name for x in var.type.fields if not x.name.startswith('_'))}")
    return f


def _store(c, var, f, index, value, node):
    var.written = True
    value = c.convert(c.value(value, node), f.type, node)
    return ir.ExprStmt(c.src.loc(node), ir.Intrinsic(T.void, c.src.loc(node),
                                                     "control_store", [var, f, index, value]))


class ControlsFrontend(ChannelFrontend):
    def parameter(self, c, name, t):
        return c.bound_arrays.get(name) or ir.Var(glsl_name(name), t, "controls")

    def attribute(self, c, var, node):
        if node.attr == "apply":
            if var.type.field("_cmd_head") is None:
                raise c.src.error(node, f"{var.name!r} has no command ring (it was created "
                                  "with commands=0)")
            return PyValue(ControlApply(var))
        if node.attr.startswith("_"):
            raise c.src.error(node, f"no control field {node.attr!r}")
        f = _field_spec(c, var, node)
        if f.count:
            return PyValue(ControlArray(var, f))
        return ir.Intrinsic(f.type, c.src.loc(node), "control_load", [var, f, None])

    def store_attribute(self, c, var, target, value, node):
        f = _field_spec(c, var, target)
        if f.count:
            raise c.src.error(target, f"control field {f.name!r} is an array; assign "
                              "its elements")
        return _store(c, var, f, None, value, node)


register_channel_frontend(T.ControlsType, ControlsFrontend())
