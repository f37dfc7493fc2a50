"""numba's type objects for vkpersist.cuda: `float32`, `int32[:, ::1]`, `void(float32[:])`.

On the host they build signatures for cuda.jit; in kernel code `float32(x)` is a cast and
`cuda.shared.array(n, float32)` takes them as dtypes (they have the NumPy `dtype`)."""
from __future__ import annotations

import numpy as np

from ..lang import builtins as B
from ..lang import calls
from ..lang import types as T


class Signature:
    """`void(float32[:], int32)`: the parameter types a kernel or device function takes."""

    def __init__(self, ret, args):
        self.ret, self.args = ret, list(args)

    def __repr__(self) -> str:
        return f"{self.ret or 'void'}({', '.join(map(str, self.args))})"


def _param_type(x):
    if isinstance(x, NumbaType):
        return x.scalar
    if isinstance(x, T.ArrayType):
        return x
    t = T.resolve_type(x)
    if t is None:
        raise TypeError(f"{x!r} is not a type a signature can name")
    return t


class NumbaType(B.Builtin):
    """A numba scalar type: `float32[:]` is an array type, `float32(float32)` a signature,
    `float32(x)` in kernel code a cast (on the host, a NumPy scalar)."""

    def __init__(self, name: str, scalar: T.Scalar | T.Complex):
        super().__init__(f"cuda.{name}", f"numba's {name}: the kernel type {scalar!r}.")
        self.scalar = scalar
        self.dtype = scalar.dtype
        B._register(B.Entry(f"cuda.{name}", None,
                            lambda c, node, _pm: calls._cast(c, scalar, node)), self)

    def __getitem__(self, item) -> T.ArrayType:
        items = item if isinstance(item, tuple) else (item,)
        if not all(isinstance(i, slice) for i in items) or not 1 <= len(items) <= 3:
            raise TypeError(f"{self.__name__}[...] takes 1-3 slices: {self.__name__}[:, ::1]")
        return T.ArrayType(self.scalar, len(items))

    def __call__(self, *args):
        if args and all(isinstance(a, (NumbaType, T.ArrayType)) for a in args):
            return Signature(self.scalar, [_param_type(a) for a in args])
        if len(args) == 1:
            if isinstance(self.scalar, T.Complex):
                return self.dtype.type(args[0])
            return self.scalar(args[0])
        raise TypeError(f"{self.__name__}(...) takes one value, or types for a signature")

    def __repr__(self) -> str:
        return f"vkpersist.cuda.{self.__name__}"


def void(*args) -> Signature:
    return Signature(None, [_param_type(a) for a in args])


_NAMES = {"boolean": T.bool_, "bool_": T.bool_, "int8": T.i8, "int16": T.i16, "int32": T.i32,
          "int64": T.i64, "intp": T.i64, "uint8": T.u8, "uint16": T.u16, "uint32": T.u32,
          "uint64": T.u64, "uintp": T.u64, "float16": T.f16, "float32": T.f32,
          "float64": T.f64, "double": T.f64, "complex64": T.c64, "complex128": T.c128}
TYPES = {name: NumbaType(name, t) for name, t in _NAMES.items()}
TYPES["void"] = void
np.dtype(TYPES["float32"])      # they are dtype-like
