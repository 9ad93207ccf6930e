"""Expectation maximization (EM): mixtures of Gaussians, mixtures of naive Bayes
models and Bayesian networks with missing values.

Used in: Chapter 7, "Expectation maximization" (``chapters/07_em.md``).

Every EM routine here works in log space (responsibilities are normalised with
:func:`scipy.special.logsumexp`) and records the log likelihood of the data once per
iteration: entry ``t`` of ``log_likelihood_`` is the log likelihood of the whole data
set under the parameters reached after ``t`` EM iterations (entry 0 is the starting
point). Without a prior or a variance floor this sequence never decreases.
"""
from collections import namedtuple

import numpy as np
from scipy.special import logsumexp

LOG_2PI = np.log(2.0 * np.pi)
COVARIANCE_TYPES = ("full", "diag", "spherical")


# --------------------------------------------------------------------------- checks
def _check_data(X, ndim=2, name="X"):
    """Return ``X`` as a float array of ``ndim`` dimensions or raise ValueError."""
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be numeric: {err}") from None
    if ndim == 2 and X.ndim == 1:
        X = X[:, None]
    if X.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {X.shape}")
    if X.size == 0 or X.shape[0] == 0:
        raise ValueError(f"{name} is empty (shape {X.shape})")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return X


def _rng(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(random_state)


# ------------------------------------------------------- EM for k means, known variance
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
    x = np.asarray(x, dtype=float)
    one_d = x.ndim == 1
    X = _check_data(x, name="x")
    mu = np.asarray(means_init, dtype=float)
    mu = mu[:, None] if mu.ndim == 1 and one_d else mu
    if mu.ndim != 2 or mu.shape[1] != X.shape[1] or mu.shape[0] == 0:
        raise ValueError(f"means_init has shape {np.shape(means_init)}, expected (k,) "
                         f"or (k, {X.shape[1]})")
    if not np.all(np.isfinite(mu)):
        raise ValueError("means_init contains NaN or infinite values")
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a positive number, got {sigma}")
    if int(n_iter) != n_iter or n_iter < 0:
        raise ValueError(f"n_iter must be a non-negative integer, got {n_iter}")
    n, d = X.shape
    k = mu.shape[0]
    means, resps, lls = [mu], [], []
    for t in range(int(n_iter) + 1):
        sq = ((X[:, None, :] - mu[None]) ** 2).sum(-1)            # (n, k)
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


# ------------------------------------------------------------------ Gaussian densities
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
    n_components : int, the number of components k.
    covariance : {'full', 'diag', 'spherical'}, the form of each covariance matrix.
    n_iter : int, the maximum number of EM iterations.
    tol : float, convergence threshold on the gain in mean log likelihood per point;
        once an iteration gains less, one more iteration is made and EM stops (the
        rule of scikit-learn's ``GaussianMixture``; ``tol=0`` runs exactly
        ``n_iter`` iterations).
    reg : float >= 0, added to the diagonal of every covariance after each M step: a
        variance floor that stops a component from collapsing onto one point. With
        ``reg > 0`` the M step is no longer the exact maximiser, so the "never
        decreases" guarantee holds only up to effects of order ``reg``.
    init : 'random', 'kmeans++' or a dict with arrays 'weights' (k,), 'means' (k, d)
        and 'covariances' (shape as ``covariances_``) or 'precisions'.
    n_init : int, number of random restarts; the run with the highest final log
        likelihood is kept.
    random_state : int, numpy Generator or None.

    Attributes
    ----------
    weights_, means_, covariances_ : fitted parameters (covariances_ has shape
        (k, d, d), (k, d) or (k,) for 'full', 'diag', 'spherical').
    log_likelihood_ : (n_iter_ + 1,) array; entry t is the total log likelihood of
        the data after t iterations (entry 0: the starting parameters).
    n_iter_ : number of EM iterations run; converged_ : whether ``tol`` stopped it.
    lower_bounds_ : (n_iter_,) array, scikit-learn's ``lower_bounds_``: the mean log
        likelihood per point in the E step of each iteration, ``log_likelihood_[:-1] / n``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (100, 2)), rng.normal(6, 1, (100, 2))]
    >>> gm = GaussianMixture(2, random_state=0).fit(X)
    >>> [int(round(m)) for m in np.sort(gm.means_[:, 0])]
    [0, 6]
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

    # -- checks and initialisation
    def _check_params(self, X):
        k = self.n_components
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"n_components must be a positive integer, got {k!r}")
        if k > X.shape[0]:
            raise ValueError(f"n_components={k} is larger than n_samples={X.shape[0]}")
        if self.covariance not in COVARIANCE_TYPES:
            raise ValueError(f"covariance must be one of {COVARIANCE_TYPES}, "
                             f"got {self.covariance!r}")
        if not isinstance(self.n_iter, (int, np.integer)) or self.n_iter < 0:
            raise ValueError(f"n_iter must be a non-negative integer, got {self.n_iter!r}")
        if not (np.isfinite(self.tol) and self.tol >= 0):
            raise ValueError(f"tol must be >= 0, got {self.tol!r}")
        if not (np.isfinite(self.reg) and self.reg >= 0):
            raise ValueError(f"reg must be >= 0, got {self.reg!r}")
        if not isinstance(self.n_init, (int, np.integer)) or self.n_init < 1:
            raise ValueError(f"n_init must be a positive integer, got {self.n_init!r}")
        if not (isinstance(self.init, dict) or self.init in ("random", "kmeans++")):
            raise ValueError(f"init must be 'random', 'kmeans++' or a dict of arrays, "
                             f"got {self.init!r}")

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
        w = np.asarray(init["weights"], dtype=float)
        m = np.asarray(init["means"], dtype=float)
        key = "covariances" if "covariances" in init else "precisions"
        c = np.asarray(init[key], dtype=float)
        shape = _covariance_shape(self.covariance, k, d)
        if w.shape != (k,):
            raise ValueError(f"init weights have shape {w.shape}, expected ({k},)")
        if m.shape != (k, d):
            raise ValueError(f"init means have shape {m.shape}, expected ({k}, {d})")
        if c.shape != shape:
            raise ValueError(f"init {key} have shape {c.shape}, expected {shape}")
        for name, a in (("weights", w), ("means", m), (key, c)):
            if not np.all(np.isfinite(a)):
                raise ValueError(f"init {name} contain NaN or infinite values")
        if np.any(w < 0) or not np.isclose(w.sum(), 1.0):
            raise ValueError("init weights must be non-negative and sum to 1")
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
        weights, means, covs = params
        prec = _cholesky_precisions(covs, self.covariance)
        n = X.shape[0]
        lls, converged = [], False
        for t in range(self.n_iter + 1):
            log_norm, log_resp = self._e_step(X, weights, means, prec)
            lls.append(log_norm.sum())
            if converged or t == self.n_iter:
                break
            # as in scikit-learn: once the gain is below tol, one last M step is made
            if t > 0 and self.tol > 0 and abs(lls[-1] - lls[-2]) / n < self.tol:
                converged = True
            weights, means, covs = self._m_step(X, np.exp(log_resp))
            prec = _cholesky_precisions(covs, self.covariance)
        return (weights, means, covs, prec), np.array(lls), converged

    def fit(self, X):
        """Fit the mixture to ``X`` (n, d) by EM (with ``n_init`` restarts)."""
        X = _check_data(X)
        self._check_params(X)
        rng = _rng(self.random_state)
        best = None
        n_init = 1 if isinstance(self.init, dict) else self.n_init
        for _ in range(n_init):
            params, lls, converged = self._run(X, self._initial_parameters(X, rng))
            if best is None or lls[-1] > best[1][-1]:
                best = (params, lls, converged)
        (self.weights_, self.means_, self.covariances_, self.precisions_cholesky_), \
            self.log_likelihood_, self.converged_ = best
        self.n_iter_ = len(self.log_likelihood_) - 1
        # scikit-learn's convention: mean log likelihood per point, computed in the
        # E step of each iteration (before its M step)
        self.lower_bounds_ = self.log_likelihood_[:-1] / X.shape[0]
        return self

    # -- using the fitted model
    def _check_fitted(self, X):
        if not hasattr(self, "means_"):
            raise ValueError("this GaussianMixture is not fitted yet; call fit first")
        X = _check_data(X)
        if X.shape[1] != self.means_.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features, the model {self.means_.shape[1]}")
        return X

    def score_samples(self, X):
        """Log density ``log p(x_i)`` of each row of ``X`` under the fitted mixture."""
        X = self._check_fitted(X)
        return self._e_step(X, self.weights_, self.means_, self.precisions_cholesky_)[0]

    def score(self, X):
        """Mean log likelihood per point (as scikit-learn's ``score``)."""
        return float(self.score_samples(X).mean())

    def predict_proba(self, X):
        """Responsibilities ``P(C = j | x_i)``, an (n, k) array whose rows sum to 1."""
        X = self._check_fitted(X)
        return np.exp(self._e_step(X, self.weights_, self.means_,
                                   self.precisions_cholesky_)[1])

    def predict(self, X):
        """The most probable component of each row of ``X``."""
        return self.predict_proba(X).argmax(1)


def mixture_log_likelihood(X, weights, means, covariances):
    """Total log likelihood of ``X`` under a full-covariance Gaussian mixture.

    Used in: Chapter 7, section "Mixtures of Gaussians" (the true model's line).
    """
    X = _check_data(X)
    covariances = np.asarray(covariances, dtype=float)
    prec = _cholesky_precisions(covariances, "full")
    log_p = gaussian_log_densities(X, np.asarray(means, float), prec) + np.log(weights)
    return float(logsumexp(log_p, axis=1).sum())


def sample_mixture(n, weights, means, covariances, rng):
    """Draw ``n`` points from a full-covariance Gaussian mixture.

    Returns ``(X, z)``: the points and the index of the component that drew each.
    Used in: Chapter 7, section "Mixtures of Gaussians".
    """
    rng = _rng(rng)
    weights = np.asarray(weights, float)
    z = rng.choice(len(weights), size=n, p=weights)
    L = np.linalg.cholesky(np.asarray(covariances, float))
    eps = rng.standard_normal((n, len(means[0])))
    X = np.asarray(means, float)[z] + np.einsum("nij,nj->ni", L[z], eps)
    return X, z


# ------------------------------------------------------- mixtures of naive Bayes models
def _one_hot_columns(X, n_categories):
    return [(X[:, j, None] == np.arange(c)[None]).astype(float)
            for j, c in enumerate(n_categories)]


class MixtureOfNaiveBayes:
    """A mixture of ``k`` naive Bayes models over categorical features, fitted by EM.

    The hidden class ``C`` (the bag, in the candy example) has prior ``weights_``;
    given ``C = j`` the features are independent with ``P(X_f = v | C = j) =
    probs_[f][j, v]``. The E step computes ``P(C = j | x_i)``; the M step sets every
    parameter to its normalised *expected* count (plus ``pseudo_count`` virtual
    counts per value, a Dirichlet prior: MAP-EM).

    Used in: Chapter 7, section "A mixture of candy bags".

    Parameters
    ----------
    n_components : int.
    n_iter, tol : as in :class:`GaussianMixture` (``tol`` is per unit of weight).
    init : 'random' or a dict with 'weights' (k,) and 'probs' (a list with one
        (k, n_categories_f) array per feature, rows summing to one).
    pseudo_count : float >= 0, virtual count added to every (class, value) cell.
    random_state : int, Generator or None.

    Attributes
    ----------
    weights_, probs_, log_likelihood_ (entry t after t iterations, weighted total),
    n_iter_, converged_.

    Examples
    --------
    >>> X, counts = candy_counts()
    >>> init = {"weights": [0.6, 0.4], "probs": [[[0.6, 0.4], [0.4, 0.6]]] * 3}
    >>> m = MixtureOfNaiveBayes(2, n_iter=1, tol=0, init=init).fit(X, sample_weight=counts)
    >>> round(float(m.weights_[0]), 4)
    0.6124
    """

    def __init__(self, n_components=2, n_iter=100, tol=1e-8, init="random",
                 pseudo_count=0.0, random_state=None):
        self.n_components = n_components
        self.n_iter = n_iter
        self.tol = tol
        self.init = init
        self.pseudo_count = pseudo_count
        self.random_state = random_state

    def _check_X(self, X, sample_weight, n_categories=None):
        X = np.asarray(X)
        if X.ndim != 2 or X.size == 0:
            raise ValueError(f"X must be a non-empty 2-D array of category codes, "
                             f"got shape {X.shape}")
        if not np.issubdtype(X.dtype, np.number) or not np.all(np.isfinite(X)):
            raise ValueError("X contains NaN or non-numeric values")
        if np.any(X != np.round(X)) or np.any(X < 0):
            raise ValueError("X must hold non-negative integer category codes")
        X = X.astype(int)
        if n_categories is not None and np.any(X.max(0) >= n_categories):
            raise ValueError("X has a category code the model has not seen")
        if sample_weight is None:
            sw = np.ones(X.shape[0])
        else:
            sw = np.asarray(sample_weight, dtype=float)
            if sw.shape != (X.shape[0],):
                raise ValueError(f"sample_weight has shape {sw.shape}, expected "
                                 f"({X.shape[0]},)")
            if not np.all(np.isfinite(sw)) or np.any(sw < 0) or sw.sum() <= 0:
                raise ValueError("sample_weight must be finite, non-negative, not all 0")
        return X, sw

    def _initial(self, n_categories, rng):
        k = self.n_components
        if isinstance(self.init, dict):
            w = np.asarray(self.init.get("weights"), dtype=float)
            probs = self.init.get("probs")
            if w.shape != (k,) or probs is None or len(probs) != len(n_categories):
                raise ValueError(f"init needs 'weights' of shape ({k},) and one 'probs' "
                                 f"table per feature ({len(n_categories)})")
            probs = [np.asarray(p, dtype=float) for p in probs]
            for f, (p, c) in enumerate(zip(probs, n_categories)):
                if p.shape[0] != k or p.ndim != 2 or p.shape[1] < c:
                    raise ValueError(f"init probs[{f}] has shape {p.shape}, expected "
                                     f"({k}, >= {c})")
                if np.any(p < 0) or not np.allclose(p.sum(1), 1):
                    raise ValueError(f"init probs[{f}] rows must be probabilities "
                                     f"summing to 1")
            if np.any(w < 0) or not np.isclose(w.sum(), 1):
                raise ValueError("init weights must be non-negative and sum to 1")
            return w, probs
        if self.init != "random":
            raise ValueError(f"init must be 'random' or a dict, got {self.init!r}")
        w = rng.dirichlet(np.full(k, 5.0))
        probs = [rng.dirichlet(np.full(c, 5.0), size=k) for c in n_categories]
        return w, probs

    def _log_joint(self, onehots, weights, probs):
        with np.errstate(divide="ignore"):
            log_p = np.log(weights)[None] + sum(o @ np.log(p).T for o, p in zip(onehots, probs))
        return log_p

    def fit(self, X, sample_weight=None):
        """Fit by EM. ``X``: (n, f) integer codes; ``sample_weight``: counts per row."""
        k = self.n_components
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"n_components must be a positive integer, got {k!r}")
        if not isinstance(self.n_iter, (int, np.integer)) or self.n_iter < 0:
            raise ValueError(f"n_iter must be a non-negative integer, got {self.n_iter!r}")
        if not (np.isfinite(self.pseudo_count) and self.pseudo_count >= 0):
            raise ValueError(f"pseudo_count must be >= 0, got {self.pseudo_count!r}")
        X, sw = self._check_X(X, sample_weight)
        if isinstance(self.init, dict):
            n_categories = [max(int(X[:, f].max()) + 1, np.shape(p)[-1])
                            for f, p in enumerate(self.init.get("probs", [[]] * X.shape[1]))]
        else:
            n_categories = list(X.max(0) + 1)
        weights, probs = self._initial(n_categories, _rng(self.random_state))
        n_categories = [p.shape[1] for p in probs]
        onehots = _one_hot_columns(X, n_categories)
        total, a = sw.sum(), self.pseudo_count
        lls, converged = [], False
        for t in range(self.n_iter + 1):
            log_p = self._log_joint(onehots, weights, probs)
            log_norm = logsumexp(log_p, axis=1)
            lls.append(float(sw @ log_norm))
            if t > 0 and self.tol > 0 and (lls[-1] - lls[-2]) / total < self.tol:
                converged = True
                break
            if t == self.n_iter:
                break
            with np.errstate(invalid="ignore"):
                resp = np.exp(log_p - log_norm[:, None]) * sw[:, None]   # expected counts
            resp = np.nan_to_num(resp)
            nk = resp.sum(0)
            weights = nk / nk.sum()
            probs = []
            for o, c in zip(onehots, n_categories):
                counts = resp.T @ o + a                                   # (k, c)
                norm = counts.sum(1, keepdims=True)
                probs.append(np.where(norm > 0, counts / np.where(norm > 0, norm, 1), 1 / c))
        self.weights_, self.probs_ = weights, probs
        self.n_categories_ = n_categories
        self.log_likelihood_ = np.array(lls)
        self.n_iter_ = len(lls) - 1
        self.converged_ = converged
        return self

    def score_samples(self, X):
        """``log P(x_i)`` of each row under the fitted mixture."""
        if not hasattr(self, "weights_"):
            raise ValueError("this MixtureOfNaiveBayes is not fitted yet; call fit first")
        X, _ = self._check_X(X, None, np.array(self.n_categories_))
        log_p = self._log_joint(_one_hot_columns(X, self.n_categories_), self.weights_,
                                self.probs_)
        return logsumexp(log_p, axis=1)

    def predict_proba(self, X):
        """``P(C = j | x_i)`` for each row of ``X``."""
        if not hasattr(self, "weights_"):
            raise ValueError("this MixtureOfNaiveBayes is not fitted yet; call fit first")
        X, _ = self._check_X(X, None, np.array(self.n_categories_))
        log_p = self._log_joint(_one_hot_columns(X, self.n_categories_), self.weights_,
                                self.probs_)
        return np.exp(log_p - logsumexp(log_p, axis=1, keepdims=True))

    def score(self, X, sample_weight=None):
        """Total (weighted) log likelihood of ``X``."""
        X, sw = self._check_X(X, sample_weight)
        return float(sw @ self.score_samples(X))


def candy_counts():
    """The 1000 candies of the two-bag candy mixture, as 8 distinct rows and counts.

    Columns: Flavor (0 = cherry, 1 = lime), Wrapper (0 = red, 1 = green),
    Hole (0 = hole, 1 = no hole). Counts from the table in source document 004, section
    20.3.2: 273, 93, 104, 90 (cherry) and 79, 100, 94, 167 (lime), in the order
    (red, hole), (red, no hole), (green, hole), (green, no hole).

    Used in: Chapter 7, section "A mixture of candy bags".
    """
    X = np.array([(f, w, h) for f in (0, 1) for w in (0, 1) for h in (0, 1)])
    counts = np.array([273, 93, 104, 90, 79, 100, 94, 167], dtype=float)
    return X, counts


def candy_parameters(theta, f1, w1, h1, f2, w2, h2):
    """The candy mixture's seven numbers as an ``init`` dict for MixtureOfNaiveBayes.

    ``theta = P(Bag = 1)``; ``f1 = P(cherry | Bag 1)``, ``w1 = P(red | Bag 1)``,
    ``h1 = P(hole | Bag 1)``, and the same for bag 2.
    Used in: Chapter 7, section "A mixture of candy bags".
    """
    probs = [np.array([[a, 1 - a], [b, 1 - b]]) for a, b in ((f1, f2), (w1, w2), (h1, h2))]
    return {"weights": np.array([theta, 1 - theta]), "probs": probs}


def candy_theta(model):
    """The seven candy numbers (theta, thetaF1, thetaW1, thetaH1, thetaF2, thetaW2,
    thetaH2) of a fitted two-bag MixtureOfNaiveBayes, as a dict."""
    p = model.probs_
    values = {"theta": model.weights_[0],
              "F1": p[0][0, 0], "W1": p[1][0, 0], "H1": p[2][0, 0],
              "F2": p[0][1, 0], "W2": p[1][1, 0], "H2": p[2][1, 0]}
    return {key: float(v) for key, v in values.items()}


# ------------------------------------------ Bayesian networks with missing values
NetworkEM = namedtuple("NetworkEM", ["cpts", "log_likelihood", "expected_counts"])
NetworkEM.__doc__ = """Result of :func:`em_network`.

cpts : dict variable -> array of shape (card(parent 1), ..., card(variable)).
log_likelihood : (n_iter + 1,) array of log P(observed data), entry t after t steps.
expected_counts : dict variable -> the expected counts of the last E step.
"""

def _is_missing(v):
    """None, '?' (as in the tables of the source) and NaN mark a missing value."""
    return v is None or (isinstance(v, str) and v == "?") or (
        isinstance(v, float) and np.isnan(v))


def _encode_rows(data, variables, states):
    """Rows (dicts or sequences) -> (m, n) int array with -1 for a missing value."""
    rows = list(data.to_dict("records")) if hasattr(data, "to_dict") else list(data)
    if not rows:
        raise ValueError("data is empty")
    index = {v: {s: i for i, s in enumerate(states[v])} for v in variables}
    out = np.full((len(rows), len(variables)), -1, dtype=int)
    for r, row in enumerate(rows):
        if isinstance(row, dict):
            unknown = set(row) - set(variables)
            if unknown:
                raise ValueError(f"row {r} has unknown variables {sorted(unknown)}")
            values = [row.get(v) for v in variables]
        else:
            values = list(row)
            if len(values) != len(variables):
                raise ValueError(f"row {r} has {len(values)} values, expected "
                                 f"{len(variables)}")
        for c, (v, x) in enumerate(zip(variables, values)):
            if _is_missing(x):
                continue
            if x not in index[v]:
                raise ValueError(f"row {r}: {x!r} is not a state of {v!r} "
                                 f"(states: {list(states[v])})")
            out[r, c] = index[v][x]
    return out


def _check_network(variables, states, parents, cpts):
    variables = list(variables)
    if len(set(variables)) != len(variables):
        raise ValueError("variable names must be unique")
    for v in variables:
        for p in parents.get(v, []):
            if p not in variables:
                raise ValueError(f"parent {p!r} of {v!r} is not a variable")
        shape = tuple(len(states[p]) for p in parents.get(v, [])) + (len(states[v]),)
        t = np.asarray(cpts[v], dtype=float)
        if t.shape != shape:
            raise ValueError(f"CPT of {v!r} has shape {t.shape}, expected {shape}")
        if np.any(t < 0) or not np.allclose(t.sum(-1), 1.0):
            raise ValueError(f"CPT rows of {v!r} must be probabilities summing to 1")
    return variables


def _log_joint_table(variables, states, parents, cpts):
    """log P(x_1, ..., x_n) as an array with one axis per variable (enumeration)."""
    n = len(variables)
    axis = {v: i for i, v in enumerate(variables)}
    log_joint = np.zeros([len(states[v]) for v in variables])
    for v in variables:
        fam = [axis[p] for p in parents.get(v, [])] + [axis[v]]
        shape = [1] * n
        t = np.asarray(cpts[v], dtype=float)
        order = np.argsort(fam)
        t = t.transpose(order)
        for a, s in zip(sorted(fam), t.shape):
            shape[a] = s
        with np.errstate(divide="ignore"):
            log_joint = log_joint + np.log(t).reshape(shape)
    return log_joint


def network_expected_counts(variables, states, parents, cpts, data, log_joint=None):
    """E step for a discrete Bayesian network with missing values, by enumeration.

    For every row ``v`` of ``data`` the posterior ``P(H | V = v)`` over the missing
    values is computed from the full joint table, and the expected counts
    ``N^(X_i = x, Pa_i = pi) = sum_t P(X_i = x, Pa_i = pi | v_t)`` are accumulated
    for every family. Exact and fine for small networks (the joint has
    ``prod(card)`` entries).

    Returns ``(counts, log_likelihood)``: a dict of arrays shaped like the CPTs and
    the log likelihood ``sum_t log P(v_t)`` of the observed values.

    Used in: Chapter 7, section "Bayesian networks with missing values".
    """
    variables = list(variables)
    if log_joint is None:
        log_joint = _log_joint_table(variables, states, parents, cpts)
    codes = data if isinstance(data, np.ndarray) else _encode_rows(data, variables, states)
    patterns, mult = np.unique(codes, axis=0, return_counts=True)
    n = len(variables)
    axis = {v: i for i, v in enumerate(variables)}
    post = np.zeros_like(log_joint)
    ll = 0.0
    for pat, m in zip(patterns, mult):
        index = tuple(slice(None) if c < 0 else int(c) for c in pat)
        sub = log_joint[index]
        norm = logsumexp(sub) if sub.size else -np.inf
        if not np.isfinite(norm):
            raise ValueError(f"observed row {pat.tolist()} has probability zero")
        ll += m * norm
        post[index] += m * np.exp(sub - norm)
    counts = {}
    for v in variables:
        fam = [axis[p] for p in parents.get(v, [])] + [axis[v]]
        counts[v] = np.einsum(post, list(range(n)), fam)
    return counts, float(ll)


def em_network(variables, states, parents, cpts, data, n_iter=20, tol=0.0,
               pseudo_count=0.0):
    """EM for the CPTs of a discrete Bayesian network from data with missing values.

    E step: expected counts ``N^(X_i = x, Pa_i = pi)`` (:func:`network_expected_counts`).
    M step: ``P(X_i = x | Pa_i = pi) = N^(x, pi) / N^(pi)`` (plus ``pseudo_count``
    virtual counts per cell, the MAP version). A parent configuration with no
    expected count keeps its old row.

    Parameters
    ----------
    variables : list of names; states : dict name -> list of states;
    parents : dict name -> list of parent names; cpts : dict name -> initial CPT of
    shape (card(parents)..., card(name)); data : rows (dicts or sequences in the order
    of ``variables``, or a DataFrame), a missing value is None, '?' or NaN.

    Returns
    -------
    NetworkEM(cpts, log_likelihood, expected_counts).

    Used in: Chapter 7, section "Bayesian networks with missing values".
    """
    variables = _check_network(variables, states, parents, cpts)
    if not (np.isfinite(pseudo_count) and pseudo_count >= 0):
        raise ValueError(f"pseudo_count must be >= 0, got {pseudo_count!r}")
    if int(n_iter) != n_iter or n_iter < 0:
        raise ValueError(f"n_iter must be a non-negative integer, got {n_iter!r}")
    codes = _encode_rows(data, variables, states)
    cpts = {v: np.asarray(cpts[v], dtype=float).copy() for v in variables}
    lls = []
    for t in range(int(n_iter) + 1):
        counts, ll = network_expected_counts(variables, states, parents, cpts, codes)
        lls.append(ll)
        if t > 0 and tol > 0 and lls[-1] - lls[-2] < tol:
            break
        if t == n_iter:
            break
        for v in variables:
            c = counts[v] + pseudo_count
            norm = c.sum(-1, keepdims=True)
            cpts[v] = np.where(norm > 0, c / np.where(norm > 0, norm, 1.0), cpts[v])
    return NetworkEM(cpts, np.array(lls), counts)


BayesNetEM = namedtuple("BayesNetEM", ["net", "log_likelihood", "expected_counts"])
BayesNetEM.__doc__ = """Result of :func:`em_bayes_net`: the fitted ``lib.bn.BayesNet``
(a copy), the log likelihood of the observed values after 0, 1, ... iterations and
the expected counts of the last E step."""


def em_bayes_net(net, data, n_iter=20, tol=0.0, pseudo_count=0.0):
    """EM for the CPTs of a ``lib.bn.BayesNet`` from data with missing values.

    E step: ``net.expected_counts`` (exact inference in ``lib.bn``) gives
    ``N^(X_i = x, Pa_i = pi) = sum_t P(X_i = x, Pa_i = pi | v_t)`` and the log
    likelihood of the observed values. M step: every CPT row becomes its normalised
    expected counts (plus ``pseudo_count`` per cell: MAP-EM with a Dirichlet prior);
    a parent configuration with no expected count keeps its row. The network passed
    in is not changed; its CPTs are the starting point.

    Parameters
    ----------
    net : lib.bn.BayesNet; data : list of rows (dicts, or sequences in the order of
    ``net.names``) or a DataFrame; None, '?' or NaN mark a missing value.
    n_iter : maximum number of iterations; tol : stop when an iteration gains less.

    Returns
    -------
    BayesNetEM(net, log_likelihood, expected_counts); ``log_likelihood`` has one
    entry per iteration plus the start and never decreases (for pseudo_count=0).

    Used in: Chapter 7, section "Bayesian networks with missing values".
    """
    if not hasattr(net, "expected_counts"):
        raise TypeError("net must be a lib.bn.BayesNet")
    if not (np.isfinite(pseudo_count) and pseudo_count >= 0):
        raise ValueError(f"pseudo_count must be >= 0, got {pseudo_count!r}")
    if int(n_iter) != n_iter or n_iter < 0:
        raise ValueError(f"n_iter must be a non-negative integer, got {n_iter!r}")
    codes = _encode_rows(data, list(net.names), net.states)
    net = net.copy()
    lls = []
    for t in range(int(n_iter) + 1):
        counts, ll = net.expected_counts(codes)                   # E step (lib.bn)
        lls.append(ll)
        if t == n_iter or (t > 0 and tol > 0 and lls[-1] - lls[-2] < tol):
            break
        for v in net.names:                                       # M step
            c = counts[v] + pseudo_count
            norm = c.sum(-1, keepdims=True)
            net.set_cpt(v, np.where(norm > 0, c / np.where(norm > 0, norm, 1.0),
                                    net.cpts[v]))
    return BayesNetEM(net, np.array(lls), counts)


# ----------------------------------------------------------------- the lower bound
def lower_bound_curves(x, means_old, sigma, grid, which=0):
    """The log likelihood and EM's lower bound as functions of one mean.

    For the equal-weight, known-variance mixture of :func:`em_known_variance`, vary
    mean ``which`` over ``grid`` (the other means stay at ``means_old``) and return
    ``(L, B)``: the log likelihood ``L(mu)`` and the bound
    ``B(mu) = sum_i sum_j q_ij [log p(x_i, z_ij = 1 | mu) - log q_ij]`` with ``q_ij``
    the responsibilities computed at ``means_old``. ``B <= L`` everywhere, with
    equality at the old mean; ``B`` is ``Q(mu | mu_old)`` plus a constant.

    Used in: Chapter 7, section "Why EM works".
    """
    x = np.asarray(x, float)
    mu_old = np.asarray(means_old, float)
    k = len(mu_old)
    grid = np.asarray(grid, float)

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


# --------------------------------------------------------------------- plotting
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def _figure(w=6.4, h=3.6):
    import matplotlib.pyplot as plt  # pyplot figures: shown inline once per cell
    return plt.figure(figsize=(w, h), layout="tight")


def plot_known_variance_steps(x, trace, sigma, steps=(0, 1, 2, 5)):
    """One panel per EM iteration in ``steps``: the points at height E[z_i1]
    (the probability that point i belongs to Gaussian 1) and the k Gaussian curves
    at the current means. Used in: Chapter 7, section "EM for k means"."""
    x = np.asarray(x, float)
    fig = _figure(7.2, 1.9 * len(steps))
    axes = fig.subplots(len(steps), 1, sharex=True)
    grid = np.linspace(x.min() - 1.5, x.max() + 1.5, 300)
    k = trace.means.shape[1]
    for ax, t in zip(np.atleast_1d(axes), steps):
        resp = trace.resp[t]
        color = resp[:, :, None] * np.array([_rgb(COLORS[j]) for j in range(k)])[None]
        ax.scatter(x, resp[:, 0], c=np.clip(color.sum(1), 0, 1), s=12, zorder=3)
        dens = np.exp(-(grid[:, None] - trace.means[t][None]) ** 2 / (2 * sigma**2))
        for j in range(k):
            ax.plot(grid, dens[:, j], color=COLORS[j], lw=1.5)
            ax.axvline(trace.means[t][j], color=COLORS[j], ls=":", lw=1)
        ax.set_ylim(-0.08, 1.08)
        ax.set_ylabel(r"$E[z_{i1}]$")
        ax.set_title(f"iteration {t}: means " +
                     ", ".join(f"{m:.2f}" for m in trace.means[t]) +
                     f";  log likelihood {trace.log_likelihood[t]:.1f}", fontsize=9)
    np.atleast_1d(axes)[-1].set_xlabel("$x$")
    return fig


def _rgb(hex_color):
    return np.array([int(hex_color[i:i + 2], 16) / 255 for i in (1, 3, 5)])


def plot_mean_paths(trace, true_means=None):
    """The means of :func:`em_known_variance` against the iteration number, and the
    log likelihood. Used in: Chapter 7, section "EM for k means"."""
    fig = _figure(7.2, 3.0)
    ax1, ax2 = fig.subplots(1, 2)
    it = np.arange(len(trace.means))
    for j in range(trace.means.shape[1]):
        ax1.plot(it, trace.means[:, j], "o-", ms=3, color=COLORS[j], label=fr"$\mu_{j + 1}$")
        if true_means is not None:
            ax1.axhline(true_means[j], color=COLORS[j], ls="--", lw=0.8)
    ax1.set_xlabel("iteration")
    ax1.set_ylabel("mean")
    ax1.legend(fontsize=8)
    ax2.plot(it, trace.log_likelihood, "o-", ms=3, color="k")
    ax2.set_xlabel("iteration")
    ax2.set_ylabel("log likelihood")
    return fig


def _density_grid(weights, means, covariances, xlim, ylim, n=120):
    gx, gy = np.meshgrid(np.linspace(*xlim, n), np.linspace(*ylim, n))
    P = np.c_[gx.ravel(), gy.ravel()]
    prec = _cholesky_precisions(np.asarray(covariances, float), "full")
    lp = gaussian_log_densities(P, np.asarray(means, float), prec) + np.log(weights)
    return gx, gy, np.exp(logsumexp(lp, axis=1)).reshape(gx.shape)


def _limits(X, pad=0.8):
    lo, hi = X.min(0) - pad, X.max(0) + pad
    return (lo[0], hi[0]), (lo[1], hi[1])


def plot_mixture_recovery(X, true, fitted):
    """Three panels as in Figure 20.11 of the source: the true mixture density, the
    sample, and the mixture EM recovered. ``true`` and ``fitted`` are tuples
    ``(weights, means, covariances)``. Used in: Chapter 7, "Mixtures of Gaussians"."""
    fig = _figure(9.6, 3.3)
    axes = fig.subplots(1, 3, sharex=True, sharey=True)
    xlim, ylim = _limits(X)
    for ax, params, title in ((axes[0], true, "(a) true mixture"),
                              (axes[2], fitted, "(c) mixture found by EM")):
        gx, gy, dens = _density_grid(*params, xlim, ylim)
        ax.contourf(gx, gy, dens, levels=12, cmap="Blues")
        for j, (w, m) in enumerate(zip(params[0], params[1])):
            ax.annotate(f"{w:.2f}", m, ha="center", va="center", fontsize=8,
                        color="k", bbox=dict(fc="w", alpha=0.7, lw=0))
        ax.set_title(title, fontsize=10)
    axes[1].scatter(X[:, 0], X[:, 1], s=5, color="k")
    axes[1].set_title(f"(b) {len(X)} sampled points", fontsize=10)
    for ax in axes:
        ax.set_xlim(xlim)
        ax.set_ylim(ylim)
        ax.set_xlabel("$x_1$")
    axes[0].set_ylabel("$x_2$")
    return fig


def plot_log_likelihood(log_likelihood, true_log_likelihood=None, ax=None, label=None,
                        start=0):
    """Log likelihood against the EM iteration, with the true model's value as a
    horizontal line (as in Figure 20.12 of the source).
    Used in: Chapter 7, sections "Mixtures of Gaussians" and "A mixture of candy bags".
    """
    fig = None
    if ax is None:
        fig = _figure(5.0, 3.2)
        ax = fig.subplots()
    it = np.arange(len(log_likelihood))[start:]
    ax.plot(it, np.asarray(log_likelihood)[start:], "o-", ms=3, color=COLORS[0],
            label=label or "EM")
    if true_log_likelihood is not None:
        ax.axhline(true_log_likelihood, color="k", ls="--", lw=1,
                   label=f"true model ({true_log_likelihood:.1f})")
    ax.set_xlabel("iteration")
    ax.set_ylabel("log likelihood $L$")
    ax.legend(fontsize=8, loc="lower right")
    return fig if fig is not None else ax.figure


def plot_two_log_likelihoods(gmm_ll, gmm_true, candy_ll, candy_true):
    """Figure 20.12 (a) and (b) of the source side by side.
    Used in: Chapter 7, section "A mixture of candy bags"."""
    fig = _figure(9.0, 3.2)
    a, b = fig.subplots(1, 2)
    plot_log_likelihood(gmm_ll, gmm_true, ax=a)
    a.set_title("(a) Gaussian mixture, 500 points", fontsize=10)
    plot_log_likelihood(candy_ll, candy_true, ax=b)
    b.set_title("(b) candy mixture, 1000 candies", fontsize=10)
    return fig


def _ellipse_points(mean, cov, r=2.0, n=60):
    t = np.linspace(0, 2 * np.pi, n)
    L = np.linalg.cholesky(cov)
    return mean + r * np.c_[np.cos(t), np.sin(t)] @ L.T


def _draw_mixture(ax, X, weights, means, covs, resp, title):
    k = len(weights)
    cols = np.array([_rgb(COLORS[j % len(COLORS)]) for j in range(k)])
    ax.scatter(X[:, 0], X[:, 1], s=5, c=np.clip(resp @ cols, 0, 1))
    for j in range(k):  # the 1- and 2-standard-deviation ellipses in one line
        e1, e2 = _ellipse_points(means[j], covs[j], 1.0), _ellipse_points(means[j], covs[j], 2.0)
        e = np.r_[e1, [[np.nan, np.nan]], e2]
        ax.plot(e[:, 0], e[:, 1], color=COLORS[j % len(COLORS)], lw=1.5)
    ax.plot(means[:, 0], means[:, 1], "x", color="k", ms=7, mew=2)
    ax.set_title(title, fontsize=9)


def plot_degenerate(X, collapse, merged, fixed):
    """Degenerate EM solutions. ``collapse`` is ``(sigmas, log_likelihoods)`` for a
    component shrinking onto one point; ``merged`` and ``fixed`` are fitted
    GaussianMixture models (two components stuck together; the repaired run).
    Used in: Chapter 7, section "When EM goes wrong"."""
    fig = _figure(10.0, 3.3)
    a, b, c = fig.subplots(1, 3)
    s, ll = collapse
    a.semilogx(s, ll, color=COLORS[1])
    a.invert_xaxis()
    a.set_xlabel(r"std. dev. $\sigma$ of the component on one point")
    a.set_ylabel("log likelihood")
    a.set_title("(a) collapse: $L \\to \\infty$ as $\\sigma \\to 0$", fontsize=9)
    for ax, m, t in ((b, merged, "(b) two components merged"),
                     (c, fixed, "(c) restarts (n_init=10)")):
        _draw_mixture(ax, X, m.weights_, m.means_, m.covariances_, m.predict_proba(X),
                      f"{t}\nlog likelihood {m.log_likelihood_[-1]:.1f}")
    return fig


def one_mean_em_path(x, means_init, sigma, which=0, n_iter=3):
    """EM that frees only mean ``which`` (the others stay at ``means_init``): the
    means after 0, 1, ..., n_iter iterations, an (n_iter + 1, k) array.
    Used in: Chapter 7, section "Why EM works"."""
    x = np.asarray(x, float)
    mu = np.asarray(means_init, float).copy()
    path = [mu.copy()]
    for _ in range(n_iter):
        resp = em_known_variance(x, mu, sigma, n_iter=0).resp[0][:, which]
        mu[which] = resp @ x / resp.sum()
        path.append(mu.copy())
    return np.array(path)


def plot_lower_bound(x, sigma, means_init, grid, which=0, n_steps=2):
    """The log likelihood ``L(mu_1)`` and the lower bounds EM maximises in its first
    ``n_steps`` iterations (see :func:`lower_bound_curves`; only mean ``which`` is
    free). Each bound touches ``L`` at the current mean (circle); the bound's
    maximum (square) is the next mean, where ``L`` is higher again (the vertical
    segment is the gap). Used in: Chapter 7, section "Why EM works"."""
    path = one_mean_em_path(x, means_init, sigma, which, n_steps)
    fig = _figure(7.0, 3.8)
    ax = fig.subplots()
    L, _ = lower_bound_curves(x, path[0], sigma, grid, which)
    ax.plot(grid, L, color="k", lw=2, label=r"$\log P(x \mid \mu_1)$")
    for t in range(n_steps):
        old, new = path[t], path[t + 1]
        _, B = lower_bound_curves(x, old, sigma, grid, which)
        color = COLORS[(t + 1) % len(COLORS)]
        ax.plot(grid, B, color=color, ls="--",
                label=fr"bound built at $\mu_1^{{({t})}} = {old[which]:.2f}$")
        L_old, _ = lower_bound_curves(x, old, sigma, [old[which]], which)
        ax.plot([old[which]], L_old, "o", color=color)
        L_new, B_new = lower_bound_curves(x, old, sigma, [new[which]], which)
        ax.plot([new[which]] * 2, [B_new[0], L_new[0]], color=color, lw=1)
        ax.plot([new[which]], B_new, "s", color=color, ms=5)
    span = L.max() - L.min()
    ax.set_ylim(L.min() - 0.15 * span, L.max() + 0.1 * span)
    ax.set_xlabel(r"$\mu_1$ (the other mean held fixed)")
    ax.set_ylabel("log likelihood or bound")
    ax.legend(fontsize=8, loc="lower left")
    return fig


_HISTORY = {}


def em_history(X, k, seed, n_iter, reg=1e-6):
    """Every step of a full-covariance EM run from the 'random' start of ``seed``:
    a list of ``(weights, means, covariances, responsibilities, log_likelihood)``,
    entry t after t iterations (the same run as ``GaussianMixture(k, n_iter=n_iter,
    reg=reg, init='random', random_state=seed, tol=0)``). Results are cached, so
    moving the iteration slider of the interactive figure only redraws.
    Used in: Chapter 7, section "Try it yourself"."""
    X = _check_data(X)
    key = (X.shape, hash(X.tobytes()), int(k), int(seed), int(n_iter), float(reg))
    if key not in _HISTORY:
        gm = GaussianMixture(int(k), n_iter=int(n_iter), tol=0, reg=reg, init="random",
                             random_state=int(seed))
        gm._check_params(X)
        w, m, c = gm._initial_parameters(X, _rng(int(seed)))
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


def plot_em_2d(iteration=5, k=3, seed=0, X=None, true_ll=None, max_iter=40):
    """Interactive-figure callback: the state of EM for a ``k``-component Gaussian
    mixture on the 2-D data ``X`` after ``iteration`` steps from the random start
    chosen by ``seed``. Points are coloured by their responsibilities; the ellipses
    are 1 and 2 standard deviations. Right: the log likelihood so far, with the true
    model's value ``true_ll`` as a dashed line.
    Used in: Chapter 7, section "Try it yourself"."""
    if X is None:
        raise ValueError("plot_em_2d needs the data X")
    if not 0 <= iteration <= max_iter:
        raise ValueError(f"iteration must be between 0 and {max_iter}, got {iteration}")
    hist = em_history(X, k, seed, max_iter)
    w, m, c, resp, _ = hist[int(iteration)]
    lls = [h[4] for h in hist[:int(iteration) + 1]]
    fig = _figure(8.6, 3.6)
    a, b = fig.subplots(1, 2, width_ratios=[1.3, 1])
    _draw_mixture(a, np.asarray(X, float), w, m, c, resp,
                  f"k = {k}, seed {seed}, after {iteration} iterations")
    xlim, ylim = _limits(np.asarray(X, float))
    a.set_xlim(xlim)
    a.set_ylim(ylim)
    plot_log_likelihood(lls, true_ll, ax=b)
    b.set_xlim(-0.5, max_iter + 0.5)
    lo = min(hist[0][4], true_ll if true_ll is not None else np.inf)
    hi = max(hist[-1][4], true_ll if true_ll is not None else -np.inf)
    b.set_ylim(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo))
    return fig
