"""Views of device arrays: basic indexing, .T, transpose, reshape, ravel, copy and astype as
NumPy does them, without copies where NumPy makes none; views passed to kernels (read and
written through their strides); NumPy inputs that are not contiguous. Checked against
NumPy on every device."""
import numpy as np
import pytest

import vkpersist as vkp

KEYS_3D = [
    0, -1, (1, 2), (1, 2, 3), slice(None), slice(1, 3), slice(None, None, -1),
    (slice(None), 2), (Ellipsis, 1), (Ellipsis, slice(1, None, 2)), (None, 1),
    (slice(3, 0, -2), None, slice(None), 4), (1, Ellipsis, None), (slice(7, 9),),
    (slice(None), slice(None, None, 3), slice(4, 1, -1)), (), Ellipsis,
]


@pytest.fixture(scope="module")
def base(ctx):
    host = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    return host, ctx.asarray(host)


@pytest.mark.parametrize("key", KEYS_3D, ids=repr)
def test_basic_indexing_gives_numpys_view(base, key):
    host, dev = base
    view = dev[key]
    ref = host[key]
    assert view.shape == ref.shape and view.strides == ref.strides and view.dtype == ref.dtype
    assert view.base is dev
    np.testing.assert_array_equal(view.numpy(), ref)
    np.testing.assert_array_equal(np.asarray(view), ref)


def test_views_of_views_transposes_and_reshapes(base):
    host, dev = base
    for make in (lambda a: a.T, lambda a: a.transpose(1, 0, 2), lambda a: a.transpose((2, 0, 1)),
                 lambda a: a[1:, ::-2].T[::2], lambda a: a.reshape(20, 6)[3:9:2],
                 lambda a: a.reshape(-1), lambda a: a.ravel()[::7], lambda a: a[2].reshape(3, 10),
                 lambda a: a.T.reshape(6, -1), lambda a: a[:, 1].reshape(2, 2, 6)):
        view, ref = make(dev), make(host)
        assert view.shape == ref.shape
        np.testing.assert_array_equal(view.numpy(), ref)
    assert dev.reshape(120).base is dev                    # contiguous: a view
    assert dev.T.reshape(-1).base is not dev               # not contiguous: a copy, as NumPy


def test_zero_d_and_empty_views(base):
    host, dev = base
    x = dev[1, 2, 3]
    assert x.shape == () and float(x) == host[1, 2, 3] and int(x) == int(host[1, 2, 3])
    assert x.item() == host[1, 2, 3] and bool(dev[0, 0, 0]) is False
    e = dev[2:2]
    assert e.shape == (0, 5, 6) and e.numpy().shape == (0, 5, 6) and e.copy().size == 0
    with pytest.raises(ValueError, match="size 1 to a Python scalar"):
        dev[0].item()
    with pytest.raises(ValueError, match="ambiguous"):
        bool(dev[0])


@pytest.mark.parametrize("key, error, match", [
    ((0, 0, 0, 0), IndexError, "too many indices for array: array is 3-dimensional, but 4"),
    (4, IndexError, "index 4 is out of bounds for axis 0 with size 4"),
    ((0, -6), IndexError, "index -6 is out of bounds for axis 1 with size 5"),
    ((Ellipsis, 0, Ellipsis), IndexError, "single ellipsis"),
    (np.array([0, 9]), IndexError, "index 9 is out of bounds for axis 0 with size 4"),
    (True, IndexError, "bool as an index"),
    (1.5, IndexError, "only integers, slices"),
    ("a", IndexError, "only integers, slices"),
])
def test_indexing_mistakes_say_what_numpy_says(base, key, error, match):
    with pytest.raises(error, match=match):
        base[1][key]


def test_reshape_and_transpose_mistakes(base):
    _, dev = base
    with pytest.raises(ValueError, match=r"cannot reshape array of size 120 into shape \(7,\)"):
        dev.reshape(7)
    with pytest.raises(ValueError, match="only specify one unknown"):
        dev.reshape(-1, -1)
    with pytest.raises(ValueError, match="order='C'"):
        dev.reshape(120, order="F")
    with pytest.raises(np.exceptions.AxisError):
        dev.transpose(0, 1, 3)
    with pytest.raises(ValueError, match="repeated axis"):
        dev.transpose(0, 0, 1)


def test_reshape_beyond_numpys_64_dimensions_is_refused(base):
    """NumPy arrays have at most 64 dimensions: reshape to 65 (even of ones) is NumPy's
    ValueError, which vkpersist made as a 65-d view; 64 stay a view, as NumPy's."""
    host, dev = base
    for shape in ((1,) * 64 + (120,), (120,) + (1,) * 64, (1,) * 65 + (-1,)):
        with pytest.raises(ValueError) as want:
            host.reshape(shape)
        for reshape in (dev.reshape, lambda s: np.reshape(dev, s), lambda s: dev.reshape(*s)):
            with pytest.raises(ValueError, match="maximum supported dimension") as got:
                reshape(shape)
            assert str(want.value) in str(got.value)
    shape = (1,) * 63 + (120,)
    assert dev.reshape(shape).shape == host.reshape(shape).shape
    np.testing.assert_array_equal(np.reshape(dev, shape).numpy(), host.reshape(shape))


def test_setitem_broadcasts_and_casts_as_numpy(ctx):
    host = np.zeros((4, 6), np.int32)
    dev = ctx.asarray(host)
    for key, value in [((1, slice(None)), 7), ((slice(None), 2), np.arange(4)),
                       ((slice(None, None, 2), slice(1, None, 2)), [[1, 2, 3]]),
                       ((Ellipsis, -1), 1.7), (0, np.float64(-2.9))]:
        dev[key] = value
        host[key] = value
        np.testing.assert_array_equal(dev.numpy(), host)
    dev[2] = ctx.asarray(np.full(6, 9, np.int32))           # device to device
    host[2] = 9
    dev[::-1, 0] = ctx.asarray(np.arange(4, dtype=np.int64))  # through the host: converted
    host[::-1, 0] = np.arange(4)
    np.testing.assert_array_equal(dev.numpy(), host)
    with pytest.raises(OverflowError):
        ctx.asarray(np.zeros(3, np.uint8))[0] = 300
    with pytest.raises(ValueError, match="could not broadcast"):
        dev[0] = np.arange(5)


@pytest.mark.parametrize("memory", ["device", "host", "cached"])
def test_views_read_and_write_every_memory_kind(ctx, memory):
    if memory not in ctx.info.memory_kinds:
        pytest.skip(f"{memory} memory not on this device")
    host = np.arange(60, dtype=np.float32).reshape(6, 10)
    dev = ctx.asarray(host, memory=memory)
    view = dev[1:5, ::-3]
    view.fill(-1)
    host[1:5, ::-3] = -1
    np.testing.assert_array_equal(dev.numpy(), host)
    view.copy_from(np.ones(view.shape))
    host[1:5, ::-3] = 1
    np.testing.assert_array_equal(dev.numpy(), host)
    if memory != "device":
        np.testing.assert_array_equal(dev.T[2:4].numpy_view(), host.T[2:4])


def test_copy_and_astype_of_views_on_the_device(ctx, base):
    host, dev = base
    for key in [(slice(None), 2), (slice(1, 4), slice(None, None, -2), 3), (Ellipsis, 1), ()]:
        c = dev[key].copy()
        assert c.base is None and c.strides == host[key].copy().strides
        np.testing.assert_array_equal(c.numpy(), host[key])
    signed = ctx.asarray((host - 60) / 7.0)
    want = ["int32", "uint32", "int8", "uint8", "bool", "float32"]
    want += ["int16", "float16"] if ctx.info.storage16 else []
    want += ["int64"] if ctx.info.int64 else []
    want += ["float64"] if ctx.info.float64 else []
    for dtype in want:
        ref = ((host - 60) / 7.0).astype(np.float32)[:, ::2].T
        if np.dtype(dtype).kind == "u":
            ref = np.abs(ref)                       # negative floats to unsigned: undefined
            src = ctx.asarray(ref.T).T
        else:
            src = signed[:, ::2].T
        got = src.astype(dtype)
        assert got.dtype == np.dtype(dtype) and got.base is None
        np.testing.assert_array_equal(got.numpy(), ref.astype(dtype), err_msg=dtype)
    same = dev.astype(np.float32, copy=False)
    assert same is dev and dev[::2].astype(np.float32, copy=False) is not dev


@vkp.kernel
def _scale2(x, y, a):
    i = vkp.global_id(0)
    j = vkp.global_id(1)
    if i < y.shape[0] and j < y.shape[1]:
        y[i, j] = a * x[i, j] + y[i, j]


@vkp.kernel
def _bump(x: vkp.Array[vkp.f32]):
    i = vkp.global_id(0)
    if i < x.shape[0]:
        x[i] = x[i] + 1.0


def test_kernels_read_and_write_through_views(ctx):
    host = np.arange(48, dtype=np.float32).reshape(6, 8)
    dev = ctx.asarray(host)
    out_host = np.ones((12, 8), np.float32)
    out = ctx.asarray(out_host)
    src, dst = dev.T[1:5, ::-1], out[1::3, 2:8]       # 4x6 each, strided both ways
    _scale2[(1, 1), (8, 8)](src, dst, np.float32(2))
    out_host[1::3, 2:8] += 2 * host.T[1:5, ::-1]
    np.testing.assert_array_equal(out.numpy(), out_host)
    col = dev[::2, 3]                                  # annotated parameter, a strided view
    _bump.forall(col.shape[0])(col)
    _bump.forall(4)(dev[2, 4:])                        # contiguous with an offset
    host[::2, 3] += 1
    host[2, 4:] += 1
    np.testing.assert_array_equal(dev.numpy(), host)


def test_a_view_specialises_the_kernel_and_leaves_its_plain_glsl_alone(ctx):
    plain = _bump.glsl(vkp.Array[vkp.f32])
    assert "x_stride0" not in plain and "x_offset" not in plain
    strided = _bump._compile([vkp.lang.types.ArrayType(vkp.f32, 1, True)], ctx.target).source
    assert "x[x_offset + (i) * x_stride0]" in strided


def test_numpy_inputs_need_not_be_contiguous(ctx):
    host = np.arange(48, dtype=np.float32).reshape(6, 8)
    x, y = host.T[::2], np.ones((8, 12), np.float32)[::2, ::-2]     # strided NumPy views
    want = 3 * x + y
    _scale2[(1, 1), (8, 8)](x, y, np.float32(3))                    # y is written back
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(ctx.asarray(host[:, ::-3]).numpy(), host[:, ::-3])


def test_views_keep_to_their_base_lifetime(ctx):
    a = ctx.asarray(np.arange(10, dtype=np.float32))
    v = a[2:5]
    with pytest.raises(vkp.VkPersistError, match="free\\(\\) on a view"):
        v.free()
    a.free()
    with pytest.raises(vkp.VkPersistError, match="freed"):
        v.numpy()


def test_consumers_of_whole_buffers_refuse_views(ctx):
    k = vkp.lowlevel.glsl_kernel("""#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer X { float x[]; };
void main() { x[gl_GlobalInvocationID.x] += 1.0; }
""")
    a = ctx.zeros(64)
    with pytest.raises(vkp.UnsupportedError, match="view.copy\\(\\)"):
        k[1](a[::2])

    @vkp.kernel
    def vecs(p: vkp.Array[vkp.vec4]):
        i = vkp.global_id(0)
        if i < p.shape[0]:
            p[i] = p[i] * 2.0
    v = ctx.zeros((8, 4))
    with pytest.raises(vkp.UnsupportedError, match="strided view"):
        vecs.forall(4)(v[::2])
    vecs.forall(8)(v[0:8])                                  # the whole array: fine
