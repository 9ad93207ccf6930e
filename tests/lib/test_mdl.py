"""Tests of lib/mdl.py (Chapter 3, "Minimum description length")."""
import warnings

import numpy as np
import pytest
from scipy import stats

from lib.mdl import (
    bic,
    bn_log_likelihood,
    bn_n_params,
    check_dag,
    code_length,
    count_bits,
    data_bits,
    gaussian_bin_log_likelihood,
    mdl_select,
    parameter_bits,
    polynomial_data,
    polynomial_scores,
    precision_bits,
    sample_binary_network,
    two_part_code,
)
from lib.plots.mdl import plot_polynomial_mdl

PRIOR = np.array([0.1, 0.2, 0.4, 0.2, 0.1])          # seed004 candy bags
P_LIME = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
TRUE_PARENTS = [(), (0,), (0, 1), (0,)]
TRUE_PROBS = [[0.5], [0.25, 0.75], [0.2, 0.5, 0.5, 0.8], [0.3, 0.7]]
STRUCTURES = [[(), (), (), ()], [(), (0,), (0,), (0,)], TRUE_PARENTS,
              [(), (0,), (0, 1), (0, 1, 2)]]


def candy_totals(limes, prior=PRIOR):
    data = count_bits(np.array([[limes, 0]] * 5), np.stack([P_LIME, 1 - P_LIME], axis=1))
    return code_length(prior) + data


# ------------------------------------------------------------- source numbers
def test_h5_codes_ten_limes_in_zero_bits_and_h3_in_ten():
    data = candy_totals(10) - code_length(PRIOR)
    assert data[4] == 0.0
    assert data[2] == pytest.approx(-np.log2(0.5 ** 10)) == 10
    assert np.isinf(data[0])


def test_shortest_description_is_the_map_bag_of_seed004():
    # h3 at first and after one lime, h4 after two, h5 after three or more
    assert [int(np.argmin(candy_totals(k))) + 1 for k in range(8)] == [3, 3, 4, 5, 5, 5, 5, 5]


def test_map_equals_mdl_for_random_priors():
    rng = np.random.default_rng(0)
    for _ in range(20):
        prior = rng.dirichlet(np.ones(5))
        k = int(rng.integers(0, 12))
        posterior = prior * P_LIME ** k
        assert np.argmin(candy_totals(k, prior)) == np.argmax(posterior)


def test_code_length_values():
    np.testing.assert_allclose(code_length([1, 0.5, 0.25, 0.125]), [0, 1, 2, 3])
    assert code_length(0.0) == np.inf


def test_parameter_and_precision_bits():
    assert parameter_bits(2, 1024) == pytest.approx(10.0)
    assert parameter_bits(0, 50) == 0
    assert precision_bits(3, 1 / 256) == pytest.approx(24.0)
    assert precision_bits(10, 0.01, scale=2.56) == pytest.approx(80.0)


def test_bic_is_two_part_code_times_two_ln_two():
    ll, d, n = np.array([-120.0, -95.5, -90.0]), np.array([2, 4, 9]), 300
    np.testing.assert_allclose(bic(ll, d, n) / (2 * np.log(2)), two_part_code(ll, d, n)[2])


# ---------------------------------------------------------------------- oracles
def test_bn_score_matches_pgmpy_bic():
    pd = pytest.importorskip("pandas")
    pgmpy_est = pytest.importorskip("pgmpy.estimators")
    from pgmpy.models import DiscreteBayesianNetwork
    data = sample_binary_network(TRUE_PARENTS, TRUE_PROBS, 300, np.random.default_rng(1))
    names = ["C", "X1", "X2", "X3"]
    df = pd.DataFrame(data, columns=names)
    for parents in STRUCTURES:
        edges = [(names[j], names[i]) for i, pa in enumerate(parents) for j in pa]
        model = DiscreteBayesianNetwork(edges)
        model.add_nodes_from(names)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = pgmpy_est.BIC(df).score(model)
        ll = bn_log_likelihood(data, parents, [2] * 4)
        d = bn_n_params(parents, [2] * 4)
        assert -bic(ll, d, 300) / 2 == pytest.approx(ref, rel=1e-10)


def test_bn_log_likelihood_equals_sum_of_log_frequencies():
    rng = np.random.default_rng(2)
    data = rng.integers(0, 3, size=(60, 2))
    ll = bn_log_likelihood(data, [(), (0,)], [3, 3])
    joint = np.zeros((3, 3))
    np.add.at(joint, (data[:, 0], data[:, 1]), 1)
    p_a = joint.sum(1) / 60
    p_b_given_a = joint / joint.sum(1, keepdims=True)
    assert ll == pytest.approx(np.sum(np.log(p_a[data[:, 0]] * p_b_given_a[data[:, 0], data[:, 1]])))


def test_gaussian_bin_probability_against_scipy():
    r = np.array([-0.5, 0.0, 0.2, 1.0])
    sigma, h = 0.4, 0.05
    ref = np.log(stats.norm.cdf(r + h, scale=sigma) - stats.norm.cdf(r - h, scale=sigma)).sum()
    assert gaussian_bin_log_likelihood(r, sigma, 2 * h) == pytest.approx(ref, rel=1e-10)


def test_gaussian_bin_probability_is_finite_far_in_the_tail():
    ll = gaussian_bin_log_likelihood([40.0], 1.0, 0.01)
    assert np.isfinite(ll) and ll < -700
    assert gaussian_bin_log_likelihood([0.0, 0.0], 0.0, 0.01) == 0.0   # perfect fit


def test_polynomial_scores_use_least_squares_fits():
    x, y = polynomial_data(40, 0.2, np.random.default_rng(3))
    s = polynomial_scores(x, y, [1, 3])
    for d, sigma in zip([1, 3], s["sigma"]):
        resid = y - np.polyval(np.polyfit(x, y, d), x)
        assert sigma == pytest.approx(np.sqrt(np.mean(resid ** 2)))
    ref = stats.norm(0, s["sigma"][1]).logpdf(y - np.polyval(np.polyfit(x, y, 3), x)).sum()
    assert s["loglik_density"][1] == pytest.approx(ref)
    np.testing.assert_allclose(s["d"], [3, 5])


def test_sampler_reproduces_its_probabilities():
    data = sample_binary_network(TRUE_PARENTS, TRUE_PROBS, 40_000, np.random.default_rng(4))
    c, x1, x2 = data[:, 0], data[:, 1], data[:, 2]
    assert c.mean() == pytest.approx(0.5, abs=0.01)
    assert x1[c == 1].mean() == pytest.approx(0.75, abs=0.01)
    assert x2[(c == 0) & (x1 == 1)].mean() == pytest.approx(0.5, abs=0.015)
    assert x2[(c == 1) & (x1 == 1)].mean() == pytest.approx(0.8, abs=0.015)


# ------------------------------------------------------------------- properties
@pytest.mark.parametrize("seed", range(5))
def test_description_lengths_are_never_negative(seed):
    rng = np.random.default_rng(seed)
    p = rng.random(20)
    assert (code_length(p) >= 0).all()
    assert count_bits(rng.integers(0, 5, size=(3, 4)), rng.dirichlet(np.ones(4), size=3)).min() >= 0
    x, y = polynomial_data(25, rng.uniform(0.01, 1), rng)
    s = polynomial_scores(x, y, range(10))
    data, model, total = two_part_code(s["loglik_bins"], s["d"], 25)
    assert (data >= 0).all() and (model >= 0).all() and (total >= data).all()


def test_likelihood_never_decreases_with_more_parents():
    data = sample_binary_network(TRUE_PARENTS, TRUE_PROBS, 100, np.random.default_rng(5))
    ll = [bn_log_likelihood(data, p, [2] * 4) for p in STRUCTURES[1:]]   # nested chain
    assert ll[0] <= ll[1] <= ll[2]


def test_selected_structure_changes_with_n():
    chosen = {}
    for n in (30, 3000):
        picks = []
        for seed in range(5):
            data = sample_binary_network(TRUE_PARENTS, TRUE_PROBS, n, np.random.default_rng(seed))
            ll = [bn_log_likelihood(data, p, [2] * 4) for p in STRUCTURES]
            picks.append(mdl_select(ll, [bn_n_params(p, [2] * 4) for p in STRUCTURES], n))
        chosen[n] = picks
    assert np.mean(chosen[30]) < 2 and chosen[3000] == [2] * 5


def test_polynomial_degree_grows_with_n_and_stops_at_the_truth():
    def pick(n, seed):
        x, y = polynomial_data(n, 0.3, np.random.default_rng(seed))
        s = polynomial_scores(x, y, range(8))
        return mdl_select(s["loglik_bins"], s["d"], n)
    assert [pick(2000, seed) for seed in range(5)] == [3] * 5
    assert np.mean([pick(20, seed) for seed in range(10)]) < 3


def test_mdl_select_prefers_the_simpler_model_on_ties():
    assert mdl_select([-10.0, -10.0], [2, 2], 50) == 0


# -------------------------------------------------------------------- bad input
@pytest.mark.parametrize("p", [-0.1, 1.5, np.nan])
def test_code_length_rejects_non_probabilities(p):
    with pytest.raises(ValueError):
        code_length(p)


def test_data_bits_rejects_positive_log_probability_and_nan():
    with pytest.raises(ValueError, match="positive"):
        data_bits(2.0)
    with pytest.raises(ValueError, match="NaN"):
        data_bits(np.nan)


@pytest.mark.parametrize("d,n", [(-1, 10), (2, 0), (np.nan, 10)])
def test_parameter_bits_bad_sizes(d, n):
    with pytest.raises(ValueError):
        parameter_bits(d, n)


def test_other_bad_input():
    with pytest.raises(ValueError):
        count_bits([1, -1], [0.5, 0.5])
    with pytest.raises(ValueError):
        precision_bits(2, 0)
    with pytest.raises(ValueError, match="at least one candidate"):
        mdl_select([], [], 10)
    with pytest.raises(ValueError, match="same length"):
        mdl_select([-1.0, -2.0], [1], 10)
    with pytest.raises(ValueError):
        polynomial_data(1, 0.3, np.random.default_rng(0))
    with pytest.raises(ValueError):
        polynomial_data(10, -0.3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="degrees"):
        polynomial_scores([0.1, 0.2, 0.3], [1, 2, 3], [3])
    with pytest.raises(ValueError, match="x must not contain NaN"):
        polynomial_scores([0.1, np.nan, 0.3], [1, 2, 3], [1])


def test_network_bad_input():
    with pytest.raises(ValueError, match="cycle"):
        check_dag([(1,), (0,)])
    with pytest.raises(ValueError, match="own parent"):
        check_dag([(0,)])
    with pytest.raises(ValueError, match="unknown parent"):
        check_dag([(), (5,)])
    data = np.array([[0, 1], [1, 1]])
    with pytest.raises(ValueError, match=r"data must hold states in 0\.\.\[1, 1\]"):
        bn_log_likelihood(np.array([[0, 2]]), [(), (0,)], [2, 2])
    with pytest.raises(ValueError, match="NaN"):
        bn_log_likelihood(np.array([[0.0, np.nan]]), [(), (0,)], [2, 2])
    with pytest.raises(ValueError, match="empty data"):
        bn_log_likelihood(np.zeros((0, 2), dtype=int), [(), (0,)], [2, 2])
    with pytest.raises(ValueError, match="parent sets"):
        bn_log_likelihood(data, [()], [2, 2])
    with pytest.raises(ValueError, match="needs 2"):
        sample_binary_network([(), (0,)], [[0.5], [0.5]], 10, np.random.default_rng(0))


def test_widget_callback_returns_a_figure():
    for n, noise in [(20, 0.05), (1000, 1.0)]:
        fig = plot_polynomial_mdl(n=n, noise=noise, seed=0)
        assert len(fig.axes) == 2


# ------------------------------------------------------------- bad input, every kind
@pytest.mark.parametrize("call, error, match", [
    (lambda: code_length(np.nan), ValueError, "p must not contain NaN"),
    (lambda: check_dag(3), TypeError, "parents must be a sequence"),
    (lambda: check_dag([(), 0]), TypeError, r"parents\[1\] must be a tuple of parent indices"),
    (lambda: code_length("0.5"), TypeError, "p must hold real numbers"),
    (lambda: count_bits([np.inf, 1], [0.5, 0.5]), ValueError, "counts must be finite"),
    (lambda: count_bits([-1, 1], [0.5, 0.5]), ValueError, "counts must be >= 0, got -1"),
    (lambda: data_bits(np.nan), ValueError, "log_likelihood must not contain NaN"),
    (lambda: parameter_bits(2, np.nan), ValueError, "the sample size n must not contain NaN"),
    (lambda: parameter_bits(2, 0), ValueError, "the sample size n must be >= 1, got 0"),
    (lambda: parameter_bits(-1, 10), ValueError, "the number of parameters d must be >= 0"),
    (lambda: precision_bits(2, "0.1"), TypeError, "precision must be a real number > 0"),
    (lambda: precision_bits(2, 0.5, scale=0.1), ValueError, "scale must be a real number >= 0.5"),
    (lambda: bic(np.nan, 2, 10), ValueError, "log_likelihood must not contain NaN"),
    (lambda: polynomial_data("10", 0.1, np.random.default_rng(0)), TypeError, "n must be an integer >= 2"),
    (lambda: polynomial_data(10, np.nan, np.random.default_rng(0)), ValueError, "noise must be a real number > 0"),
    (lambda: polynomial_data(10, 0.1, 0), TypeError, "rng must be a numpy.random.Generator"),
    (lambda: gaussian_bin_log_likelihood([0.1], np.nan, 0.01), ValueError, "sigma must be a real number >= 0"),
    (lambda: polynomial_scores([0.1, 0.2, 0.3], [1, 2], [1]), ValueError, "x and y must have the same length"),
    (lambda: bn_n_params([(), (0,)], [2, "x"]), TypeError, "cards must hold integer numbers of states >= 1, got dtype <U21"),
    (lambda: bn_n_params([(), (0,)], [2, 1.5]), ValueError, "cards must hold integer numbers of states >= 1, got 1.5"),
    (lambda: bn_n_params([(), (0,)], [2, 0]), ValueError, "cards must hold numbers of states >= 1, got values from 0 to 2"),
    (lambda: bn_n_params([(), (0,)], [2, 2, 2]), ValueError, r"cards \(one number of states per node\) must have shape \(2\), got \(3,\)"),
    (lambda: bn_log_likelihood([[0, 2]], [(), (0,)], [2, 2]), ValueError, r"data must hold states in 0..\[1, 1\] \(one bound per column\), got values from 0 to 2"),
    (lambda: bn_log_likelihood([["a", "b"]], [(), (0,)]), TypeError, "data must hold integer states >= 0, got dtype <U1"),
    (lambda: sample_binary_network([(), (0,)], [[0.5]], 5, np.random.default_rng(0)), ValueError,
     r"probs must give one table per node \(2\), got 1"),
    (lambda: sample_binary_network([()], [[np.nan]], 5, np.random.default_rng(0)), ValueError,
     r"probs\[0\] must not contain NaN"),
])
def test_bad_input_kinds(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_selection_figure_draws():
    from lib.plots.mdl import plot_selection_panels

    fig = plot_selection_panels([("a", ["0", "1"], [10.0, 5.0], [1.0, 2.0])] * 3)
    assert sum(ax.get_visible() for ax in fig.axes) == 3


def test_gaussian_bin_log_likelihood_with_sigma_zero_is_the_limit_not_nan():
    # sigma = 0: all mass at residual 0; the bin [r - h, r + h] holds it iff |r| < h
    assert gaussian_bin_log_likelihood([1.0], 0, 0.01) == -np.inf
    assert gaussian_bin_log_likelihood([0.0, 0.001], 0, 0.01) == 0.0
    assert np.isclose(gaussian_bin_log_likelihood([0.005], 0, 0.01), np.log(0.5))
    # a tiny positive sigma agrees with the limit (it gave NaN too)
    assert gaussian_bin_log_likelihood([1.0, 0.0], 1e-300, 0.01) == -np.inf
    assert np.isclose(gaussian_bin_log_likelihood([0.001], 1e-6, 0.01), 0.0)


def test_mdl_select_refuses_when_every_candidate_gives_probability_zero():
    with pytest.raises(ValueError, match="every candidate gives the data probability zero"):
        mdl_select([-np.inf, -np.inf], [1, 2], n=10)
    assert mdl_select([-np.inf, -50.0], [1, 2], n=10) == 1    # one possible candidate wins


def test_gaussian_bin_log_likelihood_of_a_huge_residual_is_minus_inf_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gaussian_bin_log_likelihood([1e308], 1e-300, 0.01) == -np.inf
