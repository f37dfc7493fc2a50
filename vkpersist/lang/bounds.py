"""Debug mode's bounds checks (`@vkp.kernel(debug=True)`, `vkp.Program(debug=True)`, or
VKPERSIST_DEBUG=1 for both), like numba's `boundscheck`: every index of an array (and of
a memsock frame) is tested on the device against the array's shape. The first access out
of range writes an error record (first one wins: an atomic compare-and-swap on its first
word) and goes to element 0 instead; the host reads the record once the launch, batch or
epoch has completed and raises BoundsError with the Python file:line, the array, the index
and the shape. Both sides live here: the writers' mixin that routes every index through a
checking function (`BoundsChecks`), the access sites the records name, and the
per-context record.

Without debug nothing is generated: kernels and programs compile to the same GLSL."""
from __future__ import annotations

import os
import zlib

import numpy as np

from .._errors import BoundsError
from . import ir
from . import types as T
from ..vk.sync_words import sync_words

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


class BoundsChecks:
    """Mixin of a GLSL writer (before lang/glsl.py's Writer in its bases): with the unit's
    `debug` set, every index of an array or memsock frame goes through `checked_index`,
    and the error record is bound after the arrays (and the loop guard's word)."""

    def __init__(self, kernel, unit, **kw):
        super().__init__(kernel, unit, **kw)
        self.stmt_loc = kernel.loc       # the statement being written: what reports name
        if unit.debug:
            binding = ir.bindings_end(kernel.array_params) + (1 if self.loop_guard else 0)
            self.globals.append(f"layout(std430, binding = {binding}) buffer VkpDebug "
                                "{ uint _vkp_debug[]; };   // debug: the error record")

    def stmt(self, s) -> None:
        self.stmt_loc = s.loc or self.stmt_loc
        super().stmt(s)

    def linear(self, var, index) -> str:
        if not self.unit.debug or not isinstance(var.type, (T.ArrayType, T.SocketType)):
            return super().linear(var, index)
        return checked_index(self, var, [self.index_expr(i) for i in index])

    def flat_index(self, var, names: list) -> str:
        """The unchecked flat index of `var` at the GLSL variables `names`."""
        refs = [ir.Ref(T.i32, None, ir.Var(n, T.i32)) for n in names]
        return super(BoundsChecks, self).linear(var, refs)


def checked_index(w, var, idx: list) -> str:
    """The flat index of `var` at `idx` (GLSL texts) through `_vkp_at_NAME(i, j, site)`
    (a helper of writer `w`), which tests it against the shape; out of range, it reports
    the access (the first one wins) and gives element 0's place, so the invocation goes
    on harmlessly until the host raises."""
    n = len(idx)
    name = f"_vkp_at_{var.name}"
    if "_vkp_out_of_range" not in w.helpers:
        w.helpers["_vkp_out_of_range"] = "\n".join([
            "// debug: the first access out of range writes the error record",
            "void _vkp_out_of_range(uint site, int i0, int i1, int i2, int n0, int n1, "
            "int n2) {",
            "    if (atomicCompSwap(_vkp_debug[0], 0u, site) == 0u) {",
            "        _vkp_debug[1] = uint(i0); _vkp_debug[2] = uint(i1); "
            "_vkp_debug[3] = uint(i2);",
            "        _vkp_debug[4] = uint(n0); _vkp_debug[5] = uint(n1); "
            "_vkp_debug[6] = uint(n2);",
            "    }",
            "}"])
    if name not in w.helpers:
        params = [f"i{a}" for a in range(n)]
        extents = [w.extent(var, a) for a in range(n)]
        inside = " && ".join(f"uint(i{a}) < uint({e})" for a, e in enumerate(extents))
        w.helpers[name] = "\n".join([
            f"int {name}({', '.join('int ' + p for p in params)}, uint site) {{   "
            f"// debug: an index of {var.name}, checked",
            f"    if ({inside}) return {w.flat_index(var, params)};",
            f"    _vkp_out_of_range(site, {', '.join(params + ['0'] * (3 - n))}, "
            f"{', '.join(extents + ['1'] * (3 - n))});",
            f"    return {w.flat_index(var, ['0'] * n)};",
            "}"])
    site = register_site(w.stmt_loc, var.name, n)
    return f"{name}({', '.join(f'int({i})' for i in idx)}, {site}u)"


def bounds_record(ctx):
    """The context's error record (host-visible words), checked after every synchronize."""
    def check(view):
        site = int(view[0])
        if site:
            words = view[1:7].view(np.int32).tolist()
            view[:] = 0
            raise out_of_range(site, words)
    return sync_words(ctx, "_bounds_record", RECORD_WORDS, check)


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
