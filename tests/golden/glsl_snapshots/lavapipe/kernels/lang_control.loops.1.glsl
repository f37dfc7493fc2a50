#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int n_arr_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer n_arr_buffer { int n_arr[]; };
layout(std430, binding = 1) buffer out_py_buffer { int out_py[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

int _vkp_mod(int a, int b) {
    int r = a - (a / b) * b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

// test_lang_control.py:9: loops
void main() {
    int i;
    int n;
    int s;
    int k;
    int step_py;
    int m;
    int _i1;
    int _i2;
    int _i3;
    int _i4;
    int _i5;
    // test_lang_control.py:10
    i = int(gl_GlobalInvocationID.x);
    // test_lang_control.py:11
    if (i < n_arr_shape0) {
        // test_lang_control.py:12
        n = n_arr[i];
        // test_lang_control.py:13
        s = 0;
        // test_lang_control.py:14
        int _stop1 = n;
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1197269309u);
        for (_i1 = 0; _i1 < _stop1; _i1 += 1) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1197269309u);
            k = _i1;
            // test_lang_control.py:15
            s = s + k;
        }
        // test_lang_control.py:16
        out_py[(i) * out_py_shape1 + 0] = s;
        // test_lang_control.py:17
        s = 0;
        // test_lang_control.py:18
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1197269309u);
        for (_i2 = n; _i2 > 0; _i2 += (-1)) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1197269309u);
            k = _i2;
            // test_lang_control.py:19
            s = (s * 2) + k;
        }
        // test_lang_control.py:20
        out_py[(i) * out_py_shape1 + 1] = s;
        // test_lang_control.py:21
        s = 0;
        // test_lang_control.py:22
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1197269309u);
        for (_i3 = 2; _i3 < 20; _i3 += 3) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1197269309u);
            k = _i3;
            // test_lang_control.py:23
            if (k == 11) {
                // test_lang_control.py:24
                continue;
            }
            // test_lang_control.py:25
            if (k > 15) {
                // test_lang_control.py:26
                break;
            }
            // test_lang_control.py:27
            s = s + k;
        }
        // test_lang_control.py:28
        out_py[(i) * out_py_shape1 + 2] = s;
        // test_lang_control.py:29
        k = 0;
        // test_lang_control.py:30
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1197269309u);
        while (true) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1197269309u);
            // test_lang_control.py:31
            k = k + 1;
            // test_lang_control.py:32
            if ((k * k) > n) {
                // test_lang_control.py:33
                break;
            }
        }
        // test_lang_control.py:34
        out_py[(i) * out_py_shape1 + 3] = k;
        // test_lang_control.py:35
        step_py = 1 - (2 * _vkp_mod(n, 2));
        // test_lang_control.py:36
        s = 0;
        // test_lang_control.py:37
        int _stop2 = (6 * step_py);
        int _step3 = step_py;
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1197269309u);
        for (_i4 = 0; (_step3 > 0) ? (_i4 < _stop2) : (_i4 > _stop2); _i4 += _step3) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1197269309u);
            k = _i4;
            // test_lang_control.py:38
            s = s + k;
        }
        // test_lang_control.py:39
        out_py[(i) * out_py_shape1 + 4] = s;
        // test_lang_control.py:40
        m = 100;
        // test_lang_control.py:41
        int _stop4 = n;
        if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1197269309u);
        for (_i5 = 0; _i5 < _stop4; _i5 += 1) {
            if (++_vkp_iterations == 65000u) atomicCompSwap(_vkp_status[0], 0u, 1197269309u);
            m = _i5;
        }
        // test_lang_control.py:43
        out_py[(i) * out_py_shape1 + 5] = m;
    }
}
