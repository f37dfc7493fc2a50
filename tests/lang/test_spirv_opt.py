"""Target.spirv_opt: the megakernel's SPIR-V goes through spirv-opt's inlining, SSA,
constant-propagation and common-subexpression passes before the driver gets it (on an H100
the fused FDTD update gained ~7 % at 32³ so; vkpersist/vk/target.py). Those passes must
leave float arithmetic alone: spirv-opt's simplify-instructions, which -O also runs, folds
(x * 3) * 5 into x * 15 (and x + 0.0 into x), which rounds differently. So a persistent run
stays bit-identical to its per-launch fallback and to NumPy's float32. (x + 0.0 is not
checked: lavapipe itself gives -0.0 for -0.0 + 0.0 in both modes, NumPy +0.0.)"""
import dataclasses

import numpy as np
import pytest

import vkpersist as vkp
from vkpersist.vk import glslang, spirv_val
from vkpersist.vk.glsl_kernel import GLSLKernel
from vkpersist.vk.target import SPIRV_OPT_PASSES, Target

OP_FUNCTION = 54                 # SPIR-V opcodes: OpFunction, OpTypeFloat, OpConstant
OP_TYPE_FLOAT = 22
OP_CONSTANT = 43


def _instructions(code: bytes):
    """(opcode, operand words) of each instruction of a SPIR-V module, after its header."""
    words = np.frombuffer(code, np.uint32)
    at = 5
    while at < len(words):
        count = int(words[at] >> 16)
        yield int(words[at] & 0xFFFF), words[at + 1:at + count]
        at += count


def _functions(code: bytes) -> int:
    """How many functions a SPIR-V module defines."""
    return sum(op == OP_FUNCTION for op, _ in _instructions(code))


def _reassociation_sensitive(n: int) -> np.ndarray:
    """float32 values for which (x * 3) * 5 != x * 15 in float32."""
    x = np.random.default_rng(5).standard_normal(20 * n).astype(np.float32)
    x = x[(x * np.float32(3)) * np.float32(5) != x * np.float32(15)][:n]
    assert len(x) == n
    return x


def _program(ctx, x):
    prog = vkp.Program(ctx, name="reassociation")
    A = prog.array("A", x.shape, init=x)
    B = prog.array("B", x.shape)

    @vkp.func
    def scaled(v):
        return (v * 3.0) * 5.0

    @prog.stage(domain=x.shape)
    def update(i):
        B[i] = scaled(A[i]) - scaled(A[i]) * 0.5

    prog.loop(update)
    return prog, B


def test_the_megakernel_is_optimised_and_keeps_float_arithmetic(ctx):
    x = _reassociation_sensitive(64)
    f = np.float32
    s = (x * f(3)) * f(5)
    want = (s - s * f(0.5)).view(np.uint32)
    got = {}
    for mode in ("persistent", "launch"):
        prog, B = _program(ctx, x)
        prog.run(3, mode=mode)
        got[mode] = B.numpy().view(np.uint32)
        if mode == "persistent":
            assert ctx.target.spirv_opt == "inline-cse"
            assert prog._runner.build.mega.kernel.passes == SPIRV_OPT_PASSES["inline-cse"]
        else:           # the fallback's kernels go to the driver as glslang made them
            assert all(s.kernel.passes == () for s in prog._runner.build.stage_shaders)
        prog.free()
    np.testing.assert_array_equal(got["persistent"], want)
    np.testing.assert_array_equal(got["launch"], want)


SHADER = """
#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer X { float x[]; };
float scaled(float v) { return (v * 3.0) * 5.0; }
float half_of(float v) { return v * 0.5; }
void main() { uint i = gl_GlobalInvocationID.x; x[i] = scaled(x[i]) - half_of(scaled(x[i])); }
"""


def _float_constants(code: bytes) -> set[float]:
    """The 32-bit float constants a SPIR-V module declares."""
    types, found = set(), set()
    for op, operands in _instructions(code):
        if op == OP_TYPE_FLOAT and operands[1] == 32:
            types.add(int(operands[0]))
        elif op == OP_CONSTANT and int(operands[0]) in types:
            found.add(float(operands[2:3].view(np.float32)[0]))
    return found


def test_the_passes_inline_and_leave_floats_alone(ctx):
    """The passes inline and keep (x * 3) * 5 as two multiplications (no constant 15
    appears). On the device the shader is run as written (NoContraction on every float
    operation, as generated code is): without it Vulkan lets the driver reassociate, and
    NVIDIA's does once the function is inlined (every element 1 ulp off on an H100)."""
    passes = SPIRV_OPT_PASSES["inline-cse"]
    plain = glslang.compile_glsl(SHADER)
    optimised = glslang.compile_glsl(SHADER, passes=passes)
    assert _functions(plain) == 3 and _functions(optimised) == 1
    assert {3.0, 5.0} <= _float_constants(optimised) and 15.0 not in _float_constants(optimised)
    x = _reassociation_sensitive(64)
    k = GLSLKernel(SHADER, name="reassociation", ctx=ctx, passes=passes, as_written=True)
    out = x.copy()
    k[1](out)
    s = (x * np.float32(3)) * np.float32(5)
    np.testing.assert_array_equal(out.view(np.uint32), (s - s * np.float32(0.5)).view(np.uint32))


def test_without_spirv_opt_the_module_goes_unoptimised_with_a_warning(monkeypatch):
    found = spirv_val.tool

    def no_optimizer(name, variable):
        return None if name == "spirv-opt" else found(name, variable)
    monkeypatch.setattr(spirv_val, "tool", no_optimizer)
    monkeypatch.setattr(glslang, "_warned", set())
    source = SHADER.replace("3.0", "7.0")
    with pytest.warns(RuntimeWarning, match="no spirv-opt was found"):
        code = glslang.compile_glsl(source, passes=SPIRV_OPT_PASSES["inline-cse"])
    assert _functions(code) == 3


def test_a_pass_set_that_does_not_exist_names_the_ones_that_do(ctx):
    with pytest.raises(ValueError, match="spirv_opt='fast'.*'none', 'inline-cse'"):
        dataclasses.replace(ctx.target, spirv_opt="fast")
    assert Target.any_device().spirv_opt == "inline-cse"
    with pytest.raises(TypeError, match="tuple of spirv-opt options"):
        GLSLKernel(SHADER, passes="--ccp")


ALIASED = """
#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) nonprivate buffer W { float w[]; };
layout(std430, binding = 0) nonprivate readonly buffer R { float r[]; };
void main() {
    float before = r[0];
    w[0] = before + 1.0;
    // a grid barrier's memory operations, as the megakernel's (one workgroup: no waiting)
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                   gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable
                   | gl_SemanticsMakeVisible);
    memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer,
                  gl_SemanticsAcquire | gl_SemanticsMakeVisible);
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                   gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable
                   | gl_SemanticsMakeVisible);
    w[1] = r[0];
}
"""
OP_LOAD = 61


def _loads(code: bytes) -> int:
    return sum(op == OP_LOAD for op, _ in _instructions(code))


def test_a_readonly_alias_is_loaded_again_after_a_grid_barrier(ctx):
    """The megakernel loads arrays it also writes through `readonly` blocks on the same
    binding (Target.readonly_alias), only where no store to them can be pending since the
    last grid barrier; so it relies on the passes not to merge two such loads across one
    (redundancy-elimination merges loads it deems read-only, which it would if glslang
    decorated the block variable NonWritable: it decorates the members), and on the device
    to serve a load after a grid barrier's device-scope acquire from memory, not from
    before it. Not relied on, and not promised on NVIDIA: a load through the alias after
    the invocation's own store with only a workgroup barrier between
    (benchmarks/probes/readonly_alias.py measures every case)."""
    if not ctx.info.memory_model:
        pytest.skip(f"{ctx.info.name} has no Vulkan memory model")
    assert _loads(glslang.compile_glsl(ALIASED, passes=SPIRV_OPT_PASSES["inline-cse"])) == 2
    k = GLSLKernel(ALIASED, name="aliased", ctx=ctx, passes=SPIRV_OPT_PASSES["inline-cse"])
    out = np.float32([2.0, 0.0])
    k[1](out)
    np.testing.assert_array_equal(out, [3.0, 3.0])
