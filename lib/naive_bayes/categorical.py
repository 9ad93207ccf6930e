"""Naive Bayes for nominal attributes: counts, Laplace and m-estimate smoothing, missing
and unknown values (Chapter 4, sections "Estimating the probabilities", "A worked
example", "Two subtleties")."""
import numpy as np

from lib._validation import (
    check_n_features,
    check_option,
    check_probability_vector,
    check_scalar,
    check_table,
    is_missing,
)
from lib.naive_bayes._base import _BaseNB, _encode_labels, _label, _log


class CategoricalNB(_BaseNB):
    """Naive Bayes for nominal attributes (strings, integers, any hashable values).

    Used in: Chapter 4, sections "Estimating the probabilities", "A worked example",
    "Two subtleties".

    Missing values (``None`` or ``float('nan')``) are skipped: in ``fit`` they are not
    counted (the denominator is the number of examples of the class with attribute
    ``j`` observed) and in prediction the attribute drops out of the product.

    Fitted attributes: ``classes_``, ``class_count_``, ``class_log_prior_``,
    ``categories_`` (list of arrays), ``category_count_`` (list of (classes, k_j)
    arrays), ``feature_log_prob_`` (list of (classes, k_j) arrays of
    ``log P(x_j = v | y)``), ``n_features_in_``.

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
        return check_table(X, "X")

    def _encode(self, X, fitting=False):
        """Column-wise indices into ``categories_`` (-1 for missing / ignored)."""
        n, d = X.shape
        codes = np.full((n, d), -1, dtype=np.intp)
        for j in range(d):
            lookup = self._lookup[j]
            for i, v in enumerate(X[:, j]):
                if is_missing(v):
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
        check_option(self.handle_unknown, "handle_unknown", ("error", "ignore"))
        check_scalar(self.alpha, "alpha", low=0, high=1e100)  # larger ones overflow the sums
        if self.m is not None:
            check_scalar(self.m, "m", low=0)
        X = self._as_table(X)
        classes, y_idx = _encode_labels(y, X.shape[0])
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
                seen = [v for v in X[:, j] if not is_missing(v)]
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
        return check_probability_vector(pj, f"p[{j}]", size=k)

    def _estimate(self, counts, j):
        """log P(x_j = v | y) from the (classes, k) count table of attribute j."""
        total = counts.sum(axis=1, keepdims=True)
        k = counts.shape[1]
        if self.m is not None:
            m = check_scalar(self.m, "m", low=0)
            num, den = counts + m * self._prior_vector(j), total + m
        else:
            alpha = check_scalar(self.alpha, "alpha", low=0, high=1e100)
            num, den = counts + alpha, total + alpha * k
        if (den == 0).any():
            c = self.classes_[np.flatnonzero(den.ravel() == 0)[0]]
            raise ValueError(f"attribute {j} is never observed for class {_label(c)} and there is no "
                             "smoothing: its probabilities are 0/0 (use alpha > 0)")
        return _log(num) - np.log(den)

    def _joint_log_likelihood(self, X):
        X = self._as_table(X)
        check_n_features(self, X)
        codes = self._encode(X)
        jll = np.tile(self.class_log_prior_, (X.shape[0], 1))
        for j, flp in enumerate(self.feature_log_prob_):
            seen = codes[:, j] >= 0
            jll[seen] += flp[:, codes[seen, j]].T
        return jll


