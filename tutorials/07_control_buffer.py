"""Lesson 7: the control buffer: steer a kernel while it runs.

A `vkp.ControlBuffer` holds named words the host writes and running kernels read (and
status words kernels write for the host). Here one long launch renders a Mandelbrot image
tile by tile; each tile reads the `max_iter` knob as it starts. While the launch runs, the
host watches the `progress` status word, turns the knob up a third of the way down the
image and presses `stop` two thirds of the way: the picture shows three bands.

    python tutorials/07_control_buffer.py [--size PIXELS]
"""
import time

import numpy as np

import vkpersist as vkp
from _common import parse, pyplot, save

TILE = 64                                     # pixels per workgroup (one row of a tile)
CENTER, WIDTH = (-0.7453, 0.1127), 0.012      # Seahorse Valley
COARSE, FINE = 1000, 10000                     # the knob's two settings


@vkp.kernel
def mandelbrot(ctrl: vkp.Controls, img: vkp.Array[vkp.i32, 2], used: vkp.Array[vkp.i32, 2],
               tickets: vkp.Array[vkp.i32], x0: vkp.f32, y0: vkp.f32, dx: vkp.f32):
    tile = vkp.shared.array(3, vkp.i32)
    first = vkp.local_id(0) == 0
    if first:
        tile[0] = vkp.atomic.add(tickets, 0, 1)  # tiles go out in order (top to bottom),
        tile[1] = ctrl.max_iter                  # whatever order workgroups start in; one
        tile[2] = ctrl.stop                      # knob read per tile, shared with the tile
    vkp.barrier()
    t = tile[0]
    ty, tx = t // used.shape[1], t % used.shape[1]
    if tile[2] == 0:
        x, y = tx * TILE + vkp.local_id(0), ty
        cr, ci = x0 + x * dx, y0 + y * dx
        zr, zi, n = 0.0, 0.0, 0
        while n < tile[1] and zr * zr + zi * zi <= 4.0:
            zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
            n += 1
        img[y, x] = n
        if first:
            used[ty, tx] = tile[1]               # what this tile ran with, for the check
    if first:
        ctrl.progress = t + 1                    # a status word: tiles handed out


def mandelbrot_numpy(cr, ci, max_iter):
    """Escape counts in float32, the kernel's arithmetic, on the points still iterating."""
    cr, ci = cr.astype(np.float32), ci.astype(np.float32)
    n = np.zeros(cr.shape, np.int32)
    zr, zi = np.zeros_like(cr), np.zeros_like(ci)
    live = np.arange(cr.size)
    for _ in range(max_iter):
        ok = zr[live] * zr[live] + zi[live] * zi[live] <= 4
        live = live[ok]
        if not live.size:
            break
        a, b = zr[live], zi[live]
        zr[live], zi[live] = a * a - b * b + cr[live], np.float32(2) * a * b + ci[live]
        n[live] += 1
    return n


def wait_for(ctrl, tiles, deadline):
    while ctrl["progress"] < tiles and time.perf_counter() < deadline:
        time.sleep(0.0005)


def main():
    args = parse(__doc__, size=256, size_help="image width and height in pixels (a multiple of 64)")
    size = max(TILE, args.size // TILE * TILE)
    ctx = vkp.default_context()
    ctrl = vkp.ControlBuffer(ctx, max_iter=vkp.i32(COARSE), stop=vkp.u32,
                             status={"progress": vkp.u32})
    print(f"control words live in running kernels on this device: {ctrl.live}")
    img = ctx.full((size, size), -1, np.int32)
    used = ctx.full((size, size // TILE), -1, np.int32)
    dx = WIDTH / size
    x0, y0 = CENTER[0] - WIDTH / 2, CENTER[1] - WIDTH / 2

    tickets = ctx.zeros(1, np.int32)
    total = size * (size // TILE)
    mandelbrot[total, TILE](ctrl, img, used, tickets, x0, y0, dx)  # runs on...
    t0 = time.perf_counter()
    wait_for(ctrl, total // 3, t0 + 60)
    ctrl["max_iter"] = FINE                   # ... while the host turns the knob
    knob_at = ctrl["progress"] // (size // TILE)
    wait_for(ctrl, 2 * total // 3, t0 + 60)
    ctrl["stop"] = 1                          # ... and presses stop
    stop_at = ctrl["progress"] // (size // TILE)
    ctx.synchronize()
    print(f"the launch ran {time.perf_counter() - t0:.2f} s after it returned; knob turned "
          f"at row {knob_at}, stop pressed at row {stop_at} of {size}")

    got, used = img.numpy(), used.numpy()
    tiles = {v: int((used == v).sum()) for v in (COARSE, FINE, -1)}
    print(f"tiles rendered with max_iter={COARSE}: {tiles[COARSE]}, with max_iter={FINE}: "
          f"{tiles[FINE]}, skipped after stop: {tiles[-1]}")
    per_pixel = np.repeat(used, TILE, axis=1)
    rows = np.unique(np.linspace(0, size - 1, min(size, 256)).astype(int))  # NumPy is slow
    ys, xs = np.meshgrid(rows, np.arange(size), indexing="ij")
    cr = np.float32(x0) + xs.astype(np.float32) * np.float32(dx)
    ci = np.float32(y0) + ys.astype(np.float32) * np.float32(dx)
    expect = np.full(xs.shape, -1, np.int32)
    for m in (COARSE, FINE):
        sel = per_pixel[rows] == m
        expect[sel] = mandelbrot_numpy(cr[sel], ci[sel], m)
    drawn = expect >= 0
    same = float((got[rows] == expect)[drawn].mean())
    quick = drawn & (expect < 100)
    same_quick = float((got[rows] == expect)[quick].mean())
    print(f"escape counts equal to NumPy's (float32, each tile's max_iter): {same:.1%} of the "
          f"pixels drawn, {same_quick:.2%} of those escaping within 100 iterations")
    assert np.array_equal(got < 0, per_pixel < 0), "a tile skipped after the stop was drawn"
    assert same > 0.8 and same_quick > 0.99, "the image disagrees with NumPy"

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 5))
    inside = got == per_pixel                 # never escaped: in the set (black)
    shade = np.where(inside, 0.0, np.log(np.maximum(got, 1)) / np.log(FINE))
    cmap = plt.get_cmap("magma").copy()
    cmap.set_bad("white")                     # tiles skipped after the stop
    ax.imshow(np.ma.masked_where(got < 0, shade), origin="lower", cmap=cmap, vmin=0, vmax=1,
              interpolation="nearest")
    for row, text in ((knob_at, f"max_iter {COARSE} -> {FINE}"), (stop_at, "stop")):
        ax.axhline(row - 0.5, color="cyan", lw=0.8)
        ax.text(3, row + 2, text, color="cyan", fontsize=8)
    ax.set_title("one launch, steered while it ran")
    save(fig, args.out, "07_control_buffer")
    ctrl.free()
    print("lesson 7 OK")


if __name__ == "__main__":
    main()
