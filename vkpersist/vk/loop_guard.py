"""lavapipe's loop guard, host side: the status word guarded shaders report through, and the
names they report by. lavapipe ends every loop silently once an invocation has run ~65,535
iterations in all (VULKAN_FACTS.md §5); a guarded shader (generated kernels, program
shaders and raw GLSL kernels on a target with `loop_guard`) counts its iterations and, at
LOOP_GUARD_LIMIT, writes its id here, so the next synchronize raises DeviceLimitError
instead of handing back truncated results."""
from __future__ import annotations

import zlib


from .._errors import DeviceLimitError
from .array import Array
from .sync_words import sync_words
from .target import LOOP_GUARD_LIMIT

_kernel_names: dict[int, str] = {}     # kernel id -> name, for loop-limit reports


def register_kernel_name(name: str) -> int:
    """The id (never 0) a loop-guarded shader reports itself with when it hits the limit: a
    hash of the name, so a kernel's source, which contains it, is the same in every process
    whatever was compiled before it, and hits the compiled-shader cache (the report names
    the kernel, which is all the id is for; two names of one hash would only blur it)."""
    kernel_id = zlib.crc32(name.encode()) & 0x7FFFFFFF or 1
    _kernel_names.setdefault(kernel_id, name)
    return kernel_id


def loop_status_array(ctx) -> Array:
    """Per-context word where loop-guarded kernels (lavapipe) report hitting the loop limit."""
    device = ctx.info.name        # not ctx: the check lives on the core, which outlives it

    def check(view):
        culprit = int(view[0])
        if culprit:
            view[0] = 0
            name = _kernel_names.get(culprit, "a kernel")
            raise DeviceLimitError(
                f"{name}: an invocation ran more than {LOOP_GUARD_LIMIT:,} loop "
                f"iterations on {device}, which stops every loop after ~65,535 "
                "per invocation (counting each loop's final test, so a loop inside a "
                "loop costs one more each time); its results would be silently "
                "truncated. Spread the work over more invocations, or run on a GPU.")
    return sync_words(ctx, "_loop_status", 4, check)
