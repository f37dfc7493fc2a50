"""numba's `@guvectorize`: a function over core dimensions, looped over the others.

    @vkp.guvectorize(["void(float32[:, :], float32[:, :], float32[:, :])"],
                     "(m,n),(n,p)->(m,p)")
    def matmul(a, b, out):
        for i in range(a.shape[0]):
            ...

The function takes one array per operand of its core shape (a scalar for a "()" operand
declared as a scalar type, a one-element array for one declared `[:]`) and writes its
outputs. It runs once per element of the loop dimensions (the leading ones, broadcast
NumPy's way), one invocation each, all in one launch.

How: the kernel language has no array slices, so the function's source is rewritten
before it compiles as a device function: it gains the loop index as its first parameter
and every operand array gains the loop axis in front (`a[i, k]` becomes `a[g, i, k]`,
`a.shape[0]` becomes `a.shape[1]`, `len(a)` the core length). Each operand reaches the
kernel as a view of shape (loop, core...): broadcast loop axes have stride 0, and loop
axes that cannot merge into one are copied contiguous first. At most 2 core axes (the
kernel language's arrays have up to 3).
"""
from __future__ import annotations

import ast
import inspect
import itertools
import math
import re
import textwrap

import numpy as np

from .elementwise import LOCAL, Node, as_node, compiled, groups_for, resolve
from .recipe import broadcast_shape
from .vectorize import parse_signature, pick
from ..lang.source import compile_source
from ..lang.values import DeviceFunction
from ..vk.array import Array
from ..vk.context import default_context

_names = itertools.count()
_INDEX = "gu_index"


def parse_layout(layout: str):
    """"(m,n),(n,p)->(m,p)" -> ([("m", "n"), ("n", "p")], [("m", "p")])."""
    m = re.fullmatch(r"\s*(.*?)\s*->\s*(.*?)\s*", layout or "")
    if not m:
        raise ValueError(f"cannot read the layout {layout!r}; write it as numba does: "
                         "'(m,n),(n,p)->(m,p)'")

    def operands(text):
        groups = re.findall(r"\(([^()]*)\)", text)
        if re.sub(r"\([^()]*\)|,|\s", "", text):
            raise ValueError(f"cannot read the layout {layout!r}")
        return [tuple(d.strip() for d in g.split(",") if d.strip()) for g in groups]
    return operands(m.group(1)), operands(m.group(2))


class _AddLoopAxis(ast.NodeTransformer):
    """Give every operand array the loop axis in front (see the module docs)."""

    def __init__(self, core: dict):
        self.core = core              # array parameter -> its number of core axes

    def _param(self, node):
        return node.id if isinstance(node, ast.Name) and node.id in self.core else None

    def visit_Subscript(self, node):
        p = self._param(node.value)
        if p is not None:
            index = self.visit(node.slice)
            g = ast.Name(_INDEX, ast.Load())
            if self.core[p] == 0:
                new = g
            else:
                items = index.elts if isinstance(index, ast.Tuple) else [index]
                new = ast.Tuple([g, *items], ast.Load())
            return ast.copy_location(ast.Subscript(node.value, new, node.ctx), node)
        v = node.value
        if isinstance(v, ast.Attribute) and v.attr == "shape" and self._param(v.value) and \
                isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
            k = node.slice.value % max(1, self.core[v.value.id]) + 1
            return ast.copy_location(ast.Subscript(v, ast.Constant(k), node.ctx), node)
        return self.generic_visit(node)

    def visit_Attribute(self, node):
        p = self._param(node.value)
        if p is not None and node.attr in ("shape", "ndim", "size"):
            dims = [ast.Subscript(ast.Attribute(node.value, "shape", ast.Load()),
                                  ast.Constant(k + 1), ast.Load()) for k in range(self.core[p])]
            if node.attr == "shape":
                return ast.copy_location(ast.Tuple(dims, ast.Load()), node)
            if node.attr == "ndim":
                return ast.copy_location(ast.Constant(self.core[p]), node)
            size = dims[0] if dims else ast.Constant(1)
            for d in dims[1:]:
                size = ast.BinOp(size, ast.Mult(), d)
            return ast.copy_location(size, node)
        return self.generic_visit(node)

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 \
                and self._param(node.args[0]):
            shape = ast.Attribute(node.args[0], "shape", ast.Load())
            return ast.copy_location(ast.Subscript(shape, ast.Constant(1), ast.Load()), node)
        return self.generic_visit(node)


def _rewrite(pyfunc, core: dict, name: str) -> DeviceFunction:
    """`pyfunc` with the loop axis added (a new device function named `name`)."""
    try:
        text = textwrap.dedent(inspect.getsource(pyfunc))
    except (OSError, TypeError):
        raise TypeError(f"guvectorize({pyfunc.__name__}): cannot read the function's source; "
                        "define it in a file, a notebook cell or vkp.compile_source") from None
    fn = ast.parse(text).body[0]
    fn = _AddLoopAxis(core).visit(fn)
    fn.decorator_list, fn.name = [], name
    fn.args.args.insert(0, ast.arg(_INDEX))
    namespace = dict(pyfunc.__globals__)
    for var, cell in zip(pyfunc.__code__.co_freevars, pyfunc.__closure__ or ()):
        namespace[var] = cell.cell_contents
    module = ast.fix_missing_locations(ast.Module([fn], []))
    return DeviceFunction(compile_source(ast.unparse(module), pyfunc.__name__, namespace)[name])


class GUVectorized:
    """A numba-style generalized ufunc compiled for the device (see the module docs)."""

    def __init__(self, pyfunc, signatures, layout):
        self.pyfunc, self.__name__, self.__doc__ = pyfunc, pyfunc.__name__, pyfunc.__doc__
        self.ins, self.outs = parse_layout(layout)
        self.layout = layout
        self.nin, self.nout = len(self.ins), len(self.outs)
        params = list(inspect.signature(pyfunc).parameters)
        if len(params) != self.nin + self.nout:
            raise TypeError(f"{self.__name__}: the layout {layout!r} names "
                            f"{self.nin + self.nout} operands, the function takes "
                            f"{len(params)}")
        if any(len(c) > 2 for c in self.ins + self.outs):
            raise ValueError(f"{self.__name__}: at most 2 core dimensions per operand "
                             f"(kernel arrays have up to 3 axes, one is the loop), got {layout!r}")
        self.types = []                         # [(operand dtypes, operand ndims)]
        if isinstance(signatures, str):
            signatures = [signatures]
        for sig in signatures or ():
            _, args = parse_signature(sig)
            if len(args) != len(params):
                raise TypeError(f"{self.__name__}: signature {sig!r} has {len(args)} "
                                f"arguments, the function takes {len(params)}")
            for (dt, nd), core, p in zip(args, self.ins + self.outs, params):
                if nd != len(core) and not (nd == 1 and not core):
                    raise TypeError(f"{self.__name__}: argument {p!r} is {nd}-d in {sig!r} "
                                    f"but has the core dimensions {core} in {layout!r}")
            self.types.append((tuple(d for d, _ in args), tuple(n for _, n in args)))
        if not self.types:
            raise TypeError(f"{self.__name__}: guvectorize needs signatures, e.g. "
                            "['void(float32[:], float32[:])']")
        core = {p: len(c) for p, c, n in zip(params, self.ins + self.outs, self.types[0][1])
                if n > 0}
        self.scalar_inputs = [k for k in range(self.nin) if self.types[0][1][k] == 0]
        self.fname = f"gu{next(_names)}_{self.__name__.strip('_') or 'f'}"
        self.device_function = _rewrite(pyfunc, core, self.fname)

    def __repr__(self):
        return f"<vkpersist.guvectorize {self.__name__} {self.layout}>"

    def __call__(self, *args, out=None):
        if len(args) == self.nin + self.nout and out is None:
            args, out = args[:self.nin], args[self.nin:]
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} inputs (and optionally "
                            f"{self.nout} outputs), got {len(args)}")
        outs = list(out) if isinstance(out, (tuple, list)) else [out] if out is not None else []
        if outs and len(outs) != self.nout:
            raise ValueError(f"{self.__name__}: out= takes {self.nout} arrays, got {len(outs)}")
        nodes = [as_node(a) for a in args]
        for n in nodes:
            resolve(n)
        chosen = pick(self.__name__, [(t[:self.nin], t) for t, _ in self.types], nodes)
        dtypes = chosen[1]
        devs = [a for a in args if isinstance(a, Array)] + [o for o in outs if isinstance(o, Array)]
        ctx = devs[0].ctx if devs else default_context()
        ins = [self._input(ctx, n, dt) for n, dt in zip(nodes, dtypes)]
        sizes, loop = self._dims(ins, outs)
        results = []
        for k, core in enumerate(self.outs):
            shape = tuple(loop) + tuple(sizes[d] for d in core)
            given = outs[k] if outs else None
            if given is not None and tuple(given.shape) != shape:
                raise ValueError(f"{self.__name__}: output {k} has shape {tuple(given.shape)}, "
                                 f"the layout {self.layout!r} gives {shape}")
            results.append(given if isinstance(given, Array) and given.dtype == dtypes[self.nin + k]
                           else Array(ctx, shape, dtypes[self.nin + k]))
        self._launch(ins, results, loop)
        returned = []
        for k, r in enumerate(results):
            given = outs[k] if outs else None
            if given is not None and given is not r:
                given[...] = r if isinstance(given, Array) else r.numpy()
                r = given
            elif not devs:
                r = r.numpy()
            returned.append(r)
        return returned[0] if self.nout == 1 else tuple(returned)

    def _input(self, ctx, node: Node, dtype) -> Array:
        v = node.value
        if node.op == "scalar":
            return ctx.asarray(np.asarray(v, dtype))
        if isinstance(v, np.ndarray):
            return ctx.asarray(np.ascontiguousarray(v, dtype))
        if v.ctx is not ctx:
            from .._errors import VkPersistError
            raise VkPersistError(f"{self.__name__}: arrays of different Contexts")
        return v if v.dtype == dtype else v.astype(dtype)

    def _dims(self, ins, outs):
        sizes, loops = {}, []
        for k, (a, core) in enumerate(list(zip(ins, self.ins)) +
                                      [(o, c) for o, c in zip(outs, self.outs)]):
            what = f"{'Input' if k < self.nin else 'Output'} operand {k if k < self.nin else k - self.nin}"
            if a.ndim < len(core):
                raise ValueError(f"{self.__name__}: {what} does not have enough dimensions "
                                 f"(has {a.ndim}, gufunc core with signature {self.layout} "
                                 f"requires {len(core)})")
            for j, d in enumerate(core):
                n = a.shape[a.ndim - len(core) + j]
                if sizes.setdefault(d, n) != n:
                    raise ValueError(f"{self.__name__}: {what} has a mismatch in its core "
                                     f"dimension {j}, with gufunc signature {self.layout} "
                                     f"(size {n} is different from {sizes[d]})")
            if k < self.nin:
                loops.append(tuple(a.shape[:a.ndim - len(core)]))
        missing = [d for c in self.outs for d in c if d not in sizes]
        if missing:
            raise ValueError(f"{self.__name__}: the output dimension(s) {', '.join(missing)} "
                             "of the layout appear in no input; pass out= arrays")
        return sizes, broadcast_shape(loops)

    def _launch(self, ins, outs, loop) -> None:
        length = math.prod(loop)
        if length == 0:
            return
        views = [_loop_view(a, loop, len(c)) for a, c in zip(ins, self.ins)]
        out_views = [_loop_view(o, loop, len(c)) for o, c in zip(outs, self.outs)]
        for o, v in zip(outs, out_views):
            if v.buffer is not o.buffer:
                raise ValueError(f"{self.__name__}: the output view's loop axes cannot be "
                                 "walked as one; pass a contiguous out= array")
        params = [f"x{k}" for k in range(len(views) + len(out_views))]
        call = [f"x{k}[g]" if k in self.scalar_inputs else f"x{k}" for k in range(len(params))]
        text = "\n".join([
            "@vkp.kernel", f"def {self.fname}_loop({', '.join(params)}):", "    g = vkp.global_id(0)",
            "    while g < x0.shape[0]:", f"        {self.fname}(g, {', '.join(call)})",
            "        g += vkp.global_size(0)"]) + "\n"
        kern = compiled(text, {self.fname: self.device_function})
        groups = groups_for(length)
        kern[groups, LOCAL](*views, *out_views)


def _loop_view(a: Array, loop, ncore: int) -> Array:
    """`a` as (loop length, core...): loop axes broadcast (stride 0) and merged into one,
    through a contiguous copy where they cannot merge."""
    core_shape = a.shape[a.ndim - ncore:]
    core_strides = a._estrides[a.ndim - ncore:]
    own = a.ndim - ncore
    pad = len(loop) - own
    strides = [0] * pad + [0 if n == 1 and loop[pad + k] != 1 else s
                           for k, (n, s) in enumerate(zip(a.shape[:own], a._estrides[:own]))]
    view = a._view(tuple(loop) + core_shape, tuple(strides) + core_strides, a._offset)
    keep = [k for k, n in enumerate(loop) if n != 1]
    st = [strides[k] for k in keep]
    ln = [loop[k] for k in keep]
    if all(st[k] == st[k + 1] * ln[k + 1] for k in range(len(st) - 1)):
        step = st[-1] if st else 0
        return a._view((math.prod(loop),) + core_shape, (step,) + core_strides, a._offset)
    view = view.copy()
    return view.reshape((math.prod(loop),) + core_shape)


def guvectorize(signatures, layout, *, target=None, nopython=True, cache=False):
    """numba's @guvectorize(signatures, layout) (see the module docs). `target`,
    `nopython` and `cache` are accepted for numba's code and ignored."""
    return lambda pyfunc: GUVectorized(pyfunc, signatures, layout)
