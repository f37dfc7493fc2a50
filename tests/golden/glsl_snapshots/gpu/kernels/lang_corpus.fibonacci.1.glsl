#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int n_arr_shape0;
    int out_py_shape0;
};

layout(std430, binding = 0) readonly buffer n_arr_buffer { int n_arr[]; };
layout(std430, binding = 1) buffer out_py_buffer { int out_py[]; };

// test_lang_corpus.py:140: fibonacci
void main() {
    int i;
    int a;
    int b;
    int _;
    int _t1;
    int _t2;
    int _i3;
    int _t4;
    int _t5;
    // test_lang_corpus.py:141
    i = int(gl_GlobalInvocationID.x);
    // test_lang_corpus.py:142
    if (i < n_arr_shape0) {
        // test_lang_corpus.py:143
        _t1 = 0;
        _t2 = 1;
        a = _t1;
        b = _t2;
        // test_lang_corpus.py:144
        int _stop1 = n_arr[i];
        for (_i3 = 0; _i3 < _stop1; _i3 += 1) {
            _ = _i3;
            // test_lang_corpus.py:145
            _t4 = b;
            _t5 = a + b;
            a = _t4;
            b = _t5;
        }
        // test_lang_corpus.py:146
        out_py[i] = a;
    }
}
