"""numba.cuda's `cuda.reduce`: a reduction by any associative, commutative binary function,
run on the device.

    sum_reduce = cuda.reduce(lambda a, b: a + b)
    total = sum_reduce(d_arr)                  # a host scalar of the array's dtype

The function becomes a device function (a `lambda` is rewritten as one from its source).
Each pass is one launch of a kernel specialised on the function and dtype: invocation k of
G workgroups of 256 combines elements k, k + 256 G, ... in order, each workgroup combines
its invocations' values by a tree in shared memory (over only the lanes that hold values:
the function needs no identity element), and writes one partial; passes repeat over the
partials until one value is left, which the last pass combines with `init` as numba does
(so a max-reduction's default init=0 takes part, as in numba).
"""
from __future__ import annotations

import ast
import inspect
import textwrap

import numpy as np

from .._kernel import func, kernel
from ..lang.builtins import barrier, group_id, local_id, local_size, num_groups, shared
from ..lang.source import compile_source
from ..lang.values import DeviceFunction
from ..vk.array import Array
from ..vk.context import default_context

LOCAL = 256
MAX_GROUPS = 1024


def _reduction_kernel(fn, dt):
    @kernel
    def reduce_pass(src, dst, n, init, last):
        sv = shared.array(256, dt)
        lid = local_id(0)
        width = local_size(0)
        g0 = group_id(0) * width
        stride = num_groups(0) * width
        k = g0 + lid
        if k < n:
            a = src[k]
            k += stride
            while k < n:
                a = fn(a, src[k])
                k += stride
            sv[lid] = a
        barrier()
        count = min(width, n - g0)           # the lanes holding a value: 0 .. count - 1
        while count > 1:
            half = (count + 1) // 2
            if lid < count - half:
                sv[lid] = fn(sv[lid], sv[lid + half])
            barrier()
            count = half
        if lid == 0:
            if last:
                dst[group_id(0)] = fn(sv[0], init)
            else:
                dst[group_id(0)] = sv[0]

    reduce_pass.__name__ = f"reduce_{getattr(fn, '__name__', 'fn')}_{dt}"
    return reduce_pass


def _device_function(fn) -> DeviceFunction:
    if isinstance(fn, DeviceFunction):
        return fn
    if not callable(fn):
        raise TypeError(f"cuda.reduce takes a binary function (a, b) -> value, got "
                        f"{type(fn).__name__}")
    if getattr(fn, "__name__", "") != "<lambda>":
        return func(fn)
    return _from_lambda(fn)


def _from_lambda(fn) -> DeviceFunction:
    """A device function with a lambda's parameters and body, in the lambda's globals and
    closure (kernel code compiles from `def`s)."""
    args = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    how = "write it as a def: @cuda.reduce\ndef f(a, b): return ..."
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)).strip())
    except (OSError, SyntaxError):
        raise TypeError(f"cuda.reduce: cannot read the source of this lambda; {how}") from None
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)
             and tuple(a.arg for a in n.args.args) == args]
    if len(found) != 1:
        raise TypeError(f"cuda.reduce: cannot tell this lambda apart on its line; {how}")
    namespace = dict(fn.__globals__)
    namespace.update(zip(fn.__code__.co_freevars,
                         (c.cell_contents for c in fn.__closure__ or ())))
    text = f"def reduce_lambda({', '.join(args)}):\n    return {ast.unparse(found[0].body)}\n"
    return func(compile_source(text, "reduce_lambda", namespace)["reduce_lambda"])


class Reduce:
    """A reduction by `functor` (numba.cuda.Reduce); call it on a 1-d array."""

    def __init__(self, functor):
        self._fn = _device_function(functor)
        self._kernels: dict = {}
        self.__name__ = getattr(functor, "__name__", "reduce")

    def __repr__(self) -> str:
        return f"<vkpersist.cuda.Reduce of {self.__name__}>"

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        """The reduction of `arr[:size]` combined with `init` (a scalar of arr's dtype), or,
        with `res` (a device array), written to res[0] and None returned."""
        if not isinstance(arr, Array):
            arr = default_context().asarray(np.ascontiguousarray(arr))
        if arr.ndim != 1:
            raise ValueError(f"cuda.reduce reduces 1-d arrays, got shape {arr.shape}; "
                             "pass arr.reshape(-1) (or a row) instead")
        n = arr.shape[0] if size is None else int(size)
        if not 0 <= n <= arr.shape[0]:
            raise ValueError(f"cuda.reduce: size={size} is outside 0..{arr.shape[0]}")
        dt = arr.dtype
        init = dt.type(init)
        if n == 0:
            if res is None:
                return init
            res[0] = init
            return None
        kern = self._kernels.get(dt)
        if kern is None:
            kern = self._kernels[dt] = _reduction_kernel(self._fn, dt)
        src, ctx = arr, arr.ctx
        while True:
            groups = min(-(-n // LOCAL), MAX_GROUPS)
            last = groups == 1
            dst = res if (last and res is not None) else ctx.empty(groups, dt)
            kern[groups, LOCAL](src, dst, n, init, int(last))
            if last:
                break
            src, n = dst, groups
        return None if res is not None else dst.numpy()[0]


def reduce(functor) -> Reduce:
    """numba.cuda.reduce: `cuda.reduce(lambda a, b: a + b)` or `@cuda.reduce` on a def."""
    return Reduce(functor)
