import sys, numpy as np, trio
sys.path.insert(0, "tests"); sys.path.insert(0, ".")
import vkpersist as vkp
import test_fdtd as T
ctx = vkp.Context()
s = T.plane_wave_scene(ctx, sphere=True)
changed, end = T.run_steered(s, "persistent", change_at=40)
print("changed", changed, "end", end, "s.step", getattr(s, "step", None), flush=True)
for shift in (-2, -1, 0, 1, 2):
    r = T.plane_wave_scene(ctx, sphere=True)
    r.run(changed + shift, mode="launch")
    r.ctl["freq"], r.ctl["amp"] = 2.2e9, 1.5
    r.run(end - changed - shift, mode="launch")
    print("shift", shift, "ez equal", np.array_equal(s.field("ez"), r.field("ez")),
          "max diff", float(np.abs(s.field("ez") - r.field("ez")).max()), flush=True)
u = T.plane_wave_scene(ctx, sphere=True); u.run(end, mode="launch")
print("unsteered diff", float(np.abs(s.field("ez") - u.field("ez")).max()))
p = T.plane_wave_scene(ctx, sphere=True); p.run(end, mode="persistent")
print("persistent unsteered vs launch unsteered equal", np.array_equal(p.field("ez"), u.field("ez")))
