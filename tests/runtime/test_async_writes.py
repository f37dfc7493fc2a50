"""Writes into 'device' arrays (fills, uploads, device copies) are queued behind the pending
launches instead of waiting for them (vk/commands.submit_now, vk/staging.py), and stay in
order with them: a launch queued before a write reads the old contents, one after it the new.
Host-visible kinds are for host access: their writes wait, so a numpy_view shows them."""
import numpy as np
import pytest

import vkpersist as vkp
from vkpersist.vk import staging

N = 1 << 18


@vkp.kernel
def slow_double(src, dst, rounds):
    """dst = 2 * src, after `rounds` multiplications by one: long enough on lavapipe that the
    writes below find it still pending."""
    i = vkp.global_id(0)
    if i < src.shape[0]:
        v = src[i]
        for _ in range(rounds):
            v = v * 1.0
        dst[i] = v * 2.0


class _NoWaits:
    """Fails the test if anything waits for the device while active."""

    def __init__(self, core, monkeypatch):
        self.active = False
        wait_all = core._wait_all

        def guarded(*args):
            if self.active:
                raise AssertionError("a write waited for the pending launches")
            return wait_all(*args)
        monkeypatch.setattr(core, "_wait_all", guarded)


def test_writes_do_not_wait_and_keep_their_order(ctx, monkeypatch):
    memory = "device"
    ramp = np.arange(N, dtype=np.float32)
    src = ctx.asarray(ramp, memory=memory)
    dst = ctx.empty(N, memory=memory)
    other = ctx.asarray(ramp[::-1].copy(), memory=memory)
    slow_double.forall(N)(src, dst, 400)            # compiles and warms up
    ctx.synchronize()
    guard = _NoWaits(ctx._core, monkeypatch)

    guard.active = True
    slow_double.forall(N)(src, dst, 400)            # reads the ramp
    src.fill(7.0)                                   # queued behind it
    zeros = ctx.zeros(N, memory=memory)
    uploaded = ctx.asarray(ramp + 0.5, memory=memory)
    part = ctx.empty(N, memory=memory)
    part.copy_from(other)                           # device to device
    part[:1000] = np.float32(-1.0)                  # a view's upload
    slow_double.forall(N)(src, zeros, 400)          # sees the fill: zeros = 14 everywhere
    guard.active = False

    np.testing.assert_array_equal(dst.numpy(), 2 * ramp)
    np.testing.assert_array_equal(src.numpy(), np.full(N, 7.0, np.float32))
    np.testing.assert_array_equal(zeros.numpy(), np.full(N, 14.0, np.float32))
    np.testing.assert_array_equal(uploaded.numpy(), ramp + 0.5)
    expect = ramp[::-1].copy()
    expect[:1000] = -1.0
    np.testing.assert_array_equal(part.numpy(), expect)


def test_eight_byte_fill_is_queued_too(ctx, monkeypatch):
    if not ctx.info.int64:
        pytest.skip("no 64-bit integers on this device")
    x = ctx.asarray(np.arange(N, dtype=np.float32))
    y = ctx.empty(N)
    wide = ctx.empty(1000, np.int64)
    guard = _NoWaits(ctx._core, monkeypatch)
    guard.active = True
    slow_double.forall(N)(x, y, 10)
    wide.fill(-(1 << 40))
    guard.active = False
    np.testing.assert_array_equal(wide.numpy(), np.full(1000, -(1 << 40)))


@pytest.mark.parametrize("dtype", ["complex64", "float64", "complex128"])
@pytest.mark.parametrize("value", [0, 1 + 2j], ids=["zero", "nonzero"])
def test_a_queued_fill_of_wide_elements_uploads_at_most_a_seed(ctx, monkeypatch, dtype,
                                                                value):
    """Zeros of any type are one repeated word (vkCmdFillBuffer); other 8- and 16-byte
    values upload 64 KiB of elements and copy them on the device (a complex64 `zeros` of
    275 MB took 77 ms through the host on an H100)."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 16 or dtype == np.float64:
        if not ctx.info.float64:
            pytest.skip("no float64 on this device")
    value = dtype.type(value.real if dtype.kind == "f" else value)
    n = 100_003                                   # several doublings, the last one partial
    x, y = ctx.asarray(np.arange(N, dtype=np.float32)), ctx.empty(N)
    wide = ctx.empty(n, dtype)
    slow_double.forall(N)(x, y, 400)              # compiles and warms up
    ctx.synchronize()
    uploaded = []
    ring = ctx._staging()
    upload = ring.upload
    monkeypatch.setattr(ring, "upload", lambda buf, raw, offset=0: (
        uploaded.append(raw.size), upload(buf, raw, offset=offset)))
    guard = _NoWaits(ctx._core, monkeypatch)
    guard.active = True
    slow_double.forall(N)(x, y, 400)              # pending: the fill is queued
    wide.fill(value)
    guard.active = False
    np.testing.assert_array_equal(wide.numpy(), np.full(n, value, dtype))
    assert sum(uploaded) <= (0 if value == 0 else 1 << 16)


def test_an_empty_fill_records_nothing(ctx, monkeypatch):
    """vkCmdFillBuffer and vkCmdCopyBuffer refuse size 0 (VUID-vkCmdFillBuffer-size-00026)."""
    from vkpersist.vk import commands
    for name in ("fill_words", "repeat_prefix"):
        monkeypatch.setattr(commands, name, lambda *a, _name=name, **k:
                            pytest.fail(f"{_name} recorded"))
    x, y = ctx.asarray(np.arange(N, dtype=np.float32)), ctx.empty(N)
    slow_double.forall(N)(x, y, 10)              # pending: a fill would be queued
    for dtype in ("float32", "complex64", "uint8"):
        ctx.empty(0, dtype).fill(0)
        ctx.empty(8, dtype)[:0].fill(1)
    ctx.synchronize()


def test_queued_uploads_wrap_around_a_bounded_ring(ctx, monkeypatch):
    """Queued uploads take regions of one ring buffer in turn (vk/staging.py); a full ring
    waits for the oldest pending work, so at most RING_MAX bytes are held, and a region is
    never reused while its copy is pending (every value arrives intact)."""
    monkeypatch.setattr(staging, "RING_MIN", 1 << 16)
    monkeypatch.setattr(staging, "RING_MAX", 1 << 18)
    stager = staging.Staging(ctx._core)
    monkeypatch.setattr(ctx, "_stager", stager)
    x = ctx.asarray(np.arange(N, dtype=np.float32))
    y = ctx.empty(N)
    rng = np.random.default_rng(5)
    outs, expect, sizes = [], [], []
    for k in range(40):
        slow_double.forall(N)(x, y, 400)        # still pending when the upload comes
        n = 1000 if k == 0 else int(rng.integers(1, 16_000))          # up to 64 kB
        host = np.full(n, k, np.float32)
        outs.append(ctx.asarray(host))
        expect.append(host)
        sizes.append(stager._ring.capacity)
        assert stager._held() <= staging.RING_MAX
    assert sizes[0] == 1 << 16 and sizes[-1] == staging.RING_MAX    # it grew
    for out, host in zip(outs, expect):
        np.testing.assert_array_equal(out.numpy(), host)
    ctx.synchronize()
    assert stager._held() == 0


def test_a_dropped_device_array_is_lent_again_while_its_launch_is_pending(ctx, monkeypatch):
    """Stream-ordered reuse (vk/buffer_pool.py): a 'device' array dropped while a launch
    still reads it goes back to the pool at once, and the next array's writes are queued
    behind that launch, so the launch still reads the old values. A 'host' array comes back
    only once the work is done: the host writes it directly."""
    ramp = np.arange(N, dtype=np.float32)
    src = ctx.asarray(ramp)
    dst = ctx.empty(N)
    slow_double.forall(N)(src, dst, 400)          # compiles and warms up
    ctx.synchronize()
    pool = ctx._core.buffer_pool
    guard = _NoWaits(ctx._core, monkeypatch)
    guard.active = True
    slow_double.forall(N)(src, dst, 400)
    lent = src.buffer.serial
    del src
    again = ctx.empty(N)
    assert again.buffer.serial == lent and ctx._core.pending
    again.fill(-3.0)                              # queued behind the launch that reads it
    guard.active = False
    np.testing.assert_array_equal(dst.numpy(), 2 * ramp)
    np.testing.assert_array_equal(again.numpy(), np.full(N, -3.0, np.float32))

    host = ctx.asarray(ramp, memory="host")
    slow_double.forall(N)(host, dst, 400)
    kept = host.buffer.serial
    del host
    assert ctx._core.pending
    assert kept not in {a.serial for allocs in pool.free.values() for a in allocs}
    ctx.synchronize()
    assert kept in {a.serial for allocs in pool.free.values() for a in allocs}


def test_empty_and_chunked_uploads(ctx):
    empty = ctx.asarray(np.zeros(0, np.float32))
    assert empty.numpy().shape == (0,)
    n = staging.CHUNK_BYTES // 4 + 3              # past one chunk: the shared buffer, waiting
    big = np.arange(n, dtype=np.uint32)
    np.testing.assert_array_equal(ctx.asarray(big).numpy(), big)


def test_host_visible_writes_are_seen_by_a_numpy_view_at_once(ctx):
    h = ctx.zeros(4, memory="host")
    view = h.numpy_view()
    x = ctx.asarray(np.arange(N, dtype=np.float32))
    slow_double.forall(N)(x, ctx.empty(N), 400)           # pending
    h.fill(1.0)
    np.testing.assert_array_equal(view, 1.0)
    view[0] = 5.0
    h[1] = 9.0
    h[2:3] = ctx.asarray(np.float32([3.0]), memory="host")
    ctx.synchronize()
    np.testing.assert_array_equal(view, [5.0, 9.0, 3.0, 1.0])


@pytest.mark.parametrize("dtype", [np.int32, np.int8])
def test_a_queued_fill_of_a_prefix_view_stays_in_it(ctx, dtype):
    x = ctx.asarray(np.arange(N, dtype=np.float32))
    z = ctx.zeros(11, dtype)
    slow_double.forall(N)(x, ctx.empty(N), 400)           # pending: the fill is queued
    z[:5].fill(7)
    z[5:7].fill(3)
    np.testing.assert_array_equal(z.numpy(), [7] * 5 + [3] * 2 + [0] * 4)


def test_overlapping_copies_within_one_array(ctx):
    host = np.arange(50, dtype=np.float32)
    a = ctx.asarray(host)
    slow_double.forall(N)(ctx.asarray(np.ones(N, np.float32)), ctx.empty(N), 50)
    a[3:] = a[:-3]
    a[:-5] = a[5:]
    host[3:] = host[:-3].copy()
    host[:-5] = host[5:].copy()
    np.testing.assert_array_equal(a.numpy(), host)


def test_memory_lent_while_pending_never_goes_to_a_host_written_buffer(ctx):
    """A 'device' array dropped while a launch reads it (here the temporary copy of a NumPy
    argument) is lent only to 'device' arrays: the upload ring, made next and written by
    the host at once, must not take it, even where every kind is one memory type
    (lavapipe). Found by review: the launch read the upload's 7.0 instead of 3.0."""
    dst = ctx.zeros(N)
    slow_double.forall(N)(np.full(N, 3.0, np.float32), dst, 2000)
    small = ctx.asarray(np.full(1000, 7.0, np.float32))      # queued: the ring is made now
    np.testing.assert_array_equal(dst.numpy(), np.full(N, 6.0, np.float32))
    np.testing.assert_array_equal(small.numpy(), np.full(1000, 7.0, np.float32))


def test_closing_a_context_frees_the_memory_of_arrays_still_referenced():
    """An array that outlives its Context's close must not keep its mapped memory (and
    with it the device) alive: the allocation holds its mapping weakly."""
    from vkpersist.vk import buffer
    ctx = vkp.Context()
    x = ctx.asarray(np.arange(10, dtype=np.float32))
    r = vkp.sum(x)                                 # a reduction plan holds arrays too
    core = ctx._core
    ctx.close()
    held = buffer._held.get(core)
    assert held is None or (held.mappings == 0 and held.device is None)
    del x, r
