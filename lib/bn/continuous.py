"""Continuous variables in a Bayesian network: the linear-Gaussian CPD and
discretisation.

Chapter 6, section "Numeric variables". A continuous child ``Y`` of continuous
parents ``U`` is usually given a linear-Gaussian CPD,
``P(y | u) = N(y; w . u + b, sd^2)`` (Russell & Norvig 2010, section 14.3; Koller &
Friedman 2009, section 5.5): its ML fit is least squares for ``w, b`` and the mean
squared residual for ``sd^2``. The alternative is to cut each numeric variable into
bins (:func:`discretise`) and use the discrete network of the rest of the chapter.
"""
from collections import namedtuple

import numpy as np
from scipy.stats import norm

from lib._validation import check_scalar

__all__ = ["LinearGaussian", "fit_linear_gaussian", "discretise"]


class LinearGaussian(namedtuple("LinearGaussian", ["weights", "intercept", "sd"])):
    """A linear-Gaussian CPD ``N(y; weights . u + intercept, sd^2)``."""

    def mean(self, parents):
        """The mean ``weights . u + intercept`` for each row of ``parents``."""
        return _as_matrix(parents, len(self.weights)) @ self.weights + self.intercept

    def logpdf(self, parents, child):
        """``ln P(child | parents)`` for each row."""
        return norm.logpdf(np.asarray(child, float), self.mean(parents), self.sd)


def _as_matrix(parents, k=None):
    U = np.asarray(parents, dtype=float)
    U = U[:, None] if U.ndim == 1 else U
    if U.ndim != 2 or (k is not None and U.shape[1] != k):
        raise ValueError(f"parents must be an (n, {k or 'k'}) array (or 1-D for one parent), "
                         f"got shape {np.shape(parents)}")
    if not np.all(np.isfinite(U)):
        raise ValueError("parents contain NaN or infinite values")
    return U


def fit_linear_gaussian(parents, child):
    """ML linear-Gaussian CPD of ``child`` (n values) given ``parents`` (an (n, k)
    array, or 1-D for one parent): least squares for the weights and intercept, and
    ``sd = sqrt(mean squared residual)`` (the ML, not the unbiased, estimate).

    Used in: Chapter 6, section "Numeric variables".

    >>> fit_linear_gaussian([0, 1, 2, 3], [1, 3, 6, 7]).weights.round(3)
    array([2.1])
    """
    U = _as_matrix(parents)
    y = np.asarray(child, dtype=float)
    if y.shape != (len(U),):
        raise ValueError(f"child must have one value per row of parents ({len(U)}), got shape {y.shape}")
    if not np.all(np.isfinite(y)):
        raise ValueError("child contains NaN or infinite values")
    if len(U) < U.shape[1] + 2:
        raise ValueError(f"need at least {U.shape[1] + 2} rows to fit {U.shape[1]} weights, "
                         f"an intercept and a standard deviation; got {len(U)}")
    A = np.column_stack([U, np.ones(len(U))])
    coef = np.linalg.lstsq(A, y, rcond=None)[0]
    sd = float(np.sqrt(np.mean((y - A @ coef) ** 2)))
    if sd <= 1e-12 * max(1.0, float(np.std(y))):
        raise ValueError("the child is an exact linear function of its parents (sd = 0)")
    return LinearGaussian(coef[:-1], float(coef[-1]), sd)


def discretise(values, n_bins, edges=None):
    """Cut numeric ``values`` into ``n_bins`` bins of equal frequency (quantiles of
    ``values``), or at the given ``edges`` (inner cut points are used; values outside
    go to the end bins). Returns ``(codes, edges)``, codes in ``0 .. n_bins-1``.

    Used in: Chapter 6, section "Numeric variables".
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or not x.size or not np.all(np.isfinite(x)):
        raise ValueError("values must be a non-empty 1-D array of finite numbers")
    n_bins = check_scalar(n_bins, "n_bins", kind="integer", low=1)
    if edges is None:
        edges = np.quantile(x, np.linspace(0, 1, n_bins + 1))
    edges = np.asarray(edges, dtype=float)
    if edges.shape != (n_bins + 1,) or np.any(np.diff(edges) <= 0):
        raise ValueError(f"edges must be {n_bins + 1} increasing numbers (ties in the data "
                         "can make quantile edges equal: use fewer bins)")
    return np.clip(np.searchsorted(edges[1:-1], x, side="right"), 0, n_bins - 1), edges
