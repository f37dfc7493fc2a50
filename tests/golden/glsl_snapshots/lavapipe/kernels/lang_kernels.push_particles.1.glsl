#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    float dt;
    vec3 g;
    int pos_shape0;
    int vel_shape0;
};

layout(std430, binding = 0) buffer pos_buffer { vec4 pos[]; };
layout(std430, binding = 1) buffer vel_buffer { vec4 vel[]; };
layout(std430, binding = 2) buffer VkpStatus { uint _vkp_status[]; };
uint _vkp_iterations = 0u;

// test_lang_kernels.py:178: push_particles
void main() {
    int i;
    vec4 p;
    vec4 v;
    // test_lang_kernels.py:180
    i = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:181
    if (i < pos_shape0) {
        // test_lang_kernels.py:182
        p = pos[i];
        // test_lang_kernels.py:183
        v = vel[i];
        // test_lang_kernels.py:184
        v.xyz = (v.xyz + (g * dt));
        // test_lang_kernels.py:185
        p.xyz = (p.xyz + (v.xyz * dt));
        // test_lang_kernels.py:186
        if (p.y < 0.0) {
            // test_lang_kernels.py:187
            p.y = -(p.y);
            // test_lang_kernels.py:188
            v.y = (-(v.y) * p.w);
        }
        // test_lang_kernels.py:189
        pos[i] = p;
        // test_lang_kernels.py:190
        vel[i] = vec4(v.xyz, length(v.xyz));
    }
}
