"""Measures the math functions of kernels against NumPy, in ulps, on a Vulkan device.

    python tools/math_accuracy.py [--device N] [--markdown]

For each function and type (float32, float64) it runs sweeps over ordinary, tiny, huge and
special arguments (`cases`) and reports the largest error in ulps of the type (of the
correctly rounded result's magnitude) and whether every special value (nan, inf, signed
zeros) came out as NumPy has it. The reference is NumPy in long double (x87 80-bit: 11 bits
beyond float64) for float64 and NumPy float64 for float32. float32 results in the subnormal
range may be flushed to zero by the device and count as exact then.
tests/lang/test_lang_math.py runs the same sweeps, smaller, against the bounds of docs/language.md.
"""
from __future__ import annotations

import argparse
import math
import sys

import numpy as np

UNARY = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
         "acosh", "atanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "cbrt", "erf", "erfc", "gamma", "lgamma"]
BINARY = ["pow", "atan2", "hypot", "fmod", "remainder"]
NUMPY = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
         "acosh": "arccosh", "atanh": "arctanh", "atan2": "arctan2", "pow": "power"}
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0]


def _kernel(vkp, name: str):
    args = "x[i], y[i]" if name in BINARY else "x[i]"
    params = "x, y, out" if name in BINARY else "x, out"
    ns = vkp.compile_source(f"""
import math
import vkpersist as vkp

@vkp.kernel
def k({params}):
    i = vkp.global_id(0)
    if i < out.shape[0]:
        out[i] = {"math" if hasattr(math, name) else "vkp"}.{name}({args})
""", name=f"math_{name}")
    return ns["k"]


def _logspace(rng, lo, hi, n, signed=True):
    v = 10.0 ** rng.uniform(lo, hi, n)
    return v * rng.choice([-1.0, 1.0], n) if signed else v


def cases(name: str, dtype, n: int, seed: int = 0):
    """Arguments (x, or (x, y) for binary functions) for one function, as float64 arrays
    exactly representable in `dtype`."""
    rng = np.random.default_rng(seed)
    f64 = dtype == np.float64
    big = 307.0 if f64 else 38.0
    small = -307.0 if f64 else -37.0
    ovf = 709.0 if f64 else 88.0
    parts = [np.array(SPECIAL)]
    if name in ("sin", "cos", "tan"):
        k = rng.integers(-10**6, 10**6, n // 4)
        parts += [rng.uniform(-10, 10, n), _logspace(rng, small, big, n),
                  (k * (math.pi / 2)), rng.uniform(-1e5, 1e5, n // 4)]
        if f64:     # the float64 closest to a multiple of pi/2
            parts.append(np.array([6381956970095103 * 2.0 ** 797]))
    elif name in ("asin", "acos", "atanh"):
        parts += [rng.uniform(-1, 1, n), 1 - _logspace(rng, -16 if f64 else -7, 0, n // 2, False),
                  _logspace(rng, small, 0, n), np.array([1.5, -3.0])]
    elif name in ("atan", "asinh", "tanh", "sinh"):
        parts += [rng.uniform(-5, 5, n), _logspace(rng, small, big if name != "sinh" else 2.9, n)]
        if name == "sinh":
            parts.append(rng.uniform(-ovf - 2, ovf + 2, n))
    elif name in ("cosh", "exp", "expm1", "exp2"):
        lim = ovf * (1.45 if name == "exp2" else 1.0)
        parts += [rng.uniform(-lim - 40, lim + 2, n), rng.uniform(-3, 3, n),
                  _logspace(rng, small, 0, n)]
    elif name == "acosh":
        parts += [1 + _logspace(rng, -15 if f64 else -6, 1, n, False),
                  _logspace(rng, 0, big, n, False), np.array([0.5, -2.0])]
    elif name in ("log", "log2", "log10"):
        lo = -320.0 if f64 else -37.0
        parts += [_logspace(rng, lo, big, n, False), rng.uniform(0.5, 2, n),
                  1 + rng.uniform(-1e-6, 1e-6, n // 4), np.array([-1.0, -np.inf])]
    elif name == "log1p":
        parts += [_logspace(rng, small, big, n, False), -_logspace(rng, small, 0, n, False),
                  rng.uniform(-0.5, 1, n)]
    elif name in ("gamma", "lgamma"):
        top = 171.7 if f64 else 35.1
        parts += [rng.uniform(-20, top, n), rng.uniform(0, 3, n), _logspace(rng, small, 0, n),
                  -rng.integers(1, 30, n // 8) + rng.uniform(-0.4, 0.4, n // 8)]
        if name == "lgamma":      # (the C library's lgamma is off near its zeros at 1 and 2,
            #                        and every lgamma loses relative accuracy near the
            #                        negative zeros: tests/lang/test_lang_math.py checks those)
            parts = [p[((p < 0.9) | (p > 3.1)) & (p > 0)] for p in parts]
            parts.append(_logspace(rng, 0, big, n // 4, False))
    elif name in ("erf", "erfc"):
        parts += [rng.uniform(-6, 6, n), rng.uniform(-1.5, 1.5, n), rng.uniform(0, 27, n // 2),
                  _logspace(rng, small, 0, n)]
    elif name == "cbrt":
        lo = -320.0 if f64 else -44.0
        parts += [_logspace(rng, lo, big, n), rng.uniform(-10, 10, n)]
    elif name in ("atan2", "hypot", "fmod", "remainder"):
        y = np.concatenate([_logspace(rng, small, big, n), rng.uniform(-3, 3, n)])
        x = np.concatenate([_logspace(rng, small, big, n), rng.uniform(-3, 3, n)])
        sx, sy = np.meshgrid(SPECIAL, SPECIAL)
        x = np.concatenate([x, sx.ravel()]).astype(dtype).astype(np.float64)
        y = np.concatenate([y, sy.ravel()]).astype(dtype).astype(np.float64)
        return x, y
    elif name == "pow":
        x = _logspace(rng, -3, 3, n, False)
        y = rng.uniform(-1, 1, n) * (ovf * 0.999) / np.maximum(np.abs(np.log(x)), 1e-300)
        xs = np.concatenate([x, rng.uniform(0, 3, n), -rng.uniform(0, 10, n // 2),
                             -_logspace(rng, -2, 2, n // 2, False)])
        ys = np.concatenate([y, rng.uniform(-30, 30, n), rng.integers(-40, 40, n // 2),
                             rng.integers(-60, 60, n // 2).astype(float)])
        sp = SPECIAL + [3.0, -3.0, 1 / 3, -8.0, 1e300 if f64 else 1e30]
        sx, sy = np.meshgrid(sp, sp)
        x = np.concatenate([xs, sx.ravel()]).astype(dtype).astype(np.float64)
        y = np.concatenate([ys, sy.ravel()]).astype(dtype).astype(np.float64)
        return x, y
    x = np.concatenate(parts).astype(dtype).astype(np.float64)
    return x


def reference(name: str, dtype, *args):
    if name in ("erf", "erfc", "gamma", "lgamma"):    # Python's (the C library's)
        fn = getattr(math, name)

        def ref(a):
            try:
                return fn(a) if not np.isnan(a) else np.nan
            except ValueError:                 # poles and negative integers
                return np.nan if name == "gamma" and a != 0 else math.copysign(np.inf, a) \
                    if name == "gamma" else np.inf
            except OverflowError:
                return np.inf
        return np.array([ref(a) for a in args[0]])
    if name == "remainder":     # exact, so Python's float64 one is the reference
        return np.array([math.remainder(a, b) if np.isfinite(a) and not np.isnan(b) and b != 0
                         else np.nan for a, b in zip(*args)])
    fn = getattr(np, NUMPY.get(name, name))
    wide = np.longdouble if dtype == np.float64 else np.float64
    with np.errstate(all="ignore"):
        return fn(*(np.asarray(a, wide) for a in args))


def ulp_errors(got, ref, dtype) -> tuple[np.ndarray, np.ndarray]:
    """(error in ulps of `dtype`, where the special values disagree) elementwise."""
    got = np.asarray(got, np.float64)
    with np.errstate(all="ignore"):
        rounded = np.asarray(ref).astype(dtype)
        finite = np.isfinite(rounded) & np.isfinite(got)
        bad = ~finite & ~((np.isnan(rounded) & np.isnan(got)) | (rounded == got))
        zero = finite & (rounded == 0)
        bad |= zero & (got == 0) & (np.signbit(got) != np.signbit(rounded))
        tiny = np.finfo(dtype).tiny
        spacing = np.spacing(np.abs(rounded.astype(dtype))).astype(np.longdouble)
        err = np.where(finite, np.abs(np.asarray(got, np.longdouble) - ref) /
                       np.maximum(spacing, np.finfo(dtype).smallest_subnormal), 0)
        if dtype == np.float32:        # the device may flush float32 subnormals, also
            # where a result just above them came from a subnormal intermediate (NVIDIA)
            flushed = finite & (np.abs(rounded) < tiny) & (np.abs(got) < tiny)
            flushed |= finite & (np.abs(rounded) < 4 * tiny) & (got == 0)
            err = np.where(flushed, 0, err)
            bad &= ~(np.isfinite(got) & (np.abs(rounded) < tiny) & (got == 0))
    return np.asarray(err, np.float64), bad


def measure(vkp, name: str, dtype, n: int = 20000, seed: int = 0) -> dict:
    args = cases(name, dtype, n, seed)
    args = args if isinstance(args, tuple) else (args,)
    dev = [np.ascontiguousarray(a.astype(dtype)) for a in args]
    out = np.zeros(len(dev[0]), dtype)
    _kernel(vkp, name).forall(len(out))(*dev, out)
    ref = reference(name, dtype, *args)
    err, bad = ulp_errors(out, ref, dtype)
    if dtype == np.float32:            # a device that flushes subnormal arguments to zero
        tiny = np.finfo(np.float32).tiny
        flat = [np.where(np.abs(a) < tiny, np.copysign(0.0, a), a) for a in args]
        if any((f != a).any() for f, a in zip(flat, args)):
            err_flat, bad_flat = ulp_errors(out, reference(name, dtype, *flat), dtype)
            err, bad = np.minimum(err, err_flat), bad & bad_flat
    worst = int(np.argmax(err))
    return {"max_ulp": float(err.max()), "special_mismatch": int(bad.sum()),
            "worst_args": [float(a[worst]) for a in args], "got": float(out[worst]),
            "want": float(ref[worst]),
            "bad_args": [[float(a[i]) for a in args] + [float(out[i])]
                         for i in np.flatnonzero(bad)[:5]]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", type=int, default=None)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("-n", type=int, default=20000)
    ap.add_argument("functions", nargs="*", default=UNARY + BINARY)
    a = ap.parse_args()
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
    import vkpersist as vkp
    ctx = vkp.Context(a.device) if a.device is not None else vkp.Context()
    rows = []
    with ctx:
        for name in a.functions:
            res = {}
            for dtype in (np.float32, np.float64):
                if dtype == np.float64 and not ctx.info.float64:
                    continue
                res[dtype] = measure(vkp, name, dtype, a.n)
            rows.append((name, res))
            if not a.markdown:
                for dtype, r in res.items():
                    print(f"{name:6s} {np.dtype(dtype).name:8s} max {r['max_ulp']:8.3f} ulp at "
                          f"{r['worst_args']} got {r['got']!r} want {r['want']!r}; "
                          f"special mismatches {r['special_mismatch']} {r['bad_args']}")
    if a.markdown:
        print(f"Measured on {ctx.info.name} with tools/math_accuracy.py (-n {a.n}):\n")
        print("| function | float32 max ulp | float64 max ulp |")
        print("|---|---|---|")
        for name, res in rows:
            cells = [f"{res[d]['max_ulp']:.2f}" if d in res else "n/a"
                     for d in (np.float32, np.float64)]
            print(f"| {name} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
