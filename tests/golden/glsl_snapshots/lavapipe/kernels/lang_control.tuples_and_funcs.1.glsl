#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int b_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer a_buffer { int a[]; };
layout(std430, binding = 1) readonly buffer b_buffer { int b[]; };
layout(std430, binding = 2) buffer out_py_buffer { int out_py[]; };
layout(std430, binding = 3) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

int _vkp_floordiv(int a, int b) {
    int q = a / b;
    if ((a - q * b) != 0 && ((a < 0) != (b < 0))) q -= 1;
    return q;
}

int _vkp_mod(int a, int b) {
    int r = a - (a / b) * b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

// test_lang_control.py:104: divmod_
void divmod__0(int a, int b, out int _out0, out int _out1) {
    // test_lang_control.py:105
    _out0 = _vkp_floordiv(a, b);
    _out1 = _vkp_mod(a, b);
    return;
}

// test_lang_control.py:109: clamp01
float clamp01_1(float v) {
    // test_lang_control.py:110
    if (v < 0.0) {
        // test_lang_control.py:111
        return 0.0;
    }
    // test_lang_control.py:112
    if (v > 1.0) {
        // test_lang_control.py:113
        return 1.0;
    }
    // test_lang_control.py:114
    return v;
}

// test_lang_control.py:118: twice_clamped
float twice_clamped_1(float v) {
    // test_lang_control.py:119
    return clamp01_1(v) * 2.0;
}

// test_lang_control.py:123: tuples_and_funcs
void main() {
    int i;
    int q;
    int r;
    int x;
    int y;
    int _r1;
    int _r2;
    int _t3;
    int _t4;
    int _t5;
    int _t6;
    // test_lang_control.py:124
    i = int(gl_GlobalInvocationID.x);
    // test_lang_control.py:125
    if (i < a_shape0) {
        // test_lang_control.py:126
        divmod__0(a[i], b[i], _r1, _r2);
        q = _r1;
        r = _r2;
        // test_lang_control.py:127
        _t3 = a[i];
        _t4 = b[i];
        x = _t3;
        y = _t4;
        // test_lang_control.py:128
        _t5 = y;
        _t6 = x;
        x = _t5;
        y = _t6;
        // test_lang_control.py:129
        out_py[(i) * out_py_shape1 + 0] = q;
        // test_lang_control.py:130
        out_py[(i) * out_py_shape1 + 1] = r;
        // test_lang_control.py:131
        out_py[(i) * out_py_shape1 + 2] = x;
        // test_lang_control.py:132
        out_py[(i) * out_py_shape1 + 3] = y;
        // test_lang_control.py:133
        out_py[(i) * out_py_shape1 + 4] = int((twice_clamped_1((float(a[i]) / 10.0)) * 100.0));
    }
}
