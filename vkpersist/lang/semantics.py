"""The typing rules of the kernel language, over IR expressions: promotion, conversions,
comparisons, truth, literal folding. They take and return IR and know nothing of Python's
AST, so IR can be built from source (frontend.py, which positions their errors at the
node being compiled) or from an expression graph (the array layer).

The rules (types.py states the promotion table):
- Python-number literals are weak (NEP 50): they take the type of what they meet, and two
  literals combine exactly, as Python would (`N * N` with N = 1 << 20 is 2**40), until they
  meet a typed value; a literal that does not fit the type it meets is refused.
- Typed constants fold with their type's semantics (integers wrap like their dtype).
- int32 against uint32 compares exactly without 64-bit integers.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from . import ir
from . import types as T


class TypingError(Exception):
    """A typing rule refused an operation; whoever called it says where (the front end
    positions it at the Python node it was compiling)."""


def const(value, loc, type_=None) -> ir.Const:
    """A constant of `type_` (default: the type of the Python value, not weak)."""
    if type_ is None:
        type_, _weak = T.python_scalar_type(value)
    return ir.Const(type_, loc, value)


def literal(value, loc) -> ir.Const:
    """A Python or NumPy number as a constant: weak for Python ints and floats."""
    try:
        t, weak = T.python_scalar_type(value)
    except (OverflowError, TypeError) as exc:
        raise TypingError(str(exc)) from None
    return ir.Const(t, loc, value, weak)


def is_weak(e) -> bool:
    return isinstance(e, ir.Const) and e.weak


class Semantics:
    """The rules, bound to what they need from the function being built: `require(t)`
    checks that the target can compute in type t (raising TypingError), `temp(t, hint)`
    makes a fresh temporary variable (for values used twice)."""

    def __init__(self, require, temp):
        self.require = require
        self.temp = temp

    # ---- conversions ---------------------------------------------------------------------
    def convert(self, e: ir.Expr, t) -> ir.Expr:
        if e.type == t:
            return e
        if isinstance(t, T.Complex) or isinstance(e.type, T.Complex):
            return self._convert_complex(e, t)
        if isinstance(e.type, T.Scalar) and isinstance(t, T.Scalar):
            self.require(t)
            if isinstance(e, ir.Const):
                if is_weak(e) and t.is_int and isinstance(e.value, int):
                    lo, hi = int_range(t)
                    if not lo <= e.value <= hi:    # NumPy 2 raises OverflowError here too
                        raise TypingError(f"the integer {e.value} does not fit in {t} "
                                          f"({lo}..{hi}), the type it meets here; use a wider "
                                          "type or a value in range")
                return ir.Const(t, e.loc, convert_const(e.value, t))
            return ir.Cast(t, e.loc, e)
        if isinstance(e.type, T.Scalar) and isinstance(t, T.Vector):
            return ir.MakeVector(t, e.loc, [self.convert(e, t.elem)])
        if isinstance(e.type, T.Vector) and isinstance(t, T.Vector) and e.type.n == t.n:
            return ir.Cast(t, e.loc, e)
        raise TypingError(f"cannot convert {e.type} to {t}")

    def unify(self, a, b):
        """The one type a name or a branch takes when it holds values of types a and b."""
        if a == b:
            return a
        if isinstance(a, T.Complex) or isinstance(b, T.Complex):
            return self._complex_type(a, b)
        if isinstance(a, T.Scalar) and isinstance(b, T.Scalar):
            if T.bool_ in (a, b):      # bool with a number: the number's type
                return b if a == T.bool_ else a
            return _promote(a, b)
        raise TypingError(f"this value is a {b} but the same name/branch also holds a {a}; "
                          "give each its own name or cast explicitly")

    def unify_many(self, exprs):
        """The common type of several values, honouring literal weakness (min(0.5, i) is
        float32, min(2, x_f64) is float64)."""
        t, weak = exprs[0].type, is_weak(exprs[0])
        for e in exprs[1:]:
            if isinstance(t, T.Scalar) and isinstance(e.type, T.Scalar):
                t = _promote(t, e.type, weak, is_weak(e))
            elif isinstance(t, T.Complex) or isinstance(e.type, T.Complex):
                t = self._complex_type(t, e.type, weak, is_weak(e))
            else:
                t = self.unify(t, e.type)
            weak = weak and is_weak(e)
        return t

    def truth(self, e: ir.Expr) -> ir.Expr:
        if e.type == T.bool_:
            return e
        if isinstance(e.type, T.Scalar):
            if isinstance(e, ir.Const):
                return const(bool(e.value), e.loc, T.bool_)
            return ir.Compare(T.bool_, e.loc, "!=", e, const(0, e.loc, e.type))
        if isinstance(e.type, T.Complex):
            return ir.Compare(T.bool_, e.loc, "!=", e, ir.Const(e.type, e.loc, 0j))
        raise TypingError(f"a {e.type} has no truth value here; compare its components")

    # ---- arithmetic ----------------------------------------------------------------------
    def unary(self, op: str, v: ir.Expr, loc) -> ir.Expr:
        """op: '-', '~' or 'not'."""
        if op == "not":
            return ir.Unary(T.bool_, loc, "not", self.truth(v))
        if isinstance(v.type, T.Scalar) and v.type == T.bool_:
            v = self.convert(v, T.i32)
        if op == "-":
            if isinstance(v, ir.Const) and isinstance(v.type, T.Complex):
                return ir.Const(v.type, loc, -v.value, v.weak)
            if isinstance(v, ir.Const):
                return literal(-v.value, loc) if is_weak(v) else \
                    ir.Const(v.type, loc, wrap(-v.value, v.type))
            return ir.Unary(v.type, loc, "-", v)
        if not (isinstance(v.type, T.Scalar) and v.type.is_int):
            raise TypingError(f"~ needs an integer, got {v.type}")
        return ir.Unary(v.type, loc, "~", v)

    def binary(self, op: str, left: ir.Expr, right: ir.Expr, loc) -> ir.Expr:
        if is_weak(left) and is_weak(right):
            exact = fold_literals(op, left.value, right.value, loc)
            if exact is not None:
                return exact
        lt, rt = left.type, right.type
        if isinstance(lt, T.Complex) or isinstance(rt, T.Complex):
            return self._complex_binary(op, left, right, loc)
        if isinstance(lt, T.Vector) or isinstance(rt, T.Vector):
            return self._vector_binary(op, left, right, loc)
        if not (isinstance(lt, T.Scalar) and isinstance(rt, T.Scalar)):
            raise TypingError(f"unsupported operand types for {op}: {lt} and {rt}")
        if op in ("&", "|", "^") and lt == T.bool_ and rt == T.bool_:
            return ir.Binary(T.bool_, loc, op, left, right)
        t = _promote(lt, rt, is_weak(left), is_weak(right))
        self.require(t)
        if op in ("&", "|", "^", "<<", ">>") and not t.is_int:
            raise TypingError(f"operator {op} needs integers, got {lt} and {rt}")
        if op == "/":
            if t.is_int:
                t = T.f32 if t.bits <= 32 else T.f64
                self.require(t)
        if op == "**":
            return self._power(left, right, t, loc)
        l2, r2 = self.convert(left, t), self.convert(right, t)
        if isinstance(l2, ir.Const) and isinstance(r2, ir.Const):
            folded = fold(op, l2.value, r2.value, t)
            if folded is not None:
                return ir.Const(t, loc, folded, is_weak(left) and is_weak(right))
        if op in ("//", "%") and isinstance(r2, ir.Const) and r2.value == 0:
            raise TypingError("integer division or modulo by zero")
        return ir.Binary(t, loc, op, l2, r2)

    def _power(self, base, exp, t, loc):
        if isinstance(exp, ir.Const) and isinstance(exp.value, (int, np.integer)) \
                and not isinstance(exp.value, bool) and 0 <= exp.value <= 16:
            n = int(exp.value)
            if n == 0:
                return const(1, loc, t)
            b = self.convert(base, t)
            if not isinstance(b, (ir.Ref, ir.Const)):
                tmp = self.temp(t, "p")
                ref = ir.Ref(t, loc, tmp)
                return ir.Let(t, loc, tmp, b, _product(ref, n, t, loc))
            return _product(b, n, t, loc)
        if t.is_int:
            if isinstance(exp, ir.Const) and exp.value < 0:
                raise TypingError("integers to negative powers are not supported (Python gives "
                                  "a float; write float(x) ** n)")
            return ir.Intrinsic(t, loc, "ipow", [self.convert(base, t), self.convert(exp, t)])
        return ir.Intrinsic(t, loc, "pow", [self.convert(base, t), self.convert(exp, t)])

    def _vector_binary(self, op, left, right, loc):
        vt = left.type if isinstance(left.type, T.Vector) else right.type
        for side in (left, right):
            if isinstance(side.type, T.Vector) and side.type != vt:
                raise TypingError(f"vector operands differ: {left.type} and {right.type}")
        if op not in ("+", "-", "*", "/", "%", "//"):
            raise TypingError(f"operator {op} is not supported on vectors")
        if op in ("%", "//") and not vt.elem.is_float:
            raise TypingError(f"operator {op} on integer vectors is not supported")
        conv = [self.convert(side, vt.elem) if isinstance(side.type, T.Scalar) else side
                for side in (left, right)]
        return ir.Binary(vt, loc, op, conv[0], conv[1])

    def logical(self, op: str, a: ir.Expr, b: ir.Expr, loc) -> ir.Expr:
        """`a and b` / `a or b`, short-circuit; with non-bool operands the result is one of
        them, as in Python."""
        if a.type == T.bool_ and b.type == T.bool_:
            if isinstance(a, ir.Const):
                return (b if a.value else a) if op == "and" else (a if a.value else b)
            return ir.Logical(T.bool_, loc, op, a, b)
        t = self.unify(a.type, b.type)
        tmp = self.temp(t, "b")
        ref = ir.Ref(t, loc, tmp)
        truthy = self.truth(ref)
        select = ir.Select(t, loc, truthy, ref, self.convert(b, t)) if op == "or" else \
            ir.Select(t, loc, truthy, self.convert(b, t), ref)
        return ir.Let(t, loc, tmp, self.convert(a, t), select)

    def select(self, cond: ir.Expr, a: ir.Expr, b: ir.Expr, loc) -> ir.Expr:
        """`a if cond else b`."""
        t = self.unify(a.type, b.type)
        return ir.Select(t, loc, self.truth(cond), self.convert(a, t), self.convert(b, t))

    # ---- comparisons ---------------------------------------------------------------------
    def compare(self, op: str, left: ir.Expr, right: ir.Expr, loc) -> ir.Expr:
        if isinstance(left.type, T.Complex) or isinstance(right.type, T.Complex):
            if op not in ("==", "!="):
                raise TypingError(f"complex numbers are not ordered ({op}); compare abs(z) "
                                  "or the .real/.imag parts")
            t = self._complex_type(left.type, right.type, is_weak(left), is_weak(right))
            return ir.Compare(T.bool_, loc, op, self.convert(left, t), self.convert(right, t))
        if not (isinstance(left.type, T.Scalar) and isinstance(right.type, T.Scalar)):
            raise TypingError(f"cannot compare {left.type} and {right.type} (compare vector "
                              "components instead)")
        if left.type == T.bool_ and right.type == T.bool_:
            if op not in ("==", "!="):
                left, right = self.convert(left, T.i32), self.convert(right, T.i32)
            return ir.Compare(T.bool_, loc, op, left, right)
        t = _promote(left.type, right.type, is_weak(left), is_weak(right))
        lt, rt = T.arithmetic(left.type), T.arithmetic(right.type)
        if t == T.i64 and {lt, rt} == {T.i32, T.u32}:
            return self._mixed_sign_compare(op, left, right, loc)
        self.require(t)
        return ir.Compare(T.bool_, loc, op, self.convert(left, t), self.convert(right, t))

    def _mixed_sign_compare(self, op, left, right, loc):
        """int32 against uint32, exactly as NumPy's int64 comparison would decide, without
        needing 64-bit integers: a negative int32 is below every uint32."""
        swapped = T.arithmetic(left.type) == T.u32
        s, u = (right, left) if swapped else (left, right)
        if swapped:
            op = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}[op]
        lets = []
        if not isinstance(s, (ir.Ref, ir.Const)):
            tmp = self.temp(T.i32, "s")
            lets.append((tmp, s))
            s = ir.Ref(T.i32, loc, tmp)
        zero = const(0, loc, T.i32)
        negative = ir.Compare(T.bool_, loc, "<", s, zero)
        unsigned = ir.Compare(T.bool_, loc, op, ir.Cast(T.u32, loc, s), self.convert(u, T.u32))
        if op in ("<", "<=", "!="):      # true for every negative s
            result = ir.Logical(T.bool_, loc, "or", negative, unsigned)
        else:                            # false for every negative s
            result = ir.Logical(T.bool_, loc, "and", ir.Unary(T.bool_, loc, "not", negative),
                                unsigned)
        for tmp, value in lets:
            result = ir.Let(T.bool_, loc, tmp, value, result)
        return result


    # ---- complex numbers -----------------------------------------------------------------
    # complex64/complex128 are (re, im) vec2/dvec2 values (types.Complex). A real meets a
    # complex as in NumPy (int/float32 with complex64 stays complex64, float64 gives
    # complex128; weak literals take the complex's precision); + and - are the vectors';
    # a real factor or divisor scales both parts (exactly as C's real * complex); complex
    # products, quotients (Smith's algorithm) and powers are helpers (lang/complexlib.py).
    def _complex_type(self, a, b, weak_a=False, weak_b=False):
        for side in (a, b):
            if not isinstance(side, (T.Complex, T.Scalar)):
                raise TypingError(f"cannot combine {a} and {b}")
        pa, pb = (x.elem if isinstance(x, T.Complex) else x for x in (a, b))
        elem = _promote(pa, pb, weak_a, weak_b)
        t = T.complex_of(elem)
        self.require(t.elem)
        return t

    def _convert_complex(self, e, t):
        if not isinstance(t, T.Complex):
            raise TypingError(f"cannot convert {e.type} to {t} (take .real, .imag or abs(z) "
                              "of a complex number)")
        if isinstance(e.type, T.Complex):
            if isinstance(e, ir.Const):
                return ir.Const(t, e.loc, complex(np.array(e.value, t.dtype)))
            return ir.Cast(t, e.loc, e)
        if not isinstance(e.type, T.Scalar):
            raise TypingError(f"cannot convert {e.type} to {t}")
        self.require(t.elem)
        if isinstance(e, ir.Const):
            return ir.Const(t, e.loc, complex(np.array(e.value, t.dtype)))
        return ir.MakeVector(t, e.loc, [self.convert(e, t.elem), const(0.0, e.loc, t.elem)])

    def _complex_binary(self, op, left, right, loc):
        t = self._complex_type(left.type, right.type, is_weak(left), is_weak(right))
        real = [isinstance(x.type, T.Scalar) for x in (left, right)]
        if op == "**":
            return self._complex_power(left, right, t, loc)
        if op not in ("+", "-", "*", "/"):
            raise TypingError(f"operator {op} is not defined for complex numbers (Python "
                              "refuses it too)")
        if isinstance(left, ir.Const) and isinstance(right, ir.Const) \
                and not (op == "/" and right.value == 0):
            value = _PYTHON_OPS[op](complex(left.value), complex(right.value))
            return ir.Const(t, loc, complex(np.array(value, t.dtype)))
        if op == "*" and any(real) or op == "/" and real[1]:
            # scale both parts by the real: what C does for real * complex, no rounding more
            z, r = (left, right) if real[1] else (right, left)
            return ir.Binary(t, loc, op, self.convert(z, t), self.convert(r, t.elem))
        a, b = self.convert(left, t), self.convert(right, t)
        if op in ("+", "-"):
            return ir.Binary(t, loc, op, a, b)
        return ir.Intrinsic(t, loc, "cmul" if op == "*" else "cdiv", [a, b])

    def _complex_power(self, base, exp, t, loc):
        if isinstance(exp, ir.Const) and isinstance(exp.value, (int, np.integer)) \
                and not isinstance(exp.value, bool) and 0 <= exp.value <= 16:
            n = int(exp.value)
            if n == 0:
                return ir.Const(t, loc, 1 + 0j)
            b = self.convert(base, t)
            tmp = None
            if not isinstance(b, (ir.Ref, ir.Const)):
                tmp = self.temp(t, "p")
                b = ir.Ref(t, loc, tmp)
            out = b
            for _ in range(n - 1):
                out = ir.Intrinsic(t, loc, "cmul", [out, b])
            return out if tmp is None else ir.Let(t, loc, tmp, self.convert(base, t), out)
        return ir.Intrinsic(t, loc, "cpow", [self.convert(base, t), self.convert(exp, t)])


def _promote(a, b, weak_a=False, weak_b=False):
    try:
        return T.promote(a, b, weak_a, weak_b)
    except T.PromotionError as exc:
        raise TypingError(str(exc)) from None


# ---- constants -------------------------------------------------------------------------------
_PYTHON_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
               "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
               "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift}


def fold_literals(op, a, b, loc):
    """Python's own result of an operation on two Python-number literals: NEP 50 keeps them
    exact until they meet a typed value (`N * N` with N = 1 << 20 is 2**40, an int64
    literal, not 0). None where the GPU's rules should decide (1.0 / 0.0 is inf there,
    Python raises; & on floats is refused with the typed operands)."""
    ints = isinstance(a, int) and isinstance(b, int)
    if ints and b > 64 and (op == "<<" and a != 0 or op == "**" and a not in (0, 1, -1)):
        raise TypingError(f"{a} {op} {b} does not fit in 64 bits")
    if ints and op in ("//", "%") and b == 0:
        raise TypingError("integer division or modulo by zero")
    if ints and op in ("<<", ">>") and b < 0:
        raise TypingError(f"negative shift count {b}")
    try:
        value = _PYTHON_OPS[op](a, b)
    except (ZeroDivisionError, TypeError):
        return None
    except OverflowError:
        raise TypingError(f"{a!r} {op} {b!r} overflows a float") from None
    if isinstance(value, complex) and not isinstance(a, complex) \
            and not isinstance(b, complex):          # (-8) ** 0.5
        raise TypingError(f"{a!r} {op} {b!r} is complex")
    return literal(value, loc)


def wrap(value, t):
    """An integer value as type t stores it (two's complement wrap-around)."""
    if t.is_int:
        bits = t.bits
        value = int(value) & ((1 << bits) - 1)
        if t.kind == "i" and value >= 1 << (bits - 1):
            value -= 1 << bits
    return value


def int_range(t) -> tuple[int, int]:
    if t.kind == "u":
        return 0, (1 << t.bits) - 1
    return -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1


def convert_const(value, t):
    if t == T.bool_:
        return bool(value)
    if t.is_int:
        return wrap(math.trunc(value), t)
    return float(np.array(value, dtype=t.dtype))


def fold(op, a, b, t):
    """Fold an operation on two constants with the target type's semantics, or None."""
    try:
        if t.is_int:
            a, b = int(a), int(b)
            if op in ("//", "%") and b == 0:
                return None
            r = {"+": a + b, "-": a - b, "*": a * b, "//": a // b if b else 0,
                 "%": a % b if b else 0, "&": a & b, "|": a | b, "^": a ^ b,
                 "<<": a << b if 0 <= b < t.bits else None, ">>": a >> b if 0 <= b < t.bits else None
                 }.get(op)
            return None if r is None else wrap(r, t)
        a, b = np.array(a, t.dtype), np.array(b, t.dtype)
        with np.errstate(all="ignore"):
            r = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else None}.get(op)
        return None if r is None else float(r)
    except (OverflowError, ValueError):
        return None


def _product(base, n, t, loc):
    out = base
    for _ in range(n - 1):
        out = ir.Binary(t, loc, "*", out, base)
    return out
