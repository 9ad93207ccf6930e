"""EM for k means with a known, shared variance, and the lower bound EM climbs.

Chapter 7, sections "EM for k means" (:func:`em_known_variance`) and "The general EM
algorithm and why it works" (:func:`lower_bound_curves`, :func:`one_mean_em_path`).
Figures: :mod:`lib.plots.em`.
"""
from collections import namedtuple

import numpy as np
from scipy.special import logsumexp

from lib._validation import check_array, check_points, check_scalar, check_scale

__all__ = ["EMTrace", "em_known_variance", "lower_bound_curves", "one_mean_em_path"]

EMTrace = namedtuple("EMTrace", ["means", "resp", "log_likelihood"])
EMTrace.__doc__ = """History of :func:`em_known_variance`.

means : (n_iter + 1, k) array, the means before the first and after every iteration.
resp : (n_iter + 1, n, k) array, E[z_ij] computed from ``means[t]``.
log_likelihood : (n_iter + 1,) array, log likelihood of the data under ``means[t]``.
"""


def em_known_variance(x, means_init, sigma=1.0, n_iter=10):
    """EM for the means of k Gaussians with a known, shared variance and equal weights.

    Each point is drawn by picking one of the ``k`` Gaussians uniformly at random and
    then sampling from it. The E step computes ``E[z_ij]``, the posterior probability
    that point ``i`` came from Gaussian ``j``; the M step moves every mean to the
    average of the points weighted by ``E[z_ij]``.

    Used in: Chapter 7, section "EM for k means".

    Parameters
    ----------
    x : (n,) or (n, d) array of data.
    means_init : (k,) or (k, d) array of starting means.
    sigma : float, the known standard deviation of every Gaussian.
    n_iter : int, number of EM iterations.

    Returns
    -------
    EMTrace with ``means`` (n_iter + 1, k[, d]), ``resp`` (n_iter + 1, n, k) and
    ``log_likelihood`` (n_iter + 1,).

    Examples
    --------
    >>> trace = em_known_variance([0.0, 0.2, 3.9, 4.1], [1.0, 2.0], sigma=0.5, n_iter=5)
    >>> np.round(trace.means[-1], 2)
    array([0.1, 4. ])
    """
    X = check_points(x, name="x")
    one_d = np.ndim(x) == 1
    mu = check_array(means_init, "means_init", ndim=(1, 2))
    mu = mu[:, None] if mu.ndim == 1 and one_d else mu
    if mu.ndim != 2 or mu.shape[1] != X.shape[1] or mu.shape[0] == 0:
        raise ValueError(f"means_init has shape {np.shape(means_init)}, expected (k,) "
                         f"or (k, {X.shape[1]})")
    sigma = check_scale(sigma, "sigma")
    n_iter = check_scalar(n_iter, "n_iter", kind="integer", low=0)
    n, d = X.shape
    k = mu.shape[0]
    means, resps, lls = [mu], [], []
    for t in range(n_iter + 1):
        with np.errstate(over="ignore"):
            sq = ((X[:, None, :] - mu[None]) ** 2).sum(-1)        # (n, k)
        if not np.isfinite(sq).all():
            raise ValueError("x has values so large that their squared distances to the means "
                             f"overflow (largest |x| {np.abs(X).max():g}): rescale the data")
        log_p = -sq / (2 * sigma**2) - 0.5 * d * np.log(2 * np.pi * sigma**2) - np.log(k)
        log_norm = logsumexp(log_p, axis=1)
        resp = np.exp(log_p - log_norm[:, None])
        resps.append(resp)
        lls.append(log_norm.sum())
        if t == n_iter:
            break
        nk = resp.sum(0)
        new = resp.T @ X / np.where(nk > 0, nk, 1.0)[:, None]
        mu = np.where((nk > 0)[:, None], new, mu)               # an empty component stays put
        means.append(mu)
    means = np.array(means)
    return EMTrace(means[..., 0] if one_d else means, np.array(resps), np.array(lls))


def lower_bound_curves(x, means_old, sigma, grid, which=0):
    """The log likelihood and EM's lower bound as functions of one mean.

    For the equal-weight, known-variance mixture of :func:`em_known_variance`, vary
    mean ``which`` over ``grid`` (the other means stay at ``means_old``) and return
    ``(L, B)``: the log likelihood ``L(mu)`` and the bound
    ``B(mu) = sum_i sum_j q_ij [log p(x_i, z_ij = 1 | mu) - log q_ij]`` with ``q_ij``
    the responsibilities computed at ``means_old``. ``B <= L`` everywhere, with
    equality at the old mean; ``B`` is ``Q(mu | mu_old)`` plus a constant.

    Used in: Chapter 7, section "The general EM algorithm and why it works".
    """
    x = check_array(x, "x", ndim=1)
    mu_old = check_array(means_old, "means_old", ndim=1)
    k = len(mu_old)
    grid = check_array(grid, "grid", ndim=1)
    sigma = check_scale(sigma, "sigma")
    which = check_scalar(which, "which", kind="integer", low=0, high=k - 1)

    def log_pj(mu):  # (n, k) log(1/k N(x_i | mu_j, sigma^2))
        return (-(x[:, None] - mu[None]) ** 2 / (2 * sigma**2)
                - 0.5 * np.log(2 * np.pi * sigma**2) - np.log(k))

    lp_old = log_pj(mu_old)
    q = np.exp(lp_old - logsumexp(lp_old, axis=1, keepdims=True))
    L, B = [], []
    for g in grid:
        mu = mu_old.copy()
        mu[which] = g
        lp = log_pj(mu)
        L.append(logsumexp(lp, axis=1).sum())
        with np.errstate(divide="ignore", invalid="ignore"):
            B.append(np.nansum(q * (lp - np.log(q))))
    return np.array(L), np.array(B)


def one_mean_em_path(x, means_init, sigma, which=0, n_iter=3):
    """EM that frees only mean ``which`` (the others stay at ``means_init``): the
    means after 0, 1, ..., n_iter iterations, an (n_iter + 1, k) array.
    Used in: Chapter 7, section "The general EM algorithm and why it works"."""
    x = check_array(x, "x", ndim=1)
    mu = check_array(means_init, "means_init", ndim=1).copy()
    which = check_scalar(which, "which", kind="integer", low=0, high=len(mu) - 1)
    n_iter = check_scalar(n_iter, "n_iter", kind="integer", low=0)
    path = [mu.copy()]
    for _ in range(n_iter):
        resp = em_known_variance(x, mu, sigma, n_iter=0).resp[0][:, which]
        mu[which] = resp @ x / resp.sum()
        path.append(mu.copy())
    return np.array(path)
