"""The public surface, pinned: what `import vkpersist` offers, what `vkpersist.lowlevel`
offers, and that public classes say `vkpersist.X` in reprs and tracebacks. A change here is
a change to what users (and the tutorials) rely on."""
import numpy as np
import pytest

import vkpersist as vkp

TOP = {
    "render_in_thread",
    "Array", "CompileError", "Context", "DeviceLimitError", "DeviceLost", "DeviceNotFound",
    "DeviceTimeout", "OutOfDeviceMemory", "UnsupportedError", "VkPersistError",
    "VulkanUnavailable", "default_context", "list_devices", "synchronize", "to_device",
    "BoundsError", "CheckpointError", "Checkpoints",
    "arange", "asarray", "asnumpy", "empty", "eye", "full", "identity", "linspace", "ones",
    "zeros",
    "Kernel", "kernel", "func", "compile_source", "Program", "every", "when", "QueueOverflow",
    "OccupancyWarning",
    "Ack", "ControlBuffer", "ControlField", "Controls", "MemSock", "Frame", "Socket",
    "SharedPages", "Relay", "lowlevel", "cuda"}
LOWLEVEL = {"DeviceInfo", "ExecutableStatistics", "GLSLKernel", "MEMORY_KINDS", "PlannedStage",
            "SUPPORTED_DTYPES", "Target",
            "glsl_kernel", "host_array"}


def test_exported_names():
    assert TOP <= set(vkp.__all__)
    kernel_language = set(vkp.__all__) - TOP
    assert all(not n[0].isupper() for n in kernel_language), kernel_language   # types, builtins
    assert {"f32", "i32", "vec3", "global_id", "barrier", "atomic", "sqrt"} <= kernel_language
    assert set(vkp.lowlevel.__all__) == LOWLEVEL
    for internal in ("Stage", "Session", "ProgramArray", "ProgramQueue", "ProgramSocket",
                     "RunReport", "glsl_kernel", "host_array", "DeviceInfo"):
        assert not hasattr(vkp, internal), internal
    assert not hasattr(vkp.scheduler, "Stage") and not hasattr(vkp.scheduler, "Session")
    assert callable(vkp.kernel) and not isinstance(vkp.kernel, type(vkp))  # not the module


def test_public_classes_name_vkpersist():
    for name in TOP:
        obj = getattr(vkp, name)
        if isinstance(obj, type):
            assert obj.__module__ == "vkpersist", (name, obj.__module__)
    assert vkp.lowlevel.GLSLKernel.__module__ == "vkpersist.lowlevel"
    assert repr(vkp.Array) == "<class 'vkpersist.Array'>"
    assert vkp.CompileError.__module__ == "vkpersist"


def test_the_device_array_class_is_the_annotation(ctx):
    x = vkp.to_device(np.arange(4, dtype=np.float32), ctx)
    assert isinstance(x, vkp.Array) and type(x) is vkp.Array
    assert repr(vkp.Array[vkp.f32, 2]) == "vkp.Array[vkp.f32, 2]"
    assert vkp.Array[vkp.vec3].elem == vkp.vec3
    with pytest.raises(TypeError, match="takes a scalar or vector type"):
        vkp.Array["float"]
    with pytest.raises(TypeError, match="ndim must be 1, 2 or 3"):
        vkp.Array[vkp.f32, 4]
    np.testing.assert_array_equal(np.asarray(x), [0, 1, 2, 3])


def test_print_shows_the_values_as_numpy_does(ctx):
    x = ctx.asarray(np.arange(4, dtype=np.float32))
    assert str(x) == str(np.arange(4, dtype=np.float32))
    assert str(x.sum()) == "6.0"                       # a 0-d result prints its value
    assert repr(x).startswith("vkpersist.Array(shape=(4,)")


def test_reprs_say_vkpersist(ctx):
    @vkp.kernel
    def k(x: vkp.Array[vkp.f32]):
        x[0] = 1.0
    assert repr(k) == "<vkpersist.kernel k>"
    assert repr(ctx).startswith("vkpersist.Context(")
    ctrl = vkp.ControlBuffer(ctx, g=vkp.f32(1.0))
    assert repr(ctrl).startswith("vkpersist.ControlBuffer(")
    sock = vkp.MemSock("s", np.float32, 4, ctx=ctx)
    assert repr(sock).startswith("vkpersist.MemSock(")
    prog = vkp.Program(ctx, name="p")
    assert repr(prog).startswith("<vkpersist.Program 'p'")
    for obj in (ctrl, sock, prog):
        obj.free()


def test_program_arrays_convert_with_numpy(ctx):
    import programs_lib as pl
    prog, A, init = pl.jacobi(ctx, 4)
    np.testing.assert_array_equal(np.asarray(A), init)
    prog.free()
