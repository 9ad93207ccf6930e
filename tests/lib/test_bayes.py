"""Tests of lib/bayes.py (Chapter 1, "Bayesian learning").

The textbook's candy-bag numbers (Russell and Norvig, section 20.1; seed 004), exact
posteriors from Bayes' theorem, properties of Bayesian updating, bad input, the Gibbs
versus Bayes optimal comparison and the chapter's plotting functions.
"""
import re
from fractions import Fraction

import numpy as np
import pytest
from matplotlib.figure import Figure

from lib.bayes import (
    CANDY_LIME,
    CANDY_PRIOR,
    CANDY_PRIORS,
    DiscreteBayesLearner,
    bayes_optimal_classify,
    bayes_table,
    brute_force_map,
    candy_learner,
    gibbs_classify,
    interval_concepts,
    posterior,
    simulate_gibbs_vs_bayes,
    version_space,
)
from lib.plots.bayes import (
    candy_bayes_table,
    candy_posterior_table,
    plot_base_rate,
    plot_candy_experiment,
    plot_candy_posteriors,
    plot_gibbs_vs_bayes,
    plot_version_space,
    version_space_data,
)

LIMES = ["lime"] * 10


def exact_posterior(n_limes, prior=(Fraction(1, 10), Fraction(2, 10), Fraction(4, 10),
                                    Fraction(2, 10), Fraction(1, 10))):
    """Posterior after n limes with exact rational arithmetic (the oracle)."""
    lime = [Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1)]
    joint = [p * q ** n_limes for p, q in zip(prior, lime)]
    total = sum(joint)
    return [j / total for j in joint], sum(j * q for j, q in zip(joint, lime)) / total


# ------------------------------------------------------------ textbook's numbers
def test_candy_constants():
    np.testing.assert_array_equal(CANDY_LIME, [0.0, 0.25, 0.5, 0.75, 1.0])
    np.testing.assert_array_equal(CANDY_PRIOR, [0.1, 0.2, 0.4, 0.2, 0.1])


def test_posterior_path_matches_exact_fractions():
    path = candy_learner().posterior_path(LIMES)
    assert path.shape == (11, 5)
    for n in range(11):
        post, _ = exact_posterior(n)
        np.testing.assert_allclose(path[n], [float(p) for p in post], rtol=1e-12, atol=1e-15)


def test_posterior_printed_values():
    path = candy_learner().posterior_path(LIMES)
    np.testing.assert_allclose(path[0], CANDY_PRIOR, rtol=1e-14)
    assert path[3, 4] == pytest.approx(8 / 19, abs=1e-14)          # P(h5 | 3 limes)
    assert path[3, 3] == pytest.approx(27 / 76, abs=1e-14)         # P(h4 | 3 limes)
    assert path[1].round(4).tolist() == [0.0, 0.1, 0.4, 0.3, 0.2]
    assert path[2].round(4).tolist() == [0.0, 0.0385, 0.3077, 0.3462, 0.3077]
    assert path[10].round(4).tolist() == [0.0, 0.0, 0.0035, 0.1009, 0.8956]


def test_likelihood_of_h3_after_ten_limes_is_half_to_the_tenth():
    assert np.exp(candy_learner().log_likelihood(LIMES)[2]) == pytest.approx(0.5 ** 10)


def test_bayesian_prediction_after_limes():
    learner = candy_learner()
    pred = learner.predictive_path(LIMES)[:, learner.outcomes.index("lime")]
    exact = [float(exact_posterior(n)[1]) for n in range(11)]
    np.testing.assert_allclose(pred, exact, rtol=1e-12)
    assert pred.round(4).tolist()[:4] == [0.5, 0.65, 0.7308, 0.7961]
    assert round(pred[3], 1) == 0.8
    assert np.all(np.diff(pred) > 0)
    assert learner.predictive(LIMES[:3]) == pytest.approx({"cherry": 1 - 0.7960526315789,
                                                           "lime": 0.7960526315789})


def test_map_bag_after_n_limes():
    learner = candy_learner()
    assert [learner.map_index(LIMES[:n]) + 1 for n in range(11)] == [3, 3, 4] + [5] * 8


def test_map_prediction_after_three_limes_is_one():
    learner = candy_learner()
    assert learner.map_predictive(LIMES[:3]) == {"cherry": 0.0, "lime": 1.0}
    assert learner.predictive(LIMES[:3])["lime"] < 0.8


def test_posterior_function_on_candy():
    np.testing.assert_allclose(posterior(CANDY_PRIOR, CANDY_LIME ** 3),
                               candy_learner().posterior(LIMES[:3]), rtol=1e-12)
    # a 2-D likelihood is a product over rows
    np.testing.assert_allclose(posterior(CANDY_PRIOR, np.tile(CANDY_LIME, (3, 1))),
                               posterior(CANDY_PRIOR, CANDY_LIME ** 3), rtol=1e-12)


def test_table_has_the_numbers():
    table = candy_posterior_table(n_limes=3)
    lines = table.splitlines()
    assert len(lines) == 2 + 4
    assert lines[-1] == "| 3 | 0.0000 | 0.0132 | 0.2105 | 0.3553 | 0.4211 | 0.7961 |"


# -------------------------------------------------------------------- properties
@pytest.mark.parametrize("seed", range(5))
def test_posterior_sums_to_one(seed):
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.ones(7))
    lik = rng.random(7)
    assert posterior(prior, lik).sum() == pytest.approx(1.0, abs=1e-12)
    learner = candy_learner(rng.dirichlet(np.ones(5)))
    data = learner.sample(2, 30, rng)
    np.testing.assert_allclose(learner.posterior_path(data).sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_order_of_observations_does_not_matter(seed):
    rng = np.random.default_rng(seed)
    learner = candy_learner()
    data = learner.sample(2, 25, rng)
    shuffled = list(rng.permutation(data))
    np.testing.assert_allclose(learner.posterior(data), learner.posterior(shuffled), atol=1e-12)


def test_sequential_equals_batch_update():
    rng = np.random.default_rng(3)
    learner = candy_learner()
    data = learner.sample(3, 12, rng)
    prior = CANDY_PRIOR
    for d in data:  # posterior after each candy becomes the prior for the next
        prior = candy_learner(prior).posterior([d])
        prior = prior / prior.sum()
    np.testing.assert_allclose(prior, learner.posterior(data), atol=1e-12)
    lik = np.prod([CANDY_LIME if d == "lime" else 1 - CANDY_LIME for d in data], axis=0)
    np.testing.assert_allclose(posterior(CANDY_PRIOR, lik), learner.posterior(data), atol=1e-12)


def test_zero_prior_stays_zero():
    learner = candy_learner(CANDY_PRIORS["no all-lime bags"])
    path = learner.posterior_path(["lime"] * 50)
    assert np.all(path[:, 4] == 0.0)
    assert learner.map_index(["lime"] * 50) == 3


def test_long_data_do_not_underflow():
    learner = candy_learner()
    data = ["lime", "cherry"] * 50_000                 # likelihood 0.25**100000 underflows
    post = learner.posterior(data)
    assert np.all(np.isfinite(post))
    assert post[2] == pytest.approx(1.0)               # the 50/50 bag


@pytest.mark.parametrize("seed", range(5))
def test_ml_equals_map_under_uniform_prior(seed):
    rng = np.random.default_rng(seed)
    uniform = candy_learner(np.full(5, 0.2))
    textbook = candy_learner()
    for n in range(20):
        data = uniform.sample(int(rng.integers(1, 4)), n, rng)
        assert uniform.map_index(data) == uniform.ml_index(data) == textbook.ml_index(data)


def test_ml_differs_from_map_with_textbook_prior():
    learner = candy_learner()
    assert learner.ml_index(["lime"]) == 4
    assert learner.map_index(["lime"]) == 2


def test_general_learner_three_outcomes():
    learner = DiscreteBayesLearner([0.5, 0.5], {"a": [0.2, 0.6], "b": [0.3, 0.3],
                                                "c": [0.5, 0.1]})
    post = learner.posterior(["a", "b"])
    np.testing.assert_allclose(post, [0.06 / 0.24, 0.18 / 0.24])
    pred = learner.predictive(["a", "b"])
    assert pred["a"] == pytest.approx(0.25 * 0.2 + 0.75 * 0.6)
    assert sum(pred.values()) == pytest.approx(1.0)


# --------------------------------------------------------------------- bad input
@pytest.mark.parametrize("prior, match", [
    ([0.5, -0.1, 0.6], "negative"),
    ([0.5, np.nan, 0.5], "NaN"),
    ([0.5, 0.3, 0.1], "sum to 1"),
    ([np.inf, 0.0, 0.0], "infinite"),
    ([], "non-empty"),
])
def test_bad_prior(prior, match):
    with pytest.raises(ValueError, match=match):
        posterior(prior, [0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match=match):
        DiscreteBayesLearner(prior, {"x": [1.0, 1.0, 1.0]})


@pytest.mark.parametrize("lik, match", [
    ([0.5, -0.5, 0.5], "negative"),
    ([0.5, np.nan, 0.5], "NaN"),
    ([0.5, 0.5], "shape"),
    ([[0.5, 0.5, 0.5, 0.5]], "shape"),
])
def test_bad_likelihood_for_posterior(lik, match):
    with pytest.raises(ValueError, match=match):
        posterior([0.2, 0.3, 0.5], lik)


def test_learner_likelihood_of_wrong_length():
    with pytest.raises(ValueError, match="shape"):
        DiscreteBayesLearner(CANDY_PRIOR, {"cherry": [1, 0.75, 0.5, 0.25], "lime": [0, 0.25, 0.5, 0.75]})


def test_learner_bad_likelihood_values():
    with pytest.raises(ValueError, match="negative"):
        DiscreteBayesLearner([0.5, 0.5], {"a": [-0.1, 0.5], "b": [1.1, 0.5]})
    with pytest.raises(ValueError, match="NaN"):
        DiscreteBayesLearner([0.5, 0.5], {"a": [np.nan, 0.5], "b": [0.5, 0.5]})
    with pytest.raises(ValueError, match="sum to 1 over outcomes"):
        DiscreteBayesLearner([0.5, 0.5], {"a": [0.5, 0.5], "b": [0.6, 0.5]})
    with pytest.raises(TypeError, match="dict"):
        DiscreteBayesLearner([0.5, 0.5], [[0.5, 0.5], [0.5, 0.5]])


def test_outcome_not_in_likelihood():
    learner = candy_learner()
    for method in (learner.posterior_path, learner.predictive, learner.map_index,
                   learner.ml_index):
        with pytest.raises(ValueError, match="'strawberry' is not in the likelihood"):
            method(["lime", "strawberry"])


def test_data_impossible_under_every_hypothesis():
    with pytest.raises(ValueError, match="impossible"):
        posterior([0.5, 0.5, 0.0], [0.0, 0.0, 1.0])
    learner = candy_learner([0.5, 0.0, 0.0, 0.0, 0.5])       # only h1 and h5 allowed
    with pytest.raises(ValueError, match="impossible.*row 2"):
        learner.posterior_path(["lime", "cherry"])
    for method in (learner.predictive, learner.map_index):
        with pytest.raises(ValueError, match="impossible"):
            method(["lime", "cherry"])
    with pytest.raises(ValueError, match="impossible"):
        DiscreteBayesLearner([0.5, 0.5], {"a": [1.0, 1.0], "b": [0.0, 0.0]}).ml_index(["b"])


def test_classify_bad_shapes_and_rng():
    with pytest.raises(ValueError, match="class_probs must have shape"):
        bayes_optimal_classify([0.5, 0.5], [[1, 0], [0, 1], [1, 0]])
    with pytest.raises(ValueError, match="sum to 1"):
        bayes_optimal_classify([0.5, 0.6], [[1, 0], [0, 1]])
    with pytest.raises(TypeError, match="Generator"):
        gibbs_classify([0.5, 0.5], [[1, 0], [0, 1]], rng=0)


# ------------------------------------------------------- Bayes optimal and Gibbs
def test_bayes_optimal_vote_beats_map():
    post = [0.4, 0.3, 0.3]
    says = [[1, 0], [0, 1], [0, 1]]
    assert bayes_optimal_classify(post, says) == 1
    batch = bayes_optimal_classify(np.tile(post, (4, 1)), np.tile(says, (4, 1, 1)))
    np.testing.assert_array_equal(batch, [1, 1, 1, 1])


def test_bayes_optimal_matches_predictive_of_learner():
    learner = candy_learner()
    for n in range(6):
        post = learner.posterior(LIMES[:n])
        probs = learner.table.T                                  # (H, C): P(c | h)
        expected = int(np.argmax(list(learner.predictive(LIMES[:n]).values())))
        assert bayes_optimal_classify(post, probs) == expected


def test_gibbs_samples_hypotheses_with_posterior_frequencies():
    rng = np.random.default_rng(0)
    post = np.array([0.2, 0.5, 0.3])
    says = np.eye(3)                                             # hypothesis h says class h
    labels = gibbs_classify(np.tile(post, (100_000, 1)), says, rng)
    freq = np.bincount(labels, minlength=3) / labels.size
    np.testing.assert_allclose(freq, post, atol=0.005)
    assert gibbs_classify(post, says, np.random.default_rng(1)) in (0, 1, 2)
    # zero-posterior hypotheses are never drawn
    never = gibbs_classify(np.tile([0.0, 1.0, 0.0], (1000, 1)), says, rng)
    assert np.all(never == 1)


def test_gibbs_sample_label_draws_from_predictive():
    rng = np.random.default_rng(5)
    post = np.tile([0.1, 0.9], (200_000, 1))
    probs = np.array([[0.4, 0.6], [1.0, 0.0]])
    labels = gibbs_classify(post, probs, rng, sample_label=True)
    assert labels.mean() == pytest.approx(0.06, abs=0.003)
    # without sample_label the drawn hypothesis answers its most probable class:
    # class 1 exactly when h_a (posterior 0.1) is drawn
    assert gibbs_classify(post, probs, rng).mean() == pytest.approx(0.1, abs=0.003)


def test_interval_concepts():
    c = interval_concepts(10)
    assert c.shape == (56, 10)
    assert len({tuple(row) for row in c}) == 56                 # all distinct
    assert c.sum(axis=1).max() == 10 and c.sum(axis=1).min() == 0
    with pytest.raises(ValueError):
        interval_concepts(0)


def test_gibbs_error_within_twice_bayes_optimal():
    concepts = interval_concepts(10)
    prior = 0.7 ** concepts.sum(axis=1)
    prior /= prior.sum()
    bayes, gibbs = simulate_gibbs_vs_bayes(prior, concepts, range(0, 12), 20_000,
                                           np.random.default_rng(2026))
    assert np.all(gibbs <= 2 * bayes)
    assert np.all(gibbs >= bayes)
    assert np.all(bayes > 0) and bayes[0] > bayes[-1]           # learning happens
    # with m = 0 the Bayes optimal error is exactly computable: compare
    p_pos = prior @ concepts                                    # P(label 1 | x), per x
    assert bayes[0] == pytest.approx(np.mean(np.minimum(p_pos, 1 - p_pos)), abs=0.01)
    assert gibbs[0] == pytest.approx(np.mean(2 * p_pos * (1 - p_pos)), abs=0.01)


def test_simulation_bad_input():
    with pytest.raises(ValueError, match="0/1"):
        simulate_gibbs_vs_bayes([0.5, 0.5], [[0, 2], [1, 1]], [1], 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="shape"):
        simulate_gibbs_vs_bayes([0.5, 0.5], [[0, 1]], [1], 10, np.random.default_rng(0))


# ------------------------------------------------- version space, brute-force MAP
def _direct_version_space(concepts, x, y):
    """The oracle: loop over hypotheses and examples, no numpy broadcasting."""
    return [all(int(row[xi]) == int(yi) for xi, yi in zip(x, y)) for row in concepts]


@pytest.mark.parametrize("seed", range(20))
def test_version_space_matches_direct_enumeration(seed):
    rng = np.random.default_rng(seed)
    n_points = int(rng.integers(1, 12))
    # intervals, and also arbitrary random concept spaces (duplicates allowed)
    for concepts in (interval_concepts(n_points),
                     rng.integers(0, 2, size=(int(rng.integers(1, 40)), n_points))):
        m = int(rng.integers(0, 15))
        target = concepts[rng.integers(len(concepts))]
        x = rng.integers(n_points, size=m)
        y = target[x]
        vs = version_space(concepts, x, y)
        assert vs.dtype == bool and vs.tolist() == _direct_version_space(concepts, x, y)
        assert vs.any()                                          # noise-free: the target stays


@pytest.mark.parametrize("seed", range(20))
def test_brute_force_map_posterior_is_one_over_vs_size(seed):
    rng = np.random.default_rng(seed)
    concepts = interval_concepts(int(rng.integers(2, 12)))
    H, X = concepts.shape
    target = concepts[rng.integers(H)]
    x = rng.integers(X, size=int(rng.integers(0, 12)))
    y = target[x]
    h_map, post = brute_force_map(np.full(H, 1 / H), concepts, x, y)
    direct = np.array(_direct_version_space(concepts, x, y))
    np.testing.assert_allclose(post[direct], 1 / direct.sum(), rtol=1e-12)
    assert np.all(post[~direct] == 0.0)
    assert direct[h_map] and h_map == int(np.flatnonzero(direct)[0])   # lowest index on ties
    # every consistent hypothesis is a MAP hypothesis under the uniform prior
    assert np.allclose(post[direct], post.max())
    # a non-uniform prior: P(h | D) = P(h) / P(VS) on the version space (exact fractions)
    weights = [Fraction(int(w)) for w in rng.integers(1, 10, size=H)]
    total = sum(weights)
    prior = np.array([float(w / total) for w in weights])
    h_map, post = brute_force_map(prior / prior.sum(), concepts, x, y)
    p_vs = sum(w for w, d in zip(weights, direct) if d)
    expected = [float(w / p_vs) if d else 0.0 for w, d in zip(weights, direct)]
    np.testing.assert_allclose(post, expected, rtol=1e-12, atol=0)
    assert h_map == int(np.argmax(expected))


def test_version_space_chapter_numbers():
    concepts = interval_concepts(10)
    assert concepts.shape == (56, 10) and int((concepts.sum(axis=1) > 0).sum()) == 55
    x, y = version_space_data(40)
    sizes = [int(version_space(concepts, x[:m], y[:m]).sum()) for m in range(21)]
    assert sizes[:6] == [56, 38, 14, 12, 6, 2] and sizes[15] == 2 and sizes[16:] == [1] * 5
    h, post = brute_force_map(np.full(56, 1 / 56), concepts, x[:16], y[:16])
    assert concepts[h].tolist() == [0, 0, 0, 1, 1, 1, 1, 0, 0, 0] and post[h] == pytest.approx(1)


def test_brute_force_map_with_impossible_data():
    # noisy labels (the same instance labelled both ways): no concept fits
    with pytest.raises(ValueError, match="impossible under every hypothesis"):
        brute_force_map(np.full(7, 1 / 7), interval_concepts(3), [1, 1], [0, 1])
    # the only consistent concept has prior zero
    prior = np.full(7, 1 / 6)
    prior[0] = 0.0
    with pytest.raises(ValueError, match="impossible"):
        brute_force_map(prior, interval_concepts(3), [0, 1, 2], [0, 0, 0])


# ------------------------------------------------------------------- Bayes tables
def test_bayes_table_columns():
    table = bayes_table(CANDY_PRIOR, CANDY_LIME)
    np.testing.assert_allclose(table[:, 0], CANDY_PRIOR)
    np.testing.assert_allclose(table[:, 1], CANDY_LIME)
    np.testing.assert_allclose(table[:, 2], [0.0, 0.05, 0.2, 0.15, 0.1], atol=1e-15)
    np.testing.assert_allclose(table[:, 3], [0.0, 0.1, 0.4, 0.3, 0.2], atol=1e-15)
    assert table[:, 2].sum() == pytest.approx(0.5) and table[:, 3].sum() == pytest.approx(1)


def test_bayes_tables_in_sequence_equal_batch_posterior():
    rng = np.random.default_rng(3)
    data = candy_learner().sample(2, 8, rng)
    prior = CANDY_PRIOR
    for d in data:
        lik = CANDY_LIME if d == "lime" else 1 - CANDY_LIME
        table = bayes_table(prior, lik)
        assert table[:, 2].sum() == pytest.approx(candy_learner(prior).predictive([])[d])
        prior = table[:, 3]
    np.testing.assert_allclose(prior, candy_learner().posterior(data), rtol=1e-12, atol=1e-15)


def test_candy_bayes_table_markdown():
    text = candy_bayes_table(["lime", "lime", "cherry"])
    lines = text.splitlines()
    assert len(lines) == 2 + 3 * 6
    assert "| 1: lime | $h_1$ | 0.1000 | 0.0000 | 0.0000 | 0.0000 |" in lines
    sums = [line for line in lines if "**sum**" in line]
    assert [s.split("|")[5].strip() for s in sums] == ["**0.5000**", "**0.6500**", "**0.2692**"]
    assert "| 3: cherry | $h_1$ | 0.0000 |" in text
    assert candy_bayes_table("lime") == candy_bayes_table(["lime"])


# ----------------------------------------------------------------------- figures
def test_plot_base_rate_numbers():
    fig = plot_base_rate(0.01, 0.95, 0.90)
    ax_bar, ax_curve = fig.axes
    assert [round(p.get_height(), 6) for p in ax_bar.patches] == [95.0, 990.0]
    assert "0.088" in ax_bar.get_title()
    assert ax_curve.lines[1].get_ydata()[0] == pytest.approx(95 / 1085)


@pytest.mark.parametrize("prior", ["uniform", "short intervals"])
def test_plot_version_space(prior):
    fig = plot_version_space(m=5, prior=prior)
    assert isinstance(fig, Figure)
    title = fig.get_suptitle()
    assert "|VS| = 2" in title and (("each 0.5" in title) == (prior == "uniform"))
    image = fig.axes[1].images[0].get_array()
    assert np.nansum(image) == pytest.approx(1.0)              # the empty concept has 0 here
def test_plot_candy_posteriors_returns_figure():
    fig = plot_candy_posteriors(n_limes=10)
    assert isinstance(fig, Figure)
    ax_post, ax_pred = fig.axes
    assert len(ax_post.lines) == 5
    np.testing.assert_allclose(ax_post.lines[4].get_ydata(),
                               candy_learner().posterior_path(LIMES)[:, 4])


@pytest.mark.parametrize("prior", list(CANDY_PRIORS))
def test_plot_candy_experiment_returns_figure(prior):
    fig = plot_candy_experiment(prior=prior, true_bag=2, n_candies=15, seed=3)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    lime, cherry = map(int, re.search(r"(\d+) lime, (\d+) cherry", fig.get_suptitle()).groups())
    assert lime + cherry == 15


def test_plot_candy_experiment_impossible_data_and_bad_input():
    # an all-lime-only prior meets a cherry: the figure says so instead of failing
    fig = plot_candy_experiment(prior=[0.0, 0.0, 0.0, 0.0, 1.0], true_bag=1, n_candies=3)
    assert isinstance(fig, Figure)
    assert any("impossible" in t.get_text() for t in fig.axes[0].texts)
    with pytest.raises(ValueError, match="unknown prior"):
        plot_candy_experiment(prior="optimistic")
    with pytest.raises(ValueError, match="true_bag"):
        plot_candy_experiment(true_bag=6)


def test_plot_gibbs_vs_bayes_returns_figure():
    fig = plot_gibbs_vs_bayes([0, 1, 2], [0.3, 0.2, 0.1], [0.4, 0.3, 0.15])
    assert isinstance(fig, Figure)
    assert len(fig.axes[0].lines) == 3


def test_figures_render_to_png():
    from lib.plots.export import figure_png
    png = figure_png(plot_candy_posteriors(n_limes=3))
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


# ------------------------------------------------------------- bad input, every kind
@pytest.mark.parametrize("call, error, match", [
    (lambda: posterior(["a", "b"], [1, 1]), TypeError, "prior must hold real numbers"),
    (lambda: posterior([0.5, 0.5], [np.nan, 1]), ValueError, "likelihood must not contain NaN"),
    (lambda: posterior([0.5, 0.5], [np.inf, 1]), ValueError, "likelihood must be finite"),
    (lambda: posterior([0.5, 0.7], [1, 1]), ValueError, r"prior \(over the last axis\) must sum to 1"),
    (lambda: posterior(0.5, [1]), ValueError, "prior must be a non-empty array"),
    (lambda: candy_learner().sample(0, "3", np.random.default_rng(0)), TypeError, "n must be an integer >= 0"),
    (lambda: candy_learner().sample(7, 3, np.random.default_rng(0)), ValueError, r"hypothesis must be an integer in \[0, 4\]"),
    (lambda: candy_learner().sample(0, 3, 0), TypeError, "rng must be a numpy.random.Generator"),
    (lambda: interval_concepts("3"), TypeError, "n_points must be an integer >= 1"),
    (lambda: interval_concepts(0), ValueError, "n_points must be an integer >= 1, got 0"),
    (lambda: simulate_gibbs_vs_bayes([1.0], [[0, 1]], [1], "10", np.random.default_rng(0)), TypeError,
     "n_trials must be an integer"),
    (lambda: candy_posterior_table(n_limes=-1), ValueError, "n_limes must be an integer >= 0"),
    (lambda: bayes_optimal_classify([0.5, 0.5], [[np.nan, 1], [0, 1]]), ValueError, "class_probs must not contain NaN"),
    (lambda: version_space([[0, 2]], [0], [1]), ValueError, "concepts must hold 0/1 labels"),
    (lambda: version_space([0, 1], [0], [1]), ValueError, "concepts must be"),
    (lambda: version_space(interval_concepts(3), [0, 3], [1, 1]), ValueError, r"x must hold instance indices 0\.\.2"),
    (lambda: version_space(interval_concepts(3), [0.5], [1]), ValueError, "x must hold instance indices"),
    (lambda: version_space(interval_concepts(3), [-1], [1]), ValueError, "x must hold instance indices"),
    (lambda: version_space(interval_concepts(3), [0, 1], [1]), ValueError, "x and y must have the same length"),
    (lambda: version_space(interval_concepts(3), [0], [2]), ValueError, "y must hold 0/1 labels"),
    (lambda: version_space(interval_concepts(3), ["a"], [1]), TypeError, "x must hold real numbers"),
    (lambda: brute_force_map([0.5, 0.5], interval_concepts(3), [0], [1]), ValueError, "likelihood must have shape"),
    (lambda: brute_force_map(np.full(7, 0.2), interval_concepts(3), [0], [1]), ValueError, "prior"),
    (lambda: bayes_table([0.5, 0.5], [[0.1, 0.2], [0.3, 0.4]]), ValueError, "likelihood must be 1-D"),
    (lambda: bayes_table([0.5, 0.5], [0.1, -0.2]), ValueError, "negative probability"),
    (lambda: candy_bayes_table(["lime", "mint"]), ValueError, "outcome 'mint' is not in the likelihood"),
    (lambda: plot_version_space(m=3, prior="flat"), ValueError, "prior must be 'uniform' or 'short intervals'"),
    (lambda: plot_version_space(m=-1), ValueError, "m must be an integer"),
    (lambda: plot_base_rate(prevalence=1.5), ValueError, "prevalence must be"),
])
def test_bad_input_kinds(call, error, match):
    with pytest.raises(error, match=match):
        call()
