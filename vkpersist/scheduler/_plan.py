"""The schedule as data: what one step of a program runs, in order, what each stage reads and
writes (per array, with the index offsets where they are the stage's index plus a
constant), which memsock each stage fills, and where the grid barriers go. Built once per
build from the program's declaration and its stages compiled once; the megakernel and the
fallback are both emitted from it, and decisions about synchronisation are passes over it
(`place_barriers` today; eliding a barrier between stages whose accesses are pointwise, or
fusing stages, are passes of the same kind).

Stage kinds: "domain" (one call per index of a 1-3 d domain) and "queue" (one call per
item of a queue, in rounds until it drains). A region stage (a slab of a domain, for
boundary layers and sources) would be a third kind with a domain and an origin.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .._errors import BoundsError, VkPersistError
from ..lang import ir
from ..lang.builtins import accessed
from ._declare import When, period_text


@dataclass(frozen=True)
class Access:
    """One load, store or atomic of a buffer in a stage (its callees included). `index`, per
    axis of the buffer: (stage axis, constant) where the index is the stage's index along
    that axis plus a constant (`T[i + 1, j]` in a stage of (i, j): ((0, 1), (1, 0))), None
    where it is anything else; `constants`, per axis: the integer where the index is one
    (`F[1, i, j]`: (1, None, None)), else None. Both are None for buffers not indexed that
    way (controls, memsocks, queues)."""
    buffer: str
    write: bool
    index: tuple | None = None
    constants: tuple | None = None
    atomic: bool = False         # an atomic read-modify-write (never a race with another)
    guarded: bool = False        # under a branch or loop, or after one: it may not run
    loc: object = field(default=None, compare=False)    # its Python line (ir.Loc)

    @property
    def offsets(self) -> tuple | None:
        """The per-axis offsets when axis k of the buffer is indexed by axis k of the stage
        (the stencil case), else None."""
        if self.index is None or any(a is None or a[0] != k for k, a in enumerate(self.index)):
            return None
        return tuple(c for _, c in self.index)

    @property
    def axes(self) -> tuple:
        """(index, constant) per axis of the buffer: one of them None, or both where the
        index is neither the stage's index plus a constant nor a constant."""
        return tuple(zip(self.index or (), self.constants or (None,) * len(self.index or ())))


@dataclass
class Entry:
    """One schedule entry of the step."""
    index: int                   # its position in the step
    stage: object                # the Stage
    kind: str                    # "domain" | "queue"
    bit: int | None              # its every()/when() flag bit; None: every step
    function: ir.Function        # the compiled stage
    accesses: tuple = ()
    barrier_before: bool = False   # (megakernel) a grid barrier before it
    barrier_after: bool = False    # and after it
    emits: tuple = ()            # names of the memsocks whose frame it writes
    cached_reads: frozenset = frozenset()   # (megakernel) buffers it may load through a
    #                                         readonly alias: see place_cached_reads
    ordered: bool = False        # (megakernel) its indices in order: see place_ordered

    @property
    def reads(self) -> frozenset:
        return frozenset(a.buffer for a in self.accesses if not a.write)

    @property
    def writes(self) -> frozenset:
        return frozenset(a.buffer for a in self.accesses if a.write)


@dataclass(frozen=True)
class PlannedStage:
    """One entry of a program's step as the megakernel runs it (`Program.step_plan()`)."""
    stage: str                   # the stage's name
    indices: int | None          # its domain's size; None: a queue stage (a call per item)
    runs: str                    # "every step", "every(20)", "every(ctl.n)", "when(fn)"
    barrier_before: bool         # a grid barrier before it (only on steps it runs, if
    barrier_after: bool          #   conditional) and after it
    in_order: bool               # its indices handed out in order (Target.ordered_from),
    #                              not by a grid stride

    def __repr__(self) -> str:
        fields = ", ".join(f"{f.name}={getattr(self, f.name)!r}"
                           for f in dataclasses.fields(self))
        return f"vkpersist.lowlevel.PlannedStage({fields})"


@dataclass
class StepPlan:
    entries: list
    periods: list                # bit -> every's n (int or control field name) or When
    steps_field: str | None      # the control field with the total step count
    emitters: dict = field(default_factory=dict)   # memsock name -> entry index

    def planned(self) -> list:
        """The entries as PlannedStage records, for users (Program.step_plan)."""
        return [PlannedStage(e.stage.name, e.stage.size if e.kind == "domain" else None,
                             "every step" if e.bit is None else period_text(self.periods[e.bit]),
                             e.barrier_before, e.barrier_after, e.ordered)
                for e in self.entries]

    def writes_of(self, functions) -> frozenset:
        """The buffers `functions` (and their callees) write: a shader's non-readonly set."""
        out = set()
        for fn in functions:
            out |= {a.buffer for a in function_accesses(fn) if a.write}
        return frozenset(out)


# ---- accesses -----------------------------------------------------------------------------------
def function_accesses(fn: ir.Function) -> tuple:
    """The accesses of `fn` and its callees, with index offsets relative to fn's parameters
    (for a stage: its domain indices)."""
    env = {p: (k, 0) for k, p in enumerate(fn.params)}
    out: list = []
    _walk(fn.body, env, out, set())
    return tuple(dict.fromkeys(out))       # unique, in order of appearance


def _affine(e, env):
    """(parameter axis, constant) if `e` is a parameter plus a constant under `env`; (None,
    constant) if it is an integer constant."""
    if isinstance(e, ir.Cast):
        return _affine(e.value, env)
    if isinstance(e, ir.Const) and type(e.value) is int:
        return None, e.value
    if isinstance(e, ir.Ref):
        return env.get(e.var)
    if isinstance(e, ir.Binary) and e.op in ("+", "-"):
        if isinstance(e.right, ir.Const) and isinstance(e.right.value, int):
            base = _affine(e.left, env)
            if base is not None:
                return base[0], base[1] + (e.right.value if e.op == "+" else -e.right.value)
        if e.op == "+" and isinstance(e.left, ir.Const) and isinstance(e.left.value, int):
            base = _affine(e.right, env)
            if base is not None:
                return base[0], base[1] + e.left.value
    return None


def _indexed(indices, env) -> tuple:
    """An Access's `index` and `constants` for the index expressions `indices`."""
    parts = [_affine(i, env) for i in indices]
    return (tuple(p if p and p[0] is not None else None for p in parts),
            tuple(p[1] if p and p[0] is None else None for p in parts))


_BRANCHES = {ir.If: "cond", ir.While: "cond", ir.Select: "cond", ir.Logical: "left"}


def _walk(node, env, out, seen, guarded=False) -> None:
    """Append the accesses under `node` to `out`. `guarded`: whether the code may not run
    for some index (inside a branch or loop, or after one, which may have returned)."""
    if isinstance(node, list):
        for x in node:
            _walk(x, env, out, seen, guarded)
            guarded = guarded or isinstance(x, (ir.If, ir.While, ir.ForRange, ir.Return))
        return
    if not dataclasses.is_dataclass(node) or isinstance(node, (ir.Var, ir.Loc)):
        return
    if isinstance(node, (ir.Load, ir.Store)) and node.var.role not in ("local_array", "shared"):
        out.append(Access(node.var.name, isinstance(node, ir.Store),
                          *_indexed(node.index, env), loc=node.loc, guarded=guarded))
    elif isinstance(node, ir.Intrinsic):
        effect, var = accessed(node)
        if effect is not None:
            target = node.args[0]
            atomic = isinstance(target, ir.Load)
            index = target.index if atomic else node.args[1] \
                if node.name == "socket_store" else None      # a memsock frame's element
            index = _indexed(index, env) if index is not None else (None, None)
            out.append(Access(var.name, effect == "write", *index, atomic=atomic,
                              loc=node.loc, guarded=guarded))
            if atomic:                           # the element itself is not a separate read
                for value in node.args[1:]:
                    _walk(value, env, out, seen, guarded)
                for i in target.index:
                    _walk(i, env, out, seen, guarded)
                return
    elif isinstance(node, ir.Call):
        callee = node.func
        inner = {p: _affine(a, env) for p, a in zip(callee.params, node.args)}
        key = (id(callee), guarded, tuple(sorted((id(p), v) for p, v in inner.items() if v)))
        if key not in seen:
            seen.add(key)
            _walk(callee.body, {p: v for p, v in inner.items() if v is not None}, out, seen,
                  guarded)
    taken = _BRANCHES.get(type(node), "" if isinstance(node, ir.ForRange) else None)
    for f in dataclasses.fields(node):
        if f.name not in ("type", "loc", "func"):
            # what a branch or loop runs may not run; its condition (a loop's bounds) does
            inner = guarded or (taken is not None and f.name != taken
                                and f.name not in ("start", "stop", "step"))
            _walk(getattr(node, f.name), env, out, seen, inner)


# ---- the plan -----------------------------------------------------------------------------------
def plan_step(prog, functions: dict, resources: dict) -> StepPlan:
    """The StepPlan of `prog`, from its stages compiled once (`functions`: stage name ->
    ir.Function) and the Vars its shaders bind its resources to."""
    entries = []
    for index, (stage, bit) in enumerate(prog.schedule):
        fn = functions[stage.name]
        entries.append(Entry(index, stage, "queue" if stage.consumes is not None else "domain",
                             bit, fn, function_accesses(fn)))
    arrays = {resources[id(a)].name: name for name, a in prog.arrays.items()}
    # buffer -> (what the stage indexes, what has the shape, the shape)
    shapes = {resources[id(a)].name: (name, f"{name}'s shape", a.shape)
              for name, a in prog.arrays.items()}
    shapes.update({resources[id(k)].name: (f"{name}.frame", f"the frames of memsock "
                                           f"{name!r}, of shape", k.frame_shape)
                   for name, k in prog.sockets.items()})
    for e in entries:
        if e.kind == "domain":
            refuse_races(prog, e, arrays)
            refuse_out_of_range(prog, e, shapes)
    plan = StepPlan(entries, prog.periods, prog.steps_field)
    plan.emitters = _emitters(prog, plan, resources)
    for name, index in plan.emitters.items():
        entries[index].emits += (name,)
    place_barriers(plan)
    place_cached_reads(plan)
    place_ordered(plan, prog.ctx.target.ordered_from)
    return plan


def _overlap(a: Access, b: Access, domain: tuple) -> bool:
    """Whether plain accesses `a` and `b` of one array provably touch one element from two
    different indices of `domain`: along every axis of the array both are the same
    constant (`F[1, i, j]` and `F[1, i - 1, j]`), or both the stage's index along one
    axis (each axis once) plus constants that differ by less than the domain's extent
    there, by something on at least one axis. A constant that differs (`F[2, i - 1, j]`:
    another plane) proves they never meet; any other index is not judged."""
    if a.index is None or b.index is None:
        return False
    axes, d = [], []
    for (ia, ca), (ib, cb) in zip(a.axes, b.axes):
        if ca is not None and ca == cb:
            continue
        if ia is None or ib is None or ia[0] != ib[0]:
            return False
        axes.append(ia[0])
        d.append(ia[1] - ib[1])
    if len(set(axes)) != len(axes):
        return False
    return any(d) and all(abs(x) < domain[ax] for x, ax in zip(d, axes))


def _index_text(access: Access, params: list) -> str:
    def axis(ix, const):
        if ix is None:
            return "..." if const is None else str(const)
        ax, c = ix
        return params[ax] if c == 0 else f"{params[ax]} {'+' if c > 0 else '-'} {abs(c)}"
    return ", ".join(axis(ix, const) for ix, const in access.axes)


def refuse_races(prog, entry: Entry, arrays: dict) -> None:
    """A domain stage that writes an array at one offset from its index and reads (or
    writes) it at another, `A[i, j] = ... A[i + 1, j]`, races: invocations run in any
    order, so one reads the element another writes before or after it did; so does
    `F[1, i, j] = F[1, i - 1, j]` (constant indices equal, `F[2, i - 1, j]` would be
    another plane). Refused (only where the offsets prove it: indices that are neither
    the stage's index plus a constant nor a constant are not judged, and atomics never
    race)."""
    plain = [a for a in entry.accesses if a.buffer in arrays and not a.atomic]
    params = list(entry.stage.fn.__code__.co_varnames[:len(entry.stage.domain)])
    for w in plain:
        if not w.write:
            continue
        for other in plain:
            if other.buffer == w.buffer and _overlap(w, other, entry.stage.domain):
                name = arrays[w.buffer]
                where = [f" ({a.loc.file}:{a.loc.line})" if a.loc else "" for a in (w, other)]
                did = "writes" if other.write else "reads"
                raise VkPersistError(
                    f"{prog.name}: stage {entry.stage.name} writes {name}"
                    f"[{_index_text(w, params)}]{where[0]} and {did} {name}"
                    f"[{_index_text(other, params)}]{where[1]}: invocations run in any "
                    f"order and at once, so one may {did[:-1]} an element of {name} before "
                    "or after another index writes it (a race). Use two arrays, e.g. an "
                    f"array pair ({name}, {name}_next = prog.array_pair(...): read {name}, "
                    f"write {name}_next, swapped at each step end), or two stages")


def refuse_out_of_range(prog, entry: Entry, shapes: dict) -> None:
    """An access that runs for every index of a domain stage (no branch, loop or early
    return before it) and is the stage's index plus a constant along some axis must stay
    inside the array's (or memsock frame's) shape there for the whole domain: `A[i - 1]`
    over i from 0 reads A[-1]. Refused with the guard that would fix it. What may not run
    for every index is left to debug mode (lang/bounds.py)."""
    params = list(entry.stage.fn.__code__.co_varnames[:len(entry.stage.domain)])
    for a in entry.accesses:
        if a.guarded or a.index is None or a.buffer not in shapes:
            continue
        name, owner, shape = shapes[a.buffer]
        for axis, (ix, n) in enumerate(zip(a.index, shape)):
            if ix is None:
                continue
            ax, c = ix
            last = entry.stage.domain[ax] - 1
            if 0 <= c and last + c < n:
                continue
            p = params[ax]
            bad, fix = (c, f"if {p} >= {-c}:") if c < 0 else (last + c, f"if {p} < {n - c}:")
            where = f" ({a.loc.file}:{a.loc.line})" if a.loc else ""
            raise BoundsError(
                f"{prog.name}: stage {entry.stage.name} {'writes' if a.write else 'reads'} "
                f"{name}[{_index_text(a, params)}]{where} for every index of its domain "
                f"{entry.stage.domain}: with {p} from 0 to {last}, axis {axis} reaches "
                f"{bad}, outside {owner} {tuple(shape)}. Guard it ({fix} ...), or give the "
                "stage a domain that fits")


def _emitters(prog, plan: StepPlan, resources: dict) -> dict:
    """{memsock name: index of the one entry that writes its frames}, with the rules that
    make one frame per step well defined."""
    out = {}
    for name, sock in prog.sockets.items():
        var = resources[id(sock)]
        writers = [e for e in plan.entries if var.name in e.writes]
        if not writers:
            continue
        stages = [e.stage.name for e in writers]
        if len(writers) > 1:
            raise VkPersistError(f"{prog.name}: memsock {name!r} is written by "
                                 f"{', '.join(stages)}; one loop entry per memsock (it gets "
                                 "one frame per step in which that stage runs)")
        entry = writers[0]
        if entry.bit is not None and isinstance(prog.periods[entry.bit], When):
            raise VkPersistError(f"{prog.name}: stage {stages[0]} writes memsock {name!r} and "
                                 "runs under when(...); frames are reserved before a step's "
                                 "conditions are known: use every(n), or write the frame "
                                 "every step")
        if entry.kind == "queue":
            raise VkPersistError(f"{prog.name}: stage {stages[0]} consumes a queue and writes "
                                 f"memsock {name!r}; frames come from domain stages")
        out[name] = entry.index
    return out


def _pointwise(entry: Entry, buffer: str) -> bool:
    """Whether every access of `entry` to `buffer` is at the stage's own index (axis k of
    the buffer indexed by axis k of the domain, offset 0)."""
    ndim = len(entry.stage.domain)
    return all(a.index is not None and len(a.index) == ndim
               and all(ax == (k, 0) for k, ax in enumerate(a.index))
               for a in entry.accesses if a.buffer == buffer)


def conflicts(e: Entry, p: Entry) -> bool:
    """Whether stage `e` must wait for stage `p` (which ran before it since the last grid
    barrier): a buffer one writes and the other reads or writes, unless both are domain
    stages over the same domain and touch that buffer only at their own index. The
    megakernel gives every stage's index i to the same invocation (one grid-stride loop
    over the same domain; it hands a stage its indices in order, Target.ordered_from, only
    where the stage is the step's one that large, so that no other shares its domain, or
    has a barrier on each side), so then every element is read and written by one
    invocation, in program order: the barrier is elided (both modes stay bit-identical;
    the fallback runs each stage as its own dispatch anyway)."""
    shared = (e.writes & (p.reads | p.writes)) | (e.reads & p.writes)
    if not shared:
        return False
    if e.kind != "domain" or p.kind != "domain" or e.stage.domain != p.stage.domain:
        return True
    return not all(_pointwise(e, b) and _pointwise(p, b) for b in shared)


def place_barriers(plan: StepPlan) -> None:
    """The megakernel's grid barriers. A stage waits when it conflicts (`conflicts`:
    read-after-write, write-after-read or -write, whole buffers, unless both stages touch
    the buffer only at their own index) with a stage that may have run since the last
    barrier every workgroup passed; a conditional stage syncs after itself, so nothing it
    did is pending whether or not it ran; a stage that fills a memsock frame syncs after
    itself (the frame is published after a barrier); a queue stage has its own barriers
    before and after."""
    pending: list = []
    last = len(plan.entries) - 1
    for e in plan.entries:
        if e.kind == "queue":
            e.barrier_before = e.barrier_after = False
            if e.bit is None:
                pending = []
            continue
        e.barrier_before = any(conflicts(e, p) for p in pending)
        if e.emits:
            e.barrier_after = True
            if e.bit is None:
                pending = []
        elif e.bit is None:
            e.barrier_after = False
            if e.barrier_before:
                pending = []
            pending.append(e)
        else:
            e.barrier_after = e.index != last


def place_cached_reads(plan: StepPlan) -> None:
    """The buffers each domain stage may load through a readonly alias in the megakernel
    (Target.readonly_alias): those it reads and does not write, that no stage wrote since
    the last grid barrier (the end of each step is one). On NVIDIA (H100, 2026-12-06) such
    loads take a cached path that does not see the invocation's own earlier stores: a
    stage that stored a[i] and then loaded it through the alias read the old value, and
    so would a stage after a barrier elided between pointwise stages. Loads after a grid
    barrier saw every store (its acquire makes them visible). A stage under every()/when()
    syncs inside its condition: its barrier before it counts for itself, and neither of its
    barriers for the stages after it (in a step that skips it nothing was synchronised).
    Queue stages, whose rounds have barriers of their own, keep plain loads."""
    dirty: set = set()          # buffers written since the last barrier every worker passed
    for e in plan.entries:
        seen = set() if e.barrier_before else dirty      # what may be pending when it runs
        e.cached_reads = e.reads - e.writes - seen if e.kind == "domain" else frozenset()
        if e.bit is None:
            dirty = set() if e.barrier_after else seen | e.writes
        else:
            dirty = dirty | e.writes


# Target.ordered_from applies only to a step with one stage of that many indices: on an H100
# (2026-12-06, benchmarks/probes/target_ab.py ordered_from=0 --fdtd 288 320 --stencil 320, two
# calls) the fused FDTD update, one stage a step, made 43.8k / 43.4k Mcells/s in order
# against 37.6k / 33.3k with the stride at 288³ / 320³ and the fused stencil the same either
# way, but the two-stage stencil at 320³ (two sweeps of 33 million cells) 3,307 / 3,442
# steps/s in order against 4,580 / 4,574 with the stride. Why (H100, 2026-12-07): the
# workgroup barriers around each grab; eight chunks a grab brought it to 0.97x of the
# stride, never past it, and cost the fused FDTD 22 % (docs/measurements-log.md, seventeenth
# session). Tests switch it off to run the hand-out in programs of many stages.
ORDER_A_SINGLE_LARGE_STAGE = True


def place_ordered(plan: StepPlan, least: int) -> None:
    """The megakernel's stages that hand out their indices in order (Target.ordered_from,
    `least` indices or more; 0: none): large domain stages that no elided barrier relies
    on (a barrier elided between two pointwise stages of one domain relies on both giving
    index i to the same invocation) and whose hand-outs cannot overlap. Where the step has
    one such stage (always, with ORDER_A_SINGLE_LARGE_STAGE), both hold wherever it sits:
    a pointwise partner would share its domain and so be as large, and the step's end
    separates its hand-out from the next. Otherwise each needs a grid barrier on each side
    whenever it runs (its own, or an unconditional neighbour's, a conditional one's running
    only with it, or a queue's, or a step's end)."""
    if not least:
        return
    entries = plan.entries
    large = [e for e in entries if e.kind == "domain" and e.stage.size >= least]
    if ORDER_A_SINGLE_LARGE_STAGE and len(large) > 1:
        return

    def neighbour_syncs(j, after):      # entry j's barrier after it (or before it)
        if j < 0 or j >= len(entries):
            return True
        n = entries[j]
        return n.bit is None and (n.kind == "queue" or
                                  (n.barrier_after if after else n.barrier_before))
    for e in large:
        k = e.index
        e.ordered = len(large) == 1 or (
            (e.barrier_before or neighbour_syncs(k - 1, True))
            and (e.barrier_after or neighbour_syncs(k + 1, False)))
