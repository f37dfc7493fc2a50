"""The GPU gate: the whole test suite with workers, then the headline benchmarks, in one
call on a GPU machine; writes the current figures as docs/performance.md.

    python tools/gpu_check.py [--out DIR] [--compare docs/performance.md] [--no-suite]
                              [--workers 12] [--only NAME ...]

Why: every test passes on lavapipe in CI, and lavapipe hid three wrong-result paths and a
46x MemSock regression that only a whole run on an NVIDIA GPU showed. Anything that
touches device code, code generation, the scheduler or the channels passes this gate on
the GPU machine before its issue is resolved (DEVELOPERS.md); the note quotes the summary
it prints last.

What it does, each step bounded by its own timeout (the device tool allows 10 minutes a
command): the suite (`pytest -n WORKERS --dist loadfile`), then each benchmark of
BENCHMARKS as a subprocess; it writes DIR/performance.md (the page for docs/), DIR/
gate.log (every output in full) and prints the summary. `--compare FILE` reads the figures
a previous performance.md holds (a JSON comment at its end) and lists every figure that
moved by more than 10 %, slower ones first: a slower figure is a regression to explain.
The exit status is 1 when a test failed or a benchmark did not finish, else 0.
tools/gpu_check.sh prepares the lent GPU machine and runs this.
"""
from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parents[1]
SUITE_TIMEOUT_S = 390      # the suite took over 330 s with 8 workers on an H100
MOVED = 0.10                 # --compare lists figures that moved by more than this

# name -> (arguments, timeout in s). Sizes and seconds are chosen so that the suite and all
# of them fit one 10-minute call on an H100 together.
BENCHMARKS = {
    "programs": (["--sizes", "32", "64", "128", "--seconds", "0.3",
                  "--rows", "persistent", "launch", "fused", "graph"], 90),
    "fdtd": (["--sizes", "32", "64", "128", "256", "512", "--seconds", "0.3",
              "--updates", "fused"], 160),
    "fdtd-monitors": (["--sizes", "256", "--seconds", "0.3", "--updates", "fused",
                       "--monitors", "probe", "slices", "hot", "dft"], 120),
    "channels": ([], 90),
    "launch_overhead": (["--iterations", "2000"], 60),
    "reductions": (["--sizes", "1e6,1e8", "--repeats", "10"], 60),
    "arrays": (["--sizes", "1e5,1e7", "--no-numpy"], 60),
}
SCRIPTS = {"fdtd-monitors": "fdtd"}

# name -> (what its headline rows are, what the ratios of its output are against): the
# page's "What the figures are" table, beside each benchmark's command; every benchmark of
# BENCHMARKS has one (benchmarks/README.md describes every benchmark).
ABOUT = {
    "programs": ("steps/s of a 3-d heat stencil (two Jacobi sweeps a step) at n³: persistent "
                 "(one megakernel), launch (recorded batches), fused (both sweeps in one "
                 "stage a step), cuda graph (the same stencil in CuPy, 100 steps a graph)",
                 "the cuda graph row (issue 21's target: persistent passes it); the output's "
                 "`vs loop` is against the Python loop, a row not run here"),
    "fdtd": ("Mcells/s (cells x steps / s) of examples/fdtd3d's Yee update fused into one "
             "stage a step, at n³: persistent fused, launch fused, cupy graph (the same "
             "update as CuPy RawKernels, 100 steps a graph)",
             "`vs cupy`: the same update as CuPy RawKernels launched from Python; the "
             "traffic floor row bounds any scheme"),
    "fdtd-monitors": ("Mcells/s of that update at 256³ run as a session (frames streamed to "
                      "the host): alone, with each monitor (a probe, two slices, the hot "
                      "cells, a DFT plane) and with all",
                      "the session row (what the monitors cost); `vs cupy` as for fdtd"),
    "channels": ("a ControlBuffer round trip host -> running kernel -> host (median µs); "
                 "MemSock frames/s of 4 KiB and 4 MiB frames from per-launch kernels and "
                 "from a persistent program, and GB/s of the 4 MiB ones",
                 "no ratio: the targets in benchmarks/channels.py's docstring"),
    "launch_overhead": ("µs per launch of a one-workgroup kernel: synchronised, "
                        "asynchronous, with a new scalar each launch, batched, glsl_kernel, "
                        "and a CuPy RawKernel",
                        "`vs raw`: a pre-recorded command buffer submitted and waited for "
                        "through the Vulkan binding (the raw Vulkan row)"),
    "reductions": ("µs of `vkp.sum` of n float32 on a resident device array, and of "
                   "`cupy.sum`", "`vs numpy`: `np.sum` on the CPU; `vs cupy`: `cupy.sum`"),
    "arrays": ("ms of y = sin(x) + exp(x) on n float32: vkp fused (one kernel), vkp "
               "unfused (three launches), cupy, cupy fused (`cp.fuse`)",
               "`vs copy`: a vec4 GLSL copy kernel x -> y, the device's copy bandwidth; "
               "`vs cupy`: CuPy's `cp.sin(x) + cp.exp(x)`"),
}

# The figures kept from each output: (pattern, figure's name template, unit). A figure is
# "higher is better" unless its unit is a time.
_NUM = r"([\d,]+(?:\.\d+)?)"
FIGURES = {
    "programs": [(rf"^\s*(\d+) (persistent|launch|fused|cuda graph)\s+{_NUM}\s",
                  "stencil {0}³ {1}", "steps/s")],
    "fdtd": [(rf"^\s*(\d+) (persistent fused|launch fused|cupy graph)\s+{_NUM}\s",
              "FDTD {0}³ {1}", "Mcells/s")],
    "fdtd-monitors": [(rf"^\s*(\d+) (session(?:\+\w+)?)\s+{_NUM}\s",
                       "FDTD {0}³ {1}", "Mcells/s")],
    "channels": [(rf"^round trip host->GPU->host\s+median\s+{_NUM} µs", "round trip median",
                  "µs"),
                 (rf"^frames (4 KiB|4 MiB) \((per launch|program)[^)]*\)\s+{_NUM} frames/s",
                  "frames {0} {1}", "frames/s"),
                 (rf"^frames 4 MiB \((per launch|program)[^)]*\)\s+[\d.]+ frames/s\s+{_NUM} "
                  "GB/s", "frames 4 MiB {0}, bandwidth", "GB/s")],
    "launch_overhead": [(rf"^(\S.*?)\s{{2,}}{_NUM}\s+[\d.]+x$", "launch: {0}", "µs")],
    "reductions": [(rf"^\s*([\d,]+) (vkpersist|cupy)\s+{_NUM}\s", "sum of {0} float32 {1}",
                    "µs")],
    # arrays.py prints one block per size, "y = sin(x) + exp(x), 1e+05 float32 ...": the
    # size is the block's, so `figures` runs these patterns on each block with it first
    "arrays": [(rf"^\s+(vkp fused|vkp unfused|cupy fused|cupy)\s+{_NUM}ms",
                "sin(x) + exp(x), {0} float32, {1}", "ms")],
}
_BLOCKS = {"arrays": r"^y = sin\(x\) \+ exp\(x\), (\S+) float32"}
_TIMES = {"µs", "ms", "s"}


def run(cmd: list[str], timeout: float) -> tuple[int | None, str, float]:
    """(exit status or None on timeout, stdout+stderr, seconds)."""
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        status, out = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as exc:
        status = None
        out = "".join(x.decode() if isinstance(x, bytes) else (x or "")
                      for x in (exc.stdout, exc.stderr))
        out += f"\n[gpu_check: stopped after its {timeout:g} s timeout]"
    return status, out, time.perf_counter() - start


def suite(workers: int, out_dir: pathlib.Path) -> dict:
    xml = out_dir / "junit.xml"
    cmd = [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider",
           "--timeout", "150", f"--junitxml={xml}", "tests"]
    if workers > 1:
        cmd[3:3] = ["-n", str(workers), "--dist", "loadfile"]
    status, out, seconds = run(cmd, SUITE_TIMEOUT_S)
    result = {"command": " ".join(["python"] + cmd[1:-2] + ["tests"]), "seconds": seconds,
              "status": status, "output": out, "failed": []}
    if xml.exists():
        root = ET.parse(xml).getroot()
        cases = root.iter("testcase")
        counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
        for case in cases:
            kinds = {child.tag for child in case}
            name = f"{case.get('classname')}::{case.get('name')}"
            if "failure" in kinds:
                counts["failed"] += 1
                result["failed"].append(name)
            elif "error" in kinds:
                counts["errors"] += 1
                result["failed"].append(name + " (error)")
            elif "skipped" in kinds:
                counts["skipped"] += 1
            else:
                counts["passed"] += 1
        result.update(counts)
    return result


def figures(name: str, output: str) -> dict[str, tuple[float, str]]:
    """{figure: (value, unit)} that FIGURES finds in benchmark `name`'s output."""
    blocks = [((), output)]
    if name in _BLOCKS:
        starts = list(re.finditer(_BLOCKS[name], output, re.MULTILINE))
        ends = [m.start() for m in starts[1:]] + [len(output)]
        blocks = [(m.groups(), output[m.start():end]) for m, end in zip(starts, ends)]
    out = {}
    for head, text in blocks:
        for pattern, label, unit in FIGURES.get(name, []):
            for m in re.finditer(pattern, text, re.MULTILINE):
                *parts, value = m.groups()
                out[label.format(*head, *parts)] = (float(value.replace(",", "")), unit)
    return out


def benchmark(name: str, left: float) -> dict:
    """Run benchmark `name` within its own timeout and the `left` seconds of the call."""
    args, timeout = BENCHMARKS[name]
    script = f"benchmarks/{SCRIPTS.get(name, name)}.py"
    status, out, seconds = run([sys.executable, script, *args], min(timeout, left))
    return {"command": script_command(name), "status": status,
            "seconds": seconds, "output": out, "figures": figures(name, out)}


def device_line() -> str:
    code = ("import vkpersist as v; c = v.Context(); "
            "print(f'{c.info.name} ({c.info.driver_info or c.info.driver})')")
    status, out, _ = run([sys.executable, "-c", code], 60)
    return out.strip().splitlines()[-1] if status == 0 and out.strip() else "unknown device"


def commit() -> str:
    if (ROOT / "COMMIT").exists():      # a `git archive` copy, maybe inside another checkout
        return (ROOT / "COMMIT").read_text().strip()
    status, out, _ = run(["git", "rev-parse", "--short", "HEAD"], 10)
    if status != 0:
        return "unknown commit"
    _, dirty, _ = run(["git", "status", "--porcelain", "--untracked-files=no"], 10)
    return out.strip() + (" with uncommitted changes" if dirty.strip() else "")


def compare(old_page: str, new: dict) -> list[str]:
    """Lines naming each figure that moved by more than MOVED against those of `old_page`
    (a performance.md's text)."""
    m = re.search(r"<!-- gpu_check figures: (.*?) -->", old_page, re.DOTALL)
    if not m:
        return ["the previous page holds no figures to compare with"]
    old = json.loads(m.group(1))
    moved = []
    for key, (value, unit) in new.items():
        if key not in old or not old[key][0]:
            continue
        ratio = value / old[key][0]
        better = ratio < 1 if unit in _TIMES else ratio > 1
        if abs(ratio - 1) > MOVED:
            moved.append((better, key, old[key][0], value, unit, ratio))
    moved.sort(key=lambda row: (row[0], row[1]))
    return [f"{'faster' if b else 'SLOWER'}: {k}: {_fmt(o)} -> {_fmt(v)} {u} ({r:.2f}x)"
            for b, k, o, v, u, r in moved]


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def script_command(name: str) -> str:
    """The command line of benchmark `name`, as the gate runs it."""
    return " ".join(["python", f"benchmarks/{SCRIPTS.get(name, name)}.py",
                     *BENCHMARKS[name][0]])


def about(names) -> list[str]:
    """The page's explanation of the figures of benchmarks `names`: no figures in it."""
    lines = ["## What the figures are", "",
             "Each headline row is one figure a benchmark printed in this run on this device "
             "(steps/s, Mcells/s, frames/s, GB/s: higher is better; µs, ms: lower is better). "
             "The ratios are in each benchmark's output below, its `vs` columns, against a "
             "baseline measured in the same run. [benchmarks/README.md]"
             "(../benchmarks/README.md) describes every benchmark.", "",
             "| benchmark | its rows | command | ratios against |", "|---|---|---|---|"]
    for name in names:
        rows, baseline = ABOUT[name]
        lines.append(f"| {name} | {rows} | `{script_command(name)}` | {baseline} |")
    return lines + [""]


def page(device: str, when: str, rev: str, tests: dict | None, benches: dict,
         command: str) -> str:
    lines = ["# Performance: the current figures", "",
             "Written by the GPU gate (`tools/gpu_check.py`, DEVELOPERS.md) on the GPU machine; "
             "not edited by hand. Each figure is from one run; the history of every "
             "measurement, with the reasons behind the choices, is the "
             "[measurements log](measurements-log.md).", "",
             f"- device: {device}", f"- date: {when}", f"- commit: {rev}",
             f"- command: `{command}`", ""]
    lines += about(benches)
    if tests is not None:
        lines += ["## Test suite", "", _suite_summary(tests), ""]
        lines += [f"- failed: `{name}`" for name in tests["failed"]]
        lines += [""] if tests["failed"] else []
    lines += ["## Headline figures", "", "| benchmark | figure | value |", "|---|---|---:|"]
    for name, b in benches.items():
        for key, (value, unit) in b["figures"].items():
            lines.append(f"| {name} | {key} | {_fmt(value)} {unit} |")
        if b["status"] != 0:
            lines.append(f"| {name} | did not finish ({_status(b)}) | |")
    lines += ["", "## Outputs", ""]
    for name, b in benches.items():
        lines += [f"### {name}", "", f"`{b['command']}` ({b['seconds']:.0f} s, {_status(b)})",
                  "", "```", b["output"].rstrip(), "```", ""]
    flat = {k: v for b in benches.values() for k, v in b["figures"].items()}
    lines.append(f"<!-- gpu_check figures: {json.dumps(flat, ensure_ascii=False)} -->")
    return "\n".join(lines) + "\n"


def _status(b: dict) -> str:
    return "timed out" if b["status"] is None else f"exit status {b['status']}"


def _suite_summary(t: dict) -> str:
    if "passed" not in t:
        return f"the suite did not report ({_status(t)}, {t['seconds']:.0f} s)"
    return (f"{t['passed']} passed, {t['failed']} failed, {t['errors']} errors, "
            f"{t['skipped']} skipped in {t['seconds']:.0f} s (`{t['command']}`)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="gpu-check-out", help="folder for performance.md and "
                    "gate.log (default: gpu-check-out)")
    ap.add_argument("--compare", default=None, help="a previous performance.md")
    ap.add_argument("--no-suite", action="store_true", help="only the benchmarks")
    ap.add_argument("--workers", type=int, default=12, help="pytest workers (pytest-xdist; "
                    "the GPU machine has 16 cores)")
    ap.add_argument("--only", nargs="+", choices=list(BENCHMARKS), default=list(BENCHMARKS),
                    help="these benchmarks (default: all)")
    ap.add_argument("--budget", type=float, default=560, help="seconds for the whole gate "
                    "(default 560: the device tool stops a command at 600); a benchmark "
                    "that would run past it is stopped, and the page says so")
    args = ap.parse_args()
    deadline = time.perf_counter() + args.budget
    out_dir = pathlib.Path(args.out).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    old = pathlib.Path(args.compare) if args.compare else None
    old_text = old.read_text() if old and old.exists() else None
    when = datetime.date.today().isoformat()
    device, rev = device_line(), commit()
    print(f"gpu_check: {device}, {when}, {rev}", flush=True)
    command = "python tools/gpu_check.py " + " ".join(sys.argv[1:])
    tests = None if args.no_suite else suite(args.workers, out_dir)
    if tests is not None:
        print(f"suite: {_suite_summary(tests)}", flush=True)
    benches = {}
    for name in args.only:
        left = deadline - time.perf_counter()
        if left < 15:
            print(f"{name}: not run, the gate's --budget is spent", flush=True)
            continue
        benches[name] = b = benchmark(name, left)
        print(f"{name}: {len(b['figures'])} figures, {b['seconds']:.0f} s, {_status(b)}",
              flush=True)
        # written after each step: a call stopped from outside still leaves the page
        (out_dir / "performance.md").write_text(page(device, when, rev, tests, benches,
                                                     command))
        log = [f"== suite\n{tests['output']}"] if tests else []
        log += [f"== {n}: {x['command']}\n{x['output']}" for n, x in benches.items()]
        (out_dir / "gate.log").write_text("\n".join(log))
    flat = {k: v for b in benches.values() for k, v in b["figures"].items()}
    summary = [f"GPU gate, {device}, {when}, {rev}:"]
    if tests is not None:
        summary.append(f"  suite: {_suite_summary(tests)}")
        summary += [f"    failed: {name}" for name in tests["failed"]]
    unfinished = [n for n in args.only if n not in benches or benches[n]["status"] != 0]
    summary.append(f"  benchmarks: {len(args.only) - len(unfinished)} of {len(args.only)} "
                   f"finished, {len(flat)} figures"
                   + (f"; did not finish: {', '.join(unfinished)}" if unfinished else ""))
    if old_text is not None:
        moved = compare(old_text, flat)
        summary.append(f"  against {old}: " + ("nothing moved by more than "
                       f"{MOVED:.0%}" if not moved else f"{len(moved)} figures moved"))
        summary += [f"    {line}" for line in moved]
    print("\n".join(summary), flush=True)
    failed = tests is not None and (tests.get("failed") or tests.get("errors")
                                    or "passed" not in tests)
    return 1 if failed or unfinished else 0


if __name__ == "__main__":
    sys.exit(main())
