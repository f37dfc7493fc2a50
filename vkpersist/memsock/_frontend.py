"""MemSock, front-end side: what a kernel's `sock.frame[i] = v`, payload stores
(`sock.energy = v`), `sock.slot`, `sock.seq` and `sock.commit()` lower to, the IR
intrinsics that the GPU side (_device.py) writes as GLSL, and the check that every MemSock
parameter is committed once, at the end of the kernel. Registered with the front end for
SocketType parameters (lang/channels.py `register_channel_frontend`)."""
from __future__ import annotations

import ast

from ..lang import ir
from ..lang import types as T
from ..lang.channels import ChannelFrontend, ChannelValue, register_channel_frontend
from ..lang.source import glsl_name
from ..lang.values import PyValue


class SocketFrame(ChannelValue):
    """`sock.frame` before its index: written, never read."""
    __slots__ = ()

    def store(self, c, target, value, node):
        var, loc = self.var, c.src.loc(node)
        items = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
        if len(items) != var.type.frame_ndim:
            raise c.src.error(target, f"frames of {var.name!r} have {var.type.frame_ndim} "
                              f"dimension(s), indexed with {len(items)}")
        index = [c.convert(c.value(c.expr(i), i), T.i32, i) for i in items]
        value = c.convert(c.value(value, node), var.type.elem, node)
        var.written = True
        return ir.ExprStmt(loc, ir.Intrinsic(T.void, loc, "socket_store", [var, index, value]))


class SocketCommit(ChannelValue):
    """`sock.commit` before its call."""
    __slots__ = ()

    def call(self, c, node):
        if node.args:
            raise c.src.error(node, "commit() takes no arguments")
        if c.unit.resources:
            raise c.src.error(node, "program stages do not commit frames: the program "
                              "publishes the frame once the stage has run everywhere")
        c.channel_notes.setdefault(T.SocketType, []).append((self.var, node))
        return ir.Intrinsic(T.void, c.src.loc(node), "socket_commit", [self.var])


class SocketFrontend(ChannelFrontend):
    def parameter(self, c, name, t):
        if not c.is_kernel:
            raise c.src.error(c.node, f"parameter {name!r}: MemSocks are written by "
                              "kernels, not passed to device functions")
        return ir.Var(glsl_name(name), t, "socket")

    def attribute(self, c, var, node):
        loc = c.src.loc(node)
        if node.attr == "frame":
            return PyValue(SocketFrame(var))
        if node.attr == "slot":
            return ir.Intrinsic(T.i32, loc, "socket_slot", [var])
        if node.attr == "seq":
            return ir.Intrinsic(T.u32, loc, "socket_seq", [var])
        if node.attr == "commit":
            return PyValue(SocketCommit(var))
        raise c.src.error(node, f"MemSock parameters have .frame[...], .slot, .seq, .commit() "
                          f"and payload fields ({', '.join(f.name for f in var.type.payload) or 'none'}); "
                          f"not .{node.attr}")

    def store_attribute(self, c, var, target, value, node):
        loc = c.src.loc(node)
        f = var.type.payload_field(target.attr)
        if f is None:
            raise c.src.error(target, f"{var.name!r} has no payload field "
                              f"{target.attr!r}; payload: "
                              f"{', '.join(x.name for x in var.type.payload) or 'none'}")
        value = c.convert(c.value(value, node), f.type, node)
        return ir.ExprStmt(loc, ir.Intrinsic(T.void, loc, "socket_payload", [var, f, value]))

    def finish(self, c, body) -> None:
        """sock.commit() contains a workgroup barrier: every invocation must reach it, so it
        must close the kernel body (after any branches) and the kernel must not return early."""
        commits = c.channel_notes.get(T.SocketType, [])
        committed = {id(v) for v, _ in commits}
        for var in c.vars.values():
            if var.role == "socket" and id(var) not in committed:
                raise c.src.error(c.node, f"MemSock parameter {var.name!r} is never "
                                  f"committed: end the kernel with {var.name}.commit()")
        if not commits:
            return
        trailing = []
        for s in reversed(body):
            if isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.Intrinsic) \
                    and s.expr.name == "socket_commit":
                trailing.append(s.expr.args[0])
            else:
                break
        for var, node in commits:
            if trailing.count(var) != 1 or sum(v is var for v, _ in commits) != 1:
                raise c.src.error(node, f"{var.name}.commit() must be called exactly once, as "
                                  "one of the last statements of the kernel, outside any "
                                  "if/loop (every invocation must reach it)")
        if c.has_return:
            raise c.src.error(c.node, "a kernel that commits a MemSock frame must not "
                              "return early (every invocation must reach commit())")


register_channel_frontend(T.SocketType, SocketFrontend())
