"""Figures of Chapter 3 ("Minimum description length"): stacked description lengths and
the polynomial-degree explorer. The numbers come from :mod:`lib.mdl`.
"""
import numpy as np
from matplotlib.ticker import MaxNLocator

from lib.mdl import TRUE_COEF, bic, polynomial_data, polynomial_scores, two_part_code
from lib.plots.live import LiveFigure
from lib.plots.style import clear_data, legend_under, new_figure

__all__ = ["plot_description_lengths", "plot_selection_panels", "plot_polynomial_mdl"]


def plot_description_lengths(names, data, model, ax=None, title=None, baseline=True):
    """Stacked bars of data bits and model bits per candidate; the shortest is starred.

    With ``baseline`` the smallest data length is subtracted from all data bars (the
    same for every candidate, so the choice is unchanged) to make the differences
    visible. Used in: Chapter 3, figures of description lengths.
    """
    data, model = np.asarray(data, dtype=float), np.asarray(model, dtype=float)
    if ax is None:
        ax = new_figure((5, 3.4)).subplots()
    base = data[np.isfinite(data)].min() if baseline else 0.0
    pos = np.arange(len(names))
    ax.bar(pos, data - base, color="tab:blue", label="data bits" + (" (above best fit)" if baseline else ""))
    ax.bar(pos, model, bottom=data - base, color="tab:orange", label="model bits")
    total = data - base + model
    best = int(np.argmin(total))
    ax.plot(best, total[best] * 1.04 + 0.5, marker="*", color="black", ms=12, ls="none",
            label="shortest total")
    ax.set_xticks(pos, names)
    ax.set_ylabel("bits")
    if title:
        ax.set_title(title, fontsize=10)
    # the legend in a band above the tallest bar, where no bar reaches
    top = np.max(total[np.isfinite(total)])
    ticks = MaxNLocator(nbins=6).tick_values(0, top)
    ax.set_yticks(ticks[(ticks >= 0) & (ticks <= 1.05 * top)])
    ax.set_ylim(0, 1.5 * top)
    ax.legend(frameon=False, fontsize=8, loc="upper right", ncol=1)
    return ax.figure


def plot_selection_panels(panels, ncols=2):
    """Grid of :func:`plot_description_lengths` panels, one per ``(title, names, data, model)``.

    Used in: Chapter 3, figure "Description lengths at two sample sizes".
    """
    nrows = -(-len(panels) // ncols)
    fig = new_figure((4.6 * ncols, 3.2 * nrows))
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for ax, (title, names, data, model) in zip(axes.flat, panels):
        plot_description_lengths(names, data, model, ax=ax, title=title)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    return fig


def plot_polynomial_mdl(n=30, noise=0.3, seed=0, degrees=tuple(range(8)), precision=0.01,
                        live=None):
    """Data with the MDL-chosen polynomial, and stacked description lengths per degree.

    The callback of Chapter 3's interactive figure (section "Explore: sample size and
    noise"); it regenerates the data with ``np.random.default_rng(seed)``. ``live``: a
    :class:`lib.plots.live.LiveFigure` this function drew into before; what its two
    axes show is drawn again (a live redraw, see :func:`lib.plots.interactive.interactive_figure`).
    Returns the ``Figure``.
    """
    x, y = polynomial_data(n, noise, np.random.default_rng(seed))
    degrees = [d for d in degrees if d < n - 1]
    s = polynomial_scores(x, y, degrees, precision)
    data, model, total = two_part_code(s["loglik_bins"], s["d"], n)
    best = degrees[int(np.argmin(total))]
    best_bic = degrees[int(np.argmin(bic(s["loglik_density"], s["d"], n)))]
    live = LiveFigure() if live is None else live
    if live.state_for("mdl") is None:  # the first draw: the axes
        fig = new_figure((9, 3.4))
        live.start(fig, "mdl", fig.subplots(1, 2))
    else:  # a live redraw: the same axes, drawn again
        clear_data(*live.state)
    (ax0, ax1), fig = live.state, live.fig
    grid = np.linspace(-1, 1, 200)
    ax0.scatter(x, y, s=10, color="tab:gray", label="data")
    ax0.plot(grid, np.polynomial.polynomial.polyval(grid, TRUE_COEF), "k--", label="true curve")
    fit = np.polynomial.polynomial.polyfit(x, y, best)
    ax0.plot(grid, np.polynomial.polynomial.polyval(grid, fit), color="tab:red",
             label=f"MDL choice: degree {best}")
    ax0.set(xlabel="$x$", ylabel="$y$", title=f"N = {n}, noise = {noise:g}")
    # under the panel: inside, the noisier settings leave no corner free of points
    legend_under(ax0, -0.2, fontsize=8)
    plot_description_lengths([str(d) for d in degrees], data, model, ax=ax1,
                             title=f"MDL picks degree {best},\nBIC picks degree {best_bic}")  # one line: wider than the panel
    ax1.set_xlabel("polynomial degree")
    return fig
