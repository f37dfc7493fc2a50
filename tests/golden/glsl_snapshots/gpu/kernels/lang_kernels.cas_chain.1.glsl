#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int out_py_shape0;
    int old_shape0;
};

layout(std430, binding = 0) buffer out_py_buffer { int out_py[]; };
layout(std430, binding = 1) buffer old_buffer { int old[]; };

// test_lang_kernels.py:252: cas_chain
void main() {
    int i;
    int seen;
    // test_lang_kernels.py:253
    i = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:254
    if (i < old_shape0) {
        // test_lang_kernels.py:255
        seen = atomicCompSwap(out_py[0], i, (i + 1));
        // test_lang_kernels.py:256
        if (seen == i) {
            // test_lang_kernels.py:257
            old[i] = 1;
        }
    }
}
