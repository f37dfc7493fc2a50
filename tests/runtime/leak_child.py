"""Creates and drops N Contexts or N Programs without close() or free(), as a Python user
does, and prints what is left (tests/runtime/test_lifetimes.py): whether any survived the
garbage collector, the threads, and how much the resident memory grew after the first 50
(the caches that stay filled by then)."""
import gc
import json
import pathlib
import sys
import threading
import time
import weakref

import numpy as np

import vkpersist as vkp

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "programs"))
from checkpoint_programs import heat     # noqa: E402

MIN_COUNT = 200        # dropped before a time limit may end the loop: 150 after the 50th


@vkp.kernel
def doubled(x: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] = 2.0 * x[i]


def rss_mib() -> float:
    return int(pathlib.Path("/proc/self/statm").read_text().split()[1]) * 4096 / 2**20


def context_used_and_dropped():
    c = vkp.Context()
    x = c.asarray(np.arange(1000, dtype=np.float32))
    doubled[4, 256](x)
    float(np.sum(vkp.sin(x)))
    return weakref.ref(c)


def program_run_and_dropped(ctx, mode):
    p = heat(ctx, n=16)
    p.run(2, mode=mode)
    return weakref.ref(p)


def main():
    """argv: kind, at most N, then seconds after which to stop once MIN_COUNT are done
    (a GPU creates a Context in ~0.2 s where lavapipe takes ~0.02 s)."""
    kind, n = sys.argv[1], int(sys.argv[2])
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else float("inf")
    ctx = vkp.Context() if kind != "contexts" else None
    refs, base, threads = [], None, None
    start = time.perf_counter()
    for k in range(n):
        refs.append(context_used_and_dropped() if kind == "contexts"
                    else program_run_and_dropped(ctx, kind))
        if k == 49:
            gc.collect()
            base, threads = rss_mib(), threading.active_count()
        if k + 1 >= MIN_COUNT and time.perf_counter() - start > seconds:
            break
    gc.collect()
    print(json.dumps({"count": len(refs), "alive": sum(r() is not None for r in refs),
                      "grew_mib": rss_mib() - base, "threads": threading.active_count(),
                      "threads_at_50": threads}))


if __name__ == "__main__":
    main()
