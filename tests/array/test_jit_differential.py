"""vkp.jit against the same function run op by op (on device arrays) and against NumPy,
on random expression trees mixing float32/float64/int32 device arrays, NumPy scalars and
Python numbers: the three must agree on the dtype exactly, fused and unfused on the
values bit for bit (on lavapipe; another driver may contract a*b + c into an fma in the
fused kernel), and NumPy's values within float rounding. A differential sweep for bugs
like weak Python scalars turned float64 inside vkp.jit, or scalar subexpressions computed
on the device where op by op NumPy computes them."""
import random

import numpy as np
import pytest

import vkpersist as vkp

N_TREES = 40
SEED = 20261204


class _Gen:
    """A random expression (Python source over a0, a1, ... and `where`) with its leaves."""

    def __init__(self, rng: random.Random):
        self.rng, self.args = rng, []

    def leaf(self, kinds=("f32", "f64", "i32", "np32", "np64", "npi32", "py", "pyi")):
        kind = self.rng.choice(kinds)
        r = self.rng
        sign = r.choice((-1, 1))
        if kind in ("f32", "f64", "i32"):
            shape = r.choice(((6,), (3, 1)))
            vals = np.array([sign * r.uniform(0.5, 2) for _ in range(int(np.prod(shape)))])
            if kind == "i32":
                vals = np.array([sign * r.randint(1, 4) for _ in range(vals.size)])
            value = vals.reshape(shape).astype({"f32": np.float32, "f64": np.float64,
                                                "i32": np.int32}[kind])
        elif kind == "pyi":
            value = sign * r.randint(1, 4)
        else:
            x = round(sign * r.uniform(0.5, 2), 3)
            value = {"np32": np.float32, "np64": np.float64, "npi32": lambda v: np.int32(
                round(v) or 1), "py": float}[kind](x)
        self.args.append(value)
        return f"a{len(self.args) - 1}"

    def expr(self, depth: int) -> str:
        r = self.rng
        if depth == 0 or r.random() < 0.25:
            return self.leaf()
        t = self.expr(depth - 1)
        forms = [      # divisors stay away from zero; +-* twice as likely as the others
            lambda: f"({t} {r.choice('+-*')} {self.expr(depth - 1)})",
            lambda: f"({t} {r.choice('+-*')} {self.expr(depth - 1)})",
            lambda: f"({t} {r.choice(('/', '//', '%'))} {self.leaf()})",
            lambda: f"({t} {r.choice('+-*')} ({self.leaf()} {r.choice('+-*/')} {self.leaf()}))",
            lambda: f"({t} ** 2)",
            lambda: f"{r.choice(('-', 'abs'))}({t})",
            lambda: f"np.{r.choice(('sin', 'cos', 'tanh'))}({t})",
            lambda: f"np.sqrt(abs({t}))",
            lambda: f"np.{r.choice(('maximum', 'minimum'))}({t}, {self.expr(depth - 1)})",
            lambda: f"where({self.leaf()} > {self.leaf()}, {t}, {self.expr(depth - 1)})",
            lambda: f"({t} * np.exp({self.leaf(('f32', 'f64', 'py', 'np32'))}))",
        ]
        return r.choice(forms)()


def _trees():
    rng = random.Random(SEED)
    trees = []
    while len(trees) < N_TREES:
        g = _Gen(rng)
        text = g.expr(3)
        if any(isinstance(a, np.ndarray) for a in g.args):   # vkp.jit returns arrays
            trees.append((text, g.args))
    return trees


def _function(text, n, where):
    params = ", ".join(f"a{i}" for i in range(n))
    return eval(f"lambda {params}: {text}", {"np": np, "where": where})


def _tolerance(args) -> float:
    """Float rounding of a tree this shallow over values this size: float32 if any float32
    takes part, else float64."""
    if any(np.asarray(a).dtype == np.float32 for a in args):
        return 2e-5
    return 1e-12


@pytest.mark.parametrize("case", range(N_TREES))
def test_jit_agrees_with_op_by_op_and_numpy(ctx, case):
    text, args = _trees()[case]
    dev = [ctx.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    want = np.asarray(_function(text, len(args), np.where)(*args))
    unfused = _function(text, len(args), vkp.where)(*dev).numpy()
    fused = vkp.jit(_function(text, len(args), vkp.where))(*dev).numpy()
    assert fused.dtype == unfused.dtype == want.dtype, text
    tol = _tolerance(args)
    scale = max(1.0, float(np.abs(want).max()))
    if "llvmpipe" in ctx.info.name:
        np.testing.assert_array_equal(fused, unfused, err_msg=text)
    else:
        np.testing.assert_allclose(fused, unfused, rtol=tol, atol=tol * scale, err_msg=text)
    np.testing.assert_allclose(unfused, want, rtol=tol, atol=tol * scale, err_msg=text)
