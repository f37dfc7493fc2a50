"""Subgroup operations: Vulkan's warps. A workgroup runs as subgroups of gl_SubgroupSize
invocations (32 on NVIDIA, 32 or 64 on AMD, 8-32 on Intel, 4-16 on lavapipe, the device's
`subgroup_size`) that run in lockstep and exchange values without shared memory.

    vkp.subgroup_lane(), vkp.subgroup_size()        this invocation's lane, the size
    vkp.subgroup_add/mul/min/max(x)                 reduction over the subgroup
    vkp.subgroup_inclusive_add(x), _exclusive_add   prefix sums over the lanes
    vkp.subgroup_shuffle(x, lane)                   x of another lane
    vkp.subgroup_shuffle_up/down/xor(x, d)          x of lane - d / lane + d / lane ^ d
                                                    (this lane's own x where that is outside)
    vkp.subgroup_ballot(p)                          uint32 mask of the lanes where p holds
    vkp.subgroup_all(p), vkp.subgroup_any(p)        votes
    vkp.subgroup_all_equal(x)                       whether every lane has the same x
    vkp.subgroup_barrier()                          the subgroup waits, memory ordered

Each needs its class of operations in compute shaders (VkPhysicalDeviceSubgroupProperties,
DeviceInfo.subgroup_ops); a device without it gets a CompileError naming the class. The
operations work on the invocations that reach them together (numba.cuda's masks are
accepted and not used: vkpersist.cuda). Ballots are 32-bit, as CUDA's: on subgroups of 64
lanes they see the first 32.
"""
from __future__ import annotations

from . import builtins as B
from . import ir
from . import types as T

_OPS = ("basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle_relative")


def require(c, node, op: str, what: str) -> None:
    """Refuse `what` unless the target has subgroup operations of class `op`; note the GLSL
    extension the code then needs."""
    if c.unit.resources:
        raise c.src.error(node, f"program stages cannot use {what}: a stage is called once per "
                          "index of its domain, with no workgroup or subgroup of its own")
    if op not in c.unit.target.subgroup_ops:
        have = ", ".join(sorted(c.unit.target.subgroup_ops)) or "none"
        raise c.src.error(node, f"{what} needs subgroup {op} operations in compute shaders, "
                          f"which {c.unit.target.name} lacks (it has: {have}); use shared "
                          "memory and a workgroup barrier instead")
    c.unit.uses_subgroup.update(("basic", op))


def _value(c, node, what, ints64=False):
    a = c.value(c.expr(node), node)
    t = a.type
    if t == T.bool_:
        return a
    elem = t.elem if isinstance(t, T.Vector) else t
    if not isinstance(elem, T.Scalar):
        raise c.src.error(node, f"{what} takes numbers or vectors of them, got {t}")
    if elem.bits == 64 and elem.is_int and not ints64:
        if "extended_types" not in c.unit.target.subgroup_ops:
            raise c.src.error(node, f"{what} of {t} needs shaderSubgroupExtendedTypes, which "
                              f"{c.unit.target.name} lacks; reduce 32-bit values")
        c.unit.uses_subgroup.add("extended_types")
    if isinstance(t, T.Scalar):
        return c.convert(a, T.arithmetic(t), node)
    return a


def _args(c, node, n, what):
    if len(node.args) != n or node.keywords:
        raise c.src.error(node, f"{what} takes {n} argument{'s' if n != 1 else ''}")


def _nullary(name, op, t, glsl):
    def lower(c, node, _python_math):
        _args(c, node, 0, f"vkp.{name}()")
        require(c, node, op, f"vkp.{name}()")
        return ir.Intrinsic(t, c.src.loc(node), name, [])
    obj = B.Builtin(name, f"vkp.{name}(): see lang/subgroups.py.")
    B._register(B.Entry(name, glsl, lower, workgroup=True), obj)
    return obj


subgroup_lane = _nullary("subgroup_lane", "basic", T.i32,
                         lambda w, e: "int(gl_SubgroupInvocationID)")
subgroup_size = _nullary("subgroup_size", "basic", T.i32, lambda w, e: "int(gl_SubgroupSize)")


def _emit_subgroup_barrier(w, e):
    w.pre.append("subgroupMemoryBarrier();")
    return "subgroupBarrier()"


subgroup_barrier = _nullary("subgroup_barrier", "basic", T.void, _emit_subgroup_barrier)


def _reduction(name, op, glsl, numeric=True):
    def lower(c, node, _python_math):
        _args(c, node, 1, f"vkp.{name}(x)")
        require(c, node, op, f"vkp.{name}()")
        x = _value(c, node.args[0], f"vkp.{name}()")
        if x.type == T.bool_:
            x = c.convert(x, T.i32, node)
        return ir.Intrinsic(x.type, c.src.loc(node), name, [x])
    obj = B.Builtin(name, f"vkp.{name}(x): {glsl} over the subgroup (lang/subgroups.py).")
    B._register(B.Entry(name, lambda w, e: f"{glsl}({w.expr(e.args[0])})", lower,
                        workgroup=True), obj)
    return obj


subgroup_add = _reduction("subgroup_add", "arithmetic", "subgroupAdd")
subgroup_mul = _reduction("subgroup_mul", "arithmetic", "subgroupMul")
subgroup_min = _reduction("subgroup_min", "arithmetic", "subgroupMin")
subgroup_max = _reduction("subgroup_max", "arithmetic", "subgroupMax")
subgroup_inclusive_add = _reduction("subgroup_inclusive_add", "arithmetic",
                                    "subgroupInclusiveAdd")
subgroup_exclusive_add = _reduction("subgroup_exclusive_add", "arithmetic",
                                    "subgroupExclusiveAdd")


def _predicate(name, op, t, glsl):
    def lower(c, node, _python_math):
        _args(c, node, 1, f"vkp.{name}(p)")
        require(c, node, op, f"vkp.{name}()")
        p = c.truth(c.value(c.expr(node.args[0]), node.args[0]), node.args[0])
        return ir.Intrinsic(t, c.src.loc(node), name, [p])
    obj = B.Builtin(name, f"vkp.{name}(p): see lang/subgroups.py.")
    B._register(B.Entry(name, lambda w, e: glsl.format(w.expr(e.args[0])), lower,
                        workgroup=True), obj)
    return obj


subgroup_ballot = _predicate("subgroup_ballot", "ballot", T.u32, "subgroupBallot({}).x")
subgroup_all = _predicate("subgroup_all", "vote", T.bool_, "subgroupAll({})")
subgroup_any = _predicate("subgroup_any", "vote", T.bool_, "subgroupAny({})")


def _lower_all_equal(c, node, _python_math):
    _args(c, node, 1, "vkp.subgroup_all_equal(x)")
    require(c, node, "vote", "vkp.subgroup_all_equal()")
    x = _value(c, node.args[0], "vkp.subgroup_all_equal()")
    return ir.Intrinsic(T.bool_, c.src.loc(node), "subgroup_all_equal", [x])


subgroup_all_equal = B.Builtin("subgroup_all_equal", "vkp.subgroup_all_equal(x): whether x "
                               "is the same in every lane.")
B._register(B.Entry("subgroup_all_equal", lambda w, e: f"subgroupAllEqual({w.expr(e.args[0])})",
                    _lower_all_equal, workgroup=True), subgroup_all_equal)

# shuffle kind -> (operation class, GLSL function, the source lane's test; None: always in)
_SHUFFLES = {"": ("shuffle", "subgroupShuffle", None),
             "_xor": ("shuffle", "subgroupShuffleXor", "(int(gl_SubgroupInvocationID) ^ {d}) < "
                      "int(gl_SubgroupSize)"),
             "_up": ("shuffle_relative", "subgroupShuffleUp", "int(gl_SubgroupInvocationID) >= {d}"),
             "_down": ("shuffle_relative", "subgroupShuffleDown",
                       "int(gl_SubgroupInvocationID) + {d} < int(gl_SubgroupSize)")}


def _shuffle(kind):
    name = f"subgroup_shuffle{kind}"
    op, glsl, inside = _SHUFFLES[kind]

    def lower(c, node, _python_math):
        _args(c, node, 2, f"vkp.{name}(x, {'lane' if not kind else 'delta'})")
        require(c, node, op, f"vkp.{name}()")
        x = _value(c, node.args[0], f"vkp.{name}()", ints64=True)
        d = c.value(c.expr(node.args[1]), node.args[1])
        if not (isinstance(d.type, T.Scalar) and (d.type.is_int or d.type == T.bool_)):
            raise c.src.error(node.args[1], f"vkp.{name}(): the lane must be an integer, got "
                              f"{d.type}")
        return ir.Intrinsic(x.type, c.src.loc(node), name, [x, c.convert(d, T.i32, node)])

    def emit(w, e):
        t = e.args[0].type
        v, d = w.expr(e.args[0]), w.expr(e.args[1])
        gt = w.glsl_type(t)
        wide = t in (T.i64, T.u64)          # shuffled as two 32-bit halves
        src, dt = w._tmp("sv"), w._tmp("sd")
        w.pre.append(f"{gt} {src} = {v};")
        w.pre.append(f"int {dt} = {d};")
        if not kind:              # CUDA takes the source lane modulo the width
            lane = f"uint({dt}) % gl_SubgroupSize"
        else:
            lane = f"uint({dt})"
        arg = (f"unpack{'Int' if t == T.i64 else 'Uint'}2x32({src})" if wide else src)
        got = f"{glsl}({arg}, {lane})"
        if wide:
            got = f"pack{'Int' if t == T.i64 else 'Uint'}2x32({got})"
        if inside is None:
            return got
        out = w._tmp("sh")
        w.pre.append(f"{gt} {out} = {got};")      # every lane shuffles, then selects
        return f"(({inside.format(d=dt)}) ? {out} : {src})"

    obj = B.Builtin(name, f"vkp.{name}(x, d): see lang/subgroups.py.")
    B._register(B.Entry(name, emit, lower, workgroup=True), obj)
    return obj


subgroup_shuffle = _shuffle("")
subgroup_shuffle_xor = _shuffle("_xor")
subgroup_shuffle_up = _shuffle("_up")
subgroup_shuffle_down = _shuffle("_down")

FUNCTIONS = {n: o for n, o in globals().items() if isinstance(o, B.Builtin)}

__all__ = ["FUNCTIONS", "require", *FUNCTIONS]
