#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int vals_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer vals_buffer { int vals[]; };
layout(std430, binding = 1) buffer out_py_buffer { int out_py[]; };

int _vkp_mod(int a, int b) {
    int r = a - (a / b) * b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

// test_lang_kernels.py:238: atomics_all
void main() {
    int i;
    int v;
    // test_lang_kernels.py:239
    i = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:240
    if (i < vals_shape0) {
        // test_lang_kernels.py:241
        v = vals[i];
        // test_lang_kernels.py:242
        atomicMin(out_py[0], v);
        // test_lang_kernels.py:243
        atomicMax(out_py[1], v);
        // test_lang_kernels.py:244
        atomicOr(out_py[2], (1 << _vkp_mod(v, 31)));
        // test_lang_kernels.py:245
        atomicAnd(out_py[3], ~((1 << _vkp_mod(v, 31))));
        // test_lang_kernels.py:246
        atomicXor(out_py[4], v);
        // test_lang_kernels.py:247
        atomicAdd(out_py[5], -(v));
        // test_lang_kernels.py:248
        atomicExchange(out_py[6], 5);
    }
}
