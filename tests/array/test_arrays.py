import numpy as np
import pytest

import vkpersist as vkp

KINDS = ["device", "host", "cached", "rebar"]


def _dtypes(info):
    out = ["bool", "int8", "uint8", "int32", "uint32", "float32"]
    if info.storage16:
        out += ["int16", "uint16", "float16"]
    if info.int64:
        out += ["int64", "uint64"]
    if info.float64:
        out += ["float64"]
    return out


def _sample(dtype, shape):
    rng = np.random.default_rng(7)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("memory", KINDS)
def test_round_trip_every_dtype_and_shape(ctx, memory):
    if memory not in ctx.info.memory_kinds:
        pytest.skip(f"{memory} memory not on this device")
    for dtype in _dtypes(ctx.info):
        for shape in [(), (1,), (7,), (3, 5), (2, 3, 4), (2, 1, 3, 2)]:
            host = _sample(dtype, shape)
            arr = ctx.asarray(host, memory=memory)
            assert (arr.shape, arr.dtype, arr.memory) == (shape, np.dtype(dtype), memory)
            assert arr.nbytes == host.nbytes and arr.size == host.size and arr.ndim == len(shape)
            back = arr.numpy()
            assert back.dtype == host.dtype and back.shape == shape
            np.testing.assert_array_equal(back, host)


@pytest.mark.parametrize("memory", KINDS)
def test_zeros_full_fill(ctx, memory):
    for dtype in _dtypes(ctx.info):
        z = ctx.zeros((5, 3), dtype, memory=memory)
        np.testing.assert_array_equal(z.numpy(), np.zeros((5, 3), dtype))
        one = True if dtype == "bool" else 1
        f = ctx.full((4, 3), one, dtype, memory=memory)
        np.testing.assert_array_equal(f.numpy(), np.full((4, 3), one, dtype))
        value = {"bool": False, "float16": -2.5, "float32": -2.5, "float64": -2.5}.get(dtype, 3)
        np.testing.assert_array_equal(f.fill(value).numpy(), np.full((4, 3), value, dtype))


def test_large_device_array_crosses_staging_chunks(ctx):
    from vkpersist.vk.staging import CHUNK_BYTES
    n = CHUNK_BYTES // 4 + 12345
    host = np.arange(n, dtype=np.uint32)
    arr = ctx.asarray(host)
    np.testing.assert_array_equal(arr.numpy(), host)
    arr.fill(np.float32(0).view(np.uint32))
    assert not arr.numpy().any()
    arr.free()


def test_fill_of_eight_byte_values_in_device_memory(ctx):
    if not ctx.info.float64:
        pytest.skip("no float64")
    a = ctx.empty(1000, np.float64)
    a.fill(1.0 / 3.0)
    np.testing.assert_array_equal(a.numpy(), np.full(1000, 1.0 / 3.0))


def test_numpy_view_is_zero_copy(ctx):
    a = ctx.zeros(16, np.int32, memory="host")
    v = a.numpy_view()
    v[3] = 42
    assert a.numpy()[3] == 42
    a.copy_from(np.arange(16, dtype=np.int32))
    assert v[5] == 5


def test_numpy_view_keeps_memory_alive_after_array_is_dropped(ctx):
    import gc
    a = ctx.asarray(np.arange(1000, dtype=np.float32), memory="cached")
    v = a.numpy_view()
    del a
    gc.collect()
    assert v[999] == 999.0


def test_numpy_view_of_device_memory_explains(ctx):
    with pytest.raises(vkp.UnsupportedError, match="memory='host', 'cached' or 'rebar'"):
        ctx.empty(4).numpy_view()


def test_copy_from_arrays_and_conversions(ctx):
    a = ctx.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = ctx.empty((2, 3), np.float32)
    b.copy_from(a)
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    b.copy_from(np.ones((2, 3), np.int16))            # same-kind conversion: fine
    assert (b.numpy() == 1).all()
    b.copy_from(np.arange(6.0).reshape(3, 2).T.copy().T.reshape(2, 3))  # any layout
    with pytest.raises(ValueError, match="source shape \\(3, 2\\) does not match the array's shape \\(2, 3\\)"):
        b.copy_from(np.ones((3, 2)))
    i = ctx.empty(3, np.int32)
    with pytest.raises(TypeError, match="cannot convert float64 to int32"):
        i.copy_from(np.ones(3))
    with pytest.raises(ValueError, match="must match"):
        i.copy_from(ctx.empty(4, np.int32))


def test_non_contiguous_input(ctx):
    host = np.arange(24, dtype=np.float32).reshape(4, 6)[:, ::2]
    np.testing.assert_array_equal(ctx.asarray(host).numpy(), host)


def test_asarray_passes_through_and_converts(ctx):
    a = ctx.asarray([1, 2, 3], dtype=np.float32)
    assert ctx.asarray(a) is a
    h = ctx.asarray(a, memory="host")
    assert h is not a and h.memory == "host"
    np.testing.assert_array_equal(np.asarray(h), [1, 2, 3])


@pytest.mark.parametrize("make, error, match", [
    (lambda c: c.empty(4, "datetime64[s]"), TypeError, "do not support dtype datetime64.s.; supported: bool, int8"),
    (lambda c: c.empty(4, "nonsense"), TypeError, "not a NumPy dtype"),
    (lambda c: c.asarray(np.array([object()])), TypeError, "object dtype"),
    (lambda c: c.empty((2, -1)), ValueError, "negative"),
    (lambda c: c.empty("big"), TypeError, "shape must be an int or a tuple of ints"),
    (lambda c: c.empty(1 << 42, np.uint8), vkp.OutOfDeviceMemory, "cannot allocate 4096.0 GiB of 'device' memory.*largest single allocation"),
    (lambda c: c.empty(4, np.uint8).fill(300), TypeError, "300 is out of uint8's range 0..255"),
    (lambda c: c.empty(4, np.int32).fill(1.5), TypeError, "takes an integer, got 1.5"),
    (lambda c: c.empty(4, np.uint32).fill(-1), TypeError, "uint32"),
    (lambda c: c.empty(4).fill([1, 2]), ValueError, "expected a scalar"),
])
def test_bad_input_is_explained(ctx, make, error, match):
    with pytest.raises(error, match=match):
        make(ctx)


def test_missing_device_feature_is_explained(ctx):
    import dataclasses
    from vkpersist.vk.array import check_dtype
    info = dataclasses.replace(ctx.info, float64=False)
    with pytest.raises(vkp.UnsupportedError, match="cannot use float64 arrays \\(it lacks float64 support\\)"):
        check_dtype(np.float64, info)


def test_freed_array_refuses_use(ctx):
    a = ctx.zeros(4)
    a.free()
    a.free()  # idempotent
    with pytest.raises(vkp.VkPersistError, match="freed"):
        a.numpy()


def test_zero_size_arrays(ctx):
    a = ctx.asarray(np.zeros((0, 3), np.float32))
    assert a.numpy().shape == (0, 3) and a.nbytes == 0
    with pytest.raises(TypeError):
        len(ctx.asarray(np.float32(1)))
