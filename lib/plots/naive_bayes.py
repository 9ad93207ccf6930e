"""Figures of Chapter 4 ("Naive Bayes and Bayes classifiers"): the posterior under the
m-estimate, evidence counted twice by a duplicated attribute, each attribute's vote, and
the flowers two classifiers get wrong under leave-one-out. The models come from
:mod:`lib.naive_bayes` (and :mod:`lib.evaluation` for the leave-one-out predictions).
"""
import numpy as np

from lib.naive_bayes import CategoricalNB, log_odds_weights
from lib.plots.gaussian import scatter_classes
from lib.plots.style import new_figure

__all__ = ["plot_posterior_vs_m", "plot_duplicated_evidence", "plot_evidence", "plot_loo_mistakes"]


def plot_posterior_vs_m(X, y, x_new, target, m_values, marks=(), reference=None):
    """Posterior ``P(target | x_new)`` under the m-estimate as a function of ``m``.

    ``m = 0`` is the maximum-likelihood estimate; with a uniform prior ``p`` the value
    at ``m = k_j`` equals Laplace smoothing. ``marks``: ``(m, label)`` pairs to
    annotate; ``reference``: a probability drawn as a dotted line (e.g. the class
    prior, the limit for large ``m``). Used in: Chapter 4, section "The m-estimate".
    """
    import matplotlib.pyplot as plt

    t = list(CategoricalNB().fit(X, y).classes_).index(target)
    post = [CategoricalNB(m=m).fit(X, y).predict_proba(x_new)[:, t] for m in m_values]
    post = np.array(post)
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for q in range(post.shape[1]):
        ax.plot(m_values, post[:, q], label=", ".join(map(str, np.asarray(x_new, dtype=object)[q])))
    for m, label in marks:
        ax.axvline(m, color="0.6", lw=0.8, ls="--")
        ax.annotate(label, (m, 0.02), rotation=90, ha="right", va="bottom", fontsize=8, color="0.3")
    ax.axhline(0.5, color="0.8", lw=0.8)
    if reference is not None:
        ax.axhline(reference, color="0.3", ls=":", lw=1, label=f"prior {reference:.3f}")
    ax.set(xlabel="equivalent sample size m", ylabel=f"P({target} | x)", ylim=(0, 1))
    ax.legend(title="query x", fontsize=8)
    fig.tight_layout()
    return fig


def plot_duplicated_evidence(copies, posteriors, target):
    """Bar chart of ``P(target | x)`` against the number of copies of one attribute.

    Used in: Chapter 4, section "Subtlety 1: dependent attributes".
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.bar([str(k) for k in copies], posteriors, color="tab:blue")
    ax.axhline(0.5, color="0.5", lw=0.8, ls="--")
    for k, p in zip(copies, posteriors):
        ax.annotate(f"{p:.3f}", (str(k), p), ha="center", va="bottom", fontsize=8)
    ax.set(xlabel="copies of the attribute 'outlook'", ylabel=f"P({target} | x)", ylim=(0, 1.08))
    fig.tight_layout()
    return fig


def plot_evidence(model, x, names, positive, negative):
    """Bar chart of each attribute's vote ``log P(x_j | pos) / P(x_j | neg)`` for ``x``.

    ``x`` is a list of examples (one panel each). Bars to the right support
    ``positive``; the title gives the prior term and the total log odds. Used in:
    Chapter 4, section "A worked example" (naive Bayes is easy to interpret).
    """
    import matplotlib.pyplot as plt

    bias, weights = log_odds_weights(model, positive, negative)
    x = np.asarray(x, dtype=object)
    fig, axes = plt.subplots(1, len(x), figsize=(4.2 * len(x), 2.8), sharex=True, squeeze=False)
    for ax, row in zip(axes[0], x):
        votes = [weights[j][list(model.categories_[j]).index(v)] for j, v in enumerate(row)]
        labels = [f"{n} = {v}" for n, v in zip(names, row)]
        colours = ["tab:green" if w > 0 else "tab:red" for w in votes]
        ax.barh(labels[::-1], votes[::-1], color=colours[::-1])
        ax.axvline(0, color="0.3", lw=0.8)
        ax.set_title(f"prior {bias:+.2f}, total log odds {bias + sum(votes):+.2f}", fontsize=9)
        ax.set_xlabel(f"log P(x_j | {positive}) / P(x_j | {negative})")
    fig.tight_layout()
    return fig


def plot_loo_mistakes(X, y, predictions, titles, labels=None,
                      axis_labels=("petal length (cm)", "petal width (cm)")):
    """Scatter of two-attribute data with the examples each classifier gets wrong ringed.

    ``predictions`` is a list of prediction arrays (e.g. leave-one-out predictions from
    :func:`lib.evaluation.leave_one_out_predict`), one panel each, with ``titles``;
    a ring marks every example whose prediction differs from ``y``, and the panel's
    title counts them. Used in: Chapter 4, section "Naive Bayes versus the multivariate
    normal" (leave-one-out on Iris2).
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    classes = np.unique(y)
    fig = new_figure((4.6 * len(predictions), 3.8))
    axes = np.atleast_1d(fig.subplots(1, len(predictions), sharey=True))
    for ax, predicted, title in zip(axes, predictions, titles):
        wrong = np.asarray(predicted) != y
        scatter_classes(ax, X, y, classes, labels)
        ax.scatter(X[wrong, 0], X[wrong, 1], s=90, facecolor="none", edgecolor="k", lw=1.2,
                   label="misclassified")
        ax.set(title=f"{title}:\n{wrong.sum()} wrong of {y.size}", xlabel=axis_labels[0])
    axes[0].set_ylabel(axis_labels[1])
    axes[0].legend(fontsize=8, loc="upper left")
    return fig
