"""The prediction methods every probabilistic classifier of ``lib`` shares, written once
over ``_joint_log_likelihood`` (scikit-learn's ``naive_bayes._BaseNB`` is the model).

Used by the naive Bayes classifiers (:mod:`lib.naive_bayes`, Chapter 4),
:class:`lib.gaussian.GaussianClassifier` (Chapter 4) and
:class:`lib.text.NaiveBayesText` (Chapter 5).
"""
import numpy as np
from scipy.special import logsumexp

from lib._validation import check_is_fitted

__all__ = ["ProbabilisticClassifier"]


class ProbabilisticClassifier:
    """``predict``, ``predict_proba`` and ``predict_log_proba`` from
    ``_joint_log_likelihood(X)``: an ``(n, classes)`` array of ``log P(y) + log P(x | y)``
    (up to a constant per row), for a fitted model with ``classes_``.

    A row in which every class has probability zero is refused by all three alike
    (``ValueError``, with the subclass's ``_zero_reason``). Rows are normalised after
    subtracting their maximum, so they sum to one even when the scores are so large
    (``-1e40``) that the classes' differences are below their rounding.
    """

    _zero_message = "every class has probability zero for example(s) {rows} of X: {reason}"
    _zero_reason = "a zero count with alpha=0 (use alpha > 0)"

    def _scores(self, X):
        check_is_fitted(self, "classes_")
        jll = np.asarray(self._joint_log_likelihood(X), dtype=float)
        if np.isnan(jll).any():  # pragma: no cover - inputs are checked to be finite
            raise ValueError("the class scores contain NaN")
        dead = np.isneginf(jll.max(axis=1))
        if dead.any():
            raise ValueError(self._zero_message.format(
                rows=np.flatnonzero(dead)[:5].tolist(), reason=self._zero_reason))
        return jll

    def predict_log_proba(self, X):
        """Log posteriors ``log P(y | x)``: the joint log scores normalised per row."""
        jll = self._scores(X)
        jll = jll - jll.max(axis=1, keepdims=True)
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Posterior probabilities ``P(y | x)``, shape (n, classes); rows sum to one."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The MAP class ``argmax_y P(y) P(x | y)`` of each row of ``X``."""
        best = np.argmax(self._scores(X), axis=1)      # (checks first that it is fitted)
        return self.classes_[best]
