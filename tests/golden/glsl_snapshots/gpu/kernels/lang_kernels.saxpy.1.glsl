#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    float a;
    int x_shape0;
    int y_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer y_buffer { float y[]; };

// test_lang_kernels.py:12: saxpy
void main() {
    int i;
    // test_lang_kernels.py:13
    i = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:14
    if (i < x_shape0) {
        // test_lang_kernels.py:15
        y[i] = (a * x[i]) + y[i];
    }
}
