"""Kernels, device functions and program stages defined in Jupyter cells, run by a real
IPython kernel (nbclient starts one, as `jupyter nbconvert --execute` does): IPython keeps
each cell's text in the line cache, which is where vkpersist reads kernel source from.
Needs the test extras (nbclient, nbformat, ipykernel); skipped without them."""
import json
import os
import sys

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

CELLS = [
    """import numpy as np
import vkpersist as vkp
ctx = vkp.Context()""",
    # a device function and a kernel, each in a cell of its own
    """@vkp.func
def scaled(a, v):
    return a * v""",
    """@vkp.kernel
def saxpy(a: vkp.f32, x: vkp.Array[vkp.f32], y: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    y[i] = scaled(a, x[i]) + y[i]""",
    """x = np.arange(100, dtype=np.float32)
y = np.ones(100, np.float32)
saxpy.forall(100)(np.float32(2), x, y)
assert np.array_equal(y, 2 * np.arange(100, dtype=np.float32) + 1), y""",
    # a program whose stage is defined in a cell, in both modes
    """def decay_program(mode):
    prog = vkp.Program(ctx, name="decay")
    u, u_next = prog.array_pair("u", (64,), init=np.linspace(0, 1, 64))
    @prog.stage(domain=64)
    def decay(i):
        u_next[i] = scaled(0.5, u[i])
    prog.loop(decay)
    prog.run(3, mode=mode)
    return u.numpy()
for mode in ("persistent", "launch"):
    got = decay_program(mode)
    assert np.array_equal(got, np.linspace(0, 1, 64).astype(np.float32) / 8), got""",
    # an error points at the cell's line
    """@vkp.kernel
def broken(x: vkp.Array[vkp.f32]):
    x[0] = undefined_name
try:
    broken.forall(1)(np.zeros(1, np.float32))
except vkp.CompileError as exc:
    message = str(exc)
assert "undefined_name" in message and ":3:" in message, message
print("notebook ok")""",
]


def test_kernels_funcs_and_stages_in_notebook_cells(ctx, monkeypatch, tmp_path):
    monkeypatch.setenv("VKPERSIST_DEVICE", str(ctx.info.index))   # the device under test
    # a kernel spec of this interpreter, found before any "python3" the machine has
    spec = tmp_path / "kernels" / "vkpersist-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "vkpersist tests", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="vkpersist-test",
                                     resources={"metadata": {"path": os.getcwd()}})
    client.execute()
    outputs = [o for cell in nb.cells for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("notebook ok" in o.get("text", "") for o in outputs)
