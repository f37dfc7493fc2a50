"""MemSock: frames written by kernels, read by the host in order, never torn or lost."""
import numpy as np
import pytest
import trio

import vkpersist as vkp


@vkp.kernel
def fill_frame(sock: vkp.Socket, base: vkp.u32):
    i = vkp.global_id(0)
    if i < 1024:
        sock.frame[i] = sock.seq * 7 + base      # every element carries the frame's number
    if i == 0:
        sock.step = sock.seq
    sock.commit()


def _check(frame, base=0):
    want = (frame.seq * 7 + base) & 0xFFFFFFFF
    assert (frame.data == want).all(), f"frame {frame.seq} is torn or stale"
    assert frame.payload["step"] == frame.seq


def test_ten_thousand_frames_in_order_through_wraparound(ctx):
    """The ordering/tearing litmus: 10,000 frames of 1024 words, each written by 16
    workgroups, through a ring of 4 slots, all checked on the host."""
    sock = vkp.MemSock("litmus", np.uint32, 1024, capacity=4, policy="block",
                       payload={"step": vkp.u32}, ctx=ctx)
    n, read = 10_000, 0
    for k in range(n):
        fill_frame[16, 64](sock, 0)
        if sock.head - sock.tail >= sock.capacity:       # keep the ring flowing
            frame = sock.wait(timeout=30)
            assert frame.seq == read
            _check(frame)
            frame.release()
            read += 1
    while read < n:
        with sock.wait(timeout=30) as frame:
            assert frame.seq == read
            _check(frame)
        read += 1
    assert sock.poll() is None and sock.dropped == 0
    sock.free()


def test_drop_policy_counts_exactly(ctx):
    sock = vkp.MemSock("drops", np.uint32, 1024, capacity=3, policy="drop",
                       payload={"step": vkp.u32}, ctx=ctx)
    for _ in range(10):
        fill_frame[16, 64](sock, 5)
    ctx.synchronize()
    frames = [sock.wait(timeout=10) for _ in range(3)]
    assert [f.seq for f in frames] == [0, 1, 2] and sock.dropped == 7
    for f in frames:
        _check(f, 5)
        f.release()
    fill_frame[16, 64](sock, 5)            # space again: the next frame is seq 3
    with sock.wait(timeout=10) as f:
        assert f.seq == 3
        _check(f, 5)
    assert sock.poll() is None
    sock.free()


def test_block_policy_times_out_instead_of_hanging(ctx):
    sock = vkp.MemSock("blocked", np.uint32, 1024, capacity=2, policy="block",
                       payload={"step": vkp.u32}, ctx=ctx)
    fill_frame[16, 64](sock, 0)
    fill_frame[16, 64](sock, 0)
    old = ctx.timeout
    ctx.timeout = 0.2
    try:
        with pytest.raises(vkp.DeviceTimeout, match="'blocked' is full .* policy is 'block'"):
            fill_frame[16, 64](sock, 0)
    finally:
        ctx.timeout = old
    with pytest.raises(vkp.DeviceTimeout, match="no frame within 0.05 s"):
        empty = vkp.MemSock("empty", np.float32, 4, ctx=ctx)
        empty.wait(timeout=0.05)
    sock.free()


def test_frame_views_copies_and_release_order(ctx):
    sock = vkp.MemSock("views", np.uint32, 1024, capacity=2, policy="block",
                       payload={"step": vkp.u32}, ctx=ctx)
    fill_frame[16, 64](sock, 1)
    fill_frame[16, 64](sock, 1)
    a, b = sock.wait(10), sock.wait(10)
    kept = a.copy()
    b.release()                       # out of order: slot 0 is still held by a
    assert sock.tail == 0
    a.release()
    assert sock.tail == 2
    assert (kept == 1).all()
    for use in (lambda: a.data, a.copy):
        with pytest.raises(vkp.VkPersistError, match="frame 0 of MemSock 'views' was released: "
                                                     ".*take frame.copy\\(\\) before release"):
            use()
    assert a.payload == {"step": 0}       # a copy, still there
    sock.free()


def test_a_frame_held_when_its_ring_is_freed_refuses_its_data(ctx):
    """Issue 53: frame.data after sock.free() returned the freed ring's contents."""
    sock = vkp.MemSock("freed", np.uint32, 256, capacity=2, payload={"step": vkp.u32}, ctx=ctx)
    fill_frame[4, 64](sock, 7)
    frame = sock.wait(10)
    kept = frame.copy()
    sock.free()
    for use in (lambda: frame.data, frame.copy):
        with pytest.raises(vkp.VkPersistError, match="frame 0 of MemSock 'freed': its ring "
                                                     "was freed"):
            use()
    assert (kept == 7).all() and frame.payload == {"step": 0}
    frame.release()                       # harmless after the free


@vkp.kernel
def image_frame(sock: vkp.Socket, field: vkp.Array[vkp.f32, 2]):
    x = vkp.global_id(0)
    y = vkp.global_id(1)
    if y < field.shape[0] and x < field.shape[1]:
        sock.frame[y, x] = field[y, x] * 2.0
    sock.commit()


def test_2d_frames_under_trio(ctx):
    field = ctx.asarray(np.arange(12 * 20, dtype=np.float32).reshape(12, 20))
    sock = vkp.MemSock("image", np.float32, (12, 20), capacity=8, ctx=ctx)

    async def main():
        got = []
        async with trio.open_nursery() as nursery:
            async def produce():
                for _ in range(6):
                    image_frame[(3, 2), (8, 8)](sock, field)
                    await trio.sleep(0.001)
            nursery.start_soon(produce)
            async for frame in sock.frames(timeout=10):
                got.append(frame.copy())
                frame.release()
                if len(got) == 6:
                    break
        return got

    frames = trio.run(main)
    for f in frames:
        np.testing.assert_array_equal(f, field.numpy() * 2)
    sock.free()


def test_kernel_mistakes(ctx):
    @vkp.kernel
    def no_commit(sock: vkp.Socket):
        sock.frame[0] = 1.0

    @vkp.kernel
    def commit_in_branch(sock: vkp.Socket):
        if vkp.global_id(0) == 0:
            sock.commit()

    @vkp.kernel
    def bad_payload(sock: vkp.Socket):
        sock.temperature = 1.0
        sock.commit()

    sock = vkp.MemSock("m", np.float32, 4, ctx=ctx)
    with pytest.raises(vkp.CompileError, match="never committed"):
        no_commit[1, 1](sock)
    with pytest.raises(vkp.CompileError, match="must be called exactly once"):
        commit_in_branch[1, 1](sock)
    with pytest.raises(vkp.CompileError, match="no payload field 'temperature'"):
        bad_payload[1, 1](sock)
    assert sock.head == 0, "a launch that failed to compile must not reserve a frame"
    sock.free()


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(dtype=np.complex64, frame_shape=4), TypeError, "frames of complex64 are not supported"),
    (dict(dtype=np.float32, frame_shape=(0,)), ValueError, "frame_shape must have 1-3 positive"),
    (dict(dtype=np.float32, frame_shape=4, capacity=0), ValueError, "capacity must be a positive"),
    (dict(dtype=np.float32, frame_shape=4, policy="wait"), ValueError, "valid policies: drop, block"),
    (dict(dtype=np.float32, frame_shape=4, payload={"t": vkp.f64}), TypeError, "must be vkp.i32"),
])
def test_declaration_mistakes(ctx, kwargs, error, match):
    with pytest.raises(error, match=match):
        vkp.MemSock("bad", ctx=ctx, **kwargs)


def test_handlers_served_under_trio(ctx):
    field = ctx.asarray(np.arange(12 * 20, dtype=np.float32).reshape(12, 20))
    sock = vkp.MemSock("image", np.float32, (12, 20), capacity=8, ctx=ctx)
    sums = []

    @sock.on("frame")
    def total(frame):
        sums.append(float(frame.data.sum()))

    async def main():
        done = trio.Event()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sock.serve, done, 10)
            for _ in range(3):
                image_frame[(3, 2), (8, 8)](sock, field)
                await trio.sleep(0.001)
            ctx.synchronize()
            done.set()                  # serve handles what is published, then returns

    trio.run(main)
    assert sums == [float(field.numpy().sum() * 2)] * 3
    with pytest.raises(TypeError, match="decorates a function"):
        sock.on("frame")(42)
    sock.free()


def test_frames_in_caller_provided_host_pages(ctx):
    if not ctx.info.external_memory_host:
        pytest.skip("the device cannot import host memory")
    field = ctx.asarray(np.arange(12 * 20, dtype=np.float32).reshape(12, 20))
    ring = vkp.lowlevel.host_array((4, 12, 20), np.float32)
    sock = vkp.MemSock("image", np.float32, (12, 20), capacity=4, ctx=ctx, frames=ring)
    image_frame[(3, 2), (8, 8)](sock, field)
    with sock.wait(10) as frame:
        np.testing.assert_array_equal(frame.data, field.numpy() * 2)
        assert np.shares_memory(frame.data, ring)          # the device wrote into `ring`
    np.testing.assert_array_equal(ring[0], field.numpy() * 2)
    sock.free()
    with pytest.raises(ValueError, match=r"frames must be a float32 array of shape \(4, 12, 20\)"):
        vkp.MemSock("image", np.float32, (12, 20), capacity=4, ctx=ctx,
                    frames=vkp.lowlevel.host_array((4, 12, 21), np.float32))
    with pytest.raises(ValueError, match="allocate it with vkp.lowlevel.host_array"):
        vkp.MemSock("image", np.float32, (12, 20), capacity=4, ctx=ctx,
                    frames=np.zeros((5, 12, 20), np.float32)[1:])


@vkp.kernel
def narrow_frame(sock: vkp.Socket, field: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < field.shape[0]:
        sock.frame[i] = field[i]          # narrowed to the frame's dtype at the store
    sock.commit()


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16, np.float16])
def test_narrow_frames_from_kernels_and_programs(ctx, device_info, dtype):
    """8- and 16-bit frames (images, compact fields): stored narrow, computed in 32 bits,
    the same values NumPy's conversion gives, from a kernel and from a program stage in
    both modes."""
    dtype = np.dtype(dtype)
    if not (device_info.storage8 if dtype.itemsize == 1 else device_info.storage16):
        with pytest.raises(vkp.UnsupportedError, match=f"frames of {dtype} need"):
            vkp.MemSock("narrow", dtype, 16, ctx=ctx)
        return
    values = (np.arange(64) % 100).astype(np.float32) - (30 if dtype.kind == "i" else 0)
    want = values.astype(dtype)
    sock = vkp.MemSock("narrow", dtype, 64, capacity=2, ctx=ctx)
    narrow_frame[1, 64](sock, ctx.asarray(values))
    with sock.wait(timeout=10) as frame:
        assert frame.data.dtype == dtype
        np.testing.assert_array_equal(frame.data, want)
    sock.free()
    for mode in ("launch", "persistent"):
        prog = vkp.Program(ctx, name="narrow")
        a = prog.array("a", (8, 8), np.float32, init=values.reshape(8, 8))
        out = prog.memsock("out", dtype, (8, 8), capacity=2, payload={"step": vkp.u32})

        @prog.stage(domain=(8, 8))
        def emit(i, j):
            out.frame[i, j] = a[i, j]
            if i == 0 and j == 0:
                out.step = prog.step

        prog.loop(emit)
        prog.run(1, mode=mode)
        with out.wait(timeout=10) as frame:
            np.testing.assert_array_equal(frame.data, want.reshape(8, 8))
        prog.free()
