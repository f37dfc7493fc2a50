"""The tutorials run as a user runs them: each script in a fresh Python process, with no
display (MPLBACKEND=Agg), on each Vulkan device in turn; the numbers it prints are checked
here again against NumPy or the physics, and its pictures must exist. Lessons 1-4 take a
few seconds each and run in every suite; the others are marked slow: they take ~80 s
together on 2 CPU cores (lavapipe), plus ~75 s for the FDTD one."""
import math
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LESSONS = ROOT / "tutorials"
FLOAT = r"([-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?)"


def run(device_info, tmp_path, script, *args, timeout=300):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(MPLBACKEND="Agg", VKPERSIST_DEVICE=str(device_info.index),
               PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]))
    cmd = [sys.executable, *([str(LESSONS / script), "--out", str(tmp_path)]
                             if script.endswith(".py") else script.split()), *args]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def number(pattern, text):
    m = re.search(pattern.replace("NUM", FLOAT), text)
    assert m, f"{pattern!r} not in:\n{text}"
    return float(m.group(1))


def test_every_lesson_is_indexed_with_its_text():
    index = (LESSONS / "README.md").read_text()
    for script in sorted(LESSONS.glob("[0-9][0-9]_*.py")):
        assert (script.with_suffix(".md")).exists(), f"{script.name} has no text"
        assert script.stem in index, f"{script.name} is not in tutorials/README.md"
    assert "tutorials/README.md" in (ROOT / "README.md").read_text()


def test_01_array_math(device_info, tmp_path):
    out = run(device_info, tmp_path, "01_array_math.py", "--size", "50000")
    assert "on 50000 float32: numpy.ndarray of float32" in out
    assert number(r"in ulps of \|sin x\| \+ e\^x: GPU NUM", out) <= 2.5
    assert "equal to the NumPy-in result bit for bit: True" in out
    assert "stay on the device too: True" in out
    x, i = np.ones(1, np.float32), np.ones(1, np.int32)
    for text, ref in (("xd * 2.0", x * 2.0), ("xd * np.float64(2)", x * np.float64(2)),
                      ("int32 + 1.5", i + 1.5), ("int32 // 2", i // 2)):
        assert re.search(re.escape(text) + rf"\s+-> {ref.dtype}\s+\(NumPy: {ref.dtype}\)", out), out
    assert f"{np.arange(-3, 3)} // 2 = {np.arange(-3, 3) // 2}: floor division" in out
    assert number(r"by broadcasting: max \|GPU - NumPy\| = NUM", out) < 1e-4
    assert (tmp_path / "01_interference.png").stat().st_size > 10_000
    assert "lesson 1 OK" in out


def test_02_resident_arrays_variance_grows_by_two_alpha_per_step(device_info, tmp_path):
    steps, alpha = 40, 0.4
    out = run(device_info, tmp_path, "02_resident_arrays.py", "--size", "4000", "--steps",
              str(steps))
    assert "u[1:-1] is a view of u: True" in out
    assert re.search(r"NumPy's float32 steps (bit-identical|equal but for the subnormals this "
                     r"device flushes): True", out), out
    assert "frames read through the view taken before the run, equal to NumPy's: True" in out
    mass0, mass = number(r"mass NUM", out), number(r"mass \S+ -> NUM", out)
    var0, var = number(r"variance NUM", out), number(r"variance \S+ -> NUM", out)
    assert var0 == pytest.approx(25.0, rel=1e-4)          # the initial sigma of 5 cells
    assert mass == pytest.approx(mass0, rel=1e-4)
    assert var == pytest.approx(var0 + 2 * alpha * steps, rel=1e-3)
    assert "resident on the device" in out and "NumPy in/out through vkp" in out
    assert "UnsupportedError: numpy_view() needs host-visible memory" in out
    assert (tmp_path / "02_heat_pulse.png").stat().st_size > 10_000
    assert "lesson 2 OK" in out


def test_03_fusion(device_info, tmp_path):
    out = run(device_info, tmp_path, "03_fusion.py", "--size", "100000")
    assert "fused and unfused bit-identical on 100000 float32: True" in out
    assert number(r"max \|GPU - NumPy float64\| = NUM", out) < 1e-6
    assert "1 source, 1 main()" in out and "t3 = _vkp_exp(t2);" in out
    assert "vf0_lennard_jones(t0)" in out and "use vkp.where(cond, a, b)" in out
    assert number(r"vectorized Lennard-Jones: max error NUM", out) <= 8
    peaks = re.findall(r"g\(r\) peaks at r = " + FLOAT, out)
    assert len(peaks) == 3 and all(abs(float(p) - 2 ** (1 / 6)) < 2e-3 for p in peaks)
    assert (tmp_path / "03_fusion.png").stat().st_size > 10_000
    assert "lesson 3 OK" in out


def test_04_first_kernel(device_info, tmp_path):
    out = run(device_info, tmp_path, "04_first_kernel.py", "--size", "100000")
    assert number(r"saxpy twice on 100000 elements: max \|GPU - NumPy\| = NUM", out) <= 3e-6
    assert number(r"on 48x64: max \|GPU - NumPy\| = NUM", out) < 1e-5
    assert "on NumPy arrays: [ 0.  3.  6.  9. 12. 15. 18. 21.]" in out
    assert "void main()" in out and "lesson 4 OK" in out
    glsl = run(device_info, tmp_path, f"-m vkpersist emit-glsl {LESSONS / '04_first_kernel.py'}:saxpy")
    assert "void main()" in glsl and "y[i] = (a * x[i]) + y[i];" in glsl


@pytest.mark.slow
def test_05_shared_memory(device_info, tmp_path):
    out = run(device_info, tmp_path, "05_shared_memory.py", "--size", "300000")
    gpu = number(r"GPU NUM", out)
    exact = float(np.random.default_rng(1).standard_normal(300000).astype(np.float32)
                  .astype(np.float64).sum())
    assert abs(gpu - exact) < 1e-3
    assert "equal to NumPy's bin for bin: True" in out
    assert (tmp_path / "05_histogram.png").stat().st_size > 10_000


@pytest.mark.slow
def test_06_particles_drift_at_e_cross_b(device_info, tmp_path):
    out = run(device_info, tmp_path, "06_particles.py", "--size", "20000", "--steps", "1000")
    for name in ("ions", "electrons"):
        m = re.search(name + r"\s*: guiding centres drift across B at \(x, y\) = \[\s*"
                      + FLOAT + r"\s+" + FLOAT + r"\]", out)
        assert m, out
        vx, vy = map(float, m.groups())
        assert abs(vx) < 1e-3 and abs(vy + 0.1) < 1e-3      # E x B / B^2 = (0, -0.1)
    assert number(r"max \|GPU - NumPy float64\| position = NUM", out) < 1e-2
    assert (tmp_path / "06_particles.png").exists()


@pytest.mark.slow
def test_07_control_buffer(device_info, tmp_path):
    out = run(device_info, tmp_path, "07_control_buffer.py", "--size", "128")
    counts = [number(p, out) for p in (r"max_iter=1000: NUM", r"max_iter=10000: NUM",
                                       r"skipped after stop: NUM")]
    assert sum(counts) == 128 * 2 and counts[0] > 0
    assert number(r"escape counts equal .*?: NUM%", out) > 80
    assert number(r"pixels drawn, NUM% of those escaping", out) > 99
    assert (tmp_path / "07_control_buffer.png").exists()


@pytest.mark.slow
def test_08_memsock(device_info, tmp_path):
    out = run(device_info, tmp_path, "08_memsock.py", "--size", "64", "--steps", "200")
    assert "10 frames received of 10 sent, 0 dropped" in out
    assert "frames equal to NumPy's Life at their generation: 10 of 10" in out
    assert (tmp_path / "08_memsock.png").exists()


@pytest.mark.slow
def test_09_persistent_program_decays_at_the_schemes_rate(device_info, tmp_path):
    n, steps, alpha = 32, 300, 0.24
    out = run(device_info, tmp_path, "09_persistent_program.py", "--size", str(n), "--steps",
              str(steps))
    assert "persistent and launch modes bit-identical: True" in out
    assert "mode='persistent', steps=300" in out and "mode='launch', steps=300" in out
    k = math.pi / (2 * (n + 1))
    for m, l, a in ((1, 1, 1.0), (3, 2, 0.5)):
        gpu = number(rf"\({m},{l}\): GPU NUM", out)
        scheme = a * (1 - 4 * alpha * (math.sin(m * k) ** 2 + math.sin(l * k) ** 2)) ** steps
        assert gpu == pytest.approx(scheme, rel=1e-4)
    assert "void main()" in (tmp_path / "09_megakernel.glsl").read_text()
    glsl = run(device_info, tmp_path,
               f"-m vkpersist emit-glsl {LESSONS / '09_persistent_program.py'}:prog")
    assert glsl.count("void main()") == 1 and "_vkp_grid_sync(" in glsl   # (1u) under lavapipe's loop budget


@pytest.mark.slow
def test_10_work_queues(device_info, tmp_path):
    out = run(device_info, tmp_path, "10_work_queues.py", "--size", "40")
    assert "distances equal to a BFS in Python: True" in out
    assert "queue left 0, dropped 0" in out
    assert (tmp_path / "10_work_queues.png").exists()


@pytest.mark.slow
def test_11_trio_session_change_lands_at_the_acknowledged_step(device_info, tmp_path):
    out = run(device_info, tmp_path, "11_trio_session.py", "--size", "64", "--steps", "12")
    assert number(r"in effect from step NUM", out) > 0
    assert number(r"max error NUM of max", out) < 1e-4
    assert number(r"one step earlier or later differs by up to NUM", out) > 1e-4
    assert "12 frames read" in out and (tmp_path / "11_trio_session.png").exists()


@pytest.mark.slow
def test_12_fdtd_scatter_against_mie(device_info, tmp_path):
    miepython = pytest.importorskip("miepython")
    out = run(device_info, tmp_path, "12_fdtd_scatter.py", timeout=600)
    assert re.search(r"hot-cell frame of step \d+: [1-9]\d* cells, .*: True", out), out
    radius = number(r"sphere of radius NUM cells", out) * 1e-3
    rows = re.findall(r"^\s+" + FLOAT + r"\s+" + FLOAT + r"\s+" + FLOAT + r"\s+", out, re.M)
    assert len(rows) == 4, out
    for wl_cells, _, fdtd_mm2 in (map(float, r) for r in rows):
        x = 2 * math.pi * radius / (wl_cells * 1e-3)
        mie = float(np.asarray(miepython.efficiencies_mx(2.0, np.array([x]))[1])[0]) \
            * math.pi * radius ** 2
        assert fdtd_mm2 * 1e-6 == pytest.approx(mie, rel=0.15)
    assert (tmp_path / "12_fdtd_scatter.png").exists()
