#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int f_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer f_buffer { float f[]; };
layout(std430, binding = 1) buffer out_py_buffer { int out_py[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_kernels.py:305: casts
void main() {
    int i;
    // test_lang_kernels.py:306
    i = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:307
    if (i < f_shape0) {
        // test_lang_kernels.py:308
        out_py[(i) * out_py_shape1 + 0] = int(f[i]);
        // test_lang_kernels.py:309
        out_py[(i) * out_py_shape1 + 1] = int((f[i] * 2.0));
        // test_lang_kernels.py:310
        out_py[(i) * out_py_shape1 + 2] = 3;
        // test_lang_kernels.py:311
        out_py[(i) * out_py_shape1 + 3] = int((f[i] != 0.0));
        // test_lang_kernels.py:312
        out_py[(i) * out_py_shape1 + 4] = int((f[i] - 0.5));
    }
}
