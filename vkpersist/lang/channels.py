"""Channels in kernel code, the front end's half: the registry through which a channel
(ControlBuffer, MemSock, a Program's queues) lowers its own parameters, attributes,
subscripts, stores and method calls.

The kernel language knows a channel only by its IR type (types.py). The lowering lives
beside the channel's host side and GPU side (control/_frontend.py, memsock/_frontend.py,
scheduler/_declare.py for queues), which registers it here for its IR type class with
`register_channel_frontend`, as the GPU side registers with lang/glsl.py `register_channel`:
this package cannot import those above it. They register when their package is imported,
and `import vkpersist` imports them all before anything can be compiled.

A registered front end (a ChannelFrontend) is asked, with the FunctionCompiler `c`:
  parameter(c, name, t) -> ir.Var             a parameter of the type
  attribute(c, var, node)                     `var.attr` read: an ir.Expr or a PyValue
  store_attribute(c, var, target, value, node) `var.attr = value`: an ir.Stmt, or None when
                                              the attribute is not the channel's to assign
  finish(c, body)                             checks once a function's body is lowered
A ChannelValue (what an attribute gives before its call or index: `sock.commit`,
`ctrl.gains`) is asked those of these it defines:
  call(c, node)                               `sock.commit()`          (an ast.Call)
  load(c, node)                               `ctrl.gains[i]` read     (an ast.Subscript)
  store(c, target, value, node)               `ctrl.gains[i] = value`  (target: ast.Subscript)
One that defines both load and store also takes augmented assignment (`ctrl.gains[i] += 1`).
"""
from __future__ import annotations

_FRONTENDS: dict = {}     # IR type class -> the front-end side of that channel


def register_channel_frontend(type_cls, frontend: "ChannelFrontend") -> None:
    _FRONTENDS[type_cls] = frontend


def channel_frontend(t) -> "ChannelFrontend | None":
    """The front end of the channel whose IR type `t` is, or None for any other type."""
    return _FRONTENDS.get(type(t))


def channel_frontends() -> list:
    return list(_FRONTENDS.values())


class ChannelFrontend:
    """Base of the registered front ends: parameter() and attribute() are theirs to define;
    by default no attribute is assignable and nothing is checked at the end."""

    def parameter(self, c, name: str, t):
        raise NotImplementedError

    def attribute(self, c, var, node):
        raise NotImplementedError

    def store_attribute(self, c, var, target, value, node):
        return None

    def finish(self, c, body) -> None:
        pass


class ChannelValue:
    """A compile-time handle of a channel's member (a method before its call, an array field
    before its index) on the channel's buffer `var`. Subclasses define call, load and store
    as they support them; the class name is what messages call it ("a SocketFrame cannot be
    indexed")."""
    __slots__ = ("var",)

    def __init__(self, var):
        self.var = var


def indexable(value) -> bool:
    """Whether a compile-time value is a channel member read and written by index."""
    return isinstance(value, ChannelValue) and hasattr(value, "load") and hasattr(value, "store")
