"""Typed IR -> readable GLSL 450.

Layout of a generated shader:
  - local size from specialisation constants 0, 1, 2, so `k[groups, local]` never recompiles;
  - one push-constant block with the scalar parameters, then every array's shape;
  - one std430 storage buffer per array parameter, named after the parameter (vec3 arrays
    are stored as packed floats, since std430 pads vec3 to 16 bytes);
  - helper functions for Python semantics (floor division, modulo, powers) only when used;
  - device functions (callees first), then main().
Locals keep their Python names and every statement carries a `// file.py:LINE` comment when
the source line changes. With `loop_guard`, each loop iteration counts towards lavapipe's
per-invocation loop limit and the kernel reports when it would be cut short.
"""
from __future__ import annotations

import math
import os

from . import builtins as B
from . import ir
from . import mathlib
from . import types as T
from .glsl_control import ControlFlow
from .glsl_literals import HELPERS as _HELPERS, bare as _bare, const_init as _const_init, \
    glsl_type, literal as _literal

from .._errors import CompileError, internal_error
from ..vk.glsl_kernel import GLSLKernel

_CHANNELS: dict = {}      # IR type class -> the GPU side of that channel


def readonly_alias(name: str) -> str:
    """The name of array `name` declared a second time, readonly, on the same binding: no
    Python name becomes a GLSL name beginning with _vkp (lang/source.py: glsl_name)."""
    return f"_vkp_ro_{name}"


def register_channel(type_cls, glsl) -> None:
    """Channels (ControlBuffer, MemSock) bring their own GPU side: `glsl.declare(writer,
    var)` for their buffers and one method per operation the builtin registry names
    (builtins.py), each `(writer, ir.Intrinsic) -> GLSL`. They live beside the host side of
    the same protocol and register here, since this module cannot import them."""
    _CHANNELS[type_cls] = glsl


def compile_generated(source: str, label: str, passes: tuple = ()) -> GLSLKernel:
    """GLSL this module wrote, compiled (then through spirv-opt's `passes`): a failure is a
    bug in vkpersist, never in the user's code, and says so with the source attached. Its
    float arithmetic is evaluated as written (Target.float_as_written)."""
    try:
        return GLSLKernel(source, name=label, passes=passes, as_written=True)
    except CompileError as exc:
        raise internal_error(f"the generated GLSL of {label} did not compile"
                             + (" (or spirv-opt failed on it)" if passes else ""),
                             f"{exc}\n--- GLSL ---\n{source}") from None


class Writer(ControlFlow):
    def __init__(self, kernel: ir.Function, unit, *, kernel_id: int = 0):
        self.kernel = kernel
        self.unit = unit
        self.loop_guard = unit.target.loop_guard
        self.kernel_id = kernel_id
        self.helpers: dict[str, str] = {}
        self.lines: list[str] = []
        self.indent = 0
        self.pre: list[str] | None = None
        self.temp_count = 0
        self.last_line = None
        self.push_fields: list[tuple[str, object]] = []   # (glsl name, type) in block order
        self.globals: list[str] = []     # extra global declarations (program schedulers)
        self.array_params = kernel.array_params
        # control words use the Vulkan memory model's acquire/release atomics where the
        # target has it, else atomicAdd(x, 0) / atomicExchange (VULKAN_FACTS.md §1)
        self.memory_model = unit.target.memory_model
        # written arrays that the megakernel synchronises at its grid barriers: `nonprivate`
        # under the Vulkan memory model (set by its writer), else `coherent`
        self.vulkan_memory_model = False
        self.uses_barrier = False     # vkp.barrier(): needs GL_KHR_memory_scope_semantics
        self.global_names = {v.name for v in kernel.array_params} | \
            {v.name for v in unit.shared_arrays} | {v.name for v in unit.const_arrays.values()}
        # names the generated code itself uses inside functions (a program's frame words)
        self.reserved_names: set[str] = set()
        # per function, the written arrays it loads through a readonly alias (the
        # megakernel's writer sets it: Target.readonly_alias); each such array is also
        # declared readonly on its binding (readonly_alias)
        self.cached_loads: dict[str, frozenset] = {}

    # ---- module -------------------------------------------------------------------------
    def module(self) -> str:
        k = self.kernel
        for fn in self.contained_functions():
            self.function(fn)
        self.function(k)
        functions = self.lines
        head = ["#version 450"]
        if self.vulkan_memory_model:
            head.append("#pragma use_vulkan_memory_model")
        needs = self._extensions()
        head += [f"#extension {e} : require" for e in sorted(needs)]
        head.append("layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;")
        head.append("")
        push = [f"    {glsl_type(v.type)} {self._push_name(v)};" for v in k.params]
        self.push_fields = [(self._push_name(v), v.type) for v in k.params]
        for var in k.array_params:
            fields = []
            if isinstance(var.type, T.SocketType):
                ndim = var.type.frame_ndim
                if not var.scheduled:   # a program sets slot and seq itself
                    fields = [(f"{var.name}_slot", T.i32), (f"{var.name}_seq", T.u32)]
            else:
                ndim = getattr(var.type, "ndim", 0)
            if var.static_shape is None:     # see extent()
                fields += [(f"{var.name}_shape{a}", T.i32) for a in range(ndim)]
            if getattr(var.type, "strided", False):      # see linear()
                fields += [(f"{var.name}_offset", T.i32)]
                fields += [(f"{var.name}_stride{a}", T.i32) for a in range(ndim)]
            for name, t in fields:
                push.append(f"    {glsl_type(t)} {name};")
                self.push_fields.append((name, t))
        if push:
            head.append("layout(push_constant) uniform Params {")
            head += push
            head.append("};")
            head.append("")
        for var in k.array_params:
            head.append(self._buffer_decl(var))
        head += self.globals
        if self.loop_guard:
            status_binding = ir.bindings_end(k.array_params)
            head.append(f"layout(std430, binding = {status_binding}) buffer VkpStatus "
                        "{ uint _vkp_status[]; };")
            head.append("uint _vkp_iterations = 0u;")
        for var in self.unit.shared_arrays:
            dims = "".join(f"[{n}]" for n in var.type.shape)
            if var.bits_alias:      # held as words: float compare-and-swap atomics on it
                word = "uint64_t" if var.type.elem == T.f64 else "uint"
                head.append(f"shared {word} {var.name}_bits{dims};")
            else:
                head.append(f"shared {glsl_type(var.type.elem)} {var.name}{dims};")
        for var in self.unit.const_arrays.values():     # host arrays the kernel captured
            dims = "".join(f"[{n}]" for n in var.type.shape)
            head.append(f"const {glsl_type(var.type.elem)} {var.name}{dims} = "
                        f"{_const_init(var.type.elem, var.type.shape, var.init)};")
        head.append("")
        for h in self.helpers.values():
            head.append(h)
            head.append("")
        return "\n".join(head + functions).rstrip() + "\n"

    def contained_functions(self) -> list:
        """The device functions this shader holds, callees first: the unit's (a kernel
        and everything it calls)."""
        return self.unit.order

    def is_written(self, var) -> bool:
        """Whether the shader writes buffer `var` (if not, it is declared readonly)."""
        return var.written

    @staticmethod
    def _push_name(var) -> str:
        """Push constants are read-only: a kernel parameter that the body reassigns reads
        `NAME_arg` from the block into a local NAME."""
        return f"{var.name}_arg" if var.assigned else var.name

    def _extensions(self) -> set:
        u = self.unit
        ext = set()
        elems = [v.type.elem for v in self.kernel.array_params if hasattr(v.type, "elem")] + \
                [v.type.elem for v in u.shared_arrays]
        if self.uses_barrier or self.memory_model and any(
                isinstance(v.type, (T.ControlsType, T.SocketType))
                for v in self.kernel.array_params):
            ext.add("GL_KHR_memory_scope_semantics")
        if u.uses_int64 or any(e in (T.i64, T.u64) for e in elems) or \
                any(v.type in (T.i64, T.u64) for v in self.kernel.params):   # a push constant
            ext.add("GL_EXT_shader_explicit_arithmetic_types_int64")
        if u.uses_atomic_int64:
            ext.add("GL_EXT_shader_atomic_int64")
        if u.uses_atomic_float:
            ext.add("GL_EXT_shader_atomic_float")
        ext.update(f"GL_KHR_shader_subgroup_{op}" if op != "extended_types" else
                   "GL_EXT_shader_subgroup_extended_types_int64" for op in u.uses_subgroup)
        if any(isinstance(e, T.Scalar) and e.bits == 8 or e == T.bool_ for e in elems):
            ext.add("GL_EXT_shader_8bit_storage")
            ext.add("GL_EXT_shader_explicit_arithmetic_types_int8")
        if any(isinstance(e, T.Scalar) and e.bits == 16 for e in elems):
            ext.add("GL_EXT_shader_16bit_storage")
            ext.add("GL_EXT_shader_explicit_arithmetic_types_int16")
            ext.add("GL_EXT_shader_explicit_arithmetic_types_float16")
        return ext

    def _buffer_decl(self, var) -> str:
        channel = _CHANNELS.get(type(var.type))
        if channel is not None:           # a ControlBuffer's or MemSock's own buffers
            return channel.declare(self, var)
        elem = var.type.elem
        written = self.is_written(var)
        access = "" if written else "readonly "
        # written and read by other workgroups of the same dispatch; an array that nothing
        # in the dispatch writes cannot change under it, so its loads may use the L1 cache.
        # Under the Vulkan memory model, a program's arrays are `nonprivate`: L1 allowed,
        # made available and visible at the grid barriers (the megakernel's writer)
        if var.coherent and written:
            synced = self.vulkan_memory_model and var.barrier_synced
            access = ("nonprivate " if synced else "coherent ") + access
        if isinstance(elem, T.Vector) and elem.n == 3:
            store = glsl_type(elem.elem)
        elif elem == T.bool_:
            store = "uint8_t"
        elif isinstance(elem, T.Scalar):
            store = elem.glsl
        else:
            store = elem.glsl
        decl = (f"layout(std430, binding = {var.binding}) {access}buffer {var.name}_buffer "
                f"{{ {store} {var.name}[]; }};")
        if var.bits_alias:      # the same memory as words, for compare-and-swap float atomics
            word = "uint64_t" if elem == T.f64 else "uint"
            decl += (f"\nlayout(std430, binding = {var.binding}) {access}buffer "
                     f"{var.name}_bits_buffer {{ {word} {var.name}_bits[]; }};")
        if any(var.name in names for names in self.cached_loads.values()):
            alias = readonly_alias(var.name)   # the same memory, for cached loads
            decl += (f"\nlayout(std430, binding = {var.binding}) {access}readonly buffer "
                     f"{alias}_buffer {{ {store} {alias}[]; }};")
        return decl

    # ---- functions ----------------------------------------------------------------------
    def function(self, fn: ir.Function) -> None:
        self.fn = fn
        self.local_names = {}
        for v in fn.params:            # a parameter may shadow a global, not these
            if v.name in self.reserved_names:
                self.local_names[v] = f"{v.name}_{len(self.local_names)}"
        for v in fn.locals:
            if v.name in self.reserved_names or v.name in self.global_names \
                    or v.name in self.local_names.values():
                self.local_names[v] = f"{v.name}_{len(self.local_names)}"
        ret = glsl_type(fn.returns[0]) if len(fn.returns) == 1 else "void"
        params = [f"{glsl_type(p.type)} {self.local_names.get(p, p.name)}" for p in fn.params]
        if len(fn.returns) > 1:
            params += [f"out {glsl_type(t)} _out{i}" for i, t in enumerate(fn.returns)]
        if fn.loc:
            self.emit(f"// {os.path.basename(fn.loc.file)}:{fn.loc.line}: {fn.python_name}")
        sig = "void main()" if fn.is_kernel else f"{ret} {fn.name}({', '.join(params)})"
        self.emit(sig + " {")
        self.indent += 1
        if fn.is_kernel:
            for p in fn.params:
                if p.assigned:
                    self.emit(f"{glsl_type(p.type)} {p.name} = {self._push_name(p)};")
        for v in fn.locals:
            if isinstance(v.type, T.FixedArray):
                dims = "".join(f"[{n}]" for n in v.type.shape)
                self.emit(f"{glsl_type(v.type.elem)} {self.name(v)}{dims};")
            else:
                self.emit(f"{glsl_type(v.type)} {self.name(v)};")
        self.last_line = None
        self.block(fn.body)
        self.indent -= 1
        self.emit("}")
        self.emit("")

    def name(self, var) -> str:
        return self.local_names.get(var, var.name)

    # ---- statements ---------------------------------------------------------------------
    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line if line else "")

    def block(self, stmts) -> None:
        for s in stmts:
            self.stmt(s)

    def _mark(self, s) -> None:
        loc = s.loc
        if loc is not None and loc.line != self.last_line:
            self.emit(f"// {os.path.basename(loc.file)}:{loc.line}")
            self.last_line = loc.line

    def expr_with_pre(self, e) -> tuple[list, str]:
        saved, self.pre = self.pre, []
        text = self.expr(e)
        pre, self.pre = self.pre, saved
        return pre, text

    def stmt(self, s) -> None:
        self._mark(s)
        method = getattr(self, "stmt_" + type(s).__name__)
        method(s)

    def _emit_pre(self, pre) -> None:
        for line in pre:
            self.emit(line)

    def stmt_Assign(self, s):
        pre, value = self.expr_with_pre(s.value)
        self._emit_pre(pre)
        self.emit(f"{self.name(s.var)} = {_bare(value)};")

    def stmt_AssignComponent(self, s):
        pre, value = self.expr_with_pre(s.value)
        self._emit_pre(pre)
        self.emit(f"{self.name(s.var)}.{s.components} = {value};")

    def stmt_Store(self, s):
        pre, value = self.expr_with_pre(s.value)
        pre2, target = self.expr_with_pre(_LValue(s.var, s.index))
        self._emit_pre(pre + pre2)
        elem = s.var.type.elem
        if s.var.role == "array_param" and isinstance(elem, T.Vector) and elem.n == 3:
            base = self.linear(s.var, s.index)
            tmp = self._tmp("v")
            self.emit(f"{{ {glsl_type(elem)} {tmp} = {value}; int _b = ({base}) * 3; "
                      f"{s.var.name}[_b] = {tmp}.x; {s.var.name}[_b + 1] = {tmp}.y; "
                      f"{s.var.name}[_b + 2] = {tmp}.z; }}")
            return
        self.emit(f"{target} = {_bare(self._to_storage(value, elem, s.var))};")

    def stmt_ExprStmt(self, s):
        pre, text = self.expr_with_pre(s.expr)
        self._emit_pre(pre)
        if text:
            self.emit(f"{text};")

    # ---- expressions --------------------------------------------------------------------
    def _tmp(self, hint) -> str:
        self.temp_count += 1
        return f"_{hint}{self.temp_count}"

    def expr(self, e) -> str:
        return getattr(self, "expr_" + type(e).__name__)(e)

    def expr_Const(self, e):
        return _literal(e.value, e.type)

    def expr_Ref(self, e):
        return self.name(e.var)

    def expr_Unary(self, e):
        v = self.expr(e.operand)
        return {"not": f"!({v})", "-": f"-({v})", "~": f"~({v})"}[e.op]

    def expr_Binary(self, e):
        a, b = self.expr(e.left), self.expr(e.right)
        t = e.type
        op = e.op
        if op in ("//", "%"):
            if isinstance(t, T.Scalar) and t.is_float:                  # exact, as Python
                name = "pymod" if op == "%" else "pyfloordiv"
                return f"{mathlib.function(self.helpers, name, t)}({a}, {b})"
            if isinstance(t, T.Vector) or t.is_float:
                return f"floor(({a}) / ({b}))" if op == "//" else f"mod({a}, {b})"
            if t.kind == "u":
                return f"(({a}) {'/' if op == '//' else '%'} ({b}))"
            name = "floordiv" if op == "//" else "mod"
            fn = self.helper(name, t)
            return f"{fn}({a}, {b})"
        if t == T.bool_:          # GLSL has no bitwise operators on bool; both sides run
            return f"({a} != {b})" if op == "^" else f"bool(int({a}) {op} int({b}))"
        if op == "/" and self.rounds_f32(t) and not _power_of_two(e.right):
            a, b = (x if o.type == t else f"{t.glsl}({x})"
                    for x, o in ((a, e.left), (b, e.right)))    # a vector over a scalar
            return f"{mathlib.function(self.helpers, mathlib.ROUNDED['/'], t)}({a}, {b})"
        return f"({a} {op} {b})"

    def rounds_f32(self, t) -> bool:
        """Whether float32 `/` and sqrt of type `t` need vkpersist's correctly rounded ones on
        this target (Target.exact_division)."""
        return not self.unit.target.exact_division and \
            (t.elem if isinstance(t, T.Vector) else t) == T.f32

    def helper(self, name, t) -> str:
        gt = glsl_type(t)
        suffix = "" if t in (T.i32, T.f32) else "_" + t.name
        key = f"{name}{suffix}"
        if key not in self.helpers:
            guard = entry = ""
            if name == "ipow" and self.loop_guard:
                guard = "\n        " + self.guard_line()
                entry = "\n    " + self.guard_line()
            code = _HELPERS[name].format(t=gt, zero=_literal(0, t), one=_literal(1, t),
                                         two=_literal(2, t), guard=guard, entry=entry)
            code = code.replace(f"_vkp_{name}(", f"_vkp_{key}(")
            self.helpers[key] = code
        return f"_vkp_{key}"

    def expr_Compare(self, e):
        return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"

    def expr_Logical(self, e):
        a = self.expr(e.left)
        pre, b = self.expr_with_pre(e.right)
        op = "&&" if e.op == "and" else "||"
        if not pre:
            return f"({a} {op} {b})"
        # the right side needs statements: keep short-circuit semantics with an if
        tmp = self._tmp("sc")
        self.pre.append(f"bool {tmp} = {a};")
        test = tmp if e.op == "and" else f"!{tmp}"
        self.pre.append(f"if ({test}) {{")
        self.pre += ["    " + line for line in pre]
        self.pre.append(f"    {tmp} = {b};")
        self.pre.append("}")
        return tmp

    def expr_Select(self, e):
        cond = self.expr(e.cond)
        pre_a, a = self.expr_with_pre(e.then)
        pre_b, b = self.expr_with_pre(e.orelse)
        if not pre_a and not pre_b:
            return f"({cond} ? {a} : {b})"
        tmp = self._tmp("sel")
        self.pre.append(f"{glsl_type(e.type)} {tmp};")
        self.pre.append(f"if ({cond}) {{")
        self.pre += ["    " + line for line in pre_a] + [f"    {tmp} = {a};", "} else {"]
        self.pre += ["    " + line for line in pre_b] + [f"    {tmp} = {b};", "}"]
        return tmp

    def expr_Cast(self, e):
        return f"{glsl_type(e.type)}({self.expr(e.value)})"

    def expr_Let(self, e):
        self.pre.append(f"{self.name(e.var)} = {self.expr(e.value)};")
        return self.expr(e.body)

    def expr_Swizzle(self, e):
        return f"{self.expr(e.value)}.{e.components}"

    def expr_MakeVector(self, e):
        return f"{glsl_type(e.type)}({', '.join(self.expr(a) for a in e.args)})"

    def expr_Shape(self, e):
        return self.extent(e.var, e.axis)

    @staticmethod
    def extent(var, axis: int) -> str:
        """An array's extent along `axis`: a literal where the shape is fixed for the shader
        (a program's arrays and frames: index arithmetic and bounds tests fold), else the
        push constant each launch fills in (a kernel's arguments)."""
        static = var.static_shape
        return str(static[axis]) if static is not None else f"{var.name}_shape{axis}"

    def linear(self, var, index) -> str:
        """The flat index of element `index` of `var`: row-major, or for a strided view
        (an array argument that is a slice, a transpose, ...) its element offset plus the
        index times its element strides, all push constants of the launch."""
        idx = [self.index_expr(i) for i in index]
        if getattr(var.type, "strided", False):
            terms = [f"({i}) * {var.name}_stride{a}" for a, i in enumerate(idx)]
            return " + ".join([f"{var.name}_offset"] + terms)
        out = idx[0]
        for axis in range(1, len(idx)):
            out = f"({out}) * {self.extent(var, axis)} + {idx[axis]}"
        return out

    def index_expr(self, i) -> str:
        """An index in GLSL: GLSL indexes with 32-bit integers only, so a 64-bit index
        (an int64 array element used as an index) is narrowed (arrays stay below 2**31)."""
        text = self.expr(i)
        return f"int({text})" if isinstance(i.type, T.Scalar) and i.type.bits == 64 else text

    def expr__LValue(self, e):
        var = e.var
        if var.role in ("shared", "local_array", "const_array"):
            return self._held(var) + "".join(f"[{self.index_expr(i)}]" for i in e.index)
        return f"{var.name}[{self.linear(var, e.index)}]"

    def _held(self, var) -> str:
        """The name an on-chip array is held under (a shared array with float
        compare-and-swap atomics: as words, `name_bits`)."""
        return f"{var.name}_bits" if var.role == "shared" and var.bits_alias else self.name(var)

    def expr_Load(self, e):
        var = e.var
        if var.role in ("shared", "local_array", "const_array"):
            raw = self._held(var) + "".join(f"[{self.index_expr(i)}]" for i in e.index)
            if var.role == "shared" and var.bits_alias:
                return (f"uint64BitsToDouble({raw})" if var.type.elem == T.f64
                        else f"uintBitsToFloat({raw})")
            return raw
        elem = var.type.elem
        linear = self.linear(var, e.index)
        name = var.name
        if name in self.cached_loads.get(self.fn.name, ()):
            name = readonly_alias(name)
        if isinstance(elem, T.Vector) and elem.n == 3:
            tmp_base = f"(({linear}) * 3)"
            return (f"{glsl_type(elem)}({name}[{tmp_base}], {name}[{tmp_base} + 1], "
                    f"{name}[{tmp_base} + 2])")
        raw = f"{name}[{linear}]"
        if elem == T.bool_:
            return f"({raw} != uint8_t(0))"
        if isinstance(elem, T.Scalar) and elem in T.STORAGE_ONLY:
            return f"{glsl_type(T.STORAGE_ONLY[elem])}({raw})"
        return raw

    def _to_storage(self, value, elem, var):
        if var.role == "shared" and var.bits_alias:
            return (f"doubleBitsToUint64({value})" if elem == T.f64
                    else f"floatBitsToUint({value})")
        if var.role != "array_param":
            return value
        if elem == T.bool_:
            return f"uint8_t({value} ? 1 : 0)"
        if isinstance(elem, T.Scalar) and elem in T.STORAGE_ONLY:
            return f"{elem.glsl}({value})"
        return value

    def atomic_load(self, word: str) -> str:
        """A device-scope acquire load of a uint word another workgroup or the host writes."""
        if self.memory_model:
            return (f"atomicLoad({word}, gl_ScopeDevice, gl_StorageSemanticsBuffer, "
                    "gl_SemanticsAcquire)")
        return f"atomicAdd({word}, 0u)"

    def atomic_store(self, word: str, value: str) -> str:
        """A device-scope release store of a uint word."""
        if self.memory_model:
            return (f"atomicStore({word}, {value}, gl_ScopeDevice, gl_StorageSemanticsBuffer, "
                    "gl_SemanticsRelease)")
        return f"atomicExchange({word}, {value})"

    def expr_Call(self, e):
        args = [self.expr(a) for a in e.args] + [self.name(o) for o in e.outs]
        return f"{e.func.name}({', '.join(args)})"

    def expr_Intrinsic(self, e):
        return B.REGISTRY[e.name].emit(self, e)

    # what builtin entries (builtins.py) emit through
    literal = staticmethod(_literal)
    glsl_type = staticmethod(glsl_type)

    def element(self, var, index) -> str:
        """The storage location of an array element (no widening of storage-only types)."""
        return self.expr(_LValue(var, index))

    # ---- channels: their GPU sides (control/_device.py, memsock/_device.py) ------------
    def channel(self, var):
        """The GPU side of the channel whose buffer `var` is."""
        return _CHANNELS[type(var.type)]

    def channel_op(self, op: str, e) -> str:
        return getattr(self.channel(e.args[0]), op)(self, e)

    def program_step(self, e) -> str:
        return "_vkp_step"


def _power_of_two(e) -> bool:
    """A constant divisor that is a power of two: the quotient is exact on every device."""
    if not isinstance(e, ir.Const) or not isinstance(e.value, (int, float)):
        return False
    m, _ = math.frexp(float(e.value))
    return abs(m) == 0.5


class _LValue:
    """The storage location of an array element (no widening of storage-only types)."""

    def __init__(self, var, index):
        self.var, self.index = var, index
