"""The floor of a per-launch kernel: what one queue submission of a one-dispatch command
buffer costs on the host and on the device, against the launch path and CuPy.

    python3 benchmarks/submit_floor.py [N]

Issue 21's target 3 asks for asynchronous launches of <= 8 µs each. Every `k[g, l](...)`
outside `ctx.batched()` is one vkQueueSubmit of a recorded command buffer that carries a
full barrier before its dispatch and one to the host after it (vk/commands.py). This
submits such a buffer N times straight through the held call (no Python launch path),
then buffers without the barriers, with the first only, and one holding 32 dispatches with
barriers between; "host" is the submitting loop's time per submission, "until done" the
time until the device has finished all of them (the device's rate when it is the slower
side). Then the launch path (`bump[1, 64](x)`, alone and inside `ctx.batched()`) and
CuPy's RawKernel launch in the same process. Two rounds.
"""
import sys, time
import vkpersist as vkp
from vkpersist.vk import commands, _api
from vkpersist.vk._api import held, address
N = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
ctx = vkp.Context(0)
print("device:", ctx.info.name)
@vkp.kernel
def bump(x: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] += 1.0
x = ctx.zeros(64)
bump[1, 64](x); ctx.synchronize()
core = ctx._core
with ctx.batched():
    bump[1, 64](x)
    pipeline, buffers, groups, push = core.batch.dispatches[0]
ctx.synchronize()
std = pipeline.command_buffer(buffers, groups, push)

def custom(before, after, count=1):
    cb = commands.spare(core)
    def body(cb):
        for k in range(count):
            commands.dispatch(cb, pipeline, buffers, groups, push)
            if k + 1 < count:
                commands.barrier_between(cb)
    _api.check_result(commands.begin_commands(cb, commands._constants()[0][True]), "begin")
    if before: commands.barrier_after_previous(cb)
    body(cb)
    if after: commands.barrier_before_host(cb)
    _api.check_result(commands.end_commands(cb), "end")
    return commands.Recorded(core, cb)
variants = {"standard barriers": std, "no barriers": custom(False, False),
            "first barrier only": custom(True, False), "32 dispatches, std": custom(True, True, 32)}
q = address(core.queue)
def timeit(rec, n):
    ctx.synchronize()
    t0 = time.perf_counter()
    for i in range(n):
        held.vkQueueSubmit(q, 1, rec.address, None)
    t1 = time.perf_counter()
    core.submit(rec, (rec,))       # fenced; the queue runs the raw submissions first
    ctx.synchronize()
    t2 = time.perf_counter()
    return (t1 - t0) / n * 1e6, (t2 - t0) / n * 1e6
for rnd in range(2):
    for name, rec in variants.items():
        host, total = timeit(rec, N if "32" not in name else N // 32)
        per = 32 if "32" in name else 1
        print(f"round {rnd} {name:22} host {host:6.2f} us/submit  until done {total:6.2f} us/submit"
              f" = {total / per:6.2f} us/dispatch", flush=True)
    t0 = time.perf_counter()
    for i in range(N):
        bump[1, 64](x)
    t1 = time.perf_counter(); ctx.synchronize(); t2 = time.perf_counter()
    print(f"round {rnd} bump[1, 64](x) async: host {(t1-t0)/N*1e6:.2f} us, until done {(t2-t0)/N*1e6:.2f} us")
    with ctx.batched():
        t0 = time.perf_counter()
        for i in range(N):
            bump[1, 64](x)
        t1 = time.perf_counter()
    ctx.synchronize(); t2 = time.perf_counter()
    print(f"round {rnd} batched: host {(t1-t0)/N*1e6:.2f} us, until done {(t2-t0)/N*1e6:.2f} us")
try:
    import cupy as cp
    k = cp.RawKernel(r'''extern "C" __global__ void bump(float* x) {
        int i = threadIdx.x; x[i] += 1.0f; }''', "bump")
    a = cp.zeros(64, cp.float32); k((1,), (64,), (a,)); cp.cuda.runtime.deviceSynchronize()
    for rnd in range(2):
        t0 = time.perf_counter()
        for i in range(N):
            k((1,), (64,), (a,))
        t1 = time.perf_counter(); cp.cuda.runtime.deviceSynchronize(); t2 = time.perf_counter()
        print(f"round {rnd} CuPy async: host {(t1-t0)/N*1e6:.2f} us, until done {(t2-t0)/N*1e6:.2f} us")
except ImportError:
    pass
