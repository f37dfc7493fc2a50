#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) coherent buffer A_buffer { float A[]; };
layout(std430, binding = 0) coherent buffer A_next_buffer { float A_next[]; };
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
const uint _vkp_SOCKETS = 131u;   // per memsock and slot: its frame's ring slot and seq
// the running step's values: the shared copy of its words (_megakernel.py)
#define _vkp_step _vkp_words[2]
#define _vkp_snap (_vkp_SNAPSHOT + 1u * _vkp_words[3])
#define _vkp_parity int(_vkp_words[2] & 1u)
#define _vkp_host_alpha _vkp_words[4]
shared uint _vkp_words[5];   // the running step's words
layout(std430, binding = 3) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// programs_lib.py:8: at
float at_0(int i, int j, int k) {
    int n;
    // programs_lib.py:9
    n = 8;
    // programs_lib.py:10
    if ((((((i < 0) || (j < 0)) || (k < 0)) || (i >= n)) || (j >= n)) || (k >= n)) {
        // programs_lib.py:11
        return 0.0;
    }
    // programs_lib.py:12
    return A[_vkp_parity * 512 + ((i) * 8 + j) * 8 + k];
}

// programs_lib.py:16: sweep
void sweep_0(float alpha, int i, int j, int k) {
    float lap;
    // programs_lib.py:17
    lap = (((((at_0((i - 1), j, k) + at_0((i + 1), j, k)) + at_0(i, (j - 1), k)) + at_0(i, (j + 1), k)) + at_0(i, j, (k - 1))) + at_0(i, j, (k + 1))) - (6.0 * A[_vkp_parity * 512 + ((i) * 8 + j) * 8 + k]);
    // programs_lib.py:20
    A_next[(1 - _vkp_parity) * 512 + ((i) * 8 + j) * 8 + k] = A[_vkp_parity * 512 + ((i) * 8 + j) * 8 + k] + (alpha * lap);
}

// programs_lib.py:433: sweep_pair
void stage_sweep_pair(int i, int j, int k) {
    // programs_lib.py:434
    sweep_0(uintBitsToFloat(_vkp_host_alpha), i, j, k);
}

// Prepares the step words in slot `p` for the next step (see the module's docs).
void _vkp_boundary(uint p) {
    uint ended = _vkp_sched[_vkp_ENDED];
    uint head = _vkp_controls[3];
    uint tail = _vkp_controls[53];
    uint halt = _vkp_controls[1];
    uint budget = _vkp_controls[2];
    uint c0 = _vkp_controls[0];
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
            uint _head = atomicAdd(_vkp_controls[3], 0u);
            uint _tail = _vkp_controls[53];
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
                uint _e = 4u + (_tail % 16u) * 2u;
                uint _word = atomicAdd(_vkp_controls[_e], 0u);
                atomicExchange(_vkp_controls[_word], atomicAdd(_vkp_controls[_e + 1u], 0u));
                _tail += 1u;
            }
            _vkp_controls[53] = _tail;
            atomicExchange(_vkp_controls[54], 0xFFFFFFFFu);   // busy: the host retries
            atomicExchange(_vkp_controls[55], step);
            atomicExchange(_vkp_controls[54], _tail);
        }
        halt = _vkp_controls[1];
        c0 = _vkp_controls[0];
    }
    _vkp_sched[_vkp_SNAPSHOT + 1u * p + 0u] = c0;
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
    if (before < 65000u && _vkp_iterations >= 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
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
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
        while (true) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
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
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
        while (true) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
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
            _vkp_words[4] = _vkp_sched[_vkp_SNAPSHOT + 1u * slot + 0u];
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
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
        while ((w & 0x80000000u) == 0u && !joined) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
            uint prev = atomicCompSwap(_vkp_sched[_vkp_OCCUPANCY], w, w + 1u);
            if (prev == w) joined = true; else w = prev;
        }
        int part = joined ? int(w) : -1;
        uint nparts = 0u;
        if (part == 0) {
            uint seen = 1u;
            uint quiet = 0u;
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
            while (seen < groups && quiet < 1024u) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
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
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
            while ((v & 0xC0000000u) == 0u) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
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
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
        if (_vkp_words[0] != 1u) break;
        uint _next = s == 2u ? 0u : s + 1u;
        if (_vkp_worker >= 0) {
            if (_vkp_resume <= 0u && 0u < _vkp_stop) {
                // stage sweep_pair over (8, 8, 8)
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
                for (uint _i = _first; _i < 512u; _i += _stride) {
                    if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1795439680u);
                    stage_sweep_pair(int(_i / 64u), int((_i / 8u) % 8u), int(_i % 8u));
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
