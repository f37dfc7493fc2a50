#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) readonly buffer x_buffer { int x[]; };
layout(std430, binding = 1) readonly buffer fired_buffer { int fired[]; };
layout(std430, binding = 2) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 3) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
uint _vkp_host_limit;   // host field limit in this step's snapshot

// programs_lib.py:234: reached
bool when_reached_0() {
    // programs_lib.py:235
    return x[0] >= int(_vkp_host_limit);
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
            uint _head = atomicLoad(_vkp_controls[3], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
            uint _tail = _vkp_controls[53];
            while (_tail != _head) {
                uint _e = 4u + (_tail % 16u) * 2u;
                uint _word = atomicLoad(_vkp_controls[_e], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
                atomicStore(_vkp_controls[_word], atomicLoad(_vkp_controls[_e + 1u], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire), gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
                _tail += 1u;
            }
            _vkp_controls[53] = _tail;
            atomicStore(_vkp_controls[54], 0xFFFFFFFFu, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);   // busy: the host retries
            atomicStore(_vkp_controls[55], step, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
            atomicStore(_vkp_controls[54], _tail, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
        }
        halt = _vkp_controls[1];
        c0 = _vkp_controls[0];
    }
    _vkp_sched[_vkp_SNAPSHOT + 1u * p + 0u] = c0;
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
    if (_vkp_sched[_vkp_STEP_STATE + 3u * p] == 1u) {
        _vkp_step = _vkp_sched[_vkp_STEP_NUMBER + 3u * p];
        _vkp_snap = _vkp_SNAPSHOT + 1u * p;
        _vkp_host_limit = _vkp_sched[_vkp_snap + 0u];
        uint _whens = 0u;   // when(...) conditions, on the data as the step starts
        if (when_reached_0()) _whens |= 1u;
        _vkp_sched[_vkp_STEP_FLAGS + 3u * p] |= _whens;
    }
    _vkp_sched[_vkp_CUR] = p;
}

#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) buffer x_buffer { int x[]; };
layout(std430, binding = 1) readonly buffer fired_buffer { int fired[]; };
layout(std430, binding = 2) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 3) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts

// programs_lib.py:238: grow
void stage_grow(int i) {
    // programs_lib.py:239
    x[0] = x[0] + 1;
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
            uint _head = atomicLoad(_vkp_controls[3], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
            uint _tail = _vkp_controls[53];
            while (_tail != _head) {
                uint _e = 4u + (_tail % 16u) * 2u;
                uint _word = atomicLoad(_vkp_controls[_e], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
                atomicStore(_vkp_controls[_word], atomicLoad(_vkp_controls[_e + 1u], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire), gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
                _tail += 1u;
            }
            _vkp_controls[53] = _tail;
            atomicStore(_vkp_controls[54], 0xFFFFFFFFu, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);   // busy: the host retries
            atomicStore(_vkp_controls[55], step, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
            atomicStore(_vkp_controls[54], _tail, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
        }
        halt = _vkp_controls[1];
        c0 = _vkp_controls[0];
    }
    _vkp_sched[_vkp_SNAPSHOT + 1u * p + 0u] = c0;
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

// stage grow of the fallback: one invocation per index of (1,)
void main() {
    uint p = _vkp_sched[_vkp_CUR];
    if (_vkp_sched[_vkp_STEP_STATE + 3u * p] != 1u) return;   // the batch has ended
    uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (_i >= 1u) return;
    _vkp_step = _vkp_sched[_vkp_STEP_NUMBER + 3u * p];
    _vkp_snap = _vkp_SNAPSHOT + 1u * p;
    stage_grow(int(_i));
}

#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) readonly buffer x_buffer { int x[]; };
layout(std430, binding = 1) buffer fired_buffer { int fired[]; };
layout(std430, binding = 2) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 3) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts

// programs_lib.py:242: fire
void stage_fire(int i) {
    // programs_lib.py:243
    fired[0] = fired[0] + 1;
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
            uint _head = atomicLoad(_vkp_controls[3], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
            uint _tail = _vkp_controls[53];
            while (_tail != _head) {
                uint _e = 4u + (_tail % 16u) * 2u;
                uint _word = atomicLoad(_vkp_controls[_e], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
                atomicStore(_vkp_controls[_word], atomicLoad(_vkp_controls[_e + 1u], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire), gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
                _tail += 1u;
            }
            _vkp_controls[53] = _tail;
            atomicStore(_vkp_controls[54], 0xFFFFFFFFu, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);   // busy: the host retries
            atomicStore(_vkp_controls[55], step, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
            atomicStore(_vkp_controls[54], _tail, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
        }
        halt = _vkp_controls[1];
        c0 = _vkp_controls[0];
    }
    _vkp_sched[_vkp_SNAPSHOT + 1u * p + 0u] = c0;
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

// stage fire of the fallback: one invocation per index of (1,)
void main() {
    uint p = _vkp_sched[_vkp_CUR];
    if (_vkp_sched[_vkp_STEP_STATE + 3u * p] != 1u) return;   // the batch has ended
    if ((_vkp_sched[_vkp_STEP_FLAGS + 3u * p] & 1u) == 0u) return;   // not this step
    uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (_i >= 1u) return;
    _vkp_step = _vkp_sched[_vkp_STEP_NUMBER + 3u * p];
    _vkp_snap = _vkp_SNAPSHOT + 1u * p;
    stage_fire(int(_i));
}
