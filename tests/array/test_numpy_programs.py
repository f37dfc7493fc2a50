"""Whole programs written against NumPy's API, run on device arrays and on NumPy arrays,
and compared: what a CuPy user's `xp` code does (CuPy's examples solve by conjugate
gradients, cluster with k-means and fit Gaussian mixtures this way). Each program is the
same Python function for both; the device run must reach NumPy's answer within the
stated tolerance (float sums are in tree order on the device, sequential in NumPy)."""
import numpy as np
import pytest

import vkpersist as vkp

RNG = np.random.default_rng(31)


def conjugate_gradient(A, b, tol=1e-8, max_iter=500):
    """Solve A x = b for a symmetric positive definite A."""
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rr = np.inner(r, r)
    for it in range(max_iter):
        Ap = np.dot(A, p)
        alpha = rr / np.vdot(p, Ap)
        x += alpha * p
        r -= alpha * Ap
        if np.linalg.norm(r) < tol * np.linalg.norm(b):
            return x, it + 1
        rr_new = np.inner(r, r)
        p = r + (rr_new / rr) * p
        rr = rr_new
    return x, max_iter


def kmeans(X, centers, steps):
    """Lloyd's iterations: label each point by its nearest centre, move the centres."""
    k = centers.shape[0]
    for _ in range(steps):
        d2 = np.sum((X[:, None, :] - centers[None, :, :]) ** 2, axis=2)
        labels = np.argmin(d2, axis=1)
        sums = np.stack([np.sum(X[labels == c], axis=0) for c in range(k)])
        counts = np.bincount(labels, minlength=k)
        centers = sums / counts[:, None]
    return centers, labels


def gaussian_mixture(X, means, variances, weights, steps):
    """EM for a mixture of axis-aligned Gaussians; returns the parameters and the mean
    log-likelihood of the last E step."""
    n, d = X.shape
    for _ in range(steps):
        diff2 = (X[:, None, :] - means[None]) ** 2 / variances[None]
        log_p = -0.5 * (np.sum(diff2, axis=2) + np.sum(np.log(variances), axis=1)
                        + d * np.log(2 * np.pi)) + np.log(weights)
        top = np.max(log_p, axis=1, keepdims=True)
        log_norm = top[:, 0] + np.log(np.sum(np.exp(log_p - top), axis=1))
        resp = np.exp(log_p - log_norm[:, None])
        nk = np.sum(resp, axis=0)
        means = (resp.T @ X) / nk[:, None]
        variances = (resp.T @ (X * X)) / nk[:, None] - means ** 2
        weights = nk / n
    return means, variances, weights, np.mean(log_norm)


def test_conjugate_gradient_solves_as_numpy(ctx):
    n = 80
    M = RNG.standard_normal((n, n))
    A = M @ M.T + n * np.eye(n)
    x_true = RNG.standard_normal(n)
    b = A @ x_true
    x_np, it_np = conjugate_gradient(A, b)
    x_dev, it_dev = conjugate_gradient(ctx.asarray(A), ctx.asarray(b))
    assert isinstance(x_dev, vkp.Array)
    assert abs(it_dev - it_np) <= 2
    # stopped at a residual of 1e-8 of |b|: the error is that times A's condition (~5)
    np.testing.assert_allclose(x_dev.numpy(), x_true, rtol=0, atol=1e-6)
    np.testing.assert_allclose(x_dev.numpy(), x_np, rtol=0, atol=1e-6)


def test_kmeans_finds_numpys_clusters(ctx):
    blobs = [RNG.normal(c, 0.6, (150, 2)) for c in ((0, 0), (5, 1), (1, 6))]
    X = np.concatenate(blobs).astype(np.float32)
    start = X[[0, 150, 300]]
    c_np, l_np = kmeans(X, start, 6)
    c_dev, l_dev = kmeans(ctx.asarray(X), ctx.asarray(start), 6)
    np.testing.assert_array_equal(l_dev.numpy(), l_np)
    np.testing.assert_allclose(c_dev.numpy(), c_np, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gaussian_mixture_em_as_numpy(ctx, dtype):
    if dtype == np.float64 and not ctx.info.float64:
        pytest.skip("no float64")
    X = np.concatenate([RNG.normal((0, 0), (1.0, 0.5), (300, 2)),
                        RNG.normal((4, 3), (0.7, 1.2), (200, 2))]).astype(dtype)
    start = (np.array([[1, 1], [3, 2]], dtype), np.ones((2, 2), dtype),
             np.array([0.5, 0.5], dtype))
    want = gaussian_mixture(X, *start, steps=15)
    got = gaussian_mixture(ctx.asarray(X), *map(ctx.asarray, start), steps=15)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=tol, atol=tol)
    np.testing.assert_allclose(np.asarray(got[0]), [[0, 0], [4, 3]], atol=0.3)   # the blobs
