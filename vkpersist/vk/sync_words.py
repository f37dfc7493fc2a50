"""Host-visible words a context's shaders report through, read after every synchronize:
lavapipe's loop-guard status (vk/loop_guard.py), debug mode's out-of-range record
(lang/bounds.py) and the kernels' print buffer (_kernel_print.py). Each is one small
'host' array per context, made on first use; its reader runs after each synchronize, when
the work that wrote it is complete."""
from __future__ import annotations

import numpy as np

from .array import Array


def sync_words(ctx, attr: str, nwords: int, on_sync, first: bool = False) -> Array:
    """`ctx`'s array of `nwords` uint32 host words kept as `ctx.<attr>`, made (zeroed) on
    first use or after it was freed, with `on_sync(view)` registered to run after every
    synchronize (`first`: before the others, e.g. output that must appear before a check
    raises)."""
    words = getattr(ctx, attr, None)
    if words is None or not words.buffer.alive:
        words = ctx.zeros(nwords, np.uint32, memory="host")
        setattr(ctx, attr, words)
        view = words.buffer.host_view().view(np.uint32)
        hooks = ctx._core.after_sync
        hooks.insert(0 if first else len(hooks), lambda: on_sync(view))
    return words
