"""The one EM loop of the course, shared by every model fitted by EM.

:func:`run_em` alternates an E step and an M step given as two functions and applies
one stopping rule; it serves :class:`lib.em.GaussianMixture`,
:class:`lib.em.MixtureOfNaiveBayes` (Chapter 7), :meth:`lib.hmm.HMM.fit` (Baum-Welch,
Chapter 8) and :func:`lib.bn.fit_em` (Chapters 6 and 7). Each of them stores what it
returns under the same names: ``log_likelihoods_``, ``n_iter_`` and ``converged_``.

The stopping rule (scikit-learn's ``GaussianMixture``, per observation): after the E
step of iteration ``t >= 1``, the *gain* is the rise of the mean log likelihood per
observation, ``(L_t - L_{t-1}) / n_obs``. Once a gain is below ``tol`` (``tol > 0``),
EM has converged: the M step of that iteration is still made (as scikit-learn and
hmmlearn do), the log likelihood of its result is recorded, and the loop stops.
Otherwise it stops after ``n_iter`` M steps (``tol=0`` runs exactly ``n_iter``). So
``log_likelihoods[-1]`` is always the log likelihood of the parameters returned.

EM never lowers the log likelihood (with exact E and M steps); a fall larger than
rounding (``sqrt(eps)`` per observation, hmmlearn's allowance) means a bug or an
inexact step, and is reported with a :class:`lib.errors.ConvergenceWarning` when
``monotone`` is true (models whose M step is not the exact maximiser, such as MAP-EM
or a variance floor, pass ``monotone=False``).
"""
import warnings
from typing import Any, NamedTuple

import numpy as np

from lib._validation import check_scalar
from lib.errors import ConvergenceWarning

__all__ = ["EMResult", "run_em"]

ROUNDING = np.sqrt(np.finfo(float).eps)   # the fall per observation EM may show by rounding


class EMResult(NamedTuple):
    """What :func:`run_em` returns."""
    params: Any                   # the parameters reached (those of the last E step)
    stats: Any                    # the statistics of the last E step (of ``params``)
    log_likelihoods: np.ndarray   # (n_iter + 1,): entry t after t M steps; the last is ``params``'
    n_iter: int                   # the number of M steps made
    converged: bool               # whether ``tol`` stopped it (not ``n_iter``)


def run_em(e_step, m_step, params, n_obs, n_iter=100, tol=1e-3, monotone=True):
    """Run EM from ``params`` with the stopping rule of this module's docstring.

    ``e_step(params)`` returns ``(log_likelihood, stats)``: the log likelihood of the
    data under ``params`` and the statistics the M step needs (responsibilities,
    expected counts); ``m_step(params, stats)`` returns the new parameters.
    ``n_obs`` (> 0) is the number (or total weight) of observations the gain is
    divided by: data points, symbols of all sequences, rows.

    Used in: Chapter 7 ("Mixtures of Gaussians", "A mixture of candy bags", "Bayesian
    networks with missing values"), Chapter 8 ("Learning the parameters: Baum-Welch").

    Examples
    --------
    EM for the mean of one Gaussian (the M step is exact at once, so the second gain
    is zero and EM stops after one more M step):

    >>> x = np.array([1.0, 2.0, 6.0])
    >>> def e_step(mu):
    ...     return float(np.sum(-0.5 * (x - mu) ** 2 - 0.5 * np.log(2 * np.pi))), x
    >>> result = run_em(e_step, lambda mu, xs: xs.mean(), 0.0, n_obs=len(x), tol=1e-6)
    >>> float(result.params), result.n_iter, result.converged
    (3.0, 3, True)
    >>> np.round(result.log_likelihoods, 3)
    array([-23.257,  -9.757,  -9.757,  -9.757])
    """
    n_obs = check_scalar(n_obs, "n_obs", low=0, closed="neither")
    n_iter = check_scalar(n_iter, "n_iter", kind="integer", low=0)
    tol = check_scalar(tol, "tol", low=0)
    log_likelihoods, converged = [], False
    for t in range(n_iter + 1):
        log_likelihood, stats = e_step(params)
        log_likelihoods.append(float(log_likelihood))
        gain = (log_likelihoods[-1] - log_likelihoods[-2]) / n_obs if t else np.inf
        if monotone and gain < -ROUNDING:
            warnings.warn(f"EM lowered the log likelihood at iteration {t}: from "
                          f"{log_likelihoods[-2]!r} to {log_likelihoods[-1]!r}, a fall of "
                          f"{-gain:.3g} per observation (more than rounding, {ROUNDING:.1e}); "
                          "an E or M step is not exact", ConvergenceWarning, stacklevel=3)
        if converged or t == n_iter:
            break
        converged = tol > 0 and gain < tol
        params = m_step(params, stats)
    return EMResult(params, stats, np.array(log_likelihoods), len(log_likelihoods) - 1, converged)
