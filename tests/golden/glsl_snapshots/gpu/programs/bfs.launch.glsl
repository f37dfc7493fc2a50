#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) readonly buffer off_buffer { int off[]; };
layout(std430, binding = 1) readonly buffer adj_buffer { int adj[]; };
layout(std430, binding = 2) readonly buffer dist_buffer { int dist[]; };
layout(std430, binding = 3) coherent buffer frontier_q_buffer { uint frontier_q[]; };   // queue: tail, head, dropped, rounds
layout(std430, binding = 4) coherent buffer frontier_items_buffer { int frontier_items[]; };
layout(std430, binding = 5) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 6) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts

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
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
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

// the step boundary of the fallback: one invocation, before each step
void main() {
    uint q = _vkp_sched[_vkp_CUR];   // the step before, now complete everywhere
    uint p = q == 2u ? 0u : q + 1u;
    _vkp_boundary(p);
    _vkp_sched[_vkp_CUR] = p;
}

#version 450
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) readonly buffer off_buffer { int off[]; };
layout(std430, binding = 1) readonly buffer adj_buffer { int adj[]; };
layout(std430, binding = 2) buffer dist_buffer { int dist[]; };
layout(std430, binding = 3) coherent buffer frontier_q_buffer { uint frontier_q[]; };   // queue: tail, head, dropped, rounds
layout(std430, binding = 4) coherent buffer frontier_items_buffer { int frontier_items[]; };
layout(std430, binding = 5) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 6) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts

bool _vkp_push_frontier(int item) {
    uint head = frontier_q[1];
    uvec4 pushers = subgroupBallot(true);
    uint k = subgroupBallotBitCount(pushers);
    uint base = head + 50u;      // full: every rank drops
    if (subgroupElect()) {
        uint reserved = 0u;
        if (atomicLoad(frontier_q[0], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed) - head < 50u) {
            base = atomicAdd(frontier_q[0], k);
            reserved = k;
        }
        uint kept = base - head >= 50u ? 0u : min(k, 50u - (base - head));
        if (kept < k) {          // full, or filled meanwhile: undo, drop and count
            if (reserved > kept) atomicAdd(frontier_q[0], kept - reserved);
            atomicAdd(frontier_q[2], k - kept);
        }
    }
    uint t = subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(pushers);
    if (t - head >= 50u) return false;
    frontier_items[t % 50u] = item;
    return true;
}

// programs_lib.py:154: visit
void stage_visit(int v) {
    int d;
    int e;
    int w;
    int _i1;
    // programs_lib.py:155
    d = dist[v];
    // programs_lib.py:156
    int _stop1 = off[(v + 1)];
    for (_i1 = off[v]; _i1 < _stop1; _i1 += 1) {
        e = _i1;
        // programs_lib.py:157
        w = adj[e];
        // programs_lib.py:158
        if (atomicCompSwap(dist[w], (-1), (d + 1)) == (-1)) {
            // programs_lib.py:159
            _vkp_push_frontier(w);
        }
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
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
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

// stage visit of the fallback: one round of queue frontier
void main() {
    uint p = _vkp_sched[_vkp_CUR];
    _vkp_step = _vkp_sched[_vkp_STEP_NUMBER + 3u * p];
    _vkp_snap = _vkp_SNAPSHOT + 0u * p;
    uint lo = frontier_q[3];
    uint count = frontier_q[4] - lo;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint k = gl_GlobalInvocationID.x; k < count; k += stride) {
        stage_visit(frontier_items[(lo + k) % 50u]);
    }
}

#version 450
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    uint _vkp_phase;
    uint _vkp_local;
};

layout(std430, binding = 0) readonly buffer off_buffer { int off[]; };
layout(std430, binding = 1) readonly buffer adj_buffer { int adj[]; };
layout(std430, binding = 2) readonly buffer dist_buffer { int dist[]; };
layout(std430, binding = 3) coherent buffer frontier_q_buffer { uint frontier_q[]; };   // queue: tail, head, dropped, rounds
layout(std430, binding = 4) coherent buffer frontier_items_buffer { int frontier_items[]; };
layout(std430, binding = 5) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 6) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts

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
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
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

// rounds of stage visit, which consumes queue frontier
void main() {
    uint p = _vkp_sched[_vkp_CUR];
    bool runs = _vkp_sched[_vkp_STEP_STATE + 3u * p] == 1u;
    if (runs && _vkp_phase != 0u) frontier_q[1] = frontier_q[4];
    uint lo = frontier_q[1];
    uint hi = runs ? frontier_q[0] : lo;
    if (_vkp_phase == 2u) {
        if (hi != lo) frontier_q[7] += 1u;   // items left: report it
        hi = lo;
    }
    frontier_q[3] = lo;
    frontier_q[4] = hi;
    frontier_q[8] = min((hi - lo + _vkp_local - 1u) / _vkp_local, 65535u);
    frontier_q[9] = 1u;
    frontier_q[10] = 1u;
}
