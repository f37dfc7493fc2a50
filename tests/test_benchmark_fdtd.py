"""benchmarks/fdtd.py --glsl, the hand-written GLSL kernel of the fused FDTD update
(benchmarks/fdtd_glsl.py) that docs/benchmarks.md measures the megakernel against: it must
compute what the megakernel computes, bit for bit, or its speed says nothing."""
import pathlib
import subprocess
import sys

BENCH = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "fdtd.py"


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
