"""Two devices, one set of host pages: an FDTD run on device A streams |E| slices into
vkp.SharedPages; device B colour-maps each slice in place, marks its hot cells, and writes
the image into a second set of shared pages; the CPU writes the PNGs. No frame is copied.

    python -m examples.pipeline [--out pipeline_out] [--size 32] [--steps 240]
                                [--producer SEL] [--consumer SEL]

SEL: a device index, kind or name part; by default A is the best device and B the next
best (on a machine with one device: two Contexts on it, each its own logical device).
docs/pipelines.md explains the memory model.
"""
from __future__ import annotations

import argparse
import math
import os

import numpy as np
import trio

import vkpersist as vkp

from .fdtd3d import Dipole, Material, Simulation, Sphere

HOT = 0xFFFFFF00          # cyan, opaque (packed RGBA, R in the low byte)


@vkp.kernel
def colour(frame: vkp.Array[vkp.f32, 2], lut: vkp.Array[vkp.u32], image: vkp.Array[vkp.u32, 2],
           vmax: vkp.f32, hot: vkp.f32):
    """B's work on one slice: |E| / vmax through a colour table; hot cells (|E| > hot) cyan."""
    x = vkp.global_id(0)
    y = vkp.global_id(1)
    if y < frame.shape[0] and x < frame.shape[1]:
        v = frame[y, x]
        k = vkp.clamp(vkp.i32(v / vmax * 255.0), 0, 255)
        image[y, x] = vkp.select(v > hot, vkp.u32(HOT), lut[k])


def colour_table() -> np.ndarray:
    """Matplotlib's inferno as 256 packed RGBA words (little-endian: R in the low byte)."""
    from matplotlib import colormaps
    rgba = (colormaps["inferno"](np.linspace(0, 1, 256)) * 255).round().astype(np.uint32)
    return rgba[:, 0] | rgba[:, 1] << 8 | rgba[:, 2] << 16 | rgba[:, 3] << 24


def colour_numpy(frame, lut, vmax, hot):
    """The same map in NumPy: what B's images are checked against."""
    k = np.clip((frame / np.float32(vmax) * np.float32(255.0)).astype(np.int32), 0, 255)
    return np.where(frame > np.float32(hot), np.uint32(HOT), lut[k])


def devices(producer, consumer):
    def sel(s):
        return int(s) if s is not None and s.isdigit() else s
    a = vkp.Context(sel(producer))
    if consumer is not None:
        return a, vkp.Context(sel(consumer))
    rest = [d for d in vkp.list_devices() if d.index != a.info.index]
    return a, vkp.Context(rest[0].index if rest else a.info.index)


def scene(ctx, n: int, every: int, pages) -> Simulation:
    """A dielectric sphere (eps_r 6) lit by a 30 GHz dipole (10-cell wavelength), in a
    CPML box of n³ cells of 1 mm; the |E| slice through the centre streams into `pages`."""
    sim = Simulation(shape=(n, n, n), spacing=1e-3, ctx=ctx, snap_every=every)
    c = n / 2 * 1e-3
    sim.add(Sphere((c + 4e-3, c, c), n / 6 * 1e-3), Material(eps_r=6.0))
    sim.add_source(Dipole((c - n / 4 * 1e-3, c, c), "z", "sine", 3.0e10))
    sim.add_slice("|e|", "z", c, name="abs_e", frames=pages)
    return sim


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="pipeline_out")
    parser.add_argument("--size", type=int, default=32)
    parser.add_argument("--steps", type=int, default=240)
    parser.add_argument("--every", type=int, default=8)
    parser.add_argument("--hot", type=float, default=1.0,
                        help="hot cells: |E| above this many times the colour scale")
    parser.add_argument("--producer", default=None)
    parser.add_argument("--consumer", default=None)
    args = parser.parse_args(argv)
    a, b = devices(args.producer, args.consumer)
    print(f"A (FDTD):    {a.info.name}\nB (colours): {b.info.name}")
    if a.info.index == b.info.index:
        print("one device here: A and B are two Contexts (two logical devices) on it")
    n, frames = args.size, args.steps // args.every
    plane = (n + 1, n + 1)                       # the z slice through the nodes
    slices = vkp.SharedPages(8 * math.prod(plane) * 4)      # A's ring of 8 slices
    images = vkp.SharedPages(frames * math.prod(plane) * 4)  # B's images, one per slice
    sim = scene(a, n, args.every, slices)
    sock = sim.build().sockets["abs_e"]
    lut = b.asarray(colour_table())
    out = images.array(b, np.uint32, (frames, *plane))
    scale = {}

    def consume(frame, data):
        """On the host: pick the colour scale (the 98th percentile of |E|, so that the
        dipole's own cell does not darken the rest) from A's slice, a NumPy view of the
        shared pages; then launch B's kernel on the same pages."""
        k = frame.seq
        scale[k] = max(float(np.percentile(frame.data, 98)), 1e-30)
        colour[(math.ceil(plane[1] / 8), math.ceil(plane[0] / 8)), (8, 8)](
            data, lut, out[k], scale[k], args.hot * scale[k])

    relay = vkp.Relay(sock, b, consume)
    sock.on("frame")(relay.handle)

    async def run():
        async with sim.session(frames * args.every) as session:
            await session.wait()

    trio.run(run)
    relay.close()
    b.synchronize()
    got = relay.consumed
    pictures = images.numpy(np.uint32, (frames, *plane))
    kept = sim.frames["abs_e"]                  # A's slices as the FDTD example keeps them
    for k, (step, field) in enumerate(kept[:got]):
        np.testing.assert_array_equal(pictures[k], colour_numpy(
            field, colour_table(), scale[k], np.float32(args.hot) * np.float32(scale[k])))
    print(f"{got} slices: A's frames went to B through the shared pages, B's images match "
          "NumPy's colour map of A's slices")
    write_pngs(args.out, pictures[:got], [s for s, _ in kept[:got]])
    del pictures, out, kept
    sim.prog.free()
    slices.free()
    images.free()


def write_pngs(folder, pictures, steps) -> None:
    """One PNG per slice, and a strip of every fourth, from B's images (NumPy views)."""
    import matplotlib.pyplot as plt
    os.makedirs(folder, exist_ok=True)
    rgba = pictures.view(np.uint8).reshape(*pictures.shape, 4).transpose(0, 2, 1, 3)   # x across
    for img, step in zip(rgba, steps):          # 8x8 pixels per cell
        plt.imsave(os.path.join(folder, f"abs_e_{step:05d}.png"),
                   img.repeat(8, axis=0).repeat(8, axis=1), origin="lower")
    pick = list(range(0, len(rgba), 4))
    fig, axes = plt.subplots(1, len(pick), figsize=(2 * len(pick), 2.3))
    for ax, k in zip(np.atleast_1d(axes), pick):
        ax.imshow(rgba[k], origin="lower", interpolation="nearest")
        ax.set_title(f"step {steps[k]}", fontsize=8)
        ax.axis("off")
    fig.suptitle("|E| in the z mid-plane, coloured on device B (cyan: hot cells)", fontsize=9)
    fig.savefig(os.path.join(folder, "strip.png"), dpi=100, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {len(rgba)} PNGs and strip.png to {folder}/")


if __name__ == "__main__":
    main()
