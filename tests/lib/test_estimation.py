"""Tests of lib/estimation.py (Chapter 2, "Estimating probabilities")."""
import numpy as np
import pytest
from scipy import optimize, stats

from lib.estimation import (
    BetaPosterior,
    DirichletPosterior,
    bernoulli_log_likelihood,
    cross_entropy,
    fit_logistic,
    fit_logistic_sets,
    gaussian_mle,
    grid_learner,
    linear_gaussian_mle,
    map_bernoulli,
    mle_bernoulli,
    n_params_full_table,
    n_params_joint_given_class,
    n_params_naive_bayes,
    wrapper_counts,
    wrapper_log_likelihood,
    wrapper_mle,
)
from lib.plots.estimation import plot_beta_update


# ------------------------------------------------------------- source numbers
def test_one_cherry_gives_theta_one():            # seed004, section 20.2.4
    assert mle_bernoulli(1, 0) == 1.0


def test_mle_and_map_formulas_of_seed003():
    a1, a0, b1, b0 = 6, 2, 3, 5
    assert mle_bernoulli(a1, a0) == pytest.approx(a1 / (a1 + a0))
    assert map_bernoulli(a1, a0, b1, b0) == pytest.approx(
        (a1 + b1 - 1) / ((a1 + b1 - 1) + (a0 + b0 - 1)))


def test_figure_20_5_sequence_mean_075_and_narrowing():
    posts = [BetaPosterior(a, b) for a, b in [(3, 1), (6, 2), (30, 10)]]
    assert [p.mean() for p in posts] == pytest.approx([0.75] * 3)
    sds = [np.sqrt(p.var()) for p in posts]
    assert sds[0] > sds[1] > sds[2]


def test_virtual_counts_and_conjugate_update():
    post = BetaPosterior(1, 1).update(heads=2, tails=0)
    assert (post.a, post.b) == (3.0, 1.0)
    post = BetaPosterior(2.5, 4).update(3, 7)
    assert (post.a, post.b) == (5.5, 11.0)


def test_dirichlet_update_is_prior_plus_counts():
    post = DirichletPosterior([1, 2, 3]).update([4, 0, 1])
    np.testing.assert_allclose(post.alpha, [5, 2, 4])


def test_naive_bayes_parameter_counts():
    assert [n_params_naive_bayes(n) for n in (1, 2, 30)] == [3, 5, 61]
    assert n_params_full_table(2) == 4                   # the Wealth table of seed003
    assert n_params_full_table(100) == 2 ** 100          # exact integer
    assert n_params_joint_given_class(3) == 2 * 7 + 1


def test_wrapper_network_closed_form_equals_numerical_ml():
    rng = np.random.default_rng(0)
    cherry = rng.random(300) < 0.4
    red = np.where(cherry, rng.random(300) < 0.9, rng.random(300) < 0.2)
    counts = wrapper_counts(cherry, red)
    assert counts["c"] + counts["l"] == 300
    assert counts["rc"] + counts["gc"] == counts["c"]
    closed = wrapper_mle(counts)
    res = optimize.minimize(lambda p: -wrapper_log_likelihood(p, counts), [0.5] * 3,
                            bounds=[(1e-6, 1 - 1e-6)] * 3)
    np.testing.assert_allclose(closed, res.x, atol=1e-4)
    c = counts
    np.testing.assert_allclose(closed, [c["c"] / 300, c["rc"] / (c["rc"] + c["gc"]),
                                        c["rl"] / (c["rl"] + c["gl"])])


def test_cherry_green_probability_is_theta_times_one_minus_theta1():
    one = dict(c=1, l=0, rc=0, gc=1, rl=0, gl=0)
    p = np.exp(wrapper_log_likelihood((0.3, 0.8, 0.1), one))
    assert p == pytest.approx(0.3 * 0.2)


# --------------------------------------------------------------- oracles (scipy)
@pytest.mark.parametrize("a,b", [(1, 1), (3, 1), (0.5, 0.5), (30, 10), (2.5, 7)])
def test_beta_pdf_cdf_interval_against_scipy(a, b):
    post, ref = BetaPosterior(a, b), stats.beta(a, b)
    theta = np.linspace(0.01, 0.99, 25)
    np.testing.assert_allclose(post.pdf(theta), ref.pdf(theta), rtol=1e-10)
    np.testing.assert_allclose(post.cdf(theta), ref.cdf(theta), rtol=1e-10)
    np.testing.assert_allclose(post.interval(0.9), ref.ppf([0.05, 0.95]), rtol=1e-8)
    assert post.mean() == pytest.approx(ref.mean())
    assert post.var() == pytest.approx(ref.var())
    assert post.pdf(-0.1) == 0 and post.pdf(1.1) == 0


@pytest.mark.parametrize("a,b", [(2, 2), (5, 3), (1, 4), (7, 1)])
def test_beta_mode_maximises_scipy_pdf(a, b):
    res = optimize.minimize_scalar(lambda t: -stats.beta(a, b).logpdf(t),
                                   bounds=(1e-9, 1 - 1e-9), method="bounded")
    assert BetaPosterior(a, b).mode() == pytest.approx(res.x, abs=1e-4)


def test_dirichlet_against_scipy():
    alpha = np.array([2.0, 3.5, 1.5, 4.0])
    post, ref = DirichletPosterior(alpha), stats.dirichlet(alpha)
    theta = np.random.default_rng(1).dirichlet(np.ones(4), size=5)
    np.testing.assert_allclose(post.pdf(theta), [ref.pdf(t) for t in theta], rtol=1e-10)
    np.testing.assert_allclose(post.mean(), ref.mean())
    # the mode maximises the density on the simplex
    mode = post.mode()
    assert all(ref.logpdf(mode) >= ref.logpdf(t) for t in theta)


def test_two_outcome_dirichlet_is_beta():
    d, b = DirichletPosterior([3.0, 5.0]), BetaPosterior(3, 5)
    for t in (0.1, 0.4, 0.8):
        assert d.pdf([t, 1 - t]) == pytest.approx(b.pdf(t))
    assert d.mode()[0] == pytest.approx(b.mode())


def test_gaussian_mle_against_numerical_optimisation():
    x = np.random.default_rng(2).normal(3.0, 2.0, size=40)
    mu, sigma = gaussian_mle(x)
    res = optimize.minimize(lambda p: -stats.norm(p[0], np.exp(p[1])).logpdf(x).sum(),
                            [0.0, 0.0])
    assert mu == pytest.approx(res.x[0], abs=1e-4)
    assert sigma == pytest.approx(np.exp(res.x[1]), abs=1e-4)
    assert sigma == pytest.approx(np.std(x))          # N in the denominator


def test_linear_gaussian_mle_is_least_squares_and_numerical_ml():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 2, 50)
    y = -0.7 * x + 2.0 + rng.normal(scale=0.3, size=50)
    t1, t2, s = linear_gaussian_mle(x, y)
    np.testing.assert_allclose([t1, t2], np.polyfit(x, y, 1))
    res = optimize.minimize(
        lambda p: -stats.norm(p[0] * x + p[1], np.exp(p[2])).logpdf(y).sum(), [0, 0, 0])
    np.testing.assert_allclose([t1, t2, s], [res.x[0], res.x[1], np.exp(res.x[2])],
                               atol=1e-3)


def test_cross_entropy_is_minus_log_likelihood():
    y = np.array([1, 0, 1, 1, 0])
    p = np.array([0.9, 0.2, 0.6, 0.99, 0.5])
    lik = np.prod(np.where(y == 1, p, 1 - p))
    assert cross_entropy(y, p) == pytest.approx(-np.log(lik))
    assert cross_entropy([1, 0], [1.0, 0.0]) == 0.0


def test_bernoulli_log_likelihood_handles_zero_counts_at_the_boundary():
    assert bernoulli_log_likelihood(1.0, 3, 0) == 0.0
    assert bernoulli_log_likelihood(0.0, 3, 0) == -np.inf


# ------------------------------------------------------------------ properties
@pytest.mark.parametrize("seed", range(5))
def test_posterior_mean_between_prior_mean_and_mle(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(0.2, 20, size=2)
    heads, tails = rng.integers(0, 50, size=2)
    if heads + tails == 0:
        heads = 1
    prior = BetaPosterior(a, b)
    lo, hi = sorted([prior.mean(), mle_bernoulli(heads, tails)])
    assert lo - 1e-12 <= prior.update(heads, tails).mean() <= hi + 1e-12


def test_map_tends_to_mle_as_n_grows():
    gaps = [abs(map_bernoulli(3 * n, n, 10, 2) - mle_bernoulli(3 * n, n))
            for n in (1, 10, 100, 1000, 10_000)]
    assert all(g1 > g2 for g1, g2 in zip(gaps, gaps[1:]))
    assert gaps[-1] < 1e-3


def test_mle_equals_map_with_uniform_prior():
    for h, t in [(1, 0), (3, 4), (0, 5)]:
        assert map_bernoulli(h, t, 1, 1) == pytest.approx(mle_bernoulli(h, t))


def test_update_does_not_modify_the_prior():
    prior = BetaPosterior(2, 3)
    prior.update(5, 5)
    assert (prior.a, prior.b) == (2.0, 3.0)


def test_mle_is_vectorised():
    np.testing.assert_allclose(mle_bernoulli([1, 2, 3], [1, 0, 1]), [0.5, 1.0, 0.75])


# ---------------------------------------------------------- documented MAP edges
def test_map_on_the_boundary_when_an_exponent_is_zero():
    assert map_bernoulli(0, 3, 1, 1) == 0.0
    assert BetaPosterior(1, 4).mode() == 0.0
    assert BetaPosterior(4, 1).mode() == 1.0


@pytest.mark.parametrize("a,b,h,t", [(0.5, 0.5, 0, 0), (0.5, 2, 0, 3), (1, 1, 0, 0)])
def test_map_raises_when_no_mode_exists(a, b, h, t):
    with pytest.raises(ValueError, match="no MAP estimate"):
        map_bernoulli(h, t, a, b)


def test_map_exists_once_data_push_parameters_above_one():
    assert map_bernoulli(2, 2, 0.5, 0.5) == pytest.approx(1.5 / 3)


def test_dirichlet_mode_errors():
    with pytest.raises(ValueError, match="unbounded"):
        DirichletPosterior([0.5, 2, 2]).mode()
    with pytest.raises(ValueError, match="flat"):
        DirichletPosterior([1, 1, 1]).mode()
    np.testing.assert_allclose(DirichletPosterior([1, 2, 3]).mode(), [0, 1 / 3, 2 / 3])


# ------------------------------------------------------------------- bad input
@pytest.mark.parametrize("a,b", [(0, 1), (-1, 2), (1, np.nan), (np.inf, 1)])
def test_invalid_beta_hyperparameters(a, b):
    with pytest.raises(ValueError):
        BetaPosterior(a, b)


@pytest.mark.parametrize("h,t", [(-1, 2), (np.nan, 1), (1, np.inf)])
def test_invalid_counts(h, t):
    with pytest.raises(ValueError):
        mle_bernoulli(h, t)
    with pytest.raises(ValueError):
        BetaPosterior(1, 1).update(h, t)


def test_empty_data():
    with pytest.raises(ValueError, match="empty"):
        mle_bernoulli(0, 0)
    with pytest.raises(ValueError, match="empty"):
        gaussian_mle([])
    with pytest.raises(ValueError, match="empty"):
        wrapper_counts([], [])
    with pytest.raises(ValueError, match="empty"):
        cross_entropy([], [])


def test_nan_and_shape_errors_in_continuous_models():
    with pytest.raises(ValueError, match="NaN"):
        gaussian_mle([1.0, np.nan])
    with pytest.raises(ValueError, match="x and y must have the same length, got: x has 3, y has 2"):
        linear_gaussian_mle([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="identifiable"):
        linear_gaussian_mle([1, 1, 1], [1, 2, 3])


def test_dirichlet_bad_input():
    with pytest.raises(ValueError):
        DirichletPosterior([1.0])
    with pytest.raises(ValueError):
        DirichletPosterior([1, 0, 2])
    with pytest.raises(ValueError, match="shape"):
        DirichletPosterior([1, 1]).update([1, 2, 3])
    with pytest.raises(ValueError, match="non-negative"):
        DirichletPosterior([1, 1]).update([1, -2])


def test_other_bad_input():
    with pytest.raises(ValueError):
        BetaPosterior(2, 2).interval(1.0)
    with pytest.raises(ValueError):
        bernoulli_log_likelihood(1.5, 1, 1)
    with pytest.raises(ValueError):
        cross_entropy([0, 2], [0.5, 0.5])
    with pytest.raises(ValueError):
        cross_entropy([0, 1], [0.5, 1.5])
    with pytest.raises(ValueError):
        wrapper_counts([0, 1, 2], [0, 1, 1])
    for bad in (0, -3):
        with pytest.raises(ValueError, match="n must be an integer >= 1"):
            n_params_naive_bayes(bad)
    for bad in (2.5, True, "3", None):
        with pytest.raises(TypeError, match="n must be an integer >= 1"):
            n_params_naive_bayes(bad)


def test_widget_callback_returns_a_figure_for_edge_settings():
    for args in [(2, 2, 3, 1), (0.5, 0.5, 0, 0), (20, 20, 60, 0), (1, 1, 0, 0)]:
        fig = plot_beta_update(*args)
        assert fig.axes and fig.axes[0].lines


def test_parameter_count_table_rows():
    from lib.plots.estimation import parameter_count_table
    lines = parameter_count_table(30).splitlines()
    assert len(lines) == 2 + 30
    assert lines[-1] == "| 30 | 1,073,741,824 | 2,147,483,647 | 61 |"


# ------------------------------------------------------------- bad input, every kind
@pytest.mark.parametrize("theta", [np.nan, [0.5, np.nan]])
def test_beta_density_of_nan_raises_never_zero(theta):
    for method in ("pdf", "logpdf", "cdf"):
        with pytest.raises(ValueError, match="theta must not contain NaN"):
            getattr(BetaPosterior(2, 3), method)(theta)


def test_beta_density_outside_the_interval_is_zero():
    assert BetaPosterior(2, 3).pdf([-0.5, 1.5, np.inf]).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("theta, match", [
    ([0.5, 0.5, 0.5], "must sum to 1"),
    ([0.2, 0.3], "last axis of length 3"),
    ([1.2, -0.1, -0.1], r"must hold probabilities in \[0, 1\]"),
    ([np.nan, 0.5, 0.5], "must not contain NaN"),
    ([[0.2, 0.3, 0.5], [0.5, 0.5, 0.5]], r"row \(1,\)"),
])
def test_dirichlet_density_off_the_simplex_raises(theta, match):
    for method in ("pdf", "logpdf"):
        with pytest.raises(ValueError, match=match):
            getattr(DirichletPosterior([2.0, 3.0, 4.0]), method)(theta)


def test_dirichlet_density_on_the_simplex_matches_scipy():
    theta = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    ours = DirichletPosterior([2.0, 3.0, 4.0]).pdf(theta)
    np.testing.assert_allclose(ours, [stats.dirichlet([2, 3, 4]).pdf(t) for t in theta], rtol=1e-12)


@pytest.mark.parametrize("a, b", [(1e200, 1e200), (1e300, 3e300), (1e307, 1e308), (2.5, 1e250)])
def test_beta_moments_do_not_overflow_for_huge_parameters(a, b):
    post = BetaPosterior(a, b)
    mean, var = post.mean(), post.var()
    assert mean == pytest.approx(1 / (1 + b / a), rel=1e-12)
    expected_var = (1 / (1 + b / a)) * (1 / (1 + a / b)) / (a + b + 1)
    assert np.isfinite(var) and var == pytest.approx(expected_var, rel=1e-12)
    assert 0 < post.mode() < 1 and post.mode() == pytest.approx(mean, rel=1e-6)


@pytest.mark.parametrize("a, b", [(2.0, 3.0), (0.5, 0.5), (40.0, 7.0)])
def test_beta_moments_match_scipy(a, b):
    post, ref = BetaPosterior(a, b), stats.beta(a, b)
    assert post.mean() == pytest.approx(ref.mean(), rel=1e-13)
    assert post.var() == pytest.approx(ref.var(), rel=1e-13)


def test_dirichlet_mean_of_huge_parameters():
    np.testing.assert_allclose(DirichletPosterior([1e308, 1e308, 2e307]).mean(),
                               np.array([10, 10, 2]) / 22, rtol=1e-12)


@pytest.mark.parametrize("call, error, match", [
    (lambda: BetaPosterior("2", 2), TypeError, "a must be a real number > 0, got '2'"),
    (lambda: BetaPosterior(2, np.nan), ValueError, "b must be a real number > 0, got nan"),
    (lambda: BetaPosterior(2, 2).update(np.nan, 1), ValueError, "heads must be a real number >= 0, got nan"),
    (lambda: BetaPosterior(2, 2).update(1, -1), ValueError, "tails must be a real number >= 0"),
    (lambda: BetaPosterior(2, 2).interval("0.9"), TypeError, r"level must be a real number in \(0, 1\)"),
    (lambda: BetaPosterior(2, 2).interval(np.nan), ValueError, "level"),
    (lambda: DirichletPosterior([1.0, "2"]), TypeError, "alpha must hold real numbers"),
    (lambda: DirichletPosterior([1.0, np.inf]), ValueError, "alpha must be finite"),
    (lambda: DirichletPosterior([1.0, 2.0]).update([1, np.nan]), ValueError, "counts must not contain NaN"),
    (lambda: mle_bernoulli("1", 1), TypeError, "n1 must hold real numbers"),
    (lambda: mle_bernoulli(np.inf, 1), ValueError, "n1 must be finite"),
    (lambda: map_bernoulli(1, 1, a=np.nan), ValueError, "a must be a real number > 0, got nan"),
    (lambda: bernoulli_log_likelihood(np.nan, 1, 1), ValueError, "theta must not contain NaN"),
    (lambda: cross_entropy([0, 1], [np.nan, 0.5]), ValueError, "p must not contain NaN"),
    (lambda: cross_entropy([0, 1], [0.5]), ValueError, "y and p must have the same shape"),
    (lambda: wrapper_log_likelihood((0.5, 0.5), {}), ValueError, r"params must be \(theta, theta1, theta2\)"),
    (lambda: wrapper_log_likelihood((0.5, 0.5, 0.5), {"c": 1}), ValueError, "counts must be a dict with the keys"),
    (lambda: wrapper_mle({"c": 1, "l": 1, "rc": 1, "gc": 0, "rl": np.nan, "gl": 1}), ValueError,
     r"counts\['rl'\] must be a real number >= 0, got nan"),
    (lambda: wrapper_counts([1, 0], [1]), ValueError, "cherry and red must have the same length"),
    (lambda: gaussian_mle(["1", "2"]), TypeError, "x must hold real numbers"),
    (lambda: gaussian_mle([]), ValueError, "empty data"),
    (lambda: grid_learner(1), ValueError, "n_grid must be an integer >= 2"),
    (lambda: grid_learner(11.5), TypeError, "n_grid must be an integer"),
    (lambda: grid_learner(11, a=0.5), ValueError, "a must be a real number >= 1"),
    (lambda: grid_learner(11, b=np.nan), ValueError, "b must be a real number >= 1, got nan"),
    (lambda: grid_learner(11)[1].posterior(["cherry", "plum"]), ValueError, "outcome 'plum'"),
    (lambda: fit_logistic([0, 1, 2], [0, 1, 2]), ValueError, r"y must hold 0/1 labels \(or True/False\), got 2"),
    (lambda: fit_logistic([0, 1, 2], [1, 1, 1]), ValueError, "both labels 0 and 1"),
    (lambda: fit_logistic([0, 1, 2], [0, 1]), ValueError, "x and y must have the same length"),
    (lambda: fit_logistic([0, np.nan, 2], [0, 1, 1]), ValueError, "x must not contain NaN"),
    (lambda: fit_logistic(["a", "b"], [0, 1]), TypeError, "x must hold real numbers"),
    (lambda: fit_logistic([0, 1, 2], [0, 1, 1], loss="hinge"), ValueError,
     "loss must be 'cross_entropy' or 'squared', got 'hinge'"),
    (lambda: fit_logistic_sets([0, 1, 2], [0, 1, 1]), ValueError, r"xs must be a 2-D array, got shape \(3,\)"),
    (lambda: fit_logistic_sets([[0, 1, 2]], [[0, 1]]), ValueError,
     r"xs and ys must have the same shape \(sets, points\), got \(1, 3\) and \(1, 2\)"),
    (lambda: fit_logistic_sets([[0, 1], [0, 1]], [[0, 1], [1, 1]]), ValueError, r"both labels 0 and 1; rows \[1\]"),
    (lambda: fit_logistic_sets([[0, 1]], [[0, 2]]), ValueError, "ys must hold 0/1 labels"),
    (lambda: fit_logistic_sets([[0, np.inf]], [[0, 1]]), ValueError, "xs must be finite, got 1 infinite value"),
    (lambda: fit_logistic_sets([[0, 1]], [[0, 1]], loss="hinge"), ValueError, "loss must be"),
])
def test_bad_input_kinds(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_gaussian_mle_of_huge_values_does_not_overflow():
    mu, sigma = gaussian_mle([1e308, -1e308, 1e308, -1e308])
    assert mu == 0.0 and sigma == pytest.approx(1e308)
    np.testing.assert_allclose(gaussian_mle([1.0, 2.0, 4.0]), (7 / 3, np.std([1.0, 2.0, 4.0])), rtol=1e-15)


def test_figures_of_chapter_2_draw():
    from lib.plots.estimation import plot_beta_panels, plot_linear_gaussian

    assert len(plot_beta_panels([(1, 1), (2, 2)], [(3, 1)], ("a", "b")).axes) == 2
    assert plot_linear_gaussian([0, 1, 2], [0, 1, 2.5], 1.2, -0.1, true_line=(1, 0)).axes[0].lines


@pytest.mark.parametrize("a, b", [(1e10, 1e10), (1e200, 1e200), (3e9, 5.0), (2e8, 1e8)])
def test_beta_density_stays_accurate_for_huge_parameters(a, b):
    """Near the mode the formula's terms cancel: the density comes from Boost (scipy)."""
    post, mode = BetaPosterior(a, b), a / (a + b)
    assert post.pdf(mode) == pytest.approx(stats.beta.pdf(mode, a, b), rel=1e-9)
    assert post.logpdf(mode) == pytest.approx(np.log(stats.beta.pdf(mode, a, b)), rel=1e-9)
    far = post.logpdf(0.01 if mode > 0.5 else 0.99)      # density underflows: log stays finite
    assert np.isfinite(far) and far < -1e6


def test_dirichlet_log_density_refuses_parameters_beyond_double_precision():
    with pytest.raises(ValueError, match="alpha must be at most 1e\\+08 for the log density"):
        DirichletPosterior([1e9, 1e9, 1e9]).pdf([0.2, 0.3, 0.5])
    # up to the limit it agrees with scipy
    alpha = [1e7, 2e7, 3e7]
    assert DirichletPosterior(alpha).logpdf([1 / 6, 2 / 6, 3 / 6]) == pytest.approx(
        stats.dirichlet(alpha).logpdf([1 / 6, 2 / 6, 3 / 6]), abs=1e-4)


# ------------------------------------------------- grid of bags against the Beta posterior
@pytest.mark.parametrize("a, b, c, l", [(1, 1, 7, 3), (2, 3, 0, 0), (1, 1, 0, 5), (4, 1.5, 30, 2),
                                        (1, 1, 500, 480)])
def test_grid_posterior_converges_to_beta(a, b, c, l):
    gaps = []
    for n_grid in (11, 101, 1001):
        theta, learner = grid_learner(n_grid, a, b)
        density = learner.posterior(["cherry"] * c + ["lime"] * l) / (theta[1] - theta[0])
        gaps.append(np.max(np.abs(density - stats.beta(a + c, b + l).pdf(theta))))
    assert gaps[2] < gaps[0]
    peak = stats.beta(a + c, b + l).pdf(min(max((a + c - 1) / (a + b + c + l - 2), 0), 1))
    assert gaps[2] < 1e-2 * peak                                 # the 1001-bag grid is the Beta


def test_grid_learner_is_chapter_1_learner():
    theta, learner = grid_learner(5)
    np.testing.assert_allclose(theta, [0, 0.25, 0.5, 0.75, 1])
    np.testing.assert_allclose(learner.prior, 0.2)
    # uniform prior and one cherry: posterior proportional to theta
    np.testing.assert_allclose(learner.posterior(["cherry"]), theta / theta.sum(), rtol=1e-12)
    # Beta(2, 3) prior: weights proportional to theta (1 - theta)^2
    theta, learner = grid_learner(5, 2, 3)
    w = theta * (1 - theta) ** 2
    np.testing.assert_allclose(learner.prior, w / w.sum(), rtol=1e-12)
    # long data do not underflow (log space): 5000 cherries, 5000 limes
    theta, learner = grid_learner(101)
    post = learner.posterior(["cherry", "lime"] * 5000)
    assert np.isfinite(post).all() and np.argmax(post) == 50


# ------------------------------------------------- cross entropy against squared error
def _logistic_data(seed, n=150, w=(-0.5, 1.0), d=1):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-3, 3, size=(n, d))
    z = w[0] + x @ np.full(d, w[1])
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(float)
    return (x[:, 0] if d == 1 else x), y


@pytest.mark.filterwarnings("error::FutureWarning")   # penalty=None is deprecated in 1.8+
@pytest.mark.parametrize("seed, d", [(0, 1), (1, 1), (2, 3), (3, 2)])
def test_cross_entropy_fit_is_sklearn_unpenalised_logistic_regression(seed, d):
    from sklearn.linear_model import LogisticRegression

    x, y = _logistic_data(seed, d=d)
    w = fit_logistic(x, y, loss="cross_entropy")
    sk = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(x.reshape(len(x), -1), y)
    np.testing.assert_allclose(w, np.r_[sk.intercept_, sk.coef_.ravel()], atol=1e-4)
    # it maximises the likelihood: the product of label probabilities, computed directly
    h = 1 / (1 + np.exp(-(w[0] + x.reshape(len(x), -1) @ w[1:])))
    assert -cross_entropy(y, h) == pytest.approx(np.sum(np.log(np.where(y == 1, h, 1 - h))))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_squared_error_fit_matches_scipy_curve_fit(seed):
    x, y = _logistic_data(seed)
    w = fit_logistic(x, y, loss="squared")
    sigmoid = lambda t, w0, w1: 1 / (1 + np.exp(-(w0 + w1 * t)))
    ref = optimize.curve_fit(sigmoid, x, y, p0=[0, 0])[0]
    sse = lambda v: np.sum((sigmoid(x, *v) - y) ** 2)
    assert sse(w) <= sse(ref) + 1e-9                            # at least as good a minimum
    np.testing.assert_allclose(w, ref, atol=2e-3)
    # and it differs from the maximum-likelihood fit, which has a larger squared error
    w_ce = fit_logistic(x, y)
    assert sse(w_ce) > sse(w) and cross_entropy(y, sigmoid(x, *w_ce)) < cross_entropy(y, sigmoid(x, *w))


@pytest.mark.parametrize("loss", ["cross_entropy", "squared"])
def test_fit_logistic_sets_finds_fit_logistics_optimum_for_every_set(loss):
    # Chapter 2's 20-seed experiment: 400 sets of 100 points, with the squared error's
    # runaway fits (distance > 3 from the truth) among them
    rng = np.random.default_rng(6)
    xs = rng.uniform(-3, 3, size=(400, 100))
    ys = (rng.random((400, 100)) < 1 / (1 + np.exp(-(-0.5 + xs)))).astype(float)
    w = fit_logistic_sets(xs, ys, loss=loss)
    loop = np.array([fit_logistic(a, b, loss=loss) for a, b in zip(xs, ys)])
    distances = np.linalg.norm(loop - (-0.5, 1.0), axis=1)
    assert (np.sum(distances > 3) == 5) == (loss == "squared")
    np.testing.assert_allclose(w, loop, atol=1e-6)


def test_loss_figures_draw():
    from lib.plots.estimation import plot_grid_vs_beta, plot_loss_comparison

    fig = plot_grid_vs_beta(7, 3, n_grid=101)
    assert "3.2e-07" in fig.axes[0].get_title()
    assert len(fig.axes[0].patches) == 101
    x, y = _logistic_data(0)
    runs = np.array([[-0.5, 1.0], [-0.4, 1.2]])
    fig = plot_loss_comparison(x, y, fit_logistic(x, y), fit_logistic(x, y, "squared"),
                               (-0.5, 1.0), runs, runs + 0.1)
    assert len(fig.axes) == 2 and len(fig.axes[0].lines) == 3
