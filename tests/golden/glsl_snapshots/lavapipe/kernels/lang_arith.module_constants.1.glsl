#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int out_py_shape0;
};

layout(std430, binding = 0) buffer out_py_buffer { float out_py[]; };
layout(std430, binding = 1) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_arith.py:304: module_constants
void main() {
    int i;
    // test_lang_arith.py:305
    i = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:306
    if (i < out_py_shape0) {
        // test_lang_arith.py:307
        out_py[i] = ((float((i * 3)) + 0.25) + 16.0) - 3.0;
    }
}
