"""Raw GLSL compute kernels: for code already written in GLSL, and for reading what runs.

    k = vkp.glsl_kernel('''
        #version 450
        layout(local_size_x = 64) in;
        layout(push_constant) uniform P { float a; uint n; };
        layout(std430, binding = 0) readonly buffer X { float x[]; };
        layout(std430, binding = 1) buffer Y { float y[]; };
        void main() { uint i = gl_GlobalInvocationID.x; if (i < n) y[i] += a * x[i]; }
    ''')
    k[(n + 63) // 64](x, y, a=2.0, n=n)     # arrays in binding order, push constants by name

Launch configurations follow numba.cuda: `k[groups]`, `k[groups, local]` (local needs
`layout(local_size_x_id = 0) in;`), each an int or a tuple of up to 3 ints; a pair is always
(groups, local), so a 2-d grid with the shader's own local size is `k[(gx, gy), None]`.

Launches are asynchronous when every array argument is a device Array (wait with
`vkp.synchronize()`, or read a result, which waits). NumPy arrays are copied to the device
and, unless the shader declares them readonly, back again; such launches wait.
"""
from __future__ import annotations

import operator
import struct
import weakref

import numpy as np

from .._errors import VkPersistError
from .array import Array, to_scalar
from .context import Context, default_context
from .glslang import compile_glsl
from .pipeline import Pipeline
from .spirv import reflect


def launch_dims(value, what: str) -> tuple[int, int, int]:
    items = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(items) <= 3:
        raise ValueError(f"{what} must be an int or a tuple of 1-3 ints, got {value!r}")
    try:
        dims = tuple(operator.index(v) for v in items)
    except TypeError:
        raise TypeError(f"{what} must be an int or a tuple of 1-3 ints, got {value!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"{what} must not be negative, got {value!r}")
    return dims + (1,) * (3 - len(dims))


class GLSLKernel:
    def __init__(self, source: str, *, defines: dict | None = None, name: str | None = None,
                 ctx: Context | None = None):
        if not isinstance(source, str):
            raise TypeError(f"glsl_kernel() takes GLSL source text, got {type(source).__name__}")
        self.source = source
        self.defines = dict(defines or {})
        self.name = name or "glsl_kernel"
        self._ctx = ctx
        # Compile now so errors point at the definition, not at the first launch.
        self.reflection = reflect(self.spirv())
        self.bindings = tuple(b.name for b in self.reflection.bindings)
        self.push_constants = {m.name: (m.dtype, m.count) for m in self.reflection.push_members}
        scalars_only = all(m.count == 1 for m in self.reflection.push_members)
        self._packer = push_struct(self.reflection, list(self.push_constants)) \
            if scalars_only else None
        self._pipelines: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def spirv(self, target_env: str = "vulkan1.2") -> bytes:
        return compile_glsl(self.source, target_env=target_env, defines=self.defines,
                            filename=self.name)

    @property
    def local_size(self) -> tuple[int, int, int]:
        return self.reflection.local_size

    def __repr__(self) -> str:
        return (f"GLSLKernel({self.name!r}, bindings={self.bindings}, "
                f"push_constants={list(self.push_constants)}, local_size={self.local_size})")

    def __getitem__(self, config) -> "_Launcher":
        # numba.cuda's convention: a pair is always (groups, local); `local` None keeps the
        # shader's own local size, so a 2-d grid alone is written k[(gx, gy), None].
        if isinstance(config, tuple) and len(config) == 2:
            groups, local = config
        else:
            groups, local = config, None
        return _Launcher(self, launch_dims(groups, "groups"),
                         None if local is None else launch_dims(local, "local size"))

    # ---- launching ---------------------------------------------------------------------
    def _pipeline(self, ctx: Context, local) -> Pipeline:
        core = ctx._core_alive()
        spec = {}
        if local is not None:
            ids = self.reflection.local_size_spec_ids
            for axis, (size, spec_id) in enumerate(zip(local, ids)):
                if spec_id is None and size != self.local_size[axis]:
                    raise VkPersistError(
                        f"{self.name}: the shader fixes local_size {self.local_size}; to choose "
                        "it at launch declare `layout(local_size_x_id = 0, ...) in;`")
                if spec_id is not None:
                    spec[spec_id] = size
            if np.prod(local) > ctx.info.max_workgroup_invocations:
                raise ValueError(f"{self.name}: local size {local} has {np.prod(local)} "
                                 "invocations; the device allows "
                                 f"{ctx.info.max_workgroup_invocations}")
        per_core = self._pipelines.setdefault(core, {})
        key = tuple(sorted(spec.items()))
        if key not in per_core:
            api = tuple(int(p) for p in ctx.info.vulkan_version.split(".")[:2])
            code = self.spirv("vulkan1.2" if api >= (1, 2) else "vulkan1.1")
            per_core[key] = Pipeline(core, code, self.reflection, spec, label=self.name)
        return per_core[key]

    def _pack_push(self, values: dict) -> bytes:
        """Pack by struct (fast); if it refuses, explain precisely which value is wrong."""
        if self._packer is not None and len(values) == len(self.push_constants):
            try:
                return self._packer.pack(*[values[n] for n in self.push_constants])
            except (KeyError, struct.error, TypeError):
                pass
        return self._pack_push_checked(values)

    def _pack_push_checked(self, values: dict) -> bytes:
        unknown = sorted(set(values) - set(self.push_constants))
        if unknown:
            raise TypeError(f"{self.name}: unknown push constant(s) {', '.join(unknown)}; the "
                            f"shader declares: {', '.join(self.push_constants) or 'none'}")
        missing = [n for n in self.push_constants if n not in values]
        if missing:
            raise TypeError(f"{self.name}: missing push constant(s) {', '.join(missing)}")
        out = bytearray(self.reflection.push_size)
        for m in self.reflection.push_members:
            what = f"{self.name}: push constant {m.name!r}"
            if m.count == 1:
                data = to_scalar(values[m.name], m.dtype, what)
            else:
                data = np.asarray(values[m.name])
                if data.size != m.count:
                    raise ValueError(f"{what} takes {m.count} values, got {data.size}")
                data = np.array([to_scalar(v, m.dtype, what) for v in data.reshape(-1)])
            raw = data.astype(m.dtype).tobytes()
            out[m.offset:m.offset + len(raw)] = raw
        return bytes(out)

    def _launch(self, groups, local, args, push_values) -> None:
        specs = self.reflection.bindings
        if len(args) != len(specs):
            names = ", ".join(self.bindings) or "none"
            raise TypeError(f"{self.name}: takes {len(specs)} array argument(s) ({names}) in "
                            f"binding order, got {len(args)}")
        ctx = next((a.ctx for a in args if isinstance(a, Array)), None) or self._ctx \
            or default_context()
        info = ctx.info
        for axis, (g, limit) in enumerate(zip(groups, info.max_workgroup_count)):
            if g > limit:
                raise ValueError(f"{self.name}: {g} workgroups on axis {axis} exceed the device "
                                 f"limit of {limit}")
        push = self._pack_push(push_values)
        arrays, copy_back = [], []
        for spec, arg in zip(specs, args):
            if isinstance(arg, Array):
                if arg.ctx is not ctx:
                    raise VkPersistError(f"{self.name}: argument {spec.name!r} belongs to another "
                                         "Context; all arrays of a launch share one")
                arg._check_alive()
                dev = arg
            elif isinstance(arg, np.ndarray):
                dev = ctx.asarray(arg)
                if not spec.readonly:
                    if not arg.flags.writeable:
                        raise ValueError(f"{self.name}: argument {spec.name!r} is written by the "
                                         "shader but the NumPy array is read-only")
                    copy_back.append((arg, dev))
            else:
                raise TypeError(f"{self.name}: argument {spec.name!r} must be a vkpersist Array "
                                f"or a NumPy array, not {type(arg).__name__}")
            arrays.append(dev)
        if 0 in groups:
            return
        pipeline = self._pipeline(ctx, local)
        buffers = [a.buffer for a in arrays]
        pipeline.launch(buffers, groups, push, (pipeline, *arrays))
        for host, dev in copy_back:
            host[...] = dev.numpy()


_STRUCT_CODES = {"i4": "i", "u4": "I", "f4": "f", "f8": "d", "i8": "q", "u8": "Q"}


def push_struct(reflection, names) -> struct.Struct | None:
    """A struct.Struct packing the push-constant members `names` (in block order; vectors
    and arrays as consecutive values), with the block's padding; None when a member is not
    a 32/64-bit number or the names are not the members in offset order."""
    members = {m.name: m for m in reflection.push_members}
    fmt, pos = "<", 0
    for name in names:
        m = members.get(name)
        code = _STRUCT_CODES.get(f"{m.dtype.kind}{m.dtype.itemsize}") if m else None
        if code is None or m.offset < pos:
            return None
        fmt += f"{m.offset - pos}x" if m.offset > pos else ""
        fmt += code * m.count
        pos = m.offset + m.dtype.itemsize * m.count
    fmt += f"{reflection.push_size - pos}x" if reflection.push_size > pos else ""
    return struct.Struct(fmt)


class _Launcher:
    __slots__ = ("kernel", "groups", "local")

    def __init__(self, kernel, groups, local):
        self.kernel, self.groups, self.local = kernel, groups, local

    def __call__(self, *arrays, **push):
        self.kernel._launch(self.groups, self.local, arrays, push)


def glsl_kernel(source: str, *, defines: dict | None = None, name: str | None = None,
                ctx: Context | None = None) -> GLSLKernel:
    """Compile a GLSL 450 compute shader into a launchable kernel (see the module docs)."""
    return GLSLKernel(source, defines=defines, name=name, ctx=ctx)
