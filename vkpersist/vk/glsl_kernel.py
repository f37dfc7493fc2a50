"""Raw GLSL compute kernels: for code already written in GLSL, and for reading what runs.

    k = vkp.lowlevel.glsl_kernel('''
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
and, unless the shader declares them readonly, back again; such launches wait. An array's
dtype must be its buffer's element type (an int32 array is no `float x[]`), push constants
follow the conversion rules of `to_scalar` (no 1.5 for an int, no 1e39 for a float).

On lavapipe, which silently stops every loop after ~65,535 iterations per invocation, the
shader's loops are instrumented so that running past that raises DeviceLimitError at the
next synchronize (see GLSLKernel's `loop_guard`).
"""
from __future__ import annotations

import operator
import re
import struct
import weakref

import numpy as np

from .._errors import CompileError, VkPersistError
from .array import Array, to_scalar
from .buffer import in_flight
from .context import Context, default_context
from .glslang import compile_glsl, preprocess
from .loop_guard import loop_status_array, register_kernel_name
from .pipeline import Pipeline
from .spirv import annotate, glsl_scalar_name, preserve_float_specials, reflect
from .target import LOOP_GUARD_LIMIT

_AXES = "xyz"


def launch_dims(value, what: str, name: str, least: int) -> tuple[int, int, int]:
    """`value`, an int or a tuple of 1-3 ints each at least `least`, as three dimensions.
    Checked before anything reaches the driver: a local size of 0 crashes lavapipe and
    loses a GPU; the device's own limits are checked when the pipeline is made (pipeline.py)."""
    items = value if isinstance(value, tuple) else (value,)
    shape = "an int or a tuple of 1-3 ints"
    if not 1 <= len(items) <= 3:
        raise ValueError(f"{name}: {what} must be {shape}, got {value!r}")
    dims = []
    for axis, v in enumerate(items):
        try:
            if isinstance(v, (bool, np.bool_)):
                raise TypeError
            d = operator.index(v)
        except TypeError:
            raise TypeError(f"{name}: {what} must be {shape}, got {value!r} "
                            f"({type(v).__name__} on axis {_AXES[axis]})") from None
        if d < least:
            valid = "0 (launch nothing) or more" if least == 0 else f"{least} or more"
            where = f"{value!r} has {d} on axis {_AXES[axis]}" if isinstance(value, tuple) \
                else f"is {d}"
            raise ValueError(f"{name}: {what} {where}; each axis takes {valid}, up to the "
                             "device's limit")
        dims.append(d)
    return tuple(dims) + (1,) * (3 - len(dims))


class GLSLKernel:
    """A compiled GLSL compute shader: `k[groups, local](arrays..., **push_constants)`.

    `loop_guard` (default True): lavapipe stops every loop of an invocation after ~65,535
    iterations in all and says nothing (VULKAN_FACTS.md §5), so on lavapipe each loop
    condition also counts towards that limit and a kernel that reaches it raises
    DeviceLimitError at the next synchronize instead of returning truncated results. False
    turns that off: only for a shader known to stay far below the limit, whose results
    would otherwise be silently wrong. `passes`: spirv-opt passes the module goes through
    before the driver gets it (vkpersist's own programs: Target.spirv_opt). `as_written`:
    every float operation is evaluated as written, never fused or reassociated, where the
    target says so (Target.float_as_written; vk/spirv.py `annotate`): for the GLSL
    vkpersist generates from Python, whose arithmetic is Python's; GLSL written by hand
    keeps GLSL's rules (`precise` where the order matters)."""

    def __init__(self, source: str, *, defines: dict | None = None, name: str | None = None,
                 ctx: Context | None = None, loop_guard: bool = True, passes: tuple = (),
                 as_written: bool = False):
        if not isinstance(source, str):
            raise TypeError(f"glsl_kernel() takes GLSL source text, got {type(source).__name__}")
        for knob, value in (("loop_guard", loop_guard), ("as_written", as_written)):
            if not isinstance(value, bool):
                raise TypeError(f"glsl_kernel({knob}=) takes True or False, got {value!r}")
        self.source = source
        self.defines = dict(defines or {})
        self.name = name or "glsl_kernel"
        self.loop_guard = loop_guard
        if isinstance(passes, str) or not all(isinstance(p, str) for p in passes):
            raise TypeError(f"GLSLKernel(passes=) takes a tuple of spirv-opt options such as "
                            f"('--ccp',), got {passes!r}")
        self.passes = tuple(passes)
        self.as_written = as_written
        self._ctx = ctx
        # Compile now so errors point at the definition, not at the first launch.
        self.reflection = reflect(self.spirv())
        self.bindings = tuple(b.name for b in self.reflection.bindings)
        self.push_constants = {m.name: (m.dtype, m.count) for m in self.reflection.push_members}
        scalars_only = all(m.count == 1 for m in self.reflection.push_members)
        self._packer = push_struct(self.reflection, list(self.push_constants)) \
            if scalars_only else None
        self._pipelines: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._guarded = None      # the loop-guarded variant, made on the first lavapipe launch

    def spirv(self, target_env: str = "vulkan1.2") -> bytes:
        return compile_glsl(self.source, target_env=target_env, defines=self.defines,
                            filename=self.name, passes=self.passes)

    @property
    def local_size(self) -> tuple[int, int, int]:
        return self.reflection.local_size

    def __repr__(self) -> str:
        return (f"vkpersist.lowlevel.GLSLKernel({self.name!r}, bindings={self.bindings}, "
                f"push_constants={list(self.push_constants)}, local_size={self.local_size})")

    def __getitem__(self, config) -> "_Launcher":
        # numba.cuda's convention: a pair is always (groups, local); `local` None keeps the
        # shader's own local size, so a 2-d grid alone is written k[(gx, gy), None].
        if isinstance(config, tuple) and len(config) == 2:
            groups, local = config
        else:
            groups, local = config, None
        return _Launcher(self, launch_dims(groups, "groups", self.name, 0),
                         None if local is None else launch_dims(local, "local size", self.name, 1))

    # ---- launching ---------------------------------------------------------------------
    def _pipeline(self, ctx: Context, local) -> Pipeline:
        """The pipeline of this exact source (no loop guard: callers that bind their own
        buffers, such as generated kernels, guard their loops themselves)."""
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
        per_core = self._pipelines.get(core)
        if per_core is None:
            per_core = self._pipelines[core] = {}
            mine = weakref.ref(self)       # weakly: the core would keep every kernel
            core.on_close.append(lambda: (k := mine()) is not None
                                 and k._pipelines.pop(core, None))
        as_written = self.as_written and ctx.target.float_as_written
        key = (tuple(sorted(spec.items())), as_written)
        if key not in per_core:
            api = tuple(int(p) for p in ctx.info.vulkan_version.split(".")[:2])
            code = self.spirv("vulkan1.2" if api >= (1, 2) else "vulkan1.1")
            code = preserve_float_specials(code, ctx.target.float_preserve)
            code = annotate(code, as_written=as_written)
            per_core[key] = Pipeline(core, code, self.reflection, spec, label=self.name)
        return per_core[key]

    def _loop_guarded(self) -> "GLSLKernel":
        """This shader with every loop condition counting towards lavapipe's loop limit
        (self when it has no loop). The report goes through the loop-status word that
        generated kernels use (kernel.py), so one check at synchronize covers both."""
        if self._guarded is None:
            binding = max((b.binding for b in self.reflection.bindings), default=-1) + 1
            text = guard_loops(preprocess(self.source, defines=self.defines, filename=self.name),
                               binding, register_kernel_name(f"glsl_kernel {self.name!r}"))
            if text is None:
                self._guarded = self
            else:
                try:
                    self._guarded = GLSLKernel(text, name=self.name, ctx=self._ctx,
                                               loop_guard=False, passes=self.passes,
                                               as_written=self.as_written)
                except CompileError as exc:
                    raise VkPersistError(
                        f"{self.name}: vkpersist could not add its loop-limit check to this "
                        "shader's loops (does it declare _vkp_ names of its own?). Rename "
                        "them, or pass loop_guard=False if the shader stays far below "
                        "lavapipe's ~65,535 loop iterations per invocation (beyond them its "
                        f"results are silently truncated).\n{exc}") from None
        return self._guarded

    def _pack_push(self, values: dict) -> bytes:
        """Pack by struct (fast); if it refuses, explain precisely which value is wrong."""
        if self._packer is not None and len(values) == len(self.push_constants):
            try:
                return self._packer.pack(*[values[n] for n in self.push_constants])
            except (KeyError, struct.error, TypeError, ValueError, OverflowError):
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
                data = np.array([to_scalar(v, m.dtype, what) for v in data.reshape(-1).tolist()])
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
        push = self._pack_push(push_values)
        for spec, arg in zip(specs, args):
            if not isinstance(arg, (Array, np.ndarray)):
                raise TypeError(f"{self.name}: argument {spec.name!r} must be a vkpersist Array "
                                f"or a NumPy array, not {type(arg).__name__}")
            _check_element_type(self.name, spec, arg.dtype)
        arrays, copy_back = [], []
        for spec, arg in zip(specs, args):
            if isinstance(arg, Array):
                if arg.ctx is not ctx:
                    raise VkPersistError(f"{self.name}: argument {spec.name!r} belongs to another "
                                         "Context; all arrays of a launch share one")
                arg._check_alive()
                arg._require_plain(f"{self.name}: argument {spec.name!r} (a raw GLSL kernel)")
                dev = arg
            else:
                dev = ctx.asarray(arg)
                if not spec.readonly:
                    if not arg.flags.writeable:
                        raise ValueError(f"{self.name}: argument {spec.name!r} is written by the "
                                         "shader but the NumPy array is read-only")
                    copy_back.append((arg, dev))
            arrays.append(dev)
        if 0 in groups:
            return
        kernel = self._loop_guarded() if self.loop_guard and ctx.target.loop_guard else self
        pipeline = kernel._pipeline(ctx, local)
        buffers = [a.buffer for a in arrays]
        if kernel is not self:
            buffers.append(loop_status_array(ctx).buffer)
        pipeline.launch(buffers, groups, push, (pipeline, *[in_flight(a) for a in arrays]))
        for host, dev in copy_back:
            host[...] = dev.numpy()


def _check_element_type(name: str, spec, dtype: np.dtype) -> None:
    """A buffer's elements are read as the shader declares them: an int32 array bound to
    `float x[]` would give garbage floats, so the element types must agree."""
    want = spec.dtype
    if want is None or (dtype.kind, dtype.itemsize) == (want.kind, want.itemsize):
        return
    theirs = glsl_scalar_name(dtype)
    hint = f"declare the buffer's elements as {theirs}" if theirs else \
        "no GLSL type stores NumPy bools (use uint8 or uint32 arrays)"
    raise TypeError(f"{name}: argument {spec.name!r} (binding {spec.binding}) is a buffer of "
                    f"{glsl_scalar_name(want)} elements ({want}), got a {dtype} array; convert "
                    f"it (.astype(np.{want})) or {hint}")


_LOOP_HEAD = re.compile(r"\b(for|while)\s*\(")
_DIRECTIVE = re.compile(r"^[ \t]*#.*$", re.M)
_DECLARATION = re.compile(r"\s*(?:[A-Za-z_]\w*\s+)+[A-Za-z_]\w*\s*=(?!=)")


def guard_loops(source: str, binding: int, kernel_id: int) -> str | None:
    """Preprocessed GLSL with every `for` and `while` condition (a do-while's too) first
    calling a guard that counts the invocation's loop iterations and reports `kernel_id`
    in the loop-status word once they reach the limit; None when there is no loop.

    The conditions are instrumented, not the bodies, so bodies without braces need no
    parsing; nothing adds a line, so compiler messages keep the source's line numbers."""
    scan = _DIRECTIVE.sub(lambda m: " " * len(m.group()), source)   # #pragma/#line text
    out, pos = [], 0
    for m in _LOOP_HEAD.finditer(scan):     # the source compiled: each is a loop header
        open_at = m.end() - 1
        close_at, cuts = _matching_paren(scan, open_at)
        if m.group(1) == "for":
            begin, end = cuts               # for (init; cond; step)
        else:
            begin, end = open_at, close_at
        cond = source[begin + 1:end]
        decl = _DECLARATION.match(cond)     # `while (bool go = ...)`: guard the initialiser
        if decl:
            begin += decl.end()
            cond = cond[decl.end():]
        out += [source[pos:begin + 1],
                f" _vkp_loop_guard() && ({cond})" if cond.strip() else " _vkp_loop_guard()"]
        pos = end
    if not out:
        return None
    text = "".join(out) + source[pos:]
    at = re.search(r"\S", _DIRECTIVE.sub(lambda m: " " * len(m.group()), text)).start()
    decls = (f"layout(std430, set = 0, binding = {binding}) buffer VkpStatus "
             "{ uint _vkp_status[]; }; uint _vkp_iterations = 0u; "
             f"bool _vkp_loop_guard() {{ if (++_vkp_iterations == {LOOP_GUARD_LIMIT}u) "
             f"atomicCompSwap(_vkp_status[0], 0u, {kernel_id}u); return true; }} ")
    return text[:at] + decls + text[at:]


def _matching_paren(text: str, open_at: int) -> tuple[int, list[int]]:
    """The index of the `)` closing text[open_at] and of the `;` at its top level."""
    depth, cuts = 0, []
    for i in range(open_at, len(text)):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i, cuts
        elif c == ";" and depth == 1:
            cuts.append(i)
    return len(text), cuts


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
                ctx: Context | None = None, loop_guard: bool = True,
                as_written: bool = False) -> GLSLKernel:
    """Compile a GLSL 450 compute shader into a launchable kernel (see the module docs;
    `loop_guard`, `as_written`: see GLSLKernel; as_written=True computes what the same
    arithmetic generated from Python computes, bit for bit)."""
    return GLSLKernel(source, defines=defines, name=name, ctx=ctx, loop_guard=loop_guard,
                      as_written=as_written)
