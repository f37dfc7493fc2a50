"""The typed intermediate representation between the Python AST and GLSL.

Every expression carries its type; every node carries the Python source position it came
from (`loc`), so later stages can still report errors against the user's code and the
GLSL generator can annotate lines with `// file.py:LINE`. The IR is deliberately small:
the front end lowers Python's richer forms (chained comparisons, augmented assignment,
tuple unpacking, negative constant indices, N-d indexing) into these nodes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import types as T
from .types import Type


@dataclass(frozen=True)
class Loc:
    file: str
    line: int
    col: int


@dataclass(eq=False)
class Var:
    """A named storage location: a local, a parameter, a shared/local array, a temporary."""
    name: str
    type: Type
    role: str = "local"        # local | scalar_param | array_param | shared | local_array | temp
    #                            | const_array
    binding: int | None = None  # array params: descriptor binding
    py_name: str | None = None  # locals: the Python name whose settled type the local takes
    # what the function bodies do with it (the front end sets these)
    written: bool = False       # stored to (also atomics, pushes, control stores): not readonly
    assigned: bool = False      # a scalar parameter the body reassigns (copied into a local)
    fixed: bool = False         # an annotated local: its declared type never widens
    # how the shader that binds it holds it (set by whoever builds that shader)
    static_shape: tuple | None = None  # extents fixed when the shader is built: literals
    coherent: bool = False      # other workgroups of the same dispatch write it
    barrier_synced: bool = False  # accessed only between grid barriers (nonprivate under the
    #                               Vulkan memory model, made visible at the barriers)
    scheduled: bool = False     # a program's memsock: slot and seq come from the step words
    bits_alias: bool = False    # also declared as unsigned words (float compare-and-swap atomics)
    init: tuple | None = None   # const arrays (host arrays a kernel captured): the values, flat


# ---- expressions -------------------------------------------------------------------------
@dataclass(eq=False)
class Expr:
    type: Type
    loc: Loc | None


@dataclass(eq=False)
class Const(Expr):
    value: object
    weak: bool = False          # a Python-number literal: takes the type of what it meets (NEP 50)


@dataclass(eq=False)
class Ref(Expr):
    var: Var


@dataclass(eq=False)
class Unary(Expr):
    op: str                     # '-', '~', 'not'
    operand: Expr


@dataclass(eq=False)
class Binary(Expr):
    op: str                     # + - * / // % ** & | ^ << >> (operands already promoted)
    left: Expr
    right: Expr


@dataclass(eq=False)
class Compare(Expr):
    op: str                     # < <= > >= == !=
    left: Expr
    right: Expr


@dataclass(eq=False)
class Logical(Expr):
    op: str                     # 'and' | 'or', short-circuit, bool operands
    left: Expr
    right: Expr


@dataclass(eq=False)
class Select(Expr):
    cond: Expr
    then: Expr
    orelse: Expr


@dataclass(eq=False)
class Cast(Expr):
    value: Expr


@dataclass(eq=False)
class Intrinsic(Expr):
    """A built-in operation the GLSL generator knows by name (math, ids, atomics...)."""
    name: str
    args: list


@dataclass(eq=False)
class Call(Expr):
    func: "Function"
    args: list                  # non-array arguments only; arrays are bound at compile time
    outs: list = field(default_factory=list)   # result Vars when the function returns a tuple


@dataclass(eq=False)
class Load(Expr):
    """Element of an array parameter, a shared array or a local array."""
    var: Var
    index: list                 # one index per dimension (already bounds-normalised)


@dataclass(eq=False)
class Shape(Expr):
    var: Var
    axis: int


@dataclass(eq=False)
class Swizzle(Expr):
    value: Expr
    components: str             # e.g. "xyz"


@dataclass(eq=False)
class MakeVector(Expr):
    args: list


@dataclass(eq=False)
class Let(Expr):
    """Evaluate `value` into `var` once, then `body` (used for chained comparisons)."""
    var: Var
    value: Expr
    body: Expr


# ---- statements --------------------------------------------------------------------------
@dataclass(eq=False)
class Stmt:
    loc: Loc | None


@dataclass(eq=False)
class Assign(Stmt):
    var: Var
    value: Expr


@dataclass(eq=False)
class AssignComponent(Stmt):
    var: Var
    components: str
    value: Expr


@dataclass(eq=False)
class Store(Stmt):
    var: Var
    index: list
    value: Expr


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    body: list
    orelse: list


@dataclass(eq=False)
class While(Stmt):
    cond: Expr
    body: list


@dataclass(eq=False)
class ForRange(Stmt):
    var: Var
    counter: Var
    start: Expr
    stop: Expr
    step: Expr
    body: list


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class Return(Stmt):
    values: list                # empty for `return` / `return None`


@dataclass(eq=False)
class ExprStmt(Stmt):
    expr: Expr


# ---- functions ---------------------------------------------------------------------------
@dataclass(eq=False)
class Function:
    name: str                   # GLSL name (unique per specialisation)
    python_name: str
    params: list                # Vars: scalar/vector params, in order
    array_params: list          # Vars bound to buffers (kernels) / forwarded globals (funcs)
    returns: list               # result types; [] for void
    body: list
    locals: list = field(default_factory=list)     # declared at the top, types unified
    is_kernel: bool = False
    loc: Loc | None = None
    callees: list = field(default_factory=list)


# ---- descriptor bindings ---------------------------------------------------------------------
def binding_count(t) -> int:
    """Descriptor bindings a buffer-backed value of type `t` takes: frames, header and state
    for a MemSock; header and items for a queue; one otherwise."""
    return 3 if isinstance(t, T.SocketType) else 2 if isinstance(t, T.QueueType) else 1


def assign_bindings(buffers: list) -> int:
    """Give each buffer-backed Var its first binding, consecutively in the order given (the
    order the host binds its buffers in); returns the next free binding."""
    binding = 0
    for var in buffers:
        var.binding = binding
        binding += binding_count(var.type)
    return binding


def bindings_end(buffers: list) -> int:
    """The first binding after those of `buffers` (a loop-guarded shader's status word)."""
    return max((v.binding + binding_count(v.type) for v in buffers), default=0)
