"""Gaussian kernel density estimate: lib.density.kernel_density vs scikit-learn KernelDensity.

scikit-learn 1.9 has no ``algorithm="brute"`` for KernelDensity (only "kd_tree",
"ball_tree", "auto"); the peer is its KD tree with ``atol=rtol=0``, i.e. the exact sum.
"""
import harness  # noqa: F401  (first: pins BLAS threads before numpy loads)
import numpy as np
from sklearn.neighbors import KernelDensity

from lib.density import kernel_density, sample_mixture

WIDTH = 0.05


def cases():
    rng = np.random.default_rng(9)
    data, _ = sample_mixture(2_000, rng)
    query = rng.random((10_000, 2))
    yield harness.compare(
        "Gaussian KDE, 10000 queries on 2000 points (2-D)",
        lambda: kernel_density(query, data, WIDTH, log=True),
        lambda: KernelDensity(bandwidth=WIDTH, algorithm="kd_tree", atol=0, rtol=0)
        .fit(data).score_samples(query),
        lambda a, b: np.abs(a - b).max(), tol=1e-8, target=1.0,
        note="max |log-density difference|; peer: exact KD tree (sklearn has no brute KDE)")


if __name__ == "__main__":
    harness.main("density", cases)
