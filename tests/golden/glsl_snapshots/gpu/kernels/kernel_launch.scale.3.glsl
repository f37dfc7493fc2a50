#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int factor;
    int x_shape0;
};

layout(std430, binding = 0) buffer x_buffer { int x[]; };

// test_kernel_launch.py:14: scale
void main() {
    int i;
    // test_kernel_launch.py:15
    i = int(gl_GlobalInvocationID.x);
    // test_kernel_launch.py:16
    if (i < x_shape0) {
        // test_kernel_launch.py:17
        x[i] = x[i] * factor;
    }
}
