"""Time per element of the kernel language's math functions (lang/mathlib.py), float32 and
float64, against a copy kernel and exp measured in the same run.

    python benchmarks/math_functions.py [--device SELECTOR] [--n 1e6] [--repeats N]
                                        [--functions sin,cos,...]

Each row: one launch of `out[i] = math.FN(x[i])` over n elements of ordinary arguments
(sin/cos/tan and atan in [-10, 10], logs of 1 + |x|, ...), then synchronize; the median
time in ns per element, and its ratio to exp's (the cheapest transcendental: a range
reduction and one polynomial). The results are checked against NumPy (float64: within
1e-12 relative, float32: 1e-5), so a fast wrong function fails the run.
Target: sin, cos, tan and atan within 3x of exp (before the table lookups became selects,
lavapipe ran sin at 4-10x exp: Payne-Hanek's table indexing ran for every argument).
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import vkpersist as vkp
from _device import selector                       # benchmarks/_device.py

FUNCTIONS = ["exp", "sin", "cos", "tan", "atan", "asin", "sinh", "tanh", "log", "erf",
             "gamma"]
POSITIVE = {"log", "log2", "log10", "gamma", "lgamma", "acosh"}
UNIT = {"asin", "acos", "atanh"}
TARGET = {"sin": 3.0, "cos": 3.0, "tan": 3.0, "atan": 3.0}

SOURCE = """
import math
import vkpersist as vkp

@vkp.kernel
def k(x, out):
    i = vkp.global_id(0)
    if i < out.shape[0]:
        out[i] = BODY
"""


def _arguments(name, n, dtype):
    x = np.random.default_rng(1).uniform(-10, 10, n)
    if name in POSITIVE:
        x = np.abs(x) + 1
    elif name in UNIT:
        x = x / 10
    return x.astype(dtype)


def _reference(name, x):
    import math
    f = getattr(np, {"asin": "arcsin", "atan": "arctan"}.get(name, name), None)
    if f is None:
        f = np.vectorize(getattr(math, name))
    return f(x.astype(np.float64))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--n", type=float, default=1e6)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--functions", default=",".join(FUNCTIONS))
    args = parser.parse_args()
    ctx = vkp.Context(selector(args.device))
    n = int(args.n)
    names = ["copy", *args.functions.split(",")]
    dtypes = [np.float32] + ([np.float64] if ctx.info.float64 else [])
    failed = []
    print(f"{ctx.info.name}, n = {n:,}: median ns per element (ratio to exp)")
    for dtype in dtypes:
        times = {}
        for name in names:
            body = "x[i]" if name == "copy" else \
                f"{'vkp' if name == 'exp2' else 'math'}.{name}(x[i])"
            k = vkp.compile_source(SOURCE.replace("BODY", body), name=f"bench_{name}")["k"]
            x = _arguments(name, n, dtype)
            dx, out = vkp.to_device(x, ctx), ctx.zeros(n, dtype)
            k.forall(n)(dx, out)
            ctx.synchronize()
            samples = []
            for _ in range(args.repeats):
                t = time.perf_counter()
                k.forall(n)(dx, out)
                ctx.synchronize()
                samples.append(time.perf_counter() - t)
            times[name] = statistics.median(samples) / n * 1e9
            if name != "copy":
                tol = 1e-12 if dtype == np.float64 else 1e-5
                np.testing.assert_allclose(out.numpy(), _reference(name, x), rtol=tol,
                                           atol=tol, err_msg=f"{name} {dtype.__name__}")
        base = times.get("exp")
        for name, ns in times.items():
            ratio = f"{ns / base:5.2f}x exp" if base else ""
            verdict = ""
            if base and name in TARGET:
                ok = ns / base <= TARGET[name]
                verdict = "ok" if ok else f"SLOW (target {TARGET[name]}x)"
                if not ok:
                    failed.append(f"{name} {dtype.__name__}")
            print(f"  {np.dtype(dtype).name:8s} {name:7s} {ns:8.2f} ns  {ratio}  {verdict}")
    if failed:
        raise SystemExit(f"slower than the target: {', '.join(failed)}")


if __name__ == "__main__":
    main()
