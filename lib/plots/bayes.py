"""Figures of Chapter 1 ("Bayesian learning"): the candy-bag posteriors and predictions,
an interactive candy experiment, and the Bayes optimal classifier against Gibbs.

The numbers come from :mod:`lib.bayes`; this module only draws them.
"""
import numpy as np
from matplotlib.ticker import MaxNLocator

from lib.bayes import CANDY_BAGS, CANDY_PRIOR, CANDY_PRIORS, candy_learner
from lib.plotting import new_figure

__all__ = ["plot_candy_posteriors", "plot_candy_experiment", "plot_gibbs_vs_bayes"]


_BAG_COLOURS = ("#b2182b", "#ef8a62", "#999999", "#67a9cf", "#1a9850")


def plot_candy_posteriors(n_limes=10, prior=CANDY_PRIOR, show_map=True):
    """Figure 20.1 of the textbook: posteriors (left) and prediction (right) after limes.

    Left: ``P(h_i | d_1..d_N)`` for ``N = 0..n_limes`` lime candies in a row. Right: the
    Bayesian prediction ``P(d_{N+1} = lime | d_1..d_N)`` and, if ``show_map``, the
    prediction of the MAP hypothesis alone.

    Used in: Chapter 1, section "The candy bags".
    """
    learner = candy_learner(prior)
    data = ["lime"] * n_limes
    fig = new_figure((9, 3.6))
    ax_post, ax_pred = fig.subplots(1, 2)
    _draw_path(ax_post, ax_pred, learner, data, show_map=show_map)
    ax_post.set_xlabel("number of lime candies observed, N")
    ax_pred.set_xlabel("number of lime candies observed, N")
    ax_post.set_title("(a) posterior of each bag")
    ax_pred.set_title("(b) probability that the next candy is lime")
    return fig


def _draw_path(ax_post, ax_pred, learner, data, *, show_map):
    """Posterior curves on ``ax_post`` and predictive curves on ``ax_pred``; returns
    the lines (posteriors, Bayesian prediction, MAP prediction or None)."""
    n = np.arange(len(data) + 1)
    path = learner.posterior_path(data)
    lime = learner.outcomes.index("lime")
    posts = [ax_post.plot(n, path[:, i], "o-", ms=3.5, color=_BAG_COLOURS[i],
                          label=f"$P(h_{i + 1} \\mid \\mathbf{{d}})$")[0]
             for i in range(len(CANDY_BAGS))]
    ax_post.set_ylabel("posterior probability")
    ax_post.set_ylim(-0.02, 1.02)
    ax_post.legend(fontsize=8, loc="best")
    pred = path @ learner.table[lime]
    bayes_line, = ax_pred.plot(n, pred, "o-", ms=3.5, color="k", label="Bayesian prediction")
    map_line = None
    if show_map:
        map_pred = learner.table[lime, np.argmax(path, axis=1)]
        map_line, = ax_pred.plot(n, map_pred, "x--", drawstyle="steps-mid", color="tab:purple",
                                 label="MAP prediction")
    ax_pred.set_ylabel("$P(d_{N+1} = \\mathrm{lime} \\mid d_1, \\dots, d_N)$")
    ax_pred.set_ylim(-0.02, 1.05)
    ax_pred.legend(fontsize=8, loc="lower right")
    for ax in (ax_post, ax_pred):
        ax.grid(alpha=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=11, integer=True))
    return posts, bayes_line, map_line


def _update_path(fig, learner, data):
    """Chapter 1's interactive figure moved to new draws: new data in the same lines."""
    posts, bayes_line, map_line, lime_ticks, cherry_ticks = fig._lib_candy
    path = learner.posterior_path(data)
    lime = learner.outcomes.index("lime")
    n = np.arange(len(data) + 1)
    for i, line in enumerate(posts):
        line.set_data(n, path[:, i])
    bayes_line.set_data(n, path @ learner.table[lime])
    map_line.set_data(n, learner.table[lime, np.argmax(path, axis=1)])
    is_lime = np.array([d == "lime" for d in data], dtype=bool)
    lime_ticks.set_offsets(np.c_[n[1:][is_lime], np.zeros(is_lime.sum())])
    cherry_ticks.set_offsets(np.c_[n[1:][~is_lime], np.zeros((~is_lime).sum())])
    for ax in fig.axes:
        ax.relim()
        ax.autoscale_view(scaley=False)
    return int(is_lime.sum())


def plot_candy_experiment(prior="textbook", true_bag=5, n_candies=10, seed=0, fig=None):
    """Random draws from one bag: how posteriors and predictions evolve.

    Draws ``n_candies`` candies from bag ``h_{true_bag}`` (1..5) with
    ``np.random.default_rng(seed)`` and plots the posterior path (left) and the Bayesian
    and MAP predictions of "lime" (right). The flavours drawn are marked along the
    bottom of the right panel (green = lime, red = cherry). The callback of the
    chapter's interactive figure; runs in a few tens of milliseconds.

    Used in: Chapter 1, section "An interactive candy bag".

    Parameters
    ----------
    prior : str or array_like
        A key of :data:`CANDY_PRIORS` or an array of five probabilities.
    true_bag : int
        The bag candies are drawn from, 1..5.
    n_candies : int
        Number of candies drawn (0 or more).
    seed : int
        Seed of the random draws.
    fig : Figure, optional
        A figure this function drew before: its lines are given the new data and it is
        returned (a live redraw, see :func:`lib.widgets.interactive_figure`).
    """
    if isinstance(prior, str):
        if prior not in CANDY_PRIORS:
            raise ValueError(f"unknown prior {prior!r}; choose one of {list(CANDY_PRIORS)}")
        prior_name, prior = prior, CANDY_PRIORS[prior]
    else:
        prior_name = "custom"
    if true_bag not in range(1, 6):
        raise ValueError(f"true_bag must be 1..5, got {true_bag!r}")
    if n_candies < 0:
        raise ValueError(f"n_candies must be non-negative, got {n_candies}")
    learner = candy_learner(prior)
    data = learner.sample(true_bag - 1, n_candies, np.random.default_rng(seed))
    title = "{} prior, true bag $h_{}$: {} lime and {} cherry in {} draws (seed {})"
    if getattr(fig, "_lib_candy", None) is not None:  # a live redraw: same artists, new data
        try:
            n_lime = _update_path(fig, learner, data)
            fig._suptitle.set_text(title.format(prior_name, true_bag, n_lime, n_candies - n_lime,
                                                n_candies, seed))
            return fig
        except ValueError:
            pass  # impossible data: the full drawing below says so
    fig = new_figure((9, 3.6))
    ax_post, ax_pred = fig.subplots(1, 2)
    lines = None
    try:
        lines = _draw_path(ax_post, ax_pred, learner, data, show_map=True)
    except ValueError:
        # every bag with nonzero prior has been ruled out (e.g. a cherry after a prior
        # that allows only all-lime bags): say so instead of failing the widget
        for ax in (ax_post, ax_pred):
            ax.text(0.5, 0.5, "data impossible under the prior:\nposterior undefined",
                    ha="center", va="center", transform=ax.transAxes)
    n = np.arange(1, n_candies + 1)
    is_lime = np.array([d == "lime" for d in data], dtype=bool)
    ticks = [ax_pred.scatter(n[is_lime], np.zeros(is_lime.sum()), marker="|", s=80, color="#1a9850"),
             ax_pred.scatter(n[~is_lime], np.zeros((~is_lime).sum()), marker="|", s=80, color="#b2182b")]
    n_lime = int(is_lime.sum())
    fig.suptitle(title.format(prior_name, true_bag, n_lime, n_candies - n_lime, n_candies, seed),
                 fontsize=10)
    ax_post.set_xlabel("candies drawn, N")
    ax_pred.set_xlabel("candies drawn, N")
    fig._lib_candy = None if lines is None else (*lines, *ticks)
    return fig


def plot_gibbs_vs_bayes(n_train, bayes_error, gibbs_error):
    """Error rates of the Bayes optimal classifier and the Gibbs algorithm against ``m``,
    with twice the Bayes optimal error as a dashed bound.

    Used in: Chapter 1, section "The Bayes optimal classifier and the Gibbs algorithm".
    """
    fig = new_figure((6, 3.6))
    ax = fig.subplots()
    ax.plot(n_train, bayes_error, "o-", color="tab:blue", label="Bayes optimal")
    ax.plot(n_train, gibbs_error, "s-", color="tab:orange", label="Gibbs")
    ax.plot(n_train, 2 * np.asarray(bayes_error), "--", color="tab:blue",
            label="2 x Bayes optimal")
    ax.set_xlabel("number of training examples, m")
    ax.set_ylabel("test error rate")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend()
    return fig
