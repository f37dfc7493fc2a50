"""The README's and the language reference's examples run as written."""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


def test_readme_example_runs(tmp_path):
    blocks = _python_blocks(ROOT / "README.md")
    assert blocks
    script = tmp_path / "readme_example.py"
    script.write_text("\n".join(blocks))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "void main()" in run.stdout


def test_language_reference_example_compiles(tmp_path):
    block = _python_blocks(ROOT / "docs" / "language.md")[0]
    script = tmp_path / "language_example.py"
    script.write_text("import numpy as np\n" + block.replace(
        "saxpy[groups, local](2.0, x, y)", "ctx = vkp.default_context()\n"
        "x = ctx.zeros(100); y = ctx.zeros(100); groups, local, n = 2, 64, 100\n"
        "saxpy[groups, local](2.0, x, y)"))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr


def test_channels_examples_run(tmp_path):
    blocks = _python_blocks(ROOT / "docs" / "channels.md")
    script = tmp_path / "channels_example.py"
    script.write_text("\n".join(blocks))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "stopped after" in run.stdout and "step 100: mean" in run.stdout


def test_programs_example_runs(tmp_path):
    blocks = _python_blocks(ROOT / "docs" / "programs.md")
    script = tmp_path / "programs_example.py"
    script.write_text("\n".join(blocks))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "step 50: mid-plane mean" in run.stdout
    assert "alpha changed before step" in run.stdout and "500 steps done" in run.stdout
