import subprocess
import sys

from devices_found import devices


def _run(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "vkpersist", *args], capture_output=True,
                          text=True, timeout=timeout)


def test_devices_table_lists_every_device():
    run = _run("devices")
    assert run.returncode == 0, run.stderr
    for d in devices():
        assert d.name in run.stdout
    assert "memory kinds" in run.stdout and "default device" in run.stdout


def test_doctor_checks_each_device_and_names_the_control_channel():
    run = _run("doctor")
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert out.count("dispatch    ok") == len(devices())
    assert out.count("control channel:") == len(devices())
    for d in devices():
        if d.is_lavapipe:
            block = out.split(d.name, 1)[1]
            assert "control channel: host memory (type 0), live" in block
    assert "all checks passed" in out


def test_doctor_rejects_unknown_device():
    run = _run("doctor", "--device", "quantum")
    assert run.returncode == 2 and "matches no device" in run.stderr


def test_demo_checks_its_result():
    run = _run("demo")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("-> OK") == 2            # the kernel, then the steered program
    assert "command spot=-1.0 applied before step" in run.stdout


SCRIPT = '''
import argparse
import numpy as np
import vkpersist as vkp

parser = argparse.ArgumentParser()
parser.add_argument("--n", type=int, default=16)
args = parser.parse_args()          # at import: emit-glsl must not hand it its own argv

@vkp.kernel
def scale(a: vkp.f32, x: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] = a * x[i]

prog = vkp.Program(name="grow")
T = prog.array("T", (args.n,))

@prog.stage(domain=args.n)
def grow(i):
    T[i] += 1.0

prog.loop(grow)

if __name__ == "__main__":
    raise SystemExit("emit-glsl must not run the main block")
'''


def test_emit_glsl_prints_kernels_and_programs_of_a_script(tmp_path):
    script = tmp_path / "sim.py"
    script.write_text(SCRIPT)
    run = _run("emit-glsl", str(script))
    assert run.returncode == 0, run.stderr
    assert "1 kernel(s): scale; 1 program(s): prog" in run.stderr
    assert "// ---- scale ----" in run.stdout and "// ---- prog ----" in run.stdout
    assert run.stdout.count("void main()") == 2 and "stage_grow" in run.stdout
    only = _run("emit-glsl", f"{script}:scale")
    assert only.returncode == 0 and "// ---- prog ----" not in only.stdout
    launch = _run("emit-glsl", "--mode", "launch", f"{script}:prog")
    assert launch.returncode == 0 and launch.stdout.count("void main()") >= 2
    missing = _run("emit-glsl", f"{script}:nothing")
    assert missing.returncode == 2 and "there: scale, prog" in missing.stderr


def test_emit_glsl_says_what_it_found_when_nothing_is_at_top_level(tmp_path):
    script = tmp_path / "builder.py"
    script.write_text("import vkpersist as vkp\n\n"
                      "def build(ctx):\n"
                      "    prog = vkp.Program(ctx)\n"
                      "    return prog\n")
    run = _run("emit-glsl", str(script))
    assert run.returncode == 2
    assert "defines no @vkp.kernel and no vkp.Program at its top level" in run.stderr
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nsys.exit(3)\n")
    run = _run("emit-glsl", str(exits))
    assert run.returncode == 2 and "exited while being loaded (SystemExit: 3)" in run.stderr
