"""The kernel side of vkpersist.cuda: numba.cuda's names as entries of the builtin registry
(lang/builtins.py), most of them aliases of vkpersist's own builtins.

    cuda.grid(n), cuda.gridsize(n)       global_id / global_size, an int or a tuple
    cuda.threadIdx.x, blockIdx, blockDim, gridDim   local_id, group_id, local_size, num_groups
    cuda.syncthreads()                   vkp.barrier()
    cuda.syncthreads_count/and/or(p)     a barrier that counts the workgroup's true predicates
    cuda.shared.array, cuda.local.array  vkp.shared.array, vkp.local.array (the same objects)
    cuda.atomic.add ... cas              vkp.atomic.* with numba's names
    cuda.popc/clz/ffs/brev, fma, selp    bit intrinsics; vkp.fma; vkp.select
    cuda.threadfence*()                  memory barriers

The index builtins are int32 (numba's are int32 for threadIdx and friends, int64 for grid).
"""
from __future__ import annotations

import ast
import types

from ..lang import builtins as B
from ..lang import ir
from ..lang import subgroups as SG
from ..lang import types as T
from ..lang.values import ArrayHandle, KernelValue, PyValue


def _alias(obj, entry_name: str):
    """`obj` calls the existing registry entry `entry_name` (as its vkp spelling does)."""
    B._register(B.REGISTRY[entry_name], obj)
    return obj


def _refuse_in_stages(c, node, what):
    if c.unit.resources:
        raise c.src.error(node, f"program stages cannot use {what}: a stage is called once per "
                          "index of its domain, with no workgroup or grid of its own")


# ---- indices -----------------------------------------------------------------------------------
def _grid_lower(intrinsic: str, what: str):
    def lower(c, node, _python_math):
        if len(node.args) != 1 or node.keywords:
            raise c.src.error(node, f"cuda.{what}(ndim) takes the number of dimensions, 1-3")
        ndim = c.constant_value(node.args[0], "ndim")
        if ndim not in (1, 2, 3):
            raise c.src.error(node, f"cuda.{what}(ndim): ndim must be the constant 1, 2 or 3, "
                              f"got {ndim!r}")
        loc = c.src.loc(node)
        items = tuple(ir.Intrinsic(T.i32, loc, intrinsic, [axis]) for axis in range(ndim))
        return items[0] if ndim == 1 else PyValue(items)
    return lower


grid = B.Builtin("cuda.grid", "cuda.grid(ndim): the absolute index of this thread in the "
                 "grid, an int for ndim 1, else a tuple (vkp.global_id per axis).")
gridsize = B.Builtin("cuda.gridsize", "cuda.gridsize(ndim): the threads in the grid per "
                     "axis, an int for ndim 1, else a tuple (vkp.global_size per axis).")
B._register(B.Entry("cuda.grid", None, _grid_lower("global_id", "grid"), workgroup=True), grid)
B._register(B.Entry("cuda.gridsize", None, _grid_lower("global_size", "gridsize"),
                    workgroup=True), gridsize)


class _Dim3Axis(KernelValue):
    """`cuda.threadIdx.x` and friends: read as values in kernel code."""

    def __init__(self, owner: str, intrinsic: str, axis: int):
        self.owner, self.intrinsic, self.axis = owner, intrinsic, axis

    def lower(self, c, node):
        _refuse_in_stages(c, node, f"cuda.{self.owner}")
        return ir.Intrinsic(T.i32, c.src.loc(node), self.intrinsic, [self.axis])

    def __repr__(self) -> str:
        return f"<vkpersist.cuda.{self.owner}.{'xyz'[self.axis]}: kernel code only>"


class Dim3:
    """numba.cuda's threadIdx/blockIdx/blockDim/gridDim: `.x`, `.y`, `.z` in kernel code."""

    def __init__(self, name: str, intrinsic: str):
        self._name = name
        self.x, self.y, self.z = (_Dim3Axis(name, intrinsic, axis) for axis in range(3))

    def __repr__(self) -> str:
        return f"<vkpersist.cuda.{self._name}: .x/.y/.z in kernel code>"


threadIdx = Dim3("threadIdx", "local_id")
blockIdx = Dim3("blockIdx", "group_id")
blockDim = Dim3("blockDim", "local_size")
gridDim = Dim3("gridDim", "num_groups")

# ---- synchronisation ---------------------------------------------------------------------------
syncthreads = _alias(B.Builtin("cuda.syncthreads", "cuda.syncthreads(): vkp.barrier()."),
                     "barrier")

_VOTE_NAMES = {"count": "syncthreads_count", "and": "syncthreads_and", "or": "syncthreads_or"}


def _lower_vote(kind):
    def lower(c, node, _python_math):
        name = _VOTE_NAMES[kind]
        if len(node.args) != 1 or node.keywords:
            raise c.src.error(node, f"cuda.{name}(predicate) takes one argument")
        pred = c.truth(c.value(c.expr(node.args[0]), node.args[0]), node.args[0])
        loc = c.src.loc(node)
        var = getattr(c.unit, "_cuda_vote_counter", None)
        if var is None:      # one shared counter per kernel, declared by its first user
            var = ir.Var("_vkp_votes", T.FixedArray(T.i32, (1,), "shared"), "shared")
            c.unit._cuda_vote_counter = var
        if var not in c.unit.shared_arrays and var not in c.declared_shared:
            c.declared_shared.append(var)
        counter = ir.Load(T.i32, loc, var, [ir.Const(T.i32, loc, 0)])
        return ir.Intrinsic(T.i32, loc, f"cuda.{name}", [counter, pred])
    return lower


def _emit_vote(kind):
    def emit(w, e):
        w.uses_barrier = True
        counter = w.element(e.args[0].var, e.args[0].index)
        pred = w.expr(e.args[1])
        barrier = B.REGISTRY["barrier"].emit(w, e) + ";"
        tmp = w._tmp("votes")
        # the leading barrier orders this vote after the previous one's reads
        w.pre += [barrier, f"if (gl_LocalInvocationIndex == 0u) {counter} = 0;", barrier,
                  f"if ({pred}) atomicAdd({counter}, 1);", barrier,
                  f"int {tmp} = {counter};"]
        if kind == "count":
            return tmp
        size = "int(gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z)"
        return f"int({tmp} == {size})" if kind == "and" else f"int({tmp} != 0)"
    return emit


for _kind, _name in _VOTE_NAMES.items():
    globals()[_name] = B.Builtin(f"cuda.{_name}", f"cuda.{_name}(predicate): a workgroup "
                                 "barrier that also returns, to every thread, "
                                 + {"count": "how many threads' predicate is true.",
                                    "and": "1 if every thread's predicate is true, else 0.",
                                    "or": "1 if any thread's predicate is true, else 0."}[_kind])
    B._register(B.Entry(f"cuda.{_name}", _emit_vote(_kind), _lower_vote(_kind), workgroup=True),
                globals()[_name])


def _fence(name, glsl):
    obj = B.Builtin(f"cuda.{name}", f"cuda.{name}(): orders this thread's memory writes "
                    f"({glsl}).")

    def lower(c, node, _python_math):
        if node.args:
            raise c.src.error(node, f"cuda.{name}() takes no arguments")
        return ir.Intrinsic(T.void, c.src.loc(node), f"cuda.{name}", [])
    B._register(B.Entry(f"cuda.{name}", lambda w, e: f"{glsl}()", lower), obj)
    return obj


threadfence = _fence("threadfence", "memoryBarrier")
threadfence_block = _fence("threadfence_block", "groupMemoryBarrier")
threadfence_system = _fence("threadfence_system", "memoryBarrier")

# ---- memory ------------------------------------------------------------------------------------
shared = B.shared            # cuda.shared.array is vkp.shared.array itself
local = B.local


def _lower_const_array(c, node, _python_math):
    """cuda.const.array_like(ary) of a host array the kernel captured: that array, which
    kernels copy into their code as a constant array (frontend.const_array)."""
    if len(node.args) != 1 or node.keywords:
        raise c.src.error(node, "cuda.const.array_like(ary) takes one array")
    arr = c.expr(node.args[0])
    if not (isinstance(arr, PyValue) and isinstance(arr.value, ArrayHandle)
            and arr.value.var.role in ("const_array", "array_param")):
        raise c.src.error(node.args[0], "cuda.const.array_like takes a NumPy array from the "
                          "kernel's globals (copied into the kernel) or an array argument")
    return arr


const = types.SimpleNamespace(array_like=B.Builtin(
    "cuda.const.array_like", "cuda.const.array_like(ary): the host array ary, copied into "
    "the kernel as a constant array (at most 4096 elements)."))
B._register(B.Entry("cuda.const.array_like", None, _lower_const_array), const.array_like)


# ---- atomics (numba's names and argument orders) -----------------------------------------------
def _lower_compare_and_swap(c, node, _python_math):
    """cuda.atomic.compare_and_swap(ary, old, val): cas on ary[0] of a 1-d array (ary[i:]
    is read as ary at i, numba's idiom for an element by slice)."""
    if len(node.args) != 3 or node.keywords:
        raise c.src.error(node, "cuda.atomic.compare_and_swap(ary, old, val) takes 3 arguments")
    first = node.args[0]
    if isinstance(first, ast.Subscript) and isinstance(first.slice, ast.Slice) \
            and first.slice.lower is not None and first.slice.upper is None \
            and first.slice.step is None:          # ary[i:]: its first element is ary[i]
        call = ast.copy_location(ast.Call(node.func, [first.value, first.slice.lower,
                                                      *node.args[1:]], []), node)
        return B._lower_atomic(c, call, "compare_exchange")
    arr = c.expr(node.args[0])
    if isinstance(arr, PyValue) and isinstance(arr.value, ArrayHandle):
        t = arr.value.var.type
        if (t.ndim if isinstance(t, T.ArrayType) else len(t.shape)) != 1:
            raise c.src.error(node.args[0], "cuda.atomic.compare_and_swap takes a 1-d array "
                              "(it swaps its first element); use cuda.atomic.cas(ary, idx, "
                              "old, val) for others")
    zero = ast.copy_location(ast.Constant(0), node.args[0])
    call = ast.copy_location(ast.Call(node.func, [node.args[0], zero, *node.args[1:]], []), node)
    return B._lower_atomic(c, call, "compare_exchange")


atomic = types.SimpleNamespace(
    add=B.atomic.add, sub=B.atomic.sub, max=B.atomic.max, min=B.atomic.min,
    and_=B.atomic.and_, or_=B.atomic.or_, xor=B.atomic.xor, exch=B.atomic.exchange,
    cas=B.atomic.compare_exchange,
    inc=B.atomic.inc, dec=B.atomic.dec,
    compare_and_swap=B.Builtin("cuda.atomic.compare_and_swap", "compare_and_swap(ary, old, "
                               "val): atomically ary[0] = val if ary[0] == old; returns the "
                               "old ary[0]."))
B._register(B.Entry("cuda.atomic.compare_and_swap", None, _lower_compare_and_swap),
            atomic.compare_and_swap)
atomic.__name__ = "cuda.atomic"           # messages: 'cuda.atomic' has no attribute 'inc'
const.__name__ = "cuda.const"


# ---- bit intrinsics ----------------------------------------------------------------------------
def _lower_bits(name):
    def lower(c, node, _python_math):
        if len(node.args) != 1 or node.keywords:
            raise c.src.error(node, f"cuda.{name}(x) takes one integer")
        x = c.value(c.expr(node.args[0]), node.args[0])
        if not (isinstance(x.type, T.Scalar) and x.type.is_int):
            raise c.src.error(node, f"cuda.{name}(x) takes an integer, got {x.type}")
        t = T.arithmetic(x.type)
        if t.bits > 32:
            raise c.src.error(node, f"cuda.{name} on 64-bit integers is not supported yet; "
                              "split the value into two 32-bit halves")
        return ir.Intrinsic(t, c.src.loc(node), f"cuda.{name}", [c.convert(x, t, node)])
    return lower


def _emit_bits(name):
    def emit(w, e):
        x = w.expr(e.args[0])
        t = "int" if e.type.kind == "i" else "uint"
        if name == "popc":
            return f"{t}(bitCount({x}))"
        if name == "brev":
            return f"bitfieldReverse({x})"
        if name == "clz":       # findMSB(0) is -1: clz(0) == 32; negative ints: 0
            return f"{t}(31 - findMSB(uint({x})))"
        return f"{t}(findLSB({x}) + 1)"     # ffs: 1-based, ffs(0) == 0
    return emit


_BIT_DOCS = {"popc": "the number of set bits", "brev": "the bits in reverse order",
             "clz": "the number of leading zero bits (32 for 0)",
             "ffs": "the 1-based position of the lowest set bit (0 for 0)"}
for _name, _doc in _BIT_DOCS.items():
    globals()[_name] = B.Builtin(f"cuda.{_name}", f"cuda.{_name}(x): {_doc} of a 32-bit "
                                 "integer.")
    B._register(B.Entry(f"cuda.{_name}", _emit_bits(_name), _lower_bits(_name)),
                globals()[_name])

fma = B.fma
cbrt = B.cbrt


# ---- cooperative groups: refused --------------------------------------------------------------
def _lower_this_grid(c, node, _python_math):
    raise c.src.error(node, "grid-wide synchronisation (cuda.cg.this_grid().sync()) needs "
                      "every workgroup of the launch resident at once, which a Vulkan launch "
                      "does not promise: split the kernel at each sync into launches (one "
                      "queue runs them in order), or write a vkp.Program, whose stages the "
                      "scheduler separates with grid barriers on a co-resident grid "
                      "(docs/programs.md)")


cg = types.SimpleNamespace(this_grid=B.Builtin(
    "cuda.cg.this_grid", "cuda.cg.this_grid(): refused in kernels (grid sync); see vkp.Program."))
B._register(B.Entry("cuda.cg.this_grid", None, _lower_this_grid), cg.this_grid)


# ---- warps: Vulkan subgroups (lang/subgroups.py) -----------------------------------------------
class _SubgroupValue(KernelValue):
    """`cuda.laneid`, `cuda.warpsize`: the subgroup lane and size, read as values."""

    def __init__(self, name: str, builtin: str):
        self.name, self.builtin = name, builtin

    def lower(self, c, node):
        SG.require(c, node, "basic", f"cuda.{self.name}")
        return ir.Intrinsic(T.i32, c.src.loc(node), self.builtin, [])

    def __repr__(self) -> str:
        return f"<vkpersist.cuda.{self.name}: the subgroup's, in kernel code>"


laneid = _SubgroupValue("laneid", "subgroup_lane")
warpsize = _SubgroupValue("warpsize", "subgroup_size")


def _masked(name: str, target: str, n_args: int, op: str):
    """cuda.X_sync(mask, ...): vkp.subgroup_* on the rest (the mask is evaluated, unused:
    subgroup operations work on the lanes that reach them together)."""
    def lower(c, node, python_math):
        if len(node.args) != n_args or node.keywords:
            raise c.src.error(node, f"cuda.{name} takes {n_args} arguments (mask first)")
        mask = c.value(c.expr(node.args[0]), node.args[0])
        if not (isinstance(mask.type, T.Scalar) and mask.type.is_int):
            raise c.src.error(node.args[0], f"cuda.{name}: the mask must be an integer")
        SG.require(c, node, op, f"cuda.{name}()")
        call = ast.Call(func=node.func, args=node.args[1:], keywords=[])
        ast.copy_location(call, node)
        return B.REGISTRY[target].lower(c, call, python_math)
    obj = B.Builtin(f"cuda.{name}", f"cuda.{name}: vkp.{target} (lang/subgroups.py).")
    B._register(B.Entry(f"cuda.{name}", None, lower, workgroup=True), obj)
    return obj


shfl_sync = _masked("shfl_sync", "subgroup_shuffle", 3, "shuffle")
shfl_up_sync = _masked("shfl_up_sync", "subgroup_shuffle_up", 3, "shuffle_relative")
shfl_down_sync = _masked("shfl_down_sync", "subgroup_shuffle_down", 3, "shuffle_relative")
shfl_xor_sync = _masked("shfl_xor_sync", "subgroup_shuffle_xor", 3, "shuffle")
ballot_sync = _masked("ballot_sync", "subgroup_ballot", 2, "ballot")
all_sync = _masked("all_sync", "subgroup_all", 2, "vote")
any_sync = _masked("any_sync", "subgroup_any", 2, "vote")
eq_sync = _masked("eq_sync", "subgroup_all_equal", 2, "vote")


def _lower_lanemask_lt(c, node, _python_math):
    if node.args or node.keywords:
        raise c.src.error(node, "cuda.lanemask_lt() takes no arguments")
    SG.require(c, node, "basic", "cuda.lanemask_lt()")
    return ir.Intrinsic(T.u32, c.src.loc(node), "cuda.lanemask_lt", [])


lanemask_lt = B.Builtin("cuda.lanemask_lt", "cuda.lanemask_lt(): the bits of the lanes below "
                        "this one, as a uint32 mask.")
B._register(B.Entry("cuda.lanemask_lt", lambda w, e: "((1u << gl_SubgroupInvocationID) - 1u)",
                    _lower_lanemask_lt, workgroup=True), lanemask_lt)


def _lower_syncwarp(c, node, _python_math):
    if len(node.args) > 1 or node.keywords:
        raise c.src.error(node, "cuda.syncwarp(mask=0xffffffff) takes at most one argument")
    SG.require(c, node, "basic", "cuda.syncwarp()")
    return ir.Intrinsic(T.void, c.src.loc(node), "subgroup_barrier", [])


def _lower_activemask(c, node, _python_math):
    if node.args or node.keywords:
        raise c.src.error(node, "cuda.activemask() takes no arguments")
    SG.require(c, node, "ballot", "cuda.activemask()")
    loc = c.src.loc(node)
    return ir.Intrinsic(T.u32, loc, "subgroup_ballot", [ir.Const(T.bool_, loc, True)])


syncwarp = B.Builtin("cuda.syncwarp", "cuda.syncwarp(mask): vkp.subgroup_barrier().")
B._register(B.Entry("cuda.syncwarp", None, _lower_syncwarp, workgroup=True), syncwarp)
activemask = B.Builtin("cuda.activemask", "cuda.activemask(): the lanes of this subgroup "
                       "that run this code, as a uint32 mask.")
B._register(B.Entry("cuda.activemask", None, _lower_activemask, workgroup=True), activemask)
selp = _alias(B.Builtin("cuda.selp", "cuda.selp(cond, a, b): vkp.select(cond, a, b)."),
              "select")

__all__ = ["Dim3", "activemask", "all_sync", "any_sync", "atomic", "ballot_sync", "blockDim", "cg", "eq_sync", "lanemask_lt",
           "blockIdx", "brev", "cbrt", "clz", "laneid", "shfl_down_sync", "shfl_sync",
           "shfl_up_sync", "shfl_xor_sync", "syncwarp", "warpsize", "const", "ffs", "fma",
           "grid", "gridDim", "gridsize", "local", "popc", "selp", "shared", "syncthreads",
           "syncthreads_and", "syncthreads_count", "syncthreads_or", "threadIdx",
           "threadfence", "threadfence_block", "threadfence_system"]
