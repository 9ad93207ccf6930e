"""Variational inference in its smallest form: a mean-field (fully factorised)
Gaussian fitted by coordinate ascent to a correlated Gaussian, and the Kullback-Leibler
divergence between Gaussians that measures the fit.

Chapter 7, section "When the E step is intractable: variational inference". The
target stands in for an intractable posterior ``P(Z | X)``; it is chosen Gaussian so
that the exact answer is known and the approximation can be checked against it.
Figures: :func:`lib.plots.em.plot_mean_field`.
"""
from typing import NamedTuple

import numpy as np
from scipy.special import expit, logsumexp, xlogy

from lib._validation import check_array, check_scalar

__all__ = ["MeanFieldTrace", "mean_field_gaussian", "gaussian_kl", "FactorialTrace",
           "factorial_em"]


class MeanFieldTrace(NamedTuple):
    """One coordinate-ascent run: ``means[t]`` and ``elbo[t]`` after ``t`` single-
    coordinate updates (entry 0: the start); ``variances`` are those of the factors
    (the same at every step)."""
    means: np.ndarray
    variances: np.ndarray
    elbo: np.ndarray


def _mean_and_covariance(mean, covariance):
    mean = check_array(mean, "mean", ndim=1)
    covariance = check_array(covariance, "covariance", ndim=2)
    d = len(mean)
    if covariance.shape != (d, d):
        raise ValueError(f"covariance must have shape ({d}, {d}) to match mean, got {covariance.shape}")
    if not np.allclose(covariance, covariance.T) or np.linalg.eigvalsh(covariance)[0] <= 0:
        raise ValueError(f"covariance must be symmetric positive definite, got {covariance.tolist()}")
    return mean, covariance


def gaussian_kl(mean_q, cov_q, mean_p, cov_p):
    """``KL(q || p)`` in nats between two multivariate Gaussians ``q = N(mean_q, cov_q)``
    and ``p = N(mean_p, cov_p)``:
    ``(tr(S_p^-1 S_q) + (m_p - m_q)' S_p^-1 (m_p - m_q) - d + ln det S_p - ln det S_q) / 2``.

    Used in: Chapter 7, section "When the E step is intractable: variational inference".

    Examples
    --------
    >>> round(gaussian_kl([0.0], [[1.0]], [1.0], [[1.0]]), 6)   # (mean shift)^2 / 2
    0.5
    """
    mean_q, cov_q = _mean_and_covariance(mean_q, cov_q)
    mean_p, cov_p = _mean_and_covariance(mean_p, cov_p)
    if len(mean_q) != len(mean_p):
        raise ValueError(f"q has {len(mean_q)} dimensions but p has {len(mean_p)}")
    diff = mean_p - mean_q
    _, logdet_p = np.linalg.slogdet(cov_p)
    _, logdet_q = np.linalg.slogdet(cov_q)
    trace = np.trace(np.linalg.solve(cov_p, cov_q))
    return float(0.5 * (trace + diff @ np.linalg.solve(cov_p, diff) - len(diff)
                        + logdet_p - logdet_q))


def mean_field_gaussian(mean, covariance, start, n_sweeps=10):
    """Mean-field variational inference for a Gaussian target ``p = N(mean, covariance)``.

    The approximation is ``q(z) = prod_i N(z_i | m_i, s_i^2)``. The coordinate-ascent
    update of factor ``i`` (``ln q_i = E_{q_-i}[ln p(z)] + const``) gives
    ``s_i^2 = 1 / Lambda_ii`` and ``m_i = mu_i - sum_{j != i} Lambda_ij (m_j - mu_j) /
    Lambda_ii``, with ``Lambda`` the precision matrix. The variances are therefore fixed
    from the first update on, and they are the *conditional* variances, smaller than
    the marginal ones when the coordinates are correlated. Each sweep updates every
    coordinate once, in order; ``elbo[t]`` is ``-KL(q || p)`` after ``t`` updates (the
    target is normalised, so the evidence is 1 and the ELBO is minus the divergence),
    which never decreases.

    Parameters
    ----------
    mean : (d,) array; covariance : (d, d) symmetric positive definite array.
    start : (d,) array, the initial means ``m`` (the initial variances are already
        the optimal ``1 / Lambda_ii``, so that the ELBO is defined at the start).
    n_sweeps : int >= 0.

    Returns
    -------
    MeanFieldTrace with ``means`` of shape ``(n_sweeps * d + 1, d)``.

    Used in: Chapter 7, section "When the E step is intractable: variational inference".
    """
    mean, covariance = _mean_and_covariance(mean, covariance)
    d = len(mean)
    m = check_array(start, "start", ndim=1).copy()
    if m.shape != (d,):
        raise ValueError(f"start must have {d} entries to match mean, got {m.shape[0]}")
    n_sweeps = check_scalar(n_sweeps, "n_sweeps", kind="integer", low=0)
    precision = np.linalg.inv(covariance)
    variances = 1.0 / np.diag(precision)
    q_cov = np.diag(variances)
    means, elbo = [m.copy()], [-gaussian_kl(m, q_cov, mean, covariance)]
    for _ in range(n_sweeps):
        for i in range(d):
            others = np.arange(d) != i
            m[i] = mean[i] - precision[i, others] @ (m[others] - mean[others]) / precision[i, i]
            means.append(m.copy())
            elbo.append(-gaussian_kl(m, q_cov, mean, covariance))
    return MeanFieldTrace(np.array(means), variances, np.array(elbo))


# ------------------------------------------------- variational EM with hidden variables
_CONFIGS = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)


class FactorialTrace(NamedTuple):
    """One run of :func:`factorial_em`: ``weights[t]`` and ``priors[t]`` after ``t``
    iterations (entry 0: the start), the exact log likelihood ``log_lik[t]`` of those
    parameters and the bound ``elbo[t]`` reached by the E step at iteration ``t + 1``
    (equal to ``log_lik[t]`` for the exact E step)."""
    weights: np.ndarray
    priors: np.ndarray
    log_lik: np.ndarray
    elbo: np.ndarray


def _bernoulli_entropy(m):
    return -(xlogy(m, m) + xlogy(1 - m, 1 - m))


def factorial_em(x, weights, priors, sigma, n_iter=50, mean_field=True, n_sweeps=10):
    """EM for a factorial model with two hidden binary causes: ``z_k ~ Bernoulli(priors[k])``
    independently and ``x | z ~ N(weights @ z, sigma^2)`` (``sigma`` known).

    The exact E step computes the posterior over the four configurations of ``z``;
    with ``mean_field=True`` the E step is restricted to ``q(z_1) q(z_2)`` and fitted by
    ``n_sweeps`` coordinate-ascent sweeps per point (variational EM). The M step uses
    the expected statistics ``E[z]`` and ``E[z z^T]`` of ``q``. Returns a
    :class:`FactorialTrace`. Used in: Chapter 7, section "Variational EM on a model
    with hidden variables".
    """
    x = check_array(x, "x", ndim=1)
    w = check_array(weights, "weights", ndim=1).copy()
    p = check_array(priors, "priors", ndim=1).copy()
    if w.shape != (2,) or p.shape != (2,):
        raise ValueError("weights and priors must each hold two numbers")
    if np.any((p <= 0) | (p >= 1)):
        raise ValueError(f"priors must lie strictly between 0 and 1, got {p.tolist()}")
    sigma = check_scalar(sigma, "sigma", low=0, closed="neither")
    n_iter = check_scalar(n_iter, "n_iter", kind="integer", low=0)
    n_sweeps = check_scalar(n_sweeps, "n_sweeps", kind="integer", low=1)
    var = sigma**2
    out = {"w": [w.copy()], "p": [p.copy()], "ll": [], "elbo": []}
    m = np.tile(p, (len(x), 1))                             # q(z_k = 1) per point
    for _ in range(n_iter + 1):
        log_joint = (-(x[:, None] - _CONFIGS @ w) ** 2 / (2 * var) - 0.5 * np.log(2 * np.pi * var)
                     + _CONFIGS @ np.log(p) + (1 - _CONFIGS) @ np.log1p(-p))
        ll = float(np.sum(logsumexp(log_joint, axis=1)))
        out["ll"].append(ll)
        if len(out["ll"]) > n_iter:
            break
        if mean_field:
            for _ in range(n_sweeps):                       # coordinate ascent on q
                for k, j in ((0, 1), (1, 0)):
                    logit = (np.log(p[k]) - np.log1p(-p[k])
                             + w[k] * (x - w[k] / 2 - w[j] * m[:, j]) / var)
                    m[:, k] = expit(logit)
            ez = m
            ezz = np.einsum("ni,nj->nij", m, m)
            ezz[:, [0, 1], [0, 1]] = m                      # E[z_k^2] = E[z_k]
            e_sq = x**2 - 2 * x * (m @ w) + np.einsum("i,nij,j->n", w, ezz, w)
            elbo = float(np.sum(-e_sq / (2 * var) - 0.5 * np.log(2 * np.pi * var)
                                + m @ np.log(p) + (1 - m) @ np.log1p(-p)
                                + _bernoulli_entropy(m).sum(axis=1)))
        else:
            post = np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
            ez = post @ _CONFIGS
            ezz = np.einsum("nc,ci,cj->nij", post, _CONFIGS, _CONFIGS)
            elbo = ll
        out["elbo"].append(elbo)
        p = np.clip(ez.mean(axis=0), 1e-9, 1 - 1e-9)        # M step
        w = np.linalg.solve(ezz.sum(axis=0), ez.T @ x)
        out["w"].append(w.copy()), out["p"].append(p.copy())
    return FactorialTrace(np.array(out["w"]), np.array(out["p"]), np.array(out["ll"]),
                          np.array(out["elbo"]))
