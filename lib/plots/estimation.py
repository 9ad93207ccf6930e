"""Figures of Chapter 2 ("Estimating probabilities"): Beta densities, the prior-plus-data
explorer and the linear Gaussian fit. The numbers come from :mod:`lib.estimation`.
"""
import numpy as np
from scipy.special import betaln

from lib.estimation import BetaPosterior, bernoulli_log_likelihood, mle_bernoulli
from lib.plotting import clear_data, new_figure

__all__ = ["plot_beta_densities", "plot_beta_panels", "plot_beta_update", "plot_linear_gaussian"]


def plot_beta_densities(params, ax=None, title=None):
    """Plot beta[a, b] densities for each ``(a, b)`` in ``params``; return the Figure.

    Used in: Chapter 2, figure of Beta densities (Figure 20.5 of seed004).
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
    """Two side-by-side panels of beta densities (seed004, Figure 20.5 a and b).

    ``left`` and ``right`` are lists of ``(a, b)`` pairs. Used in: Chapter 2,
    section "Beta priors are virtual counts".
    """
    fig = new_figure((9, 3.4))
    for ax, params, title in zip(fig.subplots(1, 2), (left, right), titles):
        plot_beta_densities(params, ax=ax, title=title)
    return fig


def plot_beta_update(a=2.0, b=2.0, heads=3, tails=1, fig=None):
    """Prior Beta(a, b), scaled likelihood and posterior, with MLE, MAP and mean marked.

    The callback of Chapter 2's interactive figure (section "Explore: prior plus
    data"); it draws quickly (a few hundred points). Estimates that do not exist
    (no data for the MLE, no mode for the MAP) are left out and noted in the legend.
    ``fig``: a figure this function drew before; what its axes show is drawn again
    (a live redraw, see :func:`lib.widgets.interactive_figure`).
    """
    prior = BetaPosterior(a, b)
    post = prior.update(heads, tails)
    theta = np.linspace(0, 1, 301)[1:-1]
    if getattr(fig, "_lib_beta", False):  # a live redraw: the same axes, drawn again
        ax = fig.axes[0]
        clear_data(ax)
    else:
        fig = new_figure((6.4, 3.6))
        ax = fig.subplots()
        fig._lib_beta = True
    ax.plot(theta, prior.pdf(theta), color="tab:blue", label=f"prior Beta({a:g}, {b:g})")
    if heads + tails > 0:
        lik = np.exp(bernoulli_log_likelihood(theta, heads, tails)
                     - betaln(heads + 1, tails + 1))  # scaled to integrate to 1
        ax.plot(theta, lik, color="tab:gray", ls="--", label="likelihood (scaled)")
    ax.plot(theta, post.pdf(theta), color="tab:red", lw=2,
            label=f"posterior Beta({post.a:g}, {post.b:g})")
    marks = [("posterior mean", post.mean(), "tab:red", ":")]
    if heads + tails > 0:
        marks.append(("MLE", mle_bernoulli(heads, tails), "black", "-"))
    try:
        marks.append(("MAP", post.mode(), "tab:green", "-."))
    except ValueError:
        ax.plot([], [], " ", label="MAP: no unique mode")
    for name, value, color, ls in marks:
        ax.axvline(value, color=color, ls=ls, lw=1.2, label=f"{name} = {value:.3f}")
    top = np.nanmax([prior.pdf(theta).max(), post.pdf(theta).max()])
    ax.set(xlim=(0, 1), ylim=(0, min(1.1 * top, 12)), xlabel=r"$\theta$ = P(heads)",
           ylabel="density", title=f"{heads} heads, {tails} tails")
    ax.legend(fontsize=8, frameon=False, loc="upper left")
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
