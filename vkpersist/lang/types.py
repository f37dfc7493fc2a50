"""The kernel language's types: scalars, vectors, arrays, and the promotion rules.

Arithmetic follows NumPy's scalar rules (NEP 50) with one deliberate GPU deviation:

- Python int and float literals are "weak": `x * 2` and `x * 0.5` keep x's type.
- A float literal on its own is float32 (the GPU's native float), not float64.
- bool in arithmetic counts as int32.
- int with float gives the float type (NumPy would give float64 for int32 + float32;
  vkpersist keeps float32, as GLSL and CUDA do). float32 with float64 gives float64.
- int32 with uint32 gives int64 (NumPy's rule; needs a device with int64), int64 with
  uint64 is refused (NumPy would give float64): cast one side explicitly.
- `/` is true division (ints give float32), `//` floors, `%` takes the sign of the divisor,
  integers wrap on overflow like their dtype.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..vk.array import Array as DeviceArray


class Type:
    """Base of every kernel-language type."""


@dataclass(frozen=True)
class Scalar(Type):
    name: str          # numpy-style name: int32, float32, ...
    kind: str          # 'b' bool, 'i' signed, 'u' unsigned, 'f' float
    bits: int
    glsl: str

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.bool_) if self.kind == "b" else np.dtype(self.name)

    @property
    def is_int(self) -> bool:
        return self.kind in "iu"

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    def __call__(self, value):
        """Host side: a NumPy scalar of this type, e.g. vkp.f32(1.0) for controls, by the
        rule of every host scalar (no None, nothing the type cannot hold: vkp.f32(1e39)
        would be inf, vkp.i32(1.5) would be 1)."""
        from ..vk.array import to_scalar
        return to_scalar(value, self.dtype, f"vkp.{_SHORT.get(self.name, self.name)}()")[()]

    def __repr__(self) -> str:
        return f"vkp.{_SHORT.get(self.name, self.name)}"

    def __str__(self) -> str:
        return self.name


bool_ = Scalar("bool", "b", 32, "bool")
i8 = Scalar("int8", "i", 8, "int8_t")
u8 = Scalar("uint8", "u", 8, "uint8_t")
i16 = Scalar("int16", "i", 16, "int16_t")
u16 = Scalar("uint16", "u", 16, "uint16_t")
i32 = Scalar("int32", "i", 32, "int")
u32 = Scalar("uint32", "u", 32, "uint")
i64 = Scalar("int64", "i", 64, "int64_t")
u64 = Scalar("uint64", "u", 64, "uint64_t")
f16 = Scalar("float16", "f", 16, "float16_t")
f32 = Scalar("float32", "f", 32, "float")
f64 = Scalar("float64", "f", 64, "double")

SCALARS = (bool_, i8, u8, i16, u16, i32, u32, i64, u64, f16, f32, f64)
_SHORT = {"bool": "bool_", "int8": "i8", "uint8": "u8", "int16": "i16", "uint16": "u16",
          "int32": "i32", "uint32": "u32", "int64": "i64", "uint64": "u64", "float16": "f16",
          "float32": "f32", "float64": "f64"}
_BY_DTYPE = {s.dtype: s for s in SCALARS}

# Types that exist only in memory: loads widen them, stores narrow them.
STORAGE_ONLY = {i8: i32, u8: u32, i16: i32, u16: u32, f16: f32}


def scalar_of_dtype(dtype) -> Scalar:
    dt = np.dtype(dtype)
    if dt not in _BY_DTYPE:
        raise TypeError(f"no kernel type for dtype {dt}")
    return _BY_DTYPE[dt]


def arithmetic(t: Scalar) -> Scalar:
    """The type a stored value computes in (storage-only types widen)."""
    return STORAGE_ONLY.get(t, t)


@dataclass(frozen=True)
class Vector(Type):
    elem: Scalar
    n: int

    @property
    def glsl(self) -> str:
        prefix = {"float32": "", "float64": "d", "int32": "i", "uint32": "u", "bool": "b"}[self.elem.name]
        return f"{prefix}vec{self.n}"

    def __repr__(self) -> str:
        return f"vkp.{self.glsl}"

    __str__ = __repr__


def _vectors(elem):
    return tuple(Vector(elem, n) for n in (2, 3, 4))


vec2, vec3, vec4 = _vectors(f32)
ivec2, ivec3, ivec4 = _vectors(i32)
uvec2, uvec3, uvec4 = _vectors(u32)
dvec2, dvec3, dvec4 = _vectors(f64)
bvec2, bvec3, bvec4 = _vectors(bool_)
VECTORS = (vec2, vec3, vec4, ivec2, ivec3, ivec4, uvec2, uvec3, uvec4, dvec2, dvec3, dvec4,
           bvec2, bvec3, bvec4)


@dataclass(frozen=True)
class Complex(Vector):
    """complex64 / complex128: a (real, imag) pair of float32 / float64, held and stored as
    GLSL's vec2 / dvec2, which is NumPy's memory layout of complex arrays (interleaved, 8 or
    16 bytes an element), so complex arrays go to the device without a copy. A Vector for
    storage, parameters and construction only: semantics.py gives it complex arithmetic,
    and the float math functions refuse it (cmath's are its functions)."""

    @property
    def name(self) -> str:
        return "complex64" if self.elem == f32 else "complex128"

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self.name)

    def __repr__(self) -> str:
        return f"vkp.{'c64' if self.elem == f32 else 'c128'}"

    def __str__(self) -> str:
        return self.name


c64 = Complex(f32, 2)
c128 = Complex(f64, 2)
COMPLEX = {np.dtype(np.complex64): c64, np.dtype(np.complex128): c128}


def complex_of(elem: Scalar) -> Complex:
    """The complex type whose parts compute in `elem`'s float type (float64: complex128)."""
    return c128 if elem == f64 else c64


def value_type_of_dtype(dtype):
    """The kernel type of one element of a NumPy dtype: a scalar, or a complex type."""
    dt = np.dtype(dtype)
    return COMPLEX[dt] if dt in COMPLEX else scalar_of_dtype(dt)


@dataclass(frozen=True)
class ArrayType(Type):
    """A kernel parameter backed by a device buffer. `ndim` None matches any rank
    (annotation only; specialisation fixes it). `strided`: the argument is a view indexed
    through an element offset and strides (push constants) instead of row-major from the
    buffer's start; launches specialise on it, annotations never say it."""
    elem: Type            # Scalar or Vector
    ndim: int | None = 1
    strided: bool = False

    def __repr__(self) -> str:
        return f"vkp.Array[{self.elem!r}, {self.ndim}{', strided' if self.strided else ''}]"

    __str__ = __repr__


@dataclass(frozen=True)
class FixedArray(Type):
    """vkp.shared.array / vkp.local.array: fixed shape, in workgroup or invocation memory."""
    elem: Type
    shape: tuple
    space: str            # "shared" | "local"

    def __str__(self) -> str:
        return f"{self.space} array{list(self.shape)} of {self.elem}"


@dataclass(frozen=True)
class ControlField:
    name: str
    type: Scalar
    word: int             # offset in 32-bit words
    count: int            # 0 for a scalar, else the number of elements
    side: str             # "host" (written by the host) or "gpu" (written by kernels)


@dataclass(frozen=True)
class ControlsType(Type):
    """A ControlBuffer parameter: named words, read and written atomically."""
    fields: tuple

    def field(self, name):
        for f in self.fields:
            if f.name == name:
                return f
        return None

    def __str__(self) -> str:
        return "Controls(" + ", ".join(f.name for f in self.fields) + ")"


@dataclass(frozen=True)
class QueueType(Type):
    """A program's work queue: a bounded ring of 32-bit items that stages push to."""
    elem: Scalar
    capacity: int

    def __str__(self) -> str:
        return f"Queue({self.elem}, capacity={self.capacity})"


@dataclass(frozen=True)
class SocketType(Type):
    """A MemSock parameter: a ring of frames the kernel writes one of per launch."""
    elem: Scalar | None           # frame element type (None: the annotation, any socket)
    frame_ndim: int = 1
    payload: tuple = ()           # ControlField-like (name, type, word) per payload field

    def payload_field(self, name):
        for f in self.payload:
            if f.name == name:
                return f
        return None

    def __str__(self) -> str:
        return f"Socket({self.elem}, {self.frame_ndim}-d frames)"


class Socket:
    """Annotation for MemSock parameters of kernels: `def k(out: vkp.Socket, ...)`."""


ANY_SOCKET = SocketType(None)


class Controls:
    """Annotation for ControlBuffer parameters of kernels: `def k(ctrl: vkp.Controls, ...)`;
    the kernel is specialised on the buffer's fields."""


ANY_CONTROLS = ControlsType(None)


@dataclass(frozen=True)
class VoidType(Type):
    def __str__(self) -> str:
        return "None"


void = VoidType()


def _array_annotation(item) -> ArrayType:
    """`vkp.Array[elem]`, `vkp.Array[elem, ndim]`: the device array class is also the
    annotation of array parameters (vk/array.py asks this function what it names)."""
    elem, ndim = (item if isinstance(item, tuple) else (item, 1))
    if not isinstance(elem, (Scalar, Vector)):
        raise TypeError(f"vkpersist.Array[...] takes a scalar or vector type (vkp.f32, "
                        f"vkp.vec3, ...), got {elem!r}")
    if not (ndim is None or isinstance(ndim, int) and 1 <= ndim <= 3):
        raise TypeError(f"vkpersist.Array[T, ndim]: ndim must be 1, 2 or 3, got {ndim!r}")
    return ArrayType(elem, ndim)


Array = DeviceArray
Array._annotation = staticmethod(_array_annotation)


class PromotionError(TypeError):
    pass


def promote(a: Scalar, b: Scalar, weak_a: bool = False, weak_b: bool = False) -> Scalar:
    """The result type of a binary arithmetic operation (see the module docstring)."""
    a, b = arithmetic(a), arithmetic(b)
    if a.kind == "b":
        a = i32
    if b.kind == "b":
        b = i32
    if a == b:
        return a
    if weak_a and not weak_b:
        return b if (b.is_float or not a.is_float) else f32
    if weak_b and not weak_a:
        return a if (a.is_float or not b.is_float) else f32
    if a.is_float or b.is_float:
        if a.is_float and b.is_float:
            return a if a.bits >= b.bits else b
        return a if a.is_float else b
    if a.kind == b.kind:
        return a if a.bits >= b.bits else b
    signed, unsigned = (a, b) if a.kind == "i" else (b, a)
    if signed.bits > unsigned.bits:
        return signed
    if unsigned.bits < 64:
        return i64
    raise PromotionError(f"mixing {a} and {b} has no integer result type (NumPy gives "
                         "float64); cast one side explicitly")


def python_scalar_type(value) -> tuple[Scalar, bool]:
    """(type, weak) of a Python or NumPy constant."""
    if isinstance(value, (bool, np.bool_)):
        return bool_, False
    if isinstance(value, np.generic):
        return value_type_of_dtype(value.dtype), False
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            return i32, True
        if -2**63 <= value < 2**63:
            return i64, True
        if 0 <= value < 2**64:
            return u64, True
        raise OverflowError(f"integer constant {value} does not fit in 64 bits")
    if isinstance(value, float):
        return f32, True
    if isinstance(value, complex):
        return c64, True
    raise TypeError(f"unsupported constant {value!r}")


def resolve_type(v):
    """The kernel type a Python annotation or dtype-like object names, or None: kernel types
    themselves, vkp.Controls/vkp.Socket, float/int/bool, NumPy dtypes and scalar types."""
    if isinstance(v, (Scalar, Vector, ArrayType, ControlsType, SocketType)):
        return v
    if v is Controls:
        return ANY_CONTROLS
    if v is Socket:
        return ANY_SOCKET
    if v is float:
        return f32
    if v is int:
        return i32
    if v is bool:
        return bool_
    if v is complex:
        return c64
    try:
        return value_type_of_dtype(np.dtype(v)) if v is not None else None
    except TypeError:
        return None
