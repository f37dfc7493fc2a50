"""The subgroup path of whole-array reductions, for devices with subgroup arithmetic
(DeviceInfo.subgroup_arithmetic): sum and prod of contiguous float32, float64, int32 and
uint32 arrays whose result keeps their dtype (float sums, mean of floats), and min/max of
the integer ones. Everything else (views, other dtypes, float min/max, whose NaN rule the
subgroup builtins do not promise, complex min/max, whose lexicographic order and
first-index ties they do not know) takes the shared-memory kernel of _reduce_kernels.py.

The kernel language has no subgroup builtins, so this is a raw GLSL kernel
(GL_KHR_shader_subgroup_arithmetic), one source specialised by macros, and one launch: each
invocation accumulates its grid-stride elements in order (four loads in flight),
`subgroupAdd` (Mul/Min/Max) combines a subgroup in one instruction, one value per subgroup
goes through shared memory, and the first subgroup combines those into the workgroup's
partial; the last workgroup to count itself done reduces the partials the same way (in the
order a second launch of one workgroup would: the same bits), where a second launch used
to. On an H100 the call's time did not change (the submission and its wait are its
floor, docs/measurements-log.md); a reduction batched with other work is one dispatch fewer.
The order inside a subgroup operation is the driver's.

Results without `out=` go to the next slot of a per-(context, dtype) results array, a slot
the kernel reads from a counter it increments, so every launch of a given reduction binds
the same buffers with the same push constants and reuses its recorded command buffer: a
repeated `vkp.sum(x)` costs one submission and no recording or allocation. The host
counts the slots in submission order (the caller's lock), the device in execution order,
which is the same; each result is a 0-d view of its slot, and a results array is replaced
(and freed with its last view) when its slots are used up.

Plans: since the command buffer of a repeated whole-array reduction is the same, the first
call keeps it (with what holds it valid) as a plan keyed by the call's arguments and the
source's buffer, and a later `vkp.sum(x)` (mean, prod, min, max) of the same array submits
it again without the front end: dtype rules, views, two launches, the batch's key. That
front end cost ~220 µs a call on a 2-core CI host (lavapipe, submission stubbed out),
several times a submission on a GPU. Plans are forgotten with their source's buffer.
"""
from __future__ import annotations

import collections
import threading
import weakref

import numpy as np

from ..vk.array import Array
from ..vk.buffer import in_flight
from ..vk.glsl_kernel import glsl_kernel
from ..vk.sequence import batched

SOURCE = """#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#define T GLSL_TYPE
layout(local_size_x_id = 0) in;
layout(push_constant) uniform Params { uint n; T ident; T divisor; };
layout(std430, binding = 0) readonly buffer Src { T src[]; };
layout(std430, binding = 1) coherent buffer Part { T part[]; };
layout(std430, binding = 2) writeonly buffer Dst { T dst[]; };
layout(std430, binding = 3) coherent buffer Count { uint next_slot; uint arrived; };
shared T per_subgroup[128];
shared bool last_group;

T combine(T a, T b) { return COMBINE; }

T load(bool partials, uint k) { return partials ? part[k] : src[k]; }

// `combine` over elements k, k + step, ... below `count` of src (or of the partials),
// then over the workgroup: the result in every invocation of subgroup 0
T reduce_group(bool partials, uint count, uint step) {
    uint k = partials ? gl_LocalInvocationIndex : gl_GlobalInvocationID.x;
    T a = ident;
    for (; k + 3u * step < count; k += 4u * step) {
        T b0 = load(partials, k), b1 = load(partials, k + step),
          b2 = load(partials, k + 2u * step), b3 = load(partials, k + 3u * step);
        a = combine(combine(combine(combine(a, b0), b1), b2), b3);
    }
    for (; k < count; k += step) {
        a = combine(a, load(partials, k));
    }
    a = SUBGROUP_OP(a);
    if (subgroupElect()) {
        per_subgroup[gl_SubgroupID] = a;
    }
    barrier();
    T b = ident;
    if (gl_SubgroupID == 0u) {
        for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) {
            b = combine(b, per_subgroup[i]);
        }
        b = SUBGROUP_OP(b);
    }
    return b;
}

void finish(T b) {
#if SLOT
    dst[next_slot] = DIVIDE ? b / divisor : b;
    next_slot += 1u;
#else
    dst[0] = DIVIDE ? b / divisor : b;
#endif
}

void main() {
    uint groups = gl_NumWorkGroups.x;
    T b = reduce_group(false, n, groups * gl_WorkGroupSize.x);
    bool writer = gl_SubgroupID == 0u && subgroupElect();   // holds the workgroup's value
    if (groups == 1u) {
        if (writer) finish(b);
        return;
    }
    // the last workgroup to arrive reduces the partials (CUDA's threadFenceReduction):
    // the same order as a second launch of one workgroup would, so the same bits
    if (writer) {
        part[gl_WorkGroupID.x] = b;
        memoryBarrierBuffer();                      // the partial before the arrival
        last_group = atomicAdd(arrived, 1u) == groups - 1u;
    }
    barrier();
    if (!last_group) return;
    memoryBarrierBuffer();                          // the others' partials after it
    b = reduce_group(true, groups, gl_WorkGroupSize.x);
    if (writer) {
        arrived = 0u;                               // for the next launch
        finish(b);
    }
}
"""

_GLSL_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double",
               np.dtype(np.int32): "int", np.dtype(np.uint32): "uint"}
_OPS = {"sum": ("a + b", "subgroupAdd"), "prod": ("a * b", "subgroupMul"),
        "min": ("min(a, b)", "subgroupMin"), "max": ("max(a, b)", "subgroupMax")}
_KERNELS: dict = {}
LOCAL = 256


def applies(op: str, src: Array, acc: np.dtype, out_dtype: np.dtype) -> bool:
    """Whether this path computes `op` over the whole of `src` (an (M, K) rows view)."""
    info = src.ctx.info
    return (info.subgroup_arithmetic and 8 <= info.subgroup_size <= 128 and op in _OPS
            and src.shape[0] == 1 and src._plain and src.dtype == acc == out_dtype
            and acc in _GLSL_TYPES and (acc.kind != "f" or op in ("sum", "prod"))
            and src.size < 2**32 - 2**26)           # k + 3 * step stays within uint


SLOTS = 4096


class _Slab:
    """A results array and the device's words: the count of its used slots, and the count
    of workgroups done (back to 0 at the end of each launch). The results in host-visible
    memory: `float(x.sum())` then reads its slot through the mapping once the launch
    completes, where device memory took a second submission (a copy to staging) and a
    second wait."""

    def __init__(self, ctx, dtype):
        kinds = ctx.info.memory_kinds
        self.values = Array(ctx, (SLOTS,), dtype, "cached" if "cached" in kinds else "host")
        self.counter = Array(ctx, (2,), np.uint32).fill(0)
        self.used = 0


def _slab(ctx, dtype) -> _Slab:
    slabs = ctx._caches.setdefault("subgroup slabs", {})
    slab = slabs.get(dtype)
    if slab is None or slab.used >= SLOTS or not slab.values.buffer.alive:
        slab = slabs[dtype] = _Slab(ctx, dtype)
    return slab


def _kernel(op: str, dtype: np.dtype, divide: bool, slot: bool):
    key = (op, dtype, divide, slot)
    k = _KERNELS.get(key)
    if k is None:
        combine, subgroup_op = _OPS[op]
        source = SOURCE.replace("GLSL_TYPE", _GLSL_TYPES[dtype]).replace("COMBINE", combine) \
            .replace("SUBGROUP_OP", subgroup_op).replace("DIVIDE", "true" if divide else "false") \
            .replace("#if SLOT", "#if 1" if slot else "#if 0")
        k = _KERNELS[key] = glsl_kernel(source, name=f"reduce_subgroup_{op}_{dtype}")
    return k


def reduce_all(op: str, src: Array, ident, divisor, target_groups: int, scratch,
               dst: Array | None = None) -> Array:
    """`op` over every element of the contiguous `src` (divided by `divisor` unless None):
    into `dst` (a plain (1,) array) when given, else a 0-d view of a results slot.
    `scratch(ctx, shape, dtype)` gives the partials array; the caller holds the lock that
    keeps the launch and the slot count together. Inside `capture(key, a)` with `a` the
    whole of `src`, the submission is kept as the plan of `key` (module docs)."""
    ctx, dtype, n = src.ctx, src.dtype, src.size
    # at most ~16,000 loop iterations an invocation: lavapipe stops loops at 65,535
    groups = max(1, min(-(-n // LOCAL), max(target_groups, -(-n // (LOCAL * 2**16))), 65535))
    div = dtype.type(1 if divisor is None else divisor)
    slab = _slab(ctx, dtype)                        # (a new one is filled: a submission)
    into_slot = dst is None
    core = ctx._core_alive()
    wanted = getattr(_CAPTURE, "plan", None)
    # the core's lock (re-entrant) from the launch to reading what its batch submitted:
    # another thread's batch could be flushed in between
    with core.lock:
        keep = wanted is not None and into_slot and core.batch is None \
            and wanted[1].buffer is src.buffer and wanted[1].size == n
        part = scratch(ctx, (groups,), dtype)
        with batched(ctx):                          # (to read back its submission)
            _kernel(op, dtype, divisor is not None, into_slot)[groups, LOCAL](
                src, part, slab.values if into_slot else dst, slab.counter, n=n, ident=ident,
                divisor=div)
        if not into_slot:
            return dst
        if keep:
            submit, holder = _batch_of(core).last
            hold = (holder, *[in_flight(a) for a in (part, slab.values, slab.counter)])
            _plans(ctx).add(wanted[0] + (src.buffer.serial,), _Plan(submit, hold, slab))
    slab.used += 1                                  # only once the launch was submitted
    return _slot(slab)


def _slot(slab: _Slab) -> Array:
    """The 0-d view of the slab's last used slot, without the indexing front end of
    `values[i]` (two thirds of a repeated `vkp.sum(x)`'s Python time)."""
    return slab.values._view((), (), slab.used - 1)


_CAPTURE = threading.local()        # .plan: (key, array) while `capture` is open
MAX_PLANS = 64                      # per device, the least recently added dropped first


class _Plan:
    """A whole-array reduction ready to submit again: its recorded command buffer, what
    keeps that valid (pipelines, the partials and results arrays), and the results array
    it writes (a plan is stale once that array is replaced)."""
    __slots__ = ("submit", "hold", "slab")

    def __init__(self, submit, hold, slab):
        self.submit, self.hold, self.slab = submit, hold, slab


class _Plans:
    """One device's plans by (call key..., source buffer serial)."""

    def __init__(self, core):
        self.entries: collections.OrderedDict = collections.OrderedDict()
        # weakly: the core outlives its Context (its flusher thread holds it), and these
        # plans hold arrays of the Context, which would then never be collected
        method = weakref.WeakMethod(self.forget)
        core.forget_listeners.append(lambda serial: (m := method()) and m(serial))

    def add(self, key, plan: _Plan) -> None:
        self.entries[key] = plan
        self.entries.move_to_end(key)
        if len(self.entries) > MAX_PLANS:
            self.entries.popitem(last=False)

    def forget(self, serial: int) -> None:
        """The source's buffer died: its plans can never be used again."""
        for key in [k for k in self.entries if k[-1] == serial]:
            del self.entries[key]


def _plans(ctx) -> _Plans:
    plans = ctx._caches.get("subgroup plans")
    if plans is None:
        plans = ctx._caches["subgroup plans"] = _Plans(ctx._core)
    return plans


def _batch_of(core):
    from ..vk.sequence import _BATCHES
    return _BATCHES[core]


class capture:
    """`with capture(key, a):` a whole-array reduction of `a` computed inside is kept as
    the plan of `key` (the caller's arguments that decide every choice of the front end)."""
    __slots__ = ("plan",)

    def __init__(self, key, a: Array):
        self.plan = (key, a)

    def __enter__(self):
        _CAPTURE.plan = self.plan

    def __exit__(self, *exc):
        _CAPTURE.plan = None


def repeat(key, a: Array) -> Array | None:
    """Submit the plan of `key` for `a` again and return its result (a 0-d view of the
    next results slot), or None when there is none or it is stale. Under the caller's
    reduction lock, as `reduce_all`."""
    core = a.ctx._core_alive()
    plans = a.ctx._caches.get("subgroup plans")
    plan = plans.entries.get(key + (a.buffer.serial,)) if plans is not None else None
    if plan is None:
        return None
    slab = plan.slab
    current = a.ctx._caches.get("subgroup slabs", {}).get(slab.values.dtype)
    if current is not slab or slab.used >= SLOTS or core.batch is not None \
            or not a.buffer.alive or not slab.values.buffer.alive:
        return None             # (a result's base freed: `r.base.free()`)
    core.submit(plan.submit, (plan.hold, in_flight(a)))
    slab.used += 1
    return _slot(slab)
