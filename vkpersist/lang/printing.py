"""print() inside kernels, device side: each call appends one record to a print buffer that
the host decodes and prints once the launch has completed (vkpersist/_kernel_print.py).

A record is a format id (one word: the call's string literals and value types, registered
here at compile time, a hash so that a kernel's GLSL is the same in every process) and its
values' bits, 32-bit words. A call reserves its whole record with one atomicAdd on the
buffer's cursor, so the lines of concurrent invocations never interleave; a record that no
longer fits is not written but counted, and the host reports the count. Words 0 and 1 are
the cursor and the count of lines dropped, records start at word 2.
"""
from __future__ import annotations

import ast
import zlib

from . import builtins as B
from . import ir
from . import types as T

CAPACITY_WORDS = 1 << 18          # 1 MiB of records per context between synchronizations
FORMATS: dict[int, tuple] = {}    # format id -> parts: ("s", text) or (code, None)

# value type -> (code, words, GLSL expressions of its words given the value's name)
_ENCODINGS = {
    "b": (1, lambda v: [f"uint({v})"]),
    "i": (1, lambda v: [f"uint({v})"]),
    "u": (1, lambda v: [v]),
    "f": (1, lambda v: [f"floatBitsToUint({v})"]),
    "d": (2, lambda v: [f"unpackDouble2x32({v}).x", f"unpackDouble2x32({v}).y"]),
    "I": (2, lambda v: [f"uint({v})", f"uint({v} >> 32)"]),
    "U": (2, lambda v: [f"uint({v})", f"uint({v} >> 32)"]),
}


def _code(t) -> str | None:
    if t == T.bool_:
        return "b"
    if not isinstance(t, T.Scalar):
        return None
    t = T.arithmetic(t)
    if t.is_float:
        return "d" if t == T.f64 else "f"
    if t.bits == 64:
        return "I" if t.kind == "i" else "U"
    return "i" if t.kind == "i" else "u"


def words(code: str) -> int:
    return _ENCODINGS[code][0]


def lower_print(c, node):
    """print(a, "text", b) in kernel code: string literals and int, float and bool values,
    separated by spaces and ended by a newline as on the host (numba.cuda's format)."""
    if c.unit.resources:
        raise c.src.error(node, "print() is not available in program stages; write what you "
                          "want to see into an array or a MemSock and print it on the host")
    parts, values = [], []
    for a in node.args:
        if isinstance(a, ast.Constant) and isinstance(a.value, str):
            parts.append(("s", a.value))
            continue
        if isinstance(a, ast.JoinedStr):
            raise c.src.error(a, "print() in kernels takes no f-strings (the GPU does not "
                              "format text); pass the pieces: print(\"i =\", i) prints "
                              "'i = 3'")
        if isinstance(a, ast.Starred):
            raise c.src.error(a, "print(*args) is not supported in kernels; name each value")
        v = c.value(c.expr(a), a)
        code = _code(v.type)
        if code is None:
            raise c.src.error(a, f"print() in kernels takes string literals and int, float "
                              f"and bool values, got a {v.type}; print its parts (z.real, "
                              f"z.imag, v.x, ...) or a literal string")
        if code in "dIU":
            c.require(T.arithmetic(v.type), a)
        parts.append((code, None))
        values.append(v)
    fmt = tuple(parts)
    fmt_id = zlib.crc32(repr(fmt).encode()) & 0x7FFFFFFF or 1
    FORMATS.setdefault(fmt_id, fmt)
    c.unit.uses_print = True
    return ir.Intrinsic(T.void, c.src.loc(node), "print", [fmt_id, *values])


def binding(w) -> int:
    """The print buffer's binding: after the arrays', the loop guard's status word and
    debug mode's error record (a unit's `debug`, where it has one); launches bind the
    buffers in that order."""
    extra = (1 if w.loop_guard else 0) + (1 if getattr(w.unit, "debug", False) else 0)
    return ir.bindings_end(w.kernel.array_params) + extra


def emit_print(w, e) -> str:
    """A call of this format's print function (added to the writer's helpers once)."""
    fmt_id, values = e.args[0], e.args[1:]
    if "print_buffer" not in w.helpers:
        w.helpers["print_buffer"] = (f"layout(std430, binding = {binding(w)}) buffer VkpPrint "
                                     "{ uint _vkp_print[]; };")
    name = f"_vkp_print_{fmt_id:08x}"
    key = "print_" + name
    if key not in w.helpers:
        codes = [code for code, _ in FORMATS[fmt_id] if code != "s"]
        params = [f"{w.glsl_type(v.type)} v{i}" for i, v in enumerate(values)]
        stores = []
        for i, code in enumerate(codes):
            stores += _ENCODINGS[code][1](f"v{i}")
        n = 1 + len(stores)
        body = [f"void {name}({', '.join(params)}) {{",
                f"    uint p = atomicAdd(_vkp_print[0], {n}u);",
                f"    if (p <= {CAPACITY_WORDS - n}u) {{",
                f"        _vkp_print[2u + p] = {fmt_id}u;"]
        body += [f"        _vkp_print[{3 + i}u + p] = {s};" for i, s in enumerate(stores)]
        body += ["    } else {", "        atomicAdd(_vkp_print[1], 1u);", "    }", "}"]
        w.helpers[key] = "\n".join(body)
    return f"{name}({', '.join(w.expr(v) for v in values)})"


B._register(B.Entry("print", emit_print))      # lowered by lower_print (calls.py)
