"""What a load through a `readonly` block returns after the invocation's own store through
another block on the same binding (the megakernel's readonly aliases, Target.readonly_alias),
by the barrier between them, with and without the megakernel's spirv-opt passes. The
megakernel relies on the grid barrier's row only (tests/lang/test_spirv_opt.py); on an H100
(580.159) the workgroup-barrier row read the stale value.

    python benchmarks/probes/readonly_alias.py          (run from the repository)

Each alias row runs one shader: r[i] is loaded (or not), w[i] = that + 1 is stored, then the
row's barrier, then w[i + n] = r[i] is loaded again through the readonly block. `right` means
every element read its own store; `stale: k of n` counts those that read the value from
before it. Both blocks are decorated Aliased (vk/spirv.py `annotate`).
"""
from __future__ import annotations

import numpy as np

import vkpersist as vkp
from vkpersist.vk.glsl_kernel import GLSLKernel
from vkpersist.vk.target import SPIRV_OPT_PASSES

N = 4096
HEAD = """
#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) nonprivate buffer W { float w[]; };
layout(std430, binding = 0) nonprivate QUALIFIER readonly buffer R { float r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float before = FIRST;
    w[i] = before + 1.0;
    BARRIER
    w[i + NN] = r[i];
}
"""
WG = ("controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer, "
      "gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);")
DEVICE = WG.replace("gl_ScopeWorkgroup, gl_ScopeWorkgroup", "gl_ScopeWorkgroup, gl_ScopeDevice")
# the grid barrier's end, as tests/lang/test_spirv_opt.py writes it
FENCE = (DEVICE + " memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, "
         "gl_SemanticsAcquire | gl_SemanticsMakeVisible); " + DEVICE)
VARIANTS = {   # name -> (first load, barrier, readonly block's extra qualifier)
    "r loaded, workgroup-scope barrier": ("r[i]", WG, ""),
    "r loaded, device-scope barrier": ("r[i]", DEVICE, ""),
    "r loaded, device fence + barrier (grid barrier's end)": ("r[i]", FENCE, ""),
    "r loaded, no barrier": ("r[i]", "", ""),
    "w loaded, workgroup-scope barrier": ("w[i]", WG, ""),
    "w loaded, no barrier": ("w[i]", "", ""),
    "r loaded, coherent readonly, workgroup barrier": ("r[i]", WG, "coherent"),
}

def alias_rows(ctx) -> None:
    start = np.arange(N, dtype=np.float32) * np.float32(2)
    print(f"{'readonly alias after own store':58s} {'no passes':>16s} {'inline-cse':>16s}")
    for name, (first, barrier, qual) in VARIANTS.items():
        src = (HEAD.replace("FIRST", first).replace("BARRIER", barrier)
               .replace("QUALIFIER", qual).replace("NN", f"{N}u"))
        cells = []
        for passes in ((), SPIRV_OPT_PASSES["inline-cse"]):
            k = GLSLKernel(src, name="alias_probe", ctx=ctx, passes=passes)
            buf = np.concatenate([start, np.zeros(N, np.float32)])
            k[N // 64](buf)
            stale = int(np.sum(buf[N:] != start + 1))
            cells.append("right" if not stale else f"stale: {stale} of {N}")
        print(f"{name:58s} {cells[0]:>16s} {cells[1]:>16s}")


def main() -> None:
    ctx = vkp.Context()
    print(f"device: {ctx.info.name} ({ctx.info.driver_info or ctx.info.driver})")
    alias_rows(ctx)
    ctx.close()


if __name__ == "__main__":
    main()
