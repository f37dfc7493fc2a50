"""benchmarks/probes/target_ab.py, the A/B of device-target knobs that docs/measurements-log.md cites:
it runs both targets on the device under test and reports whether their states agree bit
for bit, and it names the valid knobs when given another."""
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "probes" / "target_ab.py"


def _run(*args, timeout=240):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=timeout)


def test_a_knob_on_both_programs_is_bit_identical(ctx):
    out = _run("ordered_from=1", "dedicated_planner_from=2", "spirv_opt=none", "--device",
               str(ctx.info.index),
               "--fdtd", "8", "--stencil", "7", "--stencils", "two-stage", "--rounds", "1",
               "--seconds", "0.02")
    assert out.returncode == 0, out.stderr
    verdicts = [line for line in out.stdout.splitlines() if "bit-identical" in line]
    assert len(verdicts) == 2 and all(v.endswith("bit-identical: yes") for v in verdicts), \
        out.stdout
    assert "ordered_from=1 (default " in out.stdout
    assert "dedicated_planner_from=2 (default " in out.stdout
    assert "spirv_opt='none' (default 'inline-cse')" in out.stdout


def test_a_wrong_knob_names_the_valid_ones():
    out = _run("ordered=1", timeout=60)
    assert out.returncode != 0
    assert "'ordered=1' is not a knob" in out.stderr and "ordered_from" in out.stderr
    assert "name," not in out.stderr.split("among")[1]          # not a knob
    out = _run("readonly_alias=maybe", timeout=60)
    assert "readonly_alias is a bool; give one of 1, true, on" in out.stderr
    out = _run("spirv_opt=fast", timeout=60)
    assert out.returncode != 0
    assert "spirv_opt='fast'" in out.stderr and "'none', 'inline-cse'" in out.stderr


def test_a_launch_shape_is_a_knob(ctx):
    """shape=GxL changes only the megakernel's workgroups: the changed arm runs with that
    many (its note says so) and ends bit-identical to the runner's choice."""
    out = _run("shape=3x32", "--device", str(ctx.info.index), "--fdtd", "6", "--stencil", "5",
               "--stencils", "fused", "--rounds", "1", "--seconds", "0.02")
    assert out.returncode == 0, out.stderr
    assert "shape=3x32 (default the runner's choice)" in out.stdout
    changed = [line for line in out.stdout.splitlines() if "changed  round" in line]
    assert len(changed) == 2 and "groups of 32" in changed[0] and "x 32 invocations" in \
        changed[1], out.stdout
    verdicts = [line for line in out.stdout.splitlines() if "bit-identical" in line]
    assert len(verdicts) == 2 and all(v.endswith("bit-identical: yes") for v in verdicts), \
        out.stdout


def test_a_malformed_shape_names_the_form():
    out = _run("shape=37by1024", timeout=60)
    assert out.returncode != 0
    assert "shape is GROUPSxLOCAL, two positive integers such as 37x1024" in out.stderr
