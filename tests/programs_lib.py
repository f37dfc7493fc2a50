"""Programs shared by the program tests (stages must live in a file: their source is read)."""
import numpy as np

import vkpersist as vkp


@vkp.func
def at(a, i, j, k):
    n = a.shape[0]
    if i < 0 or j < 0 or k < 0 or i >= n or j >= n or k >= n:
        return 0.0
    return a[i, j, k]


@vkp.func
def sweep(src, dst, alpha, i, j, k):
    lap = (at(src, i - 1, j, k) + at(src, i + 1, j, k) + at(src, i, j - 1, k)
           + at(src, i, j + 1, k) + at(src, i, j, k - 1) + at(src, i, j, k + 1)
           - 6.0 * src[i, j, k])
    dst[i, j, k] = src[i, j, k] + alpha * lap


def jacobi(ctx, n, alpha=0.1, seed=0):
    """Two 7-point heat sweeps per step (A -> B, B -> A), zero boundaries."""
    init = np.random.default_rng(seed).random((n, n, n)).astype(np.float32)
    prog = vkp.Program(ctx, name=f"jacobi{n}")
    A = prog.array("A", (n, n, n), init=init)
    B = prog.array("B", (n, n, n))
    ctl = prog.controls(alpha=vkp.f32(alpha))

    @prog.stage(domain=(n, n, n))
    def sweep_ab(i, j, k):
        sweep(A, B, ctl.alpha, i, j, k)

    @prog.stage(domain=(n, n, n))
    def sweep_ba(i, j, k):
        sweep(B, A, ctl.alpha, i, j, k)

    prog.loop(sweep_ab, sweep_ba)
    return prog, A, init


def jacobi_reference(a, steps, alpha=0.1):
    a = a.astype(np.float32)
    alpha = np.float32(alpha)
    for _ in range(2 * steps):
        p = np.pad(a, 1)
        lap = (p[:-2, 1:-1, 1:-1] + p[2:, 1:-1, 1:-1] + p[1:-1, :-2, 1:-1]
               + p[1:-1, 2:, 1:-1] + p[1:-1, 1:-1, :-2] + p[1:-1, 1:-1, 2:] - 6 * a)
        a = (a + alpha * lap).astype(np.float32)
    return a


def counters(ctx, every_ctl=3):
    """Counts how often stages run: every step, every 2nd step, every ctl.period-th step;
    `log` records the step number each step saw."""
    prog = vkp.Program(ctx, name="counters")
    counts = prog.array("counts", (3,), np.int32)
    log = prog.array("log", (64,), np.uint32)
    prog.controls(period=vkp.u32(every_ctl))

    @prog.stage(domain=1)
    def each(i):
        counts[0] += 1
        s = prog.step
        if s < 64:
            log[s] = s + 1

    @prog.stage(domain=1)
    def second(i):
        counts[1] += 1

    @prog.stage(domain=1)
    def by_control(i):
        counts[2] += 1

    prog.loop(each, vkp.every(2, second), vkp.every("period", by_control))
    return prog, counts, log


def long_loop(ctx, iterations):
    """One stage whose single invocation loops `iterations` times."""
    prog = vkp.Program(ctx, name="long_loop")
    out = prog.array("out", (1,), np.float32)

    @prog.stage(domain=1)
    def spin(i):
        x = 0.0
        for k in range(iterations):
            x += 1.0
        out[0] = x

    prog.loop(spin)
    return prog, out


def slow(ctx, n, iterations):
    """One step that takes a while (for heartbeat timeouts)."""
    prog = vkp.Program(ctx, name="slow")
    out = prog.array("out", (n,), np.float32)

    @prog.stage(domain=n)
    def work(i):
        x = out[i]
        for k in range(iterations):
            x = vkp.sin(x) + 1.0
        out[i] = x

    prog.loop(work)
    return prog, out
