#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int out_py_shape0;
};

layout(std430, binding = 0) buffer out_py_buffer { double out_py[]; };

// test_lang_control.py:147: annotated_local
void main() {
    int i;
    double acc;
    int k;
    int _i1;
    // test_lang_control.py:148
    i = int(gl_GlobalInvocationID.x);
    // test_lang_control.py:149
    acc = 0.0lf;
    // test_lang_control.py:150
    for (_i1 = 0; _i1 < 10; _i1 += 1) {
        k = _i1;
        // test_lang_control.py:151
        acc = acc + 0.1lf;
    }
    // test_lang_control.py:152
    if (i == 0) {
        // test_lang_control.py:153
        out_py[0] = acc;
    }
}
