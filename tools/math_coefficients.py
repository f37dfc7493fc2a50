"""Writes vkpersist/lang/_mathcoef.py: the polynomial coefficients of the generated math
functions (vkpersist/lang/mathlib.py), float32 and float64, and the bits of 2/pi that the
large-argument trigonometric reduction reads.

Each polynomial is a function's Taylor series, summed exactly in rationals to far beyond
the precision needed, then economized with Chebyshev polynomials on the interval the
reduced argument lives on (exact rational arithmetic throughout) down to the lowest degree
whose dropped terms stay below the target error; the coefficients are then rounded to the
float type. Nothing here comes from another library's tables.

    python tools/math_coefficients.py          # rewrite the module
"""
from __future__ import annotations

import math
import pathlib
from fractions import Fraction as Q

import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[1] / "vkpersist" / "lang" / "_mathcoef.py"


def _binom_shift(coeffs, c, h):
    """Coefficients in u of p(c + h*u) for p given by coeffs in z."""
    n = len(coeffs)
    out = [Q(0)] * n
    for k, a in enumerate(coeffs):
        for j in range(k + 1):
            out[j] += a * math.comb(k, j) * c ** (k - j) * h ** j
    return out


def _cheb_T(n):
    """Monomial coefficients of the Chebyshev polynomials T_0..T_n."""
    T = [[Q(1)], [Q(0), Q(1)]]
    for k in range(2, n + 1):
        a = [Q(0)] + [2 * x for x in T[k - 1]]
        b = T[k - 2] + [Q(0)] * (len(a) - len(T[k - 2]))
        T.append([x - y for x, y in zip(a, b)])
    return T[:n + 1]


def economize(taylor, lo, hi, tol):
    """Monomial coefficients (in z) of a polynomial within `tol` (plus the Taylor tail) of
    the series `taylor` on [lo, hi], of the lowest degree Chebyshev economization allows."""
    c, h = (Q(lo) + Q(hi)) / 2, (Q(hi) - Q(lo)) / 2
    u = _binom_shift(taylor, c, h)
    n = len(u) - 1
    T = _cheb_T(n)
    # monomials -> Chebyshev, from the top degree down
    cheb = [Q(0)] * (n + 1)
    rest = list(u)
    for k in range(n, -1, -1):
        lead = rest[k] / T[k][k]
        cheb[k] = lead
        for j, t in enumerate(T[k]):
            rest[j] -= lead * t
    deg, dropped = n, Q(0)
    while deg > 0 and dropped + abs(cheb[deg]) < tol:
        dropped += abs(cheb[deg])
        deg -= 1
    mono_u = [Q(0)] * (deg + 1)
    for k in range(deg + 1):
        for j, t in enumerate(T[k]):
            mono_u[j] += cheb[k] * t
    # back to z: u = (z - c) / h
    return _binom_shift(mono_u, -c / h, 1 / h)


def _fact(n):
    return math.factorial(n)


N = 40   # Taylor terms summed before economizing
SERIES = {
    # sin r = r + r^3 S(r^2)
    "sin": [Q((-1) ** (k + 1), _fact(2 * k + 3)) for k in range(N)],
    # cos r = 1 - r^2/2 + r^4 C(r^2)
    "cos": [Q((-1) ** k, _fact(2 * k + 4)) for k in range(N)],
    # exp r = 1 + r + r^2 E(r)
    "exp": [Q(1, _fact(k + 2)) for k in range(N)],
    # log(1+f) = 2s + s^3 L(s^2), s = f / (2 + f)
    "log": [Q(2, 2 * k + 3) for k in range(N)],
    # the same, past its first term: L = 2/3 + z L2(z)
    "log2": [Q(2, 2 * k + 5) for k in range(N)],
    # atan t = t + t^3 A(t^2)
    "atan": [Q((-1) ** (k + 1), 2 * k + 3) for k in range(N)],
    # asin x = x + x^3 Q(x^2)
    "asin": [Q(_fact(2 * n), 4 ** n * _fact(n) ** 2 * (2 * n + 1)) for n in range(1, 3 * N)],
}
# (interval of the polynomial's variable, absolute tolerance per precision)
PI4 = Q(7854, 10000)
LN2_2 = Q(3466, 10000)
S_LOG = Q(1716, 10000)
INTERVALS = {
    "sin": (0, PI4 ** 2, {"f64": Q(1, 2 ** 60), "f32": Q(1, 2 ** 30)}),
    "cos": (0, PI4 ** 2, {"f64": Q(1, 2 ** 60), "f32": Q(1, 2 ** 30)}),
    "exp": (-LN2_2, LN2_2, {"f64": Q(1, 2 ** 59), "f32": Q(1, 2 ** 29)}),
    "log": (0, S_LOG ** 2, {"f64": Q(1, 2 ** 58), "f32": Q(1, 2 ** 28)}),
    "log2": (0, S_LOG ** 2, {"f64": Q(1, 2 ** 58), "f32": Q(1, 2 ** 28)}),
    "atan": (0, Q(1, 64), {"f64": Q(1, 2 ** 58), "f32": Q(1, 2 ** 28)}),
    "asin": (0, Q(1, 4), {"f64": Q(1, 2 ** 60), "f32": Q(1, 2 ** 30)}),
}


def two_over_pi_words(count: int) -> list[int]:
    """The first `count` 32-bit words of the binary fraction of 2/pi."""
    bits = 32 * count + 64
    # pi by Machin's formula in fixed point with `bits` + guard bits
    one = 1 << (bits + 32)

    def arctan_inv(x):
        total, term, k, sign = 0, one // x, 1, 1
        while term:
            total += sign * (term // k)
            term //= x * x
            k += 2
            sign = -sign
        return total
    pi = 16 * arctan_inv(5) - 4 * arctan_inv(239)          # pi * 2**(bits + 32)
    frac = (2 * one * one) // pi                            # 2/pi * 2**(bits + 32)
    frac >>= 32 + bits - 32 * count                         # 2/pi * 2**(32 * count)
    return [(frac >> (32 * (count - 1 - i))) & 0xFFFFFFFF for i in range(count)]


def constants() -> dict:
    """Decimal strings (45 digits) of the constants the functions split into hi/lo parts."""
    from decimal import Decimal as D, getcontext
    getcontext().prec = 60
    one = D(1)

    def atan(x):                  # halve the argument once, then the series
        x = x / (1 + (1 + x * x).sqrt())
        total, term, k = D(0), x, 1
        while abs(term) > D(10) ** -58:
            total += term / k
            term *= -x * x
            k += 2
        return 2 * total
    pi = 4 * (4 * atan(one / 5) - atan(one / 239))
    ln2, ln10 = D(2).ln(), D(10).ln()
    out = {"pi": pi, "ln2": ln2, "log2e": one / ln2, "log10e": one / ln10,
           "log10_2": ln2 / ln10}
    for j in range(9):
        out[f"atan{j}"] = atan(D(j) / 8)
    return {k: format(v, ".45e") for k, v in out.items()}


def main() -> None:
    lines = ['"""Generated by tools/math_coefficients.py: do not edit."""', "",
             "# polynomial coefficients, lowest degree first", "POLY = {"]
    for name, (lo, hi, tols) in INTERVALS.items():
        for prec, tol in tols.items():
            coeffs = economize(SERIES[name], lo, hi, tol)
            dtype = np.float64 if prec == "f64" else np.float32
            vals = [repr(float(dtype(float(c)))) for c in coeffs]
            lines.append(f"    ({name!r}, {prec!r}): ({', '.join(vals)},),")
    lines.append("}")
    lines.append("")
    lines.append("# constants to 45 digits")
    lines.append("CONST = {")
    for k, v in constants().items():
        lines.append(f"    {k!r}: {v!r},")
    lines.append("}")
    words = two_over_pi_words(40)
    lines.append("")
    lines.append("# 2/pi, 32 bits a word, most significant first")
    lines.append("TWO_OVER_PI = (")
    for i in range(0, len(words), 6):
        lines.append("    " + " ".join(f"0x{w:08x}," for w in words[i:i + 6]))
    lines.append(")")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
