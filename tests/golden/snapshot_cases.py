"""What the golden GLSL snapshots cover, and how each is generated.

The generated GLSL of the language test corpus (every kernel specialisation the language
tests compile, listed in glsl_snapshots/manifest.json by tools/glsl_snapshots.py) and of
the programs in programs_lib.py (megakernel and fallback), for two targets with fixed
descriptions: lavapipe as CI has it, and a GPU with the Vulkan memory model (the H200's
shape). Refactors of the compiler or the scheduler keep every file byte-identical; a
deliberate change to the generated code is its own commit, with the snapshot diff.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import pathlib

import vkpersist as vkp
from vkpersist.vk.target import DRIVER_ID_LLVMPIPE, Target

import programs_lib as pl

ROOT = pathlib.Path(__file__).parent / "glsl_snapshots"
MANIFEST = ROOT / "manifest.json"
DRIVER_ID_NVIDIA = 4               # VK_DRIVER_ID_NVIDIA_PROPRIETARY

_FEATURES = dict(float64=True, int64=True, int16=True, int8=True, float16=True, storage16=True,
                 storage8=True, atomic_int64=True, atomic_float=True, memory_model=True)


def targets(info) -> dict:
    """{target name: DeviceInfo}: the real device's record with the fields code generation
    reads fixed, so the snapshots do not depend on the machine that makes them."""
    return {
        "lavapipe": dataclasses.replace(info, name="llvmpipe (snapshot target)", kind="cpu",
                                        driver="llvmpipe", driver_id=DRIVER_ID_LLVMPIPE,
                                        **_FEATURES),
        "gpu": dataclasses.replace(info, name="GPU with the memory model (snapshot target)",
                                   kind="dgpu", driver="NVIDIA", driver_id=DRIVER_ID_NVIDIA,
                                   **_FEATURES),
    }


def kernel_cases() -> dict:
    """{snapshot name: (kernel, types)} from the manifest."""
    entries = json.loads(MANIFEST.read_text())
    out = {}
    for e in entries:
        module = importlib.import_module(e["module"])
        kern = getattr(module, e["kernel"])
        types = [eval(t, {"vkp": vkp}) for t in e["types"]]
        out[e["name"]] = (kern, types)
    return out


def kernel_glsl(kern, types, info) -> str:
    return kern.glsl(*types, device=info)


def _bfs(ctx):
    offsets, edges = pl.random_graph(50, 3)
    return pl.bfs(ctx, offsets, edges)


# name -> function of a Context returning (prog, ...): small, fixed sizes
PROGRAMS = {
    "jacobi": lambda ctx: pl.jacobi(ctx, 8),
    "jacobi_pair": lambda ctx: pl.jacobi_pair(ctx, 8),
    "counters": pl.counters,
    "long_loop": lambda ctx: pl.long_loop(ctx, 100),
    "slow": lambda ctx: pl.slow(ctx, 16, 10),
    "bfs": _bfs,
    "producer": lambda ctx: pl.producer(ctx, 32, 64),
    "chain": lambda ctx: pl.chain(ctx, 10),
    "wave": lambda ctx: pl.wave(ctx, 8, 2, 4),
    "wave_block": lambda ctx: pl.wave(ctx, 8, 2, 4, policy="block"),
    "threshold": lambda ctx: pl.threshold(ctx, 5),
    "counted": lambda ctx: pl.counted(ctx, 10),
    "combo": pl.combo,
}


# {snapshot path of a program's GLSL: {declared name: "array", "queue" or "memsock"}},
# filled by `generate` (test_glsl_snapshots checks the generated names against them)
DECLARATIONS: dict = {}


def program_glsl(ctx, make, info) -> tuple[dict, dict]:
    """({mode: GLSL}, {declared name: kind}) of one program built for `info` on the real
    device `ctx` (building allocates its arrays there; nothing is dispatched)."""
    real = ctx.info, ctx.target
    ctx.info, ctx.target = info, Target.for_device(info)
    try:
        prog = make(ctx)[0]
        try:
            kinds = {**dict.fromkeys(prog.arrays, "array"),
                     **dict.fromkeys(prog.queues, "queue"),
                     **dict.fromkeys(prog.sockets, "memsock")}
            return {mode: prog.glsl(mode) for mode in ("persistent", "launch")}, kinds
        finally:
            prog.free()
    finally:
        ctx.info, ctx.target = real


def generate(ctx) -> dict:
    """{relative path: GLSL} of every snapshot."""
    out = {}
    for target, info in targets(ctx.info).items():
        for name, (kern, types) in kernel_cases().items():
            out[f"{target}/kernels/{name}.glsl"] = kernel_glsl(kern, types, info)
        for name, make in PROGRAMS.items():
            sources, kinds = program_glsl(ctx, make, info)
            for mode, src in sources.items():
                path = f"{target}/programs/{name}.{mode}.glsl"
                out[path] = src
                DECLARATIONS[path] = kinds
    return out


def write(files: dict) -> None:
    for sub in ROOT.glob("*/*/*.glsl"):
        sub.unlink()
    for rel, text in files.items():
        path = ROOT / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

