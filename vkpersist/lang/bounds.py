"""Debug mode's bounds checks (`@vkp.kernel(debug=True)`, `vkp.Program(debug=True)`, or
VKPERSIST_DEBUG=1 for both), like numba's `boundscheck`: every index of an array (and of
a memsock frame) is tested on the device against the array's shape. The first access out
of range writes an error record (first one wins: an atomic compare-and-swap on its first
word) and goes to element 0 instead; the host reads the record once the launch, batch or
epoch has completed and raises BoundsError with the Python file:line, the array, the index
and the shape. The GLSL side is the writer's (lang/glsl.py `checked_index`); this module
keeps the access sites the records name and the per-context record.

Without debug nothing is generated: kernels and programs compile to the same GLSL."""
from __future__ import annotations

import os
import zlib

import numpy as np

from .._errors import BoundsError

RECORD_WORDS = 8             # site, the index (3 words), the shape (3 words), spare
_sites: dict[int, tuple] = {}    # site id -> (file, line, array name, rank)


def debug_default() -> bool:
    """VKPERSIST_DEBUG=1 (any value but empty or 0) turns debug mode on where a kernel or
    program does not say."""
    return os.environ.get("VKPERSIST_DEBUG", "") not in ("", "0")


def register_site(loc, name: str, ndim: int) -> int:
    """The id (never 0) an out-of-range access at `loc` of array `name` reports itself by:
    a hash, so the generated source is the same in every process (and hits the cache)."""
    where = (loc.file, loc.line) if loc is not None else ("?", 0)
    site = zlib.crc32(f"{where[0]}:{where[1]}:{name}:{ndim}".encode()) & 0x7FFFFFFF or 1
    _sites.setdefault(site, (*where, name, ndim))
    return site


def bounds_record(ctx):
    """The context's error record (host-visible words), checked after every synchronize."""
    record = getattr(ctx, "_bounds_record", None)
    if record is None or not record.buffer.alive:
        record = ctx.zeros(RECORD_WORDS, np.uint32, memory="host")
        ctx._bounds_record = record
        view = record.buffer.host_view().view(np.uint32)

        def check():
            site = int(view[0])
            if site:
                words = view[1:7].view(np.int32).tolist()
                view[:] = 0
                raise out_of_range(site, words)
        ctx._core.after_sync.append(check)
    return record


def out_of_range(site: int, words: list) -> BoundsError:
    file, line, name, ndim = _sites.get(site, ("?", 0, "an array", 3))
    index, shape = tuple(words[:ndim]), tuple(words[3:3 + ndim])
    bad = [f"axis {a}: {i} is not in 0..{n - 1}" for a, (i, n) in enumerate(zip(index, shape))
           if not 0 <= i < n]
    text = ", ".join(map(str, index))
    err = BoundsError(f"{file}:{line}: index [{text}] is out of range for {name} of shape "
                      f"{shape} ({'; '.join(bad)}). Debug mode reports the first access out "
                      "of range; the results of that launch (or run) are not valid.")
    err.filename, err.lineno, err.array, err.index, err.shape = file, line, name, index, shape
    return err
