"""How a device rounds float32/float64 division and sqrt, raw and through vkpersist.

    python benchmarks/probes/float_semantics.py [--device SELECTOR] [-n N]

Rows (each against NumPy, bit for bit, on N random operands spread over 2**-60..2**60):
  device        the driver's own `/`, sqrt and 1/x (a GLSL shader, vkp.lowlevel)
  vkpersist     the kernel language's `/` and vkp.sqrt on this device (Target.exact_division
                decides whether they are corrected: lang/_mathglsl_python.py)
and the float-controls properties the device reports (DeviceInfo.float_preserve). Vulkan
lets float32 division and sqrt be 2.5 ulp off; Python, NumPy and CUDA's defaults round
them correctly. This is a measurement, not a test: tests/lang/test_float_semantics.py checks
vkpersist's rows on every device.
"""
from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

import vkpersist as vkp

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))    # benchmarks/
from _device import selector                       # noqa: E402  (benchmarks/_device.py)

RAW = """#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform P { uint n; };
layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) readonly buffer B { T b[]; };
layout(std430, binding = 2) buffer Q { T q[]; };
layout(std430, binding = 3) buffer S { T s[]; };
layout(std430, binding = 4) buffer R { T r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < n) { q[i] = a[i] / b[i]; s[i] = sqrt(abs(a[i])); r[i] = T(1) / b[i]; }
}
"""


@vkp.kernel
def ours(a, b, q, s, r):
    i = vkp.global_id(0)
    if i < a.shape[0]:
        q[i] = a[i] / b[i]
        s[i] = vkp.sqrt(abs(a[i]))
        r[i] = 1.0 / b[i]


def operands(n: int, dtype, seed: int):
    rng = np.random.default_rng(seed)

    def one():
        m = rng.uniform(1, 2, n) * np.exp2(rng.integers(-60, 60, n))
        return (m * np.where(rng.random(n) < 0.5, -1, 1)).astype(dtype)
    return one(), one()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("-n", type=int, default=10_000_000)
    args = ap.parse_args()
    ctx = vkp.Context(selector(args.device)) if args.device is not None else vkp.default_context()
    info = ctx.info
    print(f"{info.name} ({info.driver} {info.driver_version}); SignedZeroInfNanPreserve for "
          f"float widths {sorted(info.float_preserve)}; vkpersist corrects / and sqrt: "
          f"{not ctx.target.exact_division}")
    dtypes = [np.float32] + ([np.float64] if info.float64 else [])
    for dtype in dtypes:
        glsl_type = "float" if dtype == np.float32 else "double"
        raw = vkp.lowlevel.glsl_kernel(RAW, defines={"T": glsl_type}, ctx=ctx,
                                       name=f"raw_{glsl_type}")
        a, b = operands(args.n, dtype, 1)
        with np.errstate(all="ignore"):
            want = (a / b, np.sqrt(np.abs(a)), dtype(1) / b)
        for row in ("device", "vkpersist"):
            got = [np.zeros(args.n, dtype) for _ in range(3)]
            if row == "device":
                raw[(args.n + 63) // 64](a, b, *got, n=args.n)
            else:
                ours.forall(args.n)(a, b, *got)
            wrong = [np.count_nonzero(g != w) / args.n for g, w in zip(got, want)]
            print(f"  {np.dtype(dtype).name:8s} {row:10s} not correctly rounded: "
                  f"a / b {wrong[0]:7.2%}   sqrt {wrong[1]:7.2%}   1 / b {wrong[2]:7.2%}")


if __name__ == "__main__":
    main()
