"""The scheduler words (`_vkp_sched`, device-local, one array per build): their layout in one
place, and their names in the generated GLSL, where each is a `const uint _vkp_NAME` so a
reader of the megakernel sees `_vkp_sched[_vkp_ENDED]`, not `_vkp_sched[2]` (constants
fold: the SPIR-V indexes are the same).

Below EPOCH_WORDS the words belong to one epoch (the megakernel) or one batch (the
fallback) and are zeroed before each. The step words come in SLOTS slots, one per step
being prepared or run (slot = step % 3): state, flags and step number at STEP_* + 3 * slot.
The two grid-barrier counters each sit on a 128-byte line of their own, so polls of one do
not queue behind updates of the other. From STEPS_DONE on the words persist across epochs:
the program's step count, lavapipe's loop budget (what a step cost, and where an epoch cut
short within a step resumes: _megakernel.py), then from SNAPSHOT the three snapshots of the
host control fields (one per slot), then per memsock and slot its frame's ring slot and
sequence number.
"""
from __future__ import annotations

SLOTS = 3
STATE_RUNNING, STATE_ENDED = 1, 2     # a slot's STEP_STATE (0: not prepared)
# why an epoch (batch) ended, published in the `_reason` status word; REASON_CUT: lavapipe's
# loop budget ran out within a step, which the next epoch finishes (_budget.py)
REASON_BUDGET, REASON_HALT, REASON_LOOP_LIMIT, REASON_BLOCKED, REASON_DONE, REASON_CUT = \
    1, 2, 3, 4, 5, 6
# the megakernel's copy of the running step's words in each workgroup's shared memory
# `_vkp_words`: state, flags, number, slot, then each memsock's frame slot and sequence
# number, then the host scalars stages read (_megakernel.py)
W_STATE, W_FLAGS, W_STEP, W_SLOT, W_SOCKETS = range(5)
# (name, word, what it holds)
WORDS = (
    ("OCCUPANCY", 0, "occupancy discovery: participants that joined; bit 31: the poll closed"),
    ("STARTED", 1, "a step was prepared in this epoch"),
    ("ENDED", 2, "this epoch (batch) has ended"),
    ("DONE", 3, "steps completed in this epoch"),
    ("SAFE", 4, "lavapipe: steps of this epoch (batch) complete before any loop-guard report"),
    ("CUT_AT", 5, "lavapipe: the grid barrier within a step at which this epoch was cut"),
    ("CUR", 6, "the fallback: the slot of the step being run"),
    ("END_CUT", 7, "lavapipe: 1 + the slot loaded at a step's end that was cut (bit 31: kept)"),
    ("STEP_STATE", 8, "slot s: the state of its step (+ 3s)"),
    ("STEP_FLAGS", 9, "slot s: which every()/when() stages run (+ 3s)"),
    ("STEP_NUMBER", 10, "slot s: the step's number (+ 3s)"),
    ("FIRST", 17, "lavapipe: the step this epoch started with"),
    ("EXITS", 18, "lavapipe: participants that have left the megakernel"),
    ("ARRIVED_CUT", 19, "lavapipe: the target of the barrier between stages that was cut"),
    ("ENDS_CUT", 20, "lavapipe: the target of the step's end that was cut"),
    ("ARRIVED", 32, "arrivals at the grid barriers between stages"),
    ("ENDS", 64, "arrivals at the ends of steps"),
    ("STEPS_DONE", 96, "steps the program has completed (persists across epochs)"),
    ("WORK_RAW", 97, "lavapipe: the most loop iterations one step cost an invocation"),
    ("WORK_NORM", 98, "lavapipe: the most of such a cost times that epoch's participants"),
    ("RESUME_SLOT", 99, "lavapipe: the slot of the step a cut epoch left half done"),
    ("RESUME_FLAGS", 100, "lavapipe: that step's every()/when() flags"),
    ("RESUME_ROUND", 101, "lavapipe: its queue round at the cut (bit 31: after a round)"),
    ("SNAPSHOT", 128, "the host fields' snapshots, one per slot"),
)
W = {name: word for name, word, _ in WORDS}
EPOCH_WORDS = 96           # zeroed before each epoch (batch)
# Target.ordered_from's hand-out counter (_plan.py, `place_ordered`): zeroed with the
# epoch's words; named in the GLSL only where a stage uses it, so other programs' code is
# unchanged
CHUNKS = 24


def snapshot_words(ctl_type) -> int:
    """How many control words (from word 0) hold the user's host fields."""
    return max([f.word + max(f.count, 1) for f in ctl_type.fields
                if f.side == "host" and not f.name.startswith("_")], default=0)


def sockets_base(ctl_type) -> int:
    """The first memsock word: after the snapshots of every slot."""
    return W["SNAPSHOT"] + SLOTS * snapshot_words(ctl_type)


def sched_words(ctl_type, sockets: int) -> int:
    """The scheduler words of a program: the fixed ones, the snapshots, then per memsock
    and slot its frame's ring slot and seq."""
    return sockets_base(ctl_type) + 2 * SLOTS * sockets


def glsl_name(name: str) -> str:
    return f"_vkp_{name}"


def glsl_constants(ctl_type) -> list[str]:
    """The layout as GLSL constants, for the head of a program shader."""
    lines = [f"const uint {glsl_name(n)} = {w}u;   // {doc}" for n, w, doc in WORDS]
    lines.append(f"const uint {glsl_name('SOCKETS')} = {sockets_base(ctl_type)}u;   // per "
                 "memsock and slot: its frame's ring slot and seq")
    return lines
