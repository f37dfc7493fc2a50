"""benchmarks/fdtd.py --glsl, the hand-written GLSL kernel of the fused FDTD update
(benchmarks/fdtd_glsl.py) that docs/measurements-log.md measures the megakernel against: it must
compute what the megakernel computes, bit for bit, or its speed says nothing."""
import pathlib
import subprocess
import sys

import numpy as np

BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "fdtd.py"


def test_the_hand_written_kernel_matches_the_megakernel(ctx):
    out = subprocess.run([sys.executable, str(BENCH), "--device", str(ctx.info.index),
                          "--sizes", "6", "--updates", "fused", "--glsl", "--seconds", "0.02"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if "(GLSL)" in line]
    row = next(r for r in rows if r[1:4] == ["fused", "persist", "(GLSL)"])
    assert row[0] == "6" and float(row[4].replace(",", "")) > 0, out.stdout
    assert "fused persist (GLSL) and persistent fused bit-identical: yes" in out.stdout, \
        out.stdout


def test_a_long_run_is_not_cut_short_by_lavapipe_s_loop_limit(ctx):
    """On lavapipe every loop of an invocation ends silently after ~65,535 iterations in
    all: the kernel runs long runs as several dispatches (and its loop guard would report
    one that ran past), so 12,000 steps still end where the megakernel's 12,000 do."""
    sys.path.insert(0, str(BENCH.parent))
    try:
        import fdtd
        import fdtd_glsl
    finally:
        sys.path.remove(str(BENCH.parent))
    sim, init = fdtd.scene(ctx, 6, update="fused")
    kernel = fdtd_glsl.FusedKernel(ctx, sim, init)
    kernel.run(1, 64, 12000)
    sim.prog.run(12000, mode="persistent")
    for name, value in kernel.state(fdtd.CHECKED).items():
        np.testing.assert_array_equal(value, sim.field(name))
    sim.prog.free()
