"""Checkpoints: a program's whole state in one HDF5 file, restored bit for bit.

    prog.run(500)
    prog.checkpoint("run_000500.h5")          # at a step boundary
    ...                                       # a new process, the program declared again
    prog.restore("run_000500.h5")             # its next step is step 500, as before
    prog.run(500)                             # ends where 1000 uninterrupted steps end

A step of a program depends on its arrays (both halves of a pair: elements no stage
writes keep the other half's value), its controls (every word: field values, the command
ring with commands not yet applied, the acknowledgement), the step count (`prog.step`
and every `every(n)` period follow it; random numbers drawn in stages with
vkp.random.philox_* are functions of what the stage passes them, usually a seed control,
the step and the index), its queues (items and counters) and its memsocks (the frames
not yet released and the sequence counters, so that the reader of a restored run sees the
sequence go on without a gap). A checkpoint holds all of it, so a restored run computes
what the uninterrupted one computes: no step has atomics whose order could differ, and
the two modes run the same code on the same indices.

The file (h5py, readable with any HDF5 tool) follows openPMD 1.1's mesh conventions where
they fit: `/data/<step>/meshes/<array>` holds each array as the host reads it (for a
pair, `A` the state and `A_next` the other half), with openPMD's attributes (geometry
cartesian, unit spacing: vkpersist does not know the physical grid, and `time` counts
steps, timeUnitSI 1). What openPMD has no record for is under `/data/<step>/vkpersist/`:
the controls' words, the queues, the memsocks, and the program's structure (JSON), which
restore compares with the program it restores into, naming what differs.

A checkpoint is written to a temporary file in the same folder, flushed, fsynced and then
renamed over the target (POSIX rename is atomic), so a process killed while writing
leaves the previous file whole and no partial file under the target's name; restore reads
and checks everything before it writes anything into the program, so a bad file leaves
the program as it was.
"""
from __future__ import annotations

import ast
import datetime
import glob
import hashlib
import json
import os
import pathlib
import tempfile
import weakref
from importlib import metadata

import numpy as np

from .._errors import CheckpointError, VkPersistError
from ..lang.source import parse_function
from ..lang.values import DeviceFunction
from ._declare import Q_DROPPED, PairHalf

FORMAT = 1                   # the layout of /data/<step>/vkpersist; bumped when it changes


def _version() -> str:
    try:
        return metadata.version("vkpersist")
    except metadata.PackageNotFoundError:
        return "unknown"


def _h5py():
    try:
        import h5py
    except ImportError:
        raise VkPersistError("checkpoints are HDF5 files written with h5py, which is not "
                             "installed: pip install h5py") from None
    return h5py


# ---- what a program is --------------------------------------------------------------------
def _controls(prog):
    """The program's controls, made now if it declared none and never ran (as its first
    build would make them): their words are state too (steps run, commands, status)."""
    if prog.ctl is None:
        prog.ctl = prog._make_controls(16, None, {})
    return prog.ctl

def _code_hash(fn) -> str:
    """A hash of a function's code (its syntax tree: comments and layout do not count)."""
    try:
        node, _ = parse_function(fn)
    except VkPersistError:
        return "no source"
    node.decorator_list = []
    return hashlib.sha256(ast.dump(node).encode()).hexdigest()[:16]


def _stage_hash(stage) -> str:
    """The stage's code and that of the device functions it names directly."""
    fn = stage.fn
    names = {n.id for n in ast.walk(parse_function(fn)[0]) if isinstance(n, ast.Name)} \
        if _code_hash(fn) != "no source" else set()
    scope = {**fn.__globals__, **dict(zip(fn.__code__.co_freevars,
                                          (c.cell_contents for c in fn.__closure__ or ())))}
    parts = [_code_hash(fn)] + [f"{n}:{_code_hash(scope[n].pyfunc)}" for n in sorted(names)
                                if isinstance(scope.get(n), DeviceFunction)]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


# a compiled program's structure (its declarations are frozen then): hashing the stages'
# code reads and parses their source, 93 of the 95 ms a 42³ FDTD's checkpoint held the
# device for, at every periodic checkpoint
_FROZEN: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def structure(prog) -> dict:
    """What a checkpoint must match: every declaration with its shape and type, the
    stages' code, and the loop."""
    known = _FROZEN.get(prog)
    if known is None:
        known = _structure(prog)
        if prog._builds:                 # compiled: nothing can be declared any more
            _FROZEN[prog] = known
    return known


def _structure(prog) -> dict:
    arrays = {}
    for name, a in prog.arrays.items():
        arrays[name] = {"shape": list(a.shape), "dtype": a.dtype.str,
                        "kind": f"pair half {a.role} with {a.partner}"
                        if isinstance(a, PairHalf) else "array"}
    ctl = _controls(prog)
    return {
        "arrays": arrays,
        "queues": {n: {"dtype": q.dtype.str, "capacity": q.capacity}
                   for n, q in prog.queues.items()},
        "memsocks": {n: {"dtype": s.dtype.str, "frame_shape": list(s.frame_shape),
                         "capacity": s.capacity, "policy": s.policy,
                         "payload": [f.name for f in s.type.payload]}
                     for n, s in prog.sockets.items()},
        "controls": {
            "words": int(ctl._words.size), "commands": ctl.command_capacity,
            "fields": {f.name: [str(f.type), f.count, f.side] for f in ctl.type.fields}},
        "stages": {n: {"domain": list(s.domain) if s.domain else None,
                       "consumes": s.consumes.name if s.consumes is not None else None,
                       "code": _stage_hash(s)} for n, s in prog.stages.items()},
        "loop": [[s.name, bit] for s, bit in prog.schedule],
    }


def differences(saved: dict, mine: dict) -> list[str]:
    """What differs between the checkpoint's program and this one, in words."""
    out = []
    for kind in ("arrays", "queues", "memsocks", "stages"):
        a, b = saved.get(kind) or {}, mine.get(kind) or {}
        what = kind[:-1]
        for name in sorted(a.keys() - b.keys()):
            out.append(f"the checkpoint has {what} {name!r}, which this program lacks")
        for name in sorted(b.keys() - a.keys()):
            out.append(f"this program has {what} {name!r}, which the checkpoint lacks")
        for name in sorted(a.keys() & b.keys()):
            for key in a[name]:
                if a[name][key] != b[name].get(key):
                    if key == "code":
                        out.append(f"stage {name!r} was edited (its code, or that of a "
                                   "@vkp.func it calls, differs from the checkpoint's)")
                    else:
                        out.append(f"{what} {name!r}: {key} {_show(key, a[name][key])} in the "
                                   f"checkpoint, {_show(key, b[name][key])} in this program")
    if saved.get("controls") != mine.get("controls"):
        out.append(_control_difference(saved.get("controls"), mine.get("controls")))
    if saved.get("loop") != mine.get("loop") and not out:
        out.append(f"the loop differs: {_loop(saved['loop'])} in the checkpoint, "
                   f"{_loop(mine['loop'])} in this program")
    return out


def _show(key, value):
    if key == "dtype":
        return str(np.dtype(value))
    return tuple(value) if isinstance(value, list) else repr(value)


def _loop(loop) -> str:
    return "(" + ", ".join(name if bit is None else f"{name} [every/when {bit}]"
                           for name, bit in loop) + ")"


def _field(spec) -> str:
    if spec is None:
        return "absent"
    kind, count, side = spec
    kind = {"float32": "f32", "int32": "i32", "uint32": "u32"}.get(kind, kind)
    return (f"vkp.{kind}" + (f"[{count}]" if count else "")
            + (" (host)" if side == "host" else " (status)"))


def _control_difference(a, b) -> str:
    if a is None or b is None:
        which = "the checkpoint" if b is None else "this program"
        return f"only {which} has controls"
    fa, fb = a["fields"], b["fields"]
    names = [n for n in (fa.keys() | fb.keys()) if not n.startswith("_")]
    for n in sorted(names):
        if fa.get(n) != fb.get(n):
            return (f"control field {n!r}: {_field(fa.get(n))} in the checkpoint, "
                    f"{_field(fb.get(n))} in this program")
    return (f"the controls' layout differs (command ring of {a['commands']} in the checkpoint, "
            f"{b['commands']} in this program)")


# ---- the state ---------------------------------------------------------------------------
def capture(prog, *, between_epochs: bool = False, host: dict | None = None) -> dict:
    """Every piece of state a step depends on, copied to the host, the program idle at a
    step boundary: between runs, or (`between_epochs`, the runner's or a session's driver
    asking) between two epochs of a run."""
    if between_epochs:
        prog._usable("write a checkpoint")
        prog.ctx.synchronize()
    else:
        prog._require_idle("write a checkpoint")
    prog._refuse_if_cut()
    state = {"step": prog.steps_done, "structure": structure(prog), "meshes": {},
             "queues": {}, "memsocks": {}, "controls": None, "host": _host_arrays(host)}
    for name, a in prog.arrays.items():
        state["meshes"][name] = a.array[a._half()].numpy() if isinstance(a, PairHalf) \
            else a.array.numpy()
    for name, q in prog.queues.items():
        state["queues"][name] = {"header": q._words.copy(), "items": q.items_array.numpy()}
    for name, s in prog.sockets.items():
        s._open("write a checkpoint")
        frames = s.frame_buffer.host_view().view(s.dtype).copy()
        state["memsocks"][name] = {"frames": frames, "header": s._header.copy(),
                                   "cursor": s._cursor.copy(), "tail": s.tail}
    if prog.ctl is not None:
        state["controls"] = {"words": prog.ctl._live("write a checkpoint").copy(),
                             "fields": {n: np.asarray(prog.ctl[n]) for n in prog.ctl.fields}}
    return state


def _host_arrays(host) -> dict:
    """The caller's own host state (name: array), checked now rather than in the file."""
    if host is None:
        return {}
    if not isinstance(host, dict):
        raise TypeError(f"checkpoint(host=...) takes a dict of name: NumPy array, got "
                        f"{type(host).__name__}")
    out = {}
    for name, value in host.items():
        if not isinstance(name, str) or not name or "/" in name:
            raise ValueError(f"checkpoint(host=...): {name!r} is not a usable name (a "
                             "non-empty str without '/')")
        data = np.asarray(value)
        if data.dtype == object:
            raise TypeError(f"checkpoint(host=...): {name!r} is not numbers (dtype object); "
                            "store arrays of numbers")
        out[name] = data.copy()
    return out


def write(state: dict, path, *, program: str) -> pathlib.Path:
    """Write `state` (from capture) to `path`, crash-safe: a temporary file in the same
    folder, fsynced, renamed over `path`."""
    h5py = _h5py()
    path = pathlib.Path(path)
    folder = path.parent if str(path.parent) else pathlib.Path(".")
    if not folder.is_dir():
        raise FileNotFoundError(f"checkpoint {str(path)!r}: the folder {str(folder)!r} does "
                                "not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=folder)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)         # as open() would make it, not mkstemp's 0600
    try:
        with h5py.File(tmp, "w") as f:
            _write_file(f, state, program)
            f.flush()
        with open(tmp, "rb+") as raw:
            os.fsync(raw.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    for stale in folder.glob(f".{glob.escape(path.name)}.*.partial"):
        try:                              # left by a writer killed before its rename
            stale.unlink()
        except OSError:
            pass
    try:                                  # the rename itself survives a crash
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:                       # a file system that cannot fsync a folder
        pass
    return path


def _write_file(f, state: dict, program: str) -> None:
    step = state["step"]
    f.attrs.update({
        "openPMD": "1.1.0", "openPMDextension": np.uint32(0), "basePath": "/data/%T/",
        "meshesPath": "meshes/", "iterationEncoding": "groupBased",
        "iterationFormat": "/data/%T/", "software": "vkpersist", "softwareVersion": _version(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S %z"),
        "vkpersistCheckpoint": np.uint32(FORMAT), "program": program})
    it = f.create_group(f"data/{step}")
    it.attrs.update({"time": float(step), "dt": 1.0, "timeUnitSI": 1.0})
    meshes = it.create_group("meshes")
    for name, data in state["meshes"].items():
        d = meshes.create_dataset(name, data=data)
        n = max(data.ndim, 1)
        d.attrs.update({
            "geometry": "cartesian", "dataOrder": "C",
            "axisLabels": np.array(["ijk"[k] if n <= 3 else f"a{k}" for k in range(n)],
                                   dtype=h5py_str()),
            "gridSpacing": np.ones(n), "gridGlobalOffset": np.zeros(n), "gridUnitSI": 1.0,
            "unitDimension": np.zeros(7), "timeOffset": 0.0, "position": np.zeros(n),
            "unitSI": 1.0})
    own = it.create_group("vkpersist")
    own.attrs["structure"] = json.dumps(state["structure"], sort_keys=True)
    own.attrs["step"] = np.uint64(step)
    if state["controls"] is not None:
        c = own.create_group("controls")
        c.create_dataset("words", data=state["controls"]["words"])
        for name, value in state["controls"]["fields"].items():
            c.attrs[name] = value
    for name, q in state["queues"].items():
        g = own.create_group(f"queues/{name}")
        g.create_dataset("header", data=q["header"])
        g.create_dataset("items", data=q["items"])
    for name, s in state["memsocks"].items():
        g = own.create_group(f"memsocks/{name}")
        for key in ("frames", "header", "cursor"):
            g.create_dataset(key, data=s[key])
        g.attrs["tail"] = np.uint64(s["tail"])
    if state["host"]:
        g = it.create_group("host")
        for name, data in state["host"].items():
            g.create_dataset(name, data=data)
    f.attrs["complete"] = True            # last: a file without it was cut short


def h5py_str():
    return _h5py().string_dtype()


def read(path) -> dict:
    """A checkpoint file's state, checked to be one (CheckpointError otherwise)."""
    h5py = _h5py()
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint file {str(path)!r}")
    try:
        f = h5py.File(path, "r")
    except OSError as exc:
        raise CheckpointError(f"{str(path)!r} is not a readable HDF5 file ({exc}); a "
                              "checkpoint cut short by a crash is never left under its "
                              "name, so this file was damaged or is not a checkpoint") from None
    with f:
        if "vkpersistCheckpoint" not in f.attrs:
            raise CheckpointError(f"{str(path)!r} is an HDF5 file but not a vkpersist "
                                  "checkpoint (no vkpersistCheckpoint attribute)")
        fmt = int(f.attrs["vkpersistCheckpoint"])
        if fmt > FORMAT:
            raise CheckpointError(f"{str(path)!r} was written in checkpoint format {fmt} by "
                                  f"vkpersist {f.attrs.get('softwareVersion')}; this vkpersist "
                                  f"({_version()}) reads format {FORMAT} and older")
        if not f.attrs.get("complete", False):
            raise CheckpointError(f"{str(path)!r} is incomplete (its writer stopped before "
                                  "the end)")
        try:
            (step_name,) = f["data"].keys()
            it = f["data"][step_name]
            own = it["vkpersist"]
            state = {"step": int(own.attrs["step"]), "program": str(f.attrs.get("program")),
                     "structure": json.loads(own.attrs["structure"]),
                     "meshes": {n: d[()] for n, d in it["meshes"].items()},
                     "controls": None, "queues": {}, "memsocks": {},
                     "host": {n: d[()] for n, d in it.get("host", {}).items()}}
            if "controls" in own:
                state["controls"] = {"words": own["controls"]["words"][()]}
            for name, g in own.get("queues", {}).items():
                state["queues"][name] = {"header": g["header"][()], "items": g["items"][()]}
            for name, g in own.get("memsocks", {}).items():
                state["memsocks"][name] = {**{k: g[k][()] for k in ("frames", "header",
                                                                     "cursor")},
                                           "tail": int(g.attrs["tail"])}
        except (KeyError, ValueError, OSError) as exc:
            raise CheckpointError(f"{str(path)!r}: a vkpersist checkpoint with missing or "
                                  f"damaged parts ({exc})") from None
    return state


def restore(prog, state: dict, path) -> int:
    """Put `state` (from read) into `prog`, after checking that it fits; the step the
    program runs next."""
    prog._require_idle("restore a checkpoint")
    diff = differences(state["structure"], structure(prog))
    if diff:
        raise CheckpointError(
            f"{str(path)!r} holds program {state['program']!r} as it was declared then, which "
            f"differs from {prog.name!r}: " + "; ".join(diff) + ". Declare the program as it was when the checkpoint was "
            "written (Meep's rule too), or start this one afresh")
    for name, s in prog.sockets.items():
        if s.next_read != s.tail:
            raise VkPersistError(f"{prog.name}: cannot restore while frames of memsock "
                                 f"{name!r} are held (taken, not released); release them "
                                 "first")
    _check_sizes(prog, state, path)
    step = state["step"]
    prog._cut = None                     # the state it refused to run on is replaced
    if prog._runner is not None:
        prog._runner.resume = 0
    prog.steps_done = step               # first: a pair's halves follow its parity
    for name, a in prog.arrays.items():
        data = state["meshes"][name]
        if isinstance(a, PairHalf):
            a.array[a._half()] = data
        else:
            a.array.copy_from(data)
    for name, q in prog.queues.items():
        q._words[:] = state["queues"][name]["header"]
        q.items_array.copy_from(state["queues"][name]["items"])
        q._dropped_seen = int(q._words[Q_DROPPED])    # no warning for drops before it
    for name, s in prog.sockets.items():
        saved = state["memsocks"][name]
        s.frame_buffer.host_view().view(s.dtype)[:] = saved["frames"]
        s._header[:] = saved["header"]
        s._cursor[:] = saved["cursor"]
        s.tail = s.next_read = saved["tail"]
        s._released = set()
    if prog.ctl is not None:
        prog.ctl._live("restore a checkpoint")[:] = state["controls"]["words"]
    return step


def _check_sizes(prog, state, path) -> None:
    """The data's sizes, against the declarations (a damaged file)."""
    for name, a in prog.arrays.items():
        data = state["meshes"].get(name)
        if data is None or data.shape != tuple(a.shape) or data.dtype != a.dtype:
            raise CheckpointError(f"{str(path)!r}: array {name!r}'s data is missing or "
                                  "damaged")
    if prog.ctl is not None and (state["controls"] is None
                                 or state["controls"]["words"].shape != prog.ctl._words.shape):
        raise CheckpointError(f"{str(path)!r}: the controls' words are missing or damaged")
    for name, q in prog.queues.items():
        saved = state["queues"].get(name)
        if saved is None or saved["items"].shape != (q.capacity,) \
                or saved["header"].shape != q._words.shape:
            raise CheckpointError(f"{str(path)!r}: queue {name!r}'s data is missing or damaged")
    for name, s in prog.sockets.items():
        saved = state["memsocks"].get(name)
        if saved is None or saved["header"].shape != s._header.shape \
                or saved["cursor"].shape != s._cursor.shape \
                or saved["frames"].size != s.frame_buffer.nbytes // s.dtype.itemsize:
            raise CheckpointError(f"{str(path)!r}: memsock {name!r}'s data is missing or "
                                  "damaged")
