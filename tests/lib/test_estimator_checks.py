"""scikit-learn's estimator checks (``sklearn.utils.estimator_checks``) on the course's
classifiers: the naive Bayes family (lib.naive_bayes) and the Gaussian classifier
(lib.gaussian).

lib does not depend on scikit-learn, so its estimators have no ``get_params`` /
``set_params`` / ``__sklearn_tags__``. Each is tested through a subclass that adds
only those, from sklearn's ``BaseEstimator`` and ``ClassifierMixin`` (which also adds
``score``); fit, predict, predict_proba and every input check are lib's own.

Checks that do not apply, each skipped by name (``expected_failed_checks``):

* ``check_estimators_unfitted`` (all): an unfitted model raises
  ``lib._validation.NotFittedError``, which has the same bases as sklearn's
  (ValueError, AttributeError) but is not sklearn's class, since lib never imports
  sklearn. Our own tests check the error (tests/lib/test_validation.py and below).
* ``check_supervised_y_2d`` (all): a column vector ``y`` of shape (n, 1) is refused
  with a ValueError that says to ravel it; sklearn expects a warning and a silent
  ravel. A teaching library prefers the clear error.
* CategoricalNB only, whose attributes are nominal (any hashable value):
  ``check_estimators_nan_inf`` (NaN is a missing value, skipped by design, and inf is
  just another category) and ``check_dtype_object`` (a mix of strings and numbers in
  one attribute is refused with TypeError "cannot be ordered", not sklearn's
  float-conversion message). It is run with ``handle_unknown="ignore"`` because the
  checks predict on real numbers never seen in training.
"""
import numpy as np
import pytest

sklearn_base = pytest.importorskip("sklearn.base")
estimator_checks = pytest.importorskip("sklearn.utils.estimator_checks")

from lib._validation import NotFittedError  # noqa: E402
from lib.gaussian import GaussianClassifier  # noqa: E402
from lib.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB  # noqa: E402


class _Sk(sklearn_base.ClassifierMixin, sklearn_base.BaseEstimator):
    """get_params / set_params / tags for a lib estimator (nothing else)."""
    _sparse = False
    _positive_only = False
    _poor_score = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._sparse
        tags.input_tags.positive_only = self._positive_only
        tags.classifier_tags.poor_score = self._poor_score
        return tags


class SkMultinomialNB(_Sk, MultinomialNB):
    # the same tags as sklearn's own MultinomialNB: counts only, sparse accepted, and a
    # poor training score on the checks' Gaussian blobs (they are not counts)
    _sparse = True
    _positive_only = True
    _poor_score = True


class SkBernoulliNB(_Sk, BernoulliNB):
    _sparse = True


class SkGaussianNB(_Sk, GaussianNB):
    pass


class SkCategoricalNB(_Sk, CategoricalNB):
    pass


class SkGaussianClassifier(_Sk, GaussianClassifier):
    pass


_ALL = {
    "check_estimators_unfitted": "raises lib._validation.NotFittedError (ValueError and "
                                 "AttributeError, not sklearn's class: lib does not import sklearn)",
    "check_supervised_y_2d": "a column-vector y is refused with a ValueError (use y.ravel()), "
                             "not warned about and ravelled",
}
_NOMINAL = {
    "check_estimators_nan_inf": "nominal attributes: NaN is a missing value, inf a category",
    "check_dtype_object": "nominal attributes: mixed strings and numbers raise TypeError "
                          "'cannot be ordered'",
}


def _expected_failures(estimator):
    return {**_ALL, **(_NOMINAL if isinstance(estimator, CategoricalNB) else {})}


@estimator_checks.parametrize_with_checks(
    [SkMultinomialNB(), SkBernoulliNB(), SkGaussianNB(),
     SkCategoricalNB(handle_unknown="ignore"), SkGaussianClassifier()],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("model", [MultinomialNB(), BernoulliNB(), GaussianNB(),
                                   CategoricalNB(), GaussianClassifier()])
@pytest.mark.parametrize("method", ["predict", "predict_proba", "predict_log_proba"])
def test_unfitted_models_raise_not_fitted_error(model, method):
    """What the skipped check_estimators_unfitted asks, with lib's own error class."""
    with pytest.raises(NotFittedError, match=f"This {type(model).__name__} instance is not fitted"):
        getattr(model, method)(np.ones((2, 3)))
