"""vk/spirv.py `annotate`: the decorations GLSL cannot write that vkpersist's shaders need.
Aliased on blocks that share a binding (the megakernel's readonly aliases: without it
NVIDIA's driver served a load through the readonly block from before the invocation's own
store through the other), and NoContraction on every float operation of generated code
(without it the driver may fuse and reassociate: NVIDIA folded (x * 3) * 5 into x * 15)."""
import numpy as np
import pytest

import vkpersist as vkp
from vkpersist.vk import glslang, spirv, spirv_val

OP_DECORATE, NO_CONTRACTION, ALIASED, BINDING = 71, 42, 20, 33
FLOAT_OPS = {127, 129, 131, 133, 136, 140, 141, 142, 143, 144, 145, 146, 147, 148}


def _instructions(code: bytes):
    words = np.frombuffer(code, np.uint32)
    at = 5
    while at < len(words):
        count = int(words[at] >> 16)
        yield int(words[at] & 0xFFFF), [int(w) for w in words[at + 1:at + count]]
        at += count


def _decorated(code: bytes, decoration: int) -> set:
    return {ops[0] for op, ops in _instructions(code) if op == OP_DECORATE and ops[1] == decoration}


ARITHMETIC = """
#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer X { float x[]; };
layout(std430, binding = 1) buffer V { vec4 v[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float s = (x[i] * 3.0) * 5.0 + x[i] / 7.0 - x[i];
    v[i] = v[i] * s + dot(v[i], v[i]) * -v[i];
    x[i] = s;
}
"""

SHARED = """
#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer W { float w[]; };
layout(std430, binding = 0) readonly buffer R { float r[]; };
layout(std430, binding = 1) buffer O { float o[]; };
void main() { w[0] = r[0] + 1.0; o[0] = r[0]; }
"""


def test_every_float_operation_is_evaluated_as_written_when_asked():
    code = glslang.compile_glsl(ARITHMETIC)
    ops = {ops[1] for op, ops in _instructions(code) if op in FLOAT_OPS}
    assert len(ops) >= 8
    assert not _decorated(code, NO_CONTRACTION)
    assert spirv.annotate(code) == code                  # nothing shares a binding
    exact = spirv.annotate(code, as_written=True)
    assert _decorated(exact, NO_CONTRACTION) == ops
    assert spirv.annotate(exact, as_written=True) == exact          # once
    if spirv_val.tool("spirv-val", "VKPERSIST_SPIRV_VAL") is not None:
        spirv_val.validate(exact, "vulkan1.2", "annotated")


def test_blocks_that_share_a_binding_are_declared_aliased():
    code = glslang.compile_glsl(SHARED)
    bindings = {}
    for op, ops in _instructions(code):
        if op == OP_DECORATE and ops[1] == BINDING:
            bindings.setdefault(ops[2], set()).add(ops[0])
    aliased = spirv.annotate(code)
    assert _decorated(aliased, ALIASED) == bindings[0]
    assert len(bindings[0]) == 2 and not (bindings[1] & _decorated(aliased, ALIASED))
    if spirv_val.tool("spirv-val", "VKPERSIST_SPIRV_VAL") is not None:
        spirv_val.validate(aliased, "vulkan1.2", "annotated")


def test_a_non_module_is_refused():
    with pytest.raises(vkp.VkPersistError, match="not a SPIR-V module"):
        spirv.annotate(b"\0" * 40)


@vkp.func
def _scaled(v):
    return (v * 3.0) * 5.0


@vkp.kernel
def _reassociable(x, out):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        out[i] = _scaled(x[i]) - _scaled(x[i]) * 0.5


def test_a_kernel_computes_what_numpy_computes_where_reassociation_would_differ(ctx):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(4096).astype(np.float32)
    x = x[(x * np.float32(3)) * np.float32(5) != x * np.float32(15)][:256]
    out = np.zeros_like(x)
    _reassociable.forall(len(x))(x, out)
    s = (x * np.float32(3)) * np.float32(5)
    np.testing.assert_array_equal(out.view(np.uint32), (s - s * np.float32(0.5)).view(np.uint32))
