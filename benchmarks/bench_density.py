"""Gaussian kernel density estimate: lib.density.kernel_density vs scikit-learn KernelDensity.

scikit-learn 1.9 has no ``algorithm="brute"`` for KernelDensity (only "kd_tree",
"ball_tree", "auto"); the peer is its KD tree with ``atol=rtol=0``, i.e. the exact sum.
"""
import harness  # noqa: F401  (first: pins BLAS threads before numpy loads)

# isort: split
import numpy as np
from sklearn.neighbors import KernelDensity

from lib.density import MIXTURE, kernel_density, sample_mixture

WIDTH = 0.05


def compare_kde(case, query, data, target, note=""):
    return harness.compare(
        case, lambda: kernel_density(query, data, WIDTH, log=True),
        lambda: KernelDensity(bandwidth=WIDTH, algorithm="kd_tree", atol=0, rtol=0)
        .fit(data).score_samples(query),
        lambda a, b: np.abs(a - b).max(), tol=1e-8, target=target,
        note="max |log-density difference|; peer: exact KD tree (sklearn has no brute KDE)" + note)


def cases():
    rng = np.random.default_rng(9)
    data, _ = sample_mixture(2_000, *MIXTURE, rng=rng)
    yield compare_kde("Gaussian KDE, 10000 queries on 2000 points (2-D)",
                      rng.random((10_000, 2)), data, target=1.0)
    # Points 1e6 kernel widths apart: the expansion |q|^2 + |x|^2 - 2 q.x would cancel,
    # so lib computes these chunks from the coordinate differences (its slower path).
    wide = rng.standard_normal((2_000, 2)) * 1e6 * WIDTH
    near = wide[rng.integers(0, 2_000, 10_000)] + rng.normal(0, WIDTH, (10_000, 2))
    yield compare_kde("Gaussian KDE, 10000 queries on 2000 points (2-D), spread 1e6 widths",
                      near, wide, target=5.0,
                      note="; an accuracy row: lib on its direct-difference path sums all "
                      "2e7 pairs, the KD tree prunes all but the nearest point")


if __name__ == "__main__":
    harness.main("density", cases)
