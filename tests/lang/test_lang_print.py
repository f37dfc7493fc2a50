"""print() inside kernels (numba.cuda's format: values separated by spaces, floats as %f):
the lines appear on stdout once the launch's work has completed, whole, one per call; a
full buffer reports how many lines it dropped."""
import numpy as np
import pytest

import vkpersist as vkp
from vkpersist import cuda
from vkpersist.lang.printing import CAPACITY_WORDS


@vkp.func
def shout(i):
    print("func", i)


@vkp.kernel
def values(x, n):
    i = vkp.global_id(0)
    if i < n:
        print("i =", i, "x", x[i], i < 2, vkp.f64(x[i]) * 2.0, vkp.i64(i) - 5000000000,
              vkp.u32(4000000000))
        shout(i)


def test_values_and_literals_after_synchronize(ctx, capfd):
    x = np.arange(4, dtype=np.float32) * 1.5
    values.forall(4)(vkp.to_device(x, ctx), 4)
    ctx.synchronize()
    lines = capfd.readouterr().out.splitlines()
    want = [f"i = {i} x {x[i]:f} {i < 2} {2.0 * x[i]:f} {i - 5000000000} 4000000000"
            for i in range(4)] + [f"func {i}" for i in range(4)]
    assert sorted(lines) == sorted(want)
    ctx.synchronize()                      # printed once
    assert capfd.readouterr().out == ""


@vkp.kernel
def many(zero, n):
    i = vkp.global_id(0)
    if i < n:
        print(i + zero[0])


def test_full_buffer_keeps_whole_lines_and_counts_the_rest(ctx, capsys):
    fit = CAPACITY_WORDS // 2                  # a line of one int32: format word + value
    n = fit + 1000
    zero = vkp.to_device(np.zeros(1, np.int32), ctx)
    many.forall(n, 256)(zero, n)
    assert zero.numpy()[0] == 0                # any read-back synchronizes
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("... 1000 more lines dropped")
    printed = sorted(int(v) for v in lines[:-1])
    assert len(printed) == fit and len(set(printed)) == fit and printed[-1] < n


@vkp.kernel
def complex_print(z: vkp.c64):
    print(z)


@vkp.kernel
def fstring_print(n: vkp.i32):
    print(f"n = {n}")


def test_unprintable_value_is_refused_with_the_alternative(ctx):
    with pytest.raises(vkp.CompileError, match=r"print\(\) in kernels takes string literals"
                                               r".*z\.real"):
        complex_print.forall(1)(1 + 2j)
    with pytest.raises(vkp.CompileError, match=r"no f-strings.*print\(\"i =\", i\)"):
        fstring_print.glsl()


def test_print_in_a_cuda_jit_kernel(ctx, capfd):
    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            print("thread", i, a[i])

    d = vkp.to_device(np.array([7, 8, 9], np.int32), ctx)
    k[1, 3](d)
    ctx.synchronize()
    assert sorted(capfd.readouterr().out.splitlines()) == ["thread 0 7", "thread 1 8",
                                                          "thread 2 9"]
