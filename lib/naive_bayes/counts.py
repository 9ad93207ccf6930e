"""Naive Bayes over counts: Bernoulli (word present / absent) and multinomial (bag of
words), dense or scipy.sparse input (Chapter 4, "What naive Bayes cannot represent:
XOR"; Chapter 5, "Text classification")."""
import numpy as np
import scipy.sparse as sp

from lib._validation import check_counts, check_n_features, check_scalar
from lib.naive_bayes._base import (
    _as_numeric_matrix,
    _BaseNB,
    _class_sums,
    _encode_labels,
    _label,
    _log,
    _logdot,
)


class BernoulliNB(_BaseNB):
    """Naive Bayes for binary attributes (word present / absent).

    Used in: Chapter 4, section "What naive Bayes cannot represent: XOR".

    ``P(x_j = 1 | y) = (N(x_j = 1, y) + alpha) / (N(y) + 2 alpha)``; an absent
    attribute contributes ``log(1 - P(x_j = 1 | y))``. ``X`` may be dense or
    scipy.sparse; values above ``binarize`` count as 1 (``binarize=None``: ``X`` is
    already 0/1). Fitted attributes as in scikit-learn: ``classes_``,
    ``class_count_``, ``class_log_prior_``, ``feature_count_``, ``feature_log_prob_``
    (log P(x_j = 1 | y)).

    Examples
    --------
    >>> from lib.naive_bayes import BernoulliNB
    >>> X = [[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]]
    >>> nb = BernoulliNB(alpha=1).fit(X, ["sport", "sport", "space", "space"])
    >>> nb.predict([[1, 1, 0], [0, 0, 1]]).tolist()
    ['sport', 'space']
    >>> nb.classes_.tolist(), nb.predict_proba([[1, 0, 0]]).round(3)
    (['space', 'sport'], array([[0.1, 0.9]]))
    """

    def __init__(self, alpha=1.0, binarize=0.0, fit_prior=True, class_prior=None):
        self.alpha = alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _binarize(self, X):
        X = _as_numeric_matrix(X)
        if self.binarize is not None:
            check_scalar(self.binarize, "binarize")
        else:
            values = X.data if sp.issparse(X) else X
            if not np.isin(values, (0.0, 1.0)).all():
                bad = values[~np.isin(values, (0.0, 1.0))][0]
                raise ValueError(f"X must hold only 0 and 1 when binarize=None, got {bad:g}")
            return X
        if sp.issparse(X):
            X = X.copy()
            X.data = (X.data > self.binarize).astype(np.float64)
            X.eliminate_zeros()
            return X
        return (X > self.binarize).astype(np.float64)

    def fit(self, X, y):
        """Count, per class, how many examples have each attribute equal to 1."""
        alpha = check_scalar(self.alpha, "alpha", low=0, high=1e100)  # larger ones overflow the sums
        X = self._binarize(X)
        classes, y_idx = _encode_labels(y, X.shape[0])
        self.classes_ = classes
        self.class_count_ = np.bincount(y_idx, minlength=classes.size).astype(float)
        self.feature_count_ = _class_sums(X, y_idx, classes.size)
        self.n_features_in_ = X.shape[1]
        num = self.feature_count_ + alpha
        den = self.class_count_[:, None] + 2 * alpha
        self.feature_log_prob_ = _log(num) - np.log(den)
        self._log_absent = _log(den - num) - np.log(den)
        self._set_class_prior(self.class_count_)
        return self

    def _joint_log_likelihood(self, X):
        X = self._binarize(X)
        check_n_features(self, X)
        present, absent = self.feature_log_prob_, self._log_absent
        if np.isneginf(present).any() or np.isneginf(absent).any():
            # Only with alpha = 0: keep 0 * (-inf) out of the sums.
            Xd = X.toarray() if sp.issparse(X) else X
            jll = _logdot(Xd, present) + _logdot(1.0 - Xd, absent)
        else:
            jll = np.asarray(X @ (present - absent).T) + absent.sum(axis=1)
        return jll + self.class_log_prior_


class MultinomialNB(_BaseNB):
    """Naive Bayes over word counts (bag of words), dense or scipy.sparse input.

    Used in: Chapter 5, "Text classification" (20 Newsgroups); tested against
    scikit-learn in tests/lib/test_naive_bayes.py.

    Each document is a sequence of independent draws from the class's word
    distribution ``theta_y``, estimated as
    ``(count(w, y) + alpha) / (sum_w' count(w', y) + alpha V)`` with ``V`` the
    vocabulary size (``n_features``). The class score of a document with counts
    ``x`` is ``log P(y) + sum_w x_w log theta_{y,w}``: one sparse matrix product for
    all documents, never densifying ``X``. The API mirrors scikit-learn's
    ``MultinomialNB``: ``alpha``, ``fit_prior``, ``class_prior``; fitted
    ``classes_``, ``class_count_``, ``class_log_prior_``, ``feature_count_``,
    ``feature_log_prob_``, ``n_features_in_``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[3, 0, 1], [0, 2, 2]])
    >>> MultinomialNB(alpha=1).fit(X, ["a", "b"]).predict(X).tolist()
    ['a', 'b']
    """

    def __init__(self, alpha=1.0, fit_prior=True, class_prior=None):
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def fit(self, X, y):
        """Sum the word counts of each class (one sparse product ``Y^T X``)."""
        alpha = check_scalar(self.alpha, "alpha", low=0, high=1e100)  # larger ones overflow the sums
        X = check_counts(X, "X")
        classes, y_idx = _encode_labels(y, X.shape[0])
        self.feature_count_ = _class_sums(X, y_idx, classes.size)
        self.classes_ = classes
        self.class_count_ = np.bincount(y_idx, minlength=classes.size).astype(float)
        self.n_features_in_ = X.shape[1]
        # Work on a C-contiguous (features, classes) array: feature_log_prob_ is its
        # transposed view, so feature_log_prob_.T, the dense operand of the prediction
        # product X @ W, is C-contiguous and scipy does not copy it per prediction.
        # (``feature_count_.T + alpha`` alone would keep the transpose's F order.)
        log_theta = np.ascontiguousarray(self.feature_count_.T) + alpha
        total = log_theta.sum(axis=0)
        if (total == 0).any():
            c = self.classes_[np.flatnonzero(total == 0)[0]]
            raise ValueError(f"class {_label(c)} has no words at all and alpha=0: its word "
                             "distribution is 0/0 (use alpha > 0)")
        with np.errstate(divide="ignore"):
            np.log(log_theta, out=log_theta)
        log_theta -= np.log(total)
        self.feature_log_prob_ = log_theta.T
        self._set_class_prior(self.class_count_)
        return self

    def _joint_log_likelihood(self, X):
        X = check_counts(X, "X")
        check_n_features(self, X)
        return _logdot(X, self.feature_log_prob_) + self.class_log_prior_


