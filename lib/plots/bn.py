"""Drawings of Bayesian networks, the chapter's learning curves and its CPT tables.

The figures of :mod:`lib.bn` (which imports no matplotlib). Chapter 6: every drawing of a
network (:func:`plot_network`, :func:`plot_networks`), section "Approximate inference
by sampling" (:func:`plot_sampling_convergence`), section "Explaining away,
interactively" (:func:`plot_evidence_explorer`), the likelihood and score curves
(:func:`plot_curves`) and section "Averaging over structures"
(:func:`plot_link_posteriors`); section "The earthquake network" shows the CPTs as
tables (:func:`cpt_markdown`).
"""
import itertools
import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from lib._validation import check_scalar
from lib.bn import (
    BayesNet,
    ImpossibleEvidenceError,
    active_trails,
    dsep_check,
    forward_sample,
    log_evidence,
    markov_blanket,
)
from lib.plots.live import LiveFigure
from lib.plots.style import clear_data, legend_under, new_figure, readable_on
from lib.plots.tables import markdown_table

__all__ = ["layered_layout", "plot_network", "plot_networks", "plot_evidence_explorer",
           "plot_sampling_convergence", "plot_curves", "plot_dsep_explorer",
           "plot_cpdags", "plot_linear_gaussian", "plot_markov_blankets", "plot_link_posteriors",
           "cpt_markdown"]


def layered_layout(net):
    """Positions ``{name: (x, y)}`` of a layered drawing: a variable's layer is the
    length of the longest path from a root; nodes within a layer are ordered by
    the mean position of their parents (a few barycentre sweeps)."""
    layer = {}
    for n in net.order:
        layer[n] = 1 + max((layer[p] for p in net.parents[n]), default=-1)
    layers = {}
    for n in net.names:
        layers.setdefault(layer[n], []).append(n)
    x = {}
    for k in sorted(layers):
        for j, n in enumerate(layers[k]):
            x[n] = j - (len(layers[k]) - 1) / 2
    for _ in range(4):
        for k in sorted(layers):
            if k == 0:
                continue
            key = {n: np.mean([x[p] for p in net.parents[n]] or [x[n]]) for n in layers[k]}
            layers[k].sort(key=lambda n: key[n])
            for j, n in enumerate(layers[k]):
                x[n] = j - (len(layers[k]) - 1) / 2 + 0.15 * (key[n] - (j - (len(layers[k]) - 1) / 2))
    depth = max(layers)
    return {n: (x[n], depth - layer[n]) for n in net.names}


def plot_network(net, ax=None, pos=None, node_text=None, colors=None, title=None,
                 figsize=None, fontsize=10, node_width=None):
    """Draw the graph of ``net`` (boxes and arrows) with :func:`layered_layout`.

    ``node_text``: optional ``{name: extra line}`` (e.g. a posterior);
    ``colors``: optional ``{name: facecolor}``. Returns the ``Figure``.

    Used in: Chapter 6, every drawing of a network.
    """
    pos = pos or layered_layout(net)
    if ax is None:
        xs = [p[0] for p in pos.values()]
        ys = [p[1] for p in pos.values()]
        w = max(3.0, 1.6 * (max(xs) - min(xs) + 1.6))
        h = max(1.8, 1.1 * (max(ys) - min(ys) + 1))
        fig, ax = plt.subplots(figsize=figsize or (min(w, 12), min(h, 9)))
    else:
        fig = ax.figure
    node_text = node_text or {}
    colors = colors or {}
    longest = max(len(str(n)) for n in net.names)
    bw = node_width or min(0.9, 0.1 + 0.065 * longest * fontsize / 10)
    bh = 0.34 if not node_text else 0.5
    for n, (x, y) in pos.items():
        label = str(n) + (f"\n{node_text[n]}" if n in node_text else "")
        ax.add_artist(FancyBboxPatch((x - bw / 2, y - bh / 2), bw, bh,
                                    boxstyle="round,pad=0.02,rounding_size=0.08",
                                    fc=colors.get(n, "#e8eef7"), ec="#33415c", lw=1.2, zorder=2))
        ax.text(x, y, label, ha="center", va="center", fontsize=fontsize, zorder=3)
    for u, v in net.edges():
        (x0, y0), (x1, y1) = pos[u], pos[v]
        ax.add_artist(FancyArrowPatch(_box_point(x0, y0, x1, y1, bw, bh),
                                     _box_point(x1, y1, x0, y0, bw, bh),
                                     arrowstyle="-|>", mutation_scale=12, color="#33415c",
                                     lw=1.1, zorder=1, shrinkA=0, shrinkB=0))
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    half = max((max(xs) - min(xs)) / 2 + bw, 1.4)  # narrow graphs keep narrow boxes
    mid = (max(xs) + min(xs)) / 2
    ax.set_xlim(mid - half, mid + half)
    ax.set_ylim(min(ys) - bh, max(ys) + bh)
    ax.set_aspect("auto")
    ax.axis("off")
    if title:
        ax.set_title(title)
    return fig


def _box_point(x0, y0, x1, y1, bw, bh):
    """Where the segment from (x0, y0) to (x1, y1) leaves the box around (x0, y0)."""
    dx, dy = x1 - x0, y1 - y0
    tx = (bw / 2 + 0.03) / abs(dx) if dx else math.inf
    ty = (bh / 2 + 0.03) / abs(dy) if dy else math.inf
    t = min(tx, ty, 0.45)
    return x0 + t * dx, y0 + t * dy


def plot_evidence_explorer(net, n_samples=1000, seed=0, first_state=None, live=None, **evidence):
    """Interactive-figure callback: exact posteriors of every unobserved variable
    (variable elimination) next to a likelihood-weighting estimate from
    ``n_samples`` samples (one weighted sample serves every variable).

    ``evidence``: one keyword per variable whose value is a state label or
    ``"unobserved"``. Left: the network, observed nodes shaded, each node showing
    ``P(first state | evidence)``; right: bars of the exact posteriors and markers
    for the estimates. Returns the ``Figure``.

    ``live``: a :class:`lib.plots.live.LiveFigure` this function drew into before for
    the same network and evidence; only the sampling estimates are drawn again (a live
    redraw of a new ``n_samples`` or ``seed``, see :func:`lib.plots.interactive.interactive_figure`).

    Used in: Chapter 6, section "Explaining away, interactively".
    """
    ev = {k: v for k, v in evidence.items() if v not in (None, "unobserved", "?")}
    free = [n for n in net.names if n not in ev]
    first = first_state or {n: net.states[n][0] for n in net.names}
    same = (net, sorted(ev.items()), sorted(first.items()))
    live = LiveFigure() if live is None else live
    if live.state_for(same) is None and not _evidence_explorer_axes(live, same, n_samples):
        return live.fig  # the evidence or the sample size is refused: the figure says why
    n_samples = check_scalar(n_samples, "n_samples", kind="integer", low=1)
    X, logw = forward_sample(net, n_samples, np.random.default_rng(seed), fixed=net.evidence_codes(ev))
    est, ess = _weighted_estimates(net, X, logw, free, first)
    live.state["marks"].set_xdata([max(est[n], _LOW) for n in free])
    live.state["label"].set_text(f"likelihood weighting\nn={n_samples}, ESS {ess:.0f}")  # two lines: one ran past the image
    return live.fig


_LOW = 1e-5   # the left end of the explorer's log axis


def _evidence_explorer_axes(live, same, n_samples):
    """The first drawing of :func:`plot_evidence_explorer` (into ``live``): the network with
    its exact posteriors, their bars and the axes; the estimates' marks are placed by the
    update. Returns False (the figure showing the error) for evidence or a sample size
    that is refused."""
    net, ev, first = same[0], dict(same[1]), dict(same[2])
    free = [n for n in net.names if n not in ev]
    fig = new_figure((11, 4.2))  # laid out to hold its labels (a live redraw keeps that layout)
    ax0, ax1 = fig.subplots(1, 2, width_ratios=[1.1, 1])
    try:
        exact = {n: float(net.query(n, ev)[net.state_code(n, first[n])]) for n in free}
        net.evidence_codes(ev)
        if log_evidence(net, ev) == -math.inf:
            raise ImpossibleEvidenceError(ev)
        check_scalar(n_samples, "n_samples", kind="integer", low=1)
    except ValueError as err:
        ax1.text(0.5, 0.5, str(err), ha="center", va="center", wrap=True)
        ax1.axis("off")
        plot_network(net, ax=ax0, fontsize=11)
        live.start(fig)  # nothing to update: drawn afresh next time
        return False
    text = {n: (f"= {ev[n]}" if n in ev else f"{exact[n]:.3g}") for n in net.names}
    colors = {n: ("#f6c85f" if n in ev else "#e8eef7") for n in net.names}
    # boxes wide enough for the longest line at 11 pt (about 0.085 data units per
    # character on this panel), so every label stays inside its box
    longest = max(len(line) for n in net.names for line in (str(n), text[n]))
    plot_network(net, ax=ax0, node_text=text, colors=colors, fontsize=11,
                 node_width=0.16 + 0.085 * longest)
    # log axis: posteriors of rare events (P(B) falls from 0.072 to 0.0066 when R is
    # observed) differ by orders of magnitude, invisible on a linear axis
    y = np.arange(len(free))
    ax1.barh(y, [max(exact[n], _LOW) - _LOW for n in free], left=_LOW, color="#6f9fd8",
             label="exact (variable elimination)")
    marks, = ax1.plot(np.full(len(free), _LOW), y, "k|", ms=18, mew=2.5, label="likelihood weighting")
    for k, n in enumerate(free):
        ax1.text(max(exact[n], _LOW) * 1.15, k, f"{exact[n]:.3g}", va="center", fontsize=10)
    ax1.set_xscale("log")
    ax1.set_yticks(y, [f"P({n}={first[n]})" for n in free], fontsize=11)
    ax1.set_ylim(len(free) - 0.5, -0.5)
    # room right of a bar near 1 for its value ("0.988"); the decades ticked up to 1 only
    ax1.set_xlim(_LOW, 20)
    ax1.set_xticks([10.0**k for k in range(round(math.log10(_LOW)), 1)])
    # two lines: in one, the label is wider than the panel on a phone's column
    ax1.set_xlabel("posterior probability given\nthe evidence (log scale)", fontsize=11)
    # anchored at the panel's left: the estimates' entry grows to the right with n and the ESS
    legend = ax1.legend(loc="lower left", bbox_to_anchor=(0, 1.01), fontsize=9, frameon=False)
    label = next(t for t in legend.get_texts() if t.get_text().startswith("likelihood weighting"))
    live.start(fig, same, {"marks": marks, "label": label})
    # what a live redraw of another sample size changes (the rest is kept as pixels)
    live.blit([marks, legend], repr(same[1:]))
    return True


def _weighted_estimates(net, X, logw, free, first):
    """Likelihood-weighting estimates of ``P(first state)`` per free node, and the ESS."""
    w = np.exp(logw - logw.max())
    est = {n: float(w @ (X[:, net.index[n]] == net.state_code(n, first[n])) / w.sum()) for n in free}
    return est, w.sum() ** 2 / np.sum(w ** 2)


def plot_sampling_convergence(results, exact, labels, title=None):
    """Running estimates of one probability against the number of samples (log
    axis), one line per sampler, with the exact value as a dashed line.

    ``results``: list of 1-D running-estimate arrays. Returns the ``Figure``.
    Used in: Chapter 6, section "Approximate inference by sampling".
    """
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for r, lab in zip(results, labels):
        r = np.asarray(r)
        idx = np.unique(np.geomspace(1, len(r), 600).astype(int)) - 1  # log-spaced points
        ax.plot(idx + 1, r[idx], label=lab, lw=1.3)
    ax.axhline(exact, color="k", ls="--", lw=1, label=f"exact {exact:.4f}")
    ax.set_xscale("log")
    ax.set_xlabel("number of samples")
    ax.set_ylabel("estimate")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_networks(nets, titles=None, figsize=None, fontsize=9):
    """Several networks side by side (one :func:`plot_network` panel each).

    Used in: Chapter 6, sections "Networks and factorisation" and "Counting parameters".
    """
    titles = titles or [None] * len(nets)
    fig, axes = plt.subplots(1, len(nets), figsize=figsize or (5 * len(nets), 3.6), squeeze=False)
    for ax, net, title in zip(axes[0], nets, titles):
        plot_network(net, ax=ax, title=title, fontsize=fontsize)
    fig.subplots_adjust(left=0.02, right=0.98, bottom=0.03, top=0.88, wspace=0.15)
    return fig


def plot_curves(x, curves, xlabel, ylabel, hline=None, hline_label=None, logx=False,
                logy=False, title=None, figsize=(7, 3.6), markers=False):
    """A plain line plot of ``curves = {label: y values}`` against ``x`` (or one
    ``x`` array per curve when ``x`` is a dict), with an optional dashed
    reference line. Returns the ``Figure``.

    Used in: Chapter 6 (likelihood traces, structure learning, factor sizes).
    """
    fig, ax = plt.subplots(figsize=figsize)
    for label, y in curves.items():
        xs = x[label] if isinstance(x, dict) else x
        ax.plot(xs, y, marker="o" if markers else None, ms=4, lw=1.5, label=label)
    if hline is not None:
        ax.axhline(hline, color="k", ls="--", lw=1, label=hline_label)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _line(ax, pos, u, v, bw, bh, color="#33415c", lw=1.1, ls="-", head=True, zorder=1):
    (x0, y0), (x1, y1) = pos[u], pos[v]
    ax.add_artist(FancyArrowPatch(_box_point(x0, y0, x1, y1, bw, bh), _box_point(x1, y1, x0, y0, bw, bh),
                                  arrowstyle="-|>" if head else "-", mutation_scale=12, color=color,
                                  lw=lw, ls=ls, zorder=zorder, shrinkA=0, shrinkB=0))


def plot_dsep_explorer(net, x, y, pos=None, live=None, **observed):
    """Interactive-figure callback for d-separation: the network with ``x`` and ``y``
    shaded red, the observed nodes (``observed[name]`` True or ``"observed"``) yellow, every edge of an
    active trail between ``x`` and ``y`` in red, the edges of blocked trails dashed;
    the right panel lists each trail and where it is blocked; the title gives the
    verdict and the numeric check of :func:`dsep_check`. Pass ``pos`` (e.g.
    ``layered_layout(net)``, computed once) to keep redraws cheap. ``live``: a
    :class:`lib.plots.live.LiveFigure` this function drew into before for the same
    network and ``pos``; both panels are drawn again in it (a live redraw, see
    :func:`lib.plots.interactive.interactive_figure`). Returns the ``Figure``.

    Used in: Chapter 6, section "d-separation".
    """
    given = [n for n in net.names if observed.get(n) in (True, "observed") and n not in (x, y)]
    pos = pos or layered_layout(net)
    live = LiveFigure() if live is None else live
    state = live.state_for((net, dict(pos)))
    if state is not None:  # a live redraw
        clear_data(*state["axes"])  # fig.suptitle below sets the title's text, size and colour in place
    else:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), gridspec_kw={"width_ratios": [1.25, 1]})
        fig.subplots_adjust(left=0.01, right=0.99, bottom=0.02, top=0.86, wspace=0.05)
        state = live.start(fig, (net, dict(pos)), {"axes": axes})
    (ax0, ax1), fig = state["axes"], live.fig
    colors = {n: "#f6c85f" if n in given else ("#f4a6a6" if n in (x, y) else "#e8eef7")
              for n in net.names}
    if x == y:
        plot_network(net, ax=ax0, pos=pos, colors=colors, fontsize=10)
        ax1.axis("off")
        fig.suptitle("choose two different variables x and y", color=plt.rcParams["text.color"])
        return fig
    bw = min(0.9, 0.1 + 0.065 * max(len(str(n)) for n in net.names))
    bh = 0.34
    trails = active_trails(net, x, y, given)
    on_open = {frozenset(e) for t, b in trails if b is None for e in zip(t, t[1:])}
    on_closed = {frozenset(e) for t, b in trails if b is not None for e in zip(t, t[1:])} - on_open
    # the plain drawing gets only the edges on no trail; trail edges are drawn below
    shell = BayesNet([(n, ("-",), [p for p in net.parents[n] if frozenset((p, n)) not in on_open | on_closed])
                      for n in net.names])
    plot_network(shell, ax=ax0, pos=pos, colors=colors, fontsize=10, node_width=bw)
    for u, v in net.edges():
        e = frozenset((u, v))
        if e in on_open:
            _line(ax0, pos, u, v, bw, bh, color="#d62728", lw=3, zorder=1.5)
        elif e in on_closed:
            _line(ax0, pos, u, v, bw, bh, color="#7f7f7f", lw=2, ls="--", zorder=1.5)
    ax1.axis("off")
    for k, (t, b) in enumerate(trails[:7]):  # the trail, and where it is blocked on a line of its own
        status = "OPEN" if b is None else f"blocked at {b[0]} ({b[1]})"
        ax1.text(0.0, 0.97 - 0.134 * k, f"{' - '.join(map(str, t))}:\n    {status}", fontsize=9, va="top",
                 color="#d62728" if b is None else "#444444", transform=ax1.transAxes)
    if len(trails) > 7:
        ax1.text(0.0, 0.02, f"... and {len(trails) - 7} more trails", fontsize=9, transform=ax1.transAxes)
    if not trails:
        ax1.text(0.0, 0.95, "no trail joins x and y", fontsize=10, transform=ax1.transAxes)
    sep = not any(b is None for _, b in trails)
    zt = ", ".join(map(str, given)) or "{}"
    try:
        ev, gap = dsep_check(net, x, y, given)
        zs = ", ".join(f"{k}={v}" for k, v in ev.items())
        check = f"max |P({x} | {y}, Z) - P({x} | Z)| = {gap:.2g}" + (f" at {zs}" if zs else "")
    except ImpossibleEvidenceError:
        check = "no possible evidence for Z"
    verdict = "d-separated" if sep else "d-connected"
    fig.suptitle(f"{x} and {y} given Z = {{{zt}}}: {verdict}\n{check}", fontsize=11,
                 color="#1f5f1f" if sep else "#a01010")
    return fig


def plot_cpdags(graphs, names, pos, titles, figsize=None, ncols=None):
    """Equivalence classes side by side: ``graphs`` is a list of
    :class:`lib.bn.independence.CPDAG` (compelled edges as arrows, reversible ones as
    plain lines, drawn in blue), all on the node positions ``pos``; ``ncols`` panels
    per row (default: all in one row; a ``None`` in ``graphs`` leaves its panel empty).

    Used in: Chapter 6, sections "Markov equivalence", "Other scores and independence
    tests" and "PC as it is practised" (the CPDAGs PC gives over orders of the variables).
    """
    ncols = ncols or len(graphs)
    nrows = math.ceil(len(graphs) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=figsize or (5.5 * ncols, 3.8 * nrows), squeeze=False)
    bw = min(0.9, 0.1 + 0.065 * max(len(str(n)) for n in names))
    for ax in axes.flat[len(graphs):]:
        ax.set_axis_off()
    for ax, g, title in zip(axes.flat, graphs, titles):
        if g is None:
            ax.set_axis_off()
            continue
        shell = BayesNet([(n, ("-",), [u for u, v in g.directed if v == n]) for n in names])
        plot_network(shell, ax=ax, pos=pos, title=title, fontsize=10, node_width=bw)
        for e in g.undirected:
            u, v = sorted(e, key=str)
            _line(ax, pos, u, v, bw, 0.34, color="#1f77b4", lw=2.2, head=False)
    fig.subplots_adjust(left=0.02, right=0.98, bottom=0.03, top=0.88, wspace=0.1)
    return fig


def plot_markov_blankets(net, nodes, pos=None, figsize=None):
    """One drawing of ``net`` per node of ``nodes``: the node in orange, its Markov
    blanket (parents, children, children's other parents) in blue, the rest white.

    Used in: Chapter 6, section "The Markov blanket".
    """
    pos = pos or layered_layout(net)
    fig, axes = plt.subplots(1, len(nodes), figsize=figsize or (4.6 * len(nodes), 3.8), squeeze=False)
    bw = min(0.9, 0.1 + 0.065 * max(len(str(n)) for n in net.names))
    for ax, node in zip(axes[0], nodes):
        blanket = markov_blanket(net, node)
        colors = {n: "#9ecae1" for n in blanket} | {node: "#fdae6b"}
        plot_network(net, ax=ax, pos=pos, colors=colors, node_width=bw, fontsize=10,
                     title=f"blanket of {node}: {len(blanket)} of {len(net.names) - 1} others")
    fig.subplots_adjust(left=0.02, right=0.98, bottom=0.03, top=0.88, wspace=0.1)
    return fig


def plot_linear_gaussian(parent, child, line, bins=None, labels=("x", "y")):
    """A continuous child of a continuous parent: the sample (dots), the mean line
    ``line = (slope, intercept, sd)`` with a band of two standard deviations, and,
    when ``bins`` (edges on the parent's axis) is given, the child's mean in each bin
    of a discretised parent as steps. Used in: Chapter 6, section "Numeric variables".
    """
    parent, child = np.asarray(parent, float), np.asarray(child, float)
    a, b, sd = line
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.plot(parent, child, ".", ms=3, alpha=0.35, color="#7f7f7f", label="sample")
    xs = np.linspace(parent.min(), parent.max(), 200)
    ax.plot(xs, a * xs + b, color="#d62728", lw=2, label=f"linear Gaussian: mean {a:.2f} x + {b:.2f}")
    ax.fill_between(xs, a * xs + b - 2 * sd, a * xs + b + 2 * sd, color="#d62728", alpha=0.12,
                    label=f"± 2 sd ({sd:.2f})")
    if bins is not None:
        bins = np.asarray(bins, float)
        k = np.clip(np.digitize(parent, bins[1:-1]), 0, len(bins) - 2)
        means = [child[k == j].mean() if np.any(k == j) else np.nan for j in range(len(bins) - 1)]
        ax.stairs(means, bins, baseline=None, color="#1f77b4", lw=2,
                  label=f"discretised: mean per bin ({len(bins) - 1} bins)")
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    # under the axes: the sample, its band and the steps fill the corners
    legend_under(ax, -0.2, fontsize=8, ncol=2)
    fig.tight_layout()
    return fig


def plot_link_posteriors(link_probs, names, true_links, best_links, titles, figsize=None):
    """Posterior link probabilities, one heat map per run: above the diagonal, cell
    ``(u, v)`` shows ``P(u and v linked | D)`` (``link_probs``: ``(n, n)`` arrays); a
    black frame marks a link of the true network (``true_links``: pairs of names), an
    orange dot a link of the single best graph (``best_links``: one set of pairs per run).

    Used in: Chapter 6, section "Averaging over structures".
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle
    n = len(names)
    index = {name: k for k, name in enumerate(names)}
    cells = lambda links: [tuple(sorted(index[x] for x in e)) for e in links]  # noqa: E731
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    fig = new_figure(figsize or (5.2 * len(link_probs), 5.0))
    axes = np.atleast_1d(fig.subplots(1, len(link_probs), sharey=True))
    for ax, p, best, title in zip(axes, link_probs, best_links, titles):
        image = ax.imshow(np.where(upper, p, np.nan), vmin=0, vmax=1, cmap="Blues")
        for u, v in zip(*np.nonzero(upper)):  # ".44", "1": the digits that fit a cell on a phone
            ax.text(v, u, "1" if p[u, v] >= 0.995 else f"{p[u, v]:.2f}".lstrip("0"), ha="center",
                    va="center", fontsize=7, color=readable_on(image.to_rgba(p[u, v])))
        for u, v in cells(true_links):
            ax.add_patch(Rectangle((v - 0.46, u - 0.46), 0.92, 0.92, fill=False, ec="black", lw=1.8))
        for u, v in cells(best):
            ax.plot(v + 0.3, u - 0.3, "o", color="#e6550d", ms=4)
        ax.set_xticks(range(n), names, rotation=90)
        ax.set_yticks(range(n), names)
        ax.set_title(title)
    handles = [Rectangle((0, 0), 1, 1, fill=False, ec="black", lw=1.8),
               Line2D([], [], ls="none", marker="o", color="#e6550d", ms=5)]
    fig.legend(handles, ["link of the true network", "link of the best graph"], loc="outside lower center",
               ncol=2, fontsize=8, frameon=False)
    fig.colorbar(image, ax=list(axes), shrink=0.7, label="posterior link probability")
    return fig


def cpt_markdown(net, name, digits=6):
    """The CPT of ``name`` as a Markdown table: one row per parent configuration,
    one column per state (for display in a chapter).

    Used in: Chapter 6, section "The earthquake network".

    Examples
    --------
    >>> from lib.datasets import load_network
    >>> print(cpt_markdown(load_network("asia"), "tub", digits=3))
    | asia | tub = yes | tub = no |
    | --- | --- | --- |
    | yes | 0.05 | 0.95 |
    | no | 0.01 | 0.99 |
    """
    if name not in net.cpts:
        raise ValueError(f"unknown variable {name!r}; the network has {net.names}")
    parents = net.parents[name]
    table = net.cpts[name].reshape(-1, net.card[name])
    rows = ([*cfg, *(f"{v:.{digits}g}" for v in table[k])]
            for k, cfg in enumerate(itertools.product(*(net.states[p] for p in parents))))
    return markdown_table([*parents, *(f"{name} = {s}" for s in net.states[name])], rows)
