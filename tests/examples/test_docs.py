"""The README's and the docs' examples run as written."""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


def _run_script(tmp_path, name, text):
    """Run `text` as a script file (kernel and stage sources must live in a file)."""
    script = tmp_path / name
    script.write_text(text)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_readme_example_runs(tmp_path):
    blocks = _python_blocks(ROOT / "README.md")
    assert blocks
    out = _run_script(tmp_path, "readme_example.py", "\n".join(blocks))
    assert "void main()" in out


def test_language_reference_example_compiles(tmp_path):
    block = _python_blocks(ROOT / "docs" / "language.md")[0]
    _run_script(tmp_path, "language_example.py", "import numpy as np\n" + block.replace(
        "saxpy[groups, local](2.0, x, y)", "ctx = vkp.default_context()\n"
        "x = ctx.zeros(100); y = ctx.zeros(100); groups, local, n = 2, 64, 100\n"
        "saxpy[groups, local](2.0, x, y)"))


def test_channels_examples_run(tmp_path):
    blocks = _python_blocks(ROOT / "docs" / "channels.md")
    out = _run_script(tmp_path, "channels_example.py", "\n".join(blocks))
    assert "stopped after" in out and "step 100: mean" in out


def test_programs_example_runs(tmp_path):
    blocks = _python_blocks(ROOT / "docs" / "programs.md")
    out = _run_script(tmp_path, "programs_example.py", "\n".join(blocks))
    assert "step 50: mid-plane mean" in out
    change = int(re.search(r"alpha changed before step (\d+)", out).group(1))
    done = int(re.search(r"^(\d+) steps done$", out, re.M).group(1))
    assert change >= 200 and done >= change + 100, out
    back = int(re.search(r"back at step (\d+), as it was then", out).group(1))
    assert back % 100 == 0 and done < back <= done + 200, out     # the checkpoints' block


def test_cuda_porting_example_runs(tmp_path):
    block = _python_blocks(ROOT / "docs" / "cuda.md")[0]
    _run_script(tmp_path, "cuda_example.py", block)


def test_arrays_example_runs(tmp_path):
    block = _python_blocks(ROOT / "docs" / "arrays.md")[0]
    out = _run_script(tmp_path, "arrays_example.py", block)
    assert "float32" in out and "void main()" not in out and "@vkp.kernel" in out
