"""Unsupported Python and type mistakes raise CompileError pointing at the right line.

Each bad kernel marks its offending line with `# <- error`; the test checks that the
reported file:line is that line, that the message names the problem, and that the source
line and a caret are shown."""
import inspect

import numpy as np
import pytest

import vkpersist as vkp

F = vkp.Array[vkp.f32]
I = vkp.Array[vkp.i32]


def bad_try(x: F):
    try:  # <- error
        x[0] = 1.0
    except Exception:
        pass


def bad_with(x: F):
    with open("f"):  # <- error
        pass


def bad_list(x: F):
    y = [1, 2, 3]  # <- error
    x[0] = y[0]


def bad_print(x: F):
    print(x[0], vkp.vec2(x[0], 1.0))  # <- error


def bad_call(x: F):
    x[0] = np.random.rand()  # <- error


def bad_string(x: F):
    s = "hello"  # <- error


def bad_undefined(x: F):
    x[0] = not_defined_anywhere  # <- error


def bad_type_conflict(x: F):
    v = 1.0
    v = vkp.vec3(1.0, 2.0, 3.0)  # <- error
    x[0] = v.x


def bad_index_count(x: vkp.Array[vkp.f32, 2]):
    x[0] = 1.0  # <- error


def bad_slice(x: F):
    x[1:3] = 2.0  # <- error


def bad_return_value(x: F):
    return 1  # <- error


def bad_range(x: F):
    for i in range(1.5):  # <- error
        x[0] = 1.0


def bad_iter(x: F):
    for v in x:  # <- error
        pass


def bad_swizzle(x: F):
    v = vkp.vec2(1.0, 2.0)
    x[0] = v.z  # <- error


def bad_axis(x: F):
    x[0] = vkp.global_id(3)  # <- error


def bad_lambda(x: F):
    f = lambda: 1  # noqa: E731  # <- error


def bad_shift_float(x: F):
    x[0] = x[1] << 2  # <- error


def bad_shared_shape(x: F, n: vkp.i32):
    s = vkp.shared.array(n, vkp.f32)  # <- error


@vkp.func
def recursive(n):
    return recursive(n - 1)  # <- error


def bad_recursion(x: F):
    x[0] = recursive(3)


def bad_closure_array():
    captured = np.zeros(5000)      # small ones are copied into the kernel

    def k(x: F):
        x[0] = captured[0]  # <- error
    return k


def bad_attribute(x: F):
    x[0] = x.strides  # <- error


def bad_keyword(x: F):
    x[0] = vkp.sqrt(x=2.0)  # <- error


def bad_is(x: F):
    if x[0] is None:  # <- error
        pass


def bad_unpack(x: F):
    a, b = 1, 2, 3  # <- error


def bad_assign_param(x: F, n: vkp.i32):
    x = 3  # <- error


def bad_int_of_infinity(x: I):
    x[0] = int(1e400)  # <- error


BIG = 1 << 40


def bad_literal_into_int32(x: I):
    x[0] = x[1] + BIG  # <- error


def bad_literal_shift(x: vkp.Array[vkp.i64]):
    x[0] = 1 << 70  # <- error


def bad_negative_index(x: I):
    s = vkp.local.array(4, vkp.i32)
    s[0] = 1
    x[0] = s[-5]  # <- error


def bad_truncating_annotated_local(x: I):
    n: vkp.i32 = 0
    n = 2.5  # <- error
    x[0] = n


def bad_literal_modulo(x: I):
    x[0] = BIG % 0  # <- error


CASES = [
    (bad_try, "try/except is not supported"),
    (bad_with, "with is not supported"),
    (bad_list, "a list is not supported"),
    (bad_print, "print() in kernels takes string literals and int, float and bool values"),
    (bad_call, "cannot call 'rand' on the GPU"),
    (bad_string, "constant 'hello' is not supported"),
    (bad_undefined, "name 'not_defined_anywhere' is not defined"),
    (bad_type_conflict, "holds a float32"),
    (bad_index_count, "has 2 dimension(s), indexed with 1"),
    (bad_slice, "are not values in kernels: index elements"),
    (bad_return_value, "kernels cannot return values"),
    (bad_range, "range() arguments must be integers"),
    (bad_iter, "kernels loop over range"),
    (bad_swizzle, "'z' is not a swizzle"),
    (bad_axis, "axis must be the constant 0, 1 or 2"),
    (bad_lambda, "lambda is not supported"),
    (bad_shift_float, "operator << needs integers"),
    (bad_shared_shape, "must be a compile-time constant"),
    (bad_recursion, "recursion is not supported"),
    (bad_closure_array(), "at most 4096 elements"),
    (bad_attribute, "arrays have .shape, .size and .ndim"),
    (bad_keyword, "keyword arguments are not supported"),
    (bad_is, "(is/in have no GPU meaning)"),
    (bad_unpack, "cannot unpack 3 values into 2 names"),
    (bad_assign_param, "cannot assign to 'x'"),
    (bad_int_of_infinity, "cannot convert float infinity to integer"),
    (bad_literal_into_int32, "the integer 1099511627776 does not fit in int32"),
    (bad_literal_shift, "1 << 70 does not fit in 64 bits"),
    (bad_literal_modulo, "integer division or modulo by zero"),
    (bad_truncating_annotated_local, "'n' is annotated int32; a float32 would be truncated"),
    (bad_negative_index, "index -5 is out of range for axis 0 of size 4 (valid: -4..3)"),
]


def _call_line(fn) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if "recursive(" in line)


def _marked_line(fn) -> int:
    for f in (fn, recursive.pyfunc):
        lines, first = inspect.getsourcelines(f)
        for k, line in enumerate(lines):
            if "# <- error" in line:
                return first + k
    raise AssertionError("no marker")


@pytest.mark.parametrize("fn, message", CASES, ids=[c[0].__name__ for c in CASES])
def test_compile_errors_point_at_the_line(fn, message):
    k = vkp.kernel(fn)
    with pytest.raises(vkp.CompileError) as info:
        k.glsl()
    err = info.value
    text = str(err)
    assert message in text
    assert err.filename == __file__
    expected = _marked_line(fn) if fn is not bad_recursion else _marked_line(recursive.pyfunc)
    assert err.lineno == expected, text
    assert f"{__file__}:{expected}:" in text
    assert text.splitlines()[2].strip() and set(text.splitlines()[2].strip()) == {"^"}
    if fn is bad_recursion:     # an error inside a @vkp.func names the calls that led there
        assert text.splitlines()[-1] == (f"  in recursive, called from "
                                         f"{__file__}:{_call_line(bad_recursion)} in bad_recursion")


def test_unannotated_kernel_needs_types_for_glsl():
    @vkp.kernel
    def k(x):
        x[0] = 1
    with pytest.raises(TypeError, match="parameter 'x' needs a type"):
        k.glsl()


def test_launch_argument_mistakes(ctx):
    @vkp.kernel
    def k(a: vkp.f32, x: vkp.Array[vkp.f32, 2]):
        x[0, 0] = a
    good = ctx.zeros((2, 2))
    with pytest.raises(TypeError, match=r"takes 2 arguments \(a, x\), got 1"):
        k[1, 1](1.0)
    with pytest.raises(TypeError, match="expects float32 elements, got a float64 array"):
        k[1, 1](1.0, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="expects a 2-d array, got 1-d"):
        k[1, 1](1.0, np.zeros(2, np.float32))
    with pytest.raises(TypeError, match="is annotated float32 but got an array"):
        k[1, 1](good, good)
    with pytest.raises(TypeError, match="parameter 'a' \\(float32\\) takes a number, got 'x'"):
        k[1, 1]("x", good)
    with pytest.raises(TypeError, match=r"launch with k\[groups, local\]"):
        k[4](1.0, good)
    with pytest.raises(TypeError, match="launch a kernel with a configuration"):
        k(1.0, good)
    with pytest.raises(RuntimeError, match="can only be used inside a @vkp.kernel"):
        vkp.global_id(0)


@vkp.func
def scaled(v):
    return v * undefined_scale  # noqa: F821


@vkp.func
def twice(v):
    return scaled(v) + scaled(v)


def test_errors_carry_no_compiler_frames_and_name_the_calls(ctx):
    @vkp.kernel
    def uses_helpers(x: F):
        x[0] = twice(x[1])

    import traceback
    for attempt in (lambda: uses_helpers.glsl(), lambda: uses_helpers[1, 1](np.zeros(2, np.float32))):
        with pytest.raises(vkp.CompileError) as info:
            attempt()
        text = str(info.value)
        assert "name 'undefined_scale' is not defined" in text
        assert f"in scaled, called from {__file__}:" in text and "in twice, called from" in text
        frames = traceback.extract_tb(info.value.__traceback__)
        inside = [f for f in frames if "/vkpersist/" in f.filename]
        assert len(inside) == 1 and (inside[0].filename.endswith("_errors.py")      # entry
                                     or inside[0].name == "__call__"), \
            [f"{f.filename}:{f.lineno}" for f in frames]


def test_host_side_type_calls_follow_the_host_scalar_rule():
    assert vkp.f32(1.5) == np.float32(1.5) and type(vkp.u32(3)) is np.uint32
    with pytest.raises(TypeError, match=r"vkp.f32\(\) \(float32\): 1e\+39 is beyond float32's range"):
        vkp.f32(1e39)
    with pytest.raises(TypeError, match=r"vkp.i32\(\) \(int32\) takes an integer, got 1.5"):
        vkp.i32(1.5)
    with pytest.raises(TypeError, match=r"vkp.f32\(\) \(float32\) takes a number, got None"):
        vkp.f32(None)
