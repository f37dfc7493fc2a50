"""Waits: the one check of every timeout a user gives, and waiting for a word the GPU
writes into host memory (spin briefly, then back off).

A sleep costs 50+ µs of latency, so a waiter polls without sleeping for SPIN_S, then
sleeps 50 µs, doubling up to 5 ms, so an idle waiter costs little CPU (and Ctrl-C is seen
within 5 ms). Every wait has a limit and raises DeviceTimeout with the caller's message
when it passes; the limit `math.inf` waits until the condition holds.
"""
from __future__ import annotations

import numbers
import time

from ._errors import DeviceTimeout

SPIN_S = 0.001
_FIRST_SLEEP_S = 50e-6
_LONGEST_SLEEP_S = 0.005


def check_timeout(value, what: str = "timeout") -> float:
    """`value` as seconds, if it is a valid timeout: a positive number (int, float, NumPy
    scalar), or `math.inf` for no timeout (the wait lasts until the work is done and stays
    interruptible by Ctrl-C). Every timeout a user gives goes through here, so all of them
    accept and refuse the same values; `what` names the parameter in the error."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        seconds = float(value)
        if seconds > 0:                 # false for NaN too
            return seconds
        raise ValueError(f"{what} must be a positive number of seconds, or math.inf for no "
                         f"timeout; got {value!r}")
    raise TypeError(f"{what} must be a positive number of seconds (int or float), or math.inf "
                    f"for no timeout; got {value!r} of type {type(value).__name__}")


def poll_until(check, limit: float, message, start: float | None = None,
               spin: float = SPIN_S):
    """Return the first non-None `check()`; `message()` explains a timeout. `spin`: how
    long to poll without sleeping (0 where the device's own threads need the CPU)."""
    limit = check_timeout(limit)
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
    """poll_until under trio: while spinning it only yields to other tasks. Like every
    trio function it yields at least once, also when the result is there at once (a
    reader of frames that are always ready would otherwise starve every other task), but
    that yield is not a cancellation point: a frame taken by `check()` is never lost."""
    import trio
    limit = check_timeout(limit)
    start = time.perf_counter() if start is None else start
    delay = _FIRST_SLEEP_S
    first = True
    while True:
        result = check()
        if result is not None:
            if first:
                await trio.lowlevel.cancel_shielded_checkpoint()
            return result
        first = False
        waited = time.perf_counter() - start
        if waited > limit:
            raise DeviceTimeout(message())
        if waited < spin:
            await trio.lowlevel.checkpoint()
        else:
            await trio.sleep(delay)
            delay = min(2 * delay, _LONGEST_SLEEP_S)
