#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int a_shape0;
    int b_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer a_buffer { float a[]; };
layout(std430, binding = 1) readonly buffer b_buffer { float b[]; };
layout(std430, binding = 2) buffer out_py_buffer { float out_py[]; };

float _vkp_sqrt_rn(float a) {
    // sqrt(a) correctly rounded: the device's root s corrected by (a - s * s) / (2 s)
    precise float s = sqrt(a);
    if (s == 0.0 || isinf(s) || isnan(s)) return s;
    precise float e = fma(-s, s, a);
    precise float res = fma(e, 0.5 / s, s);
    return res;
}

// test_lang_kernels.py:28: hypot_
float hypot__0(float a, float b) {
    // test_lang_kernels.py:29
    return _vkp_sqrt_rn(((a * a) + (b * b)));
}

// test_lang_kernels.py:33: hypot_kernel
void main() {
    int i;
    // test_lang_kernels.py:34
    i = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:35
    if (i < out_py_shape0) {
        // test_lang_kernels.py:36
        out_py[i] = hypot__0(a[i], b[i]);
    }
}
