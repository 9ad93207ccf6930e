"""Minimum description length: code lengths in bits and model selection.

Used in: Chapter 3, "Minimum description length" (``chapters/03_mdl.md``).
Follows Mitchell (1997), section 6.6 (MDL derived from MAP), and Russell & Norvig
(3rd ed.), section 20.1 (MAP learning as maximum compression) and section 20.2.5
(penalised structure scores).

Conventions: log likelihoods are natural logarithms (as numpy and scipy return
them); code lengths are in bits. A code length is never negative, so every function
that turns probabilities into bits refuses probabilities above 1 (and positive log
likelihoods, which would come from densities rather than probabilities). The
chapter's figures are drawn in :mod:`lib.plots.mdl`.
"""
import numpy as np
from scipy.special import log_ndtr, xlogy

from lib._validation import (
    check_array,
    check_consistent_length,
    check_integers,
    check_probabilities,
    check_rng,
    check_scalar,
    check_shape,
)

__all__ = [
    "code_length", "count_bits", "data_bits", "parameter_bits", "precision_bits", "two_part_code",
    "bic", "mdl_select", "gaussian_bin_log_likelihood", "polynomial_data",
    "polynomial_scores", "check_dag", "bn_n_params", "bn_log_likelihood",
    "sample_binary_network",
]

LN2 = np.log(2.0)


# ------------------------------------------------------------------ code lengths
def _probabilities(p, name="p"):
    return check_probabilities(p, name, min_samples=0)


def _nonnegative(values, name, allow_inf=False):
    values = check_array(values, name, min_samples=0, allow_inf=allow_inf)
    if (values < 0).any():
        raise ValueError(f"{name} must be >= 0, got {values[values < 0].ravel()[0]:g}")
    return values


def code_length(p):
    """Length in bits, ``-log2 p``, of the optimal code word for an event of probability p.

    Elementwise; an impossible event (p = 0) cannot be coded and gets ``inf``.
    Used in: Chapter 3, section "Bits and probabilities".

    >>> code_length([1, 0.5, 0.125])
    array([-0.,  1.,  3.])
    """
    p = _probabilities(p)
    with np.errstate(divide="ignore"):
        return -np.log2(p)


def count_bits(counts, probs):
    """Bits ``-sum counts * log2 probs`` to code outcomes seen ``counts`` times.

    Summed over the last axis; outcomes never seen cost nothing even if their
    probability is zero (0 log 0 = 0). Used in: Chapter 3, section
    "The candy bags as codes".

    >>> count_bits([10, 0], [1.0, 0.0])   # ten limes under the all-lime bag
    0.0
    """
    counts = _nonnegative(counts, "counts")
    probs = _probabilities(probs, "probs")
    with np.errstate(divide="ignore"):
        bits = -xlogy(counts, probs).sum(axis=-1) / LN2
    return np.abs(bits)[()] if np.ndim(bits) else abs(float(bits))


def data_bits(log_likelihood):
    """Bits to code the data given the model: ``-log_likelihood / ln 2``.

    ``log_likelihood`` is the natural log of the *probability* of the data (for
    continuous data: of the data discretised to a fixed precision), so it is <= 0.
    Used in: Chapter 3, sections on polynomial and network selection.
    """
    ll = check_array(log_likelihood, "log_likelihood", min_samples=0, allow_inf=True)
    if (ll > 1e-9).any():
        raise ValueError("a log probability cannot be positive; for continuous data "
                         "use the probability of the discretised values")
    return np.abs(-ll / LN2)[()]


def _sizes(d, n):
    d = _nonnegative(d, "the number of parameters d")
    n = check_array(n, "the sample size n", min_samples=0)
    if (n < 1).any():
        raise ValueError(f"the sample size n must be >= 1, got {n[n < 1].ravel()[0]:g}")
    return d, n


def parameter_bits(d, n):
    """Bits to state d real parameters, each to precision 1/sqrt(n): ``(d/2) log2 n``.

    With n examples a parameter is only known to about 1/sqrt(n), so coding it more
    precisely wastes bits and coding it less precisely costs more data bits; the
    balance gives (1/2) log2 n bits per parameter.
    Used in: Chapter 3, section "How many bits for a parameter?".

    >>> float(parameter_bits(2, 1024))
    10.0
    """
    d, n = _sizes(d, n)
    return (0.5 * d * np.log2(n))[()]


def precision_bits(n_values, precision, scale=1.0):
    """Bits to state n_values numbers from a range of width ``scale`` to a given ``precision``.

    Each number is one of scale / precision equally likely grid values, so it costs
    log2(scale / precision) bits. This is the price of a lookup table that stores
    every data value. Used in: Chapter 3, section "Lookup tables do not compress".

    >>> float(precision_bits(3, precision=1 / 256))
    24.0
    """
    n_values = _nonnegative(n_values, "the number of values n_values")
    precision = check_scalar(precision, "precision", low=0, closed="neither")
    scale = check_scalar(scale, "scale", low=precision)
    return (n_values * np.log2(scale / precision))[()]


def two_part_code(log_likelihood, d, n):
    """Data bits, model bits and their total for candidate models (elementwise).

    Returns a tuple ``(data, model, total)`` of arrays with
    data = -log2 P(D | h) and model = (d/2) log2 n.
    Used in: Chapter 3, sections on model selection.
    """
    data, model = data_bits(log_likelihood), parameter_bits(d, n)
    return data, model, data + model


def bic(log_likelihood, d, n):
    """Bayesian information criterion ``d ln n - 2 ln L`` (smaller is better).

    BIC / (2 ln 2) equals the two-part code length of :func:`two_part_code` when both
    use the same likelihood. Used in: Chapter 3, sections on model selection.
    """
    ll = check_array(log_likelihood, "log_likelihood", min_samples=0, allow_inf=True)
    d, n = _sizes(d, n)
    return (d * np.log(n) - 2 * ll)[()]


def mdl_select(log_likelihoods, ds, n):
    """Index of the candidate with the shortest two-part description.

    Ties go to the earliest (list simpler models first).
    Used in: Chapter 3, sections on model selection.

    >>> mdl_select([-100.0, -90.0, -89.5], [1, 2, 3], n=100)
    1
    """
    ll = np.atleast_1d(check_array(log_likelihoods, "log_likelihoods", min_samples=0,
                                   allow_inf=True))
    if ll.size == 0:
        raise ValueError("log_likelihoods must list at least one candidate model, got none")
    ds = np.atleast_1d(check_array(ds, "ds", min_samples=0))
    if ds.shape != ll.shape:
        raise ValueError(f"log_likelihoods and ds must have the same length (shape), got {ll.shape} "
                         f"and {ds.shape}")
    if np.all(np.isneginf(ll)):
        raise ValueError("every candidate gives the data probability zero (all log_likelihoods "
                         "are -inf): no candidate can encode them, so none can be selected")
    return int(np.argmin(two_part_code(ll, ds, n)[2]))


# ------------------------------------------------------------- polynomial degree
TRUE_COEF = (0.0, 1.0, 0.0, 0.8)      # f(x) = x + 0.8 x^3, coefficients by power


def polynomial_data(n, noise, rng, coef=TRUE_COEF):
    """``n`` points x ~ Uniform(-1, 1), y = f(x) + Normal(0, noise^2), f = sum coef_j x^j.

    Used in: Chapter 3, section "Choosing a polynomial degree".
    """
    n = check_scalar(n, "n", kind="integer", low=2)
    noise = check_scalar(noise, "noise", low=0, closed="neither")
    coef = check_array(coef, "coef", ndim=1)
    rng = check_rng(rng, seeds=False)
    x = rng.uniform(-1, 1, size=int(n))
    y = np.polynomial.polynomial.polyval(x, coef) + rng.normal(scale=noise, size=int(n))
    return x, y



def gaussian_bin_log_likelihood(residuals, sigma, precision):
    """Natural log of the probability of residuals recorded to bins of width ``precision``.

    Each residual r is known to lie in [r - precision/2, r + precision/2]; under
    N(0, sigma^2) that bin has probability Phi((r + h)/sigma) - Phi((r - h)/sigma),
    computed in the lower tail so it stays accurate far from the mean. The result is
    always <= 0, even for sigma -> 0 (a perfect fit costs 0 bits). ``sigma = 0`` is
    that limit: a residual inside its bin (``|r| < precision / 2``) has probability 1
    (log 0), one on the bin's edge 1/2, one outside it 0 (log ``-inf``).
    Used in: Chapter 3, section "Choosing a polynomial degree".
    """
    r = np.abs(check_array(residuals, "residuals", min_samples=0))
    precision = check_scalar(precision, "precision", low=0, closed="neither")
    sigma = check_scalar(sigma, "sigma", low=0)
    s, h = max(float(sigma), 1e-300), precision / 2
    with np.errstate(over="ignore", invalid="ignore"):   # a bin of probability 0: -inf
        upper, lower = log_ndtr((h - r) / s), log_ndtr((-h - r) / s)
        log_p = np.where(np.isneginf(upper), -np.inf, upper + np.log1p(-np.exp(lower - upper)))
    return float(np.sum(log_p))


def polynomial_scores(x, y, degrees, precision=0.01):
    """Fit polynomials by least squares (= ML) and score them.

    Returns a dict of arrays indexed like ``degrees``: ``d`` (degree + 2 parameters:
    coefficients and sigma), ``sigma`` (ML noise level), ``loglik_bins`` (log
    probability of y recorded to ``precision``, used for the two-part code) and
    ``loglik_density`` (Gaussian log density at the ML fit, used for BIC).
    Used in: Chapter 3, section "Choosing a polynomial degree" and the
    interactive figure.
    """
    x, y = check_array(x, "x", ndim=1), check_array(y, "y", ndim=1)
    check_consistent_length(x=x, y=y)
    degrees = np.array([check_scalar(d, "degrees[i]", kind="integer") for d in degrees], dtype=int)
    precision = check_scalar(precision, "precision", low=0, closed="neither")
    if degrees.size == 0 or degrees.min() < 0 or degrees.max() >= x.size:
        raise ValueError(f"degrees must lie in 0..{x.size - 1} (fewer than the {x.size} points)")
    out = {"d": degrees + 2.0, "sigma": [], "loglik_bins": [], "loglik_density": []}
    for degree in degrees:
        resid = y - np.polynomial.polynomial.polyval(x, np.polynomial.polynomial.polyfit(x, y, degree))
        sigma = np.sqrt(np.mean(resid ** 2))
        out["sigma"].append(sigma)
        out["loglik_bins"].append(gaussian_bin_log_likelihood(resid, sigma, precision))
        with np.errstate(divide="ignore"):
            out["loglik_density"].append(-0.5 * x.size * (np.log(2 * np.pi * sigma ** 2) + 1))
    return {key: np.asarray(val, dtype=float) for key, val in out.items()}


# --------------------------------------------------- Bayesian network structures
def check_dag(parents):
    """Raise ValueError unless ``parents`` (tuple of parent indices per node) is a DAG.

    Used in: Chapter 3, section "Choosing a network structure".
    """
    if isinstance(parents, (str, bytes)) or not hasattr(parents, "__len__"):
        raise TypeError(f"parents must be a sequence of parent-index tuples, got {parents!r}")
    d = len(parents)
    for i, pa in enumerate(parents):
        if isinstance(pa, (str, bytes)) or not hasattr(pa, "__iter__"):
            raise TypeError(f"parents[{i}] must be a tuple of parent indices, got {pa!r}")
        for j in pa:
            if not (isinstance(j, (int, np.integer)) and 0 <= j < d):
                raise ValueError(f"node {i} has an unknown parent {j!r}")
            if j == i:
                raise ValueError(f"node {i} is its own parent (a cycle)")
    remaining = set(range(d))
    while remaining:                 # peel off nodes whose parents are all placed
        ready = {i for i in remaining if not set(parents[i]) & remaining}
        if not ready:
            raise ValueError(f"the parent sets contain a cycle among nodes {sorted(remaining)}")
        remaining -= ready


def _cards(data, cards):
    """``data`` as integer states and ``cards`` (default: the largest state + 1), checked."""
    data = check_integers(data, "data", what="states", ndim=2)
    if cards is None:
        return data, data.max(axis=0) + 1
    cards = check_integers(cards, "cards", what="numbers of states", low=1, ndim=1)
    check_shape(cards, "cards (one number of states per node)", (data.shape[1],))
    return check_integers(data, "data", what="states", high=cards - 1), cards


def bn_n_params(parents, cards):
    """Free parameters of a discrete network: sum over nodes of (r_i - 1) * prod r_parents.

    Used in: Chapter 3, section "Choosing a network structure".

    >>> bn_n_params([(), (0,), (0,), (0,)], [2, 2, 2, 2])   # naive Bayes, 3 attributes
    7
    """
    check_dag(parents)
    cards = check_integers(cards, "cards", what="numbers of states", low=1, ndim=1)
    check_shape(cards, "cards (one number of states per node)", (len(parents),))
    return int(sum((cards[i] - 1) * np.prod(cards[list(pa)], dtype=int)
                   for i, pa in enumerate(parents)))


def bn_log_likelihood(data, parents, cards=None):
    """Maximised log likelihood (nats) of complete discrete data under a structure.

    With ML tables (observed frequencies, Chapter 2) the log likelihood is
    sum over nodes, parent configurations j and values k of N_ijk ln(N_ijk / N_ij).
    Used in: Chapter 3, section "Choosing a network structure".
    """
    check_dag(parents)
    data, cards = _cards(data, cards)
    if len(parents) != data.shape[1]:
        raise ValueError(f"{len(parents)} parent sets for {data.shape[1]} columns")
    total = 0.0
    for i, pa in enumerate(parents):
        cols = list(pa) + [i]
        idx = np.ravel_multi_index(data[:, cols].T, cards[cols])
        n_ijk = np.bincount(idx, minlength=int(np.prod(cards[cols]))).reshape(-1, cards[i])
        n_ij = n_ijk.sum(axis=1, keepdims=True)
        total += np.sum(xlogy(n_ijk, n_ijk) - xlogy(n_ijk, n_ij))
    return float(total)


def sample_binary_network(parents, probs, n, rng):
    """Draw n complete examples from a network of binary nodes (ancestral sampling).

    ``probs[i]`` holds P(X_i = 1 | parents) for each parent configuration, indexed by
    the parents' values read as a binary number (first parent most significant).
    Nodes must be listed so that parents come before children.
    Used in: Chapter 3, section "Choosing a network structure".
    """
    check_dag(parents)
    n = check_scalar(n, "n", kind="integer", low=0)
    rng = check_rng(rng, seeds=False)
    if len(probs) != len(parents):
        raise ValueError(f"probs must give one table per node ({len(parents)}), got {len(probs)}")
    data = np.zeros((int(n), len(parents)), dtype=int)
    for i, pa in enumerate(parents):
        if any(j >= i for j in pa):
            raise ValueError("list nodes so that every parent comes before its child")
        p = _probabilities(probs[i], f"probs[{i}]").reshape(-1)
        if p.size != 2 ** len(pa):
            raise ValueError(f"node {i} needs {2 ** len(pa)} probabilities, got {p.size}")
        config = data[:, list(pa)] @ (2 ** np.arange(len(pa))[::-1]) if pa else 0
        data[:, i] = rng.random(int(n)) < p[config]
    return data
