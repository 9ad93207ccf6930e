"""Naive Bayes classifiers: categorical, Bernoulli, multinomial and Gaussian.

Used in: Chapter 4, "Naive Bayes and Bayes classifiers" (all sections), and
Chapter 5, "Text classification" (:class:`MultinomialNB`).

Every classifier here scores a class ``y`` for an example ``x = (x_1, ..., x_n)`` by

    log P(y) + sum_j log P(x_j | y),

the logarithm of the joint probability under the assumption that the attributes are
conditionally independent given the class. The estimators follow scikit-learn's
conventions (``fit``, ``predict``, ``predict_proba``, ``predict_log_proba``, fitted
attributes ending in ``_``) and add one accessor for the unnormalised scores:

* ``predict_joint_log_proba(X)``: ``log P(y) + sum_j log P(x_j | y)`` per class;
* ``predict_joint_proba(X)``: the same numbers exponentiated, i.e. the products
  ``P(y) prod_j P(x_j | y)`` that the worked example of the chapter prints.

Smoothing conventions (``alpha`` matches scikit-learn's meaning everywhere):

* :class:`CategoricalNB` with ``alpha``: ``(N(x_j = v, y) + alpha) / (N(y) + alpha k_j)``,
  ``k_j`` the number of values of attribute ``j``; ``alpha = 1`` is Laplace's law of
  succession, ``alpha = 0`` the maximum-likelihood estimate. With ``m`` it uses the
  m-estimate ``(N(x_j = v, y) + m p_v) / (N(y) + m)`` with prior ``p`` (uniform,
  ``p_v = 1 / k_j``, unless given).
* :class:`BernoulliNB`: ``(N(x_j = 1, y) + alpha) / (N(y) + 2 alpha)``.
* :class:`MultinomialNB`: ``(count(j, y) + alpha) / (sum_j' count(j', y) + alpha V)``.
* :class:`GaussianNB`: maximum-likelihood means and variances, plus scikit-learn's
  ``var_smoothing`` (a fraction of the largest feature variance added to every
  variance).

Layout: ``_base`` (shared prediction code), :mod:`.categorical`, :mod:`.counts`
(Bernoulli and multinomial), :mod:`.gaussian`, :mod:`.chapter` (tables and helpers of
Chapter 4); the figures are in :mod:`lib.plots.naive_bayes`. Inputs are checked with
``lib._validation``: ``predict`` and ``predict_proba`` refuse the same examples.
"""
from lib.naive_bayes.categorical import CategoricalNB
from lib.naive_bayes.chapter import (
                                     Table,
                                     duplicated_attribute_posteriors,
                                     log_odds_weights,
                                     parameter_counts,
                                     probability_table,
)
from lib.naive_bayes.counts import BernoulliNB, MultinomialNB
from lib.naive_bayes.gaussian import GaussianNB

__all__ = [
    "CategoricalNB", "BernoulliNB", "MultinomialNB", "GaussianNB", "probability_table",
    "duplicated_attribute_posteriors", "parameter_counts", "log_odds_weights", "Table",
]
