"""The GLSL of the math functions (lang/mathlib.py renders it for float32 and float64):
`$F` is the float type, `${S}` the name suffix, `$NAME` a constant of mathlib._constants,
`POLY<name>(v)` a polynomial of _mathcoef.py in Horner form, SIGNBIT, TRUNC and GAP
precision-specific snippets. `rem_big` (Payne-Hanek) and `two_over_pi` are built in mathlib."""
from __future__ import annotations

FUNCTIONS: dict = {}          # name -> (helpers it calls, GLSL template)


def _fn(name, deps, template):
    FUNCTIONS[name] = (tuple(deps), template)


_fn("signbit", [], """bool _vkp_signbit${S}($F x) {
    return SIGNBIT;
}""")
_fn("two_prod", [], """void _vkp_two_prod${S}($F a, $F b, out $F p, out $F e) {
    // Dekker: p + e == a * b exactly
    precise $F pp = a * b;
    precise $F ca = $SPLIT * a;
    precise $F ah = ca - (ca - a);
    precise $F al = a - ah;
    precise $F cb = $SPLIT * b;
    precise $F bh = cb - (cb - b);
    precise $F bl = b - bh;
    precise $F ee = ((ah * bh - pp) + ah * bl + al * bh) + al * bl;
    p = pp;
    e = ee;
}""")
_fn("two_sum", [], """void _vkp_two_sum${S}($F a, $F b, out $F s, out $F e) {
    // Knuth: s + e == a + b exactly
    precise $F ss = a + b;
    precise $F bb = ss - a;
    precise $F ee = (a - (ss - bb)) + (b - bb);
    s = ss;
    e = ee;
}""")
_fn("unflush", ["pow2i"], """void _vkp_unflush${S}(inout $F a, inout $F b) {
    // a divisor whose reciprocal is subnormal, and the dividend, scaled by 1/4 (exactly; a
    // dividend that loses bits to it has a quotient below the normal range anyway): NVIDIA
    // divides as a * (1 / b) and flushes that reciprocal to zero (FLT_MAX / FLT_MAX gave 0)
    if (abs(b) > _vkp_pow2i${S}(IEMAX - 2)) {
        a *= 0.25;
        b *= 0.25;
    }
}""")
_fn("quot", ["unflush"], """$F _vkp_quot${S}($F a, $F b) {
    // the device's a / b, also for divisors whose reciprocal is subnormal
    _vkp_unflush${S}(a, b);
    precise $F q = a / b;
    return q;
}""")
_fn("div", ["two_prod", "pow2i", "quot"], """$F _vkp_div${S}($F a, $F b) {
    // a / b correctly rounded but for rare ties: Vulkan lets a device's division be off by
    // 2.5 ulp (NVIDIA's is), so the quotient is corrected by its exact residual
    precise $F q = _vkp_quot${S}(a, b);
    // (no correction where the residual would under- or overflow: Dekker's split of q * b)
    $F big = _vkp_pow2i${S}(IEMAX - 32);
    if (abs(q) < _vkp_pow2i${S}(IEMIN + IMANT) || abs(q) > big || abs(b) > big || q == 0.0)
        return q;
    $F p, e;
    _vkp_two_prod${S}(q, b, p, e);
    precise $F r = (a - p) - e;
    precise $F res = q + r / b;
    return res;
}""")
_fn("scale", [], """$F _vkp_scale${S}($F x, int k) {
    // x * 2**k in two steps, so that neither overflows nor leaves the normal range early
    int k1 = k / 2;
    return ldexp(ldexp(x, k1), k - k1);
}""")
_fn("expr", [], """$F _vkp_expr${S}($F r, $F rl) {
    // e**(r + rl), |r| <= ln2/2, |rl| tiny
    precise $F p = r + (r * r * POLY<exp>(r) + rl * (1.0 + r));
    return 1.0 + p;
}""")
_fn("expdd", ["expr", "scale"], """$F _vkp_expdd${S}($F a, $F b) {
    // e**(a + b), a in [EXP_UNDER, EXP_OVER], |b| tiny
    $F kf = roundEven(a * $INV_LN2);
    precise $F hi = a - kf * $LN2_HI;
    precise $F lo = kf * $LN2_LO - b;
    precise $F r = hi - lo;
    precise $F rl = (hi - r) - lo;
    return _vkp_scale${S}(_vkp_expr${S}(r, rl), int(kf));
}""")
_fn("exp", ["expdd"], """$F _vkp_exp${S}($F x) {
    if (isnan(x)) return x;
    if (x > $EXP_OVER) return $INF;
    if (x < $EXP_UNDER) return 0.0;
    return _vkp_expdd${S}(x, 0.0);
}""")
_fn("exp2", ["expr", "scale", "two_prod"], """$F _vkp_exp2${S}($F x) {
    if (isnan(x)) return x;
    if (x > 1024.5) return $INF;
    if (x < -1075.5) return 0.0;
    $F k = roundEven(x);
    $F f = x - k;
    $F r, rl;
    _vkp_two_prod${S}(f, $LN2_FHI, r, rl);
    rl += f * $LN2_FLO;
    precise $F s = r + rl;
    rl = rl - (s - r);
    return _vkp_scale${S}(_vkp_expr${S}(s, rl), int(k));
}""")
_fn("expm1", ["expr", "scale"], """$F _vkp_expm1${S}($F x) {
    if (isnan(x)) return x;
    if (x > $EXP_OVER) return $INF;
    if (x < $EXPM1_LOW) return -1.0;
    if (abs(x) < $TINY * $TINY) return x;
    $F kf = roundEven(x * $INV_LN2);
    precise $F hi = x - kf * $LN2_HI;
    precise $F lo = kf * $LN2_LO;
    precise $F r = hi - lo;
    precise $F c = (hi - r) - lo;
    precise $F p = r + (r * r * POLY<exp>(r) + c * (1.0 + r));
    int k = int(kf);
    if (k == 0) return p;
    if (k > 56 || k < -56) return _vkp_scale${S}(1.0 + p, k) - 1.0;
    $F t = ldexp(1.0, k);
    precise $F res = (t - 1.0) + t * p;
    return res;
}""")
_fn("logsplit", [], """$F _vkp_logsplit${S}($F x, out $F f) {
    // finite x > 0 as 2**e * (1 + f), 1 + f in [sqrt(1/2), sqrt(2)); returns e
    int e;
    int bias = 0;
    if (x < $MIN_NORMAL) { x = ldexp(x, 60); bias = 60; }
    $F m = frexp(x, e);
    if (m < $SQRT_HALF) { m *= 2.0; e -= 1; }
    f = m - 1.0;
    return $F(e - bias);
}""")
_fn("log1pf", [], """$F _vkp_log1pf${S}($F f, $F e, $F c) {
    // e*ln2 + log(1 + f) + c, f from logsplit, c a small correction
    precise $F s = f / (2.0 + f);
    precise $F z = s * s;
    precise $F R = z * POLY<log>(z);
    precise $F hfsq = 0.5 * f * f;
    precise $F res = e * $LN2_HI + (f - (hfsq - (s * (hfsq + R) + (e * $LN2_LO + c))));
    return res;
}""")
_fn("log", ["logsplit", "log1pf"], """$F _vkp_log${S}($F x) {
    if (isnan(x) || x < 0.0) return $NAN;
    if (x == 0.0) return -$INF;
    if (isinf(x)) return x;
    $F f;
    $F e = _vkp_logsplit${S}(x, f);
    return _vkp_log1pf${S}(f, e, 0.0);
}""")
_fn("log1p", ["logsplit", "log1pf"], """$F _vkp_log1p${S}($F x) {
    if (isnan(x) || x < -1.0) return $NAN;
    if (x == -1.0) return -$INF;
    if (isinf(x)) return x;
    if (abs(x) < $TINY * $TINY) return x;
    if (x > $SQRT_HALF - 1.0 && x < 0.41421356) return _vkp_log1pf${S}(x, 0.0, 0.0);
    precise $F u = 1.0 + x;
    precise $F c = (u >= 2.0) ? (1.0 - (u - x)) : (x - (u - 1.0));
    $F f;
    $F e = _vkp_logsplit${S}(u, f);
    return _vkp_log1pf${S}(f, e, c / u);
}""")
_LOGB = """$F _vkp_NAME${S}($F x) {
    if (isnan(x) || x < 0.0) return $NAN;
    if (x == 0.0) return -$INF;
    if (isinf(x)) return x;
    $F f;
    $F e = _vkp_logsplit${S}(x, f);
    precise $F s = f / (2.0 + f);
    precise $F z = s * s;
    precise $F R = z * POLY<log>(z);
    precise $F hfsq = 0.5 * f * f;
    precise $F hi = TRUNC(f - hfsq);
    precise $F lo = ((f - hi) - hfsq) + s * (hfsq + R);
    // (hi + lo) = log(1 + f); times 1/ln(base), plus e * log_base(2), in two parts
    precise $F vhi = hi * $B_HI;
    precise $F vlo = (lo + hi) * $B_LO + lo * $B_HI + e * $E_LO;
    precise $F y = e * $E_HI;
    precise $F w = y + vhi;
    vlo += (y - w) + vhi;
    precise $F res = vlo + w;
    return res;
}"""
_fn("log2", ["logsplit"], _LOGB.replace("NAME", "log2").replace("$B_", "$LOG2E_")
    .replace("$E_HI", "1.0").replace("$E_LO", "0.0"))
_fn("log10", ["logsplit"], _LOGB.replace("NAME", "log10").replace("$B_", "$LOG10E_")
    .replace("$E_", "$LOG10_2_"))
_fn("logdd", ["logsplit", "two_prod", "two_sum"], """void _vkp_logdd${S}($F x, out $F hi, out $F lo) {
    // log(x) as hi + lo to about twice the precision, finite x > 0 (for pow)
    $F f;
    $F e = _vkp_logsplit${S}(x, f);
    precise $F dh = 2.0 + f;
    precise $F dl = f - (dh - 2.0);
    $F sh = f / dh;
    $F p, pe;
    _vkp_two_prod${S}(sh, dh, p, pe);
    precise $F sl = (((f - p) - pe) - sh * dl) / dh;
    $F zh, ze;
    _vkp_two_prod${S}(sh, sh, zh, ze);
    precise $F zl = ze + 2.0 * sh * sl;
    $F uh, ue;
    _vkp_two_prod${S}(sh, zh, uh, ue);
    precise $F ul = ue + sh * zl + sl * zh;
    // (2/3) s^3 in two parts, the rest of the series in one
    $F vh, ve;
    _vkp_two_prod${S}(uh, $TWO3_HI, vh, ve);
    precise $F vl = ve + uh * $TWO3_LO + ul * $TWO3_HI;
    precise $F w = uh * zh * POLY<log2>(zh);
    $F h, l;
    _vkp_two_sum${S}(2.0 * sh, vh, h, l);
    l += 2.0 * sl + vl + w;
    $F H, L;
    _vkp_two_sum${S}(e * $LN2_HI, h, H, L);
    L += l + e * $LN2_LO;
    precise $F s = H + L;
    lo = L - (s - H);
    hi = s;
}""")
_fn("pow", ["signbit", "logdd", "two_prod", "expdd"], """$F _vkp_pow${S}($F x, $F y) {
    // C99 / NumPy: pow(x, +-0) = 1 and pow(1, y) = 1 even for nan
    if (y == 0.0 || x == 1.0) return 1.0;
    if (isnan(x) || isnan(y)) return $NAN;
    $F ax = abs(x);
    if (isinf(y)) {
        if (ax == 1.0) return 1.0;
        return ((ax < 1.0) == (y < 0.0)) ? $INF : 0.0;
    }
    bool yint = floor(y) == y;
    bool yodd = yint && floor(0.5 * y) != 0.5 * y;
    bool neg = _vkp_signbit${S}(x);
    if (x == 0.0 || isinf(x)) {
        $F r = ((x == 0.0) == (y < 0.0)) ? $INF : 0.0;
        return (neg && yodd) ? -r : r;
    }
    if (neg && !yint) return $NAN;
    $F lh, ll;
    _vkp_logdd${S}(ax, lh, ll);
    $F ph, pe;
    _vkp_two_prod${S}(y, lh, ph, pe);
    $F r;
    if (ph > $EXP_OVER) r = $INF;
    else if (ph < $EXP_UNDER) r = 0.0;
    else {
        precise $F pl = pe + y * ll;
        precise $F s = ph + pl;
        pl = pl - (s - ph);
        r = _vkp_expdd${S}(s, pl);
    }
    return (neg && yodd) ? -r : r;
}""")
# ---- trigonometric ----
_fn("sink", [], """$F _vkp_sink${S}($F x, $F y) {
    // sin(x + y), |x| <= ~pi/4, |y| tiny
    precise $F z = x * x;
    precise $F res = x + (z * x * POLY<sin>(z) + y * (1.0 - 0.5 * z));
    return res;
}""")
_fn("cosk", [], """$F _vkp_cosk${S}($F x, $F y) {
    // cos(x + y), |x| <= ~pi/4, |y| tiny
    precise $F z = x * x;
    precise $F hz = 0.5 * z;
    precise $F w = 1.0 - hz;
    precise $F res = w + (((1.0 - w) - hz) + (z * z * POLY<cos>(z) - x * y));
    return res;
}""")
_fn("two_over_pi", [], "")          # the table, shared by both precisions
_fn("rem_big", ["two_prod", "two_over_pi"], "")    # built by mathlib._rem_big_code
_fn("rem_pio2", ["two_sum", "rem_big"], """int _vkp_rem_pio2${S}($F x, out $F rh, out $F rl) {
    // x = k pi/2 + rh + rl with |rh + rl| <= ~pi/4; returns k mod 4 (finite x)
    if (abs(x) <= $PIO4) { rh = x; rl = 0.0; return 0; }
    if (abs(x) >= $CW_MAX) return _vkp_rem_big${S}(x, rh, rl);
    $F kf = roundEven(x * $TWO_OVER_PI);
    precise $F y = x - kf * $PIO2_1;
    $F h, l, h2, l2;
    _vkp_two_sum${S}(y, -(kf * $PIO2_2), h, l);
    _vkp_two_sum${S}(h, -(kf * $PIO2_3), h2, l2);
    precise $F lo = (l + l2) - kf * $PIO2_4;
    precise $F s = h2 + lo;
    rl = lo - (s - h2);
    rh = s;
    return int(kf) & 3;
}""")
_fn("sin", ["rem_pio2", "sink", "cosk"], """$F _vkp_sin${S}($F x) {
    if (isinf(x) || isnan(x)) return $NAN;
    if (abs(x) < $TINY) return x;
    $F a, b;
    int n = _vkp_rem_pio2${S}(x, a, b);
    $F r = (n & 1) == 0 ? _vkp_sink${S}(a, b) : _vkp_cosk${S}(a, b);
    return n >= 2 ? -r : r;
}""")
_fn("cos", ["rem_pio2", "sink", "cosk"], """$F _vkp_cos${S}($F x) {
    if (isinf(x) || isnan(x)) return $NAN;
    $F a, b;
    int n = _vkp_rem_pio2${S}(x, a, b);
    $F r = (n & 1) == 0 ? _vkp_cosk${S}(a, b) : _vkp_sink${S}(a, b);
    return (n == 1 || n == 2) ? -r : r;
}""")
_fn("tan", ["rem_pio2", "sink", "cosk"], """$F _vkp_tan${S}($F x) {
    if (isinf(x) || isnan(x)) return $NAN;
    if (abs(x) < $TINY) return x;
    $F a, b;
    int n = _vkp_rem_pio2${S}(x, a, b);
    $F s = _vkp_sink${S}(a, b);
    $F c = _vkp_cosk${S}(a, b);
    return (n & 1) == 0 ? s / c : -c / s;
}""")
_fn("atan", [], """$F _vkp_atan${S}($F x) {
    if (isnan(x)) return x;
    $F ax = abs(x);
    if (ax < $TINY) return x;
    bool inv = ax > 1.0;
    $F t = inv ? 1.0 / ax : ax;
    // atan(t) = atan(j/8) + atan(u), u = (t - j/8) / (1 + t j/8), |u| <= 1/16 (1/8 for
    // j = 0, so that the table's rounding never weighs on a result half its size)
    $F cj = t < 0.125 ? 0.0 : roundEven(t * 8.0);
    int j = int(cj);
    $F c = cj * 0.125;
    $F u = (t - c) / (1.0 + t * c);
    precise $F z = u * u;
    precise $F a = u + u * z * POLY<atan>(z);
    precise $F r = inv ? _vkp_atan_ihi${S}[j] + (_vkp_atan_ilo${S}[j] - a)
                       : _vkp_atan_hi${S}[j] + (a + _vkp_atan_lo${S}[j]);
    return x < 0.0 ? -r : r;
}""")
_fn("atan2", ["signbit", "atan", "div"], """$F _vkp_atan2${S}($F y, $F x) {
    if (isnan(x) || isnan(y)) return $NAN;
    bool nx = _vkp_signbit${S}(x);
    $F r;
    if (y == 0.0) r = nx ? $PI_HI : 0.0;
    else if (isinf(x)) r = isinf(y) ? (nx ? $PI3O4 : $PIO4) : (nx ? $PI_HI : 0.0);
    else if (x == 0.0 || isinf(y)) r = $PIO2_HI;
    else {
        $F ay = abs(y), ax = abs(x);
        int ey, ex;
        frexp(ay, ey);
        frexp(ax, ex);
        if (ey - ex > GAP) r = $PIO2_HI;
        else if (ex - ey > GAP && nx) r = $PI_HI;
        else {
            // scaled near 1 (an approximate division of huge numbers can flush the
            // reciprocal to zero), then divided to the last bit
            $F a = _vkp_atan${S}(_vkp_div${S}(ldexp(ay, -ex), ldexp(ax, -ex)));
            r = nx ? $PI_HI - (a - $PI_LO) : a;
        }
    }
    return _vkp_signbit${S}(y) ? -r : r;
}""")
_ASIN_TAIL = """    $F z = 0.5 * (1.0 - ax);
    $F s = sqrt(z);
    $F p, pe;
    _vkp_two_prod${S}(s, s, p, pe);
    precise $F c = ((z - p) - pe) / (2.0 * s);     // s + c: sqrt(z) to twice the precision
    precise $F sw = s * (z * POLY<asin>(z));         // asin(s) = s + c + sw
"""
_fn("asin", ["two_prod"], """$F _vkp_asin${S}($F x) {
    if (isnan(x)) return x;
    $F ax = abs(x);
    if (ax > 1.0) return $NAN;
    if (ax < $TINY) return x;
    if (ax <= 0.5) {
        precise $F z = x * x;
        precise $F res = x + x * z * POLY<asin>(z);
        return res;
    }
    if (ax == 1.0) return x > 0.0 ? $PIO2_HI : -$PIO2_HI;
""" + _ASIN_TAIL + """    // asin(ax) = pi/2 - 2 asin(s)
    precise $F r;
    if (s >= 0.1963) r = $PIO4_HI + (($PIO4_HI - 2.0 * s) + ($PIO2_LO - 2.0 * (c + sw)));
    else r = $PIO2_HI - (2.0 * (s + (c + sw)) - $PIO2_LO);
    return x < 0.0 ? -r : r;
}""")
_fn("acos", ["two_prod"], """$F _vkp_acos${S}($F x) {
    if (isnan(x)) return x;
    $F ax = abs(x);
    if (ax > 1.0) return $NAN;
    if (ax <= 0.5) {
        precise $F z = x * x;
        precise $F res = $PIO2_HI - (x - ($PIO2_LO - x * z * POLY<asin>(z)));
        return res;
    }
    if (ax == 1.0) return x > 0.0 ? 0.0 : $PI_HI;
""" + _ASIN_TAIL + """    // acos(x) = 2 asin(s) for x > 0, pi - 2 asin(s) for x < 0
    precise $F res = x > 0.0 ? 2.0 * (s + (c + sw)) : $PI_HI - (2.0 * (s + (c + sw)) - $PI_LO);
    return res;
}""")
# ---- hyperbolic ----
_fn("sinh", ["expm1", "exp"], """$F _vkp_sinh${S}($F x) {
    if (isnan(x) || isinf(x)) return x;
    $F ax = abs(x);
    if (ax < $TINY) return x;
    $F r;
    if (ax < $HUGE_EXP) {
        $F t = _vkp_expm1${S}(ax);
        r = 0.5 * (t + t / (t + 1.0));
    } else if (ax < $EXP_OVER) r = 0.5 * _vkp_exp${S}(ax);
    else {
        // e**ax / 2 = w * (e**2 / 2) * w with w = e**(ax/2 - 1): no product of any order
        // overflows (NVIDIA's compiler reassociated (0.5 * w) * w into an inf)
        $F w = _vkp_exp${S}(0.5 * ax - 1.0);
        r = (w * $HALF_E2) * w;
    }
    return x < 0.0 ? -r : r;
}""")
_fn("cosh", ["expm1", "exp"], """$F _vkp_cosh${S}($F x) {
    if (isnan(x)) return x;
    $F ax = abs(x);
    if (ax < 0.3465) {
        $F t = _vkp_expm1${S}(ax);
        $F w = 1.0 + t;
        return 1.0 + (t * t) / (w + w);
    }
    if (ax < $HUGE_EXP) {
        $F t = _vkp_exp${S}(ax);
        return 0.5 * t + 0.5 / t;
    }
    if (ax < $EXP_OVER) return 0.5 * _vkp_exp${S}(ax);
    $F w = _vkp_exp${S}(0.5 * ax - 1.0);        // as in sinh: no product overflows
    return (w * $HALF_E2) * w;
}""")
_fn("tanh", ["expm1"], """$F _vkp_tanh${S}($F x) {
    if (isnan(x)) return x;
    $F ax = abs(x);
    if (ax < $TINY) return x;
    $F r;
    if (ax >= $HUGE_EXP) r = 1.0;
    else if (ax >= 1.0) r = 1.0 - 2.0 / (_vkp_expm1${S}(2.0 * ax) + 2.0);
    else {
        $F t = _vkp_expm1${S}(-2.0 * ax);
        r = -t / (t + 2.0);
    }
    return x < 0.0 ? -r : r;
}""")
_fn("asinh", ["log", "log1p"], """$F _vkp_asinh${S}($F x) {
    if (isnan(x) || isinf(x)) return x;
    $F ax = abs(x);
    if (ax < $TINY) return x;
    $F r;
    if (ax > $BIG) r = _vkp_log${S}(ax) + $LN2_FHI;
    else if (ax > 2.0) r = _vkp_log${S}(2.0 * ax + 1.0 / (sqrt(ax * ax + 1.0) + ax));
    else {
        $F t = ax * ax;
        r = _vkp_log1p${S}(ax + t / (1.0 + sqrt(1.0 + t)));
    }
    return x < 0.0 ? -r : r;
}""")
_fn("acosh", ["log", "log1p"], """$F _vkp_acosh${S}($F x) {
    if (isnan(x) || x < 1.0) return $NAN;
    if (isinf(x)) return x;
    if (x > $BIG) return _vkp_log${S}(x) + $LN2_FHI;
    if (x > 2.0) return _vkp_log${S}(2.0 * x - 1.0 / (x + sqrt(x * x - 1.0)));
    $F t = x - 1.0;
    return _vkp_log1p${S}(t + sqrt(2.0 * t + t * t));
}""")
_fn("atanh", ["log1p", "div"], """$F _vkp_atanh${S}($F x) {
    if (isnan(x)) return x;
    $F ax = abs(x);
    if (ax > 1.0) return $NAN;
    if (ax == 1.0) return x * $INF;
    if (ax < $TINY) return x;
    $F r;
    if (ax < 0.5) {
        $F t = ax + ax;
        r = 0.5 * _vkp_log1p${S}(t + _vkp_div${S}(t * ax, 1.0 - ax));
    } else r = 0.5 * _vkp_log1p${S}(_vkp_div${S}(ax + ax, 1.0 - ax));
    return x < 0.0 ? -r : r;
}""")

# ---- exact and near-exact functions: scaling, remainders, roots -------------------------------
# IEMAX/IEMIN/IMANT: the largest and smallest normal exponents and the significand's bits,
# POW2BITS 2**n built from its exponent bits, IFMODN a bound on fmod's steps (mathlib._code)
_fn("pow2i", [], """$F _vkp_pow2i${S}(int n) {
    // 2**n, exactly, for n in [IEMIN, IEMAX]
    return POW2BITS;
}""")
_fn("ldexp", ["pow2i"], """$F _vkp_ldexp${S}($F x, int n) {
    // x * 2**n with one rounding (also to a subnormal): at most three exact products,
    // since GLSL's ldexp leaves overflow and subnormal results undefined
    if (n > IEMAX) {
        x *= _vkp_pow2i${S}(IEMAX);
        n -= IEMAX;
        if (n > IEMAX) { x *= _vkp_pow2i${S}(IEMAX); n = min(n - IEMAX, IEMAX); }
    } else if (n < IEMIN) {
        x *= _vkp_pow2i${S}(IEMIN + IMANT);
        n -= IEMIN + IMANT;
        if (n < IEMIN) { x *= _vkp_pow2i${S}(IEMIN + IMANT); n = max(n - IEMIN - IMANT, IEMIN); }
    }
    return x * _vkp_pow2i${S}(n);
}""")
_fn("frexp", ["pow2i"], """$F _vkp_frexp${S}($F x, out int e) {
    // x = m * 2**e, 0.5 <= |m| < 1; zeros, infinities and nan give (x, 0) as C and Python
    e = 0;
    if (x == 0.0 || isinf(x) || isnan(x)) return x;
    int bias = 0;
    if (abs(x) < $MIN_NORMAL) { x *= _vkp_pow2i${S}(IMANT); bias = IMANT; }
    $F m = frexp(x, e);
    e -= bias;
    return m;
}""")
_fn("frexpm", ["frexp"], """$F _vkp_frexpm${S}($F x) {
    int e;
    return _vkp_frexp${S}(x, e);
}""")
_fn("frexpe", ["frexp"], """int _vkp_frexpe${S}($F x) {
    int e;
    _vkp_frexp${S}(x, e);
    return e;
}""")
_fn("fmod", ["signbit", "frexp", "ldexp"], """$F _vkp_fmod${S}($F x, $F y) {
    // C's fmod, exactly: subtract |y| * 2**k from |x|, largest k first; each subtraction
    // is exact (Sterbenz), at most one per binade between |x| and |y|
    if (isnan(x) || isnan(y) || isinf(x) || y == 0.0) return $NAN;
    $F r = abs(x), ay = abs(y);
    if (r < ay || isinf(y)) return x;
    int ey, er;
    _vkp_frexp${S}(ay, ey);
    for (int i = 0; i < IFMODN && r >= ay; i++) {
        _vkp_frexp${S}(r, er);
        $F s = _vkp_ldexp${S}(ay, er - ey);
        if (s > r) s *= 0.5;
        r -= s;
    }
    return _vkp_signbit${S}(x) ? -r : r;
}""")
_fn("remainder", ["fmod"], """$F _vkp_remainder${S}($F x, $F y) {
    // IEEE remainder: x - n * y, n the integer nearest x / y (even on ties), exactly
    if (isnan(x) || isnan(y) || isinf(x) || y == 0.0) return $NAN;
    if (isinf(y)) return x;
    $F ay = abs(y);
    $F r = ay <= $HALF_MAX ? abs(_vkp_fmod${S}(x, ay + ay)) : abs(x);     // [0, 2|y|)
    $F h = 0.5 * ay;
    if (r > h) {
        r -= ay;
        if (r >= h) r -= ay;
    }
    return x < 0.0 || (x == 0.0 && _vkp_signbit${S}(x)) ? -r : r;
}""")
_fn("trunc", [], """$F _vkp_trunc${S}($F x) {
    // toward zero (GLSL's trunc)
    TRUNCATE
}""")
_fn("modff", ["signbit", "trunc"], """$F _vkp_modff${S}($F x) {
    // the fractional part, with x's sign (modf(-3.0) = (-0.0, -3.0), modf(inf) = (0.0, inf))
    $F f = isinf(x) ? 0.0 : abs(x - _vkp_trunc${S}(x));
    return _vkp_signbit${S}(x) ? -f : f;
}""")
_fn("hypot", ["frexp", "ldexp", "two_prod", "two_sum"], """$F _vkp_hypot${S}($F x, $F y) {
    // the larger part scaled to [0.5, 1) (no overflow or underflow), the sum of squares to
    // double length, and the driver's sqrt corrected by one Newton step (sqrt may be off
    // by a few ulp, and some drivers compute sqrt(0) as 0 * inversesqrt(0) = nan)
    $F a = abs(x), b = abs(y);
    if (isinf(a) || isinf(b)) return $INF;
    if (isnan(a) || isnan(b)) return a + b;
    $F m = max(a, b), n = min(a, b);
    if (m == 0.0) return m;
    int e;
    _vkp_frexp${S}(m, e);
    m = _vkp_ldexp${S}(m, -e);
    n = _vkp_ldexp${S}(n, -e);
    $F p, pe, q, qe, s, se, hh, he;
    _vkp_two_prod${S}(m, m, p, pe);
    _vkp_two_prod${S}(n, n, q, qe);
    _vkp_two_sum${S}(p, q, s, se);
    precise $F lo = se + (pe + qe);
    $F h = sqrt(s);
    _vkp_two_prod${S}(h, h, hh, he);
    precise $F r = h + (((s - hh) - he) + lo) / (2.0 * h);
    return _vkp_ldexp${S}(r, e);
}""")
_fn("cbrt", ["signbit", "log2", "exp2", "two_prod", "pow2i"], """$F _vkp_cbrt${S}($F x) {
    if (x == 0.0 || isinf(x) || isnan(x)) return x;
    $F a = abs(x);
    // scaled by 2**(3k) into a range where the residual below neither under- nor overflows
    int k = a < _vkp_pow2i${S}(-ICBRTK * 4) ? ICBRTK : a > _vkp_pow2i${S}(ICBRTK * 4) ? -ICBRTK : 0;
    a *= _vkp_pow2i${S}(3 * k);
    $F t = _vkp_exp2${S}(_vkp_log2${S}(a) * (1.0 / 3.0));
    // one Newton step, the residual t**3 - a to double length
    $F p, e, q, f;
    _vkp_two_prod${S}(t, t, p, e);
    _vkp_two_prod${S}(p, t, q, f);
    precise $F r = (q - a) + (f + e * t);
    precise $F res = (t - r / (3.0 * t * t)) * _vkp_pow2i${S}(-k);
    return _vkp_signbit${S}(x) ? -res : res;
}""")
_fn("rint", [], """$F _vkp_rint${S}($F x) {
    // to the nearest integer, ties to even (GLSL's roundEven, NumPy's rint)
    RINT
}""")
_fn("roundn", ["pow", "rint"], """$F _vkp_roundn${S}($F x, int n) {
    // round(x, n): x scaled by 10**n, rounded half to even, scaled back
    if (x == 0.0 || isinf(x) || isnan(x)) return x;
    if (n > IDIGITS) return x;
    if (n >= 0) {
        $F p = _vkp_pow${S}(10.0, $F(n));
        $F y = x * p;
        return isinf(y) ? x : _vkp_rint${S}(y) / p;
    }
    if (n < -IDIGITS) return 0.0 * x;
    $F p = _vkp_pow${S}(10.0, $F(-n));
    return _vkp_rint${S}(x / p) * p;
}""")

# ---- the error function -----------------------------------------------------------------------
_fn("erfccf", ["two_prod", "expdd", "div"], """$F _vkp_erfccf${S}($F x) {
    // erfc(x) for x >= 1: exp(-x*x) (x*x to double length) over sqrt(pi) times Laplace's
    // continued fraction 1 / (x + (1/2) / (x + 1 / (x + (3/2) / ...))), evaluated from the
    // back with enough terms for x (it converges fast for large x, slowly near 1)
    if (x > 27.3) return 0.0;
    $F h, l;
    _vkp_two_prod${S}(x, x, h, l);
    if (-h < $EXP_UNDER) return 0.0;
    int n = ICFMIN + int(ICFN / (x * x));
    $F t = x;
    for (int k = n; k > 0; k--) t = x + (0.5 * $F(k)) / t;
    return _vkp_div${S}(_vkp_expdd${S}(-h, -l) * $INV_SQRTPI, t);
}""")
_fn("erf", ["erfccf"], """$F _vkp_erf${S}($F x) {
    if (isnan(x)) return x;
    $F ax = abs(x);
    if (ax < 1.0) {
        if (ax < $MIN_NORMAL * 16.0) return x * $TWO_OVER_SQRTPI;   // no underflow in x*x
        $F z = x * x;
        precise $F r = x + x * POLY<erf>(z);
        return r;
    }
    $F r = ax > 6.0 ? 1.0 : 1.0 - _vkp_erfccf${S}(ax);
    return x < 0.0 ? -r : r;
}""")
_fn("erfc", ["erf", "erfccf"], """$F _vkp_erfc${S}($F x) {
    if (isnan(x)) return x;
    if (x >= 1.0) return _vkp_erfccf${S}(x);
    if (x > -1.0) return 1.0 - _vkp_erf${S}(x);
    return 2.0 - _vkp_erfccf${S}(-x);
}""")

# ---- the gamma function -----------------------------------------------------------------------
_fn("lgammabig", ["log"], """$F _vkp_lgammabig${S}($F y) {
    // lgamma(y), y >= IGAMMAX: Stirling's series
    $F z = 1.0 / (y * y);
    $F l = _vkp_log${S}(y);
    precise $F r = (y * (l - 1.0) - 0.5 * l) + ($HALF_LOG_2PI + POLY<stirling>(z) / y);
    return r;
}""")
_fn("lgammamid", ["log", "log1p"], """$F _vkp_lgammamid${S}($F x) {
    // 0.5 < x < 3.5, around the zeros at 1 and 2: the Taylor series of lgamma(2 + t)
    // (coefficients (-1)**k (zeta(k) - 1) / k), less log(1 + t) below 1.5, plus log(x - 1)
    // above 2.5 (no cancellation of a shifted product)
    $F t = x < 1.5 ? x - 1.0 : x < 2.5 ? x - 2.0 : x - 3.0;     // exact
    precise $F l2 = t * POLY<lgamma2>(t);
    if (x < 1.5) return l2 - _vkp_log1p${S}(t);
    return x < 2.5 ? l2 : l2 + _vkp_log${S}(x - 1.0);
}""")
_fn("lgammapos", ["lgammabig", "lgammamid", "log"], """$F _vkp_lgammapos${S}($F x) {
    // x > 0: the series around 1 and 2 (below 1/2 through lgamma(x + 1) - log(x)), else
    // shifted up to where Stirling's series converges, the shift's product divided out
    if (x <= 0.5) return _vkp_lgammamid${S}(x + 1.0) - _vkp_log${S}(x);
    if (x < 3.5) return _vkp_lgammamid${S}(x);
    $F p = 1.0, y = x;
    while (y < IGAMMAX) { p *= y; y += 1.0; }
    return _vkp_lgammabig${S}(y) - _vkp_log${S}(p);
}""")
_fn("sinpi", ["sin", "rint"], """$F _vkp_sinpi${S}($F x) {
    // sin(pi x), x reduced exactly to [-1/2, 1/2] first (sin(pi r) = sin(pi (1 - r))), so
    // that rounding pi r costs no more than an ulp near the zeros
    $F r = x - 2.0 * _vkp_rint${S}(0.5 * x);
    if (r > 0.5) r = 1.0 - r;
    else if (r < -0.5) r = -1.0 - r;
    return _vkp_sin${S}($PI_HI * r);
}""")
_fn("lgamma", ["lgammapos", "sinpi", "div", "log"], """$F _vkp_lgamma${S}($F x) {
    if (isnan(x)) return x;
    if (isinf(x)) return $INF;
    if (x > 0.0) return _vkp_lgammapos${S}(x);
    if (floor(x) == x) return $INF;        // the poles at 0, -1, -2, ...
    // reflection: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)
    $F s = abs(_vkp_sinpi${S}(x));
    return _vkp_log${S}(_vkp_div${S}($PI_HI, s)) - _vkp_lgammapos${S}(1.0 - x);
}""")
_fn("gammapos", ["pow", "exp", "div"], """$F _vkp_gammapos${S}($F x) {
    // x > 0: Stirling's product y**(y - 1/2) e**-y sqrt(2 pi) e**series at y = x + n >= IGAMMAX
    // (the power in two halves, which do not overflow), over x (x + 1) ... (x + n - 1)
    if (x > $GAMMA_OVER) return $INF;
    $F p = 1.0, y = x;
    while (y < IGAMMAX) { p *= y; y += 1.0; }
    $F t = _vkp_pow${S}(y, 0.5 * y - 0.25);
    $F z = 1.0 / (y * y);
    // precise: in this order (NVIDIA would otherwise form t * t, which overflows)
    precise $F g = t * _vkp_exp${S}(-y) * t * $SQRT_2PI * _vkp_exp${S}(POLY<stirling>(z) / y);
    return _vkp_div${S}(g, p);
}""")
_fn("gamma", ["gammapos", "sinpi", "div", "signbit"], """$F _vkp_gamma${S}($F x) {
    if (isnan(x)) return x;
    if (x == 0.0) return _vkp_signbit${S}(x) ? -$INF : $INF;
    if (isinf(x)) return x > 0.0 ? x : $NAN;
    if (x > 0.0) return _vkp_gammapos${S}(x);
    if (floor(x) == x) return $NAN;        // negative integers
    // reflection: gamma(x) = pi / (sin(pi x) gamma(1 - x)); 0 with its sign where it underflows
    return _vkp_div${S}($PI_HI, _vkp_sinpi${S}(x) * _vkp_gammapos${S}(1.0 - x));
}""")
