"""Figures of Chapter 5 ("Learning to classify text"): the confusion matrix, learning
curves, the reliability diagram, event models compared and the classify-your-own-sentence
explorer. The numbers come from :mod:`lib.text` (and :mod:`lib.evaluation` for the
calibration bins).
"""
import numpy as np
from scipy.special import logsumexp

from lib.plots.live import LiveFigure
from lib.plots.style import clear_data, legend_under, new_figure, readable_on
from lib.text import word_contributions

__all__ = ["plot_confusion_matrix", "short_names", "plot_learning_curve", "plot_reliability",
           "plot_event_models", "plot_text_posterior"]


def plot_confusion_matrix(matrix, names):
    """Heat map of a confusion matrix, rows normalised to percentages of each true class
    (printed in the cells of 5 % or more). Dotted names are shown without the hierarchy
    they share (:func:`short_names`), so that 20 groups fit a phone's column.

    Used in: Chapter 5, section "How well does it work?".
    """
    matrix = np.asarray(matrix, dtype=float)
    percent = 100 * matrix / np.maximum(matrix.sum(axis=1, keepdims=True), 1)
    fig = new_figure((5.0, 5.4))  # no colour bar: the cells print their values, wider cells
    ax = fig.subplots()
    image = ax.imshow(percent, cmap="Blues", vmin=0, vmax=100)
    ticks, labels = np.arange(len(names)), short_names(names)
    ax.set_xticks(ticks, labels, rotation=90, fontsize=8)
    ax.set_yticks(ticks, labels, fontsize=8)
    for i, j in zip(*np.nonzero(percent >= 5)):
        ax.text(j, i, f"{percent[i, j]:.0f}", ha="center", va="center", fontsize=6,
                color=readable_on(image.to_rgba(percent[i, j])))
    ax.set_xlabel("predicted group")
    ax.set_ylabel("true group (each row: % of its test posts)")
    return fig


def short_names(names):
    """Dotted names without their shared hierarchy: the last part, or the last two where
    the last part is not unique or shorter than three letters.

    >>> short_names(["comp.sys.mac.hardware", "comp.sys.ibm.pc.hardware", "sci.space", "comp.windows.x"])
    ['mac.hardware', 'pc.hardware', 'space', 'windows.x']
    """
    parts = [str(name).split(".") for name in names]
    last = [p[-1] for p in parts]
    return [p[-1] if last.count(p[-1]) == 1 and len(p[-1]) >= 3 else ".".join(p[-2:]) for p in parts]


def plot_learning_curve(curves, reference=None):
    """Accuracy against the number of training documents (log scale).

    ``curves`` maps a label to ``(sizes, accuracies)`` with accuracies of shape
    ``(len(sizes), repeats)``; the mean is drawn with a band of one standard
    deviation. ``reference`` is an optional ``(accuracy, label)`` horizontal line.
    Used in: Chapter 5, section "The learning curve".
    """
    fig = new_figure((7, 4.2))
    ax = fig.subplots()
    for (label, (sizes, acc)), marker in zip(curves.items(), "osd^v"):
        mean, std = acc.mean(axis=1), acc.std(axis=1)
        ax.plot(sizes, mean, marker=marker, label=label)
        ax.fill_between(sizes, mean - std, mean + std, alpha=0.2)
    if reference is not None:
        ax.axhline(reference[0], color="gray", linestyle="--", label=reference[1])
    ax.axhline(1 / 20, color="gray", linestyle=":", label="guessing (1/20)")
    return _accuracy_axes(ax, "number of training posts")


def _accuracy_axes(ax, xlabel):
    """Test accuracy (0 to 1) against a size on a log axis; returns the figure."""
    ax.set_xscale("log")
    ax.set_ylim(0, 1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("test accuracy")
    # under the axes: reference lines across the top and the bottom leave no corner free
    legend_under(ax, -0.2, ncol=2)
    ax.grid(alpha=0.3)
    return ax.figure


def plot_reliability(confidence, correct, n_bins=10):
    """Reliability diagram (left) and histogram of the confidences (right).

    ``confidence[i]``: the probability a classifier gave to its answer for example
    ``i`` (its largest posterior); ``correct[i]``: whether the answer was right. Left,
    per bin of :func:`lib.evaluation.reliability_bins`, the observed accuracy (bars)
    against the diagonal of perfect calibration, with a dot at (mean confidence,
    accuracy) of each bin and the expected calibration error in the title; right, the number of
    examples per bin on a logarithmic axis, with the overall mean confidence and
    accuracy. Used in: Chapter 5, section "Are the posteriors believable?".
    """
    from lib.evaluation import expected_calibration_error, reliability_bins

    bins = reliability_bins(confidence, correct, n_bins)
    ece = expected_calibration_error(confidence, correct, n_bins)
    centres, width = (bins.edges[:-1] + bins.edges[1:]) / 2, 1 / n_bins
    full = bins.count > 0
    fig = new_figure((9, 3.9))
    left, right = fig.subplots(1, 2)
    left.bar(centres[full], bins.accuracy[full], width=width * 0.9, color="tab:blue",
             label="observed accuracy")
    left.plot(bins.confidence[full], bins.accuracy[full], "o", color="black", markersize=4,
              label="(mean confidence, accuracy) of a bin")
    left.plot([0, 1], [0, 1], "--", color="gray", label="calibrated")
    left.set(xlim=(0, 1), ylim=(0, 1), xlabel="confidence (largest posterior)",
             ylabel="fraction classified correctly", title=f"reliability (ECE {ece:.3f})")
    # under each panel: inside, the bars and lines leave no corner free on a phone's column
    legend_under(left, fontsize=8)
    right.bar(centres, bins.count, width=width * 0.9, color="tab:gray", log=True)
    mean_confidence, accuracy = float(np.mean(confidence)), float(np.mean(correct))
    right.axvline(mean_confidence, color="black", label=f"mean confidence {mean_confidence:.3f}")
    right.axvline(accuracy, color="tab:blue", linestyle="--", label=f"accuracy {accuracy:.3f}")
    right.set(xlim=(0, 1), xlabel="confidence (largest posterior)", ylabel="number of examples",
              title="how often each confidence occurs")
    legend_under(right, fontsize=8)
    return fig


def plot_event_models(sizes, accuracy):
    """Test accuracy against vocabulary size for several event models.

    ``accuracy`` maps a label to one accuracy per entry of ``sizes``.
    Used in: Chapter 5, section "Counting words or noting their presence".
    """
    fig = new_figure((7, 4))
    ax = fig.subplots()
    for (label, acc), marker in zip(accuracy.items(), "os^"):
        ax.plot(sizes, acc, marker=marker, label=label)
    return _accuracy_axes(ax, "vocabulary size (most frequent words kept)")


def plot_text_posterior(sentence, model, n_words=10, class_names=None, live=None):
    """Posterior over the classes for ``sentence`` and the words that decided it.

    Left: ``P(v_j | sentence)`` for every class. Right: for the most probable class
    ``v*``, each word's push ``count * (log P(w | v*) - mean_j log P(w | v_j))``:
    positive bars are words more typical of ``v*`` than of the average class.
    ``class_names`` labels the classes (default: ``model.classes_``). The callback of
    the chapter's interactive figure (fast: a few array lookups and two bar charts).
    ``live``: a :class:`lib.plots.live.LiveFigure` this function drew into before (for a
    sentence with known words); what its two axes show is drawn again (a live redraw, see
    :func:`lib.plots.interactive.interactive_figure`). Returns the ``Figure``.
    Used in: Chapter 5, section "Try it: classify your own sentence".
    """
    words, contrib = word_contributions(model, sentence)
    joint = model.class_log_prior_ + contrib.sum(axis=1)
    posterior = np.exp(joint - logsumexp(joint))
    best = int(np.argmax(posterior))
    live = LiveFigure() if live is None else live
    if live.state_for(("text", model)) is None:  # the first draw: the axes
        fig = new_figure((10, 4.6))  # laid out to hold the group names (a live redraw keeps that layout)
        live.start(fig, ("text", model), fig.subplots(1, 2, width_ratios=[1.3, 1]))
    else:  # a live redraw: the same axes, drawn again
        clear_data(*live.state)
    (left, right), fig = live.state, live.fig
    names = [str(c) for c in (model.classes_ if class_names is None else class_names)]
    rows = np.arange(len(names))
    # bars drawn as thick lines: one artist instead of one patch per bar keeps this fast
    left.hlines(rows, 0, posterior, linewidth=9,
                colors=["tab:orange" if j == best else "tab:blue" for j in rows])
    left.set_yticks(rows, names, fontsize=8)
    left.set_ylim(len(names) - 0.5, -0.5)
    left.set_xlim(0, 1)
    left.set_xlabel("posterior probability")
    left.set_title("P(group | sentence)")
    if words:
        push = contrib[best] - contrib.mean(axis=0)
        order = np.argsort(-np.abs(push))[:n_words][::-1]
        right.hlines(np.arange(len(order)), 0, push[order], linewidth=12,
                     colors=["tab:green" if push[i] > 0 else "tab:red" for i in order])
        right.set_yticks(np.arange(len(order)), [words[i] for i in order])
        right.set_ylim(-0.5, max(len(order), 3) - 0.5)
        right.axvline(0, color="black", linewidth=0.8)
        right.set_xlabel("log-probability push\ntoward the winner")  # one line is wider than the panel
    else:
        right.text(0.5, 0.5, "no word of the vocabulary:\nthe posterior is the prior",
                   ha="center", va="center", transform=right.transAxes)
        right.set_xticks([])
        right.set_yticks([])
        right.set_xlabel("")
    right.set_title("words behind the winner")  # the orange bar (a group's name is wider than the panel)
    if not words:  # the right axes lost its ticks: drawn afresh next time
        live.key = None
    return fig


def plot_calibration_repair(confidences, correct, n_bins=10):
    """Reliability diagrams side by side, one per calibration method.

    ``confidences`` maps a method's name to the probability it gives its answer on each
    example; ``correct[i]`` says whether the answer was right (the same for every
    method: a repair changes the probabilities, not the answers). Each panel shows the
    observed accuracy per bin against the diagonal, the mean confidence per bin as
    dots, and the expected calibration error in its title. Used in: Chapter 5, section
    "Scoring and repairing the probabilities".
    """
    from lib.evaluation import expected_calibration_error, reliability_bins

    fig = new_figure((3.2 * len(confidences), 3.4))
    axes = np.atleast_1d(fig.subplots(1, len(confidences), sharey=True))
    for ax, (name, confidence) in zip(axes, confidences.items()):
        bins = reliability_bins(confidence, correct, n_bins)
        full = bins.count > 0
        centres = (bins.edges[:-1] + bins.edges[1:]) / 2
        ax.bar(centres[full], bins.accuracy[full], width=0.9 / n_bins, color="tab:blue")
        ax.plot(bins.confidence[full], bins.accuracy[full], "o", color="black", markersize=4)
        ax.plot([0, 1], [0, 1], "--", color="gray")
        ece = expected_calibration_error(confidence, correct, n_bins)
        ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="confidence", title=f"{name}\nECE {ece:.3f}")
    axes[0].set_ylabel("fraction classified correctly")
    return fig
