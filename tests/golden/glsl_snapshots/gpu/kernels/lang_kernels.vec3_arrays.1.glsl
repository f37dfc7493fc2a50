#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int pts_shape0;
    int out_py_shape0;
    int norms_shape0;
};

layout(std430, binding = 0) readonly buffer pts_buffer { float pts[]; };
layout(std430, binding = 1) buffer out_py_buffer { float out_py[]; };
layout(std430, binding = 2) buffer norms_buffer { float norms[]; };

// test_lang_kernels.py:212: vec3_arrays
void main() {
    int i;
    vec3 p;
    // test_lang_kernels.py:213
    i = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:214
    if (i < pts_shape0) {
        // test_lang_kernels.py:215
        p = vec3(pts[((i) * 3)], pts[((i) * 3) + 1], pts[((i) * 3) + 2]);
        // test_lang_kernels.py:216
        { vec3 _v1 = (cross(p, vec3(0.0, 0.0, 1.0)) + (p.zyx * 0.5)); int _b = (i) * 3; out_py[_b] = _v1.x; out_py[_b + 1] = _v1.y; out_py[_b + 2] = _v1.z; }
        // test_lang_kernels.py:217
        norms[i] = (dot(p, p) + p.x) - p.z;
    }
}
