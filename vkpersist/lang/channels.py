"""Lowering of the channels in kernel code: control fields (`ctrl.freq`, `ctrl.apply`),
memsock frames and payload (`sock.frame[i] = v`, `sock.commit()`), queue pushes, and a
program's resources, which its stages use as globals. A mixin of FunctionCompiler."""
from __future__ import annotations

from . import ir
from . import types as T
from .values import (ArrayHandle, ControlApply, ControlArray, PyValue, QueuePush, SocketCommit,
                     SocketFrame, pydescribe)


class ChannelLowering:
    """FunctionCompiler's methods for channels and program resources (it provides self.src,
    self.unit, self.commits, self.value, self.convert...)."""

    def program_resource(self, value, node):
        """A program's arrays and controls are globals of its stages: the handle of the
        buffer the program binds for `value`, or None when `value` is not one of them."""
        resources = self.unit.resources
        if not resources:
            return None
        var = resources.get(id(value))
        if var is None:
            if getattr(value, "_program_resource", False):
                raise self.src.error(node, f"{pydescribe(value)} belongs to another Program")
            return None
        if var == "step":
            return ir.Intrinsic(T.u32, self.src.loc(node), "program_step", [])
        return ArrayHandle(var)

    def _control_field_spec(self, var, node):
        f = var.type.field(node.attr)
        if f is None:
            raise self.src.error(node, f"no control field {node.attr!r}; fields: "
                                 f"{', '.join(x.name for x in var.type.fields if not x.name.startswith('_'))}")
        return f

    def control_field(self, var, node):
        if node.attr == "apply":
            if var.type.field("_cmd_head") is None:
                raise self.src.error(node, f"{var.name!r} has no command ring (it was created "
                                     "with commands=0)")
            return PyValue(ControlApply(var))
        if node.attr.startswith("_"):
            raise self.src.error(node, f"no control field {node.attr!r}")
        f = self._control_field_spec(var, node)
        if f.count:
            return PyValue(ControlArray(var, f))
        return ir.Intrinsic(f.type, self.src.loc(node), "control_load", [var, f, None])

    def _control_index(self, handle, slice_node, node):
        index = self.value(self.expr(slice_node), slice_node)
        if not (isinstance(index.type, T.Scalar) and index.type.is_int):
            raise self.src.error(slice_node, f"control array index must be an integer, got {index.type}")
        if isinstance(index, ir.Const) and not 0 <= index.value < handle.field.count:
            raise self.src.error(slice_node, f"index {index.value} is out of range for control "
                                 f"field {handle.field.name!r} of {handle.field.count} elements")
        return self.convert(index, T.i32, node)

    def control_store(self, var, f, index, value, node):
        var.written = True
        value = self.convert(self.value(value, node), f.type, node)
        return ir.ExprStmt(self.src.loc(node), ir.Intrinsic(T.void, self.src.loc(node),
                                                            "control_store", [var, f, index, value]))

    # ---- memsocks ----------------------------------------------------------------------------
    def socket_attribute(self, var, node):
        loc = self.src.loc(node)
        if node.attr == "frame":
            return PyValue(SocketFrame(var))
        if node.attr == "slot":
            return ir.Intrinsic(T.i32, loc, "socket_slot", [var])
        if node.attr == "seq":
            return ir.Intrinsic(T.u32, loc, "socket_seq", [var])
        if node.attr == "commit":
            return PyValue(SocketCommit(var))
        raise self.src.error(node, f"MemSock parameters have .frame[...], .slot, .seq, .commit() "
                             f"and payload fields ({', '.join(f.name for f in var.type.payload) or 'none'}); "
                             f"not .{node.attr}")

    def socket_commit(self, var, node):
        if self.unit.resources:
            raise self.src.error(node, "program stages do not commit frames: the program "
                                 "publishes the frame once the stage has run everywhere")
        self.commits.append((var, node))
        return ir.Intrinsic(T.void, self.src.loc(node), "socket_commit", [var])


    def queue_attribute(self, var, node):
        if node.attr != "push":
            raise self.src.error(node, f"queues have .push(item), not .{node.attr}")
        return PyValue(QueuePush(var))
