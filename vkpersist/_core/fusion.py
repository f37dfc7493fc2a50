"""`vkp.jit`: a whole element-wise function as ONE kernel.

    f = vkp.jit(lambda a, b: vkp.where(a > b, vkp.sin(a), vkp.cos(b)))
    y = f(x, z)                   # one launch; f.glsl(x, z) shows its code

Each call runs the function once on stand-ins of its arguments (Nodes): the operators,
the NumPy ufuncs, vkp's element-wise functions and vectorized functions on them return
bigger trees instead of computing, so the call yields the tree of the whole expression,
which vkpersist/_core/elementwise.py compiles (once per tree shape, loop dtypes and layout,
cached) and launches once. The results are those of the same operations run one at a
time, with the same NumPy types at every step; they are bit-identical where the device
keeps each operation's rounding (a driver may contract a*b + c into one fma in the fused
kernel, which it cannot across two launches). Operators and NumPy ufuncs on numbers only
(`s * 2.0` of a number argument) are not in the kernel: they run on the host at every call,
as op by op, so they keep Python's weak types (NEP 50) and NumPy's values.

Tracing runs the Python function, so Python decisions on array values (`if a > 0:`) are
refused; vkp.where is the element-wise choice.
"""
from __future__ import annotations

import functools

from .ufunc import _single_out
from .elementwise import Node, as_node
from .recipe import Recipe, call



class JitFunction:
    """An element-wise function compiled into one kernel per argument signature."""

    def __init__(self, pyfunc):
        self.pyfunc = pyfunc
        functools.update_wrapper(self, pyfunc)
        self.sources: set = set()     # the generated kernel sources its calls used

    def __repr__(self):
        return f"<vkpersist.jit {self.__name__}>"

    def _build(self, *nodes) -> Node:
        root = self.pyfunc(*nodes)
        if not isinstance(root, Node) or root.op == "scalar":
            raise TypeError(f"vkp.jit({self.__name__}): the function must return an "
                            "element-wise expression of its array arguments, got "
                            f"{type(root).__name__}")
        return root

    def __call__(self, *args, out=None):
        """The function's value on `args` (device arrays, NumPy arrays, numbers), computed
        by one kernel: a new array, or written into `out`. The function is traced once per
        argument signature (dtypes, shapes, layouts), as numba and JAX do."""
        return call(self, self._build, args, _single_out(out, self.__name__), self.__name__,
                    self.sources)

    def _recipe(self, args) -> Recipe:
        nodes = [as_node(a) for a in args]
        return Recipe(self._build(*nodes), nodes, None, self.__name__)

    def source(self, *args) -> str:
        """The kernel-language source generated for these arguments."""
        return self._recipe(args).source

    def glsl(self, *args) -> str:
        """The GLSL of the kernel these arguments run."""
        return self._recipe(args).glsl()


def jit(pyfunc=None):
    """Compile an element-wise function of arrays into one kernel (see the module docs)."""
    if pyfunc is None:
        return jit
    if not callable(pyfunc):
        raise TypeError(f"vkp.jit takes a function, got {type(pyfunc).__name__}")
    return JitFunction(pyfunc)
