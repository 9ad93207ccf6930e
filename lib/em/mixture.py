"""Mixtures of Gaussians fitted by EM.

Chapter 7, sections "Mixtures of Gaussians" (:class:`GaussianMixture`,
:func:`gaussian_log_densities`, :func:`sample_mixture`, :func:`mixture_log_likelihood`),
"When EM goes wrong" and "Try it yourself" (:func:`em_history`). Figures:
:mod:`lib.plots.em`.

Every EM routine here works in log space (responsibilities are normalised with
``scipy.special.logsumexp``); :class:`GaussianMixture` runs the course's one EM loop,
:func:`lib.em.run_em`, and records the log likelihood of the data once per E step:
entry ``t`` of ``log_likelihoods_`` is the log likelihood of the whole data set under
the parameters reached after ``t`` EM iterations (entry 0 is the starting point, the
last entry the fitted model). Without a prior or a variance floor this sequence never
decreases.
"""
import numpy as np
from scipy.special import logsumexp

from lib._validation import (
    check_array,
    check_is_fitted,
    check_mixture,
    check_option,
    check_points,
    check_probability_vector,
    check_rng,
    check_scalar,
)

from .loop import run_em

__all__ = ["GaussianMixture", "gaussian_log_densities", "mixture_log_likelihood",
           "sample_mixture", "em_history"]

LOG_2PI = np.log(2.0 * np.pi)
COVARIANCE_TYPES = ("full", "diag", "spherical")


def _cholesky_precisions(covariances, covariance):
    """Return the 'precision Cholesky' factors: for full covariances the upper
    triangular ``P`` with ``P @ P.T = inv(Sigma)``; for diag / spherical 1/sqrt(var)."""
    if covariance == "full":
        try:
            L = np.linalg.cholesky(covariances)
        except np.linalg.LinAlgError:
            raise ValueError("a covariance matrix is singular or not positive definite "
                             "(a component collapsed?); use reg > 0") from None
        d = covariances.shape[-1]
        eye = np.broadcast_to(np.eye(d), covariances.shape)
        return np.linalg.solve(L, eye).transpose(0, 2, 1)
    if np.any(covariances <= 0) or not np.all(np.isfinite(covariances)):
        raise ValueError("a variance is zero or negative (a component collapsed?); "
                         "use reg > 0")
    return 1.0 / np.sqrt(covariances)


def gaussian_log_densities(X, means, prec_chol, covariance="full"):
    """Log densities ``log N(x_i | mu_j, Sigma_j)`` as an (n, k) array.

    Uses the Cholesky factor of each precision matrix (from the Cholesky factor of
    the covariance): with ``y = (x - mu) @ P``, the Mahalanobis distance is
    ``|y|^2`` and ``log|Sigma|^(-1/2)`` is the sum of ``log diag(P)``.

    Used in: Chapter 7, section "Mixtures of Gaussians".
    """
    d = X.shape[1]
    if covariance == "full":
        y = X @ prec_chol - (means[:, None, :] @ prec_chol)       # (k, n, d)
        maha = np.einsum("knd,knd->nk", y, y)
        half_logdet = np.log(np.diagonal(prec_chol, axis1=1, axis2=2)).sum(1)
    elif covariance == "diag":
        maha = (((X[:, None, :] - means[None]) * prec_chol[None]) ** 2).sum(-1)
        half_logdet = np.log(prec_chol).sum(1)
    else:  # spherical
        maha = ((X[:, None, :] - means[None]) ** 2).sum(-1) * prec_chol[None] ** 2
        half_logdet = d * np.log(prec_chol)
    return -0.5 * (d * LOG_2PI + maha) + half_logdet


def _covariance_shape(covariance, k, d):
    return {"full": (k, d, d), "diag": (k, d), "spherical": (k,)}[covariance]


class GaussianMixture:
    """A mixture of ``k`` multivariate Gaussians fitted by EM.

    E step: responsibilities ``p_ij = P(C = j | x_i)`` in log space. M step:
    ``n_j = sum_i p_ij``, ``w_j = n_j / N``, ``mu_j = sum_i p_ij x_i / n_j`` and
    ``Sigma_j = sum_i p_ij (x_i - mu_j)(x_i - mu_j)^T / n_j + reg * I``.

    Used in: Chapter 7, sections "Mixtures of Gaussians" and "When EM goes wrong".

    Parameters
    ----------
    n_components : int
        The number of components k.
    covariance : {'full', 'diag', 'spherical'}
        The form of each covariance matrix.
    n_iter : int
        The maximum number of EM iterations.
    tol : float
        Convergence threshold on the gain in mean log likelihood per point; once an
        iteration gains less, one more M step is made and EM stops (the rule of
        :func:`lib.em.run_em`, scikit-learn's; ``tol=0`` runs exactly ``n_iter`` iterations).
    reg : float >= 0
        Added to the diagonal of every covariance after each M step: a variance floor
        that stops a component from collapsing onto one point. With ``reg > 0`` the M
        step is no longer the exact maximiser, so the "never decreases" guarantee holds
        only up to effects of order ``reg``.
    init : 'random', 'kmeans++' or dict
        A dict holds arrays 'weights' (k,), 'means' (k, d) and 'covariances' (shape as
        ``covariances_``) or 'precisions'.
    n_init : int
        Number of random restarts; the run with the highest final log likelihood is kept.
    random_state : int, numpy Generator or None

    Attributes
    ----------
    weights_, means_, covariances_
        The fitted parameters (``covariances_`` has shape (k, d, d), (k, d) or (k,) for
        'full', 'diag', 'spherical').
    log_likelihoods_ : numpy.ndarray
        Shape ``(n_iter_ + 1,)``: entry t is the total log likelihood of the data after
        t iterations (entry 0: the starting parameters; the last: the fitted model).
    n_iter_ : int
        The number of EM iterations run.
    converged_ : bool
        Whether ``tol`` stopped it.
    lower_bounds_ : numpy.ndarray
        Shape ``(n_iter_,)``: scikit-learn's ``lower_bounds_``: the mean log likelihood per point in the E
        step of each iteration, ``log_likelihoods_[:-1] / n``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (100, 2)), rng.normal(6, 1, (100, 2))]
    >>> gm = GaussianMixture(2, random_state=0).fit(X)
    >>> [int(round(m)) for m in np.sort(gm.means_[:, 0])]
    [0, 6]
    >>> labels = gm.predict([[0, 0], [6, 6]])  # one point near each mean
    >>> bool(labels[0] != labels[1])
    True
    """

    def __init__(self, n_components=1, covariance="full", n_iter=100, tol=1e-3,
                 reg=1e-6, init="kmeans++", n_init=1, random_state=None):
        self.n_components = n_components
        self.covariance = covariance
        self.n_iter = n_iter
        self.tol = tol
        self.reg = reg
        self.init = init
        self.n_init = n_init
        self.random_state = random_state

    # -- initialisation
    def _initial_parameters(self, X, rng):
        n, d = X.shape
        k, cov = self.n_components, self.covariance
        if isinstance(self.init, dict):
            return self._parameters_from_dict(self.init, k, d)
        if self.init == "random":
            means = X[rng.choice(n, size=k, replace=False)]
        else:  # k-means++ seeding: each new mean is a point drawn with prob ~ distance^2
            means = [X[rng.integers(n)]]
            for _ in range(1, k):
                d2 = ((X[:, None, :] - np.array(means)[None]) ** 2).sum(-1).min(1)
                total = d2.sum()
                p = d2 / total if total > 0 else np.full(n, 1.0 / n)
                means.append(X[rng.choice(n, p=p)])
            means = np.array(means)
        var = X.var(0) + self.reg
        if cov == "full":
            c = np.atleast_2d(np.cov(X, rowvar=False, bias=True)) + self.reg * np.eye(d)
            if np.linalg.matrix_rank(c) < d:
                c = np.diag(np.where(var > 0, var, 1.0))
            covs = np.repeat(c[None], k, axis=0)
        elif cov == "diag":
            covs = np.repeat(np.where(var > 0, var, 1.0)[None], k, axis=0)
        else:
            v = var.mean()
            covs = np.full(k, v if v > 0 else 1.0)
        return np.full(k, 1.0 / k), means.astype(float), covs

    def _parameters_from_dict(self, init, k, d):
        unknown = set(init) - {"weights", "means", "covariances", "precisions"}
        if unknown:
            raise ValueError(f"init has unknown keys {sorted(unknown)}")
        for key in ("weights", "means"):
            if key not in init:
                raise ValueError(f"init dict needs {key!r}")
        if ("covariances" in init) == ("precisions" in init):
            raise ValueError("init dict needs exactly one of 'covariances', 'precisions'")
        w = check_probability_vector(init["weights"], "init['weights']", size=k)
        m = check_array(init["means"], "init['means']", ndim=2)
        key = "covariances" if "covariances" in init else "precisions"
        c = check_array(init[key], f"init[{key!r}]")
        shape = _covariance_shape(self.covariance, k, d)
        if w.shape != (k,):
            raise ValueError(f"init weights have shape {w.shape}, expected ({k},)")
        if m.shape != (k, d):
            raise ValueError(f"init means have shape {m.shape}, expected ({k}, {d})")
        if c.shape != shape:
            raise ValueError(f"init {key} have shape {c.shape}, expected {shape}")
        if key == "precisions":
            c = np.linalg.inv(c) if self.covariance == "full" else 1.0 / c
        return w, m, c

    # -- the two steps
    def _e_step(self, X, weights, means, prec_chol):
        with np.errstate(divide="ignore"):
            log_w = np.log(weights)
        log_p = gaussian_log_densities(X, means, prec_chol, self.covariance) + log_w
        log_norm = logsumexp(log_p, axis=1)
        return log_norm, log_p - log_norm[:, None]

    def _m_step(self, X, resp):
        nk = resp.sum(0) + 10 * np.finfo(float).eps
        means = resp.T @ X / nk[:, None]
        if self.covariance == "full":
            diff = X[None] - means[:, None]                          # (k, n, d)
            covs = (resp.T[:, None, :] * diff.transpose(0, 2, 1)) @ diff / nk[:, None, None]
            d = X.shape[1]
            covs[:, np.arange(d), np.arange(d)] += self.reg
        else:
            sq = resp.T @ (X * X) / nk[:, None] - means**2
            sq = np.maximum(sq, 0.0) + self.reg
            covs = sq if self.covariance == "diag" else sq.mean(1)
        return nk / nk.sum(), means, covs

    def _run(self, X, params):
        """One EM run from ``params`` by the course's loop (:func:`lib.em.run_em`)."""
        def e_step(params):
            log_norm, log_resp = self._e_step(X, params[0], params[1], params[3])
            return log_norm.sum(), np.exp(log_resp)

        def m_step(params, resp):
            weights, means, covs = self._m_step(X, resp)
            return weights, means, covs, _cholesky_precisions(covs, self.covariance)

        weights, means, covs = params
        params = (weights, means, covs, _cholesky_precisions(covs, self.covariance))
        return run_em(e_step, m_step, params, len(X), self.n_iter, self.tol,
                      monotone=self.reg == 0)

    def fit(self, X):
        """Fit the mixture to ``X`` (n, d) by EM (with ``n_init`` restarts)."""
        X = check_points(X)
        k = check_scalar(self.n_components, "n_components", kind="integer", low=1)
        if k > X.shape[0]:
            raise ValueError(f"n_components={k} is larger than n_samples={X.shape[0]}")
        check_option(self.covariance, "covariance", COVARIANCE_TYPES)
        check_scalar(self.n_iter, "n_iter", kind="integer", low=0)
        check_scalar(self.tol, "tol", low=0)
        check_scalar(self.reg, "reg", low=0)
        check_scalar(self.n_init, "n_init", kind="integer", low=1)
        if not isinstance(self.init, dict):
            check_option(self.init, "init", ("random", "kmeans++"))
        rng = check_rng(self.random_state)
        n_init = 1 if isinstance(self.init, dict) else self.n_init
        runs = (self._run(X, self._initial_parameters(X, rng)) for _ in range(n_init))
        best = None
        for run in runs:   # the first of the runs with the highest final log likelihood
            if best is None or run.log_likelihoods[-1] > best.log_likelihoods[-1]:
                best = run
        self.weights_, self.means_, self.covariances_, self.precisions_cholesky_ = best.params
        self.log_likelihoods_, self.n_iter_, self.converged_ = (
            best.log_likelihoods, best.n_iter, best.converged)
        # scikit-learn's convention: mean log likelihood per point, computed in the
        # E step of each iteration (before its M step)
        self.lower_bounds_ = self.log_likelihoods_[:-1] / X.shape[0]
        return self

    # -- using the fitted model
    def _fitted_input(self, X):
        """``X`` checked against the fitted model (which must exist)."""
        check_is_fitted(self, "means_")
        X = check_points(X)
        if X.shape[1] != self.means_.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features, the model {self.means_.shape[1]}")
        return X

    def score_samples(self, X):
        """Log density ``log p(x_i)`` of each row of ``X`` under the fitted mixture."""
        X = self._fitted_input(X)
        return self._e_step(X, self.weights_, self.means_, self.precisions_cholesky_)[0]

    def score(self, X):
        """Mean log likelihood per point (as scikit-learn's ``score``)."""
        return float(self.score_samples(X).mean())

    def predict_proba(self, X):
        """Responsibilities ``P(C = j | x_i)``, an (n, k) array whose rows sum to 1."""
        X = self._fitted_input(X)
        return np.exp(self._e_step(X, self.weights_, self.means_,
                                   self.precisions_cholesky_)[1])

    def predict(self, X):
        """The most probable component of each row of ``X``."""
        return self.predict_proba(X).argmax(1)


def mixture_log_likelihood(X, weights, means, covariances):
    """Total log likelihood of ``X`` under a full-covariance Gaussian mixture.

    Used in: Chapter 7, section "Mixtures of Gaussians" (the true model's line).
    """
    X = check_points(X)
    weights, means, covariances = check_mixture(weights, means, covariances, X.shape[1])
    prec = _cholesky_precisions(covariances, "full")
    log_p = gaussian_log_densities(X, means, prec) + np.log(weights)
    return float(logsumexp(log_p, axis=1).sum())


def sample_mixture(n, weights, means, covariances, rng=None):
    """Draw ``n`` points from a full-covariance Gaussian mixture.

    Returns ``(X, z)``: the points and the index of the component that drew each.
    Used in: Chapter 7, section "Mixtures of Gaussians"; Chapter 9, section "A sample
    from a mixture" (``sample_mixture(128, *MIXTURE, rng=1)``, :mod:`lib.density`).
    """
    n = check_scalar(n, "n", kind="integer", low=1)
    rng = check_rng(rng)
    weights, means, covariances = check_mixture(weights, means, covariances)
    z = rng.choice(len(weights), size=n, p=weights)
    eps = rng.standard_normal((n, means.shape[1]))
    return means[z] + np.einsum("nij,nj->ni", np.linalg.cholesky(covariances)[z], eps), z


_HISTORY = {}


def em_history(X, k, seed, n_iter, reg=1e-6):
    """Every step of a full-covariance EM run from the 'random' start of ``seed``:
    a list of ``(weights, means, covariances, responsibilities, log_likelihood)``,
    entry t after t iterations (the same run as ``GaussianMixture(k, n_iter=n_iter,
    reg=reg, init='random', random_state=seed, tol=0)``). Results are cached, so
    moving the iteration slider of the interactive figure only redraws.
    Used in: Chapter 7, section "Try it yourself"."""
    X = check_points(X)
    k = check_scalar(k, "k", kind="integer", low=1, high=len(X))
    n_iter = check_scalar(n_iter, "n_iter", kind="integer", low=0)
    reg = check_scalar(reg, "reg", low=0)
    key = (X.shape, hash(X.tobytes()), int(k), int(seed), int(n_iter), float(reg))
    if key not in _HISTORY:
        gm = GaussianMixture(int(k), n_iter=int(n_iter), tol=0, reg=reg, init="random",
                             random_state=int(seed))
        w, m, c = gm._initial_parameters(X, check_rng(int(seed)))
        hist = []
        for t in range(int(n_iter) + 1):
            log_norm, log_resp = gm._e_step(X, w, m, _cholesky_precisions(c, "full"))
            resp = np.exp(log_resp)
            hist.append((w, m, c, resp, float(log_norm.sum())))
            if t < n_iter:
                w, m, c = gm._m_step(X, resp)
        if len(_HISTORY) >= 64:
            _HISTORY.clear()
        _HISTORY[key] = hist
    return _HISTORY[key]
