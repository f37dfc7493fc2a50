#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(push_constant) uniform Params {
    int max_iter;
    int out_py_shape0;
    int out_py_shape1;
};

layout(std430, binding = 0) buffer out_py_buffer { int out_py[]; };

float _vkp_pow2i(int n) {
    // 2**n, exactly, for n in [(-126), 127]
    return uintBitsToFloat(uint(n + 127) << 23);
}

void _vkp_unflush(inout float a, inout float b) {
    // a divisor whose reciprocal is subnormal, and the dividend, scaled by 1/4 (exactly; a
    // dividend that loses bits to it has a quotient below the normal range anyway): NVIDIA
    // divides as a * (1 / b) and flushes that reciprocal to zero (FLT_MAX / FLT_MAX gave 0)
    if (abs(b) > _vkp_pow2i(127 - 2)) {
        a *= 0.25;
        b *= 0.25;
    }
}

float _vkp_div_rn(float a, float b) {
    // a / b correctly rounded: the device's quotient q (Vulkan allows 2.5 ulp) plus the
    // exact residual a - q * b (one fma) over b; zeros, infinities and NaN as the device's
    // (IEEE's where it keeps them: SignedZeroInfNanPreserve). A divisor whose reciprocal
    // is subnormal is scaled first, with the dividend (NVIDIA flushes that reciprocal)
    _vkp_unflush(a, b);
    precise float q = a / b;
    if (q == 0.0 || isinf(q) || isnan(q)) return q;
    precise float r = 1.0 / b;
    precise float e = fma(-q, b, a);
    precise float res = fma(e, r, q);
    return res;
}

// test_lang_kernels.py:80: mandelbrot
void main() {
    int px;
    int py;
    int h;
    int w;
    float cx;
    float cy;
    float x;
    float y;
    int n;
    float _t1;
    float _t2;
    // test_lang_kernels.py:81
    px = int(gl_GlobalInvocationID.x);
    // test_lang_kernels.py:82
    py = int(gl_GlobalInvocationID.y);
    // test_lang_kernels.py:83
    h = out_py_shape0;
    // test_lang_kernels.py:84
    w = out_py_shape1;
    // test_lang_kernels.py:85
    if ((px < w) && (py < h)) {
        // test_lang_kernels.py:86
        cx = (-2.0) + _vkp_div_rn((3.0 * float(px)), float(w));
        // test_lang_kernels.py:87
        cy = (-1.25) + _vkp_div_rn((2.5 * float(py)), float(h));
        // test_lang_kernels.py:88
        x = 0.0;
        // test_lang_kernels.py:89
        y = 0.0;
        // test_lang_kernels.py:90
        n = 0;
        // test_lang_kernels.py:91
        while ((n < max_iter) && (((x * x) + (y * y)) <= 4.0)) {
            // test_lang_kernels.py:92
            _t1 = ((x * x) - (y * y)) + cx;
            _t2 = ((2.0 * x) * y) + cy;
            x = _t1;
            y = _t2;
            // test_lang_kernels.py:93
            n = n + 1;
        }
        // test_lang_kernels.py:94
        out_py[(py) * out_py_shape1 + px] = n;
    }
}
