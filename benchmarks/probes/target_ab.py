"""A/B of device-target knobs on the megakernel: the FDTD update and the heat stencil, each
size run with the device's own target (vkpersist.vk.target.Target) and with the knobs
changed, alternating in one process so that both see the same clocks and neighbours.

    python benchmarks/probes/target_ab.py ordered_from=1 [grid_barrier=fence ...] [shape=37x1024]
        [--fdtd 32 64] [--updates fused split] [--stencil 32 64] [--stencils two-stage fused]
        [--groups G --local L] [--rounds 2] [--seconds 0.3] [--launch] [--graph]

A knob is any field of Target that holds a bool, an int or a str (`ordered_from=1` hands
every stage's indices out in order, `grid_barrier=fence`, `dedicated_planner_from=none`),
or `shape=GROUPSxLOCAL`, the megakernel's workgroups and their size (the default arm keeps
the runner's choice, or --groups / --local). Rows: FDTD in Mcells/s (benchmarks/fdtd.py's
scene, `prog.run` persistent), the stencil in steps/s (benchmarks/programs.py's two-sweep
program, or its fused form); the ratio of the changed arm's best round to the default's;
whether the two arms' states after 100 steps are bit-identical, as every adopted knob must
be. `--graph` adds the CUDA graph of the same step each round (CuPy on an NVIDIA device),
the baseline issue 21's targets are stated against, measured beside the arms (and whether
the states match it); `--launch` adds the update's launch mode as a reference. The
megakernels are built per row, so a knob the code generator reads (most of them) takes
effect."""
from __future__ import annotations

import argparse
import dataclasses
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))    # benchmarks/
import fdtd as F                                   # noqa: E402  (benchmarks/fdtd.py)
import programs as P                               # noqa: E402  (benchmarks/programs.py)
import vkpersist as vkp                            # noqa: E402
from _common import cupy_or_none                   # noqa: E402
from _device import selector                       # noqa: E402
from vkpersist.vk.target import Target             # noqa: E402

STENCILS = {"two-stage": P.make_program, "fused": P.make_fused_program}
TRUE, FALSE = ("1", "true", "on", "yes"), ("0", "false", "off", "no")


@dataclasses.dataclass(frozen=True)
class Arm:
    """One side of the A/B: the device target and the megakernel's launch shape (None:
    the runner's choice)."""
    target: Target
    groups: int | None = None
    local: int | None = None


def parse_knob(text: str) -> tuple[str, object]:
    """`name=value` as (field, value of the field's declared type), `shape=GxL` as
    ("shape", (G, L)), or SystemExit naming the choices."""
    kinds = {f.name: f.type for f in dataclasses.fields(Target)
             if f.name != "name" and f.type in ("bool", "int", "str", "int | None")}
    name, sep, value = text.partition("=")
    if not sep or name not in [*kinds, "shape"]:
        sys.exit(f"target_ab.py: {text!r} is not a knob; give name=value with a name among "
                 f"{', '.join(kinds)}, or shape=GROUPSxLOCAL")
    low = value.strip().lower()
    if name == "shape":
        groups, _, local = low.partition("x")
        if not (groups.isdigit() and local.isdigit() and int(groups) and int(local)):
            sys.exit(f"target_ab.py: shape is GROUPSxLOCAL, two positive integers such as "
                     f"37x1024; got {value!r}")
        return name, (int(groups), int(local))
    kind = kinds[name]
    if kind == "bool":
        if low not in TRUE + FALSE:
            sys.exit(f"target_ab.py: {name} is a bool; give one of {', '.join(TRUE + FALSE)}")
        return name, low in TRUE
    if kind == "str":
        return name, value
    if low == "none" and kind == "int | None":
        return name, None
    try:
        return name, int(value.replace("_", ""))
    except ValueError:
        sys.exit(f"target_ab.py: {name} is an int{' or none' if 'None' in kind else ''}; "
                 f"got {value!r}")


def same(a, b) -> str:
    equal = all(np.array_equal(a[k], b[k]) for k in a) if isinstance(a, dict) \
        else np.array_equal(a, b)
    return "yes" if equal else "NO"


def alternate(ctx, arms, rounds, title, unit, bench, graph=None):
    """Runs `bench(arm)` (rate, note, state) with each arm in turn, and `graph()` (rate,
    state) after them when given, `rounds` times; prints each row, then the changed arm's
    best over the default's and whether the states agree bit for bit, and each arm's
    best over the graph's."""
    best, states = {}, {}
    rows = [*arms, "graph"] if graph else list(arms)
    for r in range(rounds):
        for label in rows:
            if label == "graph":
                (rate, states[label]), note = graph(), "(CUDA graph)"
            else:
                ctx.target = arms[label].target
                rate, note, states[label] = bench(arms[label])
            best[label] = max(best.get(label, 0.0), rate)
            print(f"{title}  {label:<8} round {r + 1}  {rate:>10,.0f} {unit}  {note}",
                  flush=True)
    ctx.target = arms["default"].target
    print(f"{title}  changed / default {best['changed'] / best['default']:.3f}x"
          f"  bit-identical: {same(states['default'], states['changed'])}", flush=True)
    if graph:
        print(f"{title}  default / graph {best['default'] / best['graph']:.3f}x, changed / "
              f"graph {best['changed'] / best['graph']:.3f}x  bit-identical to the graph: "
              f"{same(states['default'], states['graph'])}", flush=True)


def fdtd_rows(ctx, arms, n, update, args, cp) -> None:
    title = f"fdtd {update:<6} {n:>4}"

    def bench(arm, mode="persistent"):
        rate, state, sim, notes = F.bench_program(
            ctx, n, mode, args.seconds, groups=arm.groups, local=arm.local, update=update)
        sim.prog.free()
        return rate * n ** 3 / 1e6, notes, state

    if cp:                    # the graph's scene (its grid, materials and fields) once
        scene, init = F.scene(ctx, n, update="split")
        scene.prog.free()

    def graph():
        rate, state = F.bench_cupy(cp, scene, init, args.seconds, graph=True)
        return rate * n ** 3 / 1e6, state
    alternate(ctx, arms, args.rounds, title, "Mcells/s", bench, graph if cp else None)
    if args.launch:
        rate = bench(arms["default"], "launch")[0]
        print(f"{title}  launch            {rate:>10,.0f} Mcells/s", flush=True)


def stencil_rows(ctx, arms, n, form, args, cp) -> None:
    init = np.random.default_rng(0).random((n, n, n)).astype(np.float32)
    alternate(ctx, arms, args.rounds, f"stencil {form:<9} {n:>4}", "steps/s",
              lambda arm: P.bench_program(ctx, n, init, "persistent", args.seconds,
                                          arm.groups, arm.local, STENCILS[form]),
              (lambda: P.bench_cuda_graph(cp, n, init, args.seconds)) if cp else None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("knobs", nargs="+",
                    help="name=value: Target fields to change, or shape=GROUPSxLOCAL")
    ap.add_argument("--device", default=None)
    ap.add_argument("--fdtd", type=int, nargs="*", default=[], help="FDTD cells per side")
    ap.add_argument("--updates", nargs="+", choices=("fused", "split"), default=["fused"])
    ap.add_argument("--stencil", type=int, nargs="*", default=[], help="stencil sizes")
    ap.add_argument("--stencils", nargs="+", choices=list(STENCILS), default=list(STENCILS))
    ap.add_argument("--groups", type=int, default=None)
    ap.add_argument("--local", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=0.3)
    ap.add_argument("--launch", action="store_true", help="also the FDTD's launch mode")
    ap.add_argument("--graph", action="store_true",
                    help="also the CUDA graph of the same step each round (CuPy)")
    args = ap.parse_args()
    change = dict(parse_knob(k) for k in args.knobs)
    ctx = vkp.Context(selector(args.device))
    cp = cupy_or_none() if args.graph else None
    if args.graph and cp is None:
        sys.exit("target_ab.py: --graph needs CuPy and a CUDA device; neither was found")
    default = ctx.target
    shape = change.pop("shape", None)
    try:
        changed = dataclasses.replace(default, **change)
    except ValueError as exc:              # a value the field does not take (spirv_opt=...)
        sys.exit(f"target_ab.py: {exc}")
    arms = {"default": Arm(default, args.groups, args.local),
            "changed": Arm(changed, *(shape or (args.groups, args.local)))}
    described = [f"{k}={v!r} (default {getattr(default, k)!r})" for k, v in change.items()]
    if shape:
        described.append(f"shape={shape[0]}x{shape[1]} (default " + (
            f"{args.groups}x{args.local})" if args.groups or args.local
            else "the runner's choice)"))
    print(f"device: {ctx.info.name}; changed: {', '.join(described)}")
    for n in args.fdtd:
        for update in args.updates:
            fdtd_rows(ctx, arms, n, update, args, cp)
    for n in args.stencil:
        for form in args.stencils:
            stencil_rows(ctx, arms, n, form, args, cp)


if __name__ == "__main__":
    main()
