"""Figures of Chapter 2 ("Estimating probabilities"): Beta densities, the grid of bags
against the Beta posterior, the prior-plus-data explorer, the linear Gaussian fit,
cross entropy against squared error, and the table of parameter counts. The numbers come from :mod:`lib.estimation`.
"""
import numpy as np
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator
from scipy.special import betaln, expit

from lib._validation import check_scalar
from lib.estimation import (
    BetaPosterior,
    bernoulli_log_likelihood,
    grid_learner,
    mle_bernoulli,
    n_params_full_table,
    n_params_joint_given_class,
    n_params_naive_bayes,
)
from lib.plots.live import LiveFigure
from lib.plots.style import clear_data, new_figure
from lib.plots.tables import markdown_table

#: The axes' height over the data's in the figures with a legend band at the top
#: (:func:`plot_grid_vs_beta`: two legend rows; :func:`plot_beta_update`: three)
LEGEND_BAND, BETA_BAND = 1.35, 1.5

__all__ = ["plot_beta_densities", "plot_beta_panels", "plot_beta_update", "plot_linear_gaussian",
           "plot_grid_vs_beta", "plot_loss_comparison", "parameter_count_table"]


def plot_beta_densities(params, ax=None, title=None):
    """Plot beta[a, b] densities for each ``(a, b)`` in ``params``; return the Figure.

    Used in: Chapter 2, figure of Beta densities (Figure 20.5 of Russell and Norvig).
    """
    if ax is None:
        ax = new_figure((5, 3.4)).subplots()
    fig = ax.figure
    theta = np.linspace(0, 1, 401)
    for a, b in params:
        ax.plot(theta, BetaPosterior(a, b).pdf(theta), label=f"beta[{a:g}, {b:g}]")
    ax.set(xlabel=r"parameter $\theta$", ylabel=r"density $P(\Theta=\theta)$", xlim=(0, 1))
    ax.set_ylim(bottom=0)
    if title:
        ax.set_title(title)
    ax.legend(frameon=False)
    return fig


def plot_beta_panels(left, right, titles=("", "")):
    """Two side-by-side panels of beta densities (Russell and Norvig, Figure 20.5 a and b).

    ``left`` and ``right`` are lists of ``(a, b)`` pairs. Used in: Chapter 2,
    section "Beta priors are virtual counts".
    """
    fig = new_figure((9, 3.4))
    for ax, params, title in zip(fig.subplots(1, 2), (left, right), titles):
        plot_beta_densities(params, ax=ax, title=title)
    return fig


def plot_beta_update(a=2.0, b=2.0, heads=3, tails=1, live=None):
    """Prior Beta(a, b), scaled likelihood and posterior, with MLE, MAP and mean marked.

    The callback of Chapter 2's interactive figure (section "Explore: prior plus
    data"); it draws quickly (a few hundred points). Estimates that do not exist
    (no data for the MLE, no mode for the MAP) are left out and noted in the legend.
    ``live``: a :class:`lib.plots.live.LiveFigure` this function drew into before; what
    its axes show is drawn again (a live redraw, see :func:`lib.plots.interactive.interactive_figure`).
    Returns the ``Figure``.
    """
    prior = BetaPosterior(a, b)
    post = prior.update(heads, tails)
    theta = np.linspace(0, 1, 301)[1:-1]
    live = LiveFigure() if live is None else live
    if live.state_for("beta update") is None:  # the first draw: the axes
        fig = new_figure((6.4, 3.6))
        live.start(fig, "beta update", fig.subplots())
    else:  # a live redraw: the same axes, drawn again
        clear_data(live.state)
    ax, fig = live.state, live.fig
    # the curves and marks stay below a band at the top that holds the legend (a curve
    # that runs off, as Beta(0.5, b) at 0, is cut at the band)
    data_area = Rectangle((0, 0), 1, 1 / BETA_BAND, transform=ax.transAxes)
    ax.plot(theta, prior.pdf(theta), color="tab:blue", label=f"prior Beta({a:g}, {b:g})", clip_path=data_area)
    if heads + tails > 0:
        lik = np.exp(bernoulli_log_likelihood(theta, heads, tails)
                     - betaln(heads + 1, tails + 1))  # scaled to integrate to 1
        ax.plot(theta, lik, color="tab:gray", ls="--", label="likelihood (scaled)", clip_path=data_area)
    ax.plot(theta, post.pdf(theta), color="tab:red", lw=2,
            label=f"posterior Beta({post.a:g}, {post.b:g})", clip_path=data_area)
    marks = [("posterior mean", post.mean(), "tab:red", ":")]
    if heads + tails > 0:
        marks.append(("MLE", mle_bernoulli(heads, tails), "black", "-"))
    try:
        marks.append(("MAP", post.mode(), "tab:green", "-."))
    except ValueError:
        ax.plot([], [], " ", label="MAP: no unique mode")
    for name, value, color, ls in marks:
        ax.axvline(value, ymax=1 / BETA_BAND, color=color, ls=ls, lw=1.2, label=f"{name} = {value:.3f}")
    top = min(1.1 * np.nanmax([prior.pdf(theta).max(), post.pdf(theta).max()]), 12)
    # tick labels of at most three characters ("0.2", "2.5", "10"; no steps of 0.25) and the
    # axis label at a fixed place left of them: a redraw for other values keeps the layout
    # of the first drawing (the label does not move out of the image as the labels widen)
    ticks = MaxNLocator(nbins=5, steps=[1, 2, 5, 10]).tick_values(0, top)
    ax.set(xlim=(0, 1), ylim=(0, BETA_BAND * top), yticks=ticks[ticks <= top], xlabel=r"$\theta$ = P(heads)",
           ylabel="density", title=f"{heads} heads, {tails} tails")
    ax.yaxis.set_major_formatter("{x:g}")
    ax.yaxis.set_label_coords(-0.09, 0.5)
    ax.legend(fontsize=8, frameon=False, loc="upper center", ncol=2, columnspacing=1.0)
    return fig


def plot_linear_gaussian(x, y, theta1, theta2, true_line=None):
    """Scatter of (x, y) with the fitted ML line (and optionally the true line).

    Used in: Chapter 2, section "Linear Gaussian models: ML is least squares".
    """
    fig = new_figure((5, 3.4))
    ax = fig.subplots()
    ax.scatter(x, y, s=14, color="tab:blue", label="data")
    grid = np.linspace(np.min(x), np.max(x), 2)
    ax.plot(grid, theta1 * grid + theta2, color="tab:red",
            label=rf"ML line $y = {theta1:.2f}x + {theta2:.2f}$")
    if true_line is not None:
        ax.plot(grid, true_line[0] * grid + true_line[1], color="black", ls="--",
                label="true line")
    ax.set(xlabel="$x$", ylabel="$y$")
    ax.legend(frameon=False, fontsize=8)
    return fig


def plot_grid_vs_beta(cherries=7, limes=3, n_grid=101, a=1.0, b=1.0, live=None):
    """Posterior over a grid of bags (as a density: mass / grid step) and Beta(a + c, b + l).

    The grid posterior comes from :func:`lib.estimation.grid_learner` (Chapter 1's
    learner with ``n_grid`` bags); the curve is the conjugate Beta posterior. The title
    gives the largest difference between the two at the grid points. ``live``: a
    :class:`lib.plots.live.LiveFigure` this function drew into before; its bars are given
    new heights, or its axes are drawn again for another grid (a live redraw, see
    :func:`lib.plots.interactive.interactive_figure`). Returns the ``Figure``. Used in: Chapter 2,
    section "From five bags to a continuum".
    """
    theta, learner = grid_learner(n_grid, a, b)
    step = theta[1] - theta[0]
    density = learner.posterior(["cherry"] * cherries + ["lime"] * limes) / step
    beta = BetaPosterior(a + cherries, b + limes)
    fine = np.linspace(0, 1, 401)[1:-1]
    curve = beta.pdf(fine)
    gap = np.max(np.abs(density - beta.pdf(theta)))
    label = f"Beta({a + cherries:g}, {b + limes:g}) density"
    title = f"{cherries} cherries, {limes} limes: largest gap {gap:.2g}"
    live = LiveFigure() if live is None else live
    if live.state_for((n_grid, a, b)) is None:  # the first draw, or other bars: the axes
        _grid_vs_beta_axes(live, (n_grid, a, b), theta, step, fine, label)
    state = live.state
    for bar, height in zip(state["bars"], density):
        bar.set_height(height)
    state["line"].set_ydata(curve)
    state["label"].set_text(label)
    ax = state["line"].axes
    ax.set_title(title)
    # a band above the tallest bar or curve holds the legend, which no bar or curve reaches
    ax.set_ylim(0, LEGEND_BAND * max(density.max(), curve.max()))
    return live.fig


def _grid_vs_beta_axes(live, same, theta, step, fine, label):
    """The first drawing of :func:`plot_grid_vs_beta` (into ``live``): bars and curve at 0.

    A live figure drawn for another grid keeps its axes (drawn again, not made anew)."""
    n_grid = same[0]
    if live.fig is not None:
        fig, ax = live.fig, live.fig.axes[0]
        clear_data(ax)
    else:
        fig = new_figure((6.4, 3.6))
        ax = fig.subplots()
    bars = ax.bar(theta, np.zeros_like(theta), width=step * (0.9 if n_grid <= 21 else 1.0),
                  color="#67a9cf", alpha=0.6, label=f"{n_grid} bags: posterior mass / {step:g}")
    line, = ax.plot(fine, np.zeros_like(fine), color="tab:red", lw=2, label=label)
    ax.set(xlim=(-0.02, 1.02), xlabel=r"cherry fraction $\theta$", ylabel="density")
    legend = ax.legend(fontsize=8, frameon=False, loc="upper left")  # in the band over the data
    live.start(fig, same, {"bars": bars.patches, "line": line,
                           "label": next(t for t in legend.get_texts() if t.get_text() == label)})


def plot_loss_comparison(x, y, w_ce, w_se, true_w, runs_ce=None, runs_se=None):
    """Logistic fits by cross entropy and by squared error (left) and, if given, how far
    their estimates ``(w0, w1)`` over many simulated data sets fall from ``true_w``
    (right: the fraction of data sets within each distance).

    Used in: Chapter 2, section "Probability prediction: ML is cross entropy".
    """
    fig = new_figure((9, 3.6) if runs_ce is not None else (5, 3.6))
    axes = fig.subplots(1, 2 if runs_ce is not None else 1)
    ax = axes[0] if runs_ce is not None else axes
    grid = np.linspace(np.min(x), np.max(x), 200)
    jitter = np.random.default_rng(0).uniform(-0.03, 0.03, size=np.size(y))
    ax.scatter(x, np.asarray(y) + jitter, s=10, color="0.4", alpha=0.6, label="labels y")
    for w, name, style in [(true_w, "true P(y=1 | x)", dict(color="k", ls="--")),
                           (w_ce, "cross entropy (ML)", dict(color="tab:red")),
                           (w_se, "squared error", dict(color="tab:blue", ls="-."))]:
        ax.plot(grid, expit(w[0] + w[1] * grid), lw=2, label=name, **style)
    ax.set(xlabel="x", ylabel="P(y = 1 | x)", title="(a) one data set", ylim=(-0.08, 1.08),
           yticks=np.linspace(0, 1, 6))
    # one legend under the panels (the two fits have the same lines in both): inside, the
    # labels at 0 and 1 and the curves leave no room on a phone's column
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=8, frameon=False)
    if runs_ce is not None:
        ax = axes[1]
        true_w = np.asarray(true_w)
        for runs, name, style in [(runs_ce, "cross entropy (ML)", dict(color="tab:red")),
                                  (runs_se, "squared error", dict(color="tab:blue", ls="-."))]:
            dist = np.sort(np.linalg.norm(np.asarray(runs) - true_w, axis=1))
            ax.plot(dist, np.arange(1, dist.size + 1) / dist.size, lw=2, label=name, **style)
        ax.set(xlim=(0, 1.5), ylim=(0, 1.02), xlabel="distance from the true (w0, w1)",
               ylabel="fraction of data sets", title=f"(b) {len(runs_ce)} data sets")
        ax.grid(alpha=0.3)
    return fig


def parameter_count_table(n_max=30):
    """Markdown table of the three parameter counts for n = 1..n_max boolean attributes.

    Columns: full table P(Y | X), P(X | Y) plus P(Y) without independence, naive Bayes.
    Used in: Chapter 2, section "Counting parameters".

    >>> print(parameter_count_table(2))
    | $n$ | table $P(Y \\mid X_1, \\dots, X_n)$ | $P(X_1, \\dots, X_n \\mid Y)$ and $P(Y)$ | naive Bayes |
    | ---: | ---: | ---: | ---: |
    | 1 | 2 | 3 | 3 |
    | 2 | 4 | 7 | 5 |
    """
    n_max = check_scalar(n_max, "n_max", kind="integer", low=1)
    header = ["$n$", "table $P(Y \\mid X_1, \\dots, X_n)$", "$P(X_1, \\dots, X_n \\mid Y)$ and $P(Y)$",
              "naive Bayes"]
    rows = ([n, f"{n_params_full_table(n):,}", f"{n_params_joint_given_class(n):,}", n_params_naive_bayes(n)]
            for n in range(1, n_max + 1))
    return markdown_table(header, rows, align="rrrr")
