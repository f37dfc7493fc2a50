"""Lesson 8: MemSock: stream frames from the GPU to a live plot.

A `vkp.MemSock` is a ring of frames in host memory: a kernel writes a frame
(`sock.frame[y, x] = v`) and publishes it (`sock.commit()`); the host reads frames in
order, zero-copy, while the GPU keeps computing. Here the GPU plays Conway's Game of Life
and sends every 20th generation to a plot (a window if there is a display, else a
PNG). The ring lets the GPU run ahead of the plot by up to `capacity` frames; the host
reads them in order, each exactly once.

    python tutorials/08_memsock.py [--size CELLS] [--steps GENERATIONS]
"""
import numpy as np

import vkpersist as vkp
from _common import interactive, parse, pyplot, save


@vkp.kernel
def life(src: vkp.Array[vkp.u8, 2], dst: vkp.Array[vkp.u8, 2]):
    x, y = vkp.global_id(0), vkp.global_id(1)
    ny, nx = src.shape[0], src.shape[1]
    if y < ny and x < nx:
        count = 0
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                count += src[(y + dy) % ny, (x + dx) % nx]   # % wraps: a torus
        alive = src[y, x]
        count -= alive
        dst[y, x] = 1 if count == 3 or (alive == 1 and count == 2) else 0


@vkp.kernel
def emit(sock: vkp.Socket, board: vkp.Array[vkp.u8, 2], generation: vkp.u32):
    x, y = vkp.global_id(0), vkp.global_id(1)
    if y < board.shape[0] and x < board.shape[1]:
        sock.frame[y, x] = board[y, x]
    if x == 0 and y == 0:
        sock.generation = generation          # a payload field travels with the frame
    sock.commit()                             # the last workgroup to finish publishes it


def life_numpy(b):
    n = sum(np.roll(np.roll(b, dy, 0), dx, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)) - b
    return ((n == 3) | ((b == 1) & (n == 2))).astype(np.uint8)


def main():
    args = parse(__doc__, size=128, steps=400, size_help="cells per side",
                 steps_help="generations")
    n, every = args.size, 20
    ctx = vkp.default_context()
    sock = vkp.MemSock("board", np.int32, frame_shape=(n, n), capacity=4, policy="block",
                       payload={"generation": vkp.u32})
    start = (np.random.default_rng(3).random((n, n)) < 0.3).astype(np.uint8)
    a, b = ctx.asarray(start), ctx.zeros((n, n), np.uint8)
    grid = ((n + 15) // 16, (n + 15) // 16), (16, 16)

    plt = pyplot()
    live = interactive()
    if live:
        plt.ion()
        fig, ax = plt.subplots()
        img = ax.imshow(start, cmap="binary", interpolation="nearest")
    received = {}                             # generation -> board, for the check
    sent = 0

    def show(frame):
        g = int(frame.payload["generation"])
        received[g] = np.array(frame.data)    # frame.data is a view into the ring: copy
        if live:
            img.set_data(frame.data)
            ax.set_title(f"generation {g}")
            plt.pause(0.001)

    for g in range(1, args.steps + 1):
        life[grid](a, b)                      # asynchronous: the GPU runs ahead of Python
        a, b = b, a
        if g % every == 0:
            emit[grid](sock, a, g)
            sent += 1
        while (frame := sock.poll()) is not None:   # whatever has arrived; never waits
            with frame:                       # the slot is reused once the block ends
                show(frame)
        while sent - len(received) == sock.capacity:    # the GPU is a full ring ahead:
            with sock.wait(timeout=30) as frame:        # wait for the oldest frame
                show(frame)
    while len(received) < sent:
        with sock.wait(timeout=30) as frame:
            show(frame)
    print(f"{len(received)} frames received of {sent} sent, {sock.dropped} dropped")

    ref, bad = start, []
    for g in range(1, args.steps + 1):
        ref = life_numpy(ref)
        if g in received and not np.array_equal(received[g], ref):
            bad.append(g)
    print(f"frames equal to NumPy's Life at their generation: {len(received) - len(bad)} "
          f"of {len(received)}; live cells at the end {int(a.numpy().sum())}, NumPy "
          f"{int(ref.sum())}")
    assert received and not bad and np.array_equal(a.numpy(), ref)
    assert len(received) == args.steps // every and sock.dropped == 0

    if not live:                              # no window: a strip of the frames received
        shown = sorted(received)[:: max(1, len(received) // 6)][:6]
        fig, axes = plt.subplots(1, len(shown), figsize=(2.2 * len(shown), 2.5))
        for ax, g in zip(np.atleast_1d(axes), shown):
            ax.imshow(received[g], cmap="binary", interpolation="nearest")
            ax.set_title(f"generation {g}", fontsize=8)
            ax.set_axis_off()
    save(fig, args.out, "08_memsock")
    sock.free()
    print("lesson 8 OK")


if __name__ == "__main__":
    main()
