"""One validation layer for every ``lib`` module (in the spirit of scikit-learn's
``check_array`` and ``_param_validation``).

Each ``check_*`` function takes the value, the argument's ``name`` as the caller knows
it, and returns the value converted to the form the algorithms use (a float array, a
Python int, ...). On bad input it raises ``TypeError`` (wrong kind of value) or
``ValueError`` (right kind, impossible value) with a message that names the argument,
says what was expected and shows what was given::

    >>> check_scalar(-1, "alpha", low=0)
    Traceback (most recent call last):
    ...
    ValueError: alpha must be a real number >= 0, got -1

Used by all algorithm modules (Chapters 1-9); the API is the ``__all__`` list below
(and the error classes in :mod:`lib.errors`): scalar, array and label checks live in
:mod:`lib._validation.core`, checks of discrete data (codes, names, documents, keyed
numbers) in :mod:`lib._validation.discrete`, checks of fitted models and their parameters
in :mod:`lib._validation.estimators`; import them from here.
"""
from lib.errors import NotFittedError  # one definition, in lib.errors

from .core import (
                   check_array,
                   check_binary,
                   check_counts,
                   check_labels,
                   check_option,
                   check_points,
                   check_probabilities,
                   check_probability_vector,
                   check_rng,
                   check_scalar,
                   check_scale,
                   check_shape,
                   check_stochastic_matrix,
                   check_table,
                   check_weights_array,
                   describe,
                   encode_labels,
                   is_missing,
)
from .discrete import check_index_map, check_integers, check_items, check_keyed_numbers, check_names
from .estimators import (
    check_consistent_length,
    check_hmm,
    check_is_fitted,
    check_mixture,
    check_n_features,
    check_sample_weight,
    check_weighted_rows,
)

__all__ = [
    "NotFittedError", "check_scalar", "check_option", "check_array", "check_binary", "check_counts",
    "check_table", "check_points", "check_probabilities", "check_weights_array", "check_probability_vector",
    "check_stochastic_matrix", "check_labels", "encode_labels", "check_is_fitted",
    "check_n_features", "check_consistent_length", "check_shape", "check_rng", "check_scale",
    "check_mixture", "check_sample_weight", "is_missing", "describe", "check_integers", "check_names",
    "check_items", "check_index_map", "check_keyed_numbers", "check_weighted_rows", "check_hmm",
]
