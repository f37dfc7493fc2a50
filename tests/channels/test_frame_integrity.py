"""Frame accounting under load (issue: a reserved memsock frame was never published in
persistent mode with two participants, the reader stalled and every later frame counted as
dropped). A program emits one frame per step carrying its step number into a small ring
with policy "drop"; a reader takes frames in order and releases them at random moments,
holding several at a time. Every frame emitted must be received or counted as dropped,
exactly, in order, with its data intact, across many epochs, in both modes and with 1 and
2 participants. VKPERSIST_STRESS_STEPS sets the steps per case (default 300,000, ~20 s a
case on a 2-core lavapipe, hundreds of epochs; 10^6 took 65 s a case)."""
import os
import random
import time

import pytest
import trio

from programs_lib import ticker

STEPS = int(os.environ.get("VKPERSIST_STRESS_STEPS", "300000"))
CASES = [("persistent", 1), ("persistent", 2), ("launch", None)]


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("mode, groups", CASES, ids=[f"{m}-{g}" for m, g in CASES])
def test_every_frame_is_received_or_counted_dropped(ctx, mode, groups):
    prog, sock, count = ticker(ctx, capacity=4)
    rng = random.Random(STEPS + (groups or 0))
    got, held = [], []

    async def main():
        stalled_since = time.perf_counter()
        progress = None
        async with prog.session(mode=mode, steps=STEPS, groups=groups) as run:
            while len(got) + sock.dropped < STEPS:
                if held and rng.random() < 0.3:             # release some, in any order
                    rng.shuffle(held)
                    for frame in held[:rng.randint(1, len(held))]:
                        frame.release()
                    held[:] = [f for f in held if not f._released]
                frame = sock.poll()
                if frame is None:
                    now = time.perf_counter()
                    if (len(got), sock.dropped) != progress:
                        progress, stalled_since = (len(got), sock.dropped), now
                    assert now - stalled_since < 10, (
                        f"the reader stalled at frame {sock.next_read}: received {len(got)}, "
                        f"dropped {sock.dropped}, {run.steps_done} steps done")
                    await trio.sleep(0)
                    continue
                step = int(frame.payload["step"])
                data = frame.data
                assert data[0] == step and data[1] == step + 1, (step, data)
                assert not got or step > got[-1], (got[-1], step)
                got.append(step)
                held.append(frame)
                if rng.random() < 0.01:
                    await trio.sleep(0.0005)                # a slow moment of the reader
            for frame in held:
                frame.release()

    trio.run(main)
    assert len(got) + sock.dropped == STEPS
    assert prog.steps_done == STEPS and int(count.numpy()[0]) == STEPS
    assert len(got) > 1000 and sock.dropped > 1000       # both paths were exercised
    if mode == "persistent":
        assert prog._runner.epochs > 10
    prog.free()
