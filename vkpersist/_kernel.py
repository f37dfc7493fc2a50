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
import weakref

import numpy as np

from ._errors import CompileError, UnsupportedError, VkPersistError, internal_error, user_frames_only
from .lang import ir
from .lang import types as T
from .lang.compiler import DeviceFunction, Unit
from .lang.source import glsl_name
from .lang.bounds import BoundsChecks, bounds_record, debug_default
from .lang.glsl import Writer, compile_generated
from .vk.array import Array, to_scalar
from .vk.buffer import in_flight
from .vk.context import Context, default_context
from .vk.glsl_kernel import launch_dims, push_struct
from .vk.loop_guard import loop_status_array, register_kernel_name
from ._kernel_print import print_buffer
from .vk.target import target_of

DEFAULT_LOCAL = 64
FORALL_LOCAL = {1: DEFAULT_LOCAL, 2: (8, 8), 3: (4, 4, 4)}   # 64 invocations


def func(pyfunc) -> DeviceFunction:
    """Mark a function as a device function, callable from kernels and other @vkp.func."""
    return DeviceFunction(pyfunc)


def kernel(pyfunc=None, *, debug: bool | None = None):
    """Mark a function as a GPU kernel (see the module docs). `debug=True` checks every
    array index on the device and raises vkp.BoundsError at the first one out of range,
    with its Python line (numba's boundscheck; default: the VKPERSIST_DEBUG variable);
    each launch then waits for its result."""
    if pyfunc is None:
        return lambda fn: kernel(fn, debug=debug)
    return Kernel(pyfunc, debug=debug)


def _annotation(kernel_name, name, ann):
    if ann is inspect.Parameter.empty:
        return None
    t = T.resolve_type(ann)
    if t is None:
        raise CompileError(f"{kernel_name}: parameter {name!r} has annotation {ann!r}, which is "
                           "not a kernel type (vkp.f32, vkp.Array[vkp.f32, 2], vkp.vec3, ...)")
    return t


def _type_of_value(value):
    t = getattr(value, "type", None)
    if isinstance(t, (T.ControlsType, T.SocketType)):   # a ControlBuffer or MemSock
        return t
    if isinstance(value, Array):
        return T.ArrayType(T.value_type_of_dtype(value.dtype), value.ndim, not value._plain)
    if isinstance(value, np.ndarray):
        return T.ArrayType(T.value_type_of_dtype(value.dtype), value.ndim)
    if isinstance(value, (bool, np.bool_)):
        return T.bool_
    if isinstance(value, np.generic):
        return T.value_type_of_dtype(value.dtype)
    if isinstance(value, int):
        return T.i32 if -2**31 <= value < 2**31 else T.i64
    if isinstance(value, float):
        return T.f32
    if isinstance(value, complex):
        return T.c64
    return None


class Kernel:
    def __init__(self, pyfunc, *, debug: bool | None = None):
        if debug is not None and not isinstance(debug, bool):
            raise TypeError(f"@vkp.kernel(debug=...) takes True or False, got {debug!r}")
        self.pyfunc = pyfunc
        self.debug = debug          # None: VKPERSIST_DEBUG decides, at compile time
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

        self.kernel_id = register_kernel_name(f"kernel {self.__name__!r}")

    def __repr__(self) -> str:
        return f"<vkpersist.kernel {self.__name__}>"

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
            rt = T.resolve_type(t) if not isinstance(t, T.ArrayType) else t
            if rt is None:
                raise TypeError(f"{self.__name__}: parameter {name!r} needs a type "
                                f"(vkp.f32, vkp.Array[vkp.f32], ...), got {t!r}")
            out.append(rt)
        return out

    @user_frames_only
    def glsl(self, *types, device=None) -> str:
        """The GLSL of this kernel for the given parameter types (annotations fill gaps).
        `device`: a Context, DeviceInfo or Target to compile for (default: any device)."""
        if not types:
            types = (None,) * len(self.param_names)
        return self._compile(self._types_for(types), target_of(device)).source

    @user_frames_only
    def spirv(self, *types, device=None) -> bytes:
        if not types:
            types = (None,) * len(self.param_names)
        return self._compile(self._types_for(types), target_of(device)).glsl_kernel.spirv()

    def _compile(self, types, target, dynamic_shared: int = 0,
                 forall: bool = False) -> "_Compiled":
        debug = debug_default() if self.debug is None else self.debug
        key = (tuple(types), target, dynamic_shared, debug, forall)
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = _Compiled(self, list(types), target, dynamic_shared, debug, forall)
            self._compiled[key] = compiled
        return compiled

    # ---- launching ---------------------------------------------------------------------
    def __getitem__(self, config) -> "_Launcher":
        if not (isinstance(config, tuple) and len(config) == 2):
            raise TypeError(f"launch with {self.__name__}[groups, local](...) (numba.cuda style), "
                            f"or {self.__name__}.forall(n)(...); got [{config!r}]")
        groups, local = config
        if groups.__class__ is int and local.__class__ is int and groups >= 0 and local >= 1:
            # the common `k[g, l]`: launch_dims's checks and tuple building were a quarter
            # of a launch's Python time (cProfile of benchmarks/launch_overhead.py's loop)
            return _Launcher(self, (groups, 1, 1), (local, 1, 1))
        return _Launcher(self, launch_dims(groups, "groups", self.__name__, 0),
                         launch_dims(local, "local size", self.__name__, 1))

    def forall(self, n, local=None) -> "_Launcher":
        """One invocation per index of `n`: an int (along axis 0) or a shape of 1-3 ints
        (`global_id(0)`, `global_id(1)`, `global_id(2)` run over its axes, like the
        domains of program stages). The workgroups cover the shape rounded up to the local
        size; the invocations beyond it return at once, so the kernel needs no guard,
        except a kernel with barrier(), shared arrays or a memsock commit(), where every
        invocation of a workgroup must run (it guards with `if i < n` itself). `local`:
        invocations per workgroup, an int for a 1-d shape or a tuple of the shape's rank
        (default: 64, (8, 8), (4, 4, 4))."""
        shape = n if isinstance(n, tuple) else (n,)
        if not 1 <= len(shape) <= 3:
            raise ValueError(f"{self.__name__}.forall(n): n is an int or a shape of 1-3 ints, "
                             f"got {n!r}")
        for v in shape:
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"{self.__name__}.forall(n): n is the number of invocations, "
                                f"an int, got {type(v).__name__} {v!r} (or a shape of 1-3 "
                                "ints, one invocation per index)")
            if v < 0:
                raise ValueError(f"{self.__name__}.forall(n): n must not be negative, got {n}")
        rank = len(shape)
        if local is None:
            local = FORALL_LOCAL[rank]
        if rank == 1 and isinstance(local, tuple):
            raise TypeError(f"{self.__name__}.forall(n, local): local is one int (forall runs "
                            f"along axis 0), got {local!r}; for more axes pass n as a "
                            f"shape, or use {self.__name__}[groups, local]")
        if isinstance(local, tuple) and len(local) != rank:
            raise TypeError(f"{self.__name__}.forall(n, local): local takes one int per axis "
                            f"of n ({rank} for {n!r}), got {local!r}")
        if rank > 1 and not isinstance(local, tuple):
            raise TypeError(f"{self.__name__}.forall(n, local): n has {rank} axes, so local is "
                            f"a tuple of {rank} ints (e.g. {FORALL_LOCAL[rank]}), got {local!r}")
        local = launch_dims(local, "local size", self.__name__, 1)
        for axis, v in enumerate(shape):
            if v > 2**31 - 1:
                raise ValueError(f"{self.__name__}.forall(n): {v:,} invocations on axis {axis} "
                                 "are more than a kernel's index (a 32-bit int) reaches, "
                                 "2**31-1; split the launch")
        full = tuple(int(v) for v in shape) + (1,) * (3 - rank)
        groups = tuple((v + l - 1) // l for v, l in zip(full, local))
        return _Launcher(self, groups, local, bounds=full)

    def _plan(self, local, args, dynamic_shared, bounded):
        """(context, launch plan) of a launch with these arguments; None for the plan when
        it does not exist yet (the caller compiles it: `_new_plan`). The launch hot path."""
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
        key = (local, dynamic_shared, bounded, *[_arg_key(a) for a in args])
        return ctx, key, self._plans_on(ctx).get(key)

    def _plans_on(self, ctx) -> dict:
        """This kernel's launch plans on `ctx`: kept on the context (they hold its
        arrays: on the kernel they kept every dropped Context alive) and weakly keyed by
        the kernel (a dropped program's stages go with their plans)."""
        tables = ctx._caches.get("launch plans")
        if tables is None:
            tables = ctx._caches["launch plans"] = weakref.WeakKeyDictionary()
        plans = tables.get(self)
        if plans is None:
            plans = tables[self] = {}
        return plans

    def _new_plan(self, ctx, key, local, args, dynamic_shared, bounded):
        plan = _Plan(self, ctx, args, local, dynamic_shared, bounded)
        self._plans_on(ctx)[key] = plan             # (signature, local) -> _Plan
        return plan


def _arg_key(a):
    """What of an argument decides its launch plan: kind, dtype and rank of arrays, the type
    of scalars (values are packed per launch)."""
    cls = a.__class__
    if cls is float or cls is int or cls is bool:
        return cls
    if cls is Array:
        return (cls, a.dtype, len(a.shape), a._plain)
    if cls is np.ndarray:
        return (cls, a.dtype, a.ndim)
    if isinstance(a, np.generic):
        return a.dtype
    t = getattr(a, "type", None)
    return (cls, t) if isinstance(t, (T.ControlsType, T.SocketType)) else cls


class _Compiled:
    """One specialisation: GLSL source and its GLSLKernel (SPIR-V, reflection, pipelines)."""

    def __init__(self, kern: Kernel, types: list, target, dynamic_shared: int = 0,
                 debug: bool = False, forall: bool = False):
        unit = Unit(target)
        unit.dynamic_shared = dynamic_shared     # bytes for shared.array(0, ...) (vkp.cuda)
        unit.debug = self.debug = debug
        fn = unit.compile_kernel(kern.pyfunc, types)
        # device arrays read from the kernel's globals: bound after its parameters
        self.captured = [a for _, a in unit.captured_arrays.values()]
        fn.array_params = fn.array_params + [v for v, _ in unit.captured_arrays.values()]
        ir.assign_bindings(fn.array_params)      # in parameter order, as launches bind them
        writer = (ForallWriter if forall else KernelWriter)(fn, unit, kernel_id=kern.kernel_id)
        self.source = writer.module()
        self.loop_guard = target.loop_guard
        self.uses_print = unit.uses_print       # binds the context's print buffer last
        self.types = types
        self.push_fields = writer.push_fields
        self.array_params = fn.array_params
        self.glsl_kernel = compile_generated(self.source, kern.__name__)


class KernelWriter(BoundsChecks, Writer):
    """A kernel's GLSL, with debug mode's bounds checks where the unit asks for them."""


class ForallWriter(KernelWriter):
    """A kernel's forall variant: invocations beyond the launch's shape (push constants
    _vkp_forall0..2, after the parameters) return at once, unless the kernel needs every
    invocation of its workgroups (barrier(), shared arrays, a memsock's commit()); then
    it guards itself."""
    guarded = False

    def function(self, fn: ir.Function) -> None:
        start = len(self.lines)
        super().function(fn)
        if not fn.is_kernel or self.uses_barrier or self.unit.shared_arrays or any(
                isinstance(v.type, T.SocketType) for v in fn.array_params):
            return
        self.guarded = True
        fn.params = fn.params + [ir.Var(f"_vkp_forall{a}", T.u32, "scalar_param")
                                 for a in range(3)]
        top = self.lines.index("void main() {", start) + 1
        self.lines.insert(top, "    if (gl_GlobalInvocationID.x >= _vkp_forall0 || "
                          "gl_GlobalInvocationID.y >= _vkp_forall1 || "
                          "gl_GlobalInvocationID.z >= _vkp_forall2) return;   "
                          "// forall: beyond the shape")


class _Plan:
    """Everything a repeated launch with the same argument signature can reuse."""

    def __init__(self, kern: Kernel, ctx: Context, args, local, dynamic_shared=0,
                 forall: bool = False):
        # the kernel's names only (for errors): a plan is kept per context, weakly keyed by
        # its kernel, and must not keep the kernel (and a program's stages) alive
        self.name, self.param_names = kern.__name__, kern.param_names
        types = []
        for name, ann, a in zip(kern.param_names, kern.annotations, args):
            types.append(_param_type(kern.__name__, name, ann, a))
        self.types = types
        self.compiled = kern._compile(types, ctx.target, dynamic_shared, forall)
        # the forall variant's shape, when the kernel took the guard (Writer.forall_guard)
        self.bounded = any(name == "_vkp_forall0" for name, _ in self.compiled.push_fields)
        self.pipeline = self.compiled.glsl_kernel._pipeline(ctx, local)
        self.packer = push_struct(self.compiled.glsl_kernel.reflection,
                                  [name for name, _ in self.compiled.push_fields])
        if self.packer is None:
            raise internal_error(f"cannot pack the push constants of {kern.__name__}")
        bound_types = (T.ArrayType, T.ControlsType, T.SocketType)
        self.scalar_slots = [i for i, t in enumerate(types) if not isinstance(t, bound_types)]
        self.vector_slots = {i for i, t in enumerate(types) if isinstance(t, T.Vector)}
        # (argument index, number of leading axes that are the array's shape, whether its
        # element offset and strides follow: a view, see ArrayType.strided)
        self.array_slots = [(i, getattr(t, "ndim", 0), getattr(t, "strided", False))
                            for i, t in enumerate(types) if isinstance(t, bound_types)]
        # a launch that binds a channel is watched through memory (a frame, a status word),
        # not through the queue: it goes out at once instead of waiting for later launches
        # (vk/deferral.py), or a reader spinning on its frame would wait for the flusher
        self.defer = not any(isinstance(t, (T.ControlsType, T.SocketType)) for t in types)
        written = {v.name for v in self.compiled.array_params if v.written}
        self.copy_back = {i for i, _, _ in self.array_slots
                          if glsl_name(kern.param_names[i]) in written}
        # device arrays the kernel read from its globals: bound like array arguments after
        # the real ones (launch appends them to the arguments)
        self.captured = tuple(self.compiled.captured)
        self.array_slots += [(len(types) + k, a.ndim, not a._plain)
                             for k, a in enumerate(self.captured)]
        self.printer = print_buffer(ctx) if self.compiled.uses_print else None
        self.max_range = ctx.info.max_storage_buffer_range
        self.status = loop_status_array(ctx) if self.compiled.loop_guard else None
        self.bounds = bounds_record(ctx) if self.compiled.debug else None

    def launch(self, ctx, args, groups, bounds=None):
        """The hot path: pack scalars and shapes, bind, submit. Conversions are left to
        struct.pack; only when it refuses a value is the slower, explaining check run."""
        if 0 in groups:
            return
        buffers = []
        shapes = []
        host_copies = None
        if self.captured:
            args = (*args, *self.captured)
        for i, ndim, strided in self.array_slots:
            a = args[i]
            cls = a.__class__
            if cls is Array:
                if a.ctx is not ctx or not a.buffer.alive:
                    self._refuse_array(ctx, i, a)
                if a.buffer.size <= self.max_range:
                    buffers.append(a.buffer)
                    offset = a._offset
                else:           # more than the device binds: the window around the view
                    window, offset = a._window(self.max_range)
                    buffers.append(window)
                shapes += a.shape[:ndim]
                if strided:
                    shapes.append(offset)
                    shapes += a._estrides[:ndim]
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
        if self.bounded:                    # forall's shape: after the scalars, first
            shapes = [*bounds, *shapes]
        try:
            if self.vector_slots:
                values = []
                for i in self.scalar_slots:
                    if i in self.vector_slots:
                        values += _components(args[i])
                    else:
                        values.append(args[i])
            else:
                values = [args[i] for i in self.scalar_slots]
            push = self.packer.pack(*values, *shapes)
        except (struct.error, TypeError, ValueError, OverflowError):
            push = self._pack_checked(args, shapes)
        if self.status is not None:
            buffers.append(self.status.buffer)
        if self.bounds is not None:
            buffers.append(self.bounds.buffer)
        if self.printer is not None:      # bound after the debug record, as the GLSL declares
            buffers.append(self.printer.buffer)
        self.pipeline.launch(buffers, groups, push,
                             (self.pipeline, [in_flight(b) for b in buffers]),
                             defer=self.defer)
        if self.bounds is not None:       # debug: raise at the launch that went out of range
            ctx.synchronize()
        if host_copies:
            for host, dev in host_copies:
                host[...] = dev.numpy()

    def _from_numpy(self, ctx, i, host, host_copies):
        dev = ctx.asarray(host)
        if i in self.copy_back:
            if not host.flags.writeable:
                raise ValueError(f"{self.name}: the kernel writes "
                                 f"{self.param_names[i]!r} but the NumPy array is read-only")
            host_copies = (host_copies or []) + [(host, dev)]
        return dev, host_copies

    def _refuse_array(self, ctx, i, a):
        params = self.param_names
        if i < len(params):
            name = f"{self.name}: argument {params[i]!r}"
            if a.ctx is not ctx:
                raise VkPersistError(f"{name} belongs to another Context; all arrays of a "
                                     "launch share one")
            a._check_alive()
            return
        name = f"{self.name}: the device array it reads from its globals ({a!r})"
        if a.ctx is not ctx:
            raise VkPersistError(f"{name} belongs to another Context than this launch's "
                                 "arrays; pass it as an argument, or make it on that Context")
        try:
            a._check_alive()
        except VkPersistError as exc:
            raise VkPersistError(f"{name}: {exc}") from None

    def _pack_checked(self, args, shapes) -> bytes:
        """The push constants by the rules of to_scalar, for the values struct refused:
        either an error naming the kernel, the parameter and what it takes (1.5 for an i32,
        1e39 for an f32), or an exact conversion struct does not make (2.0 for an i32)."""
        kname = self.name
        values = []
        for i in self.scalar_slots:
            t = self.types[i]
            what = f"{kname}: parameter {self.param_names[i]!r}"
            if isinstance(t, T.Complex):
                z = complex(args[i])        # TypeError for what is no number, as a float's
                values += [to_scalar(v, t.elem.dtype, what).item() for v in (z.real, z.imag)]
            elif isinstance(t, T.Vector):
                seq = np.asarray(args[i]).reshape(-1)
                if seq.size != t.n:
                    raise ValueError(f"{what} takes {t.n} values, got {seq.size}")
                values += [to_scalar(v, t.elem.dtype, what).item() for v in seq.tolist()]
            else:
                values.append(to_scalar(args[i], T.arithmetic(t).dtype, what).item())
        if any(n > 2**31 - 1 for n in shapes):
            raise VkPersistError(f"{kname}: an array has an axis longer than 2**31-1, which "
                                 "kernels cannot index")
        return self.packer.pack(*values, *shapes)


def _components(value) -> list:
    """A vector or complex argument as the numbers its push constant holds."""
    arr = np.asarray(value)
    if arr.dtype.kind == "c":
        arr = np.stack([arr.real, arr.imag], axis=-1)
    return list(arr.reshape(-1))


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
        strided = isinstance(value, Array) and not value._plain
        if isinstance(elem, T.Complex):
            want_dtype, ndim = elem.dtype, value.ndim
        elif isinstance(elem, T.Vector):
            if strided:
                raise UnsupportedError(f"{kname}: parameter {name!r} ({ann}) takes a whole "
                                       "array of vectors, and this is a strided view; pass "
                                       "view.copy() (a contiguous copy)")
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
        return T.ArrayType(elem, ndim, strided)
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
    __slots__ = ("kernel", "groups", "local", "dynamic_shared", "bounds")

    def __init__(self, kernel, groups, local, dynamic_shared=0, bounds=None):
        self.kernel, self.groups, self.local = kernel, groups, local
        self.dynamic_shared = dynamic_shared
        self.bounds = bounds     # forall's shape: invocations beyond it do not run

    def __call__(self, *args):
        """The launch hot path (~11 µs of Python on the H200 before this was one frame
        less); a CompileError leaves it with this frame only, as user_frames_only does."""
        __tracebackhide__ = True          # noqa: F841  (pytest hides this frame)
        bounds = self.bounds
        kernel = self.kernel
        ctx, key, plan = kernel._plan(self.local, args, self.dynamic_shared, bounds is not None)
        if plan is None:               # the first launch of these types: compiles
            try:
                plan = kernel._new_plan(ctx, key, self.local, args, self.dynamic_shared,
                                        bounds is not None)
            except CompileError as exc:
                raise exc.with_traceback(None)
        plan.launch(ctx, args, self.groups, bounds)
