"""What every lesson shares: its command line (`--size`, `--steps`, `--out`) and its
pictures, which open in a window when there is a display and are always saved as PNGs in
`--out` (so a lesson run over ssh or in CI leaves something to look at)."""
from __future__ import annotations

import argparse
import os
import pathlib


def parse(doc: str, size: int, steps: int | None = None, size_help: str = "problem size",
          steps_help: str = "steps"):
    """The lesson's arguments; small defaults so that every lesson runs in well under a
    minute on the CPU (lavapipe). Pass larger values on a GPU."""
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=size, help=f"{size_help} (default {size})")
    if steps is not None:
        ap.add_argument("--steps", type=int, default=steps, help=f"{steps_help} (default {steps})")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("tutorials-out"),
                    help="folder for the pictures (default tutorials-out)")
    args = ap.parse_args()
    if args.size < 1 or (steps is not None and args.steps < 1):
        ap.error("--size and --steps must be >= 1")
    return args


def pyplot():
    """matplotlib's pyplot, with the Agg backend (files only) when there is no display."""
    import matplotlib
    if "MPLBACKEND" not in os.environ and not (os.environ.get("DISPLAY")
                                                or os.environ.get("WAYLAND_DISPLAY")):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def interactive() -> bool:
    """Whether figures can open in a window (a display and an interactive backend)."""
    import matplotlib
    return matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo", "template")


def save(fig, out: pathlib.Path, name: str) -> pathlib.Path:
    """Save `fig` as out/name.png, print where, and show it when there is a display."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.png"
    fig.savefig(path, dpi=90, bbox_inches="tight")
    print(f"wrote {path}")
    if interactive():
        pyplot().show()
    return path
