"""Differential test: random integer and float expression trees, compiled into one kernel
each, against NumPy evaluating the same trees (int32 wraps, // floors, % follows the
divisor, including negative operands). Seeds are fixed so a failure reproduces."""
import importlib.util
import os
import random

import numpy as np
import pytest

N_EXPR = 48
N_ROWS = 257
SEEDS_INT = [int(s) for s in os.environ.get("VKPERSIST_DIFF_SEEDS", "1,2").split(",")]
SEEDS_FLOAT = [s + 2 for s in SEEDS_INT]


def _int_tree(rng, depth):
    if depth == 0 or rng.random() < 0.2:
        if rng.random() < 0.75:
            v = rng.choice("abc")
            return v, v
        k = rng.randint(-9, 9)
        return str(k), f"np.int32({k})"
    op = rng.choice(["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>", "neg", "inv", "min",
                     "max", "abs", "cmp", "ifexp"])
    (ka, na), (kb, nb) = _int_tree(rng, depth - 1), _int_tree(rng, depth - 1)
    if op in ("+", "-", "*", "&", "|", "^"):
        return f"({ka} {op} {kb})", f"({na} {op} {nb})"
    if op in ("//", "%"):     # divisors are odd, hence never zero
        return f"({ka} {op} ({kb} | 1))", f"({na} {op} ({nb} | np.int32(1)))"
    if op in ("<<", ">>"):
        return f"({ka} {op} ({kb} & 15))", f"({na} {op} ({nb} & np.int32(15)))"
    if op == "neg":
        return f"(-{ka})", f"(-{na})"
    if op == "inv":
        return f"(~{ka})", f"(~{na})"
    if op in ("min", "max"):
        return f"{op}({ka}, {kb})", f"np.{op}imum({na}, {nb})"
    if op == "abs":
        return f"abs({ka})", f"np.abs({na})"
    if op == "cmp":
        c = rng.choice(["<", "<=", ">", ">=", "==", "!="])
        return f"({ka} {c} {kb})", f"({na} {c} {nb}).astype(np.int32)"
    (kc, nc) = _int_tree(rng, depth - 1)
    return f"({ka} if {kc} > 0 else {kb})", f"np.where({nc} > 0, {na}, {nb})"


def _float_tree(rng, depth):
    if depth == 0 or rng.random() < 0.2:
        r = rng.random()
        if r < 0.6:
            v = rng.choice("xyz")
            return v, v
        if r < 0.8:
            v = rng.choice("ab")
            return v, f"{v}.astype(np.float32)"    # int32 with float32 -> float32 (GPU rule)
        k = round(rng.uniform(-4, 4), 2)
        return repr(k), f"np.float32({k!r})"
    op = rng.choice(["+", "-", "*", "/", "neg", "min", "max", "abs", "sqrt", "ifexp"])
    (ka, na), (kb, nb) = _float_tree(rng, depth - 1), _float_tree(rng, depth - 1)
    if op in ("+", "-", "*"):
        return f"({ka} {op} {kb})", f"({na} {op} {nb})"
    if op == "/":
        return f"({ka} / (abs({kb}) + 0.5))", f"({na} / (np.abs({nb}) + np.float32(0.5)))"
    if op == "neg":
        return f"(-{ka})", f"(-{na})"
    if op in ("min", "max"):
        return f"{op}({ka}, {kb})", f"np.{op}imum({na}, {nb})"
    if op == "abs":
        return f"abs({ka})", f"np.abs({na})"
    if op == "sqrt":
        return f"math.sqrt(abs({ka}))", f"np.sqrt(np.abs({na}))"
    (kc, nc) = _float_tree(rng, depth - 1)
    return f"({ka} if {kc} > 0.0 else {kb})", f"np.where({nc} > 0, {na}, {nb})"


def _module(tmp_path, name, params, exprs):
    lines = ["import math", "import vkpersist as vkp", "", "",
             "@vkp.kernel", f"def {name}({', '.join(params)}, out):",
             "    i = vkp.global_id(0)", "    if i < out.shape[0]:"]
    lines += [f"        {p} = {p}s[i]".replace(f"{p}s[", f"{p}_in[") for p in []]
    for p in params:
        lines.append(f"        {p[:-3]} = {p}[i]")
    for k, e in enumerate(exprs):
        lines.append(f"        out[i, {k}] = {e}")
    path = tmp_path / f"{name}.py"
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


@pytest.mark.parametrize("seed", SEEDS_INT)
def test_random_integer_expressions(ctx, tmp_path, seed):
    rng = random.Random(seed)
    trees = [_int_tree(rng, 4) for _ in range(N_EXPR)]
    kernel = _module(tmp_path, f"int_exprs_{seed}", ["a_in", "b_in", "c_in"], [t[0] for t in trees])
    data = np.random.default_rng(seed)
    a = data.integers(-2**31, 2**31, N_ROWS).astype(np.int32)
    b = data.integers(-1000, 1000, N_ROWS).astype(np.int32)
    c = data.integers(-20, 20, N_ROWS).astype(np.int32)
    out = np.zeros((N_ROWS, N_EXPR), np.int32)
    kernel.forall(N_ROWS)(a, b, c, out)
    with np.errstate(all="ignore"):
        for k, (src, ref) in enumerate(trees):
            want = np.broadcast_to(eval(ref, {"np": np, "a": a, "b": b, "c": c}), (N_ROWS,))
            np.testing.assert_array_equal(out[:, k], want.astype(np.int32), err_msg=src)


@pytest.mark.parametrize("seed", SEEDS_FLOAT)
def test_random_float_expressions(ctx, tmp_path, seed):
    rng = random.Random(seed)
    trees = [_float_tree(rng, 4) for _ in range(N_EXPR)]
    kernel = _module(tmp_path, f"float_exprs_{seed}", ["x_in", "y_in", "z_in", "a_in", "b_in"],
                     [t[0] for t in trees])
    data = np.random.default_rng(seed)
    x, y, z = (data.standard_normal((3, N_ROWS)) * 3).astype(np.float32)
    a = data.integers(-50, 50, N_ROWS).astype(np.int32)
    b = data.integers(-5, 5, N_ROWS).astype(np.int32)
    out = np.zeros((N_ROWS, N_EXPR), np.float32)
    kernel.forall(N_ROWS)(x, y, z, a, b, out)
    env = {"np": np, "x": x, "y": y, "z": z, "a": a, "b": b}
    for k, (src, ref) in enumerate(trees):
        want = np.broadcast_to(eval(ref, env), (N_ROWS,)).astype(np.float32)
        assert want.dtype == np.float32
        # GPU float ops round like IEEE float32 (division and sqrt within a few ulp), so a
        # tree of a dozen operations agrees to a relative 1e-4 of its operands' magnitude
        scale = 1.0 + np.abs(want)
        bad = np.abs(out[:, k] - want) > 1e-4 * scale * 10
        assert bad.mean() <= 0.01, f"{src}: {bad.sum()} rows differ"
