"""The checks of fitted models and their parameters, of :mod:`lib._validation`."""
import numpy as np

from lib.errors import NotFittedError

from .core import (
    check_array,
    check_probability_vector,
    check_shape,
    check_stochastic_matrix,
    check_weights_array,
    describe,
)


# --------------------------------------------------------------------------- models
def check_is_fitted(estimator, attributes=None):
    """Raise NotFittedError unless ``estimator`` has the fitted attributes.

    ``attributes``: a name or list of names; default: any attribute ending in ``_``.
    """
    if attributes is None:
        fitted = any(k.endswith("_") and not k.startswith("__") for k in vars(estimator))
    else:
        names = [attributes] if isinstance(attributes, str) else list(attributes)
        fitted = all(hasattr(estimator, a) for a in names)
    if not fitted:
        raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet: "
                             f"call fit(...) with training data before using it")


def check_n_features(estimator, X):
    """Check that ``X`` has as many columns as ``estimator.n_features_in_`` (set by fit).

    >>> class M: n_features_in_ = 2
    >>> check_n_features(M(), np.zeros((1, 3)))
    Traceback (most recent call last):
    ...
    ValueError: X has 3 features, but M is expecting 2 features as input (as in fit)
    """
    got, expected = np.shape(X)[1], estimator.n_features_in_
    if got != expected:
        raise ValueError(f"X has {got} features, but {type(estimator).__name__} is expecting "
                         f"{expected} features as input (as in fit)")


def check_consistent_length(**arrays):
    """Check that the named arrays have the same length (axis 0).

    >>> check_consistent_length(x=[1, 2], y=[3, 4])
    """
    lengths = {k: np.shape(v)[0] if np.ndim(v) else None for k, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        given = ", ".join(f"{k} has {n}" if n is not None else f"{k} is a scalar"
                          for k, n in lengths.items())
        raise ValueError(f"{' and '.join(arrays)} must have the same length, got: {given}")


def check_mixture(weights, means, covariances, d=None):
    """A Gaussian mixture: ``k`` weights summing to one, ``k`` means of dimension ``d``
    (that of the data, if given) and ``k`` symmetric positive definite ``d x d``
    covariances. A mismatch raises instead of silently dropping a component.
    Returns the three as float arrays."""
    means = check_array(means, "means", ndim=2)
    k = means.shape[0]
    if d is not None and means.shape[1] != d:
        raise ValueError(f"means must have shape (k, {d}) to match X, got {means.shape}")
    d = means.shape[1]
    weights = check_probability_vector(weights, "weights", size=k)
    covariances = check_shape(check_array(covariances, "covariances", ndim=3),
                              "covariances", (k, d, d))
    for j, c in enumerate(covariances):
        if not np.allclose(c, c.T) or np.linalg.eigvalsh(c)[0] <= 0:
            raise ValueError(f"covariances[{j}] must be symmetric positive definite, "
                             f"got {describe(c.tolist())}")
    return weights, means, covariances


def check_sample_weight(sample_weight, n_samples, *, positive_sum=False):
    """One finite, non-negative weight per row (``None``: all ones); ``positive_sum``
    also refuses weights that are all zero. Returns a float array of shape ``(n,)``."""
    if sample_weight is None:
        return np.ones(n_samples)
    w = check_array(sample_weight, "sample_weight", ndim=1, min_samples=0)
    if w.shape != (n_samples,):
        raise ValueError(f"sample_weight must have one entry per row: shape ({n_samples},), "
                         f"got {w.shape}")
    if np.any(w < 0) or (positive_sum and not w.sum() > 0):
        raise ValueError("sample_weight must be non-negative" + (", not all 0" if positive_sum else "")
                         + f", got {describe(w)}")
    return w


def check_weighted_rows(weights, rows, weights_name="weights", rows_name="rows"):
    """Weights over ``H`` items (last axis; each set of weights sums to one) and the ``H``
    rows of probabilities they weight (shape ``(..., H, C)``, entries in [0, 1]), e.g. the
    posteriors of ``H`` hypotheses and each one's class probabilities. Both are returned
    broadcast to the common batch shape: ``(..., H)`` and ``(..., H, C)``.

    >>> w, r = check_weighted_rows([0.5, 0.5], [[1, 0], [0, 1]])
    >>> w.shape, r.shape
    ((2,), (2, 2))
    """
    w = check_weights_array(weights, weights_name, sums_to_one=True)
    r = check_weights_array(rows, rows_name, at_most_one=True)
    if r.ndim < 2 or r.shape[-2] != w.shape[-1]:
        raise ValueError(f"{rows_name} must have shape (..., H, C) with H = {w.shape[-1]} "
                         f"(one row per entry of {weights_name}), got {r.shape}")
    batch = np.broadcast_shapes(w.shape[:-1], r.shape[:-2])
    return np.broadcast_to(w, batch + w.shape[-1:]), np.broadcast_to(r, batch + r.shape[-2:])


def check_hmm(start, transition, emission):
    """The parameters of a discrete HMM: a start distribution over ``N`` states, an
    ``N x N`` transition matrix and an ``N x M`` emission matrix (rows summing to one).
    Returned as float arrays, each row divided by its sum (exactly normalised)."""
    start = check_probability_vector(start, "start")
    n = len(start)
    transition = check_stochastic_matrix(transition, "transition", shape=(n, n))
    emission = check_stochastic_matrix(emission, "emission", shape=(n, None))
    return (start / start.sum(), transition / transition.sum(axis=1, keepdims=True),
            emission / emission.sum(axis=1, keepdims=True))
