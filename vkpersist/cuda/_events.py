"""numba.cuda's events: points in the device's command stream whose device times can be
compared (`cuda.event()`, `event.record()`, `cuda.event_elapsed_time(start, end)`), from
Vulkan timestamp queries (vk/timestamps.py). Launches run in submission order on the
device's one queue, so an event recorded after a launch is written once that launch (and
everything before it) has completed."""
from __future__ import annotations

from ..vk.context import default_context
from ..vk.timestamps import Timestamp, elapsed_ms


class Event:
    """A point in the command stream of the device in use when the event was made."""

    def __init__(self, timing: bool = True):
        self.timing = timing
        self._stamp = Timestamp(default_context())

    def record(self, stream=0) -> None:
        """Mark this point of the stream: the event completes when all work submitted
        before it has (returns at once)."""
        self._stamp.record()

    def query(self) -> bool:
        """Whether the work before the event has completed (never waits)."""
        return self._stamp.done()

    def synchronize(self) -> None:
        """Wait (with the context's timeout) until the event has completed: here, until all
        work submitted so far has, since the device has one queue."""
        if not self._stamp.done():
            self._stamp.ctx.synchronize()

    def wait(self, stream=0) -> None:
        """Make later work of `stream` wait for the event: already so (one queue, in order)."""

    def elapsed_time(self, end: "Event") -> float:
        """Device milliseconds from this event to `end` (numba.cuda's units); waits for
        both to complete."""
        return event_elapsed_time(self, end)

    def __repr__(self) -> str:
        state = "recorded" if self._stamp.recorded else "not recorded"
        return f"<vkpersist.cuda.Event ({state}) on {self._stamp.ctx.info.name}>"


def event(timing: bool = True) -> Event:
    """A new event (numba.cuda's `cuda.event(timing=True)`)."""
    return Event(timing)


def event_elapsed_time(evtstart: Event, evtend: Event) -> float:
    """Device milliseconds between two recorded events, as numba.cuda's."""
    for name, e in (("evtstart", evtstart), ("evtend", evtend)):
        if not isinstance(e, Event):
            raise TypeError(f"event_elapsed_time({name}=...) takes cuda.event() objects, got "
                            f"{type(e).__name__}")
        if not e.timing:
            raise ValueError(f"event_elapsed_time: {name} was made with timing=False")
    return elapsed_ms(evtstart._stamp, evtend._stamp)
