"""Figures of Chapter 9 ("Nonparametric density estimation"): the mixture and its sample,
kNN and kernel estimates, cross-validation curves and the k/w explorer. The numbers come
from :mod:`lib.density`.
"""
import numpy as np

from lib._validation import check_points
from lib.density import kernel_density, knn_density, mixture_density
from lib.plots.live import LiveFigure
from lib.plots.style import new_figure

__all__ = ["plot_sample", "plot_estimates", "plot_cross_validation", "plot_density_sliders",
           "plot_curse"]


def _grid(n=80, lo=0.0, hi=1.0):
    g = np.linspace(lo, hi, n)
    xx, yy = np.meshgrid(g, g)
    return g, np.column_stack([xx.ravel(), yy.ravel()])


def _show_density(ax, values, n, title, vmax=None):
    ax.imshow(values.reshape(n, n), origin="lower", extent=(0, 1, 0, 1), cmap="viridis",
              vmin=0, vmax=vmax, interpolation="nearest", aspect="equal")
    ax.set_title(title, fontsize=10)
    ax.set_xticks([0, 0.5, 1])
    ax.set_yticks([0, 0.5, 1])


def plot_sample(data, queries=((0.45, 0.55), (0.78, 0.60)), k=10):
    """Figure 20.7 of the source, in two panels: the true mixture density, and the
    sample with two query points and their k-nearest-neighbourhoods (circles).

    Used in: Chapter 9, section "A sample from a mixture".
    """
    data = check_points(data, "data", 2)
    fig = new_figure((8.4, 3.8))
    ax1 = fig.add_subplot(1, 2, 1, projection="3d")
    g = np.linspace(0, 1, 60)
    xx, yy = np.meshgrid(g, g)
    zz = mixture_density(np.column_stack([xx.ravel(), yy.ravel()])).reshape(xx.shape)
    ax1.plot_surface(xx, yy, zz, cmap="viridis", linewidth=0, rstride=2, cstride=2)
    ax1.set_title("(a) the mixture density", fontsize=10)
    ax1.set_xlabel("$x_1$")
    ax1.set_ylabel("$x_2$")
    ax2 = fig.add_subplot(1, 2, 2)
    ax2.scatter(data[:, 0], data[:, 1], s=10, color="k")
    for q in np.asarray(queries, float):
        r = np.sqrt(np.sort(((data - q) ** 2).sum(axis=1))[k - 1])
        ax2.plot(*q, marker="s", color="C3", markersize=6)
        t = np.linspace(0, 2 * np.pi, 200)
        ax2.plot(q[0] + r * np.cos(t), q[1] + r * np.sin(t), color="C3")
    ax2.set_xlim(0, 1)
    ax2.set_ylim(0, 1)
    ax2.set_aspect("equal")
    ax2.set_title(f"(b) {len(data)} points; {k}-nearest-neighbourhoods", fontsize=10)
    return fig


def plot_estimates(data, method, values, n_grid=80):
    """One panel per value: the kNN (``method="knn"``, values of k) or Gaussian kernel
    (``method="kernel"``, widths w) density estimate on the unit square, with the
    sample on top. Figures 20.8 and 20.9 of the source.

    Used in: Chapter 9, sections "k nearest neighbours" and "Kernel density estimation".
    """
    data = check_points(data, "data", 2)
    _, grid = _grid(n_grid)
    fig = new_figure((3.0 * len(values), 3.1))
    axes = fig.subplots(1, len(values), squeeze=False)[0]
    for ax, v in zip(axes, values):
        if method == "knn":
            p, title = knn_density(grid, data, v), f"k = {v}"
        else:
            p, title = kernel_density(grid, data, v), f"w = {v}"
        _show_density(ax, p, n_grid, title, vmax=np.percentile(p, 99.5))
        ax.scatter(data[:, 0], data[:, 1], s=3, color="w", alpha=0.7)
    return fig


def plot_cross_validation(k_values, k_scores, widths, w_scores):
    """Held-out log-likelihood per point against k (left) and against w (right).

    Used in: Chapter 9, section "Choosing k and w by cross-validation".
    """
    fig = new_figure((8.0, 3.0))
    ax1, ax2 = fig.subplots(1, 2)
    for ax, x, y, label in [(ax1, k_values, k_scores, "k (neighbours)"),
                            (ax2, widths, w_scores, "w (kernel width)")]:
        ax.plot(x, y, marker="o", markersize=3)
        best = int(np.argmax(y))
        ax.plot(x[best], y[best], marker="*", color="C3", markersize=12)
        ax.set_xscale("log")
        ax.set_xlabel(label)
    ax1.set_ylabel("held-out log-likelihood per point")
    return fig


def plot_density_sliders(k=10, width=0.07, data=None, n_grid=60, live=None):
    """The interactive figure of Chapter 9: the true density, the kNN estimate for
    ``k`` and the kernel estimate for ``width``, side by side (fast: under 100 ms).
    ``live``: a :class:`lib.plots.live.LiveFigure` this function drew into before for
    the same ``data`` and ``n_grid``; its two estimate images get the new values (a live
    redraw, see :func:`lib.plots.interactive.interactive_figure`). Returns the ``Figure``.

    Used in: Chapter 9, section "Try it: k and w".
    """
    data = check_points(data, "data", 2)
    _, grid = _grid(n_grid)
    estimates = [(knn_density(grid, data, k), f"kNN, k = {k}"),
                 (kernel_density(grid, data, width), f"kernel, w = {width:.3f}")]
    same = (n_grid, data.tobytes())
    live = LiveFigure() if live is None else live
    if live.state_for(same) is None:  # the first draw
        _density_figure(live, same, data, grid, n_grid, estimates)
    for ax, (values, title) in zip(live.state, estimates):  # the estimates' pictures
        ax.images[0].set_data(values.reshape(n_grid, n_grid))
        ax.title.set_text(title)
    return live.fig


def _density_figure(live, same, data, grid, n_grid, estimates):
    """The first drawing of :func:`plot_density_sliders` (into ``live``)."""
    truth = mixture_density(grid)
    vmax = truth.max() * 1.3
    fig = new_figure((9.0, 3.1))
    axes = fig.subplots(1, 3)
    _show_density(axes[0], truth, n_grid, "true density", vmax)
    for ax, (values, title) in zip(axes[1:], estimates):
        _show_density(ax, values, n_grid, title, vmax)
    for ax in axes[1:]:
        ax.scatter(data[:, 0], data[:, 1], s=3, color="w", alpha=0.7)
    live.start(fig, same, axes[1:])
    # what a live redraw changes (the true density and the frames are kept as pixels)
    moving = [artist for ax in axes[1:] for artist in (ax.images[0], ax.collections[0], ax.title)]
    live.blit(moving, same)


_CURSE_STYLE = {"em": ("EM mixture (3 components)", "C0", "o"),
                "kernel": ("kernel, w by CV", "C1", "s"),
                "knn": ("kNN, k by CV", "C2", "^")}


def plot_curse(ns, by_n, ds, by_d):
    """The curse of dimensionality, measured: (a) mean held-out log likelihood per
    point against the training-set size ``ns`` (one dimension), with the true
    density's as the dashed reference; (b) the shortfall from the true density
    (true minus estimate, nats per point, log scale) against the dimensions ``ds``.
    ``by_n`` and ``by_d`` are lists of the dicts of :func:`lib.density.held_out_scores`.

    Used in: Chapter 9, section "The curse of dimensionality, measured".
    """
    fig = new_figure((9.0, 3.4))
    ax1, ax2 = fig.subplots(1, 2)
    ax1.plot(ns, [r["true"] for r in by_n], "k--", label="true density")
    for key, (label, colour, marker) in _CURSE_STYLE.items():
        ax1.plot(ns, [r[key] for r in by_n], color=colour, marker=marker, label=label)
        ax2.plot(ds, [r["true"] - r[key] for r in by_d], color=colour, marker=marker, label=label)
    ax1.set_xscale("log")
    ax1.set_xlabel("training points N")
    ax1.set_ylabel("held-out log likelihood per point")
    ax1.set_title("(a) against N", fontsize=10)
    # one legend under both panels (the same methods in both): inside, the curves fill them
    fig.legend(*ax1.get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=8, frameon=False)
    ax2.set_xscale("log", base=2)
    ax2.set_yscale("log")
    ax2.set_xticks(ds, [str(d) for d in ds])
    ax2.set_xlabel("dimension d")
    ax2.set_ylabel("shortfall from the true density (nats)")
    ax2.set_title("(b) against d", fontsize=10)
    return fig
