"""Gaussian mixture EM, 100 iterations from a fixed start: lib.em vs scikit-learn."""
import harness  # noqa: F401  (first: pins BLAS threads before numpy loads)

# isort: split
import numpy as np
from sklearn.mixture import GaussianMixture as SkGaussianMixture

from lib.em import GaussianMixture, sample_mixture

N_ITER = 100


def cases():
    rng = np.random.default_rng(7)
    X, _ = sample_mixture(500, [0.5, 0.3, 0.2], [[0, 0], [3, 2], [-2, 3]],
                       [np.eye(2), [[1, 0.6], [0.6, 1]], [[0.5, 0], [0, 2]]], rng)
    w0, m0 = np.full(3, 1 / 3), X[rng.choice(len(X), 3, replace=False)]
    covs = np.repeat(np.cov(X.T)[None], 3, axis=0)
    prec0 = np.linalg.inv(covs)

    def lib():
        return GaussianMixture(3, n_iter=N_ITER, tol=0.0, reg=0.0, init={
            "weights": w0, "means": m0, "precisions": prec0}).fit(X)

    def peer(max_iter=N_ITER, warm=False):
        return SkGaussianMixture(3, tol=0.0, max_iter=max_iter, reg_covar=0.0,
                                 init_params="random_from_data", warm_start=warm,
                                 weights_init=w0, means_init=m0, precisions_init=prec0).fit(X)

    def check(a, b):
        # scikit-learn keeps only the last value of the path: rebuild it one
        # iteration at a time with warm_start (same arithmetic, not timed)
        sk = peer(1, warm=True)
        path = [sk.lower_bound_]
        for _ in range(N_ITER - 1):
            path.append(sk.fit(X).lower_bound_)
        d_path = np.abs(a.log_likelihoods_[:N_ITER] / len(X) - np.array(path)).max()
        assert d_path <= 1e-8, f"log-likelihood paths differ by {d_path:.2g}"
        return max(d_path, np.abs(a.means_ - b.means_).max(),
                   np.abs(a.covariances_ - b.covariances_).max(), np.abs(a.weights_ - b.weights_).max())

    yield harness.compare(
        "Gaussian mixture EM, 500x2, k=3, 100 iterations", lib, peer, check, tol=1e-8,
        target=1.0, note="max |difference| of the mean log-likelihood path and of the fitted "
        "parameters; sklearn with init_params='random_from_data', whose start is then replaced by "
        "the given one (the default 'kmeans' would add a k-means run to its time)")


if __name__ == "__main__":
    harness.main("em", cases)
