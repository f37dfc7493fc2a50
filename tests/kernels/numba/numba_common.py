"""What the numba ports share: their strict expected failures, with the reasons."""
import pytest


def xfail(reason):
    return pytest.mark.xfail(strict=True, reason=reason)


GRID_SYNC = ("grid sync: cuda.cg.this_grid().sync() is refused (a Vulkan launch does not "
             "promise a co-resident grid; the error points to vkp.Program)")
