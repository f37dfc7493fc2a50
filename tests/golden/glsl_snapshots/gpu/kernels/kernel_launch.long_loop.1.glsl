#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int n;
    int out_py_shape0;
};

layout(std430, binding = 0) buffer out_py_buffer { int out_py[]; };

int _vkp_mod(int a, int b) {
    int r = a - (a / b) * b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

// test_kernel_launch.py:96: long_loop
void main() {
    int i;
    int s;
    int k;
    int _i1;
    // test_kernel_launch.py:97
    i = int(gl_GlobalInvocationID.x);
    // test_kernel_launch.py:98
    s = 0;
    // test_kernel_launch.py:99
    int _stop1 = n;
    for (_i1 = 0; _i1 < _stop1; _i1 += 1) {
        k = _i1;
        // test_kernel_launch.py:100
        s = s + _vkp_mod(k, 7);
    }
    // test_kernel_launch.py:101
    if (i == 0) {
        // test_kernel_launch.py:102
        out_py[0] = s;
    }
}
