"""Chapter 4's helpers around the classifiers: probability tables as fractions, duplicated
attributes, parameter counts, naive Bayes as a linear model and a small HTML table."""
import numpy as np

from lib._validation import check_is_fitted, check_scalar
from lib.naive_bayes.categorical import CategoricalNB


def probability_table(model, names=None):
    """The estimated ``P(x_j = v | y)`` of a :class:`CategoricalNB` as printed fractions.

    Returns a list of rows ``(attribute, value, [numerator/denominator per class])``
    with the smoothed counts written unreduced, e.g. ``"3/12"``, the way a hand
    calculation shows them (Chapter 4, "A worked example"). ``names`` gives the
    attribute names (default ``x0, x1, ...``).
    """
    check_is_fitted(model, "classes_")
    names = list(names) if names is not None else [f"x{j}" for j in range(model.n_features_in_)]
    if len(names) != model.n_features_in_:
        raise ValueError(f"names must give one name per attribute ({model.n_features_in_}), "
                         f"got {len(names)}")
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
        k = check_scalar(k, "copies[i]", kind="integer", low=1)
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
    n = check_scalar(n_attributes, "n_attributes", kind="integer", low=1)
    k = check_scalar(n_values, "n_values", kind="integer", low=2)
    c = check_scalar(n_classes, "n_classes", kind="integer", low=2)
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
    check_is_fitted(model, "classes_")
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
