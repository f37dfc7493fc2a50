"""Host-side bad input is refused before anything reaches the driver, with an error that
names the kernel, the parameter or axis, the value and what is valid: launch
configurations. Cases a driver would crash on (a local size of 0, sizes past the device's
limits) run in a subprocess with a hard timeout."""
import subprocess
import sys

import numpy as np
import pytest

import vkpersist as vkp


@vkp.kernel
def fill_ones(x: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] = 1.0


# ---- launch configurations --------------------------------------------------------------

DRIVER_CASES = """
import sys
import numpy as np
import vkpersist as vkp
ctx = vkp.Context(int(sys.argv[1]))
info = ctx.info

@vkp.kernel
def fill_ones(x: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] = 1.0

raw = vkp.glsl_kernel('''#version 450
layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(std430, binding = 0) buffer X { float x[]; };
void main() { if (gl_GlobalInvocationID.x < 64u) x[gl_GlobalInvocationID.x] = 1.0; }
''', name="raw", ctx=ctx)
x = ctx.zeros(64)
size, count = info.max_workgroup_size, info.max_workgroup_count
cases = {
    "local (64, 0)": lambda: fill_ones[1, (64, 0)](x),
    "local 0": lambda: fill_ones[1, 0](x),
    "forall local 0": lambda: fill_ones.forall(64, local=0)(x),
    "raw local (0,)": lambda: raw[1, (0,)](x),
    "local past axis": lambda: fill_ones[1, size[0] + 1](x),
    "local past invocations": lambda: fill_ones[1, (size[0], 2)](x),
    "groups past limit": lambda: fill_ones[count[0] + 1, 64](x),
    "forall past limit": lambda: fill_ones.forall((count[0] + 1) * 64)(x),
    "raw groups past limit on y": lambda: raw[(1, count[1] + 1), (64, 1)](x),
}
for name, case in cases.items():
    try:
        case()
        ctx.synchronize()
        print(f"{name} | no error")
    except Exception as exc:
        print(f"{name} | {type(exc).__name__} | {exc}")
fill_ones.forall(64)(x)
raw[1, (64, 1)](x)
print("afterwards |", x.numpy().sum())
"""


def test_launch_sizes_a_driver_would_crash_on_are_refused(ctx, tmp_path):
    script = tmp_path / "driver_cases.py"       # kernels are read from their source file
    script.write_text(DRIVER_CASES)
    run = subprocess.run([sys.executable, str(script), str(ctx.info.index)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    got = dict(line.split(" | ", 1) for line in run.stdout.splitlines())
    size, count = ctx.info.max_workgroup_size, ctx.info.max_workgroup_count
    expect = {
        "local (64, 0)": "ValueError | fill_ones: local size (64, 0) has 0 on axis y; each axis "
                         "takes 1 or more",
        "local 0": "ValueError | fill_ones: local size is 0; each axis takes 1 or more",
        "forall local 0": "ValueError | fill_ones: local size is 0; each axis takes 1 or more",
        "raw local (0,)": "ValueError | raw: local size (0,) has 0 on axis x",
        "local past axis": f"ValueError | fill_ones: local size ({size[0] + 1}, 1, 1) is "
                           f"{size[0] + 1} on axis x; {ctx.info.name} takes 1 to {size[0]} there",
        "local past invocations": f"ValueError | fill_ones: local size ({size[0]}, 2, 1) has "
                                  f"{2 * size[0]} invocations; the device allows "
                                  f"{ctx.info.max_workgroup_invocations} per workgroup",
        "groups past limit": f"ValueError | fill_ones: {count[0] + 1:,} workgroups on axis x; "
                             f"{ctx.info.name} takes 0 to {count[0]:,} there",
        "forall past limit": f"ValueError | fill_ones: {count[0] + 1:,} workgroups on axis x",
        "raw groups past limit on y": f"ValueError | raw: {count[1] + 1:,} workgroups on axis y",
        "afterwards": "64.0",            # the context works on
    }
    for case, start in expect.items():
        assert got.get(case, "").startswith(start), (case, got.get(case))


@pytest.mark.parametrize("launch, error, match", [
    (lambda: fill_ones[1.5, 64], TypeError, r"fill_ones: groups must be an int or a tuple of "
                                            r"1-3 ints, got 1.5 \(float on axis x\)"),
    (lambda: fill_ones[True, 64], TypeError, r"got True \(bool on axis x\)"),
    (lambda: fill_ones[1, (64, np.float32(2))], TypeError, r"local size must be an int or a "
                                                           r"tuple of 1-3 ints.*float32 on axis y"),
    (lambda: fill_ones[(1, 1, 1, 1), 64], ValueError, r"groups must be an int or a tuple of 1-3"),
    (lambda: fill_ones[(4, -2), 64], ValueError, r"groups \(4, -2\) has -2 on axis y; each axis "
                                                 r"takes 0 \(launch nothing\) or more"),
    (lambda: fill_ones[1, -64], ValueError, r"local size is -64; each axis takes 1 or more"),
    (lambda: fill_ones.forall(True), TypeError, r"forall\(n\): n is the number of invocations, "
                                                r"an int, got bool True"),
    (lambda: fill_ones.forall(64.0), TypeError, r"an int, got float 64.0"),
    (lambda: fill_ones.forall(-1), ValueError, r"fill_ones.forall\(n\): n must not be negative"),
    (lambda: fill_ones.forall(64, local=(8, 8)), TypeError, r"local is one int \(forall runs "
                                                            r"along axis 0\).*fill_ones\[groups, local\]"),
    (lambda: fill_ones.forall(64, local=2.5), TypeError, r"local size must be an int"),
])
def test_launch_configuration_mistakes(launch, error, match):
    with pytest.raises(error, match=match):
        launch()


def test_zero_groups_on_any_axis_launch_nothing(ctx):
    x = ctx.full(64, 5.0)
    fill_ones[0, 64](x)
    fill_ones[(1, 0), 64](x)
    fill_ones.forall(0)(x)
    assert (x.numpy() == 5).all()
    fill_ones.forall(64)(x)
    assert (x.numpy() == 1).all()
