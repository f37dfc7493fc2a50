"""print() inside kernels, host side: the per-context print buffer kernels append their
records to (lang/printing.py), printed to stdout after the work completes (every
synchronize: ctx.synchronize(), cuda.synchronize(), reading an array back), in the order
the invocations reserved their lines. Between two synchronizations the buffer holds 1 MiB
of records; lines beyond it are counted and reported as '... N more lines dropped'."""
from __future__ import annotations

import struct
import sys


from .lang.printing import CAPACITY_WORDS, FORMATS, words
from .vk.sync_words import sync_words


def print_buffer(ctx):
    """The context's print buffer (made, and its drain registered, on first use); drained
    before the checks that raise, so what a kernel printed appears first."""
    return sync_words(ctx, "_print_buffer", CAPACITY_WORDS + 2, _drain, first=True)


def _drain(view) -> None:
    used = min(int(view[0]), CAPACITY_WORDS)
    dropped = int(view[1])
    if not used and not dropped:
        return
    records = view[2:2 + used].copy()
    view[2:2 + used] = 0
    view[0] = view[1] = 0
    out = []
    pos = 0
    while pos < used and int(records[pos]) in FORMATS:
        fmt = FORMATS[int(records[pos])]
        pos += 1
        items = []
        for code, text in fmt:
            if code == "s":
                items.append(text)
                continue
            n = words(code)
            items.append(_format(code, records[pos:pos + n]))
            pos += n
        out.append(" ".join(items))
    if dropped:
        out.append(f"... {dropped} more lines dropped (kernel print buffer full: "
                   f"{CAPACITY_WORDS * 4 // 1024} KiB between synchronizations)")
    sys.stdout.write("\n".join(out) + "\n")
    sys.stdout.flush()


def _format(code: str, w) -> str:
    """One value as numba.cuda prints it: integers in full, floats as C's %f, bools as
    Python writes them."""
    raw = struct.pack(f"<{len(w)}I", *(int(x) for x in w))
    if code == "b":
        return "True" if w[0] else "False"
    if code in "fd":
        return "%f" % struct.unpack("<f" if code == "f" else "<d", raw)[0]
    return str(struct.unpack({"i": "<i", "u": "<I", "I": "<q", "U": "<Q"}[code], raw)[0])
