"""np.einsum and np.tensordot on device arrays against NumPy (to rounding: the sums run in
the product kernel's order; 1e-12 relative in float64, 2e-5 in float32)."""
import numpy as np
import pytest

import vkpersist as vkp

RNG = np.random.default_rng(17)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((4, 5))
C = RNG.standard_normal((5, 3))
S = RNG.standard_normal((4, 4))
T = RNG.standard_normal((2, 3, 4))
U = RNG.standard_normal((2, 4, 5))
V = RNG.standard_normal(4)
W = RNG.standard_normal(3)

CASES = [
    ("ij,jk->ik", (A, B)), ("ij,jk", (A, B)), ("ij,jk,kl->il", (A, B, C)),
    ("ij->ji", (A,)), ("ii->i", (S,)), ("ii", (S,)), ("ij->", (A,)), ("ij->j", (A,)),
    ("i,i->", (V, V)), ("i,j->ij", (W, V)), ("ij,j->i", (A, V)), ("bij,bjk->bik", (T, U)),
    ("bij,bjk->bk", (T, U)), ("bij,bjk->", (T, U)), ("ijk->kji", (T,)), ("ij,ij->i", (A, A)),
    ("ij,ij->ij", (A, A)), ("iij->j", (RNG.standard_normal((3, 3, 2)),)),
    ("ij,kl->ijkl", (A, S)), ("abc,cd,b->ad", (T, B, RNG.standard_normal(3))),
]


@pytest.mark.parametrize("subscripts, operands", CASES, ids=[c[0] for c in CASES])
def test_einsum_is_numpys(ctx, subscripts, operands):
    want = np.einsum(subscripts, *operands)
    got = np.einsum(subscripts, *[ctx.asarray(x) for x in operands])
    got = np.asarray(got.numpy() if isinstance(got, vkp.Array) else got)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_einsum_float32_mixed_and_errors(ctx):
    a, b = A.astype(np.float32), B.astype(np.float32)
    got = np.einsum("ij,jk->ik", ctx.asarray(a), ctx.asarray(b))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.numpy(), a @ b, rtol=2e-5, atol=2e-5)
    mixed = np.einsum("ij,jk->ik", ctx.asarray(a), ctx.asarray(B))
    assert mixed.dtype == np.float64
    out = ctx.asarray(np.zeros((3, 5)))
    assert np.einsum("ij,jk->ik", ctx.asarray(A), ctx.asarray(B), out=out) is out
    np.testing.assert_allclose(out.numpy(), A @ B, rtol=1e-12)
    with pytest.raises(ValueError, match="'...' is not supported"):
        np.einsum("...i,i", ctx.asarray(A), ctx.asarray(V))
    with pytest.raises(ValueError, match="subscript 'j' has sizes"):
        np.einsum("ij,jk", ctx.asarray(A), ctx.asarray(C))
    with pytest.raises(ValueError, match="never appeared"):
        np.einsum("ij->iz", ctx.asarray(A))


def test_tensordot_is_numpys(ctx):
    for axes, (x, y) in [(1, (A, B)), (2, (T, RNG.standard_normal((3, 4, 2)))),
                         (([1, 2], [0, 1]), (T, RNG.standard_normal((3, 4)))),
                         (([0], [0]), (T, U)), (0, (V, W))]:
        got = np.tensordot(ctx.asarray(x), ctx.asarray(y), axes)
        want = np.tensordot(x, y, axes)
        assert got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="shape-mismatch"):
        np.tensordot(ctx.asarray(A), ctx.asarray(A), 1)
