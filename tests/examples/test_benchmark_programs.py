"""benchmarks/programs.py's shift row, which docs/measurements-log.md cites as the ceiling of a step
with one grid barrier: its program must do what the row says (each cell one neighbour's
value a step, zero at the k = 0 face), in both modes, and the row must run from the command
line."""
import importlib.util
import pathlib
import subprocess
import sys

import numpy as np
import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def programs():
    sys.path.insert(0, str(BENCH))              # programs.py imports its sibling _device
    try:
        spec = importlib.util.spec_from_file_location("bench_programs", BENCH / "programs.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH))
    return module


@pytest.mark.parametrize("mode", ["persistent", "launch"])
def test_the_shift_program_moves_each_cell_one_along_k(ctx, programs, mode):
    n, steps = 6, 4
    init = np.random.default_rng(1).random((n, n, n)).astype(np.float32)
    prog, A = programs.make_shift_program(ctx, n, init)
    try:
        prog.run(steps, mode=mode)
        want = np.zeros_like(init)
        want[:, :, steps:] = init[:, :, :-steps]
        np.testing.assert_array_equal(A.numpy(), want)
    finally:
        prog.free()


def test_the_shift_row_runs(ctx):
    out = subprocess.run([sys.executable, str(BENCH / "programs.py"), "--device",
                          str(ctx.info.index), "--sizes", "6", "--rows", "shift",
                          "--seconds", "0.02"], capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if line.split()[1:2] == ["shift"]]
    assert len(rows) == 1 and rows[0][0] == "6", out.stdout
    assert float(rows[0][2].replace(",", "")) > 0, out.stdout
