#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_control.py:79: branches
void main() {
    int i;
    float v;
    float r;
    // test_lang_control.py:80
    i = int(gl_GlobalInvocationID.x);
    // test_lang_control.py:81
    if (i >= x_shape0) {
        // test_lang_control.py:82
        return;
    }
    // test_lang_control.py:83
    v = x[i];
    // test_lang_control.py:84
    if (v < 0.0) {
        // test_lang_control.py:85
        r = 0.0;
    } else if (v < 1.0) {
        // test_lang_control.py:87
        r = v * 10.0;
    } else if (v < 2.0) {
        // test_lang_control.py:89
        r = -1.0;
    } else {
        // test_lang_control.py:91
        r = 100.5;
    }
    // test_lang_control.py:92
    out_py[i] = (v != 1.5) ? r : (-2.0);
}
