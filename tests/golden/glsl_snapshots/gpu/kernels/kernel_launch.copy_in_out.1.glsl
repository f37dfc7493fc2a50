#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int src_shape0;
    int dst_shape0;
};

layout(std430, binding = 0) readonly buffer src_buffer { float src[]; };
layout(std430, binding = 1) buffer dst_buffer { float dst[]; };

// test_kernel_launch.py:21: copy_in_out
void main() {
    int i;
    // test_kernel_launch.py:22
    i = int(gl_GlobalInvocationID.x);
    // test_kernel_launch.py:23
    if (i < src_shape0) {
        // test_kernel_launch.py:24
        dst[i] = src[i] + 1.0;
    }
}
