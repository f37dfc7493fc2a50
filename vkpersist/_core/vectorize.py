"""numba's `@vectorize` and `@guvectorize`, compiled through the kernel language.

    @vkp.vectorize(["float32(float32, float32)", "float64(float64, float64)"])
    def rel_diff(x, y):
        return 2 * (x - y) / (x + y)

The Python function becomes a device function (`@vkp.func`) called, per element, by a
generated element-wise kernel: a vectorized function is one more node kind of the trees of
vkpersist/_core/elementwise.py, so it broadcasts, takes `out=`, runs resident on device arrays
and NumPy-in/NumPy-out on NumPy arrays, and fuses inside `vkp.jit`. A call picks, as
numba's ufuncs do, the first signature every input converts to safely (a Python number is
weak: an int fits any numeric signature, a float any float one); without signatures the
function is compiled for the inputs' own dtypes on first use and its return type is the one
the kernel language infers. `f.reduce(a, axis=0)` folds a binary function along an axis,
in order (numba's and NumPy's `ufunc.reduce`).

`@guvectorize(signatures, "(n),(n)->()")` is the generalized form: the function takes
arrays of the core dimensions and writes its outputs (vkpersist/_core/gufunc.py).
"""
from __future__ import annotations

import itertools
import math
import re

import numpy as np

from .ufunc import run
from .elementwise import LOCAL, Node, compiled, convert, groups_for, resolve, weak
from ..lang import types as T
from ..lang.compiler import Unit
from ..lang.values import DeviceFunction
from ..vk.array import Array
from ..vk.context import default_context
from ..vk.target import target_of

_names = itertools.count()
_TYPE_NAMES = {"boolean": "bool", "b1": "bool", "bool_": "bool", "intp": "int64",
               "uintp": "uint64", "void": None}


def parse_type(text: str):
    """(dtype or None for void, array ndim) of a numba type name: "float32", "f4",
    "int64[:]", "float64[:, :]"."""
    text = text.strip()
    m = re.fullmatch(r"(\w+)\s*(?:\[([:,\s]*)\])?", text)
    if not m:
        raise TypeError(f"cannot read the type {text!r}; write numba's names, e.g. "
                        "'float32', 'int64', 'float64[:]', 'float32[:, :]'")
    name, dims = m.group(1), m.group(2)
    ndim = dims.count(":") if dims is not None else 0
    name = _TYPE_NAMES.get(name, name)
    if name is None:
        return None, ndim
    try:
        return np.dtype(name), ndim
    except TypeError:
        raise TypeError(f"unknown type {text!r} in a signature; numba's names: float32, "
                        "float64, int8 .. int64, uint8 .. uint64, boolean, intp") from None


def parse_signature(sig: str):
    """'float32(float32, int32)' -> (return (dtype, ndim), [(dtype, ndim), ...])."""
    if not isinstance(sig, str):
        raise TypeError(f"signatures are strings such as 'float32(float32, float32)', got "
                        f"{sig!r}")
    m = re.fullmatch(r"\s*([\w\[\]:,\s]*?)\s*\((.*)\)\s*", sig)
    if not m:
        raise TypeError(f"cannot read the signature {sig!r}; write it as numba does: "
                        "'float32(float32, float32)'")
    ret = parse_type(m.group(1)) if m.group(1) else (None, 0)
    args = [parse_type(a) for a in re.split(r",(?![^\[]*\])", m.group(2)) if a.strip()]
    return ret, args


def _fits(arg: Node, want: np.dtype) -> bool:
    """Whether an input converts to `want` safely (numba picks the first signature all do)."""
    if weak(arg):
        kinds = {bool: "biufc", int: "iufc", float: "fc", complex: "c"}
        return want.kind in kinds[type(arg.value)]
    return np.can_cast(arg.dtype, want, "safe")


def pick(name: str, sigs: list, args) -> tuple:
    for ins, ret in sigs:
        if all(_fits(a, d) for a, d in zip(args, ins)):
            return ins, ret
    got = ", ".join(type(a.value).__name__ if a.op == "scalar" else str(a.dtype) for a in args)
    have = "; ".join(f"({', '.join(map(str, i))})" for i, _ in sigs)
    raise TypeError(f"{name}: no signature takes inputs of types ({got}) safely; the "
                    f"signatures' inputs: {have}")


def _natural(arg: Node) -> np.dtype:
    """An input's own dtype, for a signature-less function (numba types a Python float as
    float64 and an int as int64)."""
    if weak(arg):
        return np.dtype({bool: np.bool_, int: np.int64, float: np.float64}[type(arg.value)])
    return arg.dtype


def infer_return(devfunc: DeviceFunction, name: str, ins) -> np.dtype:
    """The dtype the kernel language gives `devfunc`'s result for arguments of `ins`."""
    from ..lang.source import compile_source
    params = ", ".join(f"x{i}" for i in range(len(ins)))
    probe = compile_source(f"def _probe({params}):\n    r = {name}({params})\n", "probe",
                           {name: devfunc})["_probe"]
    unit = Unit(target_of(None))
    unit.compile_kernel(probe, [T.arithmetic(T.scalar_of_dtype(d)) for d in ins])
    fn = next(f for key, f in unit.functions.items() if key[0] is devfunc.pyfunc)
    if len(fn.returns) != 1 or not isinstance(fn.returns[0], T.Scalar):
        raise TypeError(f"{devfunc.__name__}: a vectorized function returns one number")
    return np.dtype(fn.returns[0].dtype)


class Vectorized:
    """A numba-style ufunc compiled for the device (see the module docs)."""

    def __init__(self, pyfunc, signatures, identity=None):
        self.pyfunc = pyfunc
        self.__name__ = pyfunc.__name__
        self.__doc__ = pyfunc.__doc__
        self.device_function = DeviceFunction(pyfunc)
        self.glsl_name = f"vf{next(_names)}_{pyfunc.__name__.strip('_') or 'f'}"
        self.nin = len(self.device_function.param_names)
        self.identity = identity
        self.lazy = not signatures
        self.types: list = []             # [(input dtypes, return dtype)]
        for sig in signatures or ():
            (ret, rdim), args = parse_signature(sig)
            if ret is None or rdim or any(d for _, d in args):
                raise TypeError(f"{self.__name__}: vectorize signatures take and return "
                                f"scalars, got {sig!r} (array types are guvectorize's)")
            if len(args) != self.nin:
                raise TypeError(f"{self.__name__}: signature {sig!r} has {len(args)} "
                                f"inputs, the function {self.nin}")
            self.types.append((tuple(a for a, _ in args), ret))

    def __repr__(self):
        return f"<vkpersist.vectorize {self.__name__}>"

    def __call__(self, *args, out=None):
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} arguments, got {len(args)}")
        return run(self, lambda *nodes: Node(self, nodes), args, out, self.__name__)

    # ---- the Node protocol (vkpersist/_core/elementwise.py) -----------------------------------
    def resolve(self, args) -> tuple:
        if self.lazy:
            ins = tuple(_natural(a) for a in args)
            for have, ret in self.types:
                if have == ins:
                    return have, ret
            self.types.append((ins, infer_return(self.device_function, self.glsl_name, ins)))
            return self.types[-1]
        return pick(self.__name__, self.types, args)

    def call_expr(self, args, ret: np.dtype) -> str:
        return convert(f"{self.glsl_name}({', '.join(args)})", ret)

    # ---- reduce ------------------------------------------------------------------------
    def reduce(self, array, axis=0, out=None):
        """Fold the binary function along `axis` (None: every axis, in row-major order):
        r = f(f(a[0], a[1]), a[2]) ..., as numba's and NumPy's ufunc.reduce, one
        invocation per result element."""
        return self._fold(array, axis, out, "reduce")

    def accumulate(self, array, axis=0, out=None):
        """The running fold along `axis`: r[0] = a[0], r[k] = f(r[k-1], a[k]), as
        numba's and NumPy's ufunc.accumulate."""
        return self._fold(array, axis, out, "accumulate")

    def _fold(self, array, axis, out, how: str):
        if self.nin != 2:
            raise ValueError(f"{self.__name__}.{how}: {how} only applies to binary "
                             f"functions; this one takes {self.nin} arguments")
        resident = isinstance(array, Array)
        ctx = array.ctx if resident else default_context()
        a = array if resident else ctx.asarray(np.ascontiguousarray(np.asarray(array)))
        if a.ndim == 0:
            raise ValueError(f"{self.__name__}.{how}: cannot {how} a 0-d array")
        if axis is None and how == "accumulate" and a.ndim > 1:
            raise ValueError(f"{self.__name__}.accumulate: axis=None is only for 1-d arrays")
        axis = 0 if axis is None and a.ndim == 1 else axis
        if axis is None:
            src, rest, order = a if a._contiguous else a.copy(), (), None
        else:
            if not -a.ndim <= axis < a.ndim:
                raise np.exceptions.AxisError(axis, a.ndim)
            axis %= a.ndim
            order = [k for k in range(a.ndim) if k != axis] + [axis]
            src, rest = a.transpose(*order), tuple(a.shape[k] for k in order[:-1])
            src = src if src._contiguous else src.copy()
        n = a.size // max(1, math.prod(rest))
        leaf = Node("array", value=a)
        resolve(leaf)
        ins, ret = self.resolve([leaf, leaf])
        result = Array(ctx, rest + ((n,) if how == "accumulate" else ()), ret)
        if n == 0 and how == "reduce" and self.identity is None:
            raise ValueError(f"zero-size array to reduction operation {self.__name__} which "
                             "has no identity")
        if n == 0 and how == "reduce":
            result.fill(self.identity)
        elif result.size:
            rows = math.prod(rest)
            kern = compiled(self._fold_source(ins, ret, how),
                            {self.glsl_name: self.device_function})
            groups = groups_for(rows)
            kern[groups, LOCAL](result.reshape(rows, -1), src.reshape(rows, n))
        if how == "accumulate" and order is not None:
            result = result.transpose(*np.argsort(order))
            result = result if result._contiguous else result.copy()
        if out is not None:
            out[...] = result if isinstance(out, Array) else result.numpy()
            return out
        if resident:
            return result
        host = result.numpy()
        return host[()] if host.ndim == 0 else host

    def _fold_source(self, ins, ret, how: str) -> str:
        step = convert(f"{self.glsl_name}({convert('acc', ins[0])}, "
                       f"{convert('a[g, k]', ins[1])})", ret)
        keep = how == "accumulate"
        return "\n".join([
            "@vkp.kernel", f"def {self.glsl_name}_{how}(out, a):", "    g = vkp.global_id(0)",
            "    while g < out.shape[0]:", f"        acc = {convert('a[g, 0]', ret)}",
            *(["        out[g, 0] = acc"] if keep else []),
            "        k = 1", "        while k < a.shape[1]:", f"            acc = {step}",
            *(["            out[g, k] = acc"] if keep else []),
            "            k += 1", *([] if keep else ["        out[g, 0] = acc"]),
            "        g += vkp.global_size(0)"]) + "\n"


def vectorize(signatures=None, *, target=None, identity=None, nopython=True, cache=False):
    """numba's @vectorize: `@vkp.vectorize(["float32(float32, float32)", ...])`, or bare
    `@vkp.vectorize` to compile for the inputs' dtypes on first use. `target`, `nopython`
    and `cache` are accepted for numba's code and ignored: the function runs on the
    Vulkan device of its arrays (and compiled kernels are cached anyway)."""
    if callable(signatures):
        return Vectorized(signatures, None, identity)
    if isinstance(signatures, str):
        signatures = [signatures]
    return lambda pyfunc: Vectorized(pyfunc, signatures, identity)

