"""Lesson 6: device functions and vectors.

Charged particles in crossed electric and magnetic fields, pushed with the Boris scheme.
The push is a `@vkp.func` (a device function, called from the kernel like any Python
function); positions and velocities are `vec4`s with swizzles (`v.xyz`), and `vkp.cross`
and `vkp.dot` work on them as in GLSL. Every particle drifts along E x B / |B|^2, whatever
its charge: that is the number the lesson checks.

    python tutorials/06_particles.py [--size PARTICLES] [--steps STEPS]
"""
import numpy as np

import vkpersist as vkp
from _common import parse, pyplot, save


@vkp.func
def boris(v, e, b, h):
    """One Boris velocity update: half an electric kick, a rotation about B, half a kick.
    `h` is (q/m)·dt/2. The rotation keeps |v|, so the scheme never heats a particle."""
    v_minus = v + h * e
    t = h * b
    s = t * (2.0 / (1.0 + vkp.dot(t, t)))
    v_prime = v_minus + vkp.cross(v_minus, t)
    return v_minus + vkp.cross(v_prime, s) + h * e


@vkp.kernel
def push(pos: vkp.Array[vkp.vec4], vel: vkp.Array[vkp.vec4], e: vkp.vec3, b: vkp.vec3,
         dt: vkp.f32, steps: vkp.i32):
    i = vkp.global_id(0)
    if i < pos.shape[0]:
        p = pos[i]
        v = vel[i]                           # v.w holds the particle's q/m
        for _ in range(steps):
            v.xyz = boris(v.xyz, e, b, v.w * dt * 0.5)
            p.xyz += v.xyz * dt
        pos[i] = p
        vel[i] = v


def boris_numpy(p, v, qm, e, b, dt, steps):
    """The same scheme in float64 NumPy, for the check."""
    for _ in range(steps):
        h = (qm * dt / 2)[:, None]
        vm = v + h * e
        t = h * b
        s = 2 * t / (1 + (t * t).sum(1, keepdims=True))
        vp = vm + np.cross(vm, t)
        v = vm + np.cross(vp, s) + h * e
        p = p + v * dt
    return p, v


def main():
    args = parse(__doc__, size=50_000, steps=2000, size_help="particles",
                 steps_help="time steps")
    n, steps = args.size, args.steps
    ctx = vkp.default_context()
    rng = np.random.default_rng(2)
    e, b, dt = np.array([0.1, 0, 0]), np.array([0, 0, 1.0]), 0.05
    qm = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)      # ions and electrons, |q/m| = 1
    pos0 = np.zeros((n, 4), np.float32)
    vel0 = np.zeros((n, 4), np.float32)
    vel0[:, :3] = rng.standard_normal((n, 3)) * 0.5
    vel0[:, 3] = qm
    pos, vel = ctx.asarray(pos0), ctx.asarray(vel0)

    chunks = min(steps, 400)                            # record tracks between launches
    tracks = [pos0[:4, :3].copy()]
    for c in range(chunks):
        k = steps * (c + 1) // chunks - steps * c // chunks
        push.forall(n)(pos, vel, tuple(e), tuple(b), dt, k)
        tracks.append(pos.numpy()[:4, :3])
    p, v = pos.numpy()[:, :3], vel.numpy()[:, :3]

    m = min(n, 2000)
    p_ref, _ = boris_numpy(pos0[:m, :3].astype(float), vel0[:m, :3].astype(float),
                           qm[:m], e, b, dt, steps)
    err = np.abs(p[:m] - p_ref).max()
    print(f"{n} particles, {steps} steps: max |GPU - NumPy float64| position = {err:.2e}")
    assert err < 1e-3 * max(1.0, np.abs(p_ref).max()), "the push disagrees with NumPy"

    t = steps * dt
    theory = np.cross(e, b) / (b @ b)
    # The guiding centre x + v x B / (q/m |B|^2) moves with the drift alone; the particle
    # circles around it (one circle takes 2 pi / |q/m B| = 126 steps here).
    gc0 = pos0[:, :3] + np.cross(vel0[:, :3], b) / (qm[:, None] * (b @ b))
    gc = p + np.cross(v, b) / (qm[:, None] * (b @ b))
    print(f"E x B / |B|^2 = {theory}")
    for sign, name in ((1, "ions"), (-1, "electrons")):
        d = (gc - gc0)[qm == sign, :2].mean(0) / t      # across B (along B: below)
        print(f"  {name:9s}: guiding centres drift across B at (x, y) = {np.round(d, 5)}")
        assert np.abs(d - theory[:2]).max() < 0.01 * np.linalg.norm(theory), f"{name} drift is off"
    zerr = np.abs(p[:, 2] - vel0[:, 2] * t).max()
    print(f"along B they stream freely: max |z - v_z t| = {zerr:.2e}")
    assert zerr < 1e-3 * t

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 5))
    tr = np.array(tracks)
    for j in range(tr.shape[1]):
        ax.plot(tr[:, j, 0], tr[:, j, 1], label="ion" if qm[j] > 0 else "electron")
    ax.annotate("", xy=(0, theory[1] * t), xytext=(0, 0),
                arrowprops=dict(arrowstyle="->", color="k"))
    ax.set_title("guiding centres drift along E x B (arrow)")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_aspect("equal")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1))
    save(fig, args.out, "06_particles")
    print("lesson 6 OK")


if __name__ == "__main__":
    main()
