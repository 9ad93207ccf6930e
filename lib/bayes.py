"""Bayesian learning over a finite set of hypotheses.

Chapter 1 ("Bayesian learning") is built on this module: Bayes' theorem in log space
(:func:`posterior`), a learner that updates a prior over hypotheses one observation at a
time (:class:`DiscreteBayesLearner`), the five candy bags of the textbook example
(:func:`candy_learner`), the Bayes optimal classifier and the Gibbs algorithm
(:func:`bayes_optimal_classify`, :func:`gibbs_classify`, :func:`simulate_gibbs_vs_bayes`),
Bayes tables (:func:`bayes_table`) and the brute-force MAP learner over a version space
(:func:`version_space`, :func:`brute_force_map`).
The chapter's figures are drawn in :mod:`lib.plots.bayes`.

Conventions: hypotheses are indexed ``0 .. H-1`` and probabilities over hypotheses are
1-D arrays of length ``H``; the last axis of every array is the hypothesis axis.
"""
import numpy as np
from scipy.special import logsumexp

from lib._validation import (
    check_array,
    check_binary,
    check_consistent_length,
    check_rng,
    check_scalar,
    check_weighted_rows,
    check_weights_array,
)

__all__ = [
    "posterior", "DiscreteBayesLearner", "bayes_optimal_classify", "gibbs_classify",
    "simulate_gibbs_vs_bayes", "interval_concepts", "version_space", "brute_force_map",
    "bayes_table", "CANDY_BAGS", "CANDY_LIME", "CANDY_PRIOR", "CANDY_PRIORS", "candy_learner",
]


def _normalise_log(log_joint, what="the data"):
    """Normalise unnormalised log posteriors along the last axis (rows may be stacked)."""
    log_evidence = logsumexp(log_joint, axis=-1, keepdims=True)
    impossible = ~np.isfinite(log_evidence[..., 0])
    if impossible.any():
        where = "" if log_joint.ndim == 1 else f" (first at row {np.flatnonzero(impossible)[0]})"
        raise ValueError(f"{what} is impossible under every hypothesis with nonzero prior: "
                         f"the posterior is undefined{where}")
    return np.exp(log_joint - log_evidence)


# ------------------------------------------------------------------- Bayes' theorem
def posterior(prior, likelihood):
    """Posterior ``P(h | d)`` over a finite set of hypotheses, by Bayes' theorem in log space.

    Computes ``P(h | d) = P(d | h) P(h) / sum_h' P(d | h') P(h')``. The products are
    done as sums of logarithms and normalised with ``logsumexp``, so long data sets
    (tiny likelihoods) do not underflow.

    Used in: Chapter 1, section "Bayes' theorem".

    Parameters
    ----------
    prior : array_like, shape (H,)
        Prior probabilities ``P(h)``; non-negative, summing to one.
    likelihood : array_like, shape (H,) or (N, H)
        ``P(d | h)`` for each hypothesis. A 2-D array holds one row per observation
        of i.i.d. data; the rows are multiplied (added in log space).

    Returns
    -------
    numpy.ndarray, shape (H,)
        The normalised posterior.

    Raises
    ------
    ValueError
        Negative, NaN or infinite numbers, a prior that does not sum to one, a
        likelihood of the wrong length, or data impossible under every hypothesis.

    Examples
    --------
    Three lime candies with the textbook's five bags:

    >>> post = posterior(CANDY_PRIOR, CANDY_LIME ** 3)
    >>> post.round(4)
    array([0.    , 0.0132, 0.2105, 0.3553, 0.4211])
    """
    prior = check_weights_array(prior, "prior", sums_to_one=True)
    likelihood = check_weights_array(likelihood, "likelihood")
    if prior.ndim != 1:
        raise ValueError(f"prior must be 1-D (one entry per hypothesis), got shape {prior.shape}")
    if likelihood.ndim > 2 or likelihood.shape[-1] != prior.size:
        raise ValueError(f"likelihood must have shape ({prior.size},) or (N, {prior.size}) "
                         f"to match the prior, got {likelihood.shape}")
    with np.errstate(divide="ignore"):
        log_joint = np.log(prior) + np.log(likelihood).reshape(-1, prior.size).sum(axis=0)
    return _normalise_log(log_joint)


class DiscreteBayesLearner:
    """Bayesian learning with finitely many hypotheses and i.i.d. discrete observations.

    Each hypothesis ``h`` is a probability distribution over a finite set of outcomes;
    observations are independent given ``h``. The learner turns a sequence of outcomes
    into posteriors (Bayes' theorem), a Bayesian prediction for the next outcome
    (theorem of total probability), and the MAP and ML hypotheses.

    Used in: Chapter 1, sections "The candy bags", "MAP and ML hypotheses" and
    "An interactive candy bag".

    Parameters
    ----------
    prior : array_like, shape (H,)
        ``P(h)``, non-negative, summing to one.
    likelihood : dict
        Maps each outcome to an array of shape (H,) holding ``P(outcome | h)`` for every
        hypothesis. For every hypothesis the probabilities of all outcomes sum to one.

    Examples
    --------
    >>> learner = DiscreteBayesLearner([0.5, 0.5], {"H": [0.5, 0.9], "T": [0.5, 0.1]})
    >>> learner.posterior_path(["H", "H"]).round(3)
    array([[0.5  , 0.5  ],
           [0.357, 0.643],
           [0.236, 0.764]])
    >>> round(learner.predictive(["H", "H"])["H"], 4)
    0.8057
    """

    def __init__(self, prior, likelihood):
        self.prior = check_weights_array(prior, "prior", sums_to_one=True)
        if self.prior.ndim != 1:
            raise ValueError(f"prior must be 1-D, got shape {self.prior.shape}")
        if not isinstance(likelihood, dict) or not likelihood:
            raise TypeError("likelihood must be a non-empty dict outcome -> array of P(outcome | h)")
        self.outcomes = tuple(likelihood)
        rows = []
        for outcome, probs in likelihood.items():
            probs = check_weights_array(probs, f"likelihood[{outcome!r}]", at_most_one=True)
            if probs.shape != self.prior.shape:
                raise ValueError(f"likelihood[{outcome!r}] has shape {probs.shape}, "
                                 f"expected {self.prior.shape} (one entry per hypothesis)")
            rows.append(probs)
        #: ``table[k, h] = P(outcomes[k] | h)``, shape (K, H)
        self.table = np.vstack(rows)
        totals = self.table.sum(axis=0)
        if not np.allclose(totals, 1.0, rtol=0, atol=1e-9):
            bad = int(np.flatnonzero(~np.isclose(totals, 1.0, rtol=0, atol=1e-9))[0])
            raise ValueError(f"P(outcome | h) must sum to 1 over outcomes for every hypothesis; "
                             f"hypothesis {bad} sums to {totals[bad]:g}")
        self._index = {outcome: k for k, outcome in enumerate(self.outcomes)}

    # -- helpers ------------------------------------------------------------------
    def _codes(self, data):
        """Outcome indices of ``data`` (a sequence of outcomes)."""
        if isinstance(data, (str, bytes)):
            data = [data]
        try:
            return np.array([self._index[d] for d in data], dtype=int)
        except KeyError as err:
            raise ValueError(f"outcome {err.args[0]!r} is not in the likelihood "
                             f"(known outcomes: {list(self.outcomes)})") from None
        except TypeError as err:
            raise ValueError(f"unhashable outcome in data: {err}") from None

    def _log_joint_path(self, data):
        """``log P(h) + log P(d_1..d_n | h)`` for n = 0..N, shape (N+1, H)."""
        with np.errstate(divide="ignore"):
            log_table = np.log(self.table)
            log_prior = np.log(self.prior)
        steps = log_table[self._codes(data)]                    # (N, H)
        cumulative = np.vstack([np.zeros(self.prior.size), np.cumsum(steps, axis=0)])
        return log_prior + cumulative

    # -- public API ---------------------------------------------------------------
    def log_likelihood(self, data):
        """``log P(d | h)`` of all of ``data`` for each hypothesis, shape (H,)."""
        with np.errstate(divide="ignore"):
            return np.log(self.table)[self._codes(data)].sum(axis=0)

    def posterior_path(self, data):
        """Posteriors after each prefix of ``data``: shape (N+1, H), row 0 the prior.

        Row ``n`` is ``P(h | d_1, ..., d_n)``. Raises ``ValueError`` if the data become
        impossible under every hypothesis with nonzero prior.
        """
        return _normalise_log(self._log_joint_path(data), "the data")

    def posterior(self, data):
        """``P(h | data)``, shape (H,): the last row of :meth:`posterior_path`."""
        return self.posterior_path(data)[-1]

    def predictive_path(self, data):
        """Bayesian predictions after each prefix: shape (N+1, K),
        ``[n, k] = P(d_{n+1} = outcomes[k] | d_1..d_n)``."""
        return self.posterior_path(data) @ self.table.T

    def predictive(self, data):
        """Bayesian prediction of the next outcome: ``{outcome: P(next = outcome | data)}``.

        A weighted average of the hypotheses' predictions, weights the posteriors
        (theorem of total probability).
        """
        probs = self.table @ self.posterior(data)
        return {outcome: float(p) for outcome, p in zip(self.outcomes, probs)}

    def map_index(self, data):
        """Index of the maximum a posteriori hypothesis (lowest index on ties)."""
        return _best(self._log_joint_path(data)[-1], "every hypothesis with nonzero prior", "MAP")

    def ml_index(self, data):
        """Index of the maximum likelihood hypothesis (lowest index on ties); ignores the prior."""
        return _best(self.log_likelihood(data), "every hypothesis", "ML")

    def map_predictive(self, data):
        """Prediction of the MAP hypothesis alone: ``{outcome: P(next = outcome | h_MAP)}``."""
        h = self.map_index(data)
        return {outcome: float(p) for outcome, p in zip(self.outcomes, self.table[:, h])}

    def sample(self, hypothesis, n, rng):
        """Draw ``n`` i.i.d. outcomes from hypothesis number ``hypothesis``, as a list."""
        hypothesis = check_scalar(hypothesis, "hypothesis", kind="integer", low=0,
                                  high=self.prior.size - 1)
        n = check_scalar(n, "n", kind="integer", low=0)
        rng = check_rng(rng, seeds=False)
        codes = rng.choice(len(self.outcomes), size=n, p=self.table[:, hypothesis])
        return [self.outcomes[k] for k in codes]


def _best(log_scores, which, what):
    """Index of the largest log score; ValueError if the data are impossible under all."""
    if not np.isfinite(log_scores).any():
        raise ValueError(f"the data are impossible under {which}: the {what} hypothesis is "
                         "undefined")
    return int(np.argmax(log_scores))


# --------------------------------------------------------------------- candy bags
#: Names of the five kinds of bag of the textbook example (Russell and Norvig, 20.1).
CANDY_BAGS = ("h1", "h2", "h3", "h4", "h5")
#: ``P(lime | h_i)``: 100% cherry, 75/25, 50/50, 25/75, 100% lime.
CANDY_LIME = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
#: The manufacturer's advertised prior over the five bags.
CANDY_PRIOR = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
#: Named priors for the interactive figure of Chapter 1.
CANDY_PRIORS = {
    "textbook": CANDY_PRIOR,
    "uniform": np.full(5, 0.2),
    "mostly cherry": np.array([0.4, 0.3, 0.15, 0.1, 0.05]),
    "no all-lime bags": np.array([0.1, 0.2, 0.4, 0.3, 0.0]),
}


def candy_learner(prior=CANDY_PRIOR):
    """A :class:`DiscreteBayesLearner` for the five candy bags, outcomes ``"cherry"``/``"lime"``.

    Used in: Chapter 1, section "The candy bags".

    >>> candy_learner().predictive(["lime"] * 3)["lime"]  # doctest: +ELLIPSIS
    0.796...
    """
    return DiscreteBayesLearner(prior, {"cherry": 1.0 - CANDY_LIME, "lime": CANDY_LIME})


# ------------------------------------------------------- Bayes optimal and Gibbs
def bayes_optimal_classify(posteriors, class_probs):
    """Bayes optimal classification: ``argmax_c sum_h P(c | h, x) P(h | D)``.

    Every hypothesis votes for every class with its probability ``P(c | h, x)``,
    weighted by its posterior; the class with the largest total wins (lowest index on
    ties).

    Used in: Chapter 1, section "The Bayes optimal classifier and the Gibbs algorithm".

    Parameters
    ----------
    posteriors : array_like, shape (H,) or (M, H)
        ``P(h | D)``; one row per instance if 2-D.
    class_probs : array_like, shape (H, C) or (M, H, C)
        ``class_probs[..., h, c] = P(c | h, x)`` for the instance(s) ``x``.

    Returns
    -------
    int or numpy.ndarray of int, shape (M,)
        The predicted class index for each instance.

    Examples
    --------
    Two hypotheses say class 1, a more probable third says class 0; the vote says 1:

    >>> bayes_optimal_classify([0.3, 0.3, 0.4], [[0, 1], [0, 1], [1, 0]])
    1
    """
    post, probs = check_weighted_rows(posteriors, class_probs, "posteriors", "class_probs")
    predictive = (post[..., None, :] @ probs)[..., 0, :]          # (..., C)
    winner = np.argmax(predictive, axis=-1)
    return int(winner) if winner.ndim == 0 else winner


def gibbs_classify(posteriors, class_probs, rng, *, sample_label=False):
    """Gibbs algorithm: draw one hypothesis from ``P(h | D)`` per instance, classify with it.

    With ``sample_label=False`` the drawn hypothesis predicts its most probable class
    (for deterministic hypotheses that is simply its label). With ``sample_label=True``
    the class is drawn from ``P(c | h, x)`` instead, which is the same as drawing it
    from the Bayesian predictive distribution.

    Used in: Chapter 1, section "The Bayes optimal classifier and the Gibbs algorithm".

    Parameters
    ----------
    posteriors, class_probs : array_like
        As in :func:`bayes_optimal_classify`.
    rng : numpy.random.Generator
        Source of randomness (pass ``np.random.default_rng(seed)``).

    Returns
    -------
    int or numpy.ndarray of shape (M,)
        The class index drawn for each instance.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> gibbs_classify(np.tile([0.3, 0.3, 0.4], (6, 1)), [[0, 1], [0, 1], [1, 0]], rng)
    array([0, 1, 1, 1, 0, 0])
    """
    rng = check_rng(rng, seeds=False)
    post, probs = check_weighted_rows(posteriors, class_probs, "posteriors", "class_probs")
    batch = post.shape[:-1]
    u = rng.random(batch)[..., None]
    cdf = np.cumsum(post, axis=-1)
    drawn = np.minimum((cdf <= u * cdf[..., -1:]).sum(axis=-1), post.shape[-1] - 1)
    chosen = np.take_along_axis(probs, drawn[..., None, None], axis=-2)[..., 0, :]  # (..., C)
    if sample_label:
        v = rng.random(batch)[..., None]
        ccdf = np.cumsum(chosen, axis=-1)
        label = np.minimum((ccdf <= v * ccdf[..., -1:]).sum(axis=-1), chosen.shape[-1] - 1)
    else:
        label = np.argmax(chosen, axis=-1)
    return int(label) if label.ndim == 0 else label


def interval_concepts(n_points):
    """All interval concepts on the instances ``0, 1, ..., n_points - 1``, as 0/1 labels.

    Concept ``[a, b)`` labels ``x`` positive when ``a <= x < b``; the empty concept is
    included once. Returns an int array of shape (H, n_points) with
    ``H = n_points (n_points + 1) / 2 + 1``.

    Used in: Chapter 1, section "The Bayes optimal classifier and the Gibbs algorithm".

    >>> interval_concepts(3)
    array([[0, 0, 0],
           [1, 0, 0],
           [1, 1, 0],
           [1, 1, 1],
           [0, 1, 0],
           [0, 1, 1],
           [0, 0, 1]])
    """
    n_points = check_scalar(n_points, "n_points", kind="integer", low=1)
    x = np.arange(n_points)
    a, b = np.triu_indices(n_points + 1, k=1)                    # all 0 <= a < b <= n
    labels = ((x >= a[:, None]) & (x < b[:, None])).astype(int)
    return np.vstack([np.zeros((1, n_points), dtype=int), labels])


def version_space(concepts, x, y):
    """Mask of the concepts consistent with the labelled examples: the version space.

    ``concepts[h, x]`` (0/1, shape (H, X)) is the label concept ``h`` gives instance
    ``x``; the examples are instance indices ``x`` (shape (m,), in ``0 .. X-1``) with
    0/1 labels ``y``. Concept ``h`` is kept when ``concepts[h, x[i]] == y[i]`` for every
    ``i``; with no examples every concept is kept. Returns a bool array of shape (H,).

    Used in: Chapter 1, section "Consistent learners and brute-force MAP".

    >>> version_space(interval_concepts(3), [0, 2], [1, 0]).nonzero()[0]
    array([1, 2])
    """
    concepts = check_binary(concepts, "concepts", ndim=2).astype(int)
    x = check_array(x, "x", ndim=1, dtype=None, min_samples=0)
    y = check_binary(y, "y", ndim=1, min_samples=0)
    check_consistent_length(x=x, y=y)
    if x.size and (not np.all(x == np.round(x)) or x.min() < 0 or x.max() >= concepts.shape[1]):
        raise ValueError(f"x must hold instance indices 0..{concepts.shape[1] - 1}, got {x.tolist()}")
    return np.all(concepts[:, x.astype(int)] == y, axis=1)


def brute_force_map(prior, concepts, x, y):
    """Brute-force MAP learner on noise-free data (Mitchell 1997, section 6.3).

    Noise-free labels make ``P(D | h)`` 1 for a concept consistent with every example
    and 0 otherwise, so Bayes' theorem gives ``P(h | D) = P(h) / P(VS)`` on the version
    space ``VS`` (:func:`version_space`) and 0 elsewhere: ``1 / |VS|`` for a uniform
    prior. Returns ``(map_index, posterior)``: the most probable concept (lowest index on
    ties) and the posterior of every concept. Raises ``ValueError`` when no concept with
    nonzero prior fits the data.

    Used in: Chapter 1, section "Consistent learners and brute-force MAP".

    >>> h, post = brute_force_map(np.full(7, 1 / 7), interval_concepts(3), [0, 2], [1, 0])
    >>> h, post.round(3)
    (1, array([0. , 0.5, 0.5, 0. , 0. , 0. , 0. ]))
    """
    post = posterior(prior, version_space(concepts, x, y).astype(float))
    return int(np.argmax(post)), post


def simulate_gibbs_vs_bayes(prior, concepts, n_train, n_trials, rng):
    """Error rates of the Bayes optimal classifier and the Gibbs algorithm, by simulation.

    The setting of Haussler, Kearns and Schapire: in each trial a target concept is drawn
    from ``prior``; ``m`` training instances are drawn uniformly from the instance space
    and labelled by the target (no noise); the posterior keeps the prior of the concepts
    consistent with the training data; a fresh test instance is drawn and classified by
    both methods. Returns the fraction of test errors of each.

    ``prior`` (shape (H,)) is the prior over the concepts and also the distribution the
    targets are drawn from; ``concepts[h, x]`` (0/1, shape (H, X)) is the label concept
    ``h`` gives instance ``x``; ``n_train`` lists the training set sizes ``m`` and
    ``n_trials`` the trials (targets) per size; ``rng`` is a ``numpy.random.Generator``.
    Returns ``bayes_error, gibbs_error``, arrays of shape ``(len(n_train),)``.

    Used in: Chapter 1, section "The Bayes optimal classifier and the Gibbs algorithm".
    """
    prior = check_weights_array(prior, "prior", sums_to_one=True)
    concepts = check_binary(concepts, "concepts", ndim=2).astype(int)
    n_trials = check_scalar(n_trials, "n_trials", kind="integer", low=1)
    n_train = [check_scalar(m, "n_train[i]", kind="integer", low=0) for m in n_train]
    rng = check_rng(rng, seeds=False)
    if concepts.shape[0] != prior.size:
        raise ValueError(f"concepts must have shape ({prior.size}, X), got {concepts.shape}")
    H, X = concepts.shape
    one_hot = np.eye(2)[concepts.T]                               # (X, H, 2): P(c | h, x)
    bayes_error, gibbs_error = [], []
    for m in n_train:
        target = rng.choice(H, size=n_trials, p=prior)
        xs = rng.integers(X, size=(n_trials, m))
        # consistent[t, h]: concept h agrees with the target on all m training instances
        agree = concepts[:, xs] == concepts[target[:, None], xs][None]  # (H, T, m)
        consistent = agree.all(axis=-1).T                         # (T, H)
        post = prior * consistent
        post /= post.sum(axis=1, keepdims=True)                   # target is always consistent
        x = rng.integers(X, size=n_trials)
        truth = concepts[target, x]
        bayes_error.append(np.mean(bayes_optimal_classify(post, one_hot[x]) != truth))
        gibbs_error.append(np.mean(gibbs_classify(post, one_hot[x], rng) != truth))
    return np.array(bayes_error), np.array(gibbs_error)


# ------------------------------------------------------------------- Bayes tables
def bayes_table(prior, likelihood):
    """The columns of a Bayes table for one observation, shape (H, 4).

    Columns: prior ``P(h)``, likelihood ``P(d | h)``, their product ``P(d | h) P(h)``
    (which sums to the evidence ``P(d)``) and the posterior ``P(h | d)`` (which sums to 1).

    Used in: Chapter 1, section "The candy bags" (a table per candy).

    >>> bayes_table([0.5, 0.5], [0.2, 0.6])
    array([[0.5 , 0.2 , 0.1 , 0.25],
           [0.5 , 0.6 , 0.3 , 0.75]])
    """
    post = posterior(prior, likelihood)         # checks both; 1-D likelihood only below
    likelihood = np.asarray(likelihood, dtype=float)
    if likelihood.ndim != 1:
        raise ValueError(f"likelihood must be 1-D (one observation), got shape {likelihood.shape}")
    prior = np.asarray(prior, dtype=float)
    return np.column_stack([prior, likelihood, prior * likelihood, post])

