"""Resources are released in the right order and repeated create/free cycles do not grow."""
import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import vkpersist as vkp

SQUARE = """#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform P { uint n; };
layout(std430, binding = 0) buffer A { float a[]; };
void main() { uint i = gl_GlobalInvocationID.x; if (i < n) a[i] = a[i] * a[i]; }
"""


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _live_children(ctx) -> int:
    return len(ctx._core.children)


def test_thousand_array_and_launch_cycles_do_not_grow(ctx):
    k = vkp.lowlevel.glsl_kernel(SQUARE)
    host = np.arange(4096, dtype=np.float32)

    def cycle():
        a = ctx.asarray(host)
        k[64](a, n=4096)
        assert a.numpy()[3] == 9.0
        a.free() if cycle.explicit else None
        cycle.explicit = not cycle.explicit
    cycle.explicit = True

    for _ in range(100):   # warm up caches and allocator pools
        cycle()
    gc.collect()
    children, rss = _live_children(ctx), _rss_bytes()
    for _ in range(1000):
        cycle()
    gc.collect()
    assert _live_children(ctx) <= children
    growth = _rss_bytes() - rss
    assert growth < 16 << 20, f"resident memory grew by {growth / 2**20:.1f} MiB over 1000 cycles"


def test_kernel_and_pipeline_cycles_release_everything(ctx):
    x = ctx.zeros(64)
    ctx.synchronize()
    ctx._core.retire()
    gc.collect()
    baseline = _live_children(ctx)
    for i in range(50):
        k = vkp.lowlevel.glsl_kernel(SQUARE.replace("void main", f"// {i % 5}\nvoid main"))
        k[1](x, n=64)
        ctx.synchronize()
        del k
        gc.collect()
    ctx.synchronize()
    gc.collect()
    assert _live_children(ctx) == baseline


def test_context_cycles_do_not_grow(device_info):
    def cycle():
        with vkp.Context(device_info.index) as c:
            a = c.asarray(np.ones(1024, np.float32))
            assert a.numpy().sum() == 1024
    for _ in range(10):
        cycle()
    gc.collect()
    rss = _rss_bytes()
    for _ in range(100):
        cycle()
    gc.collect()
    growth = _rss_bytes() - rss
    assert growth < 16 << 20, f"resident memory grew by {growth / 2**20:.1f} MiB over 100 contexts"


def test_closing_a_context_releases_its_children(device_info):
    c = vkp.Context(device_info.index)
    a = c.zeros(16)
    k = vkp.lowlevel.glsl_kernel(SQUARE)
    k[1](a, n=16)
    c.close()
    assert not a.buffer.alive and c._core.children == {}
    with pytest.raises(vkp.VkPersistError, match="freed"):
        a.numpy()


def test_interpreter_exit_with_live_objects_is_clean(device_info):
    script = textwrap.dedent(f"""
        import numpy as np, vkpersist as vkp
        ctx = vkp.Context({device_info.index})
        k = vkp.lowlevel.glsl_kernel({SQUARE!r})
        arrays = [ctx.asarray(np.full(64, i, np.float32)) for i in range(5)]
        for a in arrays:
            k[1](a, n=64)                 # still pending at exit for all we know
        view = ctx.zeros(8, memory="host").numpy_view()
        other = vkp.default_context()
        print("ok")
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok" and run.stderr == ""


BUSY = """#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer A { float a[]; };
void main() {
    float v = a[gl_GlobalInvocationID.x];
    for (int k = 0; k < 20000; ++k) v = v * 0.9999 + 1.0;
    a[gl_GlobalInvocationID.x] = v;
}
"""


def test_exit_while_the_last_created_kernel_still_runs(device_info):
    """At exit the context must wait for running work before any child (here the pipeline,
    created last, whose finalizer would otherwise run first) is destroyed."""
    script = textwrap.dedent(f"""
        import numpy as np, vkpersist as vkp
        ctx = vkp.Context({device_info.index})
        a = ctx.zeros(64 * 64)
        k = vkp.lowlevel.glsl_kernel({BUSY!r})
        for _ in range(4):
            k[64](a)
        print("launched")
    """)
    for _ in range(3):
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 0, (run.returncode, run.stderr)
        assert run.stdout.strip() == "launched" and run.stderr == ""


def test_program_cycles_release_everything(ctx):
    """Programs compiled, run in both modes and freed, again and again, leave nothing
    behind on the device (their pipelines, recorded sequences, arrays, queues and memsocks)."""
    from programs_lib import combo

    def cycle():
        prog, f, hits, snap = combo(ctx)
        for mode in ("persistent", "launch"):
            prog.run(5, mode=mode)
        assert int(prog.step) == 10
        prog.free()

    for _ in range(3):
        cycle()
    ctx.synchronize()
    gc.collect()
    baseline = _live_children(ctx)
    for _ in range(8):
        cycle()
    ctx.synchronize()
    gc.collect()
    assert _live_children(ctx) <= baseline
