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
"""
import numbers

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp


def _label(value):
    """``repr`` of a label without numpy's type wrapper (``'b'``, not ``np.str_('b')``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


__all__ = [
    "CategoricalNB",
    "BernoulliNB",
    "MultinomialNB",
    "GaussianNB",
    "probability_table",
    "duplicated_attribute_posteriors",
    "parameter_counts",
    "log_odds_weights",
    "Table",
]


# ----------------------------------------------------------------------------- helpers
def _check_alpha(alpha):
    if not isinstance(alpha, numbers.Real) or isinstance(alpha, bool):
        raise TypeError(f"alpha must be a real number, got {type(alpha).__name__}")
    if not np.isfinite(alpha) or alpha < 0:
        raise ValueError(f"alpha must be finite and >= 0, got {alpha}")
    return float(alpha)


def _check_labels(y, n_samples):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional, got shape {y.shape}")
    if y.shape[0] != n_samples:
        raise ValueError(f"mismatched shapes: X has {n_samples} rows but y has {y.shape[0]} labels")
    if y.shape[0] == 0:
        raise ValueError("empty data: y has no labels")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError("y contains NaN labels")
    if y.dtype.kind == "O" and any(v is None for v in y):
        raise ValueError("y contains missing (None) labels")
    classes, y_idx = np.unique(y, return_inverse=True)
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
    """Float matrix (dense ndarray or CSR) without NaN or infinities."""
    if sp.issparse(X):
        if not allow_sparse:
            raise TypeError(f"{name} must be dense for this estimator")
        X = sp.csr_matrix(X)
        if X.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold numbers, got dtype {X.dtype}")
        if X.dtype.kind != "f":
            X = X.astype(np.float64)
        if X.data.size and not np.isfinite(X.data).all():
            raise ValueError(f"{name} contains NaN or infinite values")
    else:
        X = np.asarray(X)
        if X.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold numbers, got dtype {X.dtype}")
        X = X.astype(np.float64, copy=False)
        if X.ndim != 2:
            raise ValueError(f"{name} must be two-dimensional, got shape {X.shape}")
        if not np.isfinite(X).all():
            raise ValueError(f"{name} contains NaN or infinite values")
    if X.shape[0] == 0:
        raise ValueError(f"empty data: {name} has no rows")
    return X


# ------------------------------------------------------------------------ base class
class _BaseNB:
    """Shared prediction code: everything follows from ``_joint_log_likelihood``."""

    def _check_fitted(self):
        if not hasattr(self, "classes_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet: call fit(X, y) first")

    def _set_class_prior(self, class_count):
        """``class_log_prior_`` from counts (``fit_prior``) or ``class_prior``."""
        n_classes = class_count.shape[0]
        if self.class_prior is not None:
            prior = np.asarray(self.class_prior, dtype=float)
            if prior.shape != (n_classes,):
                raise ValueError(f"class_prior has {prior.size} entries but there are {n_classes} classes")
            if (prior < 0).any() or not np.isclose(prior.sum(), 1.0):
                raise ValueError("class_prior must be non-negative and sum to one")
        elif self.fit_prior:
            prior = class_count / class_count.sum()
        else:
            prior = np.full(n_classes, 1.0 / n_classes)
        self.class_log_prior_ = _log(prior)

    def predict_joint_log_proba(self, X):
        """Unnormalised log scores ``log P(y) + sum_j log P(x_j | y)``, shape (n, classes).

        Used in: Chapter 4, section "A worked example".
        """
        self._check_fitted()
        return self._joint_log_likelihood(X)

    def predict_joint_proba(self, X):
        """Unnormalised scores ``P(y) prod_j P(x_j | y)`` (the exponentiated joint log).

        These are the products a hand calculation writes down (Chapter 4, "A worked
        example"); they underflow for long documents, where the log version does not.
        """
        return np.exp(self.predict_joint_log_proba(X))

    def predict_log_proba(self, X):
        """Log posteriors ``log P(y | x)``: the joint log scores normalised per row.

        Raises ValueError for an example that every class gives probability zero
        (possible only with ``alpha = 0``).
        """
        jll = self.predict_joint_log_proba(X)
        norm = logsumexp(jll, axis=1, keepdims=True)
        if np.isneginf(norm).any():
            rows = np.flatnonzero(np.isneginf(norm).ravel())
            raise ValueError(
                f"every class has probability zero for example(s) {rows[:5].tolist()}: "
                "a zero count with alpha=0 (use alpha > 0)")
        return jll - norm

    def predict_proba(self, X):
        """Posterior probabilities ``P(y | x)``, shape (n, classes), rows sum to one."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The MAP class ``argmax_y P(y) prod_j P(x_j | y)`` for each row of ``X``."""
        jll = self.predict_joint_log_proba(X)
        return self.classes_[np.argmax(jll, axis=1)]


# ----------------------------------------------------------------- categorical (nominal)
def _is_missing(v):
    return v is None or (isinstance(v, float) and v != v)


class CategoricalNB(_BaseNB):
    """Naive Bayes for nominal attributes (strings, integers, any hashable values).

    Used in: Chapter 4, sections "Estimating the probabilities", "A worked example",
    "Two subtleties".

    Parameters
    ----------
    alpha : float, default 1.0
        Additive smoothing: ``(N(x_j = v, y) + alpha) / (N(y) + alpha k_j)``. ``1`` is
        Laplace's law of succession, ``0`` the maximum-likelihood estimate. Same meaning
        as scikit-learn's ``CategoricalNB(alpha=...)``.
    m : float or None, default None
        If given, use the m-estimate ``(N(x_j = v, y) + m p_v) / (N(y) + m)`` instead
        (``alpha`` is then not used). ``m`` is the number of "virtual examples".
    p : None or list, default None
        Prior estimates for the m-estimate, one entry per attribute: a dict
        ``{value: probability}`` or an array aligned with ``categories_[j]``. ``None``
        means uniform, ``p_v = 1 / k_j``, so that ``m = k_j`` gives Laplace.
    categories : None or list of sequences
        The possible values of each attribute. ``None`` takes the values seen in
        training. Give them when a value can occur but happens to be absent from the
        training data: ``k_j`` counts it and it gets a smoothed probability.
    fit_prior, class_prior
        As in scikit-learn: class priors from the class frequencies (default), uniform
        (``fit_prior=False``) or given.
    handle_unknown : {"error", "ignore"}
        What to do with a value at prediction time that is not among
        ``categories_[j]``: raise ValueError (default) or leave attribute ``j`` out of
        that example's product, as for a missing value.

    Missing values (``None`` or ``float('nan')``) are skipped: in ``fit`` they are not
    counted (the denominator is the number of examples of the class with attribute
    ``j`` observed) and in prediction the attribute drops out of the product.

    Fitted attributes: ``classes_``, ``class_count_``, ``class_log_prior_``,
    ``categories_`` (list of arrays), ``category_count_`` (list of (classes, k_j)
    arrays), ``feature_log_prob_`` (list of (classes, k_j) arrays of
    ``log P(x_j = v | y)``), ``n_features_in_``.

    Examples
    --------
    >>> X = [["sunny", "hot"], ["rain", "mild"], ["rain", "hot"]]
    >>> nb = CategoricalNB(alpha=1).fit(X, ["bad", "good", "good"])
    >>> nb.predict([["rain", "hot"]]).tolist()
    ['good']
    """

    def __init__(self, alpha=1.0, m=None, p=None, categories=None, fit_prior=True,
                 class_prior=None, handle_unknown="error"):
        self.alpha = alpha
        self.m = m
        self.p = p
        self.categories = categories
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.handle_unknown = handle_unknown

    @staticmethod
    def _as_table(X):
        if hasattr(X, "to_numpy"):  # a pandas DataFrame
            X = X.to_numpy(dtype=object)
        X = np.asarray(X, dtype=object)
        if X.ndim != 2:
            raise ValueError(f"X must be two-dimensional (examples x attributes), got shape {X.shape}")
        if X.shape[0] == 0:
            raise ValueError("empty data: X has no rows")
        return X

    def _encode(self, X, fitting=False):
        """Column-wise indices into ``categories_`` (-1 for missing / ignored)."""
        n, d = X.shape
        codes = np.full((n, d), -1, dtype=np.intp)
        for j in range(d):
            lookup = self._lookup[j]
            for i, v in enumerate(X[:, j]):
                if _is_missing(v):
                    continue
                try:
                    codes[i, j] = lookup[v]
                except (KeyError, TypeError):
                    if fitting or self.handle_unknown == "error":
                        where = "in the training data" if fitting else "at prediction time"
                        raise ValueError(
                            f"unknown category {v!r} of attribute {j} {where}; known values: "
                            f"{list(self.categories_[j])}"
                            + ("" if fitting else " (use handle_unknown='ignore' to skip it)")
                        ) from None
        return codes

    def fit(self, X, y):
        """Count ``N(y)`` and ``N(x_j = v, y)`` and turn them into smoothed estimates."""
        if self.handle_unknown not in ("error", "ignore"):
            raise ValueError(f"handle_unknown must be 'error' or 'ignore', got {self.handle_unknown!r}")
        alpha = _check_alpha(self.alpha)
        X = self._as_table(X)
        classes, y_idx = _check_labels(y, X.shape[0])
        n, d = X.shape
        if self.categories is not None:
            if len(self.categories) != d:
                raise ValueError(f"categories has {len(self.categories)} entries but X has {d} attributes")
            cats = [np.asarray(list(c), dtype=object) for c in self.categories]
            for j, c in enumerate(cats):
                if len(set(c.tolist())) != len(c) or len(c) == 0:
                    raise ValueError(f"categories[{j}] must list distinct values, at least one")
        else:
            cats = []
            for j in range(d):
                seen = [v for v in X[:, j] if not _is_missing(v)]
                if not seen:
                    raise ValueError(f"attribute {j} has no observed value in the training data")
                try:
                    cats.append(np.asarray(sorted(set(seen)), dtype=object))
                except TypeError:
                    raise TypeError(f"attribute {j} mixes values that cannot be ordered, "
                                    "e.g. strings and numbers") from None
        self.categories_ = cats
        self._lookup = [{v: k for k, v in enumerate(c)} for c in cats]
        codes = self._encode(X, fitting=True)

        n_classes = classes.size
        self.classes_ = classes
        self.class_count_ = np.bincount(y_idx, minlength=n_classes).astype(float)
        self.n_features_in_ = d
        self.category_count_, self.feature_log_prob_ = [], []
        for j in range(d):
            k = len(cats[j])
            seen = codes[:, j] >= 0
            counts = np.bincount(y_idx[seen] * k + codes[seen, j], minlength=n_classes * k)
            counts = counts.reshape(n_classes, k).astype(float)
            self.category_count_.append(counts)
            self.feature_log_prob_.append(self._estimate(counts, j))
        self._set_class_prior(self.class_count_)
        return self

    def _prior_vector(self, j):
        k = len(self.categories_[j])
        if self.p is None:
            return np.full(k, 1.0 / k)
        if len(self.p) != len(self.categories_):
            raise ValueError(f"p has {len(self.p)} entries but X has {len(self.categories_)} attributes")
        pj = self.p[j]
        if isinstance(pj, dict):
            unknown = set(pj) - set(self.categories_[j].tolist())
            if unknown:
                raise ValueError(f"p[{j}] names unknown categories {sorted(map(repr, unknown))}")
            pj = [pj.get(v, 0.0) for v in self.categories_[j]]
        pj = np.asarray(pj, dtype=float)
        if pj.shape != (k,):
            raise ValueError(f"p[{j}] must have {k} entries (one per category), got {pj.size}")
        if (pj < 0).any() or not np.isclose(pj.sum(), 1.0):
            raise ValueError(f"p[{j}] must be non-negative and sum to one")
        return pj

    def _estimate(self, counts, j):
        """log P(x_j = v | y) from the (classes, k) count table of attribute j."""
        total = counts.sum(axis=1, keepdims=True)
        k = counts.shape[1]
        if self.m is not None:
            m = float(self.m)
            if not np.isfinite(m) or m < 0:
                raise ValueError(f"m must be finite and >= 0, got {self.m}")
            num, den = counts + m * self._prior_vector(j), total + m
        else:
            alpha = float(self.alpha)
            num, den = counts + alpha, total + alpha * k
        if (den == 0).any():
            c = self.classes_[np.flatnonzero(den.ravel() == 0)[0]]
            raise ValueError(f"attribute {j} is never observed for class {_label(c)} and there is no "
                             "smoothing: its probabilities are 0/0 (use alpha > 0)")
        return _log(num) - np.log(den)

    def _joint_log_likelihood(self, X):
        X = self._as_table(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} attributes, the model was fitted with {self.n_features_in_}")
        codes = self._encode(X)
        jll = np.tile(self.class_log_prior_, (X.shape[0], 1))
        for j, flp in enumerate(self.feature_log_prob_):
            seen = codes[:, j] >= 0
            jll[seen] += flp[:, codes[seen, j]].T
        return jll


# -------------------------------------------------------------------- Bernoulli (0/1)
class BernoulliNB(_BaseNB):
    """Naive Bayes for binary attributes (word present / absent).

    Used in: Chapter 4, section "What naive Bayes cannot represent: XOR".

    ``P(x_j = 1 | y) = (N(x_j = 1, y) + alpha) / (N(y) + 2 alpha)``; an absent
    attribute contributes ``log(1 - P(x_j = 1 | y))``. ``X`` may be dense or
    scipy.sparse; values above ``binarize`` count as 1 (``binarize=None``: ``X`` is
    already 0/1). Fitted attributes as in scikit-learn: ``classes_``,
    ``class_count_``, ``class_log_prior_``, ``feature_count_``, ``feature_log_prob_``
    (log P(x_j = 1 | y)).
    """

    def __init__(self, alpha=1.0, binarize=0.0, fit_prior=True, class_prior=None):
        self.alpha = alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _binarize(self, X):
        X = _as_numeric_matrix(X)
        if self.binarize is None:
            values = X.data if sp.issparse(X) else X
            if not np.isin(values, (0.0, 1.0)).all():
                raise ValueError("X must be 0/1 when binarize=None")
            return X
        if sp.issparse(X):
            X = X.copy()
            X.data = (X.data > self.binarize).astype(np.float64)
            X.eliminate_zeros()
            return X
        return (X > self.binarize).astype(np.float64)

    def fit(self, X, y):
        """Count, per class, how many examples have each attribute equal to 1."""
        alpha = _check_alpha(self.alpha)
        X = self._binarize(X)
        classes, y_idx = _check_labels(y, X.shape[0])
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
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the model was fitted with {self.n_features_in_}")
        present, absent = self.feature_log_prob_, self._log_absent
        if np.isneginf(present).any() or np.isneginf(absent).any():
            # Only with alpha = 0: keep 0 * (-inf) out of the sums.
            Xd = X.toarray() if sp.issparse(X) else X
            jll = _logdot(Xd, present) + _logdot(1.0 - Xd, absent)
        else:
            jll = np.asarray(X @ (present - absent).T) + absent.sum(axis=1)
        return jll + self.class_log_prior_


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
    return np.asarray(_one_hot(y_idx, n_classes).T @ X)


def _one_hot(y_idx, n_classes):
    """Sparse (n, classes) indicator matrix of the class of each row."""
    n = y_idx.shape[0]
    return sp.csr_matrix((np.ones(n), (np.arange(n), y_idx)), shape=(n, n_classes))


# ------------------------------------------------------------------ multinomial (counts)
class MultinomialNB(_BaseNB):
    """Naive Bayes over word counts (bag of words), dense or scipy.sparse input.

    Used in: Chapter 5, "Text classification" (20 Newsgroups); tested against
    scikit-learn in tests/test_naive_bayes.py.

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

    @staticmethod
    def _check_counts(X):
        X = _as_numeric_matrix(X)
        values = X.data if sp.issparse(X) else X
        if values.size and values.min() < 0:
            raise ValueError("X must hold non-negative counts (negative value found)")
        return X

    def fit(self, X, y):
        """Sum the word counts of each class (one sparse product ``Y^T X``)."""
        alpha = _check_alpha(self.alpha)
        X = self._check_counts(X)
        classes, y_idx = _check_labels(y, X.shape[0])
        self.feature_count_ = _class_sums(X, y_idx, classes.size)
        self.classes_ = classes
        self.class_count_ = np.bincount(y_idx, minlength=classes.size).astype(float)
        self.n_features_in_ = X.shape[1]
        # Work on the (features, classes) transpose so that feature_log_prob_.T, the
        # operand of the prediction product, is C-contiguous (no copy per prediction).
        log_theta = self.feature_count_.T + alpha
        total = log_theta.sum(axis=0)
        if (total == 0).any():
            raise ValueError("a class has no words at all and alpha=0: its word distribution is 0/0")
        with np.errstate(divide="ignore"):
            np.log(log_theta, out=log_theta)
        log_theta -= np.log(total)
        self.feature_log_prob_ = log_theta.T
        self._set_class_prior(self.class_count_)
        return self

    def _joint_log_likelihood(self, X):
        X = self._check_counts(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the model was fitted with {self.n_features_in_}")
        return _logdot(X, self.feature_log_prob_) + self.class_log_prior_


# --------------------------------------------------------------------- Gaussian (real)
class GaussianNB(_BaseNB):
    """Naive Bayes with one univariate normal per attribute and class.

    Used in: Chapter 4, section "Naive Bayes versus the multivariate normal".

    Means ``theta_`` and variances ``var_`` are maximum-likelihood estimates
    (denominator ``N(y)``), as in scikit-learn; ``var_smoothing`` times the largest
    variance of any feature (over all data) is added to every variance
    (``epsilon_``), which keeps a constant attribute from dividing by zero.
    Equivalent to :class:`lib.gaussian.GaussianClassifier` with diagonal
    covariances. With ``var_smoothing=0`` a zero variance raises ValueError.
    """

    def __init__(self, var_smoothing=1e-9, priors=None):
        self.var_smoothing = var_smoothing
        self.priors = priors

    @property
    def class_prior(self):
        return self.priors

    fit_prior = True

    def fit(self, X, y):
        """Per class: the mean and (ML) variance of every attribute."""
        X = _as_numeric_matrix(X, allow_sparse=False)
        if not np.isfinite(self.var_smoothing) or self.var_smoothing < 0:
            raise ValueError(f"var_smoothing must be >= 0, got {self.var_smoothing}")
        classes, y_idx = _check_labels(y, X.shape[0])
        C, d = classes.size, X.shape[1]
        self.classes_ = classes
        self.class_count_ = np.bincount(y_idx, minlength=C).astype(float)
        self.theta_ = np.zeros((C, d))
        self.var_ = np.zeros((C, d))
        for c in range(C):
            Xc = X[y_idx == c]
            self.theta_[c] = Xc.mean(axis=0)
            self.var_[c] = Xc.var(axis=0)
        self.epsilon_ = self.var_smoothing * np.var(X, axis=0).max()
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
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the model was fitted with {self.n_features_in_}")
        diff = X[:, None, :] - self.theta_[None, :, :]
        log_pdf = -0.5 * (np.log(2 * np.pi * self.var_)[None] + diff ** 2 / self.var_[None])
        return log_pdf.sum(axis=2) + self.class_log_prior_


# ---------------------------------------------------------------- chapter helpers
def probability_table(model, names=None):
    """The estimated ``P(x_j = v | y)`` of a :class:`CategoricalNB` as printed fractions.

    Returns a list of rows ``(attribute, value, [numerator/denominator per class])``
    with the smoothed counts written unreduced, e.g. ``"3/12"``, the way a hand
    calculation shows them (Chapter 4, "A worked example"). ``names`` gives the
    attribute names (default ``x0, x1, ...``).
    """
    model._check_fitted()
    names = names or [f"x{j}" for j in range(model.n_features_in_)]
    rows = []
    for j, (cats, counts) in enumerate(zip(model.categories_, model.category_count_)):
        total = counts.sum(axis=1)
        k = len(cats)
        for v_idx, v in enumerate(cats):
            cells = []
            for c in range(len(model.classes_)):
                if model.m is not None:
                    num = counts[c, v_idx] + model.m * model._prior_vector(j)[v_idx]
                    den = total[c] + model.m
                else:
                    num = counts[c, v_idx] + model.alpha
                    den = total[c] + model.alpha * k
                cells.append(f"{num:g}/{den:g}")
            rows.append((names[j], v, cells))
    return rows


def duplicated_attribute_posteriors(X, y, x_new, column, copies, target, **params):
    """``P(target | x_new)`` when attribute ``column`` appears 1, 2, ... times.

    Fits a :class:`CategoricalNB` (keyword ``params``) on ``X`` with
    ``copies[i] - 1`` extra copies of the column appended, for each entry of
    ``copies``. Used in: Chapter 4, section "Subtlety 1: dependent attributes".
    """
    X = np.asarray(X, dtype=object)
    x_new = np.asarray(x_new, dtype=object).reshape(1, -1)
    out = []
    for k in copies:
        if k < 1:
            raise ValueError(f"copies must be >= 1, got {k}")
        Xk = np.hstack([X] + [X[:, [column]]] * (k - 1))
        xk = np.hstack([x_new] + [x_new[:, [column]]] * (k - 1))
        nb = CategoricalNB(**params).fit(Xk, y)
        out.append(nb.predict_proba(xk)[0, list(nb.classes_).index(target)])
    return np.array(out)


def parameter_counts(n_attributes, n_values=2, n_classes=2):
    """Free parameters of three ways of modelling ``n`` attributes and a class.

    Returns a dict with

    * ``"conditional"``: a table ``P(Y | X_1..X_n)``, one free number per class but
      one for every one of the ``n_values ** n`` attribute combinations;
    * ``"bayes"``: ``P(Y)`` plus a full table ``P(X_1..X_n | Y)`` per class;
    * ``"naive"``: ``P(Y)`` plus ``P(X_j | Y)`` per attribute and class (for Boolean
      attributes and classes ``2n + 1``).

    Python integers, so ``2 ** 100`` is exact. Used in: Chapter 4, section
    "Conditional independence".

    Examples
    --------
    >>> parameter_counts(3)
    {'conditional': 8, 'bayes': 15, 'naive': 7}
    """
    n, k, c = int(n_attributes), int(n_values), int(n_classes)
    if n < 1 or k < 2 or c < 2:
        raise ValueError("need n_attributes >= 1, n_values >= 2 and n_classes >= 2")
    return {
        "conditional": (c - 1) * k ** n,
        "bayes": (c - 1) + c * (k ** n - 1),
        "naive": (c - 1) + c * n * (k - 1),
    }


def log_odds_weights(model, positive, negative):
    """Naive Bayes as a linear model: ``log P(pos | x) / P(neg | x) = b + sum_j w_j[x_j]``.

    For a fitted :class:`CategoricalNB` returns ``(b, weights)``: the bias
    ``log P(pos) / P(neg)`` and, per attribute, an array over ``categories_[j]`` of
    ``log P(x_j = v | pos) / P(x_j = v | neg)``. With one-hot indicators of the
    values the log odds are a weighted sum of them, i.e. linear. Used in:
    Chapter 4, sections "Naive Bayes is linear" and "A worked example".
    """
    classes = list(model.classes_)
    for label in (positive, negative):
        if label not in classes:
            raise ValueError(f"unknown class {label!r}; classes are {classes}")
    p, q = classes.index(positive), classes.index(negative)
    bias = model.class_log_prior_[p] - model.class_log_prior_[q]
    weights = [flp[p] - flp[q] for flp in model.feature_log_prob_]
    return bias, weights


class Table:
    """A small table that notebooks and the book show as HTML (plain text elsewhere).

    ``header`` is a list of column names, ``rows`` a list of lists; the rows whose
    indices are in ``bold`` are set in bold. Cell values are escaped. Used in:
    Chapter 4 to show the data and the probability tables (a Markdown table would
    need a table-aware Markdown renderer for notebook outputs).
    """

    def __init__(self, header, rows, bold=()):
        self.header = [str(h) for h in header]
        self.rows = [[str(v) for v in row] for row in rows]
        if any(len(r) != len(self.header) for r in self.rows):
            raise ValueError("every row must have one value per column of the header")
        self.bold = set(bold)

    def _repr_html_(self):
        from html import escape

        def cells(values, tag, strong=False):
            wrap = (lambda v: f"<b>{escape(v)}</b>") if strong else escape
            return "".join(f"<{tag}>{wrap(v)}</{tag}>" for v in values)

        head = f"<thead><tr>{cells(self.header, 'th')}</tr></thead>"
        body = "".join(f"<tr>{cells(r, 'td', i in self.bold)}</tr>" for i, r in enumerate(self.rows))
        return f"<table>{head}<tbody>{body}</tbody></table>"

    def __repr__(self):
        widths = [max(len(x) for x in col) for col in zip(self.header, *self.rows)]
        lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths)) for r in [self.header, *self.rows]]
        return "\n".join(lines)
