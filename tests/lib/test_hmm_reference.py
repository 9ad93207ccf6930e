"""Tests of the plain Baum-Welch of lib.hmm.reference (Chapter 8, "Baum-Welch, one step
at a time"): equal to lib's fast HMM.fit and to hmmlearn's CategoricalHMM after k
iterations, a log-likelihood that never decreases, state matching, bad input, and the
Baum-Welch figure."""
import warnings

import numpy as np
import pytest

from lib.hmm import HMM, casino_model
from lib.hmm.reference import baum_welch, baum_welch_step, match_states
from lib.plots.hmm import plot_baum_welch, record_baum_welch

hmmlearn = pytest.importorskip("hmmlearn.hmm")


def random_parameters(rng, n, m, concentration=1.0):
    return (rng.dirichlet(np.full(n, concentration)), rng.dirichlet(np.full(n, concentration), n),
            rng.dirichlet(np.full(m, concentration), n))


def sample(rng, n, m, lengths):
    truth = HMM(*random_parameters(rng, n, m))
    return [truth.sample(T, rng)[1] for T in lengths]


def hmmlearn_fit(parameters, sequences, n_iter):
    start, transition, emission = parameters
    ref = hmmlearn.CategoricalHMM(n_components=len(start), n_features=emission.shape[1],
                                  init_params="", params="ste", n_iter=n_iter, tol=-np.inf,
                                  implementation="log")
    ref.startprob_, ref.transmat_, ref.emissionprob_ = start.copy(), transition.copy(), emission.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # hmmlearn warns when it stops "early"
        ref.fit(np.concatenate(sequences)[:, None], lengths=[len(s) for s in sequences])
    return ref


def reference_run(seed, n, m, lengths, k):
    """Random sequences, a random start, and ``k`` reference iterations from it."""
    rng = np.random.default_rng(seed)
    seqs = sample(rng, n, m, lengths)
    guess = random_parameters(rng, n, m)
    return seqs, guess, *baum_welch(*guess, seqs, n_iter=k, tol=-np.inf)


CASES = [(2, 3, [300], 5), (3, 6, [200, 40, 1, 500], 4), (4, 2, [2, 3, 5, 8, 13, 21], 6),
         (6, 10, [800], 3), (2, 27, [150, 150], 8)]


@pytest.mark.parametrize("n, m, lengths, k", CASES)
def test_reference_equals_fast_fit_after_k_iterations(n, m, lengths, k):
    seqs, guess, parameters, log_likelihoods = reference_run(n * 100 + m, n, m, lengths, k)
    fast = HMM(*guess, n_iter=k, tol=0).fit(seqs)
    assert len(parameters) == k + 1 and len(log_likelihoods) == k == fast.n_iter_
    # fit records one more value: the log-likelihood of the model it returns
    np.testing.assert_allclose(log_likelihoods, fast.log_likelihoods_[:-1], rtol=1e-11)
    for mine, theirs in zip(parameters[-1], (fast.start, fast.transition, fast.emission)):
        np.testing.assert_allclose(mine, theirs, atol=1e-11)
    # every intermediate step equals one fast iteration from the previous parameters
    for before, after in zip(parameters[:-1], parameters[1:]):
        one = HMM(*before, n_iter=1).fit(seqs)
        np.testing.assert_allclose(after[1], one.transition, atol=1e-11)
        np.testing.assert_allclose(after[2], one.emission, atol=1e-11)


@pytest.mark.parametrize("n, m, lengths, k", CASES)
def test_reference_equals_hmmlearn_after_k_iterations(n, m, lengths, k):
    seqs, guess, parameters, log_likelihoods = reference_run(n * 1000 + m, n, m, lengths, k)
    ref = hmmlearn_fit(guess, seqs, k)
    np.testing.assert_allclose(parameters[-1][0], ref.startprob_, atol=1e-9)
    np.testing.assert_allclose(parameters[-1][1], ref.transmat_, atol=1e-9)
    np.testing.assert_allclose(parameters[-1][2], ref.emissionprob_, atol=1e-9)
    # hmmlearn's monitor keeps the log-likelihood of the last iterations' E steps
    np.testing.assert_allclose(list(ref.monitor_.history), log_likelihoods[-len(ref.monitor_.history):],
                               rtol=1e-10)
    assert ref.monitor_.iter == k


def test_one_step_on_the_umbrella_by_hand():
    # Two days, umbrella both times: gamma and xi by enumeration of the four paths.
    start, A, B = np.array([0.5, 0.5]), np.array([[0.7, 0.3], [0.3, 0.7]]), np.array([[0.1, 0.9], [0.8, 0.2]])
    joint = np.array([[start[i] * B[i, 1] * A[i, j] * B[j, 1] for j in range(2)] for i in range(2)])
    xi = joint / joint.sum()
    new_start, new_A, new_B, ll = baum_welch_step(start, A, B, [[1, 1]])
    assert np.isclose(ll, np.log(joint.sum()))
    np.testing.assert_allclose(new_start, xi.sum(axis=1))
    np.testing.assert_allclose(new_A, xi / xi.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(new_B[:, 1], 1.0)     # only umbrellas seen: emission of 1 -> 1


@pytest.mark.parametrize("seed", range(6))
def test_log_likelihood_never_decreases(seed):
    rng = np.random.default_rng(seed)
    n, m = rng.integers(2, 5), rng.integers(2, 7)
    seqs = sample(rng, n, m, rng.integers(1, 200, size=3))
    parameters, lls = baum_welch(*random_parameters(rng, n, m), seqs, n_iter=25, tol=-np.inf)
    assert np.all(np.diff(lls) >= -1e-9 * np.abs(lls[1:]))
    assert lls[-1] > lls[0]
    for start, transition, emission in parameters:   # every iterate is a valid model
        HMM(start, transition, emission)


def test_tolerance_stops_early_and_state_without_visits_keeps_its_row():
    rng = np.random.default_rng(3)
    seqs = sample(rng, 2, 3, [400])
    params, lls = baum_welch(*random_parameters(rng, 2, 3), seqs, n_iter=500, tol=1e-3)
    assert len(lls) < 500 and lls[-1] - lls[-2] < 1e-3 and len(params) == len(lls) + 1
    # state 2 can never be reached nor start: its rows have no expected counts and stay
    start, A = [0.5, 0.5, 0.0], [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.2, 0.2, 0.6]]
    B = [[0.5, 0.5], [0.9, 0.1], [0.3, 0.7]]
    new = baum_welch_step(start, A, B, [[0, 1, 1, 0]])
    np.testing.assert_allclose(new[1][2], A[2])
    np.testing.assert_allclose(new[2][2], B[2])
    assert new[0][2] == 0.0


def test_match_states_undoes_a_permutation():
    rng = np.random.default_rng(7)
    _, _, emission = random_parameters(rng, 5, 8, concentration=0.3)
    order = rng.permutation(5)
    shuffled = emission[np.argsort(order)]            # true state i sits at row argsort(order)[i]
    found = match_states(shuffled, emission)
    np.testing.assert_array_equal(shuffled[found], emission)
    np.testing.assert_array_equal(match_states(emission, emission), np.arange(5))


@pytest.mark.parametrize("args, error, message", [
    (dict(start=[0.6, 0.6]), ValueError, "start"),
    (dict(transition=[[0.9, 0.2], [0.5, 0.5]]), ValueError, "transition"),
    (dict(transition=[[1.0]]), ValueError, "transition"),
    (dict(emission=[[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]), ValueError, "emission"),
    (dict(emission=[[0.5, np.nan], [0.5, 0.5]]), ValueError, "emission"),
    (dict(sequences=[[0, 1, 2]]), ValueError, "sequences[0]"),
    (dict(sequences=[[0, 1], [0, -1]]), ValueError, "sequences[1]"),
    (dict(sequences=[[0, 0.5]]), ValueError, "sequences[0]"),
    (dict(sequences=[[]]), ValueError, "sequences[0]"),
    (dict(sequences=[]), ValueError, "sequences"),
    (dict(sequences=np.array([0, 1, 1])), TypeError, "list of observation sequences"),
    (dict(sequences=5), TypeError, "sequences"),
    (dict(sequences=[[True, False]]), TypeError, "sequences[0]"),
    (dict(n_iter=0), ValueError, "n_iter"),
    (dict(n_iter=2.5), TypeError, "n_iter"),
    (dict(tol=np.nan), ValueError, "tol"),
    (dict(emission=[[1.0, 0.0], [1.0, 0.0]]), ValueError, "probability zero"),
])
def test_bad_input(args, error, message):
    kwargs = dict(start=[0.5, 0.5], transition=[[0.9, 0.1], [0.2, 0.8]],
                  emission=[[0.6, 0.4], [0.3, 0.7]], sequences=[[0, 1, 1]], n_iter=3, tol=0.0)
    kwargs.update(args)
    with pytest.raises(error, match=message.replace("[", r"\[").replace("]", r"\]")):
        baum_welch(**kwargs)


def test_match_states_bad_input():
    with pytest.raises(ValueError, match="emission"):
        match_states([[0.5, 0.5]], [[0.5, 0.5], [0.1, 0.9]])
    with pytest.raises(ValueError, match="true_emission"):
        match_states([[0.5, 0.5]], [[0.5, 0.6]])


# ------------------------------------------------------------------ the figure
@pytest.fixture(scope="module")
def casino_run():
    casino = casino_model()
    rolls = casino.sample(3000, np.random.default_rng(5))[1]
    rng = np.random.default_rng(0)
    guess = HMM([0.5, 0.5], rng.dirichlet([5, 5], 2), rng.dirichlet(np.full(6, 20.0), 2))
    return casino, rolls, guess, record_baum_welch(guess, rolls, casino, n_iter=60, tol=0)


def test_recorded_run_is_the_reference_run_in_the_true_order(casino_run):
    casino, rolls, guess, run = casino_run
    params, lls = baum_welch(guess.start, guess.transition, guess.emission, [rolls], n_iter=4, tol=-np.inf)
    o = run.order
    assert sorted(o.tolist()) == [0, 1] and len(run.log_likelihoods) == 61
    for k in range(5):
        np.testing.assert_allclose(run.transitions[k], params[k][1][np.ix_(o, o)], atol=1e-10)
        np.testing.assert_allclose(run.emissions[k], params[k][2][o], atol=1e-10)
    np.testing.assert_allclose(run.log_likelihoods[:4], lls, rtol=1e-10)
    assert np.isclose(run.log_likelihoods[-1], HMM(params[0][0], run.transitions[0], run.emissions[0],
                                                   n_iter=60, tol=0).fit(rolls).log_likelihood(rolls))
    assert np.all(np.diff(run.log_likelihoods) >= -1e-6)
    assert np.isclose(run.true_log_likelihood, casino.log_likelihood(rolls))
    # aligned: the learned "loaded" row is the one with the big six
    assert run.emissions[-1][1, 5] > 0.35 > run.emissions[-1][0, 5]


def test_plot_baum_welch_draws_every_iteration_and_refuses_others(casino_run):
    run = casino_run[3]
    for k in (0, 1, 60):
        fig = plot_baum_welch(k, run, ["fair", "loaded"], "123456")
        texts = [t.get_text() for ax in fig.axes for t in ax.texts]
        assert f"{run.emissions[k][1, 5]:.2f}" in texts and f"{run.true_emission[1, 5]:.2f}" in texts
        marker = fig.axes[-1].lines[1]
        assert marker.get_xdata()[0] == k and np.isclose(marker.get_ydata()[0], run.log_likelihoods[k])
    with pytest.raises(ValueError, match="iteration"):
        plot_baum_welch(61, run)
    with pytest.raises(TypeError, match="iteration"):
        plot_baum_welch(1.5, run)


def test_chapter_shows_the_bodies_of_the_plain_baum_welch():
    """The chapter includes ``def`` plus the body (``:lines: 1,N-``): line N must be the
    first line after the docstring, or the chapter would show half a docstring."""
    import inspect
    import re
    from pathlib import Path

    from lib.hmm import reference
    chapter = (Path(__file__).resolve().parents[2] / "chapters" / "08_hmm.md").read_text()
    found = re.findall(r":pyobject: (baum_welch\w*)\n:lines: 1,(\d+)-", chapter)
    assert sorted(name for name, _ in found) == ["baum_welch", "baum_welch_step"]
    for name, first in found:
        lines = inspect.getsource(getattr(reference, name)).splitlines()
        assert lines[int(first) - 2].strip() == '"""' and not lines[int(first) - 1].strip().startswith('"')


def test_plot_baum_welch_redraw_into_the_same_figure_equals_a_fresh_one(casino_run):
    from lib.plots.export import figure_png
    from lib.plots.live import LiveFigure
    run = casino_run[3]
    labels = dict(state_labels=["fair", "loaded"], symbol_labels="123456")
    live = LiveFigure()
    fig = plot_baum_welch(0, run, **labels, live=live)
    again = plot_baum_welch(37, run, live=live, **labels)
    assert again is fig                                  # updated in place
    fresh = plot_baum_welch(37, run, **labels)
    assert fresh is not fig
    size = tuple(fresh.get_size_inches())
    assert figure_png(again, fit=False, size=size) == figure_png(fresh, fit=False, size=size)
    # another run or other labels: a new figure
    other = plot_baum_welch(3, run, live=live)
    assert other is not fig and live.fig is other
    assert plot_baum_welch(3, run._replace(order=run.order[::-1]), live=live, **labels) is not other
