import cProfile, pstats, vkpersist as vkp
@vkp.kernel
def bump(x: vkp.Array[vkp.f32], by: vkp.f32):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] += by
ctx = vkp.Context(); x = ctx.zeros(64); L = bump[1, 64]
L(x, 1.0); ctx.synchronize()
def loop():
    for i in range(2000):
        L(x, float(i))
    ctx.synchronize()
loop()
cProfile.run("loop()", "/tmp/vary.prof")
pstats.Stats("/tmp/vary.prof").sort_stats("tottime").print_stats(18)
