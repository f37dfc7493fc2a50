"""Reflection of compute-shader SPIR-V: what a kernel binds and what it takes as push
constants, read from the module itself so it holds whatever the GLSL did with macros.

Only the instructions that describe the interface are decoded (names, decorations, types,
variables, execution modes, spec constants); see the SPIR-V specification §3 for the numbers.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from .._errors import VkPersistError

MAGIC = 0x07230203
# opcodes
_OpName, _OpMemberName, _OpExecutionMode, _OpTypeBool, _OpTypeInt, _OpTypeFloat = 5, 6, 16, 20, 21, 22
_OpTypeVector, _OpTypeMatrix, _OpTypeArray, _OpTypeRuntimeArray, _OpTypeStruct, _OpTypePointer = 23, 24, 28, 29, 30, 32
_OpConstant, _OpSpecConstant, _OpSpecConstantComposite, _OpVariable = 43, 50, 51, 59
_OpDecorate, _OpMemberDecorate, _OpExecutionModeId = 71, 72, 331
# decorations, storage classes, execution modes
_SpecId, _Block, _BufferBlock, _ArrayStride, _BuiltIn, _NonWritable, _Binding, _DescriptorSet, _Offset = \
    1, 2, 3, 6, 11, 24, 33, 34, 35
_Uniform, _PushConstant, _StorageBuffer = 2, 9, 12
_LocalSize, _LocalSizeId = 17, 38
_WorkgroupSize = 25


@dataclass(frozen=True)
class BufferBinding:
    set: int
    binding: int
    name: str            # the instance name, else the block name
    readonly: bool
    dtype: np.dtype | None = None   # the element type when every member has the same one


@dataclass(frozen=True)
class PushMember:
    name: str
    offset: int
    dtype: np.dtype      # element type
    count: int           # components (vectors) x elements (arrays); 1 for scalars


@dataclass
class Reflection:
    bindings: list[BufferBinding] = field(default_factory=list)
    push_members: list[PushMember] = field(default_factory=list)
    push_size: int = 0
    local_size: tuple[int, int, int] = (1, 1, 1)
    local_size_spec_ids: tuple = (None, None, None)   # SpecId per axis when specialisable


def _string(words: list[int]) -> str:
    raw = struct.pack(f"<{len(words)}I", *words)
    return raw.split(b"\0", 1)[0].decode()


def reflect(code: bytes) -> Reflection:
    if len(code) < 20 or len(code) % 4:
        raise VkPersistError("not a SPIR-V module (size)")
    words = list(struct.unpack(f"<{len(code) // 4}I", code))
    if words[0] != MAGIC:
        raise VkPersistError("not a SPIR-V module (magic number)")
    names, member_names, decorations, member_decorations = {}, {}, {}, {}
    types, variables, constants, spec_ids = {}, [], {}, {}
    local_size, local_size_ids, workgroup_size = None, None, None
    pos = 5
    while pos < len(words):
        count, op = words[pos] >> 16, words[pos] & 0xFFFF
        if count == 0 or pos + count > len(words):
            raise VkPersistError("malformed SPIR-V (an instruction of length 0 or past the end)")
        a = words[pos + 1:pos + count]
        pos += count
        if op == _OpName:
            names[a[0]] = _string(a[1:])
        elif op == _OpMemberName:
            member_names[(a[0], a[1])] = _string(a[2:])
        elif op == _OpDecorate:
            decorations.setdefault(a[0], {})[a[1]] = a[2:]
        elif op == _OpMemberDecorate:
            member_decorations.setdefault((a[0], a[1]), {})[a[2]] = a[3:]
        elif op == _OpTypeBool:
            types[a[0]] = ("bool",)
        elif op == _OpTypeInt:
            types[a[0]] = ("int", a[1], a[2])
        elif op == _OpTypeFloat:
            types[a[0]] = ("float", a[1])
        elif op == _OpTypeVector:
            types[a[0]] = ("vector", a[1], a[2])
        elif op == _OpTypeMatrix:
            types[a[0]] = ("matrix", a[1], a[2])
        elif op == _OpTypeArray:
            types[a[0]] = ("array", a[1], a[2])
        elif op == _OpTypeRuntimeArray:
            types[a[0]] = ("runtime_array", a[1])
        elif op == _OpTypeStruct:
            types[a[0]] = ("struct", tuple(a[1:]))
        elif op == _OpTypePointer:
            types[a[0]] = ("pointer", a[1], a[2])
        elif op in (_OpConstant, _OpSpecConstant):
            constants[a[1]] = a[2] if len(a) > 2 else 0
        elif op == _OpSpecConstantComposite:
            constants[a[1]] = tuple(a[2:])
        elif op == _OpVariable:
            variables.append((a[0], a[1], a[2]))
        elif op == _OpExecutionMode and a[1] == _LocalSize:
            local_size = tuple(a[2:5])
        elif op == _OpExecutionModeId and a[1] == _LocalSizeId:
            local_size_ids = tuple(a[2:5])
    for target, decs in decorations.items():
        if _SpecId in decs:
            spec_ids[target] = decs[_SpecId][0]
        if decs.get(_BuiltIn, [None])[0] == _WorkgroupSize:
            workgroup_size = constants.get(target)

    out = Reflection()
    if local_size is not None:
        out.local_size = local_size
    if local_size_ids is not None:
        out.local_size = tuple(constants.get(i, 1) for i in local_size_ids)
        out.local_size_spec_ids = tuple(spec_ids.get(i) for i in local_size_ids)
    if isinstance(workgroup_size, tuple):   # gl_WorkGroupSize built from spec constants
        out.local_size = tuple(constants.get(i, 1) for i in workgroup_size)
        out.local_size_spec_ids = tuple(spec_ids.get(i) for i in workgroup_size)

    for ptr_type, var, storage in variables:
        pointee = types.get(ptr_type, (None, None, None))[2]
        block_decs = decorations.get(pointee, {})
        if storage == _StorageBuffer or (storage == _Uniform and _BufferBlock in block_decs):
            decs = decorations.get(var, {})
            members = types[pointee][1]
            readonly = _NonWritable in decs or all(
                _NonWritable in member_decorations.get((pointee, i), {}) for i in range(len(members)))
            elems = {_scalar_of(types, m) for m in members}
            b = BufferBinding(
                set=decs.get(_DescriptorSet, [0])[0], binding=decs.get(_Binding, [0])[0],
                name=names.get(var) or names.get(pointee, f"binding{len(out.bindings)}"),
                readonly=readonly, dtype=elems.pop() if len(elems) == 1 else None)
            first = next((i for i, o in enumerate(out.bindings)
                          if (o.set, o.binding) == (b.set, b.binding)), None)
            if first is None:
                out.bindings.append(b)
            else:      # one buffer declared twice (viewed as floats and as words): one binding
                o = out.bindings[first]
                out.bindings[first] = BufferBinding(o.set, o.binding, o.name,
                                                    o.readonly and b.readonly, o.dtype)
        elif storage == _Uniform and _Block in block_decs:
            raise VkPersistError("uniform blocks are not supported by glsl_kernel; use a "
                                 "storage buffer (layout(std430, binding=N) buffer ...) or "
                                 "push constants")
        elif storage == _PushConstant:
            members = types[pointee][1]
            for i, mtype in enumerate(members):
                offset = member_decorations.get((pointee, i), {}).get(_Offset, [0])[0]
                dtype, n = _element(types, constants, mtype)
                name = member_names.get((pointee, i), f"member{i}")
                out.push_members.append(PushMember(name, offset, dtype, n))
            out.push_size = max((m.offset + m.dtype.itemsize * m.count for m in out.push_members),
                                default=0)
    out.bindings.sort(key=lambda b: (b.set, b.binding))
    return out


def _scalar_of(types, type_id) -> np.dtype | None:
    """The scalar type under vectors, matrices and arrays; None for structs."""
    t = types.get(type_id, (None,))
    while t[0] in ("vector", "matrix", "array", "runtime_array"):
        t = types.get(t[1], (None,))
    if t[0] == "int":
        return np.dtype(f"{'i' if t[2] else 'u'}{t[1] // 8}")
    if t[0] == "float":
        return np.dtype(f"f{t[1] // 8}")
    return None


_GLSL_SCALARS = {"f4": "float", "f8": "double", "f2": "float16_t", "i4": "int", "u4": "uint",
                 "i8": "int64_t", "u8": "uint64_t", "i2": "int16_t", "u2": "uint16_t",
                 "i1": "int8_t", "u1": "uint8_t"}


def glsl_scalar_name(dtype: np.dtype) -> str | None:
    """The GLSL name of a NumPy scalar type (None for bool, which GLSL buffers lack)."""
    return _GLSL_SCALARS.get(f"{dtype.kind}{dtype.itemsize}")


def _element(types, constants, type_id) -> tuple[np.dtype, int]:
    t = types[type_id]
    if t[0] == "bool":
        return np.dtype(np.uint32), 1
    if t[0] == "int":
        return np.dtype(f"{'i' if t[2] else 'u'}{t[1] // 8}"), 1
    if t[0] == "float":
        return np.dtype(f"f{t[1] // 8}"), 1
    if t[0] == "vector":
        dtype, n = _element(types, constants, t[1])
        return dtype, n * t[2]
    if t[0] == "array":
        dtype, n = _element(types, constants, t[1])
        return dtype, n * constants.get(t[2], 1)
    raise VkPersistError("push constants may hold scalars, vectors and arrays of them; "
                         "structs and matrices are not supported")


# SPIR-V 1.4's float controls (SPV_KHR_float_controls): the capability and execution mode
_OpCapability, _OpEntryPoint = 17, 15
_CapSignedZeroInfNanPreserve, _ModeSignedZeroInfNanPreserve = 4466, 4461
_SPIRV_1_4 = 0x00010400


def preserve_float_specials(code: bytes, widths) -> bytes:
    """`code` with the SignedZeroInfNanPreserve execution mode for each float bit width in
    `widths`, on every entry point: the driver may then no longer assume that no operand is
    NaN, infinite or a signed zero (fold `x + 0.0` to `x`, `x * 0.0` to 0, `isnan` to false).

    Why patch the binary: glslang's `spirv_execution_mode` keeps one execution mode of each
    kind, so a shader cannot ask for widths 32 and 64 from GLSL (glslang 13). Modules older
    than SPIR-V 1.4 (a Vulkan 1.1 target) come back unchanged: there the mode needs a device
    extension that vkpersist does not enable."""
    widths = sorted(set(widths))
    words = list(struct.unpack(f"<{len(code) // 4}I", code))
    if not widths or words[0] != MAGIC or words[1] < _SPIRV_1_4:
        return code
    out, entries, have_cap, have_modes = words[:5], [], False, set()
    pos, insert_cap, insert_modes = 5, None, None
    while pos < len(words):
        count, op = words[pos] >> 16, words[pos] & 0xFFFF
        if count == 0:
            raise VkPersistError("malformed SPIR-V (an instruction of length 0)")
        inst = words[pos:pos + count]
        if op == _OpCapability:
            have_cap |= inst[1] == _CapSignedZeroInfNanPreserve
        elif insert_cap is None:
            insert_cap = len(out)        # the end of the capabilities
        if op == _OpEntryPoint:
            entries.append(inst[2])
        elif op == _OpExecutionMode and inst[2] == _ModeSignedZeroInfNanPreserve:
            have_modes.add((inst[1], inst[3]))
        elif entries and insert_modes is None and op not in (_OpExecutionMode, _OpExecutionModeId):
            insert_modes = len(out)      # the end of the execution modes
        out += inst
        pos += count
    modes = [w for e in entries for width in widths if (e, width) not in have_modes
             for w in ((4 << 16) | _OpExecutionMode, e, _ModeSignedZeroInfNanPreserve, width)]
    if insert_modes is None:
        insert_modes = len(out)
    out[insert_modes:insert_modes] = modes
    if not have_cap:
        out[insert_cap:insert_cap] = [(2 << 16) | _OpCapability, _CapSignedZeroInfNanPreserve]
    return struct.pack(f"<{len(out)}I", *out)


# Annotations the language's shaders need that GLSL cannot say (see `annotate`)
_NoContraction, _Aliased = 42, 20
_OpDecorationGroup, _OpGroupDecorate, _OpGroupMemberDecorate, _OpDecorateId = 73, 74, 75, 332
_ANNOTATIONS = {_OpDecorate, _OpMemberDecorate, _OpDecorationGroup, _OpGroupDecorate,
                _OpGroupMemberDecorate, _OpDecorateId, 5632, 5633}
# float arithmetic: OpFNegate, OpFAdd, OpFSub, OpFMul, OpFDiv, OpFRem, OpFMod,
# OpVectorTimesScalar, OpMatrixTimesScalar, OpVectorTimesMatrix, OpMatrixTimesVector,
# OpMatrixTimesMatrix, OpOuterProduct, OpDot
_FLOAT_ARITHMETIC = {127, 129, 131, 133, 136, 140, 141, 142, 143, 144, 145, 146, 147, 148}


def annotate(code: bytes, *, as_written: bool = False) -> bytes:
    """`code` with two kinds of decorations glslang does not write:

    - Aliased on every storage-buffer variable that shares its (set, binding) with another
      (the language's readonly aliases, lang/glsl.py: `readonly_alias`). SPIR-V lets a
      driver assume that two variables never alias unless they say so; GLSL does not
      decorate them, and NVIDIA's driver (580.159, H100) then served a load through the
      readonly block from before the invocation's own store through the other
      (tests/lang/test_spirv_opt.py).
    - with `as_written`, NoContraction on every float arithmetic instruction (GLSL's
      `precise` on every expression): without it Vulkan lets a driver fuse a * b + c and
      reassociate, and NVIDIA's folded (x * 3) * 5 into x * 15 once spirv-opt had inlined
      the function around it. So the language's arithmetic is Python's and NumPy's, in
      both run modes alike; `vkp.fma` fuses where a kernel asks for it."""
    words = list(struct.unpack(f"<{len(code) // 4}I", code))
    if words[0] != MAGIC:
        raise VkPersistError("not a SPIR-V module (bad magic number)")
    bindings: dict[int, list[int]] = {}       # variable id -> [set, binding]
    decorated: dict[int, set] = {}
    buffers = set()
    pointers: dict[int, int] = {}             # pointer type id -> storage class
    results, insert = [], None
    pos = 5
    while pos < len(words):
        count, op = words[pos] >> 16, words[pos] & 0xFFFF
        if count == 0:
            raise VkPersistError("malformed SPIR-V (an instruction of length 0)")
        inst = words[pos:pos + count]
        if op in _ANNOTATIONS:
            insert = pos + count
            if op == _OpDecorate:
                decorated.setdefault(inst[1], set()).add(inst[2])
                if inst[2] in (_DescriptorSet, _Binding):
                    pair = bindings.setdefault(inst[1], [0, 0])
                    pair[inst[2] == _Binding] = inst[3]
        elif op == _OpTypePointer:
            pointers[inst[1]] = inst[2]
        elif op == _OpVariable and pointers.get(inst[1]) in (_StorageBuffer, _Uniform) \
                and inst[3] in (_StorageBuffer, _Uniform):
            buffers.add(inst[2])
        elif as_written and op in _FLOAT_ARITHMETIC:
            results.append(inst[2])
        pos += count
    if insert is None:
        raise VkPersistError("malformed SPIR-V (no decorations)")
    places: dict[tuple, list[int]] = {}
    for var in buffers:
        if var in bindings:
            places.setdefault(tuple(bindings[var]), []).append(var)
    new = [(var, _Aliased) for group in places.values() if len(group) > 1 for var in group]
    new += [(r, _NoContraction) for r in results]
    extra = [w for target, dec in new if dec not in decorated.get(target, ())
             for w in ((3 << 16) | _OpDecorate, target, dec)]
    if not extra:
        return code
    words[insert:insert] = extra
    return struct.pack(f"<{len(words)}I", *words)
