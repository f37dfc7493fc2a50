#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) readonly buffer f_buffer { float f[]; };
layout(std430, binding = 1) readonly buffer hits_buffer { int hits[]; };
layout(std430, binding = 2) coherent buffer q_q_buffer { uint q_q[]; };   // queue: tail, head, dropped, rounds
layout(std430, binding = 3) coherent buffer q_items_buffer { uint q_items[]; };
layout(std430, binding = 4) writeonly buffer snap_frames_buffer { float snap_frames[]; };   // MemSock frames
layout(std430, binding = 5) buffer snap_header_buffer { uint snap_header[]; };   // published sequence numbers, payload
layout(std430, binding = 6) coherent buffer snap_cursor_buffer { uint snap_cursor[]; };   // host's release cursor, reservations, drops
layout(std430, binding = 7) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 8) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
const uint _vkp_SOCKETS = 152u;   // per memsock and slot: its frame's ring slot and seq
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
int snap_slot = -1;   // this step's frame of memsock snap (-1: none)
uint snap_seq;
uint _vkp_host_thresh;   // host field thresh in this step's snapshot
layout(std430, binding = 9) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// programs_lib.py:275: hot
bool when_hot_0() {
    // programs_lib.py:276
    return f[(8) * 16 + 8] > uintBitsToFloat(_vkp_host_thresh);
}

// Prepares the step words in slot `p` for the next step (see the module's docs).
void _vkp_boundary(uint p) {
    uint ended = _vkp_sched[_vkp_ENDED];
    uint head = _vkp_controls[10];
    uint tail = _vkp_controls[53];
    uint halt = _vkp_controls[8];
    uint budget = _vkp_controls[9];
    uint c0 = _vkp_controls[0];
    uint c1 = _vkp_controls[1];
    uint c2 = _vkp_controls[2];
    uint c3 = _vkp_controls[3];
    uint c4 = _vkp_controls[4];
    uint c5 = _vkp_controls[5];
    uint c6 = _vkp_controls[6];
    uint c7 = _vkp_controls[7];
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
            uint _head = atomicAdd(_vkp_controls[10], 0u);
            uint _tail = _vkp_controls[53];
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
                uint _e = 11u + (_tail % 16u) * 2u;
                uint _word = atomicAdd(_vkp_controls[_e], 0u);
                atomicExchange(_vkp_controls[_word], atomicAdd(_vkp_controls[_e + 1u], 0u));
                _tail += 1u;
            }
            _vkp_controls[53] = _tail;
            atomicExchange(_vkp_controls[54], 0xFFFFFFFFu);   // busy: the host retries
            atomicExchange(_vkp_controls[55], step);
            atomicExchange(_vkp_controls[54], _tail);
        }
        halt = _vkp_controls[8];
        c0 = _vkp_controls[0];
        c1 = _vkp_controls[1];
        c2 = _vkp_controls[2];
        c3 = _vkp_controls[3];
        c4 = _vkp_controls[4];
        c5 = _vkp_controls[5];
        c6 = _vkp_controls[6];
        c7 = _vkp_controls[7];
    }
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 0u] = c0;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 1u] = c1;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 2u] = c2;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 3u] = c3;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 4u] = c4;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 5u] = c5;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 6u] = c6;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 7u] = c7;
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
    uint reason = 0u;
    if (halt != 0u) reason = 2u;
    else if (done >= budget) reason = 1u;
    else if (step >= uint(c2)) reason = 5u;   // loop(steps='total')
    uint flags = 0u;
    { uint n = c1;   // every(ctl.period)
      if (n != 0u && step % n == 0u) flags |= 2u; }
    if (reason != 0u) {
        _vkp_sched[_vkp_ENDED] = 1u;
        _vkp_sched[_vkp_STEP_STATE + 3u * p] = 2u;
        _vkp_controls[50] = reason;
        return;
    }
    {   // the frame of memsock snap
        int slot = -1;
        uint head = snap_cursor[1];
        if ((flags & 2u) != 0u) {
            if ((snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 16u)) {
                slot = int(head % 16u);
                snap_cursor[1] = head + 1u;
            } else snap_cursor[2] += 1u;
        }
        _vkp_sched[_vkp_SOCKETS + 0u + 2u * p] = uint(slot);
        _vkp_sched[_vkp_SOCKETS + 1u + 2u * p] = head;
    }
    _vkp_sched[_vkp_STEP_FLAGS + 3u * p] = flags;
    _vkp_sched[_vkp_STEP_NUMBER + 3u * p] = step;
    _vkp_sched[_vkp_STEP_STATE + 3u * p] = 1u;
}

// the step boundary of the fallback: one invocation, before each step
void main() {
    uint q = _vkp_sched[_vkp_CUR];   // the step before, now complete everywhere
    uint p = q == 2u ? 0u : q + 1u;
    if (_vkp_sched[_vkp_STEP_STATE + 3u * q] == 1u) {
        if (int(_vkp_sched[_vkp_SOCKETS + 0u + 2u * q]) >= 0) atomicExchange(snap_header[int(_vkp_sched[_vkp_SOCKETS + 0u + 2u * q])], (atomicAdd(_vkp_status[0], 0u) == 0u ? _vkp_sched[_vkp_SOCKETS + 1u + 2u * q] + 1u : ~(_vkp_sched[_vkp_SOCKETS + 1u + 2u * q] + 1u)));
    }
    _vkp_boundary(p);
    if (atomicAdd(_vkp_status[0], 0u) == 0u) _vkp_sched[_vkp_SAFE] = _vkp_sched[_vkp_DONE];   // no loop cut short so far
    if (_vkp_sched[_vkp_STEP_STATE + 3u * p] == 1u) {
        _vkp_step = _vkp_sched[_vkp_STEP_NUMBER + 3u * p];
        _vkp_snap = _vkp_SNAPSHOT + 8u * p;
        _vkp_host_thresh = _vkp_sched[_vkp_snap + 7u];
        snap_slot = int(_vkp_sched[_vkp_SOCKETS + 0u + 2u * p]);
        snap_seq = _vkp_sched[_vkp_SOCKETS + 1u + 2u * p];
        uint _whens = 0u;   // when(...) conditions, on the data as the step starts
        if (when_hot_0()) _whens |= 1u;
        _vkp_sched[_vkp_STEP_FLAGS + 3u * p] |= _whens;
    }
    _vkp_sched[_vkp_CUR] = p;
}

#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) buffer f_buffer { float f[]; };
layout(std430, binding = 1) readonly buffer hits_buffer { int hits[]; };
layout(std430, binding = 2) coherent buffer q_q_buffer { uint q_q[]; };   // queue: tail, head, dropped, rounds
layout(std430, binding = 3) coherent buffer q_items_buffer { uint q_items[]; };
layout(std430, binding = 4) writeonly buffer snap_frames_buffer { float snap_frames[]; };   // MemSock frames
layout(std430, binding = 5) buffer snap_header_buffer { uint snap_header[]; };   // published sequence numbers, payload
layout(std430, binding = 6) coherent buffer snap_cursor_buffer { uint snap_cursor[]; };   // host's release cursor, reservations, drops
layout(std430, binding = 7) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 8) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
const uint _vkp_SOCKETS = 152u;   // per memsock and slot: its frame's ring slot and seq
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
int snap_slot = -1;   // this step's frame of memsock snap (-1: none)
uint snap_seq;
uint _vkp_host_gain;   // host field gain in this step's snapshot
layout(std430, binding = 9) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

int _vkp_mod(int a, int b) {
    int r = a - (a / b) * b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

bool _vkp_push_q(uint item) {
    uint head = q_q[1];
    uvec4 pushers = subgroupBallot(true);
    uint k = subgroupBallotBitCount(pushers);
    uint base = head + 64u;      // full: every rank drops
    if (subgroupElect()) {
        uint reserved = 0u;
        if (q_q[0] - head < 64u) {
            base = atomicAdd(q_q[0], k);
            reserved = k;
        }
        uint kept = base - head >= 64u ? 0u : min(k, 64u - (base - head));
        if (kept < k) {          // full, or filled meanwhile: undo, drop and count
            if (reserved > kept) atomicAdd(q_q[0], kept - reserved);
            atomicAdd(q_q[2], k - kept);
        }
    }
    uint t = subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(pushers);
    if (t - head >= 64u) return false;
    q_items[t % 64u] = item;
    return true;
}

// programs_lib.py:279: grow
void stage_grow(int i, int j) {
    // programs_lib.py:280
    f[(i) * 16 + j] = f[(i) * 16 + j] + (uintBitsToFloat(_vkp_host_gain) * uintBitsToFloat(_vkp_sched[_vkp_snap + 3u + uint(_vkp_mod((i + j), 4))]));
    // programs_lib.py:281
    if (((i == 8) && (j == 8)) && (((_vkp_step) % (2u)) == 0u)) {
        // programs_lib.py:282
        _vkp_push_q(_vkp_step);
    }
}

// Prepares the step words in slot `p` for the next step (see the module's docs).
void _vkp_boundary(uint p) {
    uint ended = _vkp_sched[_vkp_ENDED];
    uint head = _vkp_controls[10];
    uint tail = _vkp_controls[53];
    uint halt = _vkp_controls[8];
    uint budget = _vkp_controls[9];
    uint c0 = _vkp_controls[0];
    uint c1 = _vkp_controls[1];
    uint c2 = _vkp_controls[2];
    uint c3 = _vkp_controls[3];
    uint c4 = _vkp_controls[4];
    uint c5 = _vkp_controls[5];
    uint c6 = _vkp_controls[6];
    uint c7 = _vkp_controls[7];
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
            uint _head = atomicAdd(_vkp_controls[10], 0u);
            uint _tail = _vkp_controls[53];
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
                uint _e = 11u + (_tail % 16u) * 2u;
                uint _word = atomicAdd(_vkp_controls[_e], 0u);
                atomicExchange(_vkp_controls[_word], atomicAdd(_vkp_controls[_e + 1u], 0u));
                _tail += 1u;
            }
            _vkp_controls[53] = _tail;
            atomicExchange(_vkp_controls[54], 0xFFFFFFFFu);   // busy: the host retries
            atomicExchange(_vkp_controls[55], step);
            atomicExchange(_vkp_controls[54], _tail);
        }
        halt = _vkp_controls[8];
        c0 = _vkp_controls[0];
        c1 = _vkp_controls[1];
        c2 = _vkp_controls[2];
        c3 = _vkp_controls[3];
        c4 = _vkp_controls[4];
        c5 = _vkp_controls[5];
        c6 = _vkp_controls[6];
        c7 = _vkp_controls[7];
    }
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 0u] = c0;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 1u] = c1;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 2u] = c2;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 3u] = c3;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 4u] = c4;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 5u] = c5;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 6u] = c6;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 7u] = c7;
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
    uint reason = 0u;
    if (halt != 0u) reason = 2u;
    else if (done >= budget) reason = 1u;
    else if (step >= uint(c2)) reason = 5u;   // loop(steps='total')
    uint flags = 0u;
    { uint n = c1;   // every(ctl.period)
      if (n != 0u && step % n == 0u) flags |= 2u; }
    if (reason != 0u) {
        _vkp_sched[_vkp_ENDED] = 1u;
        _vkp_sched[_vkp_STEP_STATE + 3u * p] = 2u;
        _vkp_controls[50] = reason;
        return;
    }
    {   // the frame of memsock snap
        int slot = -1;
        uint head = snap_cursor[1];
        if ((flags & 2u) != 0u) {
            if ((snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 16u)) {
                slot = int(head % 16u);
                snap_cursor[1] = head + 1u;
            } else snap_cursor[2] += 1u;
        }
        _vkp_sched[_vkp_SOCKETS + 0u + 2u * p] = uint(slot);
        _vkp_sched[_vkp_SOCKETS + 1u + 2u * p] = head;
    }
    _vkp_sched[_vkp_STEP_FLAGS + 3u * p] = flags;
    _vkp_sched[_vkp_STEP_NUMBER + 3u * p] = step;
    _vkp_sched[_vkp_STEP_STATE + 3u * p] = 1u;
}

// stage grow of the fallback: one invocation per index of (16, 16)
void main() {
    uint p = _vkp_sched[_vkp_CUR];
    if (_vkp_sched[_vkp_STEP_STATE + 3u * p] != 1u) return;   // the batch has ended
    uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (_i >= 256u) return;
    _vkp_step = _vkp_sched[_vkp_STEP_NUMBER + 3u * p];
    _vkp_snap = _vkp_SNAPSHOT + 8u * p;
    _vkp_host_gain = _vkp_sched[_vkp_snap + 0u];
    snap_slot = int(_vkp_sched[_vkp_SOCKETS + 0u + 2u * p]);
    snap_seq = _vkp_sched[_vkp_SOCKETS + 1u + 2u * p];
    stage_grow(int(_i / 16u), int(_i % 16u));
}

#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) readonly buffer f_buffer { float f[]; };
layout(std430, binding = 1) buffer hits_buffer { int hits[]; };
layout(std430, binding = 2) coherent buffer q_q_buffer { uint q_q[]; };   // queue: tail, head, dropped, rounds
layout(std430, binding = 3) coherent buffer q_items_buffer { uint q_items[]; };
layout(std430, binding = 4) writeonly buffer snap_frames_buffer { float snap_frames[]; };   // MemSock frames
layout(std430, binding = 5) buffer snap_header_buffer { uint snap_header[]; };   // published sequence numbers, payload
layout(std430, binding = 6) coherent buffer snap_cursor_buffer { uint snap_cursor[]; };   // host's release cursor, reservations, drops
layout(std430, binding = 7) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 8) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
const uint _vkp_SOCKETS = 152u;   // per memsock and slot: its frame's ring slot and seq
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
int snap_slot = -1;   // this step's frame of memsock snap (-1: none)
uint snap_seq;
layout(std430, binding = 9) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// programs_lib.py:285: count
void stage_count(uint item) {
    // programs_lib.py:286
    atomicAdd(hits[0], 1);
    // programs_lib.py:287
    atomicMax(hits[1], int(item));
}

// Prepares the step words in slot `p` for the next step (see the module's docs).
void _vkp_boundary(uint p) {
    uint ended = _vkp_sched[_vkp_ENDED];
    uint head = _vkp_controls[10];
    uint tail = _vkp_controls[53];
    uint halt = _vkp_controls[8];
    uint budget = _vkp_controls[9];
    uint c0 = _vkp_controls[0];
    uint c1 = _vkp_controls[1];
    uint c2 = _vkp_controls[2];
    uint c3 = _vkp_controls[3];
    uint c4 = _vkp_controls[4];
    uint c5 = _vkp_controls[5];
    uint c6 = _vkp_controls[6];
    uint c7 = _vkp_controls[7];
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
            uint _head = atomicAdd(_vkp_controls[10], 0u);
            uint _tail = _vkp_controls[53];
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
                uint _e = 11u + (_tail % 16u) * 2u;
                uint _word = atomicAdd(_vkp_controls[_e], 0u);
                atomicExchange(_vkp_controls[_word], atomicAdd(_vkp_controls[_e + 1u], 0u));
                _tail += 1u;
            }
            _vkp_controls[53] = _tail;
            atomicExchange(_vkp_controls[54], 0xFFFFFFFFu);   // busy: the host retries
            atomicExchange(_vkp_controls[55], step);
            atomicExchange(_vkp_controls[54], _tail);
        }
        halt = _vkp_controls[8];
        c0 = _vkp_controls[0];
        c1 = _vkp_controls[1];
        c2 = _vkp_controls[2];
        c3 = _vkp_controls[3];
        c4 = _vkp_controls[4];
        c5 = _vkp_controls[5];
        c6 = _vkp_controls[6];
        c7 = _vkp_controls[7];
    }
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 0u] = c0;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 1u] = c1;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 2u] = c2;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 3u] = c3;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 4u] = c4;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 5u] = c5;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 6u] = c6;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 7u] = c7;
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
    uint reason = 0u;
    if (halt != 0u) reason = 2u;
    else if (done >= budget) reason = 1u;
    else if (step >= uint(c2)) reason = 5u;   // loop(steps='total')
    uint flags = 0u;
    { uint n = c1;   // every(ctl.period)
      if (n != 0u && step % n == 0u) flags |= 2u; }
    if (reason != 0u) {
        _vkp_sched[_vkp_ENDED] = 1u;
        _vkp_sched[_vkp_STEP_STATE + 3u * p] = 2u;
        _vkp_controls[50] = reason;
        return;
    }
    {   // the frame of memsock snap
        int slot = -1;
        uint head = snap_cursor[1];
        if ((flags & 2u) != 0u) {
            if ((snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 16u)) {
                slot = int(head % 16u);
                snap_cursor[1] = head + 1u;
            } else snap_cursor[2] += 1u;
        }
        _vkp_sched[_vkp_SOCKETS + 0u + 2u * p] = uint(slot);
        _vkp_sched[_vkp_SOCKETS + 1u + 2u * p] = head;
    }
    _vkp_sched[_vkp_STEP_FLAGS + 3u * p] = flags;
    _vkp_sched[_vkp_STEP_NUMBER + 3u * p] = step;
    _vkp_sched[_vkp_STEP_STATE + 3u * p] = 1u;
}

// stage count of the fallback: one round of queue q
void main() {
    uint p = _vkp_sched[_vkp_CUR];
    _vkp_step = _vkp_sched[_vkp_STEP_NUMBER + 3u * p];
    _vkp_snap = _vkp_SNAPSHOT + 8u * p;
    snap_slot = int(_vkp_sched[_vkp_SOCKETS + 0u + 2u * p]);
    snap_seq = _vkp_sched[_vkp_SOCKETS + 1u + 2u * p];
    uint lo = q_q[3];
    uint count = q_q[4] - lo;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
    for (uint k = gl_GlobalInvocationID.x; k < count; k += stride) {
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
        stage_count(q_items[(lo + k) % 64u]);
    }
}

#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) readonly buffer f_buffer { float f[]; };
layout(std430, binding = 1) buffer hits_buffer { int hits[]; };
layout(std430, binding = 2) coherent buffer q_q_buffer { uint q_q[]; };   // queue: tail, head, dropped, rounds
layout(std430, binding = 3) coherent buffer q_items_buffer { uint q_items[]; };
layout(std430, binding = 4) writeonly buffer snap_frames_buffer { float snap_frames[]; };   // MemSock frames
layout(std430, binding = 5) buffer snap_header_buffer { uint snap_header[]; };   // published sequence numbers, payload
layout(std430, binding = 6) coherent buffer snap_cursor_buffer { uint snap_cursor[]; };   // host's release cursor, reservations, drops
layout(std430, binding = 7) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 8) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
const uint _vkp_SOCKETS = 152u;   // per memsock and slot: its frame's ring slot and seq
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
int snap_slot = -1;   // this step's frame of memsock snap (-1: none)
uint snap_seq;
layout(std430, binding = 9) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// programs_lib.py:290: when_hot
void stage_when_hot(int i) {
    // programs_lib.py:291
    hits[2] = hits[2] + 1;
}

// Prepares the step words in slot `p` for the next step (see the module's docs).
void _vkp_boundary(uint p) {
    uint ended = _vkp_sched[_vkp_ENDED];
    uint head = _vkp_controls[10];
    uint tail = _vkp_controls[53];
    uint halt = _vkp_controls[8];
    uint budget = _vkp_controls[9];
    uint c0 = _vkp_controls[0];
    uint c1 = _vkp_controls[1];
    uint c2 = _vkp_controls[2];
    uint c3 = _vkp_controls[3];
    uint c4 = _vkp_controls[4];
    uint c5 = _vkp_controls[5];
    uint c6 = _vkp_controls[6];
    uint c7 = _vkp_controls[7];
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
            uint _head = atomicAdd(_vkp_controls[10], 0u);
            uint _tail = _vkp_controls[53];
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
                uint _e = 11u + (_tail % 16u) * 2u;
                uint _word = atomicAdd(_vkp_controls[_e], 0u);
                atomicExchange(_vkp_controls[_word], atomicAdd(_vkp_controls[_e + 1u], 0u));
                _tail += 1u;
            }
            _vkp_controls[53] = _tail;
            atomicExchange(_vkp_controls[54], 0xFFFFFFFFu);   // busy: the host retries
            atomicExchange(_vkp_controls[55], step);
            atomicExchange(_vkp_controls[54], _tail);
        }
        halt = _vkp_controls[8];
        c0 = _vkp_controls[0];
        c1 = _vkp_controls[1];
        c2 = _vkp_controls[2];
        c3 = _vkp_controls[3];
        c4 = _vkp_controls[4];
        c5 = _vkp_controls[5];
        c6 = _vkp_controls[6];
        c7 = _vkp_controls[7];
    }
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 0u] = c0;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 1u] = c1;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 2u] = c2;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 3u] = c3;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 4u] = c4;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 5u] = c5;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 6u] = c6;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 7u] = c7;
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
    uint reason = 0u;
    if (halt != 0u) reason = 2u;
    else if (done >= budget) reason = 1u;
    else if (step >= uint(c2)) reason = 5u;   // loop(steps='total')
    uint flags = 0u;
    { uint n = c1;   // every(ctl.period)
      if (n != 0u && step % n == 0u) flags |= 2u; }
    if (reason != 0u) {
        _vkp_sched[_vkp_ENDED] = 1u;
        _vkp_sched[_vkp_STEP_STATE + 3u * p] = 2u;
        _vkp_controls[50] = reason;
        return;
    }
    {   // the frame of memsock snap
        int slot = -1;
        uint head = snap_cursor[1];
        if ((flags & 2u) != 0u) {
            if ((snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 16u)) {
                slot = int(head % 16u);
                snap_cursor[1] = head + 1u;
            } else snap_cursor[2] += 1u;
        }
        _vkp_sched[_vkp_SOCKETS + 0u + 2u * p] = uint(slot);
        _vkp_sched[_vkp_SOCKETS + 1u + 2u * p] = head;
    }
    _vkp_sched[_vkp_STEP_FLAGS + 3u * p] = flags;
    _vkp_sched[_vkp_STEP_NUMBER + 3u * p] = step;
    _vkp_sched[_vkp_STEP_STATE + 3u * p] = 1u;
}

// stage when_hot of the fallback: one invocation per index of (1,)
void main() {
    uint p = _vkp_sched[_vkp_CUR];
    if (_vkp_sched[_vkp_STEP_STATE + 3u * p] != 1u) return;   // the batch has ended
    if ((_vkp_sched[_vkp_STEP_FLAGS + 3u * p] & 1u) == 0u) return;   // not this step
    uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (_i >= 1u) return;
    _vkp_step = _vkp_sched[_vkp_STEP_NUMBER + 3u * p];
    _vkp_snap = _vkp_SNAPSHOT + 8u * p;
    snap_slot = int(_vkp_sched[_vkp_SOCKETS + 0u + 2u * p]);
    snap_seq = _vkp_sched[_vkp_SOCKETS + 1u + 2u * p];
    stage_when_hot(int(_i));
}

#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) readonly buffer f_buffer { float f[]; };
layout(std430, binding = 1) readonly buffer hits_buffer { int hits[]; };
layout(std430, binding = 2) coherent buffer q_q_buffer { uint q_q[]; };   // queue: tail, head, dropped, rounds
layout(std430, binding = 3) coherent buffer q_items_buffer { uint q_items[]; };
layout(std430, binding = 4) writeonly buffer snap_frames_buffer { float snap_frames[]; };   // MemSock frames
layout(std430, binding = 5) buffer snap_header_buffer { uint snap_header[]; };   // published sequence numbers, payload
layout(std430, binding = 6) coherent buffer snap_cursor_buffer { uint snap_cursor[]; };   // host's release cursor, reservations, drops
layout(std430, binding = 7) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 8) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
const uint _vkp_SOCKETS = 152u;   // per memsock and slot: its frame's ring slot and seq
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
int snap_slot = -1;   // this step's frame of memsock snap (-1: none)
uint snap_seq;
uint _vkp_host_gain;   // host field gain in this step's snapshot
layout(std430, binding = 9) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// programs_lib.py:294: emit
void stage_emit(int i, int j) {
    // programs_lib.py:295
    if (snap_slot >= 0) snap_frames[snap_slot * (16 * 16) + (i) * 16 + j] = f[(i) * 16 + j];
    // programs_lib.py:296
    if ((i == 0) && (j == 0)) {
        // programs_lib.py:297
        if (snap_slot >= 0) snap_header[16 + snap_slot * 2] = _vkp_step;
        // programs_lib.py:298
        if (snap_slot >= 0) snap_header[17 + snap_slot * 2] = floatBitsToUint(uintBitsToFloat(_vkp_host_gain));
    }
}

// Prepares the step words in slot `p` for the next step (see the module's docs).
void _vkp_boundary(uint p) {
    uint ended = _vkp_sched[_vkp_ENDED];
    uint head = _vkp_controls[10];
    uint tail = _vkp_controls[53];
    uint halt = _vkp_controls[8];
    uint budget = _vkp_controls[9];
    uint c0 = _vkp_controls[0];
    uint c1 = _vkp_controls[1];
    uint c2 = _vkp_controls[2];
    uint c3 = _vkp_controls[3];
    uint c4 = _vkp_controls[4];
    uint c5 = _vkp_controls[5];
    uint c6 = _vkp_controls[6];
    uint c7 = _vkp_controls[7];
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
            uint _head = atomicAdd(_vkp_controls[10], 0u);
            uint _tail = _vkp_controls[53];
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
                uint _e = 11u + (_tail % 16u) * 2u;
                uint _word = atomicAdd(_vkp_controls[_e], 0u);
                atomicExchange(_vkp_controls[_word], atomicAdd(_vkp_controls[_e + 1u], 0u));
                _tail += 1u;
            }
            _vkp_controls[53] = _tail;
            atomicExchange(_vkp_controls[54], 0xFFFFFFFFu);   // busy: the host retries
            atomicExchange(_vkp_controls[55], step);
            atomicExchange(_vkp_controls[54], _tail);
        }
        halt = _vkp_controls[8];
        c0 = _vkp_controls[0];
        c1 = _vkp_controls[1];
        c2 = _vkp_controls[2];
        c3 = _vkp_controls[3];
        c4 = _vkp_controls[4];
        c5 = _vkp_controls[5];
        c6 = _vkp_controls[6];
        c7 = _vkp_controls[7];
    }
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 0u] = c0;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 1u] = c1;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 2u] = c2;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 3u] = c3;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 4u] = c4;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 5u] = c5;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 6u] = c6;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 7u] = c7;
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
    uint reason = 0u;
    if (halt != 0u) reason = 2u;
    else if (done >= budget) reason = 1u;
    else if (step >= uint(c2)) reason = 5u;   // loop(steps='total')
    uint flags = 0u;
    { uint n = c1;   // every(ctl.period)
      if (n != 0u && step % n == 0u) flags |= 2u; }
    if (reason != 0u) {
        _vkp_sched[_vkp_ENDED] = 1u;
        _vkp_sched[_vkp_STEP_STATE + 3u * p] = 2u;
        _vkp_controls[50] = reason;
        return;
    }
    {   // the frame of memsock snap
        int slot = -1;
        uint head = snap_cursor[1];
        if ((flags & 2u) != 0u) {
            if ((snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 16u)) {
                slot = int(head % 16u);
                snap_cursor[1] = head + 1u;
            } else snap_cursor[2] += 1u;
        }
        _vkp_sched[_vkp_SOCKETS + 0u + 2u * p] = uint(slot);
        _vkp_sched[_vkp_SOCKETS + 1u + 2u * p] = head;
    }
    _vkp_sched[_vkp_STEP_FLAGS + 3u * p] = flags;
    _vkp_sched[_vkp_STEP_NUMBER + 3u * p] = step;
    _vkp_sched[_vkp_STEP_STATE + 3u * p] = 1u;
}

// stage emit of the fallback: one invocation per index of (16, 16)
void main() {
    uint p = _vkp_sched[_vkp_CUR];
    if (_vkp_sched[_vkp_STEP_STATE + 3u * p] != 1u) return;   // the batch has ended
    if ((_vkp_sched[_vkp_STEP_FLAGS + 3u * p] & 2u) == 0u) return;   // not this step
    uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (_i >= 256u) return;
    _vkp_step = _vkp_sched[_vkp_STEP_NUMBER + 3u * p];
    _vkp_snap = _vkp_SNAPSHOT + 8u * p;
    _vkp_host_gain = _vkp_sched[_vkp_snap + 0u];
    snap_slot = int(_vkp_sched[_vkp_SOCKETS + 0u + 2u * p]);
    snap_seq = _vkp_sched[_vkp_SOCKETS + 1u + 2u * p];
    stage_emit(int(_i / 16u), int(_i % 16u));
}

#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    uint _vkp_phase;
    uint _vkp_local;
};

layout(std430, binding = 0) readonly buffer f_buffer { float f[]; };
layout(std430, binding = 1) readonly buffer hits_buffer { int hits[]; };
layout(std430, binding = 2) coherent buffer q_q_buffer { uint q_q[]; };   // queue: tail, head, dropped, rounds
layout(std430, binding = 3) coherent buffer q_items_buffer { uint q_items[]; };
layout(std430, binding = 4) writeonly buffer snap_frames_buffer { float snap_frames[]; };   // MemSock frames
layout(std430, binding = 5) buffer snap_header_buffer { uint snap_header[]; };   // published sequence numbers, payload
layout(std430, binding = 6) coherent buffer snap_cursor_buffer { uint snap_cursor[]; };   // host's release cursor, reservations, drops
layout(std430, binding = 7) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 8) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
const uint _vkp_SOCKETS = 152u;   // per memsock and slot: its frame's ring slot and seq
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
int snap_slot = -1;   // this step's frame of memsock snap (-1: none)
uint snap_seq;
layout(std430, binding = 9) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// Prepares the step words in slot `p` for the next step (see the module's docs).
void _vkp_boundary(uint p) {
    uint ended = _vkp_sched[_vkp_ENDED];
    uint head = _vkp_controls[10];
    uint tail = _vkp_controls[53];
    uint halt = _vkp_controls[8];
    uint budget = _vkp_controls[9];
    uint c0 = _vkp_controls[0];
    uint c1 = _vkp_controls[1];
    uint c2 = _vkp_controls[2];
    uint c3 = _vkp_controls[3];
    uint c4 = _vkp_controls[4];
    uint c5 = _vkp_controls[5];
    uint c6 = _vkp_controls[6];
    uint c7 = _vkp_controls[7];
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
            uint _head = atomicAdd(_vkp_controls[10], 0u);
            uint _tail = _vkp_controls[53];
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 277410765u);
                uint _e = 11u + (_tail % 16u) * 2u;
                uint _word = atomicAdd(_vkp_controls[_e], 0u);
                atomicExchange(_vkp_controls[_word], atomicAdd(_vkp_controls[_e + 1u], 0u));
                _tail += 1u;
            }
            _vkp_controls[53] = _tail;
            atomicExchange(_vkp_controls[54], 0xFFFFFFFFu);   // busy: the host retries
            atomicExchange(_vkp_controls[55], step);
            atomicExchange(_vkp_controls[54], _tail);
        }
        halt = _vkp_controls[8];
        c0 = _vkp_controls[0];
        c1 = _vkp_controls[1];
        c2 = _vkp_controls[2];
        c3 = _vkp_controls[3];
        c4 = _vkp_controls[4];
        c5 = _vkp_controls[5];
        c6 = _vkp_controls[6];
        c7 = _vkp_controls[7];
    }
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 0u] = c0;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 1u] = c1;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 2u] = c2;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 3u] = c3;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 4u] = c4;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 5u] = c5;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 6u] = c6;
    _vkp_sched[_vkp_SNAPSHOT + 8u * p + 7u] = c7;
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
    uint reason = 0u;
    if (halt != 0u) reason = 2u;
    else if (done >= budget) reason = 1u;
    else if (step >= uint(c2)) reason = 5u;   // loop(steps='total')
    uint flags = 0u;
    { uint n = c1;   // every(ctl.period)
      if (n != 0u && step % n == 0u) flags |= 2u; }
    if (reason != 0u) {
        _vkp_sched[_vkp_ENDED] = 1u;
        _vkp_sched[_vkp_STEP_STATE + 3u * p] = 2u;
        _vkp_controls[50] = reason;
        return;
    }
    {   // the frame of memsock snap
        int slot = -1;
        uint head = snap_cursor[1];
        if ((flags & 2u) != 0u) {
            if ((snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 16u)) {
                slot = int(head % 16u);
                snap_cursor[1] = head + 1u;
            } else snap_cursor[2] += 1u;
        }
        _vkp_sched[_vkp_SOCKETS + 0u + 2u * p] = uint(slot);
        _vkp_sched[_vkp_SOCKETS + 1u + 2u * p] = head;
    }
    _vkp_sched[_vkp_STEP_FLAGS + 3u * p] = flags;
    _vkp_sched[_vkp_STEP_NUMBER + 3u * p] = step;
    _vkp_sched[_vkp_STEP_STATE + 3u * p] = 1u;
}

// rounds of stage count, which consumes queue q
void main() {
    uint p = _vkp_sched[_vkp_CUR];
    bool runs = _vkp_sched[_vkp_STEP_STATE + 3u * p] == 1u;
    if (runs && _vkp_phase != 0u) q_q[1] = q_q[4];
    uint lo = q_q[1];
    uint hi = runs ? q_q[0] : lo;
    if (_vkp_phase == 2u) {
        if (hi != lo) q_q[7] += 1u;   // items left: report it
        hi = lo;
    }
    q_q[3] = lo;
    q_q[4] = hi;
    q_q[8] = min((hi - lo + _vkp_local - 1u) / _vkp_local, 65535u);
    q_q[9] = 1u;
    q_q[10] = 1u;
}
