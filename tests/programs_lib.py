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
    """`steps` steps in NumPy; it stops early at a fixed point (with zero boundaries the
    heat decays to one within a few thousand sweeps, and a session on a GPU runs a million
    steps in the seconds a test takes: ~100 s of NumPy on an H100's host)."""
    a = a.astype(np.float32)
    alpha = np.float32(alpha)
    for _ in range(2 * steps):
        p = np.pad(a, 1)
        lap = (p[:-2, 1:-1, 1:-1] + p[2:, 1:-1, 1:-1] + p[1:-1, :-2, 1:-1]
               + p[1:-1, 2:, 1:-1] + p[1:-1, 1:-1, :-2] + p[1:-1, 1:-1, 2:] - 6 * a)
        new = (a + alpha * lap).astype(np.float32)
        if np.array_equal(new, a):
            break
        a = new
    return a


def counters(ctx, every_ctl=3):
    """Counts how often stages run: every step, every 2nd step, every ctl.period-th step;
    `log` records the step number each step saw."""
    prog = vkp.Program(ctx, name="counters")
    counts = prog.array("counts", (3,), np.int32)
    log = prog.array("log", (64,), np.uint32)
    ctl = prog.controls(period=vkp.u32(every_ctl))

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

    prog.loop(each, vkp.every(2, second), vkp.every(ctl.period, by_control))
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


def random_graph(n, degree, seed=0):
    """A random directed graph in CSR form (offsets, edges)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 2 * degree + 1, n)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    edges = rng.integers(0, n, offsets[-1]).astype(np.int32)
    return offsets, edges


def bfs_reference(offsets, edges, source):
    dist = np.full(len(offsets) - 1, -1, np.int32)
    dist[source] = 0
    frontier = [source]
    while frontier:
        nxt = []
        for v in frontier:
            for w in edges[offsets[v]:offsets[v + 1]]:
                if dist[w] < 0:
                    dist[w] = dist[v] + 1
                    nxt.append(w)
        frontier = nxt
    return dist


def bfs(ctx, offsets, edges, capacity=None):
    """Breadth-first search with a work queue: `visit` pops a vertex and pushes the
    neighbours it discovers; one step runs the search to the end."""
    n = len(offsets) - 1
    prog = vkp.Program(ctx, name="bfs")
    off = prog.array("off", offsets.shape, np.int32, init=offsets)
    adj = prog.array("adj", edges.shape, np.int32, init=edges)
    dist = prog.array("dist", (n,), np.int32, init=np.full(n, -1, np.int32))
    frontier = prog.queue("frontier", vkp.i32, capacity=capacity or n)

    @prog.stage(consumes=frontier)
    def visit(v):
        d = dist[v]
        for e in range(off[v], off[v + 1]):
            w = adj[e]
            if vkp.atomic.compare_exchange(dist, w, -1, d + 1) == -1:
                frontier.push(w)

    prog.loop(visit)
    return prog, dist, frontier


def producer(ctx, count, capacity):
    """Pushes `count` items per step into a queue of `capacity`; `drain` sums them."""
    prog = vkp.Program(ctx, name="producer")
    total = prog.array("total", (1,), np.int32)
    q = prog.queue("q", vkp.i32, capacity=capacity)

    @prog.stage(domain=count)
    def produce(i):
        q.push(i)

    @prog.stage(consumes=q)
    def drain(item):
        vkp.atomic.add(total, 0, 1)

    prog.loop(produce, drain)
    return prog, total, q


def chain(ctx, length):
    """Each item pushes its successor: the queue stage needs `length` rounds in one step."""
    prog = vkp.Program(ctx, name="chain")
    seen = prog.array("seen", (length + 1,), np.int32)
    q = prog.queue("q", vkp.u32, capacity=4)

    @prog.stage(consumes=q)
    def follow(item):
        seen[item] = 1
        if item < length:
            q.push(item + 1)

    prog.loop(follow)
    return prog, seen, q


def wave(ctx, n, period, capacity, policy="drop"):
    """A 2-d field that grows by its index each step; `snapshot` emits it every `period`
    steps with the step number as payload."""
    prog = vkp.Program(ctx, name="wave")
    field = prog.array("field", (n, n), np.float32)
    snap = prog.memsock("snap", np.float32, (n, n), capacity=capacity, policy=policy,
                        payload={"step": vkp.u32})

    @prog.stage(domain=(n, n))
    def grow(i, j):
        field[i, j] += float(i * n + j)

    @prog.stage(domain=(n, n))
    def snapshot(i, j):
        snap.frame[i, j] = field[i, j]
        if i == 0 and j == 0:
            snap.step = prog.step

    prog.loop(grow, vkp.every(period, snapshot))
    return prog, snap


def wave_expected(n, step):
    """The field after steps 0..step have run grow."""
    return (np.arange(n * n, dtype=np.float32).reshape(n, n) * (step + 1)).astype(np.float32)


def threshold(ctx, limit):
    """`grow` counts steps in x; `fire` runs on steps that start with x >= limit."""
    prog = vkp.Program(ctx, name="threshold")
    x = prog.array("x", (1,), np.int32)
    fired = prog.array("fired", (1,), np.int32)
    ctl = prog.controls(limit=vkp.i32(limit))

    @vkp.func
    def reached():
        return x[0] >= ctl.limit

    @prog.stage(domain=1)
    def grow(i):
        x[0] += 1

    @prog.stage(domain=1)
    def fire(i):
        fired[0] += 1

    prog.loop(grow, vkp.when(reached, fire))
    return prog, fired


def counted(ctx, total):
    """A loop whose step count is the control field `total`."""
    prog = vkp.Program(ctx, name="counted")
    ticks = prog.array("ticks", (1,), np.int32)
    ctl = prog.controls(total=vkp.u32(total))

    @prog.stage(domain=1)
    def tick(i):
        ticks[0] += 1

    prog.loop(tick, steps=ctl.total)
    return prog, ticks


def combo(ctx):
    """Every kind of loop entry and channel at once: controls with an array field, a queue
    and its consumer, when(), every(control), a memsock with payload, loop(steps=field)."""
    prog = vkp.Program(ctx, name="combo")
    f = prog.array("f", (16, 16))
    hits = prog.array("hits", (4,), np.int32)
    ctl = prog.controls(gain=vkp.f32(0.5), period=vkp.u32(3), total=vkp.u32(40),
                        weights=np.array([1, 2, 3, 4], np.float32), thresh=vkp.f32(5.0))
    q = prog.queue("q", vkp.u32, capacity=64)
    snap = prog.memsock("snap", np.float32, (16, 16), capacity=16, payload={"step": vkp.u32, "g": vkp.f32})

    @vkp.func
    def hot():
        return f[8, 8] > ctl.thresh

    @prog.stage(domain=(16, 16))
    def grow(i, j):
        f[i, j] += ctl.gain * ctl.weights[(i + j) % 4]
        if i == 8 and j == 8 and prog.step % 2 == 0:
            q.push(prog.step)

    @prog.stage(consumes=q)
    def count(item):
        vkp.atomic.add(hits, 0, 1)
        vkp.atomic.max(hits, 1, int(item))

    @prog.stage(domain=1)
    def when_hot(i):
        hits[2] += 1

    @prog.stage(domain=(16, 16))
    def emit(i, j):
        snap.frame[i, j] = f[i, j]
        if i == 0 and j == 0:
            snap.step = prog.step
            snap.g = ctl.gain

    prog.loop(grow, count, vkp.when(hot, when_hot), vkp.every("period", emit), steps="total")
    return prog, f, hits, snap


def ticker(ctx, capacity, policy="drop"):
    """One memsock frame per step carrying the step number (payload and data): for frame
    accounting under load."""
    prog = vkp.Program(ctx, name="ticker")
    count = prog.array("count", (1,), np.uint32)
    sock = prog.memsock("ticks", np.uint32, (2,), capacity=capacity, policy=policy,
                        payload={"step": vkp.u32})

    @prog.stage(domain=2)
    def tick(i):
        sock.frame[i] = prog.step + i
        if i == 0:
            sock.step = prog.step
            count[0] += 1

    prog.loop(tick)
    return prog, sock, count


def recorder(ctx, n):
    """Records, for each of its first n steps, freq + 100 offset as that step saw them."""
    prog = vkp.Program(ctx, name="recorder")
    seen = prog.array("seen", (n,), np.float32)
    ctl = prog.controls(freq=vkp.f32(1.5), offset=vkp.i32(-3))

    @prog.stage(domain=1)
    def record(i):
        s = prog.step
        if s < n:
            seen[s] = ctl.freq + ctl.offset * 100.0

    prog.loop(record)
    return prog, seen


def store_then_load(ctx, n=1 << 16, seed=1):
    """Stages that load what they or an earlier stage stored with no grid barrier between:
    `own` stores a[i] and loads it back (and b[i]); `neighbour` reads a and b at other
    indices (so a barrier comes before it); `quarter` reads c[i], which `neighbour` has just
    stored at the same index (the barrier between them elided); `back` stores b, which
    `neighbour` read elsewhere (a barrier before it), and reads d. Every operation is
    exact in float32, so NumPy (store_then_load_reference) gives the bits. A megakernel
    whose loads took a path that misses the invocation's own stores where one is pending
    (Target.readonly_alias in the wrong place) gets b, c or d wrong."""
    rng = np.random.default_rng(seed)
    a0 = rng.integers(0, 1000, n).astype(np.float32)
    b0 = rng.integers(0, 1000, n).astype(np.float32)
    prog = vkp.Program(ctx, name="store_then_load")
    a = prog.array("a", (n,), init=a0)
    b = prog.array("b", (n,), init=b0)
    c = prog.array("c", (n,), np.float32)
    d = prog.array("d", (n,), np.float32)

    @prog.stage(domain=n)
    def own(i):
        a[i] = a[i] * 0.5 + 1.0
        b[i] = a[i] + b[i]

    @prog.stage(domain=n)
    def neighbour(i):
        c[i] = a[(i + 4097) % n] - b[(i + 77) % n]

    @prog.stage(domain=n)
    def quarter(i):
        d[i] = c[i] * 0.25

    @prog.stage(domain=n)
    def back(i):
        b[i] = b[i] - d[i]

    prog.loop(own, neighbour, quarter, back)
    return prog, (a, b, c, d), (a0, b0)


def store_then_load_reference(a0, b0, steps):
    a, b, c, d = a0.copy(), b0.copy(), None, None
    for _ in range(steps):
        a = a * np.float32(0.5) + np.float32(1.0)
        b = a + b
        c = np.roll(a, -4097) - np.roll(b, -77)
        d = c * np.float32(0.25)
        b = b - d
    return a, b, c, d


def skipped_barrier(ctx, n=1 << 14):
    """`use` loads x[i], which `bump` stored at the same index with no barrier of its own
    between them: the only one, before `shift`, runs inside shift's every(2), so on odd
    steps nothing synchronises bump and use (skipped_barrier_reference gives the bits)."""
    prog = vkp.Program(ctx, name="skipped_barrier")
    x = prog.array("x", (n,), init=np.arange(n, dtype=np.float32))
    y = prog.array("y", (n,), np.float32)
    z = prog.array("z", (n,), np.float32)

    @prog.stage(domain=n)
    def bump(i):
        x[i] = x[i] + 1.0

    @prog.stage(domain=n)
    def shift(i):
        y[i] = x[(i + 5) % n]

    @prog.stage(domain=n)
    def use(i):
        z[i] = z[i] + x[i] * 2.0

    prog.loop(bump, vkp.every(2, shift), use)
    return prog, (x, y, z)


def skipped_barrier_reference(n, steps):
    x, y, z = np.arange(n, dtype=np.float32), np.zeros(n, np.float32), np.zeros(n, np.float32)
    for t in range(steps):
        x = x + np.float32(1)
        if t % 2 == 0:
            y = np.roll(x, -5)
        z = z + x * np.float32(2)
    return x, y, z


def jacobi_pair(ctx, n, alpha=0.1, seed=0):
    """One 7-point heat sweep per step on an array pair (A -> A_next, swapped at the step
    end): the pair's two names are one buffer and one binding."""
    init = np.random.default_rng(seed).random((n, n, n)).astype(np.float32)
    prog = vkp.Program(ctx, name=f"jacobi_pair{n}")
    A, A_next = prog.array_pair("A", (n, n, n), init=init)
    ctl = prog.controls(alpha=vkp.f32(alpha))

    @prog.stage(domain=(n, n, n))
    def sweep_pair(i, j, k):
        sweep(A, A_next, ctl.alpha, i, j, k)

    prog.loop(sweep_pair)
    return prog, A, init
