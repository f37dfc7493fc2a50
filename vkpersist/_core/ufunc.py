"""The NumPy-named array functions (`vkp.arctan2`, `vkp.where`, ...), the operators and
NumPy ufuncs on device arrays (`x + 1`, `np.sin(x)`), and the kernel builtins called on
arrays outside a kernel (`vkp.sin(x)`): all build an element-wise tree and run it
(vkpersist/_core/elementwise.py), or, while `vkp.jit` traces, return the tree.

The layers below cannot import this one: vkpersist/_core's install() gives them
`array_ufunc` (NumPy's `__array_ufunc__` and the operators of NumPy's mixin) and
`host_call` (a kernel builtin called on arrays).
"""
from __future__ import annotations

import operator

import numpy as np

from .elementwise import Node, as_node, resolve
from .recipe import call
from .ufunc_table import ALIASES, BY_UFUNC, EMIT
from ..lang import builtins as B
from ..vk.array import Array

_OPERANDS = (Array, np.ndarray, Node, bool, int, float, complex, np.generic, list, tuple)


def _single_out(out, name):
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError(f"{name}: out= takes one array, got {len(out)}")
        out = out[0]
    if out is not None and not isinstance(out, (Array, np.ndarray)):
        raise TypeError(f"{name}: out= must be a vkpersist or NumPy array, got "
                        f"{type(out).__name__}")
    return out


def run(key, build, args, out, name: str):
    """`build(*argument_nodes)` evaluated on `args` through a cached Recipe; while
    `vkp.jit` traces a function (an argument is a Node), the tree itself, to become part
    of a bigger one."""
    if any(isinstance(a, Node) for a in args):
        if out is not None:
            raise TypeError(f"{name}: out= is not available inside vkp.jit; give it to the "
                            "jitted function's call instead")
        return build(*[as_node(a) for a in args])
    return call(key, build, args, _single_out(out, name), name)


def apply(name: str, args, out=None):
    """Run ufunc `name` on `args` (device/NumPy arrays, numbers, or traced Nodes)."""
    return run(name, lambda *nodes: Node(name, nodes), args, out, name)


class UFunc:
    """An element-wise function with NumPy's name, broadcasting, dtypes and `out=`: device
    arrays in, device arrays out; NumPy arrays in, NumPy arrays out."""

    def __init__(self, name: str):
        self.__name__ = name
        self.nin = getattr(np, EMIT.get(name) and name or ALIASES[name]).nin
        self._op = ALIASES.get(name, name)
        self.__doc__ = f"vkp.{name}: NumPy's np.{name} element-wise on the device " \
                       "(docs/arrays.md)."

    def __call__(self, *args, out=None, where=True):
        if len(args) != self.nin:
            raise TypeError(f"vkp.{self.__name__}() takes {self.nin} array argument"
                            f"{'s' if self.nin > 1 else ''}, got {len(args)}")
        return _masked(self._op, args, out, where)

    def __repr__(self):
        return f"<vkpersist.ufunc {self.__name__!r}>"


def where(condition, x=None, y=None, /):
    """`x` where `condition` is true, else `y`, broadcast together; with `condition` alone,
    np.nonzero(condition) (NumPy's np.where)."""
    if x is None and y is None:
        return np.nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return _select(condition, x, y, None, "where")


def _select(condition, x, y, out, name: str):
    """The element-wise select behind vkp.where and ufuncs' where=."""
    return run("where", lambda c, a, b: Node("where", [c, a, b]), (condition, x, y), out,
               name)


_NO_VALUE = object()      # np.clip's "not given" (np._NoValue): None is a bound's "no limit"


def clip(a, a_min=_NO_VALUE, a_max=_NO_VALUE, out=None, *, min=_NO_VALUE, max=_NO_VALUE,
         **kwargs):
    """`a` limited to [a_min, a_max] (either may be None), as np.clip: NaN stays NaN.
    NumPy 2's arguments: both bounds positionally, or both left out with min=/max= (or
    neither: a copy); one bound alone is NumPy's TypeError."""
    if kwargs:
        _refuse_kwargs("clip", kwargs)
    if a_min is _NO_VALUE and a_max is _NO_VALUE:
        a_min = None if min is _NO_VALUE else min
        a_max = None if max is _NO_VALUE else max
    elif a_min is _NO_VALUE or a_max is _NO_VALUE:
        missing = "a_min" if a_min is _NO_VALUE else "a_max"
        raise TypeError(f"clip() missing 1 required positional argument: {missing!r} (give "
                        "both bounds, None for no limit, or min=/max= alone)")
    elif min is not _NO_VALUE or max is not _NO_VALUE:
        raise ValueError("Passing `min` or `max` keyword argument when `a_min` and `a_max` "
                         "are provided is forbidden.")
    if a_min is None and a_max is None:
        return run("copy", lambda x: x, (a,), out, "clip")
    bounds = [b for b in (a_min, a_max) if b is not None]

    def build(node, *limits):
        limits = list(limits)
        if a_min is not None:
            node = Node("maximum", [node, limits.pop(0)])
        if a_max is not None:
            node = Node("minimum", [node, limits.pop(0)])
        return node
    return run(("clip", a_min is None, a_max is None), build, (a, *bounds), out, "clip")


def around(a, decimals=0, out=None):
    """np.round / np.around: to `decimals` digits, ties to even, the way NumPy computes it
    (floats: scaled by 10**decimals in the array's dtype, rint, scaled back, so the same
    rounding errors; integers: unchanged for decimals >= 0, else through float64 and back)."""
    try:
        d = operator.index(decimals)
    except TypeError:
        raise TypeError(f"round: decimals must be an integer, got {decimals!r}") from None
    if isinstance(a, Node):
        raise TypeError("np.round inside vkp.jit: use vkp.rint (decimals=0), or scale around it")
    dtype = a.dtype if isinstance(a, (Array, np.ndarray)) else np.asarray(a).dtype
    if dtype.kind == "c":
        raise TypeError(f"vkpersist: round of {dtype} arrays is not supported (there is no "
                        "complex rint); round z.real and z.imag")
    f = 10 ** abs(d) if dtype.kind in "iu" else 10.0 ** abs(d)
    if dtype.kind in "iu" and d >= 0:
        return run("copy", lambda x: x, (a,), out, "round")
    if d == 0:
        return apply("rint", (a,), out)
    if dtype.kind == "b":
        raise TypeError("round: bool arrays round only to decimals=0 (NumPy cannot cast the "
                        "scaled float64 back to bool either)")

    def build(x):
        if d > 0:
            return Node("true_divide", [Node("rint", [Node("multiply", [x, as_node(f)])]),
                                        as_node(f)])
        return Node("multiply", [Node("rint", [Node("true_divide", [x, as_node(f)])]),
                                 as_node(f)])
    if dtype.kind not in "iu":
        return run(("round", d), build, (a,), out, "round")
    rounded = run(("round", d), build, (a,), None, "round").astype(dtype)   # float64 back
    return rounded if out is None else run("copy", lambda x: x, (rounded,), out, "round")


round = around     # noqa: A001  (np.round's name; vkp.round is not in __all__)


def real(val):
    """The real parts (np.real): of a device array a view, as NumPy's; while `vkp.jit`
    traces, part of the expression."""
    return _part(val, "real")


def imag(val):
    """The imaginary parts (np.imag): of a complex device array a view, as NumPy's."""
    return _part(val, "imag")


def _part(val, which):
    if isinstance(val, (Array, Node)):
        return getattr(val, which)
    return getattr(np, which)(val)


def angle(z, deg=False):
    """The argument of complex `z` (np.angle): arctan2(z.imag, z.real), in degrees with
    `deg`; of a real array arctan2(0, x) with a Python 0, as NumPy's (so booleans give
    float64, as arctan2(0, bool) does, and int8 float16)."""
    def build(node):
        resolve(node)
        if node.dtype.kind == "c":
            a = Node("arctan2", [Node("imag", [node]), Node("real", [node])])
        else:
            a = Node("arctan2", [as_node(0), node])
        return Node("multiply", [a, as_node(180 / np.pi)]) if deg else a
    return run(("angle", bool(deg)), build, (z,), None, "angle")


def _masked(name, args, out, where):
    """ufunc `name` with NumPy's `where=`: where the mask (broadcast to the result) is
    false, `out` keeps its values; without `out` those elements are unspecified, as in
    NumPy (here: the computed ones). One more element-wise pass: select(mask, result, out)."""
    if where is True:
        return apply(name, args, out)
    if any(isinstance(a, Node) for a in (*args, where)):
        raise TypeError(f"{name}: where= is not available inside vkp.jit; use vkp.where(mask, "
                        "x, y) in the jitted function")
    result = apply(name, args)
    out = _single_out(out, name)
    if out is None:
        return result
    return _select(where, result, out, out, name)


def _refuse_kwargs(name, kwargs):
    raise TypeError(f"np.{name}: the keyword(s) {', '.join(sorted(kwargs))} are not supported "
                    "on vkpersist arrays; supported: out=, where=")


# ufunc method ("reduce", "accumulate", "outer", "at") -> its device form, of (ufunc, *inputs,
# **kwargs): filled by vkpersist/_core/ufunc_methods.py, which builds on modules above this one
UFUNC_METHODS: dict = {}


def array_ufunc(ufunc, method, inputs, kwargs):
    """Array.__array_ufunc__: NumPy's ufuncs and operators on device arrays."""
    if not all(isinstance(x, _OPERANDS) for x in inputs):
        return NotImplemented
    name = BY_UFUNC.get(ufunc, ufunc.__name__)
    if method == "__call__" and ufunc in BY_UFUNC:
        out = kwargs.pop("out", None)
        where_ = kwargs.pop("where", True)
        if kwargs:
            _refuse_kwargs(name, kwargs)
        return _masked(name, inputs, out, where_)
    if method == "__call__" and ufunc is np.divmod and not kwargs:
        return apply("floor_divide", inputs), apply("remainder", inputs)
    if method == "__call__":            # one vkpersist has by name: np.matmul is vkp.matmul
        impl = Array._numpy.function(ufunc, None)    # (the array matters only for like=)
        if impl is not None:
            if "out" in kwargs:          # NumPy hands a ufunc's out= over as a tuple
                kwargs["out"] = _single_out(kwargs["out"], name)
            return impl(*inputs, **kwargs)
    if method in UFUNC_METHODS:
        return UFUNC_METHODS[method](ufunc, *inputs, **kwargs)
    spelled = f"numpy.{name}" + ("" if method == "__call__" else f".{method}")
    raise TypeError(f"{spelled} has no device implementation for vkpersist arrays; call "
                    "np.asarray(x) (a copy to the host) first, or see docs/arrays.md for "
                    "what runs on the device")



# NumPy-named functions (vkp.arctan2, ...) next to the kernel builtins (vkp.atan2)
NAMES = sorted(set(EMIT) | set(ALIASES))
FUNCTIONS = {name: UFunc(name) for name in NAMES}
# the NumPy-named functions that are not also kernel builtins (vkp.sin is the builtin, which
# calls the same function on arrays): vkp.add, vkp.arctan2, ...
ARRAY_FUNCTIONS = ("add", "subtract", "multiply", "divide", "true_divide", "floor_divide",
    "remainder", "mod", "power", "negative", "positive", "absolute", "square", "reciprocal",
    "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh", "deg2rad",
    "rad2deg", "degrees", "radians", "minimum", "maximum", "fmin", "fmax", "isfinite", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
    "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "invert",
    "left_shift", "right_shift", "conjugate", "conj", "rint", "cbrt", "fmod", "ldexp",
    "logaddexp", "logaddexp2", "heaviside", "signbit", "float_power")
(add, subtract, multiply, divide, true_divide, floor_divide, remainder, mod, power,
 negative, positive, absolute, square, reciprocal, arcsin, arccos, arctan, arctan2, arcsinh,
 arccosh, arctanh, deg2rad, rad2deg, degrees, radians, minimum, maximum, fmin, fmax,
 isfinite, equal, not_equal, less, less_equal, greater, greater_equal, logical_and,
 logical_or, logical_xor, logical_not, bitwise_and, bitwise_or, bitwise_xor, invert,
 left_shift, right_shift, conjugate, conj, rint, cbrt, fmod, ldexp, logaddexp, logaddexp2,
 heaviside, signbit, float_power) = \
    (FUNCTIONS[_n] for _n in ARRAY_FUNCTIONS)
# those that mean exactly a kernel builtin work inside kernels too
for _name, _builtin in (("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"),
                        ("arctan2", "atan2"), ("arcsinh", "asinh"), ("arccosh", "acosh"),
                        ("arctanh", "atanh"), ("power", "pow"), ("absolute", "abs"),
                        ("rint", "rint"), ("cbrt", "cbrt"), ("fmod", "fmod"),
                        ("ldexp", "ldexp"), ("signbit", "signbit")):
    B.alias(FUNCTIONS[_name], _builtin)

# kernel builtin called on the host -> what it means for arrays
_BUILTIN_UFUNC = {n: n for n in EMIT} | {
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
    "acosh": "arccosh", "atanh": "arctanh", "atan2": "arctan2", "pow": "power",
    "abs": "absolute"}


def host_call(name, args, kwargs):
    """Builtin.host_call: `vkp.sin(x)`, `vkp.atan2(y, x)`, `vkp.min(a, b, c)`,
    `vkp.clamp(x, lo, hi)` outside a kernel, on arrays or numbers; `vkp.min(x)`,
    `vkp.max(x, axis=0)` of one array are the reductions, `vkp.dot(a, b)` the product."""
    if name in ("min", "max") and len(args) == 1:
        return getattr(np, name)(*args, **kwargs)     # the reduction, np.min(x)
    if name == "dot" and len(args) == 2:
        return np.dot(*args, **kwargs)
    if not args or set(kwargs) - {"out", "where"} or (
            name not in _BUILTIN_UFUNC and name not in ("min", "max", "clamp", "rsqrt")):
        return NotImplemented
    out = kwargs.get("out")
    if "where" in kwargs and name not in _BUILTIN_UFUNC:
        raise TypeError(f"vkp.{name}: where= is taken by the element-wise functions that are "
                        "NumPy ufuncs (vkp.sqrt, vkp.sin, ...), not by this one")
    if name in ("min", "max") and len(args) >= 2:
        def fold(*nodes):
            node = nodes[0]
            for a in nodes[1:]:
                node = Node("minimum" if name == "min" else "maximum", [node, a])
            return node
        return run((name, len(args)), fold, args, out, name)
    if name == "clamp" and len(args) == 3:
        return clip(*args, out=out)
    if name == "rsqrt" and len(args) == 1:
        return run(name, lambda x: Node("true_divide", [as_node(1), Node("sqrt", [x])]),
                   args, out, name)
    op = _BUILTIN_UFUNC.get(name)
    if op is None or getattr(np, op).nin != len(args):
        return NotImplemented
    return _masked(op, args, out, kwargs.get("where", True))
