import subprocess
import sys

from conftest import DEVICES


def _run(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "vkpersist", *args], capture_output=True,
                          text=True, timeout=timeout)


def test_devices_table_lists_every_device():
    run = _run("devices")
    assert run.returncode == 0, run.stderr
    for d in DEVICES:
        assert d.name in run.stdout
    assert "memory kinds" in run.stdout and "default device" in run.stdout


def test_doctor_checks_each_device_and_names_the_control_channel():
    run = _run("doctor")
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert out.count("dispatch    ok") == len(DEVICES)
    assert out.count("control channel:") == len(DEVICES)
    for d in DEVICES:
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
