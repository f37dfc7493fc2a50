"""The benchmarks' `--device` argument as `vkp.Context` takes it."""
from __future__ import annotations


def selector(text: str | None):
    """Digits are a device index (as in VKPERSIST_DEVICE); anything else a kind or part of
    a name (`vkp.Context` would read "0" as a name containing 0); None the best device."""
    return int(text) if text is not None and text.strip().isdigit() else text
