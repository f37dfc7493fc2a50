"""Random programs for the cached-load tests (test_cached_loads.py): stages over one 1-d
domain that each store one array at their own index from two arrays read at offsets
(`w[i] = r[(i + k) % n] * 0.5 + s[(i + m) % n]`, exact in float32: the halving is exact,
so a fused multiply-add rounds the same), some under every(2) or every(3). Which loads
may go through a readonly alias depends on which stores are pending since the last grid
barrier, and the barriers on which stages conflict and which run conditionally: random
mixes of those are what the tests throw at place_cached_reads. Stage functions must live
in a file (their source is read), so `build` writes one and imports it."""
import importlib.util
import pathlib

import numpy as np

import vkpersist as vkp

ARRAYS = "abcd"


def spec(seed: int, n: int = 1000) -> list:
    """[(name, written, (read, offset), (read, offset), period)] of a random program. A
    stage reads the array it writes only at its own index (another offset would race with
    the other invocations' stores, which programs refuse)."""
    rng = np.random.default_rng(seed)
    stages = []
    for k in range(int(rng.integers(3, 7))):
        w = ARRAYS[rng.integers(len(ARRAYS))]
        reads = []
        for _ in range(2):
            r = ARRAYS[rng.integers(len(ARRAYS))]
            offset = 0 if r == w or rng.random() < 0.4 else int(rng.integers(1, n))
            reads.append((r, offset))
        period = int(rng.choice([1, 1, 1, 2, 3]))
        stages.append((f"s{k}", w, reads[0], reads[1], period))
    return stages


def _source(stages, n) -> str:
    lines = ["import vkpersist as vkp", "", "", "def declare(prog, arrays):",
             "    a, b, c, d = (arrays[x] for x in 'abcd')", "    out = {}"]
    for name, w, (r, k), (s, m), _ in stages:
        lines += ["", f"    @prog.stage(domain={n})", f"    def {name}(i):",
                  f"        {w}[i] = {r}[(i + {k}) % {n}] * 0.5 + {s}[(i + {m}) % {n}]",
                  f"    out[{name!r}] = {name}"]
    lines.append("    return out")
    return "\n".join(lines) + "\n"


def build(ctx, seed: int, folder: pathlib.Path, n: int = 1000):
    """(program, {name: its array}, the initial values) of spec(seed)."""
    stages = spec(seed, n)
    path = folder / f"random_program_{seed}.py"
    path.write_text(_source(stages, n))
    module_spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    prog = vkp.Program(ctx, name=f"random{seed}")
    init = {x: np.arange(n, dtype=np.float32) * (i + 1) % 97 for i, x in enumerate(ARRAYS)}
    arrays = {x: prog.array(x, (n,), init=init[x]) for x in ARRAYS}
    fns = module.declare(prog, arrays)
    prog.loop(*[fns[name] if period == 1 else vkp.every(period, fns[name])
                for name, _, _, _, period in stages])
    return prog, arrays, init


def reference(seed: int, init: dict, steps: int, n: int = 1000) -> dict:
    """The arrays after `steps` steps, in NumPy float32 (every(p) runs on steps p divides)."""
    x = {k: v.copy() for k, v in init.items()}
    for t in range(steps):
        for _, w, (r, k), (s, m), period in spec(seed, n):
            if t % period == 0:
                x[w] = np.roll(x[r], -k) * np.float32(0.5) + np.roll(x[s], -m)
    return x
