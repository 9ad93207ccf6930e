"""Judging a classifier honestly: leave-one-out predictions, an exact McNemar test for
two classifiers scored on the same examples, and calibration (reliability bins and the
expected calibration error).

Used in: Chapter 4, section "Naive Bayes versus the multivariate normal" (leave-one-out
accuracy of Gaussian naive Bayes and the full-covariance classifier on Iris2, compared
with McNemar's test), and Chapter 5, section "Are the posteriors believable?" (the
reliability diagram of naive Bayes on 20 Newsgroups). The figures are drawn in
:mod:`lib.plots.naive_bayes` and :mod:`lib.plots.text`.

The binning is scikit-learn's ``calibration_curve(..., strategy="uniform")``: ``n_bins``
equal bins of [0, 1], a value on an inner edge belongs to the lower bin, 1.0 to the last.
"""
import copy
from types import SimpleNamespace

import numpy as np
from scipy.stats import binomtest

from lib._validation import (check_binary, check_consistent_length, check_labels,
                             check_probabilities, check_scalar, describe)

__all__ = ["leave_one_out_predict", "mcnemar_exact", "reliability_bins",
           "expected_calibration_error"]


def leave_one_out_predict(estimator, X, y):
    """Predict every example with a copy of ``estimator`` fitted on all the others.

    ``estimator`` is an unfitted classifier with ``fit(X, y)`` and ``predict(X)`` (it
    is copied for every fold and never fitted itself); ``X`` has one row per example
    (numbers or nominal values), ``y`` one label per row. Returns the array of the
    ``n`` held-out predictions; their mean agreement with ``y`` is the leave-one-out
    accuracy, the same number as scikit-learn's
    ``cross_val_score(estimator, X, y, cv=LeaveOneOut()).mean()``.

    Used in: Chapter 4, section "Naive Bayes versus the multivariate normal".

    >>> from lib.naive_bayes import GaussianNB
    >>> leave_one_out_predict(GaussianNB(), [[0.], [0.2], [0.1], [5.], [5.2], [5.1]],
    ...                       [0, 0, 0, 1, 1, 1]).tolist()
    [0, 0, 0, 1, 1, 1]
    """
    for method in ("fit", "predict"):
        if not callable(getattr(estimator, method, None)):
            raise TypeError(f"estimator must have fit and predict methods, got {describe(estimator)}")
    if isinstance(X, (str, bytes)) or np.ndim(X) != 2:
        raise ValueError(f"X must be a 2-D table (one row per example), got {describe(X)}")
    X = np.asarray(X)
    y = check_labels(y, "y", n_samples=X.shape[0])
    if X.shape[0] < 2:
        raise ValueError(f"X must have at least 2 examples for leave-one-out, got {X.shape[0]}")
    predictions = []
    for i in range(X.shape[0]):
        rest = np.arange(X.shape[0]) != i
        model = copy.deepcopy(estimator).fit(X[rest], y[rest])
        predictions.append(np.asarray(model.predict(X[i:i + 1]))[0])
    return np.array(predictions)


def mcnemar_exact(correct_a, correct_b):
    """McNemar's exact test: do classifiers a and b differ in accuracy on these examples?

    ``correct_a`` and ``correct_b`` say, for the same examples, whether each classifier
    was right. Only the examples on which they disagree carry information: ``only_a``
    (a right, b wrong) and ``only_b`` (b right, a wrong). If the two are equally
    accurate, each disagreement goes either way with probability 1/2, so ``only_a`` is
    Binomial(``only_a + only_b``, 1/2); the two-sided p-value is that binomial test's
    (``scipy.stats.binomtest``), 1 when they never disagree. Returns a namespace with
    ``only_a``, ``only_b`` and ``p_value``.

    Used in: Chapter 4, section "Naive Bayes versus the multivariate normal".

    >>> mcnemar_exact([1, 1, 1, 1, 1, 0], [0, 0, 0, 0, 0, 0]).p_value
    0.0625
    """
    a = check_binary(correct_a, "correct_a", ndim=1)
    b = check_binary(correct_b, "correct_b", ndim=1)
    check_consistent_length(correct_a=a, correct_b=b)
    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(b & ~a))
    n = only_a + only_b
    p_value = float(binomtest(only_a, n, 0.5).pvalue) if n else 1.0
    return SimpleNamespace(only_a=only_a, only_b=only_b, p_value=p_value)


def reliability_bins(confidence, correct, n_bins=10):
    """Reliability-diagram numbers: per confidence bin, its size, mean confidence, accuracy.

    ``confidence[i]`` is the probability the classifier gave to its own answer for
    example ``i`` (e.g. the largest posterior), ``correct[i]`` whether that answer was
    right. The interval [0, 1] is cut into ``n_bins`` equal bins as in scikit-learn's
    ``calibration_curve(correct, confidence, n_bins=n_bins, strategy="uniform")``, whose
    ``(prob_true, prob_pred)`` are this function's ``accuracy`` and ``confidence`` on
    the non-empty bins. Returns a namespace with ``edges`` (``n_bins + 1``), ``count``,
    ``confidence`` and ``accuracy`` (``n_bins`` each; NaN for an empty bin). A
    calibrated classifier has accuracy equal to confidence in every bin.

    Used in: Chapter 5, section "Are the posteriors believable?".

    >>> bins = reliability_bins([0.95, 0.95, 0.55, 0.65], [1, 0, 1, 1], n_bins=2)
    >>> bins.count.tolist(), bins.accuracy.tolist()
    ([0, 4], [nan, 0.75])
    """
    confidence = check_probabilities(confidence, "confidence", ndim=1)
    correct = check_binary(correct, "correct", ndim=1)
    check_consistent_length(confidence=confidence, correct=correct)
    n_bins = check_scalar(n_bins, "n_bins", kind="integer", low=1)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    which = np.searchsorted(edges[1:-1], confidence)
    count = np.bincount(which, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_confidence = np.bincount(which, weights=confidence, minlength=n_bins) / count
        accuracy = np.bincount(which, weights=correct, minlength=n_bins) / count
    return SimpleNamespace(edges=edges, count=count, confidence=mean_confidence, accuracy=accuracy)


def expected_calibration_error(confidence, correct, n_bins=10):
    """Expected calibration error: ``sum_b (n_b / N) |accuracy_b - confidence_b|``.

    The gap between claimed and observed accuracy in each bin of
    :func:`reliability_bins`, weighted by the fraction of examples in the bin: 0 for a
    perfectly calibrated classifier, at most 1. Used in: Chapter 5, section "Are the
    posteriors believable?".

    >>> round(expected_calibration_error([0.9, 0.9, 0.3, 0.3], [1, 1, 0, 1], n_bins=2), 3)
    0.15
    """
    bins = reliability_bins(confidence, correct, n_bins)
    full = bins.count > 0
    weights = bins.count[full] / bins.count.sum()
    return float(np.sum(weights * np.abs(bins.accuracy[full] - bins.confidence[full])))
