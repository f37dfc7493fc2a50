import time, statistics, numpy as np, vkpersist as vkp
ctx = vkp.Context()
def t(label, fn, n=300):
    try:
        fn()
    except Exception as e:
        print(f"{label:40s} {type(e).__name__}"); return
    ts = []
    for _ in range(3):
        s = time.perf_counter()
        for _ in range(n): fn()
        ts.append((time.perf_counter() - s) / n * 1e6)
    print(f"{label:40s} {statistics.median(ts):8.1f} µs", flush=True)
t("ctx.empty(16) (new buffer, dies)", lambda: ctx.empty(16))
keep = []
t("ctx.empty(16) kept (alloc only)", lambda: keep.append(ctx.empty(16)))
keep.clear()
t("ctx.empty(1<<20) (4 MiB)", lambda: ctx.empty(1 << 20))
x = ctx.asarray(np.ones(1000, np.float32)); X = ctx.asarray(np.ones(10**8, np.float32))
y = ctx.asarray(np.ones((100, 10), np.float32))
t("float(x.sum()) 1e3", lambda: float(x.sum()))
t("float(X.sum()) 1e8", lambda: float(X.sum()), 50)
t("y.sum(axis=0).numpy() (100,10)", lambda: y.sum(axis=0).numpy())
t("(x + 1.0) then sync", lambda: (x + 1.0, ctx.synchronize()))
t("x.numpy()", lambda: x.numpy())
try:
    import cupy as cp
    cx = cp.ones(1000, cp.float32); CX = cp.ones(10**8, cp.float32)
    t("cupy float(cx.sum()) 1e3", lambda: float(cx.sum()))
    t("cupy float(CX.sum()) 1e8", lambda: float(CX.sum()), 50)
    t("cupy cp.empty(16)", lambda: cp.empty(16, cp.float32))
except Exception as e:
    print("no cupy", type(e).__name__)
