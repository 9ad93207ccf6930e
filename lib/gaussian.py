"""Gaussian class-conditional models, discriminant functions and the Bayes risk rule.

Used in: Chapter 4, "Naive Bayes and Bayes classifiers", sections "Gaussian classes:
Iris2", "Discriminant functions", "Naive Bayes versus the multivariate normal" and
"Bayes risk".

:class:`GaussianClassifier` fits one multivariate normal per class. By default the
covariance estimates divide by ``|D_y| - 1`` (the unbiased sample covariance, as the
source notes print for Iris2); ``ddof=0`` gives the maximum-likelihood estimate
(divide by ``|D_y|``). The decision uses the discriminant function

    d_y(x) = -1/2 ln|Sigma_y| - 1/2 (x - mu_y)^T Sigma_y^{-1} (x - mu_y) + ln P(y),

which is ``ln P(x | y) + ln P(y)`` without the constant ``-n/2 ln(2 pi)``.
:func:`bayes_risk_decision` turns posteriors and a loss matrix into decisions. The
figures are drawn in :mod:`lib.plots.gaussian`.
"""
import numpy as np

from lib._classifier import ProbabilisticClassifier
from lib._validation import (
    check_array,
    check_is_fitted,
    check_labels,
    check_n_features,
    check_option,
    check_probability_vector,
    check_scalar,
    check_shape,
    check_stochastic_matrix,
)


def _label(value):
    """``repr`` of a label without numpy's type wrapper (``'b'``, not ``np.str_('b')``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


__all__ = [
    "GaussianClassifier",
    "bayes_risk_decision",
    "conditional_risk",
    "zero_one_loss",
]


class GaussianClassifier(ProbabilisticClassifier):
    """One full-covariance normal distribution per class (quadratic discriminant).

    Used in: Chapter 4, sections "Gaussian classes: Iris2" and "Discriminant
    functions".

    Fitted attributes: ``classes_``, ``class_count_``, ``priors_``, ``means_``
    (classes, n), ``covariances_`` (classes, n, n), ``n_features_in_``.

    Errors: a class with fewer than ``ddof + 1`` examples, or whose covariance is
    singular (e.g. a constant attribute, or fewer examples than attributes), raises
    ValueError naming the class; ``reg > 0`` is the remedy for the latter.

    Parameters
    ----------
    ddof : {1, 0}, default 1
        Covariance denominator ``|D_y| - ddof``: 1 is the (unbiased) sample
        covariance that the source notes print for Iris2 (``numpy.cov``'s default),
        0 the maximum-likelihood estimate (what scikit-learn 1.9's
        ``QuadraticDiscriminantAnalysis`` uses; older versions used ``|D_y| - 1``).
    priors : array-like or None
        Class priors in the order of ``classes_``; default the class frequencies.
    reg : float, default 0.0
        Added to the diagonal of every covariance (a ridge that makes a singular
        covariance invertible).

    Examples
    --------
    >>> X = [[0, 0], [1, 0], [0, 1], [5, 5], [6, 5], [5, 6]]
    >>> clf = GaussianClassifier().fit(X, ["a"] * 3 + ["b"] * 3)
    >>> clf.predict([[0.5, 0.5], [5.5, 5.5]]).tolist()
    ['a', 'b']
    """

    def __init__(self, ddof=1, priors=None, reg=0.0):
        self.ddof = ddof
        self.priors = priors
        self.reg = reg

    def fit(self, X, y):
        """Estimate each class's mean vector and covariance matrix (one pass)."""
        ddof = check_scalar(self.ddof, "ddof", kind="integer")
        check_option(ddof, "ddof (0: maximum likelihood, 1: sample covariance)", (0, 1))
        reg = check_scalar(self.reg, "reg", low=0)
        X = check_array(X, "X", ndim=2)
        y = check_labels(y, "y", n_samples=X.shape[0])
        try:
            classes, y_idx = np.unique(y, return_inverse=True)
        except TypeError:
            raise TypeError(f"y must hold labels that can be sorted, got {list(y[:6])!r}") from None
        y_idx = y_idx.ravel()
        C, n = classes.size, X.shape[1]
        self.classes_ = classes
        self.class_count_ = np.bincount(y_idx, minlength=C).astype(float)
        self.means_ = np.zeros((C, n))
        self.covariances_ = np.zeros((C, n, n))
        for c in range(C):
            Xc = X[y_idx == c]
            if Xc.shape[0] <= ddof:
                raise ValueError(f"class {_label(classes[c])} has {Xc.shape[0]} example(s) "
                                 f"({Xc.shape[0]} sample): a covariance with denominator "
                                 f"|D|-{ddof} needs at least {ddof + 1}")
            self.means_[c] = Xc.mean(axis=0)
            centred = Xc - self.means_[c]
            with np.errstate(over="ignore", invalid="ignore"):  # checked just below
                self.covariances_[c] = centred.T @ centred / (Xc.shape[0] - ddof)
        if not np.isfinite(self.covariances_).all():
            raise ValueError("X has values so large that the covariances overflow "
                             f"(largest |value| {np.abs(X).max():g}): rescale the attributes")
        if self.priors is not None:
            priors = check_probability_vector(self.priors, "priors", size=C)
        else:
            priors = self.class_count_ / self.class_count_.sum()
        self.priors_ = priors
        self.n_features_in_ = n
        # Cholesky factors of the (regularised) covariances; a failure means singular.
        cov = self.covariances_ + reg * np.eye(n)
        self._chol = np.zeros_like(cov)
        for c in range(C):
            scale = max(np.trace(cov[c]) / n, np.finfo(float).tiny)
            eig = np.linalg.eigvalsh(cov[c])
            if eig[0] <= 1e-12 * scale:
                raise ValueError(f"the covariance of class {_label(classes[c])} is singular (smallest eigenvalue "
                                 f"{eig[0]:.3g}): a constant attribute or too few examples; use reg > 0")
            self._chol[c] = np.linalg.cholesky(cov[c])
        self._logdet = 2 * np.log(np.diagonal(self._chol, axis1=1, axis2=2)).sum(axis=1)
        return self

    def _check(self, X):
        check_is_fitted(self, "classes_")
        X = check_array(X, "X", ndim=2)
        check_n_features(self, X)
        return X

    def mahalanobis2(self, X):
        """Squared Mahalanobis distances ``(x - mu_y)^T Sigma_y^{-1} (x - mu_y)``, (n, classes)."""
        X = self._check(X)
        out = np.empty((X.shape[0], self.classes_.size))
        for c in range(self.classes_.size):
            z = np.linalg.solve(self._chol[c], (X - self.means_[c]).T)
            out[:, c] = (z ** 2).sum(axis=0)
        return out

    def discriminant(self, X):
        """The discriminant functions ``d_y(x)`` of the source notes, shape (n, classes).

        ``-1/2 ln|Sigma_y| - 1/2 (x - mu_y)^T Sigma_y^{-1} (x - mu_y) + ln P(y)``. The
        class with the largest value is the MAP class; boundaries are where two are
        equal. Used in: Chapter 4, section "Discriminant functions".
        """
        m2 = self.mahalanobis2(X)  # checks X and that the model is fitted
        with np.errstate(divide="ignore"):
            log_prior = np.log(self.priors_)
        return -0.5 * self._logdet - 0.5 * m2 + log_prior

    def log_density(self, X):
        """``ln p(x | y)``, the normal log density of each class, shape (n, classes)."""
        m2 = self.mahalanobis2(X)
        return -0.5 * (self.n_features_in_ * np.log(2 * np.pi) + self._logdet + m2)

    _zero_message = "every class has density zero at example(s) {rows} of X: {reason}"
    _zero_reason = "the point is so far from every class that all densities underflow"

    def _joint_log_likelihood(self, X):
        """The discriminants (``ln P(x | y) + ln P(y)`` up to a constant): the base class
        :class:`lib._classifier.ProbabilisticClassifier` turns them into predictions."""
        with np.errstate(over="ignore"):
            return self.discriminant(X)


# ------------------------------------------------------------------------- Bayes risk
def conditional_risk(posteriors, loss):
    """Expected loss of each decision: ``R(i | x) = sum_j L[i, j] P(y = j | x)``.

    ``loss[i, j]`` is the loss of deciding ``i`` when class ``j`` is true. Returns an
    array of shape (n, decisions). Used in: Chapter 4, section "Bayes risk".
    """
    P = check_stochastic_matrix(np.atleast_2d(check_array(posteriors, "posteriors", ndim=(1, 2))), "posteriors")
    L = check_shape(check_array(loss, "loss", ndim=2), "loss (decisions x classes)", (None, P.shape[1]))
    return P @ L.T


def bayes_risk_decision(posteriors, loss):
    """Bayes risk criterion: the decision ``argmin_i sum_j L[i, j] P(y = j | x)``.

    Parameters
    ----------
    posteriors : array (n, classes) or (classes,)
        ``P(y = j | x)`` per example; rows must sum to one.
    loss : array (decisions, classes)
        ``loss[i, j]``: loss of deciding ``i`` when ``j`` is true (usually square with
        a zero diagonal).

    Returns
    -------
    ndarray of int, shape (n,)
        The index of the chosen decision for each example. With the 0-1 loss
        (:func:`zero_one_loss`) this is the MAP class.

    Used in: Chapter 4, section "Bayes risk".

    Examples
    --------
    >>> bayes_risk_decision([0.9, 0.1], [[0, 100], [1, 0]]).tolist()  # costly misses
    [1]
    """
    return np.argmin(conditional_risk(posteriors, loss), axis=1)


def zero_one_loss(n_classes):
    """The 0-1 loss matrix: 0 on the diagonal, 1 elsewhere."""
    return 1.0 - np.eye(check_scalar(n_classes, "n_classes", kind="integer", low=1))
