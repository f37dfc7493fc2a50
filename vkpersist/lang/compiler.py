"""Compilation units: one kernel specialisation and the device functions it calls."""
from __future__ import annotations

from .._errors import CompileError
from . import types as T
from ..vk.target import Target
from .frontend import FunctionCompiler
from .source import glsl_name
from .values import DeviceFunction
from .semantics import TypingError


class Unit:
    """Everything one kernel specialisation compiles: its functions (callees first), the
    shared arrays it declares and the device features its code needs."""

    def __init__(self, target: Target, resources: dict | None = None):
        self.target = target             # the device (or any device) the code is for
        # a program's stages: id(array or controls object) -> its bound ir.Var, and
        # id(prog.step) -> "step"; empty for kernels
        self.resources = resources or {}
        self.functions: dict = {}
        self.order: list = []            # device functions, callees before callers
        self.stack: list = []
        self.shared_arrays: list = []
        self.uses_int64 = self.uses_float64 = False
        self.uses_atomic_int64 = self.uses_atomic_float = False
        self.uses_storage8 = self.uses_storage16 = False
        self.uses_subgroup: set = set()    # subgroup operation classes (lang/subgroups.py)
        self.uses_print = False            # print() in its code (lang/printing.py)
        self.const_arrays: dict = {}       # id(host array) -> its const_array Var (frontend)
        # id(device array) -> (Var, the array): device arrays a kernel reads from its globals,
        # bound by reference as extra buffers after its parameters (frontend, _kernel.py)
        self.captured_arrays: dict = {}
        # bytes of dynamic shared memory (numba.cuda's shared.array(0, dtype), sized by the
        # launch: vkpersist.cuda's k[blocks, threads, stream, nbytes]); 0: none given
        self.dynamic_shared = 0
        self.debug = False               # check every array index on the device (bounds.py)

    def require(self, t) -> None:
        """Note that the code computes in type `t`; TypingError if the target cannot."""
        if not isinstance(t, T.Scalar):
            return
        if t in (T.i64, T.u64):
            self.uses_int64 = True
            if not self.target.int64:
                raise TypingError(f"{t} needs 64-bit integer support, which "
                                  f"{self.target.name} lacks; use 32-bit types")
        if t == T.f64:
            self.uses_float64 = True
            if not self.target.float64:
                raise TypingError(f"float64 needs shaderFloat64, which {self.target.name} "
                                  "lacks; use float32")

    def compile_kernel(self, pyfunc, arg_types):
        self.stack.append(pyfunc)
        fc = FunctionCompiler(self, pyfunc, arg_types, is_kernel=True, glsl_fn_name="main")
        fn = fc.compile()
        self.stack.pop()
        return fn

    def compile_stage(self, pyfunc, param_types: list, name: str):
        """A program stage: a void function of its domain indices (int32) or of one queue
        item, reading and writing the program's resources as globals."""
        self.stack.append(pyfunc)
        try:
            fc = FunctionCompiler(self, pyfunc, list(param_types), is_kernel=False,
                                  glsl_fn_name=name)
            fn = fc.compile()
        finally:
            self.stack.pop()
        if fn.returns:
            raise CompileError(f"{fn.loc.file}:{fn.loc.line}: stage {pyfunc.__name__} returns a "
                               "value; stages write their results into program arrays")
        self.order.append(fn)
        return fn

    def compile_condition(self, pyfunc, name: str):
        """A program's `when` condition: a function of no parameters returning a bool."""
        self.stack.append(pyfunc)
        try:
            fn = FunctionCompiler(self, pyfunc, [], is_kernel=False, glsl_fn_name=name).compile()
        finally:
            self.stack.pop()
        if fn.returns != [T.bool_]:
            got = ", ".join(map(str, fn.returns)) or "nothing"
            raise CompileError(f"{fn.loc.file}:{fn.loc.line}: condition {pyfunc.__name__} must "
                               f"return a bool (a comparison), it returns {got}")
        self.order.append(fn)
        return fn

    def compile_function(self, devfunc, arg_types, bound, src, node):
        pyfunc = devfunc.pyfunc
        if pyfunc in self.stack:
            chain = " -> ".join(f.__name__ for f in self.stack) + f" -> {pyfunc.__name__}"
            raise src.error(node, f"recursion is not supported on the GPU ({chain})")
        key = (pyfunc, tuple(arg_types), tuple(sorted((k, id(v)) for k, v in bound.items())))
        fn = self.functions.get(key)
        if fn is not None:
            return fn
        name = f"{glsl_name(pyfunc.__name__)}_{len(self.functions)}"
        caller = self.stack[-1].__name__ if self.stack else "?"
        self.stack.append(pyfunc)
        try:
            fc = FunctionCompiler(self, pyfunc, list(arg_types), is_kernel=False,
                                  glsl_fn_name=name, bound_arrays=bound)
            fn = fc.compile()
        except CompileError as exc:     # say how the code got there: the chain of calls
            loc = src.loc(node)
            exc.args = (f"{exc.args[0]}\n  in {pyfunc.__name__}, called from "
                        f"{loc.file}:{loc.line} in {caller}",) + exc.args[1:]
            raise
        finally:
            self.stack.pop()
        self.functions[key] = fn
        self.order.append(fn)
        return fn


__all__ = ["CompileError", "DeviceFunction", "Unit"]
