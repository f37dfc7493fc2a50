"""The namespace, pinned and checked without a device: `vkp.__all__` exactly, written
statically (every public name bound by a statement of vkpersist/__init__.py, as IDEs and
type checkers read it), no modules leaking into `dir(vkp)`, `vkp.linalg` and `vkp.fft`
shaped like NumPy's, and every NumPy function that runs on device arrays found by its
name."""
import ast
import pathlib
import warnings

import numpy as np
import pytest

import vkpersist as vkp
from vkpersist.vk.array import Array

INIT = pathlib.Path(vkp.__file__)

ALL = {
    "Ack", "Array", "BoundsError", "CheckpointError", "Checkpoints", "CompileError", "Context",
    "ControlBuffer", "ControlField",
    "Controls", "DeviceLimitError", "DeviceLost", "DeviceNotFound", "DeviceTimeout", "Frame",
    "Kernel", "MemSock", "OccupancyWarning", "OutOfDeviceMemory", "Program", "QueueOverflow",
    "Relay", "SharedPages", "Socket", "UnsupportedError", "VkPersistError",
    "VulkanUnavailable", "absolute", "acos", "acosh", "add", "allclose", "amax", "amin",
    "angle", "arange", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2",
    "arctanh", "argmax", "argmin", "argsort", "argwhere", "around", "array_equal", "asarray",
    "asin", "asinh", "asnumpy", "atan", "atan2", "atanh", "atomic", "average", "barrier",
    "bincount", "bitwise_and", "bitwise_or", "bitwise_xor", "bool_", "broadcast_to", "bvec2",
    "bvec3", "bvec4", "c128", "c64", "cbrt", "ceil", "clamp", "clip", "column_stack",
    "compile_source", "complex128", "complex64", "concatenate", "conj", "conjugate",
    "convolve", "copy", "copysign", "copyto", "correlate", "cos", "cosh", "count_nonzero",
    "cross", "cuda", "cumprod", "cumsum", "default_context", "deg2rad", "degrees", "diag",
    "diagonal", "diff", "distance", "divide", "dot", "dvec2", "dvec3", "dvec4", "einsum",
    "empty", "empty_like", "equal", "every", "exp", "exp2", "expand_dims", "expm1", "eye",
    "f16", "f32", "f64", "fabs", "fft", "flatnonzero", "flip", "fliplr", "flipud", "float16",
    "float32", "float64", "float_power", "floor", "floor_divide", "fma", "fmax", "fmin",
    "fmod", "full", "full_like", "func", "global_id", "global_size", "gradient", "greater",
    "greater_equal", "group_id", "guvectorize", "heaviside", "histogram", "hstack", "hypot",
    "i16", "i32", "i64", "i8", "identity", "imag", "inner", "int16", "int32", "int64", "int8",
    "interp", "invert", "isclose", "isfinite", "isinf", "isnan", "ivec2", "ivec3", "ivec4",
    "jit", "kernel", "ldexp", "left_shift", "length", "less", "less_equal", "linalg",
    "linspace", "list_devices", "local", "local_id", "local_size", "log", "log10", "log1p",
    "log2", "logaddexp", "logaddexp2", "logical_and", "logical_not", "logical_or",
    "logical_xor", "lowlevel", "matmul", "maximum", "mean", "median", "meshgrid", "minimum",
    "mix", "mod", "moveaxis", "multiply", "nanmax", "nanmean", "nanmin", "nanprod", "nanstd",
    "nansum", "nanvar", "ndim", "negative", "nonzero", "normalize", "not_equal", "num_groups",
    "ones", "ones_like", "outer", "pad", "percentile", "positive", "power", "prod", "ptp",
    "quantile", "rad2deg", "radians", "random", "ravel", "real", "reciprocal", "remainder",
    "render_in_thread", "repeat", "reshape", "right_shift", "rint", "roll", "rsqrt",
    "searchsorted", "select", "shape", "shared", "sign", "signbit", "sin", "sinh", "size",
    "sort", "sqrt", "square", "squeeze", "stack", "std", "subgroup_add", "subgroup_all",
    "subgroup_all_equal", "subgroup_any", "subgroup_ballot", "subgroup_barrier",
    "subgroup_exclusive_add", "subgroup_inclusive_add", "subgroup_lane", "subgroup_max",
    "subgroup_min", "subgroup_mul", "subgroup_shuffle", "subgroup_shuffle_down",
    "subgroup_shuffle_up", "subgroup_shuffle_xor", "subgroup_size", "subtract", "swapaxes",
    "synchronize", "take", "tan", "tanh", "tensordot", "tile", "to_device", "trace",
    "transpose", "trapezoid", "tril", "triu", "true_divide", "trunc", "u16", "u32", "u64",
    "u8", "uint16", "uint32", "uint64", "uint8", "unique", "uvec2", "uvec3", "uvec4", "var",
    "vdot", "vec2", "vec3", "vec4", "vectorize", "vstack", "when", "where", "zeros",
    "zeros_like"
}

# the NumPy functions that run on device arrays (NEP 18): none may go missing
NUMPY = """
    all allclose amax amin angle any argmax argmin argsort argwhere around array_equal
    average bincount broadcast_to clip column_stack concatenate convolve copy copyto
    correlate count_nonzero cross cumprod cumsum diag diagonal diff dot einsum
    empty_like expand_dims flatnonzero flip fliplr flipud full_like gradient histogram
    hstack imag inner interp isclose matmul max mean median meshgrid min moveaxis nanmax
    nanmean nanmin nanprod nanstd nansum nanvar ndim nonzero ones_like outer pad
    percentile prod ptp quantile ravel real repeat reshape roll round searchsorted shape
    size sort squeeze stack std sum swapaxes take tensordot tile trace transpose
    trapezoid tril triu unique var vdot vstack where zeros_like
""".split()
NUMPY_LINALG = "det inv norm slogdet solve".split()
NUMPY_FFT = """
    fft fft2 fftn fftshift ifft ifft2 ifftn ifftshift irfft irfft2 irfftn rfft rfft2
    rfftn
""".split()


def test_the_exported_names_exactly():
    assert set(vkp.__all__) == ALL
    assert len(vkp.__all__) == len(ALL)                 # no name twice
    assert vkp.linalg.__all__ == ["det", "inv", "matmul", "norm", "outer", "slogdet", "solve"]
    assert set(vkp.fft.__all__) == set(NUMPY_FFT)
    assert vkp.random.__all__ == ["Generator", "default_rng", "philox4x32", "philox_normal",
                                  "philox_uniform"]


def test_the_namespace_is_written_statically():
    tree = ast.parse(INIT.read_text())
    bound = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                bound.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    assert ALL <= bound, sorted(ALL - bound)
    assigned = [n for n in tree.body if isinstance(n, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]
    assert len(assigned) == 1 and all(isinstance(e, ast.Constant)
                                      for e in assigned[0].value.elts)   # no *spread
    assert "globals().update" not in INIT.read_text()


def test_dir_shows_the_public_names_only():
    shown = set(dir(vkp))
    assert ALL <= shown
    modules = {n for n in shown if type(getattr(vkp, n)) is type(vkp)}
    assert modules == {"cuda", "fft", "linalg", "lowlevel", "random"}
    assert not {"inspect", "vk", "lang", "scheduler", "memsock", "control"} & shown
    assert not [n for n in shown if n.startswith("_") and n != "__version__"]


@pytest.mark.parametrize("module, names", [(np, NUMPY), (np.linalg, NUMPY_LINALG),
                                           (np.fft, NUMPY_FFT)],
                         ids=["numpy", "numpy.linalg", "numpy.fft"])
def test_every_numpy_function_on_the_device_is_found_by_name(module, names):
    find = Array._numpy.function
    for name in names:
        impl = find(getattr(module, name), None)
        assert impl is not None, f"np.{name}"
        if name not in ("min", "max", "dot", "cross"):     # the kernel builtins' names
            space = {np: vkp, np.linalg: vkp.linalg, np.fft: vkp.fft}[module]
            assert getattr(space, name) is impl, name


def test_a_numpy_function_vkpersist_lacks_is_not_found():
    find = Array._numpy.function
    for func in (np.lexsort, np.linalg.svd, np.fft.hfft, np.polyfit):
        assert find(func, None) is None, func.__name__
    # a kernel builtin or a class of the same name is not NumPy's function
    assert find(np.sin, None) is None


def test_the_linalg_spellings_np_linalg_lacks_still_work_with_a_warning():
    for name, new in (("cumsum", "vkp.cumsum"), ("cumprod", "vkp.cumprod"), ("dot", "np.dot"),
                      ("inner", "vkp.inner"), ("vdot", "vkp.vdot")):
        with pytest.warns(DeprecationWarning, match=f"use {new}"):
            assert callable(getattr(vkp.linalg, name))
    with pytest.raises(AttributeError, match="it has det, inv, matmul"):
        vkp.linalg.eig
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "cumsum" not in dir(vkp.linalg)
