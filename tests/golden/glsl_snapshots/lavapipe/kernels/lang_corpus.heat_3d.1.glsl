#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    float alpha;
    int u_shape0;
    int u_shape1;
    int u_shape2;
    int out_py_shape0;
    int out_py_shape1;
    int out_py_shape2;
};

layout(std430, binding = 0) readonly buffer u_buffer { float u[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_corpus.py:38: heat_3d
void main() {
    int i;
    int j;
    int k;
    int nx;
    int ny;
    int nz;
    float lap;
    // test_lang_corpus.py:39
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:40
    j = int(gl_GlobalInvocationID.y);
    // test_lang_corpus.py:41
    k = int(gl_GlobalInvocationID.z);
    // test_lang_corpus.py:42
    nx = u_shape0;
    ny = u_shape1;
    nz = u_shape2;
    // test_lang_corpus.py:43
    if ((((0 < i) && (i < (nx - 1))) && ((0 < j) && (j < (ny - 1)))) && ((0 < k) && (k < (nz - 1)))) {
        // test_lang_corpus.py:44
        lap = (((((u[(((i - 1)) * u_shape1 + j) * u_shape2 + k] + u[(((i + 1)) * u_shape1 + j) * u_shape2 + k]) + u[((i) * u_shape1 + (j - 1)) * u_shape2 + k]) + u[((i) * u_shape1 + (j + 1)) * u_shape2 + k]) + u[((i) * u_shape1 + j) * u_shape2 + (k - 1)]) + u[((i) * u_shape1 + j) * u_shape2 + (k + 1)]) - (6.0 * u[((i) * u_shape1 + j) * u_shape2 + k]);
        // test_lang_corpus.py:46
        out_py[((i) * out_py_shape1 + j) * out_py_shape2 + k] = u[((i) * u_shape1 + j) * u_shape2 + k] + (alpha * lap);
    }
}
