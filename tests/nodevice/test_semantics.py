"""The typing rules on their own (lang/semantics.py): IR in, IR out, no Python source and no
Vulkan device, as the array layer will use them."""
import pytest

from vkpersist.lang import ir
from vkpersist.lang import types as T
from vkpersist.lang.semantics import Semantics, TypingError, literal

LOC = ir.Loc("<graph>", 1, 0)


def sem(required=None, int64=True):
    temps = []

    def require(t):
        if required is not None:
            required.append(t)
        if t in (T.i64, T.u64) and not int64:
            raise TypingError(f"{t} needs 64-bit integer support")

    def temp(t, hint):
        temps.append(ir.Var(f"_{hint}{len(temps)}", t, "temp"))
        return temps[-1]

    return Semantics(require, temp)


def ref(t, name="x"):
    return ir.Ref(t, LOC, ir.Var(name, t, "local"))


def test_literals_keep_the_type_they_meet():
    s = sem()
    e = s.binary("*", ref(T.f32), literal(2, LOC), LOC)
    assert e.type == T.f32 and isinstance(e.right, ir.Const) and e.right.value == 2.0
    e = s.binary("+", ref(T.u8), literal(1, LOC), LOC)
    assert e.type == T.u32           # storage-only types compute widened
    e = s.binary("*", ref(T.i32), literal(0.5, LOC), LOC)
    assert e.type == T.f32


def test_two_literals_fold_exactly_like_python():
    s = sem()
    big = s.binary("*", literal(1 << 20, LOC), literal(1 << 20, LOC), LOC)
    assert isinstance(big, ir.Const) and big.value == 2**40 and big.type == T.i64 and big.weak
    assert s.binary("//", literal(-7, LOC), literal(2, LOC), LOC).value == -4
    assert s.binary("/", literal(1, LOC), literal(4, LOC), LOC).value == 0.25
    with pytest.raises(TypingError, match="does not fit in 64 bits"):
        s.binary("<<", literal(1, LOC), literal(80, LOC), LOC)
    with pytest.raises(TypingError, match="modulo by zero"):
        s.binary("%", literal(3, LOC), literal(0, LOC), LOC)


def test_a_literal_that_does_not_fit_is_refused():
    s = sem()
    with pytest.raises(TypingError, match=r"the integer 4294967296 does not fit in int32"):
        s.binary("+", ref(T.i32), literal(1 << 32, LOC), LOC)
    with pytest.raises(TypingError, match="does not fit in uint32"):
        s.convert(literal(-1, LOC), T.u32)
    typed = ir.Const(T.i64, LOC, 1 << 32)       # a typed constant converts like astype
    assert s.convert(typed, T.i32).value == 0


def test_promotion_and_the_features_it_needs():
    required = []
    s = sem(required)
    assert s.binary("+", ref(T.i32), ref(T.u32, "y"), LOC).type == T.i64
    assert T.i64 in required
    with pytest.raises(TypingError, match="64-bit integer support"):
        sem(int64=False).binary("+", ref(T.i32), ref(T.u32, "y"), LOC)
    with pytest.raises(TypingError, match="no integer result type"):
        s.binary("+", ref(T.i64), ref(T.u64, "y"), LOC)
    assert s.binary("/", ref(T.i32), ref(T.i32, "y"), LOC).type == T.f32
    with pytest.raises(TypingError, match="operator << needs integers"):
        s.binary("<<", ref(T.f32), literal(1, LOC), LOC)


def test_int32_uint32_compare_needs_no_int64():
    s = sem(int64=False)
    e = s.compare("<", ref(T.i32), ref(T.u32, "y"), LOC)
    assert e.type == T.bool_ and isinstance(e, ir.Logical) and e.op == "or"


def test_logical_operators_return_an_operand_and_use_one_temporary():
    s = sem()
    e = s.logical("or", ref(T.i32), literal(3, LOC), LOC)
    assert isinstance(e, ir.Let) and e.type == T.i32 and isinstance(e.body, ir.Select)
    assert s.truth(literal(0, LOC)).value is False


def test_unify_explains_incompatible_types():
    s = sem()
    assert s.unify(T.i32, T.f32) == T.f32 and s.unify(T.bool_, T.u32) == T.u32
    with pytest.raises(TypingError, match="also holds a float32"):
        s.unify(T.f32, T.vec3)
