#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) coherent buffer out_py_buffer { float out_py[]; };
layout(std430, binding = 1) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 2) coherent buffer _vkp_sched_buffer { uint _vkp_sched[]; };
// the scheduler words of _vkp_sched (vkpersist/scheduler/_words.py)
const uint _vkp_OCCUPANCY = 0u;   // occupancy discovery: participants that joined; bit 31: the poll closed
const uint _vkp_STARTED = 1u;   // a step was prepared in this epoch
const uint _vkp_ENDED = 2u;   // this epoch (batch) has ended
const uint _vkp_DONE = 3u;   // steps completed in this epoch
const uint _vkp_SAFE = 4u;   // lavapipe: steps of this epoch (batch) complete before any loop-guard report
const uint _vkp_CUT_AT = 5u;   // lavapipe: the grid barrier within a step at which this epoch was cut
const uint _vkp_CUR = 6u;   // the fallback: the slot of the step being run
const uint _vkp_END_CUT = 7u;   // lavapipe: 1 + the slot loaded at a step's end that was cut (bit 31: kept)
const uint _vkp_STEP_STATE = 8u;   // slot s: the state of its step (+ 3s)
const uint _vkp_STEP_FLAGS = 9u;   // slot s: which every()/when() stages run (+ 3s)
const uint _vkp_STEP_NUMBER = 10u;   // slot s: the step's number (+ 3s)
const uint _vkp_FIRST = 17u;   // lavapipe: the step this epoch started with
const uint _vkp_EXITS = 18u;   // lavapipe: participants that have left the megakernel
const uint _vkp_ARRIVED_CUT = 19u;   // lavapipe: the target of the barrier between stages that was cut
const uint _vkp_ENDS_CUT = 20u;   // lavapipe: the target of the step's end that was cut
const uint _vkp_ARRIVED = 32u;   // arrivals at the grid barriers between stages
const uint _vkp_ENDS = 64u;   // arrivals at the ends of steps
const uint _vkp_STEPS_DONE = 96u;   // steps the program has completed (persists across epochs)
const uint _vkp_WORK_RAW = 97u;   // lavapipe: the most loop iterations one step cost an invocation
const uint _vkp_WORK_NORM = 98u;   // lavapipe: the most of such a cost times that epoch's participants
const uint _vkp_RESUME_SLOT = 99u;   // lavapipe: the slot of the step a cut epoch left half done
const uint _vkp_RESUME_FLAGS = 100u;   // lavapipe: that step's every()/when() flags
const uint _vkp_RESUME_ROUND = 101u;   // lavapipe: its queue round at the cut (bit 31: after a round)
const uint _vkp_SNAPSHOT = 128u;   // the host fields' snapshots, one per slot
const uint _vkp_SOCKETS = 128u;   // per memsock and slot: its frame's ring slot and seq
// the running step's values: the shared copy of its words (_megakernel.py)
#define _vkp_step _vkp_words[2]
#define _vkp_snap (_vkp_SNAPSHOT + 0u * _vkp_words[3])
shared uint _vkp_words[4];   // the running step's words
layout(std430, binding = 3) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

void _vkp_two_sum(float a, float b, out float s, out float e) {
    // Knuth: s + e == a + b exactly
    precise float ss = a + b;
    precise float bb = ss - a;
    precise float ee = (a - (ss - bb)) + (b - bb);
    s = ss;
    e = ee;
}

void _vkp_two_prod(float a, float b, out float p, out float e) {
    // Dekker: p + e == a * b exactly
    precise float pp = a * b;
    precise float ca = 4.097e+03 * a;
    precise float ah = ca - (ca - a);
    precise float al = a - ah;
    precise float cb = 4.097e+03 * b;
    precise float bh = cb - (cb - b);
    precise float bl = b - bh;
    precise float ee = ((ah * bh - pp) + ah * bl + al * bh) + al * bl;
    p = pp;
    e = ee;
}

const uvec4 _vkp_2opi[12] = uvec4[](uvec4(0x00000000u, 0x00000000u, 0xa2f9836eu, 0x4e441529u), uvec4(0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u), uvec4(0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u), uvec4(0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu), uvec4(0xe88235f5u, 0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u), uvec4(0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu), uvec4(0x1ff897ffu, 0xde05980fu, 0xef2f118bu, 0x5a0a6d1fu), uvec4(0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du), uvec4(0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau), uvec4(0x6bfb5fb1u, 0x1f8d5d08u, 0x56033046u, 0xfc7b6babu), uvec4(0xf0cfbc20u, 0x9af4361du, 0x00000000u, 0x00000000u), uvec4(0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u));

int _vkp_rem_big(float x, out float rh, out float rl) {
    uint b = floatBitsToUint(abs(x));
    int E = int((b >> 23) & 0xffu) - 150;
    uint m1 = 0u;
    uint m0 = (b & 0x7fffffu) | 0x800000u;
    int i0 = ((E + 30) >> 5) - 1;
    int sh = E - 32 * (i0 + 1) + 30;
    uint m2 = sh == 0 ? 0u : m1 >> (32 - sh);
    m1 = sh == 0 ? m1 : (m1 << sh) | (m0 >> (32 - sh));
    m0 <<= sh;
    uint w, cb, cy;
    int ii = i0 + 2, j = ii >> 2, o = ii & 3;
    uvec4 q0 = (j == 0 ? _vkp_2opi[0] : _vkp_2opi[1]);
    uvec4 q1 = (j == 0 ? _vkp_2opi[1] : _vkp_2opi[2]);
    uvec4 q2 = (j == 0 ? _vkp_2opi[2] : _vkp_2opi[3]);
    uint a[12] = uint[](q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w, q2.x, q2.y, q2.z, q2.w);
    w = o == 0 ? a[6] : o == 1 ? a[7] : o == 2 ? a[8] : a[9];
    uint t0_0h, t0_0l; umulExtended(m0, w, t0_0h, t0_0l);
    uint t0_1h, t0_1l; umulExtended(m1, w, t0_1h, t0_1l);
    uint t0_2h, t0_2l; umulExtended(m2, w, t0_2h, t0_2l);
    w = o == 0 ? a[5] : o == 1 ? a[6] : o == 2 ? a[7] : a[8];
    uint t1_0h, t1_0l; umulExtended(m0, w, t1_0h, t1_0l);
    uint t1_1h, t1_1l; umulExtended(m1, w, t1_1h, t1_1l);
    uint t1_2h, t1_2l; umulExtended(m2, w, t1_2h, t1_2l);
    w = o == 0 ? a[4] : o == 1 ? a[5] : o == 2 ? a[6] : a[7];
    uint t2_0h, t2_0l; umulExtended(m0, w, t2_0h, t2_0l);
    uint t2_1h, t2_1l; umulExtended(m1, w, t2_1h, t2_1l);
    uint t2_2h, t2_2l; umulExtended(m2, w, t2_2h, t2_2l);
    w = o == 0 ? a[3] : o == 1 ? a[4] : o == 2 ? a[5] : a[6];
    uint t3_0h, t3_0l; umulExtended(m0, w, t3_0h, t3_0l);
    uint t3_1h, t3_1l; umulExtended(m1, w, t3_1h, t3_1l);
    uint t3_2h, t3_2l; umulExtended(m2, w, t3_2h, t3_2l);
    w = o == 0 ? a[2] : o == 1 ? a[3] : o == 2 ? a[4] : a[5];
    uint t4_0h, t4_0l; umulExtended(m0, w, t4_0h, t4_0l);
    uint t4_1h, t4_1l; umulExtended(m1, w, t4_1h, t4_1l);
    uint t4_2h, t4_2l; umulExtended(m2, w, t4_2h, t4_2l);
    w = o == 0 ? a[1] : o == 1 ? a[2] : o == 2 ? a[3] : a[4];
    uint t5_0h, t5_0l; umulExtended(m0, w, t5_0h, t5_0l);
    uint t5_1h, t5_1l; umulExtended(m1, w, t5_1h, t5_1l);
    w = o == 0 ? a[0] : o == 1 ? a[1] : o == 2 ? a[2] : a[3];
    uint t6_0h, t6_0l; umulExtended(m0, w, t6_0h, t6_0l);
    cy = 0u;
    uint P0 = cy; cy = 0u;
    P0 = uaddCarry(P0, t0_0l, cb); cy += cb;
    uint P1 = cy; cy = 0u;
    P1 = uaddCarry(P1, t0_0h, cb); cy += cb;
    P1 = uaddCarry(P1, t0_1l, cb); cy += cb;
    P1 = uaddCarry(P1, t1_0l, cb); cy += cb;
    uint P2 = cy; cy = 0u;
    P2 = uaddCarry(P2, t0_1h, cb); cy += cb;
    P2 = uaddCarry(P2, t0_2l, cb); cy += cb;
    P2 = uaddCarry(P2, t1_0h, cb); cy += cb;
    P2 = uaddCarry(P2, t1_1l, cb); cy += cb;
    P2 = uaddCarry(P2, t2_0l, cb); cy += cb;
    uint P3 = cy; cy = 0u;
    P3 = uaddCarry(P3, t0_2h, cb); cy += cb;
    P3 = uaddCarry(P3, t1_1h, cb); cy += cb;
    P3 = uaddCarry(P3, t1_2l, cb); cy += cb;
    P3 = uaddCarry(P3, t2_0h, cb); cy += cb;
    P3 = uaddCarry(P3, t2_1l, cb); cy += cb;
    P3 = uaddCarry(P3, t3_0l, cb); cy += cb;
    uint P4 = cy; cy = 0u;
    P4 = uaddCarry(P4, t1_2h, cb); cy += cb;
    P4 = uaddCarry(P4, t2_1h, cb); cy += cb;
    P4 = uaddCarry(P4, t2_2l, cb); cy += cb;
    P4 = uaddCarry(P4, t3_0h, cb); cy += cb;
    P4 = uaddCarry(P4, t3_1l, cb); cy += cb;
    P4 = uaddCarry(P4, t4_0l, cb); cy += cb;
    uint P5 = cy; cy = 0u;
    P5 = uaddCarry(P5, t2_2h, cb); cy += cb;
    P5 = uaddCarry(P5, t3_1h, cb); cy += cb;
    P5 = uaddCarry(P5, t3_2l, cb); cy += cb;
    P5 = uaddCarry(P5, t4_0h, cb); cy += cb;
    P5 = uaddCarry(P5, t4_1l, cb); cy += cb;
    P5 = uaddCarry(P5, t5_0l, cb); cy += cb;
    uint P6 = cy; cy = 0u;
    P6 = uaddCarry(P6, t3_2h, cb); cy += cb;
    P6 = uaddCarry(P6, t4_1h, cb); cy += cb;
    P6 = uaddCarry(P6, t4_2l, cb); cy += cb;
    P6 = uaddCarry(P6, t5_0h, cb); cy += cb;
    P6 = uaddCarry(P6, t5_1l, cb); cy += cb;
    P6 = uaddCarry(P6, t6_0l, cb); cy += cb;
    uint quad = P6 >> 30;
    uint f2 = (P6 << 2) | (P5 >> 30), f1 = (P5 << 2) | (P4 >> 30), f0 = (P4 << 2) | (P3 >> 30), g1 = (P3 << 2) | (P2 >> 30), g0 = (P2 << 2) | (P1 >> 30);
    bool negf = (f2 >> 31) != 0u;
    if (negf) {   // fraction >= 1/2: the next quadrant, fraction - 1
        quad += 1u;
        f2 = ~f2; f1 = ~f1; f0 = ~f0; g1 = ~g1; g0 = ~g0;
        g0 = uaddCarry(g0, 1u, cb); g1 = uaddCarry(g1, cb, cb); f0 = uaddCarry(f0, cb, cb); f1 = uaddCarry(f1, cb, cb); f2 += cb;
    }
    int lz = 0;
    if (f2 == 0u) { f2 = f1; f1 = f0; f0 = g1; g1 = g0; g0 = 0u; lz += 32; }
    if (f2 == 0u) { f2 = f1; f1 = f0; f0 = g1; g1 = g0; g0 = 0u; lz += 32; }
    if (f2 == 0u) { f2 = f1; f1 = f0; f0 = g1; g1 = g0; g0 = 0u; lz += 32; }
    if (f2 == 0u) { f2 = f1; f1 = f0; f0 = g1; g1 = g0; g0 = 0u; lz += 32; }
    int n = 31 - findMSB(f2);
    if (n > 0 && n < 32) {
        f2 = (f2 << n) | (f1 >> (32 - n)); f1 = (f1 << n) | (f0 >> (32 - n)); f0 = (f0 << n) | (g1 >> (32 - n)); lz += n;
    }
    float hi = ldexp(float(f2 >> 8), -24 - lz);
    float lo = ldexp(float(((f2 & 0xffu) << 16) | (f1 >> 16)), -48 - lz);
    float ph, pe;
    _vkp_two_prod(hi, 1.5707964e+00, ph, pe);
    precise float pl = pe + (hi * -4.371139e-08 + lo * 1.5707964e+00);
    precise float s = ph + pl;
    pl = pl - (s - ph);
    if (negf) { s = -s; pl = -pl; }
    if (x < 0.0) { s = -s; pl = -pl; quad = (4u - quad) & 3u; }
    rh = s;
    rl = pl;
    return int(quad & 3u);
}

int _vkp_rem_pio2(float x, out float rh, out float rl) {
    // x = k pi/2 + rh + rl with |rh + rl| <= ~pi/4; returns k mod 4 (finite x)
    if (abs(x) <= 7.853982e-01) { rh = x; rl = 0.0; return 0; }
    if (abs(x) >= 6.0e+03) return _vkp_rem_big(x, rh, rl);
    float kf = roundEven(x * 6.3661975e-01);
    precise float y = x - kf * 1.5703125e+00;
    float h, l, h2, l2;
    _vkp_two_sum(y, -(kf * 4.837513e-04), h, l);
    _vkp_two_sum(h, -(kf * 7.5495336e-08), h2, l2);
    precise float lo = (l + l2) - kf * 2.563344e-12;
    precise float s = h2 + lo;
    rl = lo - (s - h2);
    rh = s;
    return int(kf) & 3;
}

float _vkp_sink(float x, float y) {
    // sin(x + y), |x| <= ~pi/4, |y| tiny
    precise float z = x * x;
    precise float res = x + (z * x * (-1.6666667e-01 + z * (8.333332e-03 + z * (-1.9840087e-04 + z * (2.7249962e-06)))) + y * (1.0 - 0.5 * z));
    return res;
}

float _vkp_cosk(float x, float y) {
    // cos(x + y), |x| <= ~pi/4, |y| tiny
    precise float z = x * x;
    precise float hz = 0.5 * z;
    precise float w = 1.0 - hz;
    precise float res = w + (((1.0 - w) - hz) + (z * z * (4.1666668e-02 + z * (-1.3888888e-03 + z * (2.48006e-05 + z * (-2.7300985e-07)))) - x * y));
    return res;
}

float _vkp_sin(float x) {
    if (isinf(x) || isnan(x)) return uintBitsToFloat(0x7fc00000u);
    if (abs(x) < 1.2207031e-04) return x;
    float a, b;
    int n = _vkp_rem_pio2(x, a, b);
    float r = (n & 1) == 0 ? _vkp_sink(a, b) : _vkp_cosk(a, b);
    return n >= 2 ? -r : r;
}

// programs_lib.py:109: work
void stage_work(int i) {
    float x;
    int k;
    int _i1;
    // programs_lib.py:110
    x = out_py[i];
    // programs_lib.py:111
    if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
    for (_i1 = 0; _i1 < 10; _i1 += 1) {
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
        k = _i1;
        // programs_lib.py:112
        x = _vkp_sin(x) + 1.0;
    }
    // programs_lib.py:113
    out_py[i] = x;
}

// Prepares the step words in slot `p` for the next step (see the module's docs).
void _vkp_boundary(uint p) {
    uint ended = _vkp_sched[_vkp_ENDED];
    uint head = _vkp_controls[2];
    uint tail = _vkp_controls[53];
    uint halt = _vkp_controls[0];
    uint budget = _vkp_controls[1];
    uint step = _vkp_sched[_vkp_STEPS_DONE];
    uint done = _vkp_sched[_vkp_DONE];
    uint started = _vkp_sched[_vkp_STARTED];
    if (ended != 0u) {      // this epoch (batch) has ended
        _vkp_sched[_vkp_STEP_STATE + 3u * p] = 2u;
        return;
    }
    if (started != 0u) {      // a step was prepared before
        step += 1u;
        done += 1u;
        _vkp_sched[_vkp_STEPS_DONE] = step;
        _vkp_sched[_vkp_DONE] = done;
    }
    _vkp_sched[_vkp_STARTED] = 1u;
    if (head != tail) {
        // _vkp_controls.apply(step): queued host commands, in order, then the acknowledgement
        {
            uint _head = atomicAdd(_vkp_controls[2], 0u);
            uint _tail = _vkp_controls[53];
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
                uint _e = 3u + (_tail % 16u) * 2u;
                uint _word = atomicAdd(_vkp_controls[_e], 0u);
                atomicExchange(_vkp_controls[_word], atomicAdd(_vkp_controls[_e + 1u], 0u));
                _tail += 1u;
            }
            _vkp_controls[53] = _tail;
            atomicExchange(_vkp_controls[54], 0xFFFFFFFFu);   // busy: the host retries
            atomicExchange(_vkp_controls[55], step);
            atomicExchange(_vkp_controls[54], _tail);
        }
        halt = _vkp_controls[0];
    }
    uint lag = min(done, 1u);   // steps prepared, not yet complete
    _vkp_controls[48] = step - lag;       // the heartbeat
    _vkp_controls[49] = done - lag;
    uint reason = 0u;
    if (halt != 0u) reason = 2u;
    else if (done >= budget) reason = 1u;
    uint flags = 0u;
    if (reason != 0u) {
        _vkp_sched[_vkp_ENDED] = 1u;
        _vkp_sched[_vkp_STEP_STATE + 3u * p] = 2u;
        _vkp_controls[50] = reason;
        return;
    }
    _vkp_sched[_vkp_STEP_FLAGS + 3u * p] = flags;
    _vkp_sched[_vkp_STEP_NUMBER + 3u * p] = step;
    _vkp_sched[_vkp_STEP_STATE + 3u * p] = 1u;
}

shared int _vkp_part_shared;
shared uint _vkp_nparts_shared;
shared uint _vkp_group_iterations;
shared uint _vkp_worst;          // the most iterations a step may cost an invocation
shared uint _vkp_measured;       // the most one did in this epoch
shared uint _vkp_cut_shared;     // the grid barrier within the step that was cut
shared uint _vkp_resume_shared;
uint _vkp_spins = 0u;     // this invocation's iterations spent waiting at barriers
uint _vkp_counted = 0u;   // its other iterations when its step began
uint _vkp_resume = 0u;    // the resumed step goes on after this barrier (0: none)
uint _vkp_stop = 0xffffffffu;   // the barrier at which this step was cut
bool _vkp_end_cut = false;   // invocation 0: the end of its last step was cut
int _vkp_part;          // this workgroup's participant index
uint _vkp_nparts;       // participating workgroups
int _vkp_worker;        // its index among those that run stages (-1: none)
uint _vkp_workers;      // participating workgroups that run stages
uint _vkp_target = 0u;  // arrivals that complete the current barrier between stages
uint _vkp_end_target = 0u;   // arrivals that complete the current end of step
uint _vkp_round = 0u;   // queue rounds so far: their words alternate by parity

// lavapipe's loop budget (scheduler/_budget.py)
void _vkp_count(uint n) {   // loop passes lavapipe counts where no guard line runs
    uint before = _vkp_iterations;
    _vkp_iterations += n;
    if (before < 65000u && _vkp_iterations >= 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
}

uint _vkp_need() {   // the iterations a step may cost an invocation but waits
    uint w = _vkp_worst;
    return w == 0u ? 16000u : w + w / 8u;   // 0: none measured yet
}

void _vkp_unprepare(uint k, bool kept) {
    uint number = _vkp_sched[_vkp_STEP_NUMBER + 3u * k];
    _vkp_sched[_vkp_STEPS_DONE] = number;
    _vkp_sched[_vkp_DONE] = number - _vkp_sched[_vkp_FIRST];
}

// Grid barriers: arrivals on monotonic counters; only participants (workgroups
// known to be running) are ever waited for. Between stages: the workers.
void _vkp_grid_sync(uint point) {
    _vkp_count(1u);   // invocation 0's loops, in the others
    atomicMax(_vkp_group_iterations, _vkp_iterations);
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        uint _from = _vkp_iterations;
        uint _need = _vkp_counted + _vkp_spins + _vkp_need();
        uint _room = _need < 64000u ? 64000u - _need : 0u;   // it may wait this long
        if (_room == 0u) {   // the rest of the step would not fit
            atomicMax(_vkp_sched[_vkp_ARRIVED_CUT], _vkp_target + _vkp_workers);
            atomicOr(_vkp_sched[_vkp_ARRIVED], 0x40000000u);
        }
        atomicAdd(_vkp_sched[_vkp_ARRIVED], 1u);
        _vkp_target += _vkp_workers;
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
        while (true) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
            if (atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target
                    || atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) >= _vkp_target) break;
            if (_vkp_iterations - _from >= _room) {   // out of budget: cut the barrier
                atomicMax(_vkp_sched[_vkp_ARRIVED_CUT], _vkp_target);
                uint v = atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u);
                if (v < _vkp_target) atomicCompSwap(_vkp_sched[_vkp_ARRIVED], v, v | 0x40000000u);
            }
        }
        _vkp_spins += _vkp_iterations - _from;
        if ((atomicAdd(_vkp_sched[_vkp_ARRIVED], 0u) & 0x40000000u) != 0u && atomicAdd(_vkp_sched[_vkp_ARRIVED_CUT], 0u) == _vkp_target) {   // cut here
            _vkp_cut_shared = point;
            _vkp_sched[_vkp_CUT_AT] = point;
            _vkp_sched[_vkp_RESUME_SLOT] = _vkp_words[3];
            _vkp_sched[_vkp_RESUME_FLAGS] = _vkp_words[1];
            memoryBarrierBuffer();
            atomicMax(_vkp_sched[_vkp_ENDS_CUT], _vkp_end_target + _vkp_nparts);
            atomicOr(_vkp_sched[_vkp_ENDS], 0x40000000u);
        }
    }
    barrier();
    _vkp_stop = _vkp_cut_shared;
}

void _vkp_end_sync(uint slot) {
    _vkp_count(1u);   // invocation 0's loops, in the others
    uint _work = _vkp_iterations - _vkp_spins;   // its iterations but waits
    atomicMax(_vkp_measured, _work - _vkp_counted);   // what the step cost it
    atomicMax(_vkp_worst, _work - _vkp_counted);
    _vkp_counted = _work;
    atomicMax(_vkp_group_iterations, _vkp_iterations);
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        uint _from = _vkp_iterations;
        uint _need = _vkp_group_iterations + 2000u + _vkp_need();
        uint _room = _need < 64000u ? 64000u - _need : 0u;   // it may wait this long
        if (_room == 0u) {   // the next step would not fit
            atomicMax(_vkp_sched[_vkp_ENDS_CUT], _vkp_end_target + _vkp_nparts);
            atomicOr(_vkp_sched[_vkp_ENDS], 0x40000000u);
        }
        atomicAdd(_vkp_sched[_vkp_ENDS], 1u);
        _vkp_end_target += _vkp_nparts;
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
        while (true) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
            if (atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target
                    || atomicAdd(_vkp_sched[_vkp_ENDS], 0u) >= _vkp_end_target) break;
            if (_vkp_iterations - _from >= _room) {   // out of budget: cut the barrier
                atomicMax(_vkp_sched[_vkp_ENDS_CUT], _vkp_end_target);
                uint v = atomicAdd(_vkp_sched[_vkp_ENDS], 0u);
                if (v < _vkp_end_target) atomicCompSwap(_vkp_sched[_vkp_ENDS], v, v | 0x40000000u);
            }
        }
        _vkp_spins += _vkp_iterations - _from;
        if ((atomicAdd(_vkp_sched[_vkp_ENDS], 0u) & 0x40000000u) != 0u && atomicAdd(_vkp_sched[_vkp_ENDS_CUT], 0u) == _vkp_end_target) {   // cut here
            _vkp_words[0] = 2u;   // the epoch ends here
            _vkp_end_cut = true;
            _vkp_sched[_vkp_END_CUT] = (slot + 1u) | (_vkp_resume != 0u ? 0x80000000u : 0u);
        } else {
            _vkp_words[0] = _vkp_sched[_vkp_STEP_STATE + 3u * slot];
            _vkp_words[1] = _vkp_sched[_vkp_STEP_FLAGS + 3u * slot];
            _vkp_words[2] = _vkp_sched[_vkp_STEP_NUMBER + 3u * slot];
            _vkp_words[3] = slot;
        }
    }
    barrier();
}

void main() {
    // occupancy discovery: workgroups join while the poll is open; the first
    // participant closes it once no one has joined for a while (or all have)
    _vkp_count(3u);   // invocation 0's loops, in the others
    if (gl_LocalInvocationIndex == 0u) {
        uint groups = gl_NumWorkGroups.x;
        uint w = atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u);
        bool joined = false;
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
        while ((w & 0x80000000u) == 0u && !joined) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
            uint prev = atomicCompSwap(_vkp_sched[_vkp_OCCUPANCY], w, w + 1u);
            if (prev == w) joined = true; else w = prev;
        }
        int part = joined ? int(w) : -1;
        uint nparts = 0u;
        if (part == 0) {
            uint seen = 1u;
            uint quiet = 0u;
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
            while (seen < groups && quiet < 1024u) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
                uint c = atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u);
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c = max(c, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                c &= 0x7FFFFFFFu;
                if (c == seen) quiet += 1u; else { seen = c; quiet = 0u; }
            }
            uint closed = atomicOr(_vkp_sched[_vkp_OCCUPANCY], 0x80000000u);
            nparts = closed & 0x3FFFFFFFu;
            if ((closed & 0x40000000u) != 0u) {   // abandoned: no step this epoch
                _vkp_controls[48] = _vkp_sched[_vkp_STEPS_DONE];
                _vkp_controls[50] = 3u;
                part = -1;
            }
            _vkp_controls[51] = nparts;
        } else if (part > 0) {
            uint v = atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u);
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
            while ((v & 0xC0000000u) == 0u) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
                v = atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u);
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                v = max(v, atomicAdd(_vkp_sched[_vkp_OCCUPANCY], 0u));
                if ((v & 0xC0000000u) == 0u && _vkp_iterations >= 32000u) atomicCompSwap(_vkp_sched[_vkp_OCCUPANCY], v, v | 0x40000000u);   // waited half the budget: abandon the epoch
            }
            nparts = v & 0x3FFFFFFFu;
            if ((v & 0x40000000u) != 0u) part = -1;
        }
        _vkp_part_shared = part;
        _vkp_nparts_shared = nparts;
        _vkp_group_iterations = 0u;
        _vkp_worst = max(_vkp_sched[_vkp_WORK_RAW], (_vkp_sched[_vkp_WORK_NORM] + nparts - 1u) / max(nparts, 1u));
        _vkp_measured = 0u;
        _vkp_cut_shared = 0xffffffffu;
        _vkp_resume_shared = _vkp_controls[52];
    }
    barrier();
    _vkp_part = _vkp_part_shared;
    _vkp_nparts = _vkp_nparts_shared;
    _vkp_resume = _vkp_resume_shared;
    if (_vkp_part < 0) return;     // not running alongside the others: leave
    uint w0 = 0u;   // 1: participant 0 only plans
    _vkp_workers = _vkp_nparts - w0;
    _vkp_worker = _vkp_part - int(w0);
    uint _stride = _vkp_workers * gl_WorkGroupSize.x;
    uint _first = uint(_vkp_worker) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    bool _planner = _vkp_part == 0 && gl_LocalInvocationIndex == 0u;
    _vkp_count(1u);   // the planner's loops, in the others
    if (_planner) {      // the first step
        _vkp_sched[_vkp_FIRST] = _vkp_sched[_vkp_STEPS_DONE];
        if (_vkp_resume != 0u) {   // the epoch before was cut within this step
            uint r = _vkp_sched[_vkp_RESUME_SLOT];
            _vkp_sched[_vkp_STEP_STATE + 3u * r] = 1u;
            _vkp_sched[_vkp_STEP_FLAGS + 3u * r] = _vkp_sched[_vkp_RESUME_FLAGS];
            _vkp_sched[_vkp_STEP_NUMBER + 3u * r] = _vkp_sched[_vkp_STEPS_DONE];
            _vkp_sched[_vkp_STARTED] = 1u;
        } else {
            _vkp_boundary(0u);
        }
    }
    uint s = _vkp_resume != 0u ? _vkp_sched[_vkp_RESUME_SLOT] : 0u;   // the slot of the step being run
    _vkp_counted = _vkp_iterations - _vkp_spins;
    _vkp_end_sync(s);
    if (_planner && !_vkp_end_cut) _vkp_controls[52] = 0u;   // resumed
    while (true) {
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
        if (_vkp_words[0] != 1u) break;
        uint _next = s == 2u ? 0u : s + 1u;
        if (_vkp_worker >= 0) {
            if (_vkp_resume <= 0u && 0u < _vkp_stop) {
                // stage work over (16,)
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
                for (uint _i = _first; _i < 16u; _i += _stride) {
                    if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 711392280u);
                    stage_work(int(_i));
                }
            }
        }
        if (_vkp_stop != 0xffffffffu) break;   // cut within the step
        _vkp_count(1u);   // the planner's loops, in the others
        if (_planner) _vkp_boundary((s + 1u) % 3u);   // prepare step + 1
        _vkp_end_sync(_next);
        if (_planner && !_vkp_end_cut && atomicAdd(_vkp_status[0], 0u) == 0u)   // no loop cut short
            _vkp_sched[_vkp_SAFE] = _vkp_sched[_vkp_STEP_NUMBER + 3u * s] + 1u - _vkp_sched[_vkp_FIRST];
        s = _next;
        _vkp_resume = 0u;
    }
    if (gl_LocalInvocationIndex == 0u) {
        if (atomicAdd(_vkp_status[0], 0u) == 0u) {   // no loop cut short
            atomicMax(_vkp_sched[_vkp_WORK_RAW], _vkp_measured);
            atomicMax(_vkp_sched[_vkp_WORK_NORM], _vkp_measured * _vkp_nparts);
        }
        if (atomicAdd(_vkp_sched[_vkp_EXITS], 1u) + 1u == _vkp_nparts) {   // the last
            uint cut_at = _vkp_sched[_vkp_CUT_AT];
            uint end_cut = _vkp_sched[_vkp_END_CUT];
            uint k = (end_cut & 3u) - 1u;   // cut at a step's end: the next step, in k
            bool kept = (end_cut & 0x80000000u) != 0u;   // (unless it is a resumed one)
            uint reason = kept ? 6u : 3u;
            if (cut_at != 0u) {   // cut within a step: the next epoch resumes it there
                _vkp_controls[52] = cut_at;
                k = _vkp_sched[_vkp_RESUME_SLOT];
                kept = true;
                reason = 6u;
            }
            if ((cut_at != 0u || end_cut != 0u) && _vkp_sched[_vkp_STEP_STATE + 3u * k] == 1u) {
                _vkp_unprepare(k, kept);
                _vkp_controls[50] = reason;
            }
            _vkp_controls[48] = _vkp_sched[_vkp_STEPS_DONE];
            _vkp_controls[49] = _vkp_sched[_vkp_DONE];
        }
    }
}
