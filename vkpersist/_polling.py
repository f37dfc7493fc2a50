"""Waiting for a word the GPU writes into host memory: spin briefly, then back off.

A sleep costs 50+ µs of latency, so a waiter polls without sleeping for SPIN_S, then
sleeps 50 µs, doubling up to 5 ms, so an idle waiter costs little CPU. Every wait has a
limit and raises DeviceTimeout with the caller's message when it passes.
"""
from __future__ import annotations

import time

from ._errors import DeviceTimeout

SPIN_S = 0.001
_FIRST_SLEEP_S = 50e-6
_LONGEST_SLEEP_S = 0.005


def poll_until(check, limit: float, message, start: float | None = None,
               spin: float = SPIN_S):
    """Return the first non-None `check()`; `message()` explains a timeout. `spin`: how
    long to poll without sleeping (0 where the device's own threads need the CPU)."""
    start = time.perf_counter() if start is None else start
    delay = _FIRST_SLEEP_S
    while True:
        result = check()
        if result is not None:
            return result
        waited = time.perf_counter() - start
        if waited > limit:
            raise DeviceTimeout(message())
        if waited >= spin:
            time.sleep(delay)
            delay = min(2 * delay, _LONGEST_SLEEP_S)


async def poll_until_async(check, limit: float, message, start: float | None = None,
                           spin: float = SPIN_S):
    """poll_until under trio: while spinning it only yields to other tasks."""
    import trio
    start = time.perf_counter() if start is None else start
    delay = _FIRST_SLEEP_S
    while True:
        result = check()
        if result is not None:
            return result
        waited = time.perf_counter() - start
        if waited > limit:
            raise DeviceTimeout(message())
        if waited < spin:
            await trio.lowlevel.checkpoint()
        else:
            await trio.sleep(delay)
            delay = min(2 * delay, _LONGEST_SLEEP_S)
