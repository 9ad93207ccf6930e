"""Gaussian naive Bayes: one univariate normal per attribute and class (Chapter 4,
section "Naive Bayes versus the multivariate normal")."""
import numpy as np

from lib._validation import check_n_features, check_scalar
from lib.naive_bayes._base import _as_numeric_matrix, _BaseNB, _encode_labels, _label


class GaussianNB(_BaseNB):
    """Naive Bayes with one univariate normal per attribute and class.

    Used in: Chapter 4, section "Naive Bayes versus the multivariate normal".

    Means ``theta_`` and variances ``var_`` are maximum-likelihood estimates
    (denominator ``N(y)``), as in scikit-learn; ``var_smoothing`` times the largest
    variance of any feature (over all data) is added to every variance
    (``epsilon_``), which keeps a constant attribute from dividing by zero. When
    every attribute is constant that largest variance is 0 and ``var_smoothing``
    itself is used (unit scale); ``epsilon_`` is never below the smallest normal
    float, so variances of tiny-valued data do not underflow to zero. Equivalent to
    :class:`lib.gaussian.GaussianClassifier` with diagonal covariances. With
    ``var_smoothing=0`` a zero variance raises ValueError. Probabilities are
    normalised in log space (``logsumexp``), so every row of ``predict_proba`` sums
    to one; a point so far from every class that all densities underflow is refused
    by ``predict`` and ``predict_proba`` alike.

    Examples
    --------
    >>> from lib.naive_bayes import GaussianNB
    >>> X = [[5.0, 3.4], [4.8, 3.1], [6.4, 2.9], [6.7, 3.0]]
    >>> nb = GaussianNB().fit(X, ["setosa", "setosa", "versicolor", "versicolor"])
    >>> nb.predict([[5.1, 3.3], [6.5, 2.8]]).tolist()
    ['setosa', 'versicolor']
    """

    _prior_name = "priors"
    _zero_reason = ("the point is so far from every class that all densities underflow "
                    "to zero")

    def __init__(self, var_smoothing=1e-9, priors=None):
        self.var_smoothing = var_smoothing
        self.priors = priors

    @property
    def class_prior(self):
        return self.priors

    fit_prior = True

    def fit(self, X, y):
        """Per class: the mean and (ML) variance of every attribute."""
        var_smoothing = check_scalar(self.var_smoothing, "var_smoothing", low=0)
        X = _as_numeric_matrix(X, allow_sparse=False)
        classes, y_idx = _encode_labels(y, X.shape[0])
        C, d = classes.size, X.shape[1]
        self.classes_ = classes
        self.class_count_ = np.bincount(y_idx, minlength=C).astype(float)
        self.theta_ = np.zeros((C, d))
        self.var_ = np.zeros((C, d))
        with np.errstate(over="ignore"):
            for c in range(C):
                Xc = X[y_idx == c]
                self.theta_[c] = Xc.mean(axis=0)
                self.var_[c] = _without_rounding_noise(Xc.var(axis=0), Xc)
            largest = _without_rounding_noise(np.var(X, axis=0), X).max()
        if not (np.isfinite(largest) and np.isfinite(self.var_).all()):
            raise ValueError("X has values so large that their variances overflow "
                             f"(largest |value| {np.abs(X).max():g}): rescale the attributes")
        self.epsilon_ = var_smoothing * (largest if largest > 0 else 1.0)
        if var_smoothing > 0:
            self.epsilon_ = max(self.epsilon_, np.finfo(float).tiny)
        self.var_ += self.epsilon_
        if (self.var_ <= 0).any():
            c, j = np.argwhere(self.var_ <= 0)[0]
            raise ValueError(f"attribute {j} is constant within class {_label(classes[c])}: zero variance "
                             "(use var_smoothing > 0)")
        self.n_features_in_ = d
        self._set_class_prior(self.class_count_)
        self.class_prior_ = np.exp(self.class_log_prior_)
        return self

    def _joint_log_likelihood(self, X):
        X = _as_numeric_matrix(X, allow_sparse=False)
        check_n_features(self, X)
        with np.errstate(over="ignore"):  # a far point: its density underflows to 0
            diff = X[:, None, :] - self.theta_[None, :, :]
            log_pdf = -0.5 * (np.log(2 * np.pi * self.var_)[None] + diff ** 2 / self.var_[None])
        return log_pdf.sum(axis=2) + self.class_log_prior_




def _without_rounding_noise(var, X):
    """Column variances of ``X`` with rounding noise set to 0: a constant column's
    computed mean can be off by ``n * eps * |x|``, which leaves a variance like 1e-34
    for ``[0.1, 0.1, 0.1]``. Smoothed by ``var_smoothing`` times so tiny a variance,
    the densities of any other value underflow alike in every class, and the class
    priors are lost to rounding (scikit-learn 1.5 then returns probabilities [1, 1])."""
    with np.errstate(over="ignore"):   # huge values: refused by fit when var overflows
        noise = (len(X) * np.finfo(float).eps * np.abs(X).max(axis=0)) ** 2
    return np.where(var < noise, 0.0, var)
