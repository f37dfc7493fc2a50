#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) nonprivate buffer seen_buffer { int seen[]; };
layout(std430, binding = 1) coherent buffer q_q_buffer { uint q_q[]; };   // queue: tail, head, dropped, rounds
layout(std430, binding = 2) coherent buffer q_items_buffer { uint q_items[]; };
layout(std430, binding = 3) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 4) coherent buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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

bool _vkp_push_q(uint item) {
    uint head = q_q[1];
    uvec4 pushers = subgroupBallot(true);
    uint k = subgroupBallotBitCount(pushers);
    uint base = head + 4u;      // full: every rank drops
    if (subgroupElect()) {
        uint reserved = 0u;
        if (atomicLoad(q_q[0], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed) - head < 4u) {
            base = atomicAdd(q_q[0], k);
            reserved = k;
        }
        uint kept = base - head >= 4u ? 0u : min(k, 4u - (base - head));
        if (kept < k) {          // full, or filled meanwhile: undo, drop and count
            if (reserved > kept) atomicAdd(q_q[0], kept - reserved);
            atomicAdd(q_q[2], k - kept);
        }
    }
    uint t = subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(pushers);
    if (t - head >= 4u) return false;
    q_items[t % 4u] = item;
    return true;
}

// programs_lib.py:190: follow
void stage_follow(uint item) {
    // programs_lib.py:191
    seen[int(item)] = 1;
    // programs_lib.py:192
    if (item < 10u) {
        // programs_lib.py:193
        _vkp_push_q((item + 1u));
    }
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
            uint _head = atomicLoad(_vkp_controls[2], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
            uint _tail = _vkp_controls[53];
            while (_tail != _head) {
                uint _e = 3u + (_tail % 16u) * 2u;
                uint _word = atomicLoad(_vkp_controls[_e], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
                atomicStore(_vkp_controls[_word], atomicLoad(_vkp_controls[_e + 1u], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire), gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
                _tail += 1u;
            }
            _vkp_controls[53] = _tail;
            atomicStore(_vkp_controls[54], 0xFFFFFFFFu, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);   // busy: the host retries
            atomicStore(_vkp_controls[55], step, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
            atomicStore(_vkp_controls[54], _tail, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
        }
        halt = _vkp_controls[0];
    }
    uint lag = min(done, 2u);   // steps prepared, not yet complete
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
int _vkp_part;          // this workgroup's participant index
uint _vkp_nparts;       // participating workgroups
int _vkp_worker;        // its index among those that run stages (-1: none)
uint _vkp_workers;      // participating workgroups that run stages
uint _vkp_target = 0u;  // arrivals that complete the current barrier between stages
uint _vkp_end_target = 0u;   // arrivals that complete the current end of step
uint _vkp_round = 0u;   // queue rounds so far: their words alternate by parity

// Grid barriers: arrivals on monotonic counters; only participants (workgroups
// known to be running) are ever waited for. Between stages: the workers.
void _vkp_grid_sync() {
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
    if (gl_LocalInvocationIndex == 0u) {
        atomicAdd(_vkp_sched[_vkp_ARRIVED], 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease | gl_SemanticsMakeAvailable);
        _vkp_target += _vkp_workers;
        while (true) {
            if (atomicLoad(_vkp_sched[_vkp_ARRIVED], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed) >= _vkp_target) break;
        }
        memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire | gl_SemanticsMakeVisible);   // acquire what the others wrote
    }
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
}

void _vkp_end_sync(uint slot, bool ready) {
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
    if (gl_LocalInvocationIndex == 0u) {
        uint _w0, _w1, _w2, _w3;
        if (ready) {   // prepared a step ago: load them before the barrier
            _w0 = _vkp_sched[_vkp_STEP_STATE + 3u * slot];
            _w1 = _vkp_sched[_vkp_STEP_FLAGS + 3u * slot];
            _w2 = _vkp_sched[_vkp_STEP_NUMBER + 3u * slot];
            _w3 = slot;
        }
        atomicAdd(_vkp_sched[_vkp_ENDS], 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease | gl_SemanticsMakeAvailable);
        _vkp_end_target += _vkp_nparts;
        while (true) {
            if (atomicLoad(_vkp_sched[_vkp_ENDS], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed) >= _vkp_end_target) break;
        }
        memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire | gl_SemanticsMakeVisible);   // acquire what the others wrote
        if (!ready) {
            _w0 = _vkp_sched[_vkp_STEP_STATE + 3u * slot];
            _w1 = _vkp_sched[_vkp_STEP_FLAGS + 3u * slot];
            _w2 = _vkp_sched[_vkp_STEP_NUMBER + 3u * slot];
            _w3 = slot;
        }
        _vkp_words[0] = _w0;
        _vkp_words[1] = _w1;
        _vkp_words[2] = _w2;
        _vkp_words[3] = _w3;
    }
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
}

void _vkp_queue_sync_q(uint s, bool after_round) {
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
    if (gl_LocalInvocationIndex == 0u) {
        _vkp_target += _vkp_workers;
        if (atomicAdd(_vkp_sched[_vkp_ARRIVED], 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease | gl_SemanticsMakeAvailable) + 1u == _vkp_target) {
            if (after_round) q_q[1] = q_q[4 + 2u * (s ^ 1u)];
            q_q[3 + 2u * s] = q_q[1];
            q_q[4 + 2u * s] = atomicAdd(q_q[0], 0u);
            memoryBarrierBuffer();
            atomicAdd(_vkp_sched[_vkp_ARRIVED], 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease | gl_SemanticsMakeAvailable);
        }
        _vkp_target += 1u;
        while (true) {
            if (atomicLoad(_vkp_sched[_vkp_ARRIVED], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed) >= _vkp_target) break;
        }
        memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire | gl_SemanticsMakeVisible);   // acquire what the others wrote
    }
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
}

void main() {
    // occupancy discovery: workgroups join while the poll is open; the first
    // participant closes it once no one has joined for a while (or all have)
    if (gl_LocalInvocationIndex == 0u) {
        uint groups = gl_NumWorkGroups.x;
        uint w = atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
        bool joined = false;
        while ((w & 0x80000000u) == 0u && !joined) {
            uint prev = atomicCompSwap(_vkp_sched[_vkp_OCCUPANCY], w, w + 1u);
            if (prev == w) joined = true; else w = prev;
        }
        int part = joined ? int(w) : -1;
        uint nparts = 0u;
        if (part == 0) {
            uint seen = 1u;
            uint quiet = 0u;
            while (seen < groups && quiet < 1024u) {
                uint c = atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
                c = max(c, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
                c = max(c, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
                c = max(c, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
                c = max(c, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
                c = max(c, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
                c = max(c, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
                c = max(c, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
                c &= 0x7FFFFFFFu;
                if (c == seen) quiet += 1u; else { seen = c; quiet = 0u; }
            }
            nparts = atomicOr(_vkp_sched[_vkp_OCCUPANCY], 0x80000000u) & 0x7FFFFFFFu;
            _vkp_controls[51] = nparts;
        } else if (part > 0) {
            uint v = atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
            while ((v & 0x80000000u) == 0u) {
                v = atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
                v = max(v, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
                v = max(v, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
                v = max(v, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
                v = max(v, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
                v = max(v, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
                v = max(v, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
                v = max(v, atomicLoad(_vkp_sched[_vkp_OCCUPANCY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire));
            }
            nparts = v & 0x7FFFFFFFu;
        }
        _vkp_part_shared = part;
        _vkp_nparts_shared = nparts;
    }
    barrier();
    _vkp_part = _vkp_part_shared;
    _vkp_nparts = _vkp_nparts_shared;
    if (_vkp_part < 0) return;     // not running alongside the others: leave
    uint w0 = (_vkp_nparts >= 16u ? 1u : 0u);   // 1: participant 0 only plans
    _vkp_workers = _vkp_nparts - w0;
    _vkp_worker = _vkp_part - int(w0);
    uint _stride = _vkp_workers * gl_WorkGroupSize.x;
    uint _first = uint(_vkp_worker) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    bool _planner = _vkp_part == 0 && gl_LocalInvocationIndex == 0u;
    if (_planner) {      // the first 2 steps
        _vkp_boundary(0u);
        _vkp_boundary(1u);
    }
    _vkp_end_sync(0u, false);
    uint s = 0u;          // the slot of the step being run
    while (true) {
        if (_vkp_words[0] != 1u) break;
        uint _next = s == 2u ? 0u : s + 1u;
        if (_vkp_worker >= 0) {
            // stage follow: one call per item of queue q, in rounds, until a round finds it empty
            _vkp_queue_sync_q(_vkp_round & 1u, false);
            while (true) {
                uint lo = q_q[3 + 2u * (_vkp_round & 1u)];
                uint count = q_q[4 + 2u * (_vkp_round & 1u)] - lo;
                if (count == 0u) break;
                for (uint _k = _first; _k < count; _k += _stride) {
                    stage_follow(q_items[(lo + _k) % 4u]);
                }
                _vkp_round += 1u;
                _vkp_queue_sync_q(_vkp_round & 1u, true);
            }
        }
        if (_planner) _vkp_boundary((s + 2u) % 3u);   // prepare step + 2
        _vkp_end_sync(_next, true);
        s = _next;
    }
    if (_planner) {      // exact counts, now that the epoch's last step is complete
        _vkp_controls[48] = _vkp_sched[_vkp_STEPS_DONE];
        _vkp_controls[49] = _vkp_sched[_vkp_DONE];
    }
}
