"""Figures of Chapter 7 (expectation maximization); the algorithms are in :mod:`lib.em`.

Sections "EM for k means" (:func:`plot_known_variance_steps`, :func:`plot_mean_paths`),
"Mixtures of Gaussians" (:func:`plot_mixture_recovery`, :func:`plot_log_likelihood`),
"A mixture of candy bags" (:func:`plot_two_log_likelihoods`), "When EM goes wrong"
(:func:`plot_degenerate`), "The general EM algorithm and why it works"
(:func:`plot_lower_bound`), "When the E step is intractable: variational inference"
(:func:`plot_mean_field`), "Try it yourself" (:func:`plot_em_2d`) and "Structural EM
with a hidden variable" (:func:`plot_hidden_structures`).
"""
import textwrap

import numpy as np

from lib.density import mixture_density
from lib.em.known_variance import lower_bound_curves, one_mean_em_path
from lib.em.mixture import em_history
from lib.plots.export import MIN_FONT_PT
from lib.plots.live import LiveFigure
from lib.plots.style import legend_under

__all__ = ["plot_known_variance_steps", "plot_mean_paths", "plot_mixture_recovery",
           "plot_log_likelihood", "plot_two_log_likelihoods", "plot_degenerate",
           "plot_lower_bound", "plot_em_2d", "plot_mean_field", "plot_hidden_structures"]

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def _figure(w=6.4, h=3.6):
    import matplotlib.pyplot as plt  # pyplot figures: shown inline once per cell
    return plt.figure(figsize=(w, h), layout="tight")


def plot_known_variance_steps(x, trace, sigma, steps=(0, 1, 2, 5)):
    """One panel per EM iteration in ``steps``: the points at height E[z_i1]
    (the probability that point i belongs to Gaussian 1) and the k Gaussian curves
    at the current means. Used in: Chapter 7, section "EM for k means"."""
    x = np.asarray(x, float)
    fig = _figure(7.2, 1.9 * len(steps))
    axes = fig.subplots(len(steps), 1, sharex=True)
    grid = np.linspace(x.min() - 1.5, x.max() + 1.5, 300)
    k = trace.means.shape[1]
    for ax, t in zip(np.atleast_1d(axes), steps):
        resp = trace.resp[t]
        color = resp[:, :, None] * np.array([_rgb(COLORS[j]) for j in range(k)])[None]
        ax.scatter(x, resp[:, 0], c=np.clip(color.sum(1), 0, 1), s=12, zorder=3)
        dens = np.exp(-(grid[:, None] - trace.means[t][None]) ** 2 / (2 * sigma**2))
        for j in range(k):
            ax.plot(grid, dens[:, j], color=COLORS[j], lw=1.5)
            ax.axvline(trace.means[t][j], color=COLORS[j], ls=":", lw=1)
        ax.set_ylim(-0.08, 1.08)
        ax.set_ylabel(r"$E[z_{i1}]$")
        ax.set_title(f"iteration {t}: means " +
                     ", ".join(f"{m:.2f}" for m in trace.means[t]) +
                     f";  log likelihood {trace.log_likelihood[t]:.1f}", fontsize=9)
    np.atleast_1d(axes)[-1].set_xlabel("$x$")
    return fig


def _rgb(hex_color):
    return np.array([int(hex_color[i:i + 2], 16) / 255 for i in (1, 3, 5)])


def plot_mean_paths(trace, true_means=None):
    """The means of :func:`em_known_variance` against the iteration number, and the
    log likelihood. Used in: Chapter 7, section "EM for k means"."""
    fig = _figure(7.2, 3.0)
    ax1, ax2 = fig.subplots(1, 2)
    it = np.arange(len(trace.means))
    for j in range(trace.means.shape[1]):
        ax1.plot(it, trace.means[:, j], "o-", ms=3, color=COLORS[j], label=fr"$\mu_{j + 1}$")
        if true_means is not None:
            ax1.axhline(true_means[j], color=COLORS[j], ls="--", lw=0.8)
    ax1.set_xlabel("iteration")
    ax1.set_ylabel("mean")
    ax1.legend(fontsize=8)
    ax2.plot(it, trace.log_likelihood, "o-", ms=3, color="k")
    ax2.set_xlabel("iteration")
    ax2.set_ylabel("log likelihood")
    return fig


def _density_grid(weights, means, covariances, xlim, ylim, n=120):
    gx, gy = np.meshgrid(np.linspace(*xlim, n), np.linspace(*ylim, n))
    P = np.c_[gx.ravel(), gy.ravel()]
    return gx, gy, mixture_density(P, weights, means, covariances).reshape(gx.shape)


def _limits(X, pad=0.8):
    lo, hi = X.min(0) - pad, X.max(0) + pad
    return (lo[0], hi[0]), (lo[1], hi[1])


def plot_mixture_recovery(X, true, fitted):
    """Three panels as in Figure 20.11 of the source: the true mixture density, the
    sample, and the mixture EM recovered. ``true`` and ``fitted`` are tuples
    ``(weights, means, covariances)``. Used in: Chapter 7, "Mixtures of Gaussians"."""
    fig = _figure(9.6, 3.3)
    axes = fig.subplots(1, 3, sharex=True, sharey=True)
    xlim, ylim = _limits(X)
    for ax, params, title in ((axes[0], true, "(a) true mixture"),
                              (axes[2], fitted, "(c) mixture found by EM")):
        gx, gy, dens = _density_grid(*params, xlim, ylim)
        ax.contourf(gx, gy, dens, levels=12, cmap="Blues")
        for w, m in zip(params[0], params[1]):
            ax.annotate(f"{w:.2f}", m, ha="center", va="center", fontsize=8,
                        color="k", bbox=dict(fc="w", alpha=0.7, lw=0))
        ax.set_title(title, fontsize=10)
    axes[1].scatter(X[:, 0], X[:, 1], s=5, color="k")
    axes[1].set_title(f"(b) {len(X)} sampled points", fontsize=10)
    for ax in axes:
        ax.set_xlim(xlim)
        ax.set_ylim(ylim)
        ax.set_xlabel("$x_1$")
    axes[0].set_ylabel("$x_2$")
    return fig


def plot_log_likelihood(log_likelihood, true_log_likelihood=None, ax=None, label=None,
                        start=0):
    """Log likelihood against the EM iteration, with the true model's value as a
    horizontal line (as in Figure 20.12 of the source).
    Used in: Chapter 7, sections "Mixtures of Gaussians" and "A mixture of candy bags".
    """
    fig = None
    if ax is None:
        fig = _figure(5.0, 3.2)
        ax = fig.subplots()
    it = np.arange(len(log_likelihood))[start:]
    ax.plot(it, np.asarray(log_likelihood)[start:], "o-", ms=3, color=COLORS[0],
            label=label or "EM")
    if true_log_likelihood is not None:
        ax.axhline(true_log_likelihood, color="k", ls="--", lw=1,
                   label=f"true model ({true_log_likelihood:.1f})")
    ax.set_xlabel("iteration")
    ax.set_ylabel("log likelihood $L$")
    # under the axes: the curve climbs through one corner and the true model's line runs
    # along the top or the bottom, which leaves no corner free for every run
    legend_under(ax, fontsize=8)
    return fig if fig is not None else ax.figure


def plot_two_log_likelihoods(gmm_ll, gmm_true, candy_ll, candy_true):
    """Figure 20.12 (a) and (b) of the source side by side.
    Used in: Chapter 7, section "A mixture of candy bags"."""
    fig = _figure(9.0, 3.2)
    a, b = fig.subplots(1, 2)
    plot_log_likelihood(gmm_ll, gmm_true, ax=a)
    a.set_title("(a) Gaussian mixture, 500 points", fontsize=10)
    plot_log_likelihood(candy_ll, candy_true, ax=b)
    b.set_title("(b) candy mixture, 1000 candies", fontsize=10)
    return fig


def _ellipse_points(mean, cov, r=2.0, n=60):
    t = np.linspace(0, 2 * np.pi, n)
    L = np.linalg.cholesky(cov)
    return mean + r * np.c_[np.cos(t), np.sin(t)] @ L.T


def _point_colours(resp):
    cols = np.array([_rgb(COLORS[j % len(COLORS)]) for j in range(resp.shape[1])])
    return np.clip(resp @ cols, 0, 1)


def _ellipses(mean, cov):
    """The 1- and 2-standard-deviation ellipses in one line (NaN between them)."""
    return np.r_[_ellipse_points(mean, cov, 1.0), [[np.nan, np.nan]], _ellipse_points(mean, cov, 2.0)]


def _draw_mixture(ax, X, weights, means, covs, resp, title):
    """Points coloured by responsibility, ellipses and means; returns those artists."""
    points = ax.scatter(X[:, 0], X[:, 1], s=5, c=_point_colours(resp))
    lines = [ax.plot(*_ellipses(means[j], covs[j]).T, color=COLORS[j % len(COLORS)], lw=1.5)[0]
             for j in range(len(weights))]
    centres, = ax.plot(means[:, 0], means[:, 1], "x", color="k", ms=7, mew=2)
    ax.set_title(title, fontsize=9)
    return points, lines, centres


_HISTORIES = {}  # (data, k, seed, max_iter) -> em_history: moving the iteration reruns nothing


def _em_history(X, k, seed, max_iter):
    key = (X.tobytes(), X.shape, k, seed, max_iter)
    if key not in _HISTORIES:
        if len(_HISTORIES) >= 16:
            _HISTORIES.pop(next(iter(_HISTORIES)))
        _HISTORIES[key] = em_history(X, k, seed, max_iter)
    return _HISTORIES[key]


def plot_degenerate(X, collapse, merged, fixed):
    """Degenerate EM solutions. ``collapse`` is ``(sigmas, log_likelihoods)`` for a
    component shrinking onto one point; ``merged`` and ``fixed`` are fitted
    GaussianMixture models (two components stuck together; the repaired run).
    Used in: Chapter 7, section "When EM goes wrong"."""
    fig = _figure(10.0, 3.3)
    a, b, c = fig.subplots(1, 3)
    s, ll = collapse
    a.semilogx(s, ll, color=COLORS[1])
    a.invert_xaxis()
    a.set_xlabel(r"std. dev. $\sigma$ of the component on one point")
    a.set_ylabel("log likelihood")
    a.set_title("(a) collapse: $L \\to \\infty$ as $\\sigma \\to 0$", fontsize=9)
    for ax, m, t in ((b, merged, "(b) two components merged"),
                     (c, fixed, "(c) restarts (n_init=10)")):
        _draw_mixture(ax, X, m.weights_, m.means_, m.covariances_, m.predict_proba(X),
                      f"{t}\nlog likelihood {m.log_likelihoods_[-1]:.1f}")
    return fig


def plot_lower_bound(x, sigma, means_init, grid, which=0, n_steps=2):
    """The log likelihood ``L(mu_1)`` and the lower bounds EM maximises in its first
    ``n_steps`` iterations (see :func:`lower_bound_curves`; only mean ``which`` is
    free). Each bound touches ``L`` at the current mean (circle); the bound's
    maximum (square) is the next mean, where ``L`` is higher again (the vertical
    segment is the gap). Used in: Chapter 7, section "The general EM algorithm and why it works"."""
    path = one_mean_em_path(x, means_init, sigma, which, n_steps)
    fig = _figure(7.0, 3.8)
    ax = fig.subplots()
    L, _ = lower_bound_curves(x, path[0], sigma, grid, which)
    ax.plot(grid, L, color="k", lw=2, label=r"$\log P(x \mid \mu_1)$")
    for t in range(n_steps):
        old, new = path[t], path[t + 1]
        _, B = lower_bound_curves(x, old, sigma, grid, which)
        color = COLORS[(t + 1) % len(COLORS)]
        ax.plot(grid, B, color=color, ls="--",
                label=fr"bound built at $\mu_1^{{({t})}} = {old[which]:.2f}$")
        L_old, _ = lower_bound_curves(x, old, sigma, [old[which]], which)
        ax.plot([old[which]], L_old, "o", color=color)
        L_new, B_new = lower_bound_curves(x, old, sigma, [new[which]], which)
        ax.plot([new[which]] * 2, [B_new[0], L_new[0]], color=color, lw=1)
        ax.plot([new[which]], B_new, "s", color=color, ms=5)
    span = L.max() - L.min()
    ax.set_ylim(L.min() - 0.15 * span, L.max() + 0.1 * span)
    ax.set_xlabel(r"$\mu_1$ (the other mean held fixed)")
    ax.set_ylabel("log likelihood or bound")
    ax.legend(fontsize=8, loc="lower left")
    return fig


def plot_em_2d(iteration=5, k=3, seed=0, X=None, true_ll=None, max_iter=40, live=None):
    """Interactive-figure callback: the state of EM for a ``k``-component Gaussian
    mixture on the 2-D data ``X`` after ``iteration`` steps from the random start
    chosen by ``seed``. Points are coloured by their responsibilities; the ellipses
    are 1 and 2 standard deviations. Right: the log likelihood so far, with the true
    model's value ``true_ll`` as a dashed line. The EM run of each ``(X, k, seed)``
    is kept, so moving ``iteration`` only draws; ``live``, a
    :class:`lib.plots.live.LiveFigure` this function drew into before for the same run,
    is then updated in place (a live redraw, see :func:`lib.plots.interactive.interactive_figure`).
    Returns the ``Figure``.
    Used in: Chapter 7, section "Try it yourself"."""
    if X is None:
        raise ValueError("plot_em_2d needs the data X")
    if not 0 <= iteration <= max_iter:
        raise ValueError(f"iteration must be between 0 and {max_iter}, got {iteration}")
    X = np.asarray(X, float)
    hist = _em_history(X, k, seed, max_iter)
    w, m, c, resp, _ = hist[int(iteration)]
    lls = [h[4] for h in hist[:int(iteration) + 1]]
    title = f"k = {k}, seed {seed}, after {iteration} iterations"
    same = (X.tobytes(), k, seed, true_ll, max_iter)
    live = LiveFigure() if live is None else live
    if live.state_for(same) is None:  # the first draw: what stays for another iteration
        _em_figure(live, same, X, hist[int(iteration)], lls, hist, true_ll, max_iter, title)
    (points, lines, centres), ll_line, ax = live.state
    points.set_facecolors(_point_colours(resp))
    for j, line in enumerate(lines):
        line.set_data(*_ellipses(m[j], c[j]).T)
    centres.set_data(m[:, 0], m[:, 1])
    ll_line.set_data(np.arange(len(lls)), lls)
    ax.title.set_text(title)
    return live.fig


def _em_figure(live, same, X, step, lls, hist, true_ll, max_iter, title):
    """The first drawing of :func:`plot_em_2d` (into ``live``)."""
    w, m, c, resp, _ = step
    fig = _figure(8.6, 3.6)
    a, b = fig.subplots(1, 2, width_ratios=[1.3, 1])
    drawn = _draw_mixture(a, X, w, m, c, resp, title)
    xlim, ylim = _limits(X)
    a.set_xlim(xlim)
    a.set_ylim(ylim)
    plot_log_likelihood(lls, true_ll, ax=b)
    b.set_xlim(-0.5, max_iter + 0.5)
    lo = min(hist[0][4], true_ll if true_ll is not None else np.inf)
    hi = max(hist[-1][4], true_ll if true_ll is not None else -np.inf)
    b.set_ylim(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo))
    live.start(fig, same, (drawn, b.lines[0], a))
    # what a live redraw of another iteration changes (the rest is kept as pixels)
    live.blit([drawn[0], *drawn[1], drawn[2], b.lines[0], a.title], same)


def plot_mean_field(mean, covariance, trace):
    """Mean-field variational inference on a 2-D Gaussian (a
    :class:`lib.em.variational.MeanFieldTrace`): (a) the 1- and 2-standard-deviation
    ellipses of the target (black) and of the final factorised approximation (red,
    dashed), with the zig-zag path of the approximation's mean; (b) the ELBO after
    each single-coordinate update. Used in: Chapter 7, section "When the E step is
    intractable: variational inference"."""
    mean, covariance = np.asarray(mean, float), np.asarray(covariance, float)
    fig = _figure(8.6, 3.8)
    ax1, ax2 = fig.subplots(1, 2)
    q_cov = np.diag(trace.variances)
    for r in (1.0, 2.0):
        ax1.plot(*_ellipse_points(mean, covariance, r).T, color="k", lw=1.5,
                 label="target p" if r == 1 else None)
        ax1.plot(*_ellipse_points(trace.means[-1], q_cov, r).T, color=COLORS[1], ls="--",
                 label="mean-field q" if r == 1 else None)
    ax1.plot(*trace.means.T, color=COLORS[0], marker="o", ms=3, lw=1,
             label="mean of q, update by update")
    ax1.set_aspect("equal")
    ax1.set_xlabel("$z_1$")
    ax1.set_ylabel("$z_2$")
    ax1.set_title("(a) target and approximation", fontsize=10)
    # under the panel: on a phone's column the equal-aspect panel is too small to hold it
    legend_under(ax1, -0.25, fontsize=8)
    ax2.plot(np.arange(len(trace.elbo)), trace.elbo, color=COLORS[0], marker="o", ms=3)
    ax2.axhline(trace.elbo[-1], color="k", ls=":", lw=1)
    ax2.set_xlabel("single-coordinate updates")
    ax2.set_ylabel(r"ELBO $= -\mathrm{KL}(q \,\|\, p)$ (nats)")
    ax2.set_title("(b) the bound rises at every update", fontsize=10)
    return fig


def plot_hidden_structures(nets, titles, hidden, extra_counts=None):
    """Networks one above another (``nets``, one :func:`lib.plots.bn.plot_network` panel
    each, the node ``hidden`` shaded where present) and a bar chart of their numbers of
    free parameters (:meth:`lib.bn.BayesNet.n_parameters`) labelled by the first line of
    ``titles``, followed by the bars of ``extra_counts = {label: count}`` (not drawn).
    Used in: Chapter 7, section "Structural EM with a hidden variable"."""
    from lib.plots.bn import plot_network

    # one network a row, as wide as a phone's column, and the counts under them as horizontal
    # bars (labels that need no turning); node text at the smallest size figure_png allows,
    # so each box fits its name
    fig = _figure(5.0, 2.4 * len(nets) + 1.8)
    top, bottom = fig.subfigures(2, 1, height_ratios=[2.4 * len(nets), 1.8])  # margins of their own
    for ax, net, title in zip(top.subplots(len(nets), 1), nets, titles):
        shade = {hidden: "#fde2c8"} if hidden in net.names else None
        plot_network(net, ax=ax, colors=shade, title=title, fontsize=MIN_FONT_PT)
    ax = bottom.subplots()
    extra = dict(extra_counts or {})
    counts = [net.n_parameters() for net in nets] + list(extra.values())
    labels = [textwrap.fill(t, 14) for t in [t.split("\n")[0] for t in titles] + list(extra)]
    bars = ax.barh(range(len(counts)), counts, color=[COLORS[k % len(COLORS)] for k in range(len(counts))])
    ax.bar_label(bars, fontsize=8, padding=2)
    ax.set_yticks(range(len(counts)), labels, fontsize=8, linespacing=0.95)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.12 * max(counts))
    ax.set_xlabel("free parameters")
    return fig
