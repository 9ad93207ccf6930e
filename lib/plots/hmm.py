"""Figures of Chapter 8 ("Hidden Markov models") and the data they show. The algorithms
live in :mod:`lib.hmm`; this module only draws, and records a Baum-Welch run for its
figure (:func:`record_baum_welch`)."""
import functools
from typing import NamedTuple

import numpy as np
from matplotlib.patches import Circle

from lib._validation import check_scalar
from lib.hmm import ALPHABET, CASINO_EXAMPLES, HMM, casino_model, rolls_to_symbols
from lib.hmm.reference import check_symbols, match_states
from lib.plots.live import LiveFigure
from lib.plots.style import new_figure, readable_on


def plot_unrolled_network(n_steps=4):
    """The HMM as an unrolled dynamic Bayesian network: a chain of hidden states
    ``X_t``, each with one observed child ``E_t`` (Figure 20.14 of the source).
    Used in: Chapter 8, section "The model"."""
    fig = new_figure((1.6 * n_steps + 0.6, 2.3))
    ax = fig.subplots()
    for t in range(n_steps):
        for y, label, filled in [(1.0, f"$X_{t + 1}$", "white"), (0.0, f"$E_{t + 1}$", "0.85")]:
            ax.add_patch(_circle((t, y), 0.28, filled))
            ax.text(t, y, label, ha="center", va="center", fontsize=12)
        ax.annotate("", (t, 0.28), (t, 0.72), arrowprops=dict(arrowstyle="->", lw=1.4))
        if t + 1 < n_steps:
            ax.annotate("", (t + 0.72, 1.0), (t + 0.28, 1.0), arrowprops=dict(arrowstyle="->", lw=1.4))
    ax.text(n_steps - 0.45, 1.0, r"$\cdots$", va="center", fontsize=14)
    ax.set_xlim(-0.5, n_steps)
    ax.set_ylim(-0.45, 1.45)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


def _circle(centre, radius, colour):
    return Circle(centre, radius, facecolor=colour, edgecolor="black", lw=1.2)


def plot_filter_smooth(model, obs, state=0, state_name="state 0", symbol_labels=None,
                       title=None, live=None):
    """Filtered ``P(X_t = state | e_1..e_t)`` and smoothed ``P(X_t = state | e_1..e_T)``
    along one sequence, with the Viterbi path as a band underneath. ``live``: a
    :class:`lib.plots.live.LiveFigure` this function drew into before for the same
    model and labels; it gets the new sequence in its lines, band and symbols (a live
    redraw, see :func:`lib.plots.interactive.interactive_figure`). Returns the ``Figure``.

    Used in: Chapter 8, sections "Filtering versus smoothing" and "Try it: reading the dice".
    """
    obs = check_symbols(obs, model.n_symbols)
    T = len(obs)
    filtered, smoothed = model.filter(obs)[:, state], model.smooth(obs)[:, state]
    path, _ = model.viterbi(obs)
    t = np.arange(1, T + 1)
    marker = "o" if T <= 60 else None
    same = (model, state, state_name, symbol_labels, marker)
    live = LiveFigure() if live is None else live
    if live.state_for(same) is None:  # the first draw: what stays for another sequence
        fig = new_figure((8.0, 3.6))
        ax, band = fig.subplots(2, 1, sharex=True, gridspec_kw=dict(height_ratios=[5, 1]))
        ax.plot(t, filtered, marker=marker, markersize=4, label="filtered (evidence so far)")
        ax.plot(t, smoothed, marker=marker, markersize=4, label="smoothed (all the evidence)")
        ax.set_ylim(-0.03, 1.03)
        ax.set_ylabel(f"P({state_name})")
        # above the axes, beside the title: inside, the legend would cover the curves
        ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False, borderaxespad=0.2)
        band.imshow((path == state)[None, :], aspect="auto", cmap="Greys", vmin=0, vmax=1.6,
                    extent=(0.5, T + 0.5, 0, 1), interpolation="nearest")
        band.set_yticks([0.5], [f"Viterbi:\n{state_name}"], fontsize=8)
        band.set_xlabel("time step t")
        live.start(fig, same, (ax, band))
    ax, band = live.state
    for line, values in zip(ax.lines, (filtered, smoothed)):
        line.set_data(t, values)
    for text in list(ax.texts):
        text.remove()
    if symbol_labels is not None and T <= 60:
        _print_symbols(ax, t, obs, symbol_labels)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    band.images[0].set_data((path == state)[None, :])
    band.images[0].set_extent((0.5, T + 0.5, 0, 1))
    band.set_xlim(0.5, T + 0.5)
    return live.fig


def _print_symbols(ax, t, obs, symbol_labels):
    for ti, o in zip(t, obs):
        ax.text(ti, -0.12, symbol_labels[o], ha="center", va="top", fontsize=7,
                transform=ax.get_xaxis_transform())


def plot_log_likelihood(history, reference=None):
    """Log-likelihood per Baum-Welch iteration (and the true model's, dashed).
    Used in: Chapter 8, section "The occasionally dishonest casino"."""
    fig = new_figure((6.0, 3.0))
    ax = fig.subplots()
    ax.plot(np.arange(len(history)), history, marker="o", markersize=2)
    if reference is not None:
        ax.axhline(reference, color="k", ls="--", lw=1, label="true parameters")
        ax.legend(loc="lower right")
    ax.set_xlabel("iteration")
    ax.set_ylabel("log-likelihood")
    return fig


class BaumWelchRun(NamedTuple):
    """Every iteration of one Baum-Welch run, states aligned to a true model (see
    :func:`record_baum_welch`). Index ``k`` = after ``k`` updates."""
    transitions: np.ndarray        # (K + 1, N, N)
    emissions: np.ndarray          # (K + 1, N, M)
    log_likelihoods: np.ndarray    # (K + 1,)
    order: np.ndarray              # learned state order[i] plays true state i
    true_transition: np.ndarray
    true_emission: np.ndarray
    true_log_likelihood: float


def record_baum_welch(model, sequences, truth, n_iter=300, tol=5e-9):
    """Run Baum-Welch from the :class:`lib.hmm.HMM` ``model`` (left unchanged) with
    :meth:`lib.hmm.HMM.fit` (``n_iter`` and ``tol`` as there, per symbol), then replay
    its updates one at a time to keep the parameters after every iteration, for
    :func:`lib.plots.hmm.plot_baum_welch`. The learned states are put in the order of
    the true model ``truth``'s by the permutation :func:`match_states` finds for the
    *final* parameters (one order for all iterations).
    Used in: Chapter 8, section "Watching Baum-Welch learn".
    """
    if isinstance(sequences, np.ndarray) and sequences.ndim == 1:
        sequences = [sequences]
    fitted = HMM(model.start, model.transition, model.emission, n_iter=n_iter, tol=tol).fit(sequences)
    step = HMM(model.start, model.transition, model.emission, n_iter=1, tol=0)
    transitions, emissions = [step.transition], [step.emission]
    for _ in range(fitted.n_iter_):
        step.fit(sequences)
        transitions.append(step.transition.copy())
        emissions.append(step.emission.copy())
    order = match_states(fitted.emission, truth.emission)
    return BaumWelchRun(np.array(transitions)[:, order][:, :, order], np.array(emissions)[:, order],
                        fitted.log_likelihoods_, order, truth.transition, truth.emission,
                        float(sum(truth.log_likelihood(obs) for obs in sequences)))


def plot_baum_welch(iteration, run, state_labels=None, symbol_labels=None, live=None):
    """The interactive figure of Baum-Welch: the transition and emission matrices after
    ``iteration`` updates under the true ones, as heatmaps, and below them the
    log-likelihood per iteration with the current one marked. ``run`` comes from
    :func:`record_baum_welch` (nothing is fitted here). ``live``: a
    :class:`lib.plots.live.LiveFigure` this function drew into before for the same run
    and labels; only the learned matrices and the marker change (a live redraw, see
    :func:`lib.plots.interactive.interactive_figure`). The first draw goes through the same update.
    Returns the ``Figure``.
    Used in: Chapter 8, section "Watching Baum-Welch learn".
    """
    k = check_scalar(iteration, "iteration", kind="integer", low=0, high=len(run.log_likelihoods) - 1)
    n, m = run.true_emission.shape
    labels = ([f"state {i}" for i in range(n)] if state_labels is None else list(state_labels),
              [str(s) for s in range(m)] if symbol_labels is None else list(symbol_labels))
    live = LiveFigure() if live is None else live
    state = live.state_for((run, labels))
    if state is None:  # the first draw: everything that does not move
        fig, parts = _baum_welch_figure(run, *labels)
        state = live.start(fig, (run, labels), parts)
    for image, texts, matrix in zip(state["images"], state["texts"], (run.transitions[k], run.emissions[k])):
        image.set_data(matrix)
        _write_values(texts, matrix, image)
    state["row_label"].set_text(f"iteration {k}")
    state["marker"].set_data([k], [run.log_likelihoods[k]])
    # blitting: the learned row and the marker move
    live.blit([*(image.axes for image in state["images"]), state["marker"]], "baum-welch")
    return live.fig


def _write_values(texts, matrix, image):
    for text, value in zip(texts, matrix.ravel()):
        text.set_text(f"{value:.2f}")
        text.set_color(readable_on(image.to_rgba(value)))


def _baum_welch_figure(run, state_labels, symbol_labels):
    """The parts of :func:`plot_baum_welch` that do not change with the iteration."""
    n, m = run.true_emission.shape
    fig = new_figure((5.4, 5.6))
    grid = fig.add_gridspec(3, 2, width_ratios=[n, m], height_ratios=[n, n, 2.2 * n])
    images, texts = [], []
    for r, (A, B) in enumerate([(run.true_transition, run.true_emission),
                                (run.transitions[0], run.emissions[0])]):
        for c, (matrix, ticks) in enumerate([(A, state_labels), (B, symbol_labels)]):
            ax = fig.add_subplot(grid[r, c])
            images.append(ax.imshow(matrix, cmap="Blues", vmin=0, vmax=1, aspect="auto"))
            texts.append([ax.text(j, i, "", ha="center", va="center") for i, j in np.ndindex(matrix.shape)])
            _write_values(texts[-1], matrix, images[-1])
            ax.set_xticks(range(matrix.shape[1]), ticks if r == 1 else [])
            ax.set_yticks(range(n), state_labels if c == 0 else [])
            if c == 0:
                ax.set_ylabel("true", fontweight="bold")
            if r == 0:
                ax.set_title(["transition (to)", "emission (symbol)"][c])
    ax = fig.add_subplot(grid[2, :])
    ax.plot(run.log_likelihoods, lw=1.5)
    marker, = ax.plot([0], [run.log_likelihoods[0]], "o", color="C3")
    ax.axhline(run.true_log_likelihood, color="k", ls="--", lw=1, label="true parameters")
    ax.set_xlabel("iteration")
    ax.set_ylabel("log-likelihood")
    ax.legend(loc="lower right")
    return fig, {"images": images[2:], "texts": texts[2:], "row_label": fig.axes[2].yaxis.label,
                 "marker": marker}


def plot_letter_emissions(emission, labels=ALPHABET):
    """Emission probabilities of a two-state model of letters, as paired bars.
    Used in: Chapter 8, section "Vowels and consonants"."""
    emission = np.asarray(emission)
    fig = new_figure((9.0, 3.0))
    ax = fig.subplots()
    x = np.arange(emission.shape[1])
    for i in range(emission.shape[0]):
        ax.bar(x + (i - 0.5) * 0.4, emission[i], width=0.4, label=f"state {i}")
    ax.set_xticks(x, ["␣" if ch == " " else ch for ch in labels])
    ax.set_ylabel("P(letter | state)")
    ax.legend()
    return fig


@functools.lru_cache(maxsize=1)
def _default_casino():
    """One casino model for every redraw (a live redraw keeps the figure of the same model)."""
    return casino_model()


def plot_casino_sequence(rolls=CASINO_EXAMPLES["mostly fair, then a run of sixes"], model=None,
                         live=None):
    """The interactive figure of Chapter 8: for a string of die rolls, the filtered and
    smoothed probability that the loaded die is in use, and the Viterbi path
    (``live``: see :func:`plot_filter_smooth`).
    Used in: Chapter 8, section "Try it: reading the dice"."""
    model = _default_casino() if model is None else model
    obs = rolls_to_symbols(rolls)
    return plot_filter_smooth(model, obs, state=1, state_name="loaded",
                              symbol_labels="123456", title=f"{len(obs)} rolls", live=live)
