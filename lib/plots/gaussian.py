"""Figures of Chapter 4's Gaussian sections: class densities, decision regions and the
Bayes risk boundary. The models come from :mod:`lib.gaussian` (or any fitted classifier
with ``predict_proba`` and ``classes_``).
"""
import numpy as np

from lib.plots.live import LiveFigure

__all__ = ["plot_class_densities", "plot_decision_regions", "plot_risk_boundary", "scatter_classes"]


_COLOURS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]


def _grid(X, n=200, pad=0.6):
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    g0, g1 = np.meshgrid(np.linspace(lo[0], hi[0], n), np.linspace(lo[1], hi[1], n))
    return g0, g1, np.column_stack([g0.ravel(), g1.ravel()])


def scatter_classes(ax, X, y, classes, labels=None, colours=_COLOURS):
    """Scatter the 2-D points ``X`` on ``ax``, one colour per class of ``classes`` (in
    that order), labelled ``labels`` (default: the classes) for a legend.

    The data layer of Chapter 4's figures of two features (section "Gaussian classes:
    Iris2"; :func:`lib.plots.naive_bayes.plot_loo_mistakes`).
    """
    for c, cls in enumerate(classes):
        pts = X[np.asarray(y) == cls]
        ax.scatter(pts[:, 0], pts[:, 1], s=12, color=colours[c % len(colours)], edgecolor="white",
                   lw=0.4, label=(labels or classes)[c])


def plot_class_densities(model, X, y, labels=None, axis_labels=("petal length (cm)", "petal width (cm)")):
    """Contours of each class's fitted normal density over a scatter of the data.

    Used in: Chapter 4, section "Gaussian classes: Iris2".
    """
    import matplotlib.pyplot as plt

    X = np.asarray(X, dtype=float)
    g0, g1, pts = _grid(X)
    dens = np.exp(model.log_density(pts))
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for c in range(model.classes_.size):
        z = dens[:, c].reshape(g0.shape)
        ax.contour(g0, g1, z, levels=z.max() * np.array([0.05, 0.3, 0.7]), colors=_COLOURS[c % 5],
                   linewidths=1)
    scatter_classes(ax, X, y, model.classes_, labels)
    ax.set(xlabel=axis_labels[0], ylabel=axis_labels[1])
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def plot_decision_regions(models, X, y, titles, labels=None,
                          axis_labels=("petal length (cm)", "petal width (cm)")):
    """Decision regions (shaded) and boundaries of one or more fitted classifiers.

    ``models`` is a list of fitted estimators with ``predict_proba`` and ``classes_``
    (same classes); one panel each, side by side. Used in: Chapter 4, sections
    "Discriminant functions" and "Naive Bayes versus the multivariate normal".
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    X = np.asarray(X, dtype=float)
    g0, g1, pts = _grid(X)
    fig, axes = plt.subplots(1, len(models), figsize=(5.2 * len(models), 4.2), squeeze=False,
                             sharey=True)
    for ax, model, title in zip(axes[0], models, titles):
        C = model.classes_.size
        region = np.argmax(model.predict_proba(pts), axis=1).reshape(g0.shape)
        cmap = ListedColormap(_COLOURS[:C])
        ax.contourf(g0, g1, region, levels=np.arange(C + 1) - 0.5, cmap=cmap, alpha=0.15)
        ax.contour(g0, g1, region, levels=np.arange(C) + 0.5, colors="k", linewidths=1)
        scatter_classes(ax, X, y, model.classes_, labels)
        ax.set(title=title, xlabel=axis_labels[0])
    axes[0, 0].set_ylabel(axis_labels[1])
    axes[0, 0].legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def plot_risk_boundary(loss_ratio, model, X, y, labels=None, colours=("tab:blue", "tab:orange"),
                       axis_labels=("petal length (cm)", "petal width (cm)"), live=None):
    """Two-class Bayes risk boundary for a loss ratio ``L12 / L21`` (interactive figure).

    ``model`` is a fitted two-class classifier. Class 1 (``classes_[0]``) is chosen
    where ``L21 P(1 | x) > L12 P(2 | x)``, i.e. where the log posterior odds exceed
    ``ln(L12 / L21)``. The dashed line is the MAP boundary (ratio 1), the solid line
    the Bayes risk boundary; the title counts the training points on each side of
    the rule that are misclassified; ``colours`` are those of the two classes.
    ``live``: a :class:`lib.plots.live.LiveFigure` this function drew into before for the
    same model and data; only the regions, the boundary and the title are drawn again (a
    live redraw, see :func:`lib.plots.interactive.interactive_figure`). Returns the ``Figure``.
    Used in: Chapter 4, section "Bayes risk".
    """
    import matplotlib.pyplot as plt

    if not loss_ratio > 0:
        raise ValueError(f"loss_ratio must be positive, got {loss_ratio}")
    if model.classes_.size != 2:
        raise ValueError("plot_risk_boundary needs a two-class model")
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    threshold = np.log(loss_ratio)
    names = labels or [str(c) for c in model.classes_]
    same = (model, X.tobytes(), y.tobytes(), tuple(names), tuple(colours), tuple(axis_labels))
    live = LiveFigure() if live is None else live
    cached = live.state_for(same)
    if cached is not None:
        g0, g1, odds, lpx = cached["grid"]  # the log odds do not depend on the loss ratio
        for artist in cached["moving"]:
            artist.remove()
        fig, ax = live.fig, live.fig.axes[0]
    else:
        g0, g1, pts = _grid(X, n=100, pad=0.4)
        lp = model.predict_log_proba(pts)
        odds = (lp[:, 0] - lp[:, 1]).reshape(g0.shape)
        lpx = model.predict_log_proba(X)
        fig, ax = plt.subplots(figsize=(6, 4.2))
        ax.contour(g0, g1, odds, levels=[0.0], colors="0.4", linewidths=1, linestyles="--")
        scatter_classes(ax, X, y, model.classes_, names, colours)
        ax.set(xlabel=axis_labels[0], ylabel=axis_labels[1])
        ax.legend(fontsize=8, loc="upper left")
        fig.subplots_adjust(left=0.11, right=0.97, bottom=0.12, top=0.92)  # tight_layout is slow
    choose1 = lpx[:, 0] - lpx[:, 1] > threshold
    truth1 = y == model.classes_[0]
    miss1 = int((truth1 & ~choose1).sum())
    miss2 = int((~truth1 & choose1).sum())
    # regions under the points (zorder 0), boundary with the dashed MAP line (zorder 2)
    regions = ax.contourf(g0, g1, (odds > threshold).astype(float), levels=[-0.5, 0.5, 1.5],
                          colors=[colours[1], colours[0]], alpha=0.15, zorder=0)
    boundary = ax.contour(g0, g1, odds, levels=[threshold], colors="k", linewidths=1.5)
    ax.set_title(f"L12/L21 = {loss_ratio:.3g}: {miss1} {names[0]} and {miss2} {names[1]} misclassified",
                 fontsize=10)
    if cached is None:
        live.start(fig, same, {"model": model, "grid": (g0, g1, odds, lpx)})
    live.state["moving"] = (regions, boundary)
    return fig
