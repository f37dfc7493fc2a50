#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) buffer out_py_buffer { int out_py[]; };

// test_lang_control.py:181: grid_2d
void main() {
    int x;
    int y;
    // test_lang_control.py:182
    x = int(gl_GlobalInvocationID.x);
    // test_lang_control.py:183
    y = int(gl_GlobalInvocationID.y);
    // test_lang_control.py:184
    if ((x < out_py_shape1) && (y < out_py_shape0)) {
        // test_lang_control.py:185
        out_py[(y) * out_py_shape1 + x] = ((((((y * 1000) + x) + (int(gl_WorkGroupSize.x) * 0)) + (int(gl_NumWorkGroups.y) * 0)) + (int(gl_WorkGroupID.x) * 0)) + (int(gl_LocalInvocationID.y) * 0)) + (int(gl_NumWorkGroups.x * gl_WorkGroupSize.x) * 0);
    }
}
