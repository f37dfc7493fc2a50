"""Kernels from source text that is not in a file: vkp.compile_source, and cells of IPython
and Jupyter, which keep their text in the line cache."""
import linecache

import numpy as np
import pytest

import vkpersist as vkp

SAXPY = """
@vkp.kernel
def saxpy(a: vkp.f32, x: vkp.Array[vkp.f32], y: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]
"""


def test_compile_source_defines_kernels_that_run(ctx):
    ns = vkp.compile_source(SAXPY, name="saxpy")
    x = np.arange(100, dtype=np.float32)
    y = np.ones(100, np.float32)
    ns["saxpy"].forall(100)(2.0, ctx.asarray(x), out := ctx.asarray(y))
    np.testing.assert_array_equal(out.numpy(), 2 * x + 1)
    assert "// <vkpersist:saxpy:" in ns["saxpy"].glsl()


def test_errors_in_compile_source_text_point_at_its_lines():
    ns = vkp.compile_source("""
        @vkp.kernel
        def bad(x: vkp.Array[vkp.f32]):
            x[0] = undefined_name + 1.0
    """, name="cell")
    with pytest.raises(vkp.CompileError) as info:
        ns["bad"].glsl()
    text = str(info.value)
    assert ":4:12: name 'undefined_name' is not defined" in text and "<vkpersist:cell:" in text
    assert "    x[0] = undefined_name + 1.0" in text
    assert text.splitlines()[-1] == " " * 15 + "^" * len("undefined_name")


def test_an_ipython_cell_compiles_from_the_line_cache(ctx):
    """IPython compiles a cell under a name like <ipython-input-3-...> and puts its text in
    linecache; nothing else is needed."""
    filename = "<ipython-input-7-0123456789ab>"
    text = SAXPY.replace("saxpy", "cell_saxpy")
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    ns = {"vkp": vkp}
    exec(compile(text, filename, "exec"), ns)
    y = np.zeros(8, np.float32)
    ns["cell_saxpy"].forall(8)(3.0, np.ones(8, np.float32), y)
    np.testing.assert_array_equal(y, np.full(8, 3.0))


def test_source_that_python_did_not_keep_says_what_to_do():
    ns = {"vkp": vkp}
    exec(compile(SAXPY, "<typed at the prompt>", "exec"), ns)
    with pytest.raises(vkp.CompileError, match=r"vkp.compile_source\(text\)"):
        ns["saxpy"].glsl()
    with pytest.raises(TypeError, match="takes the source text as a str"):
        vkp.compile_source(b"x = 1")
