#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };

float _vkp_fpow(float a, float b) {
    // Python semantics for negative bases with integral exponents (GLSL pow is undefined there)
    if (a >= 0.0) return pow(a, b);
    if (b != floor(b)) return 0.0 / 0.0;
    float m = pow(-a, b);
    return (mod(b, 2.0) == 0.0) ? m : -m;
}

float _vkp_copysign(float a, float b) {
    return (b < 0.0 || (b == 0.0 && 1.0 / b < 0.0)) ? -abs(a) : abs(a);
}

// test_lang_arith.py:231: math_fns
void main() {
    int i;
    float v;
    // test_lang_arith.py:232
    i = int(gl_GlobalInvocationID.x);
    // test_lang_arith.py:233
    if (i < x_shape0) {
        // test_lang_arith.py:234
        v = x[i];
        // test_lang_arith.py:235
        out_py[(i) * out_py_shape1 + 0] = sqrt(v);
        // test_lang_arith.py:236
        out_py[(i) * out_py_shape1 + 1] = exp(-(v));
        // test_lang_arith.py:237
        out_py[(i) * out_py_shape1 + 2] = log(v);
        // test_lang_arith.py:238
        out_py[(i) * out_py_shape1 + 3] = sin(v) + cos(v);
        // test_lang_arith.py:239
        out_py[(i) * out_py_shape1 + 4] = atan(v, 2.0);
        // test_lang_arith.py:240
        out_py[(i) * out_py_shape1 + 5] = float(int(floor(v))) + 0.5;
        // test_lang_arith.py:241
        out_py[(i) * out_py_shape1 + 6] = inversesqrt(v);
        // test_lang_arith.py:242
        out_py[(i) * out_py_shape1 + 7] = _vkp_fpow(v, 1.5);
        // test_lang_arith.py:243
        out_py[(i) * out_py_shape1 + 8] = clamp(v, 1.0, 2.0);
        // test_lang_arith.py:244
        out_py[(i) * out_py_shape1 + 9] = mix(0.0, 10.0, 0.25);
        // test_lang_arith.py:245
        out_py[(i) * out_py_shape1 + 10] = fma(v, 2.0, 1.0);
        // test_lang_arith.py:246
        out_py[(i) * out_py_shape1 + 11] = (tanh((v - 1.0)) + (log(v) * 0.4342945)) + length(vec2(v, 1.0));
        // test_lang_arith.py:247
        out_py[(i) * out_py_shape1 + 12] = _vkp_fpow(-(v), 2.0);
        // test_lang_arith.py:248
        out_py[(i) * out_py_shape1 + 13] = _vkp_copysign(v, (-1.0));
        // test_lang_arith.py:249
        out_py[(i) * out_py_shape1 + 14] = float((int(ceil(v)) + int(trunc(-(v)))));
        // test_lang_arith.py:250
        out_py[(i) * out_py_shape1 + 15] = float(((int(isnan(v)) + (int(isinf(v)) * 2)) + 3));
    }
}
