"""Mixtures of naive Bayes models over categorical features, fitted by EM: the candy
bags.

Chapter 7, section "A mixture of candy bags" (:class:`MixtureOfNaiveBayes`,
:func:`candy_counts`, :func:`candy_parameters`, :func:`candy_theta`). Figures:
:mod:`lib.plots.em`.
"""
import numpy as np
from scipy.special import logsumexp

from lib._validation import (
    check_integers,
    check_is_fitted,
    check_probability_vector,
    check_rng,
    check_sample_weight,
    check_scalar,
    check_stochastic_matrix,
)

from .loop import run_em

__all__ = ["MixtureOfNaiveBayes", "candy_counts", "candy_parameters", "candy_theta"]


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
    n_iter, tol : as in :class:`GaussianMixture` (the gain is per unit of weight).
    init : 'random' or a dict with 'weights' (k,) and 'probs' (a list with one
        (k, n_categories_f) array per feature, rows summing to one).
    pseudo_count : float >= 0, virtual count added to every (class, value) cell.
    random_state : int, Generator or None.

    Attributes
    ----------
    weights_, probs_, n_iter_, converged_
        The fitted parameters and how EM ended, as in :class:`GaussianMixture`.
    log_likelihoods_
        Entry t after t iterations (the weighted total); the last is the fitted model's.
        EM runs the course's one loop, :func:`lib.em.run_em`, whose gain is per unit of
        weight.

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

    def _initial(self, n_categories, rng):
        k = self.n_components
        if isinstance(self.init, dict):
            unknown = set(self.init) - {"weights", "probs"}
            if unknown or "weights" not in self.init or "probs" not in self.init:
                raise ValueError(f"init must be a dict with keys 'weights' and 'probs', "
                                 f"got keys {sorted(self.init)}")
            w = check_probability_vector(self.init["weights"], "init['weights']", size=k)
            probs = self.init["probs"]
            if len(probs) != len(n_categories):
                raise ValueError(f"init['probs'] must have one table per feature "
                                 f"({len(n_categories)}), got {len(probs)}")
            probs = [check_stochastic_matrix(p, f"init['probs'][{f}]", shape=(k, None))
                     for f, p in enumerate(probs)]
            for f, (p, c) in enumerate(zip(probs, n_categories)):
                if p.shape[1] < c:
                    raise ValueError(f"init['probs'][{f}] must have shape ({k}, >= {c}), "
                                     f"got {p.shape}")
            return w, probs
        if not isinstance(self.init, str) or self.init != "random":
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
        k = check_scalar(self.n_components, "n_components", kind="integer", low=1)
        n_iter = check_scalar(self.n_iter, "n_iter", kind="integer", low=0)
        check_scalar(self.pseudo_count, "pseudo_count", low=0)
        check_scalar(self.tol, "tol", low=0)
        X = check_integers(X, "X", what="category codes", ndim=2)
        sw = check_sample_weight(sample_weight, X.shape[0], positive_sum=True)
        check_scalar(k, "n_components (at most one per row of X)", kind="integer", high=X.shape[0])
        if isinstance(self.init, dict):
            probs = self.init.get("probs")
            if not isinstance(probs, (list, tuple)) or len(probs) != X.shape[1]:
                raise ValueError(f"init['probs'] must be a list of one table per feature "
                                 f"({X.shape[1]}), got {probs!r}")
            n_categories = [max(int(X[:, f].max()) + 1, np.shape(p)[-1])
                            for f, p in enumerate(probs)]
        else:
            n_categories = list(X.max(0) + 1)
        weights, probs = self._initial(n_categories, check_rng(self.random_state))
        n_categories = [p.shape[1] for p in probs]
        onehots = _one_hot_columns(X, n_categories)
        a = self.pseudo_count

        def e_step(params):
            log_p = self._log_joint(onehots, *params)
            log_norm = logsumexp(log_p, axis=1)
            with np.errstate(invalid="ignore"):
                resp = np.exp(log_p - log_norm[:, None]) * sw[:, None]   # expected counts
            return sw @ log_norm, np.nan_to_num(resp)

        def m_step(params, resp):
            nk = resp.sum(0)
            probs = []
            for o, c in zip(onehots, n_categories):
                counts = resp.T @ o + a                                   # (k, c)
                norm = counts.sum(1, keepdims=True)
                probs.append(np.where(norm > 0, counts / np.where(norm > 0, norm, 1), 1 / c))
            return nk / nk.sum(), probs

        run = run_em(e_step, m_step, (weights, probs), sw.sum(), n_iter, self.tol,
                     monotone=a == 0)
        (self.weights_, self.probs_), self.n_categories_ = run.params, n_categories
        self.log_likelihoods_, self.n_iter_, self.converged_ = (
            run.log_likelihoods, run.n_iter, run.converged)
        return self

    def _fitted_log_joint(self, X):
        """``log P(x_i, C = j)`` under the fitted mixture (codes seen in fit only)."""
        check_is_fitted(self, "weights_")
        X = check_integers(X, "X", what="category codes (as seen in fit)", ndim=2,
                           high=np.array(self.n_categories_) - 1)
        return self._log_joint(_one_hot_columns(X, self.n_categories_), self.weights_, self.probs_)

    def score_samples(self, X):
        """``log P(x_i)`` of each row under the fitted mixture."""
        return logsumexp(self._fitted_log_joint(X), axis=1)

    def predict_proba(self, X):
        """``P(C = j | x_i)`` for each row of ``X``."""
        log_p = self._fitted_log_joint(X)
        return np.exp(log_p - logsumexp(log_p, axis=1, keepdims=True))

    def score(self, X, sample_weight=None):
        """Total (weighted) log likelihood of ``X``."""
        log_p = self.score_samples(X)  # checks X
        return float(check_sample_weight(sample_weight, len(log_p), positive_sum=True) @ log_p)


def candy_counts():
    """The 1000 candies of the two-bag candy mixture, as 8 distinct rows and counts.

    Columns: Flavor (0 = cherry, 1 = lime), Wrapper (0 = red, 1 = green),
    Hole (0 = hole, 1 = no hole). Counts from the table in Russell & Norvig (3rd ed.), section
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
