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

from .._errors import VkPersistError
from ..lang import ir
from ..lang.builtins import accessed
from ._declare import When


@dataclass(frozen=True)
class Access:
    """One load, store or atomic of a buffer in a stage (its callees included). `index`, per
    axis of the buffer: (stage axis, constant) where the index is the stage's index along
    that axis plus a constant (`T[i + 1, j]` in a stage of (i, j): ((0, 1), (1, 0))), None
    where it is anything else; `index` is None for buffers not indexed that way (controls,
    memsocks, queues)."""
    buffer: str
    write: bool
    index: tuple | None = None
    atomic: bool = False         # an atomic read-modify-write (never a race with another)
    loc: object = field(default=None, compare=False)    # its Python line (ir.Loc)

    @property
    def offsets(self) -> tuple | None:
        """The per-axis offsets when axis k of the buffer is indexed by axis k of the stage
        (the stencil case), else None."""
        if self.index is None or any(a is None or a[0] != k for k, a in enumerate(self.index)):
            return None
        return tuple(c for _, c in self.index)


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

    @property
    def reads(self) -> frozenset:
        return frozenset(a.buffer for a in self.accesses if not a.write)

    @property
    def writes(self) -> frozenset:
        return frozenset(a.buffer for a in self.accesses if a.write)


@dataclass
class StepPlan:
    entries: list
    periods: list                # bit -> every's n (int or control field name) or When
    steps_field: str | None      # the control field with the total step count
    emitters: dict = field(default_factory=dict)   # memsock name -> entry index

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
    """(parameter axis, constant) if `e` is a parameter plus a constant under `env`."""
    if isinstance(e, ir.Cast):
        return _affine(e.value, env)
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


def _walk(node, env, out, seen) -> None:
    if isinstance(node, list):
        for x in node:
            _walk(x, env, out, seen)
        return
    if not dataclasses.is_dataclass(node) or isinstance(node, (ir.Var, ir.Loc)):
        return
    if isinstance(node, (ir.Load, ir.Store)) and node.var.role not in ("local_array", "shared"):
        out.append(Access(node.var.name, isinstance(node, ir.Store),
                          tuple(_affine(i, env) for i in node.index), loc=node.loc))
    elif isinstance(node, ir.Intrinsic):
        effect, var = accessed(node)
        if effect is not None:
            target = node.args[0]
            index = tuple(_affine(i, env) for i in target.index) \
                if isinstance(target, ir.Load) else None
            out.append(Access(var.name, effect == "write", index, atomic=True, loc=node.loc))
            if isinstance(target, ir.Load):      # the element itself is not a separate read
                for value in node.args[1:]:
                    _walk(value, env, out, seen)
                for i in target.index:
                    _walk(i, env, out, seen)
                return
    elif isinstance(node, ir.Call):
        callee = node.func
        inner = {p: _affine(a, env) for p, a in zip(callee.params, node.args)}
        key = (id(callee), tuple(sorted((id(p), v) for p, v in inner.items() if v)))
        if key not in seen:
            seen.add(key)
            _walk(callee.body, {p: v for p, v in inner.items() if v is not None}, out, seen)
    for f in dataclasses.fields(node):
        if f.name not in ("type", "loc", "func"):
            _walk(getattr(node, f.name), env, out, seen)


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
    for e in entries:
        if e.kind == "domain":
            refuse_races(prog, e, arrays)
    plan = StepPlan(entries, prog.periods, prog.steps_field)
    plan.emitters = _emitters(prog, plan, resources)
    for name, index in plan.emitters.items():
        entries[index].emits += (name,)
    place_barriers(plan)
    return plan


def _overlap(a: Access, b: Access, domain: tuple) -> bool:
    """Whether plain accesses `a` and `b` of one array, both the stage's index plus
    constants along the same axes, touch one element from two different indices of
    `domain`: their constants differ by less than the domain's extent on every axis."""
    if a.index is None or b.index is None or None in a.index or None in b.index:
        return False
    axes = [ax for ax, _ in a.index]
    if axes != [ax for ax, _ in b.index] or len(set(axes)) != len(axes):
        return False
    d = [ca - cb for (_, ca), (_, cb) in zip(a.index, b.index)]
    return any(d) and all(abs(x) < domain[ax] for x, ax in zip(d, axes))


def _index_text(access: Access, params: list) -> str:
    def axis(ax, c):
        return params[ax] if c == 0 else f"{params[ax]} {'+' if c > 0 else '-'} {abs(c)}"
    return ", ".join(axis(ax, c) for ax, c in access.index)


def refuse_races(prog, entry: Entry, arrays: dict) -> None:
    """A domain stage that writes an array at one offset from its index and reads (or
    writes) it at another, `A[i, j] = ... A[i + 1, j]`, races: invocations run in any
    order, so one reads the element another writes before or after it did. Refused
    (only where the offsets prove it: indices that are not the stage's index plus a
    constant are not judged, and atomics never race)."""
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


def place_barriers(plan: StepPlan) -> None:
    """The megakernel's grid barriers. A stage waits when it conflicts (read-after-write,
    write-after-read or -write, whole buffers) with a stage that may have run since the
    last barrier every workgroup passed; a conditional stage syncs after itself, so
    nothing it did is pending whether or not it ran; a stage that fills a memsock frame
    syncs after itself (the frame is published after a barrier); a queue stage has its
    own barriers before and after."""
    pending: list = []
    last = len(plan.entries) - 1
    for e in plan.entries:
        if e.kind == "queue":
            e.barrier_before = e.barrier_after = False
            if e.bit is None:
                pending = []
            continue
        e.barrier_before = any(e.writes & (p.reads | p.writes) or e.reads & p.writes
                               for p in pending)
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
