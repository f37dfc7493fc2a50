import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import vkpersist as vkp
from vkpersist.vk.glsl_kernel import guard_loops
from vkpersist.vk import glslang
from vkpersist.vk.glslang import compile_glsl
from vkpersist.vk.spirv import reflect

SAXPY = """#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform P { float a; uint n; };
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
void main() { uint i = gl_GlobalInvocationID.x; if (i < n) y[i] = a * x[i] + y[i]; }
"""

PUSH_TYPES = """#version 450
layout(local_size_x = 1) in;
layout(push_constant) uniform P { int i; uint u; float f; vec3 v; int k[2]; } pc;
layout(std430, binding = 0) buffer Out { float o[]; };
void main() {
    o[0] = float(pc.i); o[1] = float(pc.u); o[2] = pc.f;
    o[3] = pc.v.x; o[4] = pc.v.y; o[5] = pc.v.z; o[6] = float(pc.k[0]); o[7] = float(pc.k[1]);
}
"""


def test_saxpy_on_device_arrays_is_asynchronous_and_correct(ctx):
    k = vkp.lowlevel.glsl_kernel(SAXPY, name="saxpy")
    n = 10_000
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    dx, dy = ctx.asarray(x), ctx.zeros(n)
    for _ in range(5):
        k[(n + 63) // 64](dx, dy, a=2.0, n=n)
    ctx.synchronize()
    np.testing.assert_allclose(dy.numpy(), 5 * np.float32(2.0) * x, rtol=1e-5)


def test_numpy_arguments_copied_back_unless_readonly(ctx):
    k = vkp.lowlevel.glsl_kernel(SAXPY, ctx=ctx)
    x = np.arange(100, dtype=np.float32)
    x_before = x.copy()
    y = np.ones(100, np.float32)
    k[2](x, y, a=3, n=100)
    np.testing.assert_array_equal(y, 1 + 3 * x_before)
    np.testing.assert_array_equal(x, x_before)
    with pytest.raises(ValueError, match="'Y' is written by the shader but the NumPy array is read-only"):
        ro = np.ones(100, np.float32)
        ro.flags.writeable = False
        k[2](x, ro, a=1, n=100)


def test_push_constant_types(ctx):
    k = vkp.lowlevel.glsl_kernel(PUSH_TYPES)
    out = ctx.zeros(8)
    k[1](out, i=-7, u=4_000_000_000, f=0.25, v=(1, 2, 3), k=[5, -6])
    np.testing.assert_array_equal(out.numpy(), np.float32([-7, 4e9, 0.25, 1, 2, 3, 5, -6]))
    assert k.push_constants["v"] == (np.dtype(np.float32), 3)


@pytest.mark.parametrize("push, error, match", [
    (dict(i=1, u=1, f=1, v=(1, 2, 3)), TypeError, "missing push constant\\(s\\) k"),
    (dict(i=1, u=1, f=1, v=(1, 2, 3), k=[1, 2], z=3), TypeError, "unknown push constant\\(s\\) z; the shader declares: i, u, f, v, k"),
    (dict(i=1, u=-1, f=1, v=(1, 2, 3), k=[1, 2]), TypeError, "push constant 'u'"),
    (dict(i=1.5, u=1, f=1, v=(1, 2, 3), k=[1, 2]), TypeError, "\\(int32\\) takes an integer, got 1.5"),
    (dict(i=1, u=1, f=1, v=(1, 2), k=[1, 2]), ValueError, "'v' takes 3 values, got 2"),
])
def test_push_constant_mistakes(ctx, push, error, match):
    k = vkp.lowlevel.glsl_kernel(PUSH_TYPES)
    with pytest.raises(error, match=match):
        k[1](ctx.zeros(8), **push)


def test_argument_mistakes(ctx):
    k = vkp.lowlevel.glsl_kernel(SAXPY, name="saxpy")
    x, y = ctx.zeros(64), ctx.zeros(64)
    with pytest.raises(TypeError, match="saxpy: takes 2 array argument\\(s\\) \\(X, Y\\) in binding order, got 1"):
        k[1](x, a=1, n=64)
    with pytest.raises(TypeError, match="'Y' must be a vkpersist Array or a NumPy array, not list"):
        k[1](x, [1, 2], a=1, n=64)
    with pytest.raises(ValueError, match="saxpy: groups is -1; each axis takes 0 \\(launch nothing\\) or more"):
        k[-1](x, y, a=1, n=64)
    with pytest.raises(TypeError, match="saxpy: groups must be an int or a tuple of 1-3 ints, got 1.5"):
        k[1.5](x, y, a=1, n=64)
    limit = ctx.info.max_workgroup_count[0]
    with pytest.raises(ValueError, match=f"saxpy: {limit + 1:,} workgroups on axis x; .* takes 0 to {limit:,} there"):
        k[limit + 1](x, y, a=1, n=64)
    with pytest.raises(vkp.VkPersistError, match="fixes local_size \\(64, 1, 1\\); to choose it at launch declare"):
        k[1, 32](x, y, a=1, n=64)
    with vkp.Context(ctx.info.index) as other:
        with pytest.raises(vkp.VkPersistError, match="belongs to another Context"):
            k[1](x, other.zeros(64), a=1, n=64)


def test_zero_groups_is_a_no_op(ctx):
    k = vkp.lowlevel.glsl_kernel(SAXPY)
    y = ctx.full(64, 5.0)
    k[0](ctx.zeros(64), y, a=1, n=64)
    assert (y.numpy() == 5).all()


def test_local_size_chosen_at_launch_and_2d_grids(ctx):
    src = """#version 450
    layout(local_size_x_id = 0, local_size_y_id = 1) in;
    layout(push_constant) uniform P { uint w; uint h; };
    layout(std430, binding = 0) buffer Out { uint o[]; };
    void main() {
        uvec2 g = gl_GlobalInvocationID.xy;
        if (g.x < w && g.y < h) o[g.y * w + g.x] = g.y * 1000u + g.x + gl_WorkGroupSize.x * 1000000u;
    }
    """
    k = vkp.lowlevel.glsl_kernel(textwrap.dedent(src))
    assert k.reflection.local_size_spec_ids[:2] == (0, 1)
    w, h = 37, 11
    expect = (np.arange(h)[:, None] * 1000 + np.arange(w)[None, :]).astype(np.uint32)
    for local in [(8, 4), (16, 2)]:
        out = ctx.zeros(w * h, np.uint32)
        k[((w + local[0] - 1) // local[0], (h + local[1] - 1) // local[1]), local](out, w=w, h=h)
        np.testing.assert_array_equal(out.numpy().reshape(h, w), expect + local[0] * 1_000_000)
    with pytest.raises(ValueError, match="invocations; the device allows"):
        k[(1, 1), (1024, 1024)](ctx.zeros(4, np.uint32), w=1, h=1)


def test_compile_error_shows_the_line():
    bad = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {\n    float v = undefined_name * 2.0;\n}\n"
    with pytest.raises(vkp.CompileError) as info:
        vkp.lowlevel.glsl_kernel(bad, name="broken.comp")
    msg = str(info.value)
    assert "broken.comp:4: error: 'undefined_name' : undeclared identifier" in msg
    assert "   4 |     float v = undefined_name * 2.0;" in msg


def test_uniform_blocks_are_rejected_with_a_hint():
    src = "#version 450\nlayout(local_size_x=1) in;\nlayout(binding=0) uniform U { float u; };\n" \
          "layout(std430, binding=1) buffer B { float b[]; };\nvoid main() { b[0] = u; }\n"
    with pytest.raises(vkp.VkPersistError, match="uniform blocks are not supported.*push constants"):
        vkp.lowlevel.glsl_kernel(src)


def test_defines_reach_the_shader(ctx):
    src = "#version 450\nlayout(local_size_x=1) in;\nlayout(std430, binding=0) buffer B { uint b[]; };\n" \
          "void main() { b[0] = VALUE; }\n"
    out = ctx.zeros(1, np.uint32)
    vkp.lowlevel.glsl_kernel(src, defines={"VALUE": "17u"})[1](out)
    assert out.numpy()[0] == 17
    with pytest.raises(ValueError, match="not a valid GLSL identifier"):
        vkp.lowlevel.glsl_kernel(src, defines={"1x": 1})


def test_reflection_reads_bindings_push_and_local_size():
    r = reflect(compile_glsl(SAXPY))
    assert [(b.binding, b.name, b.readonly) for b in r.bindings] == [(0, "X", True), (1, "Y", False)]
    assert [(m.name, m.offset, str(m.dtype)) for m in r.push_members] == [("a", 0, "float32"), ("n", 4, "uint32")]
    assert r.push_size == 8 and r.local_size == (64, 1, 1)


def test_cache_is_reused_and_safe_under_concurrent_compiles(tmp_path, monkeypatch):
    monkeypatch.setenv("VKPERSIST_CACHE", str(tmp_path))
    unique = SAXPY.replace("void main", "// concurrency test\nvoid main")
    script = textwrap.dedent("""
        import sys
        from vkpersist.vk.glslang import compile_glsl
        from vkpersist.vk.spirv import reflect
        code = compile_glsl(sys.stdin.read())
        assert reflect(code).push_size == 8
        print(len(code))
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [p.communicate(unique, timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert len(set(outs)) == 1
    entries = list((tmp_path / "spirv").iterdir())
    assert len(entries) == 1 and entries[0].suffix == ".spv"   # no stray temporary files
    glslang.compiler()          # finding the compiler runs it once a process: not a compile
    def no_compiler(*a, **k):
        raise AssertionError("a cached shader must not be recompiled")
    monkeypatch.setattr(subprocess, "run", no_compiler)
    code = compile_glsl(unique)
    assert len(code) == int(outs[0]) and entries[0].read_bytes().endswith(code)


# ---- loop guard: lavapipe's silent loop limit (VULKAN_FACTS.md §5) --------------------

LOOPS = """#version 450
layout(local_size_x = 1) in;
layout(push_constant) uniform P { uint n; uint kind; };
layout(std430, binding = 0) buffer Out { uint o[]; };
#define COUNT_TO(i, m) for (uint i = 0u; i < (m); ++i)
uint helper(uint m) {           // for (...) in a comment is not a loop
    uint s = 0u;
    for (uint i = 0u; i < m; i++)
        s += i % 7u;
    return s;
}
void main() {
    uint s = 0u, i = 0u;
    if (kind == 0u) s = helper(n);
    else if (kind == 1u) { while (true) { if (i++ == n) break; s += 1u; } }
    else if (kind == 2u) { do s += 2u; while (++i < n); }
    else { COUNT_TO(a, n / 100u) COUNT_TO(b, 100u) s += 1u; }
    o[0] = s;
}
"""
LOOP_RESULTS = {0: lambda n: sum(i % 7 for i in range(n)), 1: lambda n: n, 2: lambda n: 2 * n,
                3: lambda n: n // 100 * 100}


@pytest.mark.parametrize("kind", sorted(LOOP_RESULTS), ids=["for-braceless-in-function",
                                                            "while-true", "do-while",
                                                            "nested-from-macro"])
def test_raw_loops_past_lavapipes_limit_raise_never_truncate(ctx, kind):
    k = vkp.lowlevel.glsl_kernel(LOOPS, name="loops", ctx=ctx)
    out = ctx.zeros(1, np.uint32)
    k[1](out, n=1000, kind=kind)
    assert out.numpy()[0] == LOOP_RESULTS[kind](1000)
    k[1](out, n=100_000, kind=kind)
    if not ctx.info.is_lavapipe:
        assert out.numpy()[0] == LOOP_RESULTS[kind](100_000)
        return
    with pytest.raises(vkp.DeviceLimitError, match="glsl_kernel 'loops': an invocation ran more "
                                                   "than 65,000 loop iterations.*truncated"):
        out.numpy()
    k[1](out, n=10, kind=kind)           # the context stays usable
    assert out.numpy()[0] == LOOP_RESULTS[kind](10)


def test_loop_guard_opt_out_is_explicit(ctx):
    with pytest.raises(TypeError, match="loop_guard=\\) takes True or False, got 'no'"):
        vkp.lowlevel.glsl_kernel(LOOPS, loop_guard="no")
    k = vkp.lowlevel.glsl_kernel(LOOPS, name="unguarded", ctx=ctx, loop_guard=False)
    out = ctx.zeros(1, np.uint32)
    k[1](out, n=100_000, kind=0)
    got = out.numpy()[0]                 # no error: what the opt-out gives up
    if ctx.info.is_lavapipe:
        assert got != LOOP_RESULTS[0](100_000), "lavapipe no longer cuts loops: update the docs"
    else:
        assert got == LOOP_RESULTS[0](100_000)


def test_guard_instruments_conditions_and_keeps_lines():
    src = ("#version 450\n#pragma for (x)\nlayout(local_size_x = 1) in;\n"
           "int transform(int x) { return x; }\n"
           "void main() { int i = 0; while (bool go = i < min(3, (4))) i++;\n"
           "  for (int j = 0;; j++) { if (j > 3) break; }\n  do i--; while (i > 0); }\n")
    out = guard_loops(src, binding=2, kernel_id=7)
    assert out.count("\n") == src.count("\n")
    assert "#pragma for (x)\n" in out and "int transform(int x)" in out
    assert "binding = 2) buffer VkpStatus" in out and "atomicCompSwap(_vkp_status[0], 0u, 7u)" in out
    assert "while (bool go = _vkp_loop_guard() && ( i < min(3, (4))))" in out
    assert "for (int j = 0; _vkp_loop_guard(); j++)" in out
    assert "while ( _vkp_loop_guard() && (i > 0));" in out
    assert reflect(compile_glsl(out)).bindings[0].binding == 2
    assert guard_loops("#version 450\nvoid main() { int format = 1; }\n", 0, 1) is None


def test_a_shader_the_guard_cannot_instrument_fails_loudly():
    src = ("#version 450\nlayout(local_size_x = 1) in;\nuint _vkp_iterations = 0u;\n"
           "void main() { for (uint i = 0u; i < 10u; i++) _vkp_iterations += i; }\n")
    k = vkp.lowlevel.glsl_kernel(src, name="clash")
    with pytest.raises(vkp.VkPersistError, match="clash: vkpersist could not add its loop-limit "
                                                 "check.*pass loop_guard=False"):
        k._loop_guarded()


# ---- the on-disk shader cache verifies its entries ------------------------------------

PLUS = SAXPY.replace("y[i] = a * x[i] + y[i]", "y[i] = x[i] + a")
TIMES = SAXPY.replace("y[i] = a * x[i] + y[i]", "y[i] = x[i] * a")
CACHE_CHECK = f"""
import sys
import numpy as np
import vkpersist as vkp
ctx = vkp.Context(int(sys.argv[1]))
x = np.arange(64, dtype=np.float32)
for name, src, want in [("plus", {PLUS!r}, x + 3), ("times", {TIMES!r}, x * 3)]:
    y = np.zeros(64, np.float32)
    vkp.lowlevel.glsl_kernel(src, name=name, ctx=ctx)[1](x, y, a=3.0, n=64)
    assert (y == want).all(), (name, y[:4])
print("results ok")
"""


def _entries(cache):
    return set((cache / "spirv").glob("*.spv"))


@pytest.mark.parametrize("damage", ["truncated", "swapped", "garbage", "unwritable", "read-only"])
def test_damaged_cache_entries_are_recompiled_with_a_warning(ctx, tmp_path, monkeypatch, damage):
    if damage == "read-only" and os.geteuid() == 0:
        pytest.skip("root writes into read-only directories ('unwritable' covers it)")
    cache = tmp_path / "cache"
    monkeypatch.setenv("VKPERSIST_CACHE", str(cache))
    compile_glsl(PLUS)
    (plus,) = _entries(cache)
    compile_glsl(TIMES)
    (times,) = _entries(cache) - {plus}
    good = {p: p.read_bytes() for p in (plus, times)}
    if damage == "truncated":
        plus.write_bytes(good[plus][:len(good[plus]) // 2])
    elif damage == "swapped":
        plus.write_bytes(good[times])
        times.write_bytes(good[plus])
    elif damage == "garbage":            # even with SPIR-V's magic number in front
        plus.write_bytes(b"\x03\x02\x23\x07" + bytes(200))
    elif damage == "unwritable":         # the cache's directory is a file
        for p in good:
            p.unlink()
        (cache / "spirv").rmdir()
        (cache / "spirv").write_text("not a directory")
    else:
        plus.write_bytes(b"garbage")
        (cache / "spirv").chmod(0o555)
    try:
        run = subprocess.run([sys.executable, "-c", CACHE_CHECK, str(ctx.info.index)],
                             capture_output=True, text=True, timeout=180)
    finally:
        (cache / "spirv").chmod(0o755)
    assert run.returncode == 0 and "results ok" in run.stdout, run.stderr
    if damage == "unwritable":
        assert run.stderr.count("cannot write the shader cache in") == 1, run.stderr
        return
    damaged = [plus, times] if damage == "swapped" else [plus]
    for p in damaged:
        assert f"discarded the damaged shader cache entry {p}" in run.stderr, run.stderr
    if damage == "read-only":
        assert "cannot write the shader cache" in run.stderr
    else:                                # repaired: the next process compiles nothing
        assert {p: p.read_bytes() for p in good} == good


# ---- the cache trusts neither other users nor entries it did not sign ------------------

def _check_in_subprocess(ctx, cache, config):
    env = {**os.environ, "VKPERSIST_CACHE": str(cache), "XDG_CONFIG_HOME": str(config)}
    return subprocess.run([sys.executable, "-c", CACHE_CHECK, str(ctx.info.index)],
                          capture_output=True, text=True, timeout=180, env=env)


def test_a_cache_others_can_write_into_is_not_used(ctx, tmp_path):
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(0o777)                       # a directory a co-user can plant files in
    run = _check_in_subprocess(ctx, cache, tmp_path / "config")
    assert run.returncode == 0 and "results ok" in run.stdout, run.stderr
    assert f"not using the shader cache {cache}: it is writable by other users" in run.stderr
    assert run.stderr.count("not using the shader cache") == 1     # once per process
    assert not any(cache.rglob("*.spv"))     # nothing written there either


@pytest.mark.parametrize("forgery", ["checksum", "another key"])
def test_a_planted_entry_under_the_right_name_is_refused(ctx, tmp_path, monkeypatch, forgery):
    """The attack of issue 53: an entry under kernel A's key holding kernel B's SPIR-V,
    with a valid plain checksum (what the cache trusted before) or signed with a key that
    is not the user's."""
    import hashlib
    import hmac
    cache, config = tmp_path / "cache", tmp_path / "config"
    monkeypatch.setenv("VKPERSIST_CACHE", str(cache))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    glslang._secret.cache_clear()
    try:
        compile_glsl(PLUS)
        (plus,) = _entries(cache)
        compile_glsl(TIMES)
        (times,) = _entries(cache) - {plus}
    finally:
        glslang._secret.cache_clear()
    head = len(glslang._ENTRY_MAGIC)
    plus_key, times_code = plus.read_bytes()[head:head + 32], times.read_bytes()[head + 64:]
    stamp = hashlib.sha256(times_code).digest() if forgery == "checksum" else \
        hmac.new(b"\x01" * 32, plus_key + times_code, hashlib.sha256).digest()
    plus.write_bytes(glslang._ENTRY_MAGIC + plus_key + stamp + times_code)
    run = _check_in_subprocess(ctx, cache, config)
    assert run.returncode == 0 and "results ok" in run.stdout, run.stderr   # not 666.0
    assert f"discarded the damaged shader cache entry {plus}" in run.stderr
    assert "signature does not match" in run.stderr


def test_the_signing_key_is_the_users_alone(ctx, tmp_path):
    cache, config = tmp_path / "cache", tmp_path / "config"
    run = _check_in_subprocess(ctx, cache, config)
    assert run.returncode == 0, run.stderr
    key = config / "vkpersist" / "cache-key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_bytes()) == 32
    assert (config / "vkpersist").stat().st_mode & 0o777 == 0o700
    assert cache.stat().st_mode & 0o777 == 0o700          # made for the user alone
    key.chmod(0o644)                                      # others could read it now
    run = _check_in_subprocess(ctx, cache, config)
    assert run.returncode == 0 and "results ok" in run.stdout, run.stderr
    assert f"{key} is readable or writable by others" in run.stderr
