#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) readonly buffer ticks_buffer { int ticks[]; };
layout(std430, binding = 1) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 2) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
layout(std430, binding = 3) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// Prepares the step words in slot `p` for the next step (see the module's docs).
void _vkp_boundary(uint p) {
    if (_vkp_sched[2] != 0u) {      // this epoch (batch) has ended
        _vkp_sched[8u + 3u * p] = 2u;
        return;
    }
    uint head = _vkp_controls[3];
    uint tail = _vkp_controls[52];
    uint halt = _vkp_controls[1];
    uint budget = _vkp_controls[2];
    uint c0 = _vkp_controls[0];
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
            uint _head = atomicAdd(_vkp_controls[3], 0u);
            uint _tail = _vkp_controls[52];
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1998570999u);
                uint _e = 4u + (_tail % 16u) * 2u;
                uint _word = atomicAdd(_vkp_controls[_e], 0u);
                atomicExchange(_vkp_controls[_word], atomicAdd(_vkp_controls[_e + 1u], 0u));
                _tail += 1u;
            }
            _vkp_controls[52] = _tail;
            atomicExchange(_vkp_controls[53], 0xFFFFFFFFu);   // busy: the host retries
            atomicExchange(_vkp_controls[54], step);
            atomicExchange(_vkp_controls[53], _tail);
        }
        halt = _vkp_controls[1];
        c0 = _vkp_controls[0];
    }
    _vkp_sched[128u + 1u * p + 0u] = c0;
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
    uint reason = 0u;
    if (halt != 0u) reason = 2u;
    else if (done >= budget) reason = 1u;
    else if (step >= uint(c0)) reason = 5u;   // loop(steps='total')
    uint flags = 0u;
    if (reason != 0u) {
        _vkp_sched[2] = 1u;
        _vkp_sched[8u + 3u * p] = 2u;
        _vkp_controls[50] = reason;
        return;
    }
    _vkp_sched[9u + 3u * p] = flags;
    _vkp_sched[10u + 3u * p] = step;
    _vkp_sched[8u + 3u * p] = 1u;
}

// the step boundary of the fallback: one invocation, before each step
void main() {
    uint q = _vkp_sched[6];   // the step before, now complete everywhere
    uint p = q == 2u ? 0u : q + 1u;
    _vkp_boundary(p);
    _vkp_sched[6] = p;
}

#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) buffer ticks_buffer { int ticks[]; };
layout(std430, binding = 1) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 2) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
layout(std430, binding = 3) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// programs_lib.py:250: tick
void stage_tick(int i) {
    // programs_lib.py:251
    ticks[0] = ticks[0] + 1;
}

// Prepares the step words in slot `p` for the next step (see the module's docs).
void _vkp_boundary(uint p) {
    if (_vkp_sched[2] != 0u) {      // this epoch (batch) has ended
        _vkp_sched[8u + 3u * p] = 2u;
        return;
    }
    uint head = _vkp_controls[3];
    uint tail = _vkp_controls[52];
    uint halt = _vkp_controls[1];
    uint budget = _vkp_controls[2];
    uint c0 = _vkp_controls[0];
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
            uint _head = atomicAdd(_vkp_controls[3], 0u);
            uint _tail = _vkp_controls[52];
            while (_tail != _head) {
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1998570999u);
                uint _e = 4u + (_tail % 16u) * 2u;
                uint _word = atomicAdd(_vkp_controls[_e], 0u);
                atomicExchange(_vkp_controls[_word], atomicAdd(_vkp_controls[_e + 1u], 0u));
                _tail += 1u;
            }
            _vkp_controls[52] = _tail;
            atomicExchange(_vkp_controls[53], 0xFFFFFFFFu);   // busy: the host retries
            atomicExchange(_vkp_controls[54], step);
            atomicExchange(_vkp_controls[53], _tail);
        }
        halt = _vkp_controls[1];
        c0 = _vkp_controls[0];
    }
    _vkp_sched[128u + 1u * p + 0u] = c0;
    _vkp_controls[48] = step;       // the heartbeat
    _vkp_controls[49] = done;
    uint reason = 0u;
    if (halt != 0u) reason = 2u;
    else if (done >= budget) reason = 1u;
    else if (step >= uint(c0)) reason = 5u;   // loop(steps='total')
    uint flags = 0u;
    if (reason != 0u) {
        _vkp_sched[2] = 1u;
        _vkp_sched[8u + 3u * p] = 2u;
        _vkp_controls[50] = reason;
        return;
    }
    _vkp_sched[9u + 3u * p] = flags;
    _vkp_sched[10u + 3u * p] = step;
    _vkp_sched[8u + 3u * p] = 1u;
}

// stage tick of the fallback: one invocation per index of (1,)
void main() {
    uint p = _vkp_sched[6];
    if (_vkp_sched[8u + 3u * p] != 1u) return;   // the batch has ended
    uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (_i >= 1u) return;
    _vkp_step = _vkp_sched[10u + 3u * p];
    _vkp_snap = 128u + 1u * p;
    stage_tick(int(_i));
}
