#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) readonly buffer A_buffer { float A[]; };
layout(std430, binding = 1) readonly buffer B_buffer { float B[]; };
layout(std430, binding = 2) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 3) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
layout(std430, binding = 4) buffer VkpStatus { uint _vkp_status[]; };
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
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 787506735u);
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

layout(std430, binding = 0) readonly buffer A_buffer { float A[]; };
layout(std430, binding = 1) buffer B_buffer { float B[]; };
layout(std430, binding = 2) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 3) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
uint _vkp_host_alpha;   // host field alpha in this step's snapshot
layout(std430, binding = 4) buffer VkpStatus { uint _vkp_status[]; };
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
    return A[((i) * 8 + j) * 8 + k];
}

// programs_lib.py:16: sweep
void sweep_0(float alpha, int i, int j, int k) {
    float lap;
    // programs_lib.py:17
    lap = (((((at_0((i - 1), j, k) + at_0((i + 1), j, k)) + at_0(i, (j - 1), k)) + at_0(i, (j + 1), k)) + at_0(i, j, (k - 1))) + at_0(i, j, (k + 1))) - (6.0 * A[((i) * 8 + j) * 8 + k]);
    // programs_lib.py:20
    B[((i) * 8 + j) * 8 + k] = A[((i) * 8 + j) * 8 + k] + (alpha * lap);
}

// programs_lib.py:32: sweep_ab
void stage_sweep_ab(int i, int j, int k) {
    // programs_lib.py:33
    sweep_0(uintBitsToFloat(_vkp_host_alpha), i, j, k);
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
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 787506735u);
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

// stage sweep_ab of the fallback: one invocation per index of (8, 8, 8)
void main() {
    uint p = _vkp_sched[6];
    if (_vkp_sched[8u + 3u * p] != 1u) return;   // the batch has ended
    uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (_i >= 512u) return;
    _vkp_step = _vkp_sched[10u + 3u * p];
    _vkp_snap = 128u + 1u * p;
    _vkp_host_alpha = _vkp_sched[_vkp_snap + 0u];
    stage_sweep_ab(int(_i / 64u), int((_i / 8u) % 8u), int(_i % 8u));
}

#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) buffer A_buffer { float A[]; };
layout(std430, binding = 1) readonly buffer B_buffer { float B[]; };
layout(std430, binding = 2) coherent buffer _vkp_controls_buffer { uint _vkp_controls[]; };   // control words
layout(std430, binding = 3) buffer _vkp_sched_buffer { uint _vkp_sched[]; };
uint _vkp_step;       // the step being run, as stages see it
uint _vkp_snap;       // where its snapshot of the host fields starts
uint _vkp_host_alpha;   // host field alpha in this step's snapshot
layout(std430, binding = 4) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// programs_lib.py:8: at
float at_2(int i, int j, int k) {
    int n;
    // programs_lib.py:9
    n = 8;
    // programs_lib.py:10
    if ((((((i < 0) || (j < 0)) || (k < 0)) || (i >= n)) || (j >= n)) || (k >= n)) {
        // programs_lib.py:11
        return 0.0;
    }
    // programs_lib.py:12
    return B[((i) * 8 + j) * 8 + k];
}

// programs_lib.py:16: sweep
void sweep_2(float alpha, int i, int j, int k) {
    float lap;
    // programs_lib.py:17
    lap = (((((at_2((i - 1), j, k) + at_2((i + 1), j, k)) + at_2(i, (j - 1), k)) + at_2(i, (j + 1), k)) + at_2(i, j, (k - 1))) + at_2(i, j, (k + 1))) - (6.0 * B[((i) * 8 + j) * 8 + k]);
    // programs_lib.py:20
    A[((i) * 8 + j) * 8 + k] = B[((i) * 8 + j) * 8 + k] + (alpha * lap);
}

// programs_lib.py:36: sweep_ba
void stage_sweep_ba(int i, int j, int k) {
    // programs_lib.py:37
    sweep_2(uintBitsToFloat(_vkp_host_alpha), i, j, k);
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
                if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 787506735u);
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

// stage sweep_ba of the fallback: one invocation per index of (8, 8, 8)
void main() {
    uint p = _vkp_sched[6];
    if (_vkp_sched[8u + 3u * p] != 1u) return;   // the batch has ended
    uint _i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (_i >= 512u) return;
    _vkp_step = _vkp_sched[10u + 3u * p];
    _vkp_snap = 128u + 1u * p;
    _vkp_host_alpha = _vkp_sched[_vkp_snap + 0u];
    stage_sweep_ba(int(_i / 64u), int((_i / 8u) % 8u), int(_i % 8u));
}
