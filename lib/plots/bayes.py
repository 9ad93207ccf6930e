"""Figures and tables of Chapter 1 ("Bayesian learning"): the candy-bag posteriors and
predictions (with their Markdown tables), an interactive candy experiment, the base-rate
explorer, the version-space posterior and the Bayes optimal classifier against Gibbs.

The numbers come from :mod:`lib.bayes`; this module only draws them.
"""
import numpy as np
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import offset_copy

from lib._validation import check_scalar
from lib.bayes import (
    CANDY_BAGS,
    CANDY_PRIOR,
    CANDY_PRIORS,
    bayes_table,
    brute_force_map,
    candy_learner,
    interval_concepts,
)
from lib.plots.live import LiveFigure
from lib.plots.style import clear_data, legend_under, new_figure
from lib.plots.tables import markdown_table

__all__ = ["plot_candy_posteriors", "plot_candy_experiment", "plot_gibbs_vs_bayes",
           "plot_base_rate", "plot_version_space", "version_space_data",
           "candy_posterior_table", "candy_bayes_table"]


_LABEL_OFFSET_PT = 40  # the version space's colour bar label: this far right of the bar
_BAG_COLOURS = ("#b2182b", "#ef8a62", "#999999", "#67a9cf", "#1a9850")


def plot_base_rate(prevalence=0.01, sensitivity=0.95, specificity=0.90, live=None):
    """The medical test in natural frequencies (left) and P(disease | positive) (right).

    Left: of 10 000 people tested, how many test positive with and without the disease.
    Right: ``P(disease | positive)`` against the prevalence (log scale) for the chosen
    sensitivity and specificity, the chosen prevalence marked. Plain arithmetic, so a
    redraw is cheap. ``live``: a :class:`lib.plots.live.LiveFigure` this function drew
    into before; its axes are drawn again (a live redraw, see
    :func:`lib.plots.interactive.interactive_figure`). Returns the ``Figure``.
    Used in: Chapter 1, section "A medical test".
    """
    for name, value in [("prevalence", prevalence), ("sensitivity", sensitivity),
                        ("specificity", specificity)]:
        check_scalar(value, name, low=0, high=1)
    n = 10_000
    true_pos = n * prevalence * sensitivity
    false_pos = n * (1 - prevalence) * (1 - specificity)
    live = LiveFigure() if live is None else live
    if live.state_for("base rate") is None:  # the first draw: the axes
        fig = new_figure((9, 3.6))
        ax_bar, ax_curve = fig.subplots(1, 2)
        ax_curve.set_xscale("log")
        live.start(fig, "base rate", (ax_bar, ax_curve))
    else:  # a live redraw: the same axes, drawn again
        clear_data(*live.state)
    ax_bar, ax_curve = live.state
    bars = ax_bar.bar(["ill, test +", "healthy, test +"], [true_pos, false_pos],
                      color=["#b2182b", "#67a9cf"])
    ax_bar.bar_label(bars, labels=[f"{true_pos:,.0f}", f"{false_pos:,.0f}"], padding=2)
    ax_bar.set_ylim(0, 1.18 * max(true_pos, false_pos, 1))
    ax_bar.set_ylabel(f"people, of {n:,} tested")
    share = true_pos / (true_pos + false_pos) if true_pos + false_pos > 0 else float("nan")
    # two-line titles: on the website's column one line of each would run into the other
    ax_bar.set_title(f"(a) P(ill | +) = {true_pos:,.0f} / {true_pos + false_pos:,.0f}\n= {share:.3f}")
    prev = np.logspace(-4, 0, 200)
    curve = prev * sensitivity / (prev * sensitivity + (1 - prev) * (1 - specificity))
    curve_line, = ax_curve.plot(prev, curve, color="k")
    dot, = ax_curve.plot([prevalence], [share], "o", color="#b2182b", ms=7)
    ax_curve.set(xlabel="prevalence P(ill)", ylabel="P(ill | positive test)", ylim=(-0.02, 1.02),
                 title=f"(b) sensitivity {sensitivity:g},\nspecificity {specificity:g}")
    ax_curve.grid(alpha=0.3)
    # in a live redraw only panel (a) and the marks of (b) are drawn again
    live.blit([ax_bar, curve_line, dot, ax_curve.title], "base rate")
    return live.fig


def version_space_data(n_examples=20, target=(3, 7), n_points=10, seed=0):
    """Training examples for the version-space figure: instances drawn uniformly from
    ``0 .. n_points-1`` with ``np.random.default_rng(seed)``, labelled 1 inside the target
    interval ``[a, b)``. Returns ``(x, y)``; the first ``m`` give the m-example data set.

    Used in: Chapter 1, section "Consistent learners and brute-force MAP".
    """
    x = np.random.default_rng(seed).integers(n_points, size=n_examples)
    return x, ((x >= target[0]) & (x < target[1])).astype(int)


def plot_version_space(m=0, prior="uniform", target=(3, 7), n_points=10, seed=0, live=None):
    """Posterior of the brute-force MAP learner over the interval concepts after ``m`` examples.

    Left: the instances ``0 .. n_points-1``, the target interval (shaded) and the first
    ``m`` training examples of :func:`version_space_data` (filled = positive, open =
    negative). Right: ``P(h | D)`` of every interval ``[a, b)`` as a grid over ``a`` and
    ``b - 1`` (the empty concept in the title), from :func:`lib.bayes.brute_force_map`;
    ``prior`` is ``"uniform"`` or ``"short intervals"`` (``P(h)`` proportional to
    ``0.7 ** length``). ``live``: a :class:`lib.plots.live.LiveFigure` this function
    drew into before for the same ``target``, ``n_points`` and ``seed``; its examples,
    image, star and title are given the new values (a live redraw, see
    :func:`lib.plots.interactive.interactive_figure`). Returns the ``Figure``.
    Used in: Chapter 1, section "Consistent learners and brute-force MAP".
    """
    concepts = interval_concepts(n_points)
    if prior == "uniform":
        weights = np.ones(len(concepts))
    elif prior == "short intervals":
        weights = 0.7 ** concepts.sum(axis=1)
    else:
        raise ValueError(f"prior must be 'uniform' or 'short intervals', got {prior!r}")
    m = check_scalar(m, "m", kind="integer", low=0, high=40)
    x, y = version_space_data(40, target, n_points, seed)
    x, y = x[:m], y[:m]
    h_map, post = brute_force_map(weights / weights.sum(), concepts, x, y)
    size = int((post > 0).sum())
    grid = np.full((n_points, n_points), np.nan)           # grid[a, b - 1]
    lengths = concepts.sum(axis=1)
    starts = np.argmax(concepts, axis=1)
    grid[starts[1:], starts[1:] + lengths[1:] - 1] = post[1:]
    star = ([starts[h_map] + lengths[h_map] - 1], [starts[h_map]]) if h_map else ([], [])
    # two lines, each short enough for every m and prior (one would run past the image's edge)
    each = f"each {1 / size:.3g}" if prior == "uniform" else "P(h) \u221d 0.7^length"
    empty = f"; empty concept {post[0]:.3g}" if post[0] > 0 else ""
    title = f"{m} examples, {prior} prior: |VS| = {size}\n{each}{empty}"
    live = LiveFigure() if live is None else live
    same = (tuple(target), n_points, seed)
    if live.state_for(same) is None:  # the first draw: everything that does not move
        _version_space_figure(live, same, x, y, grid, post, star, title)
    state = live.state
    for label, line in state["examples"].items():
        seen = np.unique(x[y == label])
        line.set_data(seen, np.zeros(seen.size))
    state["image"].set_data(grid)
    state["image"].set_clim(0, max(post.max(), 1e-12))
    state["star"].set_data(*star)
    state["title"].set_text(title)
    # the image covers the inner edge of its panel's spines: they are drawn again too
    fig = live.fig
    live.blit([*state["examples"].values(), state["image"], state["star"],
               *fig.axes[1].spines.values(), fig.axes[-1], state["title"]], same)
    return fig


def _version_space_figure(live, same, x, y, grid, post, star, title):
    """The first drawing of :func:`plot_version_space` (into ``live``)."""
    target, n_points, _ = same
    fig = new_figure((6.4, 5.4))
    ax_line, ax_post = fig.subplots(2, 1, gridspec_kw={"height_ratios": [1, 5]})
    ax_line.axvspan(target[0] - 0.5, target[1] - 0.5, color="#fddbc7", label="target")
    ax_line.plot(np.arange(n_points), np.zeros(n_points), "|", color="0.5", ms=12)
    examples = {}
    for label, style in [(1, dict(marker="o", color="#b2182b")),
                         (0, dict(marker="o", mfc="white", color="#2166ac"))]:
        seen = np.unique(x[y == label])
        examples[label], = ax_line.plot(seen, np.zeros(seen.size), ls="", ms=10, **style,
                                        label="positive" if label else "negative")
    ax_line.set(xlim=(-0.7, n_points - 0.3), ylim=(-1, 1), yticks=[], xticks=np.arange(n_points))
    ax_line.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=9,
                   frameon=False)
    image = ax_post.imshow(grid, origin="lower", cmap="viridis", vmin=0,
                           vmax=max(post.max(), 1e-12))
    bar = fig.colorbar(image, ax=ax_post, label="posterior $P(h \\mid D)$", shrink=0.9)
    # the label at a fixed distance right of the bar: tick labels that widen with other
    # values ("0.08" at m = 3, "0.015" at m = 0) would push it out of the image
    bar.ax.yaxis.set_label_coords(1, 0.5, offset_copy(bar.ax.transAxes, fig, x=_LABEL_OFFSET_PT, units="points"))
    star_line, = ax_post.plot(*star, "r*", ms=12)  # no point when the MAP is the empty concept
    ax_post.set(xlabel="last point inside the interval, b - 1",
                ylabel="first point inside, a",
                xticks=np.arange(n_points), yticks=np.arange(n_points))
    live.start(fig, same, {"examples": examples, "image": image, "star": star_line,
                           "title": fig.suptitle(title, fontsize=10)})


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
    ax_post.set_xlabel("lime candies observed, N")
    ax_pred.set_xlabel("lime candies observed, N")
    ax_post.set_title("(a) posterior of each bag")
    ax_pred.set_title("(b) P(next candy is lime)")
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
    # under the panel: inside, some run of draws crosses any corner with one of five curves
    legend_under(ax_post, fontsize=8, ncol=2)
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
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True, min_n_ticks=1))
    _fit_x((ax_post, ax_pred), len(data))
    return posts, bayes_line, map_line


def _fit_x(axes, n_last):
    """The x axes from no draw to the last, with matplotlib's margins; one unit wide when
    there is no draw yet (matplotlib's own range for one point, +-0.05, would be labelled
    -0.045, -0.030, ... on top of each other)."""
    for ax in axes:
        ax.set_autoscalex_on(True)
        ax.relim()
        ax.autoscale_view(scaley=False)
        if n_last == 0:
            ax.set_xlim(-0.5, 0.5)


def _update_path(live, learner, data):
    """Chapter 1's interactive figure moved to new draws: new data in the same lines."""
    posts, bayes_line, map_line, lime_ticks, cherry_ticks, _ = live.state
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
    _fit_x(live.fig.axes, len(data))
    return int(is_lime.sum())


def plot_candy_experiment(prior="textbook", true_bag=5, n_candies=10, seed=0, live=None):
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
    live : lib.plots.live.LiveFigure, optional
        Where this function drew before: its lines are given the new data (a live
        redraw, see :func:`lib.plots.interactive.interactive_figure`).

    Returns
    -------
    matplotlib.figure.Figure
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
    title = "{} prior, true bag $h_{}$: {} lime, {} cherry (seed {})"  # short: a longer one ran past the edge
    live = LiveFigure() if live is None else live
    if live.state_for("candy") is None:  # the first draw: lines, ticks and title
        _candy_figure(live, learner, data)
    try:
        if live.key == "candy":  # the same artists, new data
            _update_path(live, learner, data)
    except ValueError:  # impossible data after possible ones: a figure that says so
        _candy_figure(live, learner, data)
    n_lime = sum(d == "lime" for d in data)
    live.state[-1].set_text(title.format(prior_name, true_bag, n_lime, n_candies - n_lime, seed))
    return live.fig


def _candy_figure(live, learner, data):
    """The first drawing of :func:`plot_candy_experiment` (into ``live``): its lines, ticks
    and title; without lines when the data are impossible under the prior."""
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
    n = np.arange(1, len(data) + 1)
    is_lime = np.array([d == "lime" for d in data], dtype=bool)
    ticks = [ax_pred.scatter(n[is_lime], np.zeros(is_lime.sum()), marker="|", s=80, color="#1a9850"),
             ax_pred.scatter(n[~is_lime], np.zeros((~is_lime).sum()), marker="|", s=80, color="#b2182b")]
    suptitle = fig.suptitle("", fontsize=10)
    ax_post.set_xlabel("candies drawn, N")
    ax_pred.set_xlabel("candies drawn, N")
    # a figure of impossible data is drawn afresh next time
    live.start(fig, None if lines is None else "candy", (*(lines or ()), *ticks, suptitle))


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


# ------------------------------------------------------------------------ tables
def candy_posterior_table(n_limes=10, prior=CANDY_PRIOR, digits=4):
    """Markdown table of ``P(h_i | N limes)`` and ``P(next is lime | N limes)``, N = 0..n_limes.

    Used in: Chapter 1, section "The candy bags" (the table next to the figure).
    """
    n_limes = check_scalar(n_limes, "n_limes", kind="integer", low=0)
    digits = check_scalar(digits, "digits", kind="integer", low=0)
    learner = candy_learner(prior)
    data = ["lime"] * n_limes
    path = learner.posterior_path(data)
    lime = learner.predictive_path(data)[:, learner.outcomes.index("lime")]
    header = ["$N$", *(f"$P(h_{i + 1} \\mid \\mathbf{{d}})$" for i in range(5)),
              "$P(\\text{lime next} \\mid \\mathbf{d})$"]
    rows = ([n, *(f"{p:.{digits}f}" for p in (*path[n], lime[n]))] for n in range(n_limes + 1))
    return markdown_table(header, rows, align="r" * 7)


def candy_bayes_table(data, prior=CANDY_PRIOR, digits=4):
    """Markdown Bayes tables for the candies in ``data``, one block of rows per candy.

    Each block lists, for the five bags, the prior (the previous posterior), the
    likelihood of that candy, their product and the posterior, followed by a row of
    column sums: 1, the evidence ``P(d_n | d_1..d_{n-1})`` and 1.

    Used in: Chapter 1, section "The candy bags".
    """
    digits = check_scalar(digits, "digits", kind="integer", low=0)
    learner = candy_learner(prior)
    data = [data] if isinstance(data, str) else list(data)
    path = learner.posterior_path(data)                 # checks the outcomes
    codes = [learner.outcomes.index(d) for d in data]
    fmt = f"{{:.{digits}f}}".format
    rows = []
    for n, k in enumerate(codes):
        table = bayes_table(path[n], learner.table[k])
        for i, name in enumerate(CANDY_BAGS):
            first = f"{n + 1}: {learner.outcomes[k]}" if i == 0 else ""
            rows.append([first, f"${name[0]}_{name[1]}$", *map(fmt, table[i])])
        total = table.sum(axis=0)
        rows.append(["", "**sum**", fmt(total[0]), "", f"**{fmt(total[2])}**", fmt(total[3])])
    return markdown_table(["candy", "bag", "prior", "likelihood", "prior $\\times$ likelihood", "posterior"],
                          rows, align="llrrrr")
