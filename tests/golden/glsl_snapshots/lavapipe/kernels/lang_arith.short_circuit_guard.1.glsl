#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int idx_shape0;
    int data_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer idx_buffer { int idx[]; };
layout(std430, binding = 1) readonly buffer data_buffer { float data[]; };
layout(std430, binding = 2) buffer out_py_buffer { int out_py[]; };
layout(std430, binding = 3) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_arith.py:210: short_circuit_guard
void main() {
    int i;
    int j;
    // test_lang_arith.py:211
    i = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:212
    if (i < idx_shape0) {
        // test_lang_arith.py:213
        j = idx[i];
        // test_lang_arith.py:215
        if ((j < data_shape0) && (data[j] > 0.0)) {
            // test_lang_arith.py:216
            out_py[i] = 1;
        } else {
            // test_lang_arith.py:218
            out_py[i] = 2;
        }
        // test_lang_arith.py:219
        out_py[i] = out_py[i] + (((j >= data_shape0) || (data[j] < 0.0)) ? 10 : 20);
    }
}
