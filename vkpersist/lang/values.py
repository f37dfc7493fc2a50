"""Compile-time values the front end passes around besides IR expressions: Python objects
met in kernel code, and handles of buffers (arrays, controls, memsocks, queues). Handles of a
channel's members (`sock.commit` before its call) are the channel's own ChannelValues
(channels.py)."""
from __future__ import annotations

import inspect

from . import ir


class PyValue:
    """A compile-time Python value met while compiling (a module, function, type, tuple of IR)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class KernelValue:
    """A Python object that kernel code reads as a value rather than calls (numba.cuda's
    `cuda.threadIdx.x`): `lower(compiler, node)` gives its IR."""

    def lower(self, c, node):
        raise NotImplementedError


class CompileTimeArg:
    """A compile-time Python value passed to a @vkp.func (a type, a builtin such as
    cuda.atomic.add, another device function, a tuple of constants): the callee is
    specialised on it, as numba specialises on such arguments."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def _key(self):
        v = self.value
        try:
            hash(v)
        except TypeError:
            return ("id", id(v))
        return ("value", type(v), v)

    def __eq__(self, other):
        return isinstance(other, CompileTimeArg) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self) -> str:
        return f"compile-time {pydescribe(self.value)}"


class ArrayHandle:
    __slots__ = ("var",)

    def __init__(self, var):
        self.var = var


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


def describe_value(e) -> str:
    """What a value met in kernel code is, for messages: its type, or the Python object."""
    if isinstance(e, ir.Expr):
        return str(e.type)
    if isinstance(e, PyValue):
        return pydescribe(e.value)
    return type(e).__name__


class DeviceFunction:
    """A @vkp.func: callable from kernels and other device functions, compiled once per
    argument-type signature into a GLSL function."""

    def __init__(self, pyfunc):
        self.pyfunc = pyfunc
        self.__name__ = pyfunc.__name__
        self.__doc__ = pyfunc.__doc__
        self.__wrapped__ = pyfunc
        self.param_names = list(inspect.signature(pyfunc).parameters)
        # types the arguments are converted to before the call (vkpersist.cuda's signatures:
        # cuda.jit("int32(int32, int32)", device=True)); None: the arguments' own types
        self.param_types: list | None = None

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"@vkp.func {self.__name__} runs only on the GPU: call it from a "
                           "@vkp.kernel (its Python body is the GPU code)")

    def __repr__(self) -> str:
        return f"<vkpersist.func {self.__name__}>"
