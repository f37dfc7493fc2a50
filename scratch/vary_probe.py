import time, statistics, numpy as np, vkpersist as vkp
@vkp.kernel
def bump(x: vkp.Array[vkp.f32], by: vkp.f32):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] += by
ctx = vkp.Context(); x = ctx.zeros(64); L = bump[1, 64]
L(x, 1.0); ctx.synchronize()
for label, val in (("same scalar", lambda i: 1.0), ("varying scalar", lambda i: float(i % 1000))):
    ts = []
    for r in range(3):
        t = time.perf_counter()
        for i in range(2000):
            L(x, val(i))
        ctx.synchronize()
        ts.append((time.perf_counter() - t) / 2000 * 1e6)
    print(label, [round(v, 1) for v in ts])
