"""Lesson 10: work queues: dynamic work on the GPU.

Some work is not known in advance: a breadth-first search discovers the cells it must
visit next while it visits. A program's `prog.queue` is a bounded ring on the GPU; any stage
may `push` to it, and a stage declared with `consumes=queue` is called once per item, in
rounds, until the queue is empty: here each round is one BFS level, and the whole search is
one step of one persistent program. The result is the distance of every cell of a maze
from its centre, checked against a BFS in plain Python.

    python tutorials/10_work_queues.py [--size CELLS]
"""
from collections import deque

import numpy as np

import vkpersist as vkp
from _common import parse, pyplot, save

args = parse(__doc__, size=64, size_help="maze cells per side")
n = args.size
NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))

walls_host = (np.random.default_rng(5).random((n, n)) < 0.35).astype(np.int32)
source = (n // 2, n // 2)
walls_host[source] = 0

prog = vkp.Program(name="maze")
walls = prog.array("walls", (n, n), np.int32, init=walls_host)
dist = prog.array("dist", (n, n), np.int32, init=np.full((n, n), -1, np.int32))
frontier = prog.queue("frontier", vkp.i32, capacity=n * n)   # cell i * n + j


@prog.stage(consumes=frontier)
def visit(v):
    i, j = v // n, v % n
    d = dist[i, j]
    for step in NEIGHBOURS:                  # unrolled: step is a constant in each copy
        a, b = i + step[0], j + step[1]
        if 0 <= a < n and 0 <= b < n and walls[a, b] == 0:
            # the first visitor claims the cell; only it pushes the cell for the next round
            if vkp.atomic.compare_exchange(dist, (a, b), -1, d + 1) == -1:
                frontier.push(a * n + b)


prog.loop(visit)


def bfs_python(walls, source):
    d = np.full(walls.shape, -1, np.int32)
    d[source] = 0
    todo = deque([source])
    while todo:
        i, j = todo.popleft()
        for di, dj in NEIGHBOURS:
            a, b = i + di, j + dj
            if 0 <= a < n and 0 <= b < n and not walls[a, b] and d[a, b] < 0:
                d[a, b] = d[i, j] + 1
                todo.append((a, b))
    return d


def main():
    start = np.full((n, n), -1, np.int32)
    start[source] = 0
    dist.set(start)
    frontier.fill([source[0] * n + source[1]])        # the first round's one item
    # "persistent": the megakernel runs as many rounds as the search needs within a step;
    # the launch fallback runs at most 16 rounds per step (one indirect dispatch each).
    print(prog.run(1, mode="persistent"))
    got = dist.numpy()
    ref = bfs_python(walls_host, source)
    print(f"{n}x{n} maze: {int((got >= 0).sum())} cells reached, farthest {got.max()} steps "
          f"away (= rounds of the queue); queue left {len(frontier)}, dropped {frontier.dropped}")
    same = np.array_equal(got, ref)
    print(f"distances equal to a BFS in Python: {same}")
    assert same and len(frontier) == 0 and frontier.dropped == 0

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 4.5))
    shown = np.ma.masked_less(got.astype(float), 0)
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("black")
    im = ax.imshow(shown, cmap=cmap, origin="lower", interpolation="nearest")
    ax.plot(source[1], source[0], "r+", ms=10)
    fig.colorbar(im, ax=ax, shrink=0.8, label="distance from the centre (cells)")
    ax.set_title("BFS by a work queue (black: walls and cells out of reach)")
    save(fig, args.out, "10_work_queues")
    print("lesson 10 OK")


if __name__ == "__main__":
    main()
