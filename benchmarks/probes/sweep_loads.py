"""How the stencil's loads are declared, and what that costs: GLSL's qualifiers against CUDA's
cache operators.

    python benchmarks/probes/sweep_loads.py [--device SELECTOR] [--sizes 32 64 128] [--seconds 1]

benchmarks/probes/stencil_schemes.py measured the hand-written GLSL sweeps (no synchronisation)
at 0.77x the same CUDA at 128³ on an H100, and four cells an invocation sped the GLSL up
(+8 %) but slowed the CUDA down: as if the GLSL's loads waited longer. The megakernel
declares its state buffers `nonprivate` (the Vulkan memory model: the grid barrier's
availability and visibility operations then cover them). This measures whether that
qualifier is what costs, with the same two schemes (sweeps only; a grid barrier after each
sweep) in each variant:

  glsl, state buffers `nonprivate` (the megakernel's), plain (private), `coherent`, and
  `restrict nonprivate`;
  cuda, plain loads (cached in L1), `__ldcg` (L2 only), `ld.relaxed.gpu` (coherent at
  device scope, as a Vulkan non-private load may be compiled).

Synchronised rows are compared bit for bit with the CUDA graph's state after 100 steps; a
private row that matches is no proof that private loads are correct (the Vulkan memory
model does not promise it), only that this driver happened to make them visible.
"""
from __future__ import annotations

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))    # benchmarks/
from programs import bench_cuda_graph, bench_floor  # noqa: E402
from stencil_schemes import LOCAL, cuda_rows, glsl_rows, print_rows, setup  # noqa: E402

SCHEMES = [("none", "none", 1), ("grid", "grid", 1)]
GLSL_VARIANTS = [("nonprivate", None, ""), ("", None, ""), ("coherent", None, ""),
                 ("restrict nonprivate", None, ""), ("nonprivate", "nonprivate", "own"),
                 ("nonprivate", "", "own"), ("nonprivate", "nonprivate", "same")]
CUDA_LOADS = {0: "plain", 1: "ldcg", 2: "relaxed.gpu"}


def main() -> None:
    args, ctx, cp, sms = setup(__doc__, "sweep_loads.py", 40)
    for n in args.sizes:
        init = np.random.default_rng(0).random((n, n, n)).astype(np.float32)
        groups = min(-(-n ** 3 // LOCAL), 2 * sms)
        graph, ref = bench_cuda_graph(cp, n, init, args.seconds)
        rows = []
        for loads, name in CUDA_LOADS.items():
            rows += cuda_rows(cp, n, init, groups, 0, args.seconds, SCHEMES, loads,
                              f" ({name})")
        if bench_floor(ctx, 1, 0.05, groups, LOCAL)[2] >= groups:
            for q, alias, where in GLSL_VARIANTS:
                label = q or "private"
                if alias is not None:
                    label += f", loads: {alias or 'private'} readonly, {where} binding"
                rows += glsl_rows(ctx, n, init, groups, 0, args.seconds, SCHEMES, q,
                                  f" ({label})", alias, where)
        else:
            print(f"  (glsl: not all {groups} workgroups of {LOCAL} ran at once: not run)")
        print_rows(n, graph, ref, rows, 40, f"{groups} workgroups")


if __name__ == "__main__":
    main()
