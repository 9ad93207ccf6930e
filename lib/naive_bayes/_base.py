"""Shared code of the naive Bayes classifiers: input checks, sparse-safe products and the
prediction methods that follow from ``_joint_log_likelihood`` (Chapter 4, "Naive Bayes and
Bayes classifiers"; Chapter 5, "Text classification")."""
import numpy as np
import scipy.sparse as sp

from lib._classifier import ProbabilisticClassifier
from lib._validation import check_array, check_is_fitted, check_labels, check_probability_vector


def _label(value):
    """``repr`` of a label without numpy's type wrapper (``'b'``, not ``np.str_('b')``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _encode_labels(y, n_samples):
    """Sorted classes and the class index of every label (labels checked first)."""
    y = check_labels(y, "y", n_samples=n_samples)
    try:
        classes, y_idx = np.unique(y, return_inverse=True)
    except TypeError:
        raise TypeError(f"y must hold labels that can be sorted, got {list(y[:6])!r}") from None
    return classes, y_idx.ravel()


def _log(p):
    """Natural log that maps 0 to -inf without a warning (ML estimates can be 0)."""
    with np.errstate(divide="ignore"):
        return np.log(p)


def _logdot(X, log_w):
    """``X @ log_w.T`` for non-negative ``X``, with ``0 * (-inf)`` taken as 0.

    A zero probability (``log = -inf``) only matters for the features an example
    actually has; a plain product would turn ``0 * -inf`` into NaN.
    """
    if np.isfinite(log_w.min()):
        return np.asarray(X @ log_w.T)
    bad = np.isneginf(log_w)
    out = np.asarray(X @ np.where(bad, 0.0, log_w).T, dtype=float)
    hit = np.asarray(X @ bad.T.astype(float))
    out[hit > 0] = -np.inf
    return out


def _as_numeric_matrix(X, name="X", allow_sparse=True):
    """Float matrix (dense ndarray or CSR): 2-D, at least one row and column, finite."""
    return check_array(X, name, ndim=2, accept_sparse=allow_sparse)


def _class_sums(X, y_idx, n_classes):
    """Per-class column sums of ``X`` (dense or CSR), a dense (classes, features) array.

    For CSR input every stored entry is added to the bin (class of its row, column)
    with one ``np.bincount``: linear in the number of non-zeros, no densifying.
    """
    if sp.issparse(X):
        n_features = X.shape[1]
        row_class = np.repeat(y_idx, np.diff(X.indptr))
        bins = row_class * n_features + X.indices
        sums = np.bincount(bins, weights=X.data, minlength=n_classes * n_features)
        return sums.reshape(n_classes, n_features)
    n = y_idx.shape[0]
    one_hot = sp.csr_matrix((np.ones(n), (np.arange(n), y_idx)), shape=(n, n_classes))
    return np.asarray(one_hot.T @ X)


class _BaseNB(ProbabilisticClassifier):
    """Shared code of the naive Bayes classifiers; the predictions follow from
    ``_joint_log_likelihood`` (:class:`lib._classifier.ProbabilisticClassifier`)."""

    _prior_name = "class_prior"

    def _set_class_prior(self, class_count):
        """``class_log_prior_`` from counts (``fit_prior``) or ``class_prior``."""
        n_classes = class_count.shape[0]
        if self.class_prior is not None:
            prior = check_probability_vector(self.class_prior, self._prior_name, size=n_classes)
        elif self.fit_prior:
            prior = class_count / class_count.sum()
        else:
            prior = np.full(n_classes, 1.0 / n_classes)
        self.class_log_prior_ = _log(prior)

    def predict_joint_log_proba(self, X):
        """Unnormalised log scores ``log P(y) + sum_j log P(x_j | y)``, shape (n, classes).

        Used in: Chapter 4, section "A worked example".
        """
        check_is_fitted(self, "classes_")
        return self._joint_log_likelihood(X)

    def predict_joint_proba(self, X):
        """Unnormalised scores ``P(y) prod_j P(x_j | y)`` (the exponentiated joint log).

        These are the products a hand calculation writes down (Chapter 4, "A worked
        example"); they underflow for long documents, where the log version does not.
        """
        return np.exp(self.predict_joint_log_proba(X))
