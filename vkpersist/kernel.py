"""Per-launch kernels in the style of numba.cuda: @vkp.kernel, @vkp.func, launch plans.

    @vkp.kernel
    def saxpy(a: vkp.f32, x: vkp.Array[vkp.f32], y: vkp.Array[vkp.f32]):
        i = vkp.global_id(0)
        if i < x.shape[0]:
            y[i] = a * x[i] + y[i]

    saxpy[groups, local](2.0, x, y)      # numba.cuda's launch form
    saxpy.forall(n)(2.0, x, y)           # one invocation per element, local size 64

Parameters without annotations are specialised on the call's arguments (one compiled
kernel per signature, cached). Device Arrays are used in place and the launch is
asynchronous (`vkp.synchronize()` waits; reading a result waits); NumPy arrays are copied
to the device and the ones the kernel writes are copied back, which makes that launch wait.

A launch plan, cached per (context, argument signature, local size), holds the compiled
pipeline and a struct format for the push constants, so a repeated launch only packs the
scalars and submits a pre-recorded command buffer.
"""
from __future__ import annotations

import inspect
import struct

import numpy as np

from ._errors import CompileError, DeviceLimitError, VkPersistError
from .lang import types as T
from .lang.compiler import DeviceFunction, Unit
from .lang.glsl import LOOP_GUARD_LIMIT, Writer
from .vk.array import Array, to_scalar
from .vk.context import Context, default_context
from .vk.glsl_kernel import GLSLKernel, launch_dims, push_struct

_kernel_names: list[str] = []      # kernel id - 1 -> name, for loop-limit reports
DEFAULT_LOCAL = 64


def func(pyfunc) -> DeviceFunction:
    """Mark a function as a device function, callable from kernels and other @vkp.func."""
    return DeviceFunction(pyfunc)


def kernel(pyfunc=None):
    """Mark a function as a GPU kernel (see the module docs)."""
    if pyfunc is None:
        return kernel
    return Kernel(pyfunc)


def _annotation(kernel_name, name, ann):
    if ann is inspect.Parameter.empty:
        return None
    from .lang.frontend import resolve_type
    t = resolve_type(ann)
    if t is None:
        raise CompileError(f"{kernel_name}: parameter {name!r} has annotation {ann!r}, which is "
                           "not a kernel type (vkp.f32, vkp.Array[vkp.f32, 2], vkp.vec3, ...)")
    return t


def _type_of_value(value):
    t = getattr(value, "type", None)
    if isinstance(t, (T.ControlsType, T.SocketType)):   # a ControlBuffer or MemSock
        return t
    if isinstance(value, (Array, np.ndarray)):
        return T.ArrayType(T.scalar_of_dtype(value.dtype), value.ndim)
    if isinstance(value, (bool, np.bool_)):
        return T.bool_
    if isinstance(value, np.generic):
        return T.scalar_of_dtype(value.dtype)
    if isinstance(value, int):
        return T.i32 if -2**31 <= value < 2**31 else T.i64
    if isinstance(value, float):
        return T.f32
    return None


class Kernel:
    def __init__(self, pyfunc):
        self.pyfunc = pyfunc
        self.__name__ = pyfunc.__name__
        self.__doc__ = pyfunc.__doc__
        self.__wrapped__ = pyfunc
        try:
            sig = inspect.signature(pyfunc, eval_str=True)   # `from __future__ import annotations`
        except NameError as exc:
            raise CompileError(f"{pyfunc.__name__}: an annotation could not be evaluated: {exc}") from None
        self.param_names = list(sig.parameters)
        self.annotations = [_annotation(self.__name__, n, p.annotation)
                            for n, p in sig.parameters.items()]
        self._compiled: dict = {}       # (types, device key) -> _Compiled
        self._plans: dict = {}          # (core, signature, local) -> _Plan
        self.kernel_id = register_kernel_name(f"kernel {self.__name__!r}")

    def __repr__(self) -> str:
        return f"<vkp.kernel {self.__name__}>"

    def __call__(self, *args, **kwargs):
        raise TypeError(f"launch a kernel with a configuration: {self.__name__}[groups, local]"
                        f"(...) or {self.__name__}.forall(n)(...)")

    # ---- inspection ----------------------------------------------------------------------
    def _types_for(self, types) -> list:
        if len(types) != len(self.param_names):
            raise TypeError(f"{self.__name__} has {len(self.param_names)} parameters "
                            f"({', '.join(self.param_names)}), {len(types)} types given")
        out = []
        for name, ann, t in zip(self.param_names, self.annotations, types):
            t = ann if t is None else t
            if t in (T.ANY_CONTROLS, T.ANY_SOCKET):
                raise TypeError(f"{self.__name__}: parameter {name!r} is a ControlBuffer or "
                                "MemSock; pass its .type (ctrl.type, sock.type) to glsl()/spirv()")
            from .lang.frontend import resolve_type
            rt = resolve_type(t) if not isinstance(t, T.ArrayType) else t
            if rt is None:
                raise TypeError(f"{self.__name__}: parameter {name!r} needs a type "
                                f"(vkp.f32, vkp.Array[vkp.f32], ...), got {t!r}")
            out.append(rt)
        return out

    def glsl(self, *types, device=None) -> str:
        """The GLSL of this kernel for the given parameter types (annotations fill gaps).
        `device`: a Context or DeviceInfo to compile for (default: any device)."""
        if not types:
            types = (None,) * len(self.param_names)
        info = device.info if isinstance(device, Context) else device
        return self._compile(self._types_for(types), info).source

    def spirv(self, *types, device=None) -> bytes:
        if not types:
            types = (None,) * len(self.param_names)
        info = device.info if isinstance(device, Context) else device
        return self._compile(self._types_for(types), info).glsl_kernel.spirv()

    def _compile(self, types, info) -> "_Compiled":
        guard = bool(info is not None and info.is_lavapipe)
        key = (tuple(types), None if info is None else (info.index, info.name))
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = _Compiled(self, list(types), info, guard)
            self._compiled[key] = compiled
        return compiled

    # ---- launching ---------------------------------------------------------------------
    def __getitem__(self, config) -> "_Launcher":
        if not (isinstance(config, tuple) and len(config) == 2):
            raise TypeError(f"launch with {self.__name__}[groups, local](...) (numba.cuda style), "
                            f"or {self.__name__}.forall(n)(...); got [{config!r}]")
        groups, local = config
        return _Launcher(self, launch_dims(groups, "groups"), launch_dims(local, "local size"))

    def forall(self, n: int, local: int = DEFAULT_LOCAL) -> "_Launcher":
        """One invocation per index in range(n) along axis 0 (plus a few idle ones: guard
        with `if i < n`)."""
        if not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"forall(n): n must be a non-negative int, got {n!r}")
        return _Launcher(self, ((int(n) + local - 1) // local, 1, 1), (local, 1, 1))

    def _launch(self, groups, local, args):
        if len(args) != len(self.param_names):
            raise TypeError(f"{self.__name__}() takes {len(self.param_names)} arguments "
                            f"({', '.join(self.param_names)}), got {len(args)}")
        for a in args:
            if a.__class__ is Array or isinstance(getattr(a, "type", None),
                                                  (T.ControlsType, T.SocketType)):
                ctx = a.ctx
                break
        else:
            ctx = default_context()
        core = ctx._core
        if core.device is None:
            ctx._core_alive()                    # raises: the context is closed
        key = (core, local, *[_arg_key(a) for a in args])
        plan = self._plans.get(key)
        if plan is None:
            plan = _Plan(self, ctx, args, local)
            self._plans[key] = plan
        plan.launch(ctx, args, groups)


def _arg_key(a):
    """What of an argument decides its launch plan: kind, dtype and rank of arrays, the type
    of scalars (values are packed per launch)."""
    cls = a.__class__
    if cls is float or cls is int or cls is bool:
        return cls
    if cls is Array:
        return (cls, a.dtype, len(a.shape))
    if cls is np.ndarray:
        return (cls, a.dtype, a.ndim)
    if isinstance(a, np.generic):
        return a.dtype
    t = getattr(a, "type", None)
    return (cls, t) if isinstance(t, (T.ControlsType, T.SocketType)) else cls


class _Compiled:
    """One specialisation: GLSL source and its GLSLKernel (SPIR-V, reflection, pipelines)."""

    def __init__(self, kern: Kernel, types: list, info, loop_guard: bool):
        unit = Unit(info)
        binding = 0
        arrays = []
        for name, t in zip(kern.param_names, types):
            if isinstance(t, (T.ArrayType, T.ControlsType, T.SocketType)):
                arrays.append((name, t, binding))
                binding += 3 if isinstance(t, T.SocketType) else 1
        fn = unit.compile_kernel(kern.pyfunc, types)
        for var, (_, _, b) in zip(fn.array_params, arrays):
            var.binding = b
        writer = Writer(fn, unit, loop_guard=loop_guard, kernel_id=kern.kernel_id - 1)
        self.source = writer.module()
        self.loop_guard = loop_guard
        self.types = types
        self.push_fields = writer.push_fields
        self.array_params = fn.array_params
        try:
            self.glsl_kernel = GLSLKernel(self.source, name=kern.__name__)
        except CompileError as exc:     # a bug in vkpersist, not in the user's code
            raise VkPersistError(f"internal error: generated GLSL for {kern.__name__} did not "
                                 f"compile; please report it.\n{exc}\n--- GLSL ---\n"
                                 f"{self.source}") from None


class _Plan:
    """Everything a repeated launch with the same argument signature can reuse."""

    def __init__(self, kern: Kernel, ctx: Context, args, local):
        self.kern = kern
        info = ctx.info
        types = []
        for name, ann, a in zip(kern.param_names, kern.annotations, args):
            types.append(_param_type(kern.__name__, name, ann, a))
        self.types = types
        self.compiled = kern._compile(types, info)
        self.pipeline = self.compiled.glsl_kernel._pipeline(ctx, local)
        self.packer = push_struct(self.compiled.glsl_kernel.reflection,
                                  [name for name, _ in self.compiled.push_fields])
        if self.packer is None:
            raise VkPersistError(f"internal error: cannot pack the push constants of "
                                 f"{kern.__name__}; please report it")
        bound_types = (T.ArrayType, T.ControlsType, T.SocketType)
        self.scalar_slots = [i for i, t in enumerate(types) if not isinstance(t, bound_types)]
        self.vector_slots = {i for i, t in enumerate(types) if isinstance(t, T.Vector)}
        # (argument index, number of leading axes that are the array's shape)
        self.array_slots = [(i, getattr(t, "ndim", 0)) for i, t in enumerate(types)
                            if isinstance(t, bound_types)]
        written = {v.name for v in self.compiled.array_params if getattr(v, "written", False)}
        from .lang.frontend import glsl_name
        self.copy_back = {i for i, _ in self.array_slots
                          if glsl_name(kern.param_names[i]) in written}
        self.status = loop_status_array(ctx) if self.compiled.loop_guard else None

    def launch(self, ctx, args, groups):
        """The hot path: pack scalars and shapes, bind, submit. Conversions are left to
        struct.pack; only when it refuses a value is the slower, explaining check run."""
        if 0 in groups:
            return
        buffers = []
        shapes = []
        host_copies = None
        for i, ndim in self.array_slots:
            a = args[i]
            cls = a.__class__
            if cls is Array:
                if a.ctx is not ctx or not a.buffer.alive:
                    self._refuse_array(ctx, i, a)
                buffers.append(a.buffer)
                shapes += a.shape[:ndim]
            elif cls is np.ndarray:
                a, host_copies = self._from_numpy(ctx, i, a, host_copies)
                buffers.append(a.buffer)
                shapes += a.shape[:ndim]
            else:                                   # ControlBuffer, MemSock
                if a.ctx is not ctx:
                    self._refuse_array(ctx, i, a)
                bound, values = a._bind()
                buffers += bound
                shapes += values
        try:
            if self.vector_slots:
                values = []
                for i in self.scalar_slots:
                    if i in self.vector_slots:
                        values += list(np.asarray(args[i]).reshape(-1))
                    else:
                        values.append(args[i])
            else:
                values = [args[i] for i in self.scalar_slots]
            push = self.packer.pack(*values, *shapes)
        except (struct.error, TypeError, ValueError):
            self._explain_scalars(args, shapes)
            raise
        if self.status is not None:
            buffers.append(self.status.buffer)
        self.pipeline.launch(buffers, groups, push, (self.pipeline, buffers))
        if host_copies:
            for host, dev in host_copies:
                host[...] = dev.numpy()

    def _from_numpy(self, ctx, i, host, host_copies):
        dev = ctx.asarray(host)
        if i in self.copy_back:
            if not host.flags.writeable:
                raise ValueError(f"{self.kern.__name__}: the kernel writes "
                                 f"{self.kern.param_names[i]!r} but the NumPy array is read-only")
            host_copies = (host_copies or []) + [(host, dev)]
        return dev, host_copies

    def _refuse_array(self, ctx, i, a):
        name = f"{self.kern.__name__}: argument {self.kern.param_names[i]!r}"
        if a.ctx is not ctx:
            raise VkPersistError(f"{name} belongs to another Context; all arrays of a launch "
                                 "share one")
        a._check_alive()

    def _explain_scalars(self, args, shapes):
        kname = self.kern.__name__
        for i in self.scalar_slots:
            t = self.types[i]
            what = f"{kname}: parameter {self.kern.param_names[i]!r}"
            if isinstance(t, T.Vector):
                seq = np.asarray(args[i]).reshape(-1)
                if seq.size != t.n:
                    raise ValueError(f"{what} takes {t.n} values, got {seq.size}")
                for v in seq:
                    to_scalar(v, t.elem.dtype, what)
            else:
                to_scalar(args[i], T.arithmetic(t).dtype, what)
                if not isinstance(args[i], (bool, int, float, np.generic)):
                    raise TypeError(f"{what} takes a number, got {type(args[i]).__name__}")
        if any(n > 2**31 - 1 for n in shapes):
            raise VkPersistError(f"{kname}: an array has an axis longer than 2**31-1, which "
                                 "kernels cannot index")


def _param_type(kname, name, ann, value):
    """The kernel type of one argument, checked against the annotation."""
    vt = getattr(value, "type", None)
    if isinstance(vt, T.SocketType) or ann == T.ANY_SOCKET:
        if not isinstance(vt, T.SocketType):
            raise TypeError(f"{kname}: parameter {name!r} expects a MemSock, got "
                            f"{type(value).__name__}")
        if ann is not None and ann != T.ANY_SOCKET:
            raise TypeError(f"{kname}: parameter {name!r} is annotated {ann} but got a MemSock")
        return vt
    if isinstance(vt, T.ControlsType) or ann == T.ANY_CONTROLS:
        if not isinstance(vt, T.ControlsType):
            raise TypeError(f"{kname}: parameter {name!r} expects a ControlBuffer, got "
                            f"{type(value).__name__}")
        if ann is not None and ann != T.ANY_CONTROLS:
            raise TypeError(f"{kname}: parameter {name!r} is annotated {ann} but got a "
                            "ControlBuffer")
        return vt
    if isinstance(ann, T.ArrayType):
        if not isinstance(value, (Array, np.ndarray)):
            raise TypeError(f"{kname}: parameter {name!r} expects an array "
                            f"({ann}), got {type(value).__name__}")
        elem = ann.elem
        if isinstance(elem, T.Vector):
            want_dtype, ndim = elem.elem.dtype, value.ndim - 1
            if value.ndim < 2 or value.shape[-1] != elem.n:
                raise ValueError(f"{kname}: parameter {name!r} ({ann}) needs an array whose last "
                                 f"axis has {elem.n} components, got shape {value.shape}")
        else:
            want_dtype, ndim = elem.dtype, value.ndim
        if value.dtype != want_dtype:
            raise TypeError(f"{kname}: parameter {name!r} expects {want_dtype} elements, got a "
                            f"{value.dtype} array")
        if ann.ndim is not None and ndim != ann.ndim:
            raise ValueError(f"{kname}: parameter {name!r} expects a {ann.ndim}-d array, got "
                             f"{ndim}-d (shape {value.shape})")
        return T.ArrayType(elem, ndim)
    if ann is not None:
        if isinstance(value, (Array, np.ndarray)) and not isinstance(ann, T.Vector):
            raise TypeError(f"{kname}: parameter {name!r} is annotated {ann} but got an array")
        return ann
    t = _type_of_value(value)
    if t is None:
        raise TypeError(f"{kname}: cannot pass {type(value).__name__} as {name!r}; kernels take "
                        "arrays (vkpersist or NumPy) and numbers")
    return t


class _Launcher:
    __slots__ = ("kernel", "groups", "local")

    def __init__(self, kernel, groups, local):
        self.kernel, self.groups, self.local = kernel, groups, local

    def __call__(self, *args):
        self.kernel._launch(self.groups, self.local, args)


def register_kernel_name(name: str) -> int:
    """The id (from 1) a loop-guarded shader reports itself with when it hits the limit.
    One id per name: the id is part of the shader's source, and equal sources hit the
    compiled-shader cache (the report names the kernel, which is all the id is for)."""
    if name not in _kernel_names:
        _kernel_names.append(name)
    return _kernel_names.index(name) + 1


def loop_status_array(ctx) -> Array:
    """Per-context word where loop-guarded kernels (lavapipe) report hitting the loop limit."""
    status = getattr(ctx, "_loop_status", None)
    if status is None or not status.buffer.alive:
        status = ctx.zeros(4, np.uint32, memory="host")
        ctx._loop_status = status
        view = status.buffer.host_view().view(np.uint32)

        def check():
            culprit = int(view[0])
            if culprit:
                view[0] = 0
                name = _kernel_names[culprit - 1] if culprit <= len(_kernel_names) else "?"
                raise DeviceLimitError(
                    f"{name}: an invocation ran more than {LOOP_GUARD_LIMIT:,} loop "
                    f"iterations on {ctx.info.name}, which stops every loop after ~65,535 "
                    "iterations per invocation; its results would be silently truncated. "
                    "Spread the work over more invocations, or run on a GPU.")
        ctx._core.after_sync.append(check)
    return status
