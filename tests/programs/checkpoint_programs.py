"""Programs for the checkpoint tests (tests/programs/test_checkpoints.py), and the child
process that restores one in a fresh interpreter:

    python checkpoint_programs.py NAME CHECKPOINT MODE STEPS OUT.npz

declares program NAME, restores CHECKPOINT, runs STEPS more steps in MODE and saves every
array into OUT.npz (the step count as `_step`)."""
import sys

import numpy as np

import vkpersist as vkp


def heat(ctx, n=24):
    """A 5-point heat stencil on an array pair, the coefficient a control."""
    prog = vkp.Program(ctx, name="heat")
    t0 = np.zeros((n, n), np.float32)
    t0[n // 3: n // 2, n // 4: n // 2] = 100.0
    T, T_next = prog.array_pair("T", (n, n), np.float32, init=t0)
    ctl = prog.controls(alpha=vkp.f32(0.2))

    @prog.stage(domain=(n - 2, n - 2))
    def diffuse(i, j):
        x = i + 1
        y = j + 1
        T_next[x, y] = T[x, y] + ctl.alpha * (T[x - 1, y] + T[x + 1, y] + T[x, y - 1]
                                              + T[x, y + 1] - 4.0 * T[x, y])

    prog.loop(diffuse)
    return prog


def gray_scott(ctx, n=24):
    """Gray-Scott reaction-diffusion with Philox noise on V (drawn from the seed control,
    the step and the index: counter-based, so a restored run draws the same numbers)."""
    prog = vkp.Program(ctx, name="gray_scott")
    u0 = np.ones((n, n), np.float32)
    v0 = np.zeros((n, n), np.float32)
    u0[n // 3: 2 * n // 3, n // 3: 2 * n // 3] = 0.5
    v0[n // 3: 2 * n // 3, n // 3: 2 * n // 3] = 0.25
    U, U_next = prog.array_pair("U", (n, n), np.float32, init=u0)
    V, V_next = prog.array_pair("V", (n, n), np.float32, init=v0)
    ctl = prog.controls(F=vkp.f32(0.037), k=vkp.f32(0.06), seed=vkp.u32(1234),
                        noise=vkp.f32(0.002))

    @prog.stage(domain=(n, n))
    def react(i, j):
        up = (i + n - 1) % n
        dn = (i + 1) % n
        lf = (j + n - 1) % n
        rt = (j + 1) % n
        u = U[i, j]
        v = V[i, j]
        lu = U[up, j] + U[dn, j] + U[i, lf] + U[i, rt] - 4.0 * u
        lv = V[up, j] + V[dn, j] + V[i, lf] + V[i, rt] - 4.0 * v
        uvv = u * v * v
        z = vkp.random.philox_normal(ctl.seed, vkp.u32(i * n + j) + vkp.u32(n * n) * prog.step)
        U_next[i, j] = u + 0.2 * lu - uvv + ctl.F * (1.0 - u)
        V_next[i, j] = v + 0.1 * lv + uvv - (ctl.F + ctl.k) * v + ctl.noise * z

    prog.loop(react)
    return prog


def levels(ctx, n=200, degree=3, seed=5):
    """Breadth-first search one level a step: `expand` drains the frontier into `found`,
    `promote` moves `found` into the frontier, which holds the next level at every step
    boundary (a queue with items in a checkpoint)."""
    rng = np.random.default_rng(seed)
    edges = rng.integers(0, n, size=n * degree).astype(np.int32)
    offsets = (np.arange(n + 1) * degree).astype(np.int32)
    prog = vkp.Program(ctx, name="levels")
    off = prog.array("off", offsets.shape, np.int32, init=offsets)
    adj = prog.array("adj", edges.shape, np.int32, init=edges)
    dist0 = np.full(n, -1, np.int32)
    dist0[0] = 0
    dist = prog.array("dist", (n,), np.int32, init=dist0)
    frontier = prog.queue("frontier", vkp.i32, capacity=n)
    found = prog.queue("found", vkp.i32, capacity=n)

    @prog.stage(consumes=frontier)
    def expand(v):
        for e in range(off[v], off[v + 1]):
            w = adj[e]
            if vkp.atomic.compare_exchange(dist, w, -1, vkp.i32(prog.step) + 1) == -1:
                found.push(w)

    @prog.stage(consumes=found)
    def promote(v):
        frontier.push(v)

    prog.loop(expand, promote)
    frontier.fill([0])
    return prog


def recorder(ctx, steps=64):
    """Records at each step the value of its `freq` control, which commands change."""
    prog = vkp.Program(ctx, name="recorder")
    seen = prog.array("seen", (steps,), np.float32)
    ctl = prog.controls(freq=vkp.f32(1.0))

    @prog.stage(domain=1)
    def record(i):
        seen[prog.step % steps] = ctl.freq

    prog.loop(record)
    return prog


PROGRAMS = {"heat": heat, "gray_scott": gray_scott, "levels": levels, "recorder": recorder}


def arrays(prog) -> dict:
    return {name: a.numpy() for name, a in prog.arrays.items()}


if __name__ == "__main__":
    name, path, mode, steps, out = sys.argv[1:]
    with vkp.Context() as ctx:
        prog = PROGRAMS[name](ctx)
        prog.restore(path)
        prog.run(int(steps), mode=mode)
        np.savez(out, _step=int(prog.step), **arrays(prog))
