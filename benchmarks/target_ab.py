"""A/B of device-target knobs on the megakernel: the FDTD update and the heat stencil, each
size run with the device's own target (vkpersist.vk.target.Target) and with the knobs
changed, alternating in one process so that both see the same clocks and neighbours.

    python benchmarks/target_ab.py ordered_from=1 [grid_barrier=fence ...]
        [--fdtd 32 64] [--updates fused split] [--stencil 32 64] [--stencils two-stage fused]
        [--groups G --local L] [--rounds 2] [--seconds 0.3] [--launch]

A knob is any field of Target that holds a bool, an int or a str (`ordered_from=1` hands
every stage's indices out in order, `grid_barrier=fence`, `dedicated_planner_from=none`).
Rows: FDTD in Mcells/s (benchmarks/fdtd.py's scene, `prog.run` persistent), the stencil in
steps/s (benchmarks/programs.py's two-sweep program, or its fused form); the ratio of the
changed target's best round to the default's; whether the two targets' states after 100
steps are bit-identical, as every adopted knob must be; `--launch` adds the update's launch
mode as a reference. The megakernels are built per row, so a knob the code generator reads
(most of them) takes effect."""
from __future__ import annotations

import argparse
import dataclasses
import sys

import numpy as np

import fdtd as F
import programs as P
import vkpersist as vkp
from _device import selector
from vkpersist.vk.target import Target

STENCILS = {"two-stage": P.make_program, "fused": P.make_fused_program}
TRUE, FALSE = ("1", "true", "on", "yes"), ("0", "false", "off", "no")


def parse_knob(text: str) -> tuple[str, object]:
    """`name=value` as (field, value of the field's declared type), or SystemExit naming
    the choices."""
    kinds = {f.name: f.type for f in dataclasses.fields(Target)
             if f.name != "name" and f.type in ("bool", "int", "str", "int | None")}
    name, sep, value = text.partition("=")
    if not sep or name not in kinds:
        sys.exit(f"target_ab.py: {text!r} is not a knob; give name=value with a name among "
                 f"{', '.join(kinds)}")
    kind, low = kinds[name], value.strip().lower()
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


def alternate(ctx, targets, rounds, title, unit, bench):
    """Runs `bench()` (rate, note, state) with each target in turn, `rounds` times; prints
    each row, then the changed target's best over the default's and whether the two
    states agree bit for bit."""
    best, states = {}, {}
    for r in range(rounds):
        for label, target in targets.items():
            ctx.target = target
            rate, note, states[label] = bench()
            best[label] = max(best.get(label, 0.0), rate)
            print(f"{title}  {label:<8} round {r + 1}  {rate:>10,.0f} {unit}  {note}",
                  flush=True)
    ctx.target = targets["default"]
    a, b = states["default"], states["changed"]
    same = all(np.array_equal(a[k], b[k]) for k in a) if isinstance(a, dict) \
        else np.array_equal(a, b)
    print(f"{title}  changed / default {best['changed'] / best['default']:.3f}x"
          f"  bit-identical: {'yes' if same else 'NO'}", flush=True)


def fdtd_rows(ctx, targets, n, update, args) -> None:
    title = f"fdtd {update:<6} {n:>4}"

    def bench(mode="persistent"):
        rate, state, sim, notes = F.bench_program(
            ctx, n, mode, args.seconds, groups=args.groups, local=args.local, update=update)
        sim.prog.free()
        return rate * n ** 3 / 1e6, notes, state
    alternate(ctx, targets, args.rounds, title, "Mcells/s", bench)
    if args.launch:
        print(f"{title}  launch            {bench('launch')[0]:>10,.0f} Mcells/s", flush=True)


def stencil_rows(ctx, targets, n, form, args) -> None:
    init = np.random.default_rng(0).random((n, n, n)).astype(np.float32)
    alternate(ctx, targets, args.rounds, f"stencil {form:<9} {n:>4}", "steps/s",
              lambda: P.bench_program(ctx, n, init, "persistent", args.seconds, args.groups,
                                      args.local, STENCILS[form]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("knobs", nargs="+", help="name=value: Target fields to change")
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
    args = ap.parse_args()
    ctx = vkp.Context(selector(args.device))
    default = ctx.target
    change = dict(parse_knob(k) for k in args.knobs)
    targets = {"default": default, "changed": dataclasses.replace(default, **change)}
    print(f"device: {ctx.info.name}; changed: "
          f"{', '.join(f'{k}={v!r} (default {getattr(default, k)!r})' for k, v in change.items())}")
    for n in args.fdtd:
        for update in args.updates:
            fdtd_rows(ctx, targets, n, update, args)
    for n in args.stencil:
        for form in args.stencils:
            stencil_rows(ctx, targets, n, form, args)


if __name__ == "__main__":
    main()
