#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) readonly buffer field_buffer { float field[]; };
layout(std430, binding = 1) writeonly buffer snap_frames_buffer { float snap_frames[]; };   // MemSock frames
layout(std430, binding = 2) buffer snap_header_buffer { uint snap_header[]; };   // published sequence numbers, payload
layout(std430, binding = 3) coherent buffer snap_cursor_buffer { uint snap_cursor[]; };   // host's release cursor, reservations, drops
layout(std430, binding = 4) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 5) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
int snap_slot = -1;   // this step's frame of memsock snap (-1: none)
uint snap_seq;
layout(std430, binding = 6) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// Prepares the step words in slot `p` for the next step (see the module's docs).
void _vkp_boundary(uint p) {
    if (_vkp_sched[2] != 0u) {      // this epoch (batch) has ended
        _vkp_sched[8u + 3u * p] = 2u;
        return;
    }
    uint head = _vkp_controls[2];
    uint tail = _vkp_controls[52];
    uint halt = _vkp_controls[0];
    uint budget = _vkp_controls[1];
    uint step = _vkp_sched[96];
    uint done = _vkp_sched[3];
    if (_vkp_sched[1] != 0u) {      // a step was prepared before
        step += 1u;
        done += 1u;
        _vkp_sched[96] = step;
        _vkp_sched[3] = done;
    }
    _vkp_sched[1] = 1u;
    if (head != tail) {
        // _vkp_controls.apply(step): queued host commands, in order, then the acknowledgement
        {
            uint _head = atomicAdd(_vkp_controls[2], 0u);
            uint _tail = _vkp_controls[52];
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
                uint _e = 3u + (_tail % 16u) * 2u;
                uint _word = atomicAdd(_vkp_controls[_e], 0u);
                atomicExchange(_vkp_controls[_word], atomicAdd(_vkp_controls[_e + 1u], 0u));
                _tail += 1u;
            }
            _vkp_controls[52] = _tail;
            atomicExchange(_vkp_controls[53], 0xFFFFFFFFu);   // busy: the host retries
            atomicExchange(_vkp_controls[54], step);
            atomicExchange(_vkp_controls[53], _tail);
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
        for (uint w = 0u; w < 64u && !room; w++) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
            room = (snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 4u);
        }
        if (!room) reason = 4u;
    }
    if (reason != 0u) {
        _vkp_sched[2] = 1u;
        _vkp_sched[8u + 3u * p] = 2u;
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
        _vkp_sched[128u + 2u * p] = uint(slot);
        _vkp_sched[129u + 2u * p] = head;
    }
    _vkp_sched[9u + 3u * p] = flags;
    _vkp_sched[10u + 3u * p] = step;
    _vkp_sched[8u + 3u * p] = 1u;
}

// the step boundary of the fallback: one invocation, before each step
void main() {
    uint q = _vkp_sched[6];   // the step before, now complete everywhere
    uint p = q == 2u ? 0u : q + 1u;
    if (_vkp_sched[8u + 3u * q] == 1u) {
        if (int(_vkp_sched[128u + 2u * q]) >= 0) atomicExchange(snap_header[int(_vkp_sched[128u + 2u * q])], _vkp_sched[129u + 2u * q] + 1u);
    }
    _vkp_boundary(p);
    _vkp_sched[6] = p;
}

#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) buffer field_buffer { float field[]; };
layout(std430, binding = 1) writeonly buffer snap_frames_buffer { float snap_frames[]; };   // MemSock frames
layout(std430, binding = 2) buffer snap_header_buffer { uint snap_header[]; };   // published sequence numbers, payload
layout(std430, binding = 3) coherent buffer snap_cursor_buffer { uint snap_cursor[]; };   // host's release cursor, reservations, drops
layout(std430, binding = 4) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 5) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
int snap_slot = -1;   // this step's frame of memsock snap (-1: none)
uint snap_seq;
layout(std430, binding = 6) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// programs_lib.py:202: grow
void stage_grow(int i, int j) {
    // programs_lib.py:203
    field[(i) * 8 + j] = field[(i) * 8 + j] + float(((i * 8) + j));
}

// Prepares the step words in slot `p` for the next step (see the module's docs).
void _vkp_boundary(uint p) {
    if (_vkp_sched[2] != 0u) {      // this epoch (batch) has ended
        _vkp_sched[8u + 3u * p] = 2u;
        return;
    }
    uint head = _vkp_controls[2];
    uint tail = _vkp_controls[52];
    uint halt = _vkp_controls[0];
    uint budget = _vkp_controls[1];
    uint step = _vkp_sched[96];
    uint done = _vkp_sched[3];
    if (_vkp_sched[1] != 0u) {      // a step was prepared before
        step += 1u;
        done += 1u;
        _vkp_sched[96] = step;
        _vkp_sched[3] = done;
    }
    _vkp_sched[1] = 1u;
    if (head != tail) {
        // _vkp_controls.apply(step): queued host commands, in order, then the acknowledgement
        {
            uint _head = atomicAdd(_vkp_controls[2], 0u);
            uint _tail = _vkp_controls[52];
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
                uint _e = 3u + (_tail % 16u) * 2u;
                uint _word = atomicAdd(_vkp_controls[_e], 0u);
                atomicExchange(_vkp_controls[_word], atomicAdd(_vkp_controls[_e + 1u], 0u));
                _tail += 1u;
            }
            _vkp_controls[52] = _tail;
            atomicExchange(_vkp_controls[53], 0xFFFFFFFFu);   // busy: the host retries
            atomicExchange(_vkp_controls[54], step);
            atomicExchange(_vkp_controls[53], _tail);
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
        for (uint w = 0u; w < 64u && !room; w++) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
            room = (snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 4u);
        }
        if (!room) reason = 4u;
    }
    if (reason != 0u) {
        _vkp_sched[2] = 1u;
        _vkp_sched[8u + 3u * p] = 2u;
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
        _vkp_sched[128u + 2u * p] = uint(slot);
        _vkp_sched[129u + 2u * p] = head;
    }
    _vkp_sched[9u + 3u * p] = flags;
    _vkp_sched[10u + 3u * p] = step;
    _vkp_sched[8u + 3u * p] = 1u;
}

// stage grow of the fallback: one invocation per index of (8, 8)
void main() {
    uint p = _vkp_sched[6];
    if (_vkp_sched[8u + 3u * p] != 1u) return;   // the batch has ended
    uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (_i >= 64u) return;
    _vkp_step = _vkp_sched[10u + 3u * p];
    _vkp_snap = 128u + 0u * p;
    snap_slot = int(_vkp_sched[128u + 2u * p]);
    snap_seq = _vkp_sched[129u + 2u * p];
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
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
int snap_slot = -1;   // this step's frame of memsock snap (-1: none)
uint snap_seq;
layout(std430, binding = 6) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// programs_lib.py:206: snapshot
void stage_snapshot(int i, int j) {
    // programs_lib.py:207
    if (snap_slot >= 0) snap_frames[snap_slot * (8 * 8) + (i) * 8 + j] = field[(i) * 8 + j];
    // programs_lib.py:208
    if ((i == 0) && (j == 0)) {
        // programs_lib.py:209
        if (snap_slot >= 0) snap_header[4 + snap_slot * 1] = _vkp_step;
    }
}

// Prepares the step words in slot `p` for the next step (see the module's docs).
void _vkp_boundary(uint p) {
    if (_vkp_sched[2] != 0u) {      // this epoch (batch) has ended
        _vkp_sched[8u + 3u * p] = 2u;
        return;
    }
    uint head = _vkp_controls[2];
    uint tail = _vkp_controls[52];
    uint halt = _vkp_controls[0];
    uint budget = _vkp_controls[1];
    uint step = _vkp_sched[96];
    uint done = _vkp_sched[3];
    if (_vkp_sched[1] != 0u) {      // a step was prepared before
        step += 1u;
        done += 1u;
        _vkp_sched[96] = step;
        _vkp_sched[3] = done;
    }
    _vkp_sched[1] = 1u;
    if (head != tail) {
        // _vkp_controls.apply(step): queued host commands, in order, then the acknowledgement
        {
            uint _head = atomicAdd(_vkp_controls[2], 0u);
            uint _tail = _vkp_controls[52];
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
                uint _e = 3u + (_tail % 16u) * 2u;
                uint _word = atomicAdd(_vkp_controls[_e], 0u);
                atomicExchange(_vkp_controls[_word], atomicAdd(_vkp_controls[_e + 1u], 0u));
                _tail += 1u;
            }
            _vkp_controls[52] = _tail;
            atomicExchange(_vkp_controls[53], 0xFFFFFFFFu);   // busy: the host retries
            atomicExchange(_vkp_controls[54], step);
            atomicExchange(_vkp_controls[53], _tail);
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
        for (uint w = 0u; w < 64u && !room; w++) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1108782589u);
            room = (snap_cursor[1] - atomicAdd(snap_cursor[0], 0u) < 4u);
        }
        if (!room) reason = 4u;
    }
    if (reason != 0u) {
        _vkp_sched[2] = 1u;
        _vkp_sched[8u + 3u * p] = 2u;
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
        _vkp_sched[128u + 2u * p] = uint(slot);
        _vkp_sched[129u + 2u * p] = head;
    }
    _vkp_sched[9u + 3u * p] = flags;
    _vkp_sched[10u + 3u * p] = step;
    _vkp_sched[8u + 3u * p] = 1u;
}

// stage snapshot of the fallback: one invocation per index of (8, 8)
void main() {
    uint p = _vkp_sched[6];
    if (_vkp_sched[8u + 3u * p] != 1u) return;   // the batch has ended
    if ((_vkp_sched[9u + 3u * p] & 1u) == 0u) return;   // not this step
    uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (_i >= 64u) return;
    _vkp_step = _vkp_sched[10u + 3u * p];
    _vkp_snap = 128u + 0u * p;
    snap_slot = int(_vkp_sched[128u + 2u * p]);
    snap_seq = _vkp_sched[129u + 2u * p];
    stage_snapshot(int(_i / 8u), int(_i % 8u));
}
