"""How lavapipe's loop limiter counts (docs/driver_notes.md): raw GLSL kernels without the
loop guard, each printing how far its loops got before the limiter ended them.

    python tools/probe_loop_counting.py      # on lavapipe: 65536, 32768, 21845
"""
import numpy as np

import vkpersist as vkp

HEAD = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer O { uint o[]; };
"""
CASES = {
    "while (true) passes": "void main() { uint n = 0u; while (true) { n++; if (n >= 1000000u) break; } o[0] = n; }",
    "outer iterations around a for that runs 0 times": """void main() { uint outer = 0u; uint z = o[3];
  for (uint i = 0u; i < 1000000u; i++) { outer++; for (uint j = 0u; j < z; j++) { o[2] += 1u; } }
  o[0] = outer; }""",
    "outer iterations around a for that runs once": """void main() { uint outer = 0u; uint one = o[3] + 1u;
  for (uint i = 0u; i < 1000000u; i++) { outer++; for (uint j = 0u; j < one; j++) { o[2] += 1u; } }
  o[0] = outer; }""",
}

if __name__ == "__main__":
    ctx = vkp.Context()
    print(ctx.info.summary())
    for what, body in CASES.items():
        out = ctx.zeros(4, np.uint32)
        vkp.lowlevel.glsl_kernel(HEAD + body, name="probe", loop_guard=False)[1](out)
        print(f"{what}: {int(out.numpy()[0]):,}")
