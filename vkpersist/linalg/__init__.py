"""vkpersist.linalg: linear algebra on device arrays, NumPy's names."""
from ._product import cumprod, cumsum, dot, inner, matmul, norm, outer, vdot

__all__ = ["cumprod", "cumsum", "dot", "inner", "matmul", "norm", "outer", "vdot"]
