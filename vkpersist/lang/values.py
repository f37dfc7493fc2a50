"""Compile-time values the front end passes around besides IR expressions: Python objects
met in kernel code, and handles of buffers (arrays, controls, memsocks, queues) and of
their methods before the call."""
from __future__ import annotations


class PyValue:
    """A compile-time Python value met while compiling (a module, function, type, tuple of IR)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class ArrayHandle:
    __slots__ = ("var",)

    def __init__(self, var):
        self.var = var


class ControlApply:
    __slots__ = ("var",)

    def __init__(self, var):
        self.var = var


class QueuePush:
    """`queue.push` inside a stage, before the call."""

    def __init__(self, var):
        self.var = var


class SocketFrame:
    __slots__ = ("var",)

    def __init__(self, var):
        self.var = var


class SocketCommit:
    __slots__ = ("var",)

    def __init__(self, var):
        self.var = var


class ControlArray:
    __slots__ = ("var", "field")

    def __init__(self, var, field):
        self.var, self.field = var, field


def pydescribe(v) -> str:
    if isinstance(v, ArrayHandle):
        return f"array {v.var.name!r}"
    if isinstance(v, tuple):
        return "a tuple"
    if callable(v):
        return f"{getattr(v, '__name__', v)!r} (a Python callable)"
    if hasattr(v, "__name__"):
        return f"{v.__name__!r}"
    return f"a {type(v).__name__}"
