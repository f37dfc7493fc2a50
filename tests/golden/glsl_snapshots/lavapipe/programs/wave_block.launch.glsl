#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) readonly buffer field_buffer { float field[]; };
layout(std430, binding = 1) writeonly buffer snap_frames_buffer { float snap_frames[]; };   // MemSock frames
layout(std430, binding = 2) buffer snap_header_buffer { uint snap_header[]; };   // published sequence numbers, payload
layout(std430, binding = 3) coherent buffer snap_cursor_buffer { uint snap_cursor[]; };   // host's release cursor, reservations, drops
layout(std430, binding = 4) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 5) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
int snap_slot = -1;   // this step's frame of memsock snap (-1: none)
uint snap_seq;
layout(std430, binding = 6) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

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
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
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
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
    uint reason = 0u;
    if (halt != 0u) reason = 2u;
    else if (done >= budget) reason = 1u;
    uint flags = 0u;
    { uint n = 2u;   // every(2)
      if (n != 0u && step % n == 0u) flags |= 1u; }
    if (reason == 0u && (flags & 1u) != 0u) {   // memsock snap must have room
        bool room = false;
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
        for (uint w = 0u; w < 64u && !room; w++) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
            room = (snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 4u);
            if (atomicAdd(_vkp_controls[0], 0u) != 0u) break;
        }
        if (!room) reason = 4u;
    }
    if (reason != 0u) {
        _vkp_sched[_vkp_ENDED] = 1u;
        _vkp_sched[_vkp_STEP_STATE + 3u * p] = 2u;
        _vkp_controls[50] = reason;
        return;
    }
    {   // the frame of memsock snap
        int slot = -1;
        uint head = snap_cursor[1];
        if ((flags & 1u) != 0u) {
            if ((snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 4u)) {
                slot = int(head % 4u);
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
    _vkp_sched[_vkp_CUR] = p;
}

#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) buffer field_buffer { float field[]; };
layout(std430, binding = 1) writeonly buffer snap_frames_buffer { float snap_frames[]; };   // MemSock frames
layout(std430, binding = 2) buffer snap_header_buffer { uint snap_header[]; };   // published sequence numbers, payload
layout(std430, binding = 3) coherent buffer snap_cursor_buffer { uint snap_cursor[]; };   // host's release cursor, reservations, drops
layout(std430, binding = 4) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 5) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
int snap_slot = -1;   // this step's frame of memsock snap (-1: none)
uint snap_seq;
layout(std430, binding = 6) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// programs_lib.py:208: grow
void stage_grow(int i, int j) {
    // programs_lib.py:209
    field[(i) * 8 + j] = field[(i) * 8 + j] + float(((i * 8) + j));
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
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
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
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
    uint reason = 0u;
    if (halt != 0u) reason = 2u;
    else if (done >= budget) reason = 1u;
    uint flags = 0u;
    { uint n = 2u;   // every(2)
      if (n != 0u && step % n == 0u) flags |= 1u; }
    if (reason == 0u && (flags & 1u) != 0u) {   // memsock snap must have room
        bool room = false;
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
        for (uint w = 0u; w < 64u && !room; w++) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
            room = (snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 4u);
            if (atomicAdd(_vkp_controls[0], 0u) != 0u) break;
        }
        if (!room) reason = 4u;
    }
    if (reason != 0u) {
        _vkp_sched[_vkp_ENDED] = 1u;
        _vkp_sched[_vkp_STEP_STATE + 3u * p] = 2u;
        _vkp_controls[50] = reason;
        return;
    }
    {   // the frame of memsock snap
        int slot = -1;
        uint head = snap_cursor[1];
        if ((flags & 1u) != 0u) {
            if ((snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 4u)) {
                slot = int(head % 4u);
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

// stage grow of the fallback: one invocation per index of (8, 8)
void main() {
    uint p = _vkp_sched[_vkp_CUR];
    if (_vkp_sched[_vkp_STEP_STATE + 3u * p] != 1u) return;   // the batch has ended
    uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (_i >= 64u) return;
    _vkp_step = _vkp_sched[_vkp_STEP_NUMBER + 3u * p];
    _vkp_snap = _vkp_SNAPSHOT + 0u * p;
    snap_slot = int(_vkp_sched[_vkp_SOCKETS + 0u + 2u * p]);
    snap_seq = _vkp_sched[_vkp_SOCKETS + 1u + 2u * p];
    stage_grow(int(_i / 8u), int(_i % 8u));
}

#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) readonly buffer field_buffer { float field[]; };
layout(std430, binding = 1) writeonly buffer snap_frames_buffer { float snap_frames[]; };   // MemSock frames
layout(std430, binding = 2) buffer snap_header_buffer { uint snap_header[]; };   // published sequence numbers, payload
layout(std430, binding = 3) coherent buffer snap_cursor_buffer { uint snap_cursor[]; };   // host's release cursor, reservations, drops
layout(std430, binding = 4) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 5) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
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
int snap_slot = -1;   // this step's frame of memsock snap (-1: none)
uint snap_seq;
layout(std430, binding = 6) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// programs_lib.py:212: snapshot
void stage_snapshot(int i, int j) {
    // programs_lib.py:213
    if (snap_slot >= 0) snap_frames[snap_slot * (8 * 8) + (i) * 8 + j] = field[(i) * 8 + j];
    // programs_lib.py:214
    if ((i == 0) && (j == 0)) {
        // programs_lib.py:215
        if (snap_slot >= 0) snap_header[4 + snap_slot * 1] = _vkp_step;
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
            uint _head = atomicAdd(_vkp_controls[2], 0u);
            uint _tail = _vkp_controls[53];
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
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
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
    uint reason = 0u;
    if (halt != 0u) reason = 2u;
    else if (done >= budget) reason = 1u;
    uint flags = 0u;
    { uint n = 2u;   // every(2)
      if (n != 0u && step % n == 0u) flags |= 1u; }
    if (reason == 0u && (flags & 1u) != 0u) {   // memsock snap must have room
        bool room = false;
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
        for (uint w = 0u; w < 64u && !room; w++) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
            room = (snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 4u);
            if (atomicAdd(_vkp_controls[0], 0u) != 0u) break;
        }
        if (!room) reason = 4u;
    }
    if (reason != 0u) {
        _vkp_sched[_vkp_ENDED] = 1u;
        _vkp_sched[_vkp_STEP_STATE + 3u * p] = 2u;
        _vkp_controls[50] = reason;
        return;
    }
    {   // the frame of memsock snap
        int slot = -1;
        uint head = snap_cursor[1];
        if ((flags & 1u) != 0u) {
            if ((snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 4u)) {
                slot = int(head % 4u);
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

// stage snapshot of the fallback: one invocation per index of (8, 8)
void main() {
    uint p = _vkp_sched[_vkp_CUR];
    if (_vkp_sched[_vkp_STEP_STATE + 3u * p] != 1u) return;   // the batch has ended
    if ((_vkp_sched[_vkp_STEP_FLAGS + 3u * p] & 1u) == 0u) return;   // not this step
    uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (_i >= 64u) return;
    _vkp_step = _vkp_sched[_vkp_STEP_NUMBER + 3u * p];
    _vkp_snap = _vkp_SNAPSHOT + 0u * p;
    snap_slot = int(_vkp_sched[_vkp_SOCKETS + 0u + 2u * p]);
    snap_seq = _vkp_sched[_vkp_SOCKETS + 1u + 2u * p];
    stage_snapshot(int(_i / 8u), int(_i % 8u));
}
