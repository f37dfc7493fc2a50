#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int x_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer x_buffer { float x[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };

// test_lang_kernels.py:284: local_scratch
void main() {
    int i;
    float acc[8];
    int k;
    float s;
    int _i1;
    int _i2;
    // test_lang_kernels.py:285
    i = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:286
    if (i < x_shape0) {
        // test_lang_kernels.py:288
        for (_i1 = 0; _i1 < 8; _i1 += 1) {
            k = _i1;
            // test_lang_kernels.py:289
            acc[k] = x[i] * float(k);
        }
        // test_lang_kernels.py:290
        s = 0.0;
        // test_lang_kernels.py:291
        for (_i2 = 0; _i2 < 8; _i2 += 1) {
            k = _i2;
            // test_lang_kernels.py:292
            s = s + (acc[(7 - k)] * float((k + 1)));
        }
        // test_lang_kernels.py:293
        out_py[i] = s;
    }
}
