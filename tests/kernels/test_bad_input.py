"""Host-side bad input is refused before anything reaches the driver, with an error that
names the kernel, the parameter or axis, the value and what is valid: launch
configurations, scalar arguments and push constants, arrays bound to buffers of another
element type. Cases a driver would crash on (a local size of 0, sizes past the device's
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

raw = vkp.lowlevel.glsl_kernel('''#version 450
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
        # past the device's workgroup count, or (a GPU taking 2**31-1 groups) past what a
        # 32-bit index reaches
        "forall past limit": f"ValueError | fill_ones: {count[0] + 1:,} workgroups on axis x"
                             if (count[0] + 1) * 64 <= 2**31 - 1 else
                             f"ValueError | fill_ones.forall(n): {(count[0] + 1) * 64:,} "
                             "invocations on axis 0",
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


# ---- scalar arguments and push constants: one rule ----------------------------------------

@vkp.kernel
def affine(a: vkp.f32, n: vkp.i32, x: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] = a * n


@vkp.kernel
def untyped(x, a):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] = a


@vkp.kernel
def spread(v: vkp.vec3, x: vkp.Array[vkp.f32]):
    x[0] = v[0] + v[1] + v[2]


PUSH = """#version 450
layout(local_size_x = 1) in;
layout(push_constant) uniform P { float a; int n; };
layout(std430, binding = 0) buffer X { float x[]; };
void main() { x[0] = a * float(n); }
"""
F32_RANGE = r"is beyond float32's range \(±3.4028235e\+38\) and would be stored as inf"


@pytest.mark.parametrize("a, n, error, match", [
    (1e39, 1, TypeError, rf"parameter 'a' \(float32\): 1e\+39 {F32_RANGE}"),
    (np.float64(-1e39), 1, TypeError, rf"parameter 'a' .*{F32_RANGE}"),
    (2**200, 1, TypeError, rf"parameter 'a' .*{F32_RANGE}"),
    (None, 1, TypeError, r"parameter 'a' \(float32\) takes a number, got None"),
    ("1.5", 1, TypeError, r"parameter 'a' \(float32\) takes a number, got '1.5'"),
    (1 + 2j, 1, TypeError, r"parameter 'a' \(float32\) takes a number, got \(1\+2j\)"),
    (1.0, 1.5, TypeError, r"parameter 'n' \(int32\) takes an integer, got 1.5"),
    (1.0, float("nan"), TypeError, r"parameter 'n' \(int32\) takes an integer, got nan"),
    (1.0, 2**31, TypeError, r"parameter 'n' \(int32\): 2147483648 is out of int32's range "
                            r"-2147483648..2147483647"),
])
def test_scalars_that_do_not_fit_are_refused_alike_by_kernels_and_push_constants(
        ctx, a, n, error, match):
    x = ctx.zeros(4)
    with pytest.raises(error, match="affine: " + match):
        affine.forall(4)(a, n, x)
    raw = vkp.lowlevel.glsl_kernel(PUSH, name="push")
    with pytest.raises(error, match="push: " + match.replace("parameter", "push constant")):
        raw[1](x, a=a, n=n)


@pytest.mark.parametrize("a, n, want", [(2.5, 2.0, 5.0), (np.float32(1.5), np.int64(4), 6.0),
                                        (True, 3, 3.0), (float("inf"), 1, np.inf),
                                        (3.4e38, 1, np.float32(3.4e38))])
def test_scalars_that_fit_exactly_are_accepted_alike(ctx, a, n, want):
    x = ctx.zeros(4)
    affine.forall(4)(a, n, x)
    assert (x.numpy() == np.float32(want)).all()
    x.fill(0)
    vkp.lowlevel.glsl_kernel(PUSH, name="push")[1](x, a=a, n=n)
    assert x.numpy()[0] == np.float32(want)


def test_unannotated_and_vector_parameters_name_the_parameter(ctx):
    x = ctx.zeros(4)
    with pytest.raises(TypeError, match=rf"untyped: parameter 'a' \(float32\): 1e\+39 "
                                        rf"{F32_RANGE}"):
        untyped.forall(4)(x, 1e39)
    untyped.forall(4)(x, 0.5)
    assert (x.numpy() == 0.5).all()
    with pytest.raises(TypeError, match=rf"spread: parameter 'v' \(float32\): 1e\+39 {F32_RANGE}"):
        spread[1, 1]((1.0, 2.0, 1e39), x)
    with pytest.raises(ValueError, match=r"spread: parameter 'v' takes 3 values, got 2"):
        spread[1, 1]((1.0, 2.0), x)


def test_the_same_rule_holds_for_fill_and_control_fields(ctx):
    x = ctx.zeros(4)
    with pytest.raises(TypeError, match=rf"fill\(\) \(float32\): 1e\+39 {F32_RANGE}"):
        x.fill(1e39)
    with pytest.raises(TypeError, match=r"fill\(\) \(float32\) takes a number, got None"):
        x.fill(None)
    ctrl = vkp.ControlBuffer(ctx, g=vkp.f32(1.0), alpha=vkp.f32(0.5))
    try:
        with pytest.raises(TypeError, match=rf"control field 'g' \(float32\): 1e\+39 {F32_RANGE}"):
            ctrl["g"] = 1e39
        with pytest.raises(TypeError, match=r"command for control field 'alpha' \(float32\) "
                                            r"takes a number, got None"):
            ctrl.send_nowait(alpha=None)
        assert ctrl["g"] == 1.0 and ctrl["alpha"] == 0.5
    finally:
        ctrl.free()


# ---- arrays bound to raw GLSL buffers: element types must agree ---------------------------

SAXPY = """#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform P { float a; uint n; };
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
void main() { uint i = gl_GlobalInvocationID.x; if (i < n) y[i] = a * x[i] + y[i]; }
"""


@pytest.mark.parametrize("dtype, hint", [
    (np.int32, "declare the buffer's elements as int"),
    (np.uint32, "declare the buffer's elements as uint"),
    (np.float64, "declare the buffer's elements as double"),
    (np.bool_, r"no GLSL type stores NumPy bools \(use uint8 or uint32 arrays\)"),
])
def test_an_array_of_another_element_type_is_refused(ctx, dtype, hint):
    k = vkp.lowlevel.glsl_kernel(SAXPY, name="saxpy")
    y = ctx.zeros(64)
    bad = np.ones(64, dtype)
    what = (rf"saxpy: argument 'X' \(binding 0\) is a buffer of float elements \(float32\), "
            rf"got a {np.dtype(dtype)} array; convert it \(.astype\(np.float32\)\) or {hint}")
    with pytest.raises(TypeError, match=what):
        k[1](bad, y, a=1, n=64)
    if dtype is not np.bool_:
        with pytest.raises(TypeError, match=what):
            k[1](ctx.asarray(bad), y, a=1, n=64)
    assert (y.numpy() == 0).all()        # nothing ran


def test_vector_matrix_and_mixed_buffers(ctx):
    src = """#version 450
    layout(local_size_x = 1) in;
    layout(std430, binding = 0) readonly buffer V { vec4 v[]; };
    layout(std430, binding = 1) readonly buffer M { mat2 m[]; };
    layout(std430, binding = 2) buffer Mixed { uint count; float data[]; };
    void main() { data[0] = v[1].y + m[0][1][0]; count = 7u; }
    """
    k = vkp.lowlevel.glsl_kernel(src, name="shapes")
    assert [str(b.dtype) for b in k.reflection.bindings] == ["float32", "float32", "None"]
    mixed = np.zeros(2, np.uint32)         # a header word and a float: no single dtype to check
    k[1](np.arange(8, dtype=np.float32), np.arange(4, dtype=np.float32), mixed)
    assert mixed[0] == 7 and mixed[1:].view(np.float32)[0] == 5 + 2
    with pytest.raises(TypeError, match=r"argument 'V' \(binding 0\) is a buffer of float elements"):
        k[1](np.arange(8, dtype=np.int32), np.arange(4, dtype=np.float32), mixed)
