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
from scipy.special import logsumexp


def _label(value):
    """``repr`` of a label without numpy's type wrapper (``'b'``, not ``np.str_('b')``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


__all__ = [
    "GaussianClassifier",
    "bayes_risk_decision",
    "conditional_risk",
    "zero_one_loss",
]


class GaussianClassifier:
    """One full-covariance normal distribution per class (quadratic discriminant).

    Used in: Chapter 4, sections "Gaussian classes: Iris2" and "Discriminant
    functions".

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

    Fitted attributes: ``classes_``, ``class_count_``, ``priors_``, ``means_``
    (classes, n), ``covariances_`` (classes, n, n), ``n_features_in_``.

    Errors: a class with fewer than ``ddof + 1`` examples, or whose covariance is
    singular (e.g. a constant attribute, or fewer examples than attributes), raises
    ValueError naming the class; ``reg > 0`` is the remedy for the latter.

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
        if self.ddof not in (0, 1):
            raise ValueError(f"ddof must be 0 (maximum likelihood) or 1 (sample covariance), got {self.ddof}")
        if not np.isfinite(self.reg) or self.reg < 0:
            raise ValueError(f"reg must be >= 0, got {self.reg}")
        X = _check_X(X)
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"mismatched shapes: X has {X.shape[0]} rows, y has shape {y.shape}")
        if y.dtype.kind == "f" and np.isnan(y).any():
            raise ValueError("y contains NaN labels")
        classes, y_idx = np.unique(y, return_inverse=True)
        y_idx = y_idx.ravel()
        C, n = classes.size, X.shape[1]
        self.classes_ = classes
        self.class_count_ = np.bincount(y_idx, minlength=C).astype(float)
        self.means_ = np.zeros((C, n))
        self.covariances_ = np.zeros((C, n, n))
        for c in range(C):
            Xc = X[y_idx == c]
            if Xc.shape[0] <= self.ddof:
                raise ValueError(f"class {_label(classes[c])} has {Xc.shape[0]} example(s): a covariance with "
                                 f"denominator |D|-{self.ddof} needs at least {self.ddof + 1}")
            self.means_[c] = Xc.mean(axis=0)
            centred = Xc - self.means_[c]
            self.covariances_[c] = centred.T @ centred / (Xc.shape[0] - self.ddof)
        if self.priors is not None:
            priors = np.asarray(self.priors, dtype=float)
            if priors.shape != (C,) or (priors < 0).any() or not np.isclose(priors.sum(), 1):
                raise ValueError(f"priors must be {C} non-negative numbers summing to one")
        else:
            priors = self.class_count_ / self.class_count_.sum()
        self.priors_ = priors
        self.n_features_in_ = n
        # Cholesky factors of the (regularised) covariances; a failure means singular.
        cov = self.covariances_ + self.reg * np.eye(n)
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
        if not hasattr(self, "classes_"):
            raise ValueError("this GaussianClassifier is not fitted yet: call fit(X, y) first")
        X = _check_X(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} attributes, the model was fitted with {self.n_features_in_}")
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

    def predict_log_proba(self, X):
        """Log posteriors ``ln P(y | x)`` (the discriminants normalised per row)."""
        d = self.discriminant(X)
        return d - logsumexp(d, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Posteriors ``P(y | x)``, shape (n, classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The class with the largest discriminant (the MAP class)."""
        d = self.discriminant(X)
        return self.classes_[np.argmax(d, axis=1)]


def _check_X(X):
    X = np.asarray(X)
    if X.dtype.kind not in "biuf":
        raise TypeError(f"X must hold numbers, got dtype {X.dtype}")
    X = X.astype(float, copy=False)
    if X.ndim != 2:
        raise ValueError(f"X must be two-dimensional, got shape {X.shape}")
    if X.shape[0] == 0:
        raise ValueError("empty data: X has no rows")
    if not np.isfinite(X).all():
        raise ValueError("X contains NaN or infinite values")
    return X


# ------------------------------------------------------------------------- Bayes risk
def _check_risk_inputs(posteriors, loss):
    P = np.asarray(posteriors, dtype=float)
    if P.ndim == 1:
        P = P[None, :]
    if P.ndim != 2:
        raise ValueError(f"posteriors must be (n, classes), got shape {P.shape}")
    if not np.isfinite(P).all() or (P < 0).any():
        raise ValueError("posteriors must be finite and non-negative")
    if not np.allclose(P.sum(axis=1), 1.0, atol=1e-6):
        raise ValueError("each row of posteriors must sum to one")
    L = np.asarray(loss, dtype=float)
    if L.ndim != 2 or L.shape[1] != P.shape[1]:
        raise ValueError(f"loss must be (decisions, classes) with {P.shape[1]} columns, got shape {L.shape}")
    if not np.isfinite(L).all():
        raise ValueError("loss contains NaN or infinite values")
    return P, L


def conditional_risk(posteriors, loss):
    """Expected loss of each decision: ``R(i | x) = sum_j L[i, j] P(y = j | x)``.

    ``loss[i, j]`` is the loss of deciding ``i`` when class ``j`` is true. Returns an
    array of shape (n, decisions). Used in: Chapter 4, section "Bayes risk".
    """
    P, L = _check_risk_inputs(posteriors, loss)
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
    if int(n_classes) != n_classes or n_classes < 1:
        raise ValueError(f"n_classes must be a positive integer, got {n_classes}")
    return 1.0 - np.eye(int(n_classes))
