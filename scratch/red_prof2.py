import cProfile, pstats, time, numpy as np, vkpersist as vkp
ctx = vkp.Context()
y = ctx.asarray(np.ones((100, 10), np.float32))
for _ in range(5): y.sum(axis=0).numpy()
cProfile.run("for _ in range(300): y.sum(axis=0).numpy()", "/tmp/red.prof")
pstats.Stats("/tmp/red.prof").sort_stats("tottime").print_stats(22)
