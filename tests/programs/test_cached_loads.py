"""Target.readonly_alias: the megakernel loads an array it writes through a readonly block on
the same binding where no store to it can be pending (scheduler/_plan.py,
place_cached_reads). NVIDIA's driver gets it (its cached path is what makes the 128³ stencil
1.5x the CUDA graph, vk/target.py); the program below is the trap for a load that would miss
its own invocation's store, run on every device in both modes. On lavapipe the same
programs run once more with the aliases forced on (there `coherent readonly`: lavapipe has
no usable memory model), so the generated code is executed in CI, not only read."""
import dataclasses
import re

import numpy as np
import pytest

from vkpersist import func as vkp_func

import random_programs
import test_megakernel_shapes as shapes
from programs_lib import (jacobi, skipped_barrier, skipped_barrier_reference, store_then_load,
                          store_then_load_reference)
from vkpersist.vk.target import Target

MODES = ["persistent", "launch"]


def _stage(src: str, name: str) -> str:
    body = src[src.index(f"void stage_{name}("):]
    return body[:body.index("\n}\n")]


def _nvidia(ctx, monkeypatch):
    """The target an NVIDIA GPU with the memory model gets (aliases on), for its GLSL."""
    gpu = dataclasses.replace(ctx.info, driver_id=4, memory_model=True)  # NVIDIA's id
    monkeypatch.setattr(ctx, "target", Target.for_device(gpu))


def run_and_compare(prog, arrays: dict, want: dict, mode, steps, groups=None):
    """Run `prog` for `steps` steps in `mode`, free it, and compare each of `arrays` ({name:
    array}) with `want` ({name: NumPy array}) bit for bit."""
    prog.run(steps, mode=mode, **({"groups": groups} if groups and mode == "persistent"
                                  else {}))
    got = {x: a.numpy() for x, a in arrays.items()}
    prog.free()
    for x, g in got.items():
        assert np.array_equal(g, want[x]), \
            f"{mode}, {x}: {int((g != want[x]).sum())} of {g.size} differ"


def run_store_then_load(ctx, mode, groups=None, steps=30):
    prog, arrays, (a0, b0) = store_then_load(ctx)
    run_and_compare(prog, dict(zip("abcd", arrays)),
                    dict(zip("abcd", store_then_load_reference(a0, b0, steps))), mode, steps,
                    groups)


def run_skipped_barrier(ctx, mode, groups=None, steps=31):
    prog, arrays = skipped_barrier(ctx)
    want = skipped_barrier_reference(arrays[0].shape[0], steps)
    run_and_compare(prog, dict(zip("xyz", arrays)), dict(zip("xyz", want)), mode, steps,
                    groups)


@pytest.mark.parametrize("mode", MODES)
def test_stages_load_what_they_stored(ctx, mode):
    run_store_then_load(ctx, mode)
    run_skipped_barrier(ctx, mode)


def test_a_conditional_stages_barrier_does_not_count(ctx, monkeypatch):
    """shift's barrier runs only on the steps shift runs: `use` loads x plainly."""
    _nvidia(ctx, monkeypatch)
    prog, _ = skipped_barrier(ctx, n=1024)
    src = prog.glsl()
    assert "_vkp_ro_x[" in _stage(src, "shift")          # after bump, past the barrier
    assert "_vkp_ro" not in _stage(src, "use") and "z[i] + (x[i] * 2.0)" in _stage(src, "use")
    prog.free()


def test_aliases_are_only_where_no_store_is_pending(ctx, monkeypatch):
    """The GLSL a GPU with the memory model gets: `own` stores a and b and loads them back,
    so it loads both plainly; `neighbour` (after a grid barrier) loads both through the
    aliases; `quarter` loads c at its own index right after `neighbour` stored it, the
    barrier between them elided: plainly; `back` stores b and loads it plainly, and d, after
    a barrier, through its alias. Validated by spirv-val where present (two blocks on one
    binding)."""
    from vkpersist.vk import spirv_val
    from vkpersist.vk.glslang import compile_glsl
    _nvidia(ctx, monkeypatch)
    assert ctx.target.readonly_alias
    prog, _, _ = store_then_load(ctx, n=1024)
    src = prog.glsl()
    assert "layout(std430, binding = 0) nonprivate readonly buffer _vkp_ro_a_buffer " \
        "{ float _vkp_ro_a[]; };" in src
    assert "_vkp_ro_b_buffer" in src and "_vkp_ro_c" not in src   # c: never through one
    assert "_vkp_ro" not in _stage(src, "own")
    assert "_vkp_ro_a[" in _stage(src, "neighbour") and "_vkp_ro_b[" in _stage(src, "neighbour")
    assert "c[i]" in _stage(src, "quarter")
    assert "b[i] - _vkp_ro_d[i]" in _stage(src, "back")
    assert "_vkp_ro" not in prog.glsl("launch")       # the fallback's stages: readonly already
    if spirv_val.enabled():
        spirv_val.validate(compile_glsl(src, target_env="vulkan1.2"), "vulkan1.2",
                           "store_then_load")
    prog.free()
    prog, _, _ = jacobi(ctx, 8)
    src = prog.glsl()
    assert "_vkp_ro_A[" in src and "_vkp_ro_B[" in src     # the stencil: both sweeps' loads
    prog.free()


def test_user_names_like_an_alias_keep_working(ctx, monkeypatch):
    """The aliases are named _vkp_ro_NAME, which no Python name becomes: a stage parameter,
    a local, a helper's parameter and an array named like `x_ro` compile as they are."""
    import vkpersist as vkp
    _nvidia(ctx, monkeypatch)
    prog = vkp.Program(ctx, name="alias_names")
    x = prog.array("x", (64,), np.float32)
    x_ro = prog.array("x_ro", (64,), np.float32)
    y = prog.array("y", (64,), np.float32)

    @prog.stage(domain=64)
    def first(i):
        x[i] = y[(i + 1) % 64] + x_ro[i]

    @prog.stage(domain=64)
    def second(x_ro):
        _vkp_ro_x = x[(x_ro + 3) % 64]
        y[x_ro] = _vkp_ro_x * 2.0 + near(x, x_ro)

    prog.loop(first, second)
    src = prog.glsl()           # compiled by glslang too: an error would raise here
    assert "_vkp_ro_x[" in _stage(src, "second")
    prog.free()


@vkp_func
def near(a, x_ro):
    return a[(x_ro + 1) % 64]


@pytest.fixture
def forced(ctx, monkeypatch):
    if not ctx.info.is_lavapipe:
        pytest.skip("GPUs run these with their own target (test_programs.py, above)")
    monkeypatch.setattr(ctx, "target", dataclasses.replace(ctx.target, readonly_alias=True))


@pytest.mark.parametrize("case", ["bit-identical, 2 groups", "every and step counter",
                                  "when conditions", "everything together",
                                  "elided barriers, 2 groups"])
def test_programs_with_aliases_forced_on(ctx, forced, case):
    shapes.CASES[case](ctx)


def test_stages_load_what_they_stored_with_aliases_forced_on(ctx, forced):
    prog, _, _ = store_then_load(ctx, n=1024)
    assert "coherent readonly buffer _vkp_ro_a_buffer" in prog.glsl()
    prog.free()
    run_store_then_load(ctx, "persistent", groups=2)
    run_skipped_barrier(ctx, "persistent", groups=2)


SEEDS = range(8)


def pending_stores(src: str) -> list:
    """[(stage, arrays stored since the last grid barrier every worker passed)] for each
    stage call of the megakernel's step loop, read from the GLSL itself (not from the
    plan): a barrier inside `if ((_vkp_words[1] & bit) ...)` clears only that block's view,
    and what the block stores stays pending after it."""
    writes = {m.group(1): set(re.findall(r"^    (\w+)\[[^\n]*\] = ", m.group(2), re.M))
              for m in re.finditer(r"^void stage_(\w+)\(int i\) \{\n(.*?)^\}", src,
                                   re.M | re.S)}
    loop = src[src.index("uint s = 0u;"):src.index("_vkp_end_sync(_next")]
    frames = [{"dirty": set(), "stored": set(), "indent": -1}]
    out = []
    for line in loop.splitlines():
        indent = len(line) - len(line.lstrip())
        text = line.strip()
        if text.startswith("if ((_vkp_words[1] &"):
            frames.append({"dirty": set(frames[-1]["dirty"]), "stored": set(),
                           "indent": indent})
        elif text == "}" and indent == frames[-1]["indent"]:
            done = frames.pop()
            frames[-1]["dirty"] |= done["stored"]
            frames[-1]["stored"] |= done["stored"]
        elif text == "_vkp_grid_sync();":
            frames[-1]["dirty"] = set()
        elif m := re.match(r"stage_(\w+)\(", text):
            out.append((m.group(1), set(frames[-1]["dirty"])))
            for f in frames:
                f["dirty"] |= writes[m.group(1)]
                f["stored"] |= writes[m.group(1)]
    return [(name, pending | writes[name]) for name, pending in out]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_programs_alias_only_where_no_store_is_pending(ctx, monkeypatch, tmp_path,
                                                              seed):
    """For random programs (random_programs.py here), the GLSL an NVIDIA target gets loads
    an array through its alias only in stages where, reading the megakernel's own step
    loop, no store to it is pending (its own stores included); and it does use the aliases
    (the stencil-like stages after a barrier)."""
    _nvidia(ctx, monkeypatch)
    prog, _, _ = random_programs.build(ctx, seed, tmp_path)
    src = prog.glsl()
    used = 0
    for name, pending in pending_stores(src):
        aliased = set(re.findall(r"_vkp_ro_(\w+)\[", _stage(src, name)))
        assert not aliased & pending, (name, aliased & pending)
        used += len(aliased)
    prog.free()
    if seed == 0:
        assert used, "seed 0's program loads something through an alias"


@pytest.mark.parametrize("seed", SEEDS)
def test_random_programs_agree_with_numpy(ctx, tmp_path, seed):
    """Both modes against NumPy, bit for bit, on every device (on NVIDIA with the aliases:
    a load that missed a pending store shows here)."""
    for mode in MODES:
        prog, arrays, init = random_programs.build(ctx, seed, tmp_path)
        run_and_compare(prog, arrays, random_programs.reference(seed, init, 20), mode, 20)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_random_programs_with_aliases_forced_on(ctx, forced, tmp_path, seed):
    prog, arrays, init = random_programs.build(ctx, seed, tmp_path)
    run_and_compare(prog, arrays, random_programs.reference(seed, init, 20), "persistent",
                    20, groups=2)
