"""Tests of lib/em/ (Chapter 7, "Expectation maximization"); EM for networks: test_bn_em.py."""
import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_normal, norm

from lib.em import (
    GaussianMixture,
    MixtureOfNaiveBayes,
    candy_counts,
    candy_parameters,
    candy_theta,
    em_history,
    em_known_variance,
    lower_bound_curves,
    mixture_log_likelihood,
    one_mean_em_path,
    sample_mixture,
)
from lib.plots.em import plot_em_2d

TRUE_W = [0.2, 0.3, 0.5]
TRUE_M = np.array([[-2.0, 1.5], [0.5, -1.5], [2.0, 1.8]])
TRUE_C = np.array([[[0.6, 0.3], [0.3, 0.8]], [[1.2, -0.4], [-0.4, 0.5]], [[0.5, 0], [0, 1.0]]])


def mixture_data(n=500, seed=20):
    return sample_mixture(n, TRUE_W, TRUE_M, TRUE_C, np.random.default_rng(seed))[0]


def non_decreasing(ll, rel=1e-10):
    ll = np.asarray(ll)
    return np.all(np.diff(ll) >= -rel * np.abs(ll[1:]).max() - 1e-12)


# ---------------------------------------------------------------- known variance
def test_known_variance_matches_hand_computed_first_step():
    x = np.array([-1.0, 0.0, 2.0, 3.0])
    tr = em_known_variance(x, [0.0, 1.0], sigma=1.0, n_iter=1)
    a = np.exp(-0.5 * (x[:, None] - np.array([0.0, 1.0])) ** 2)
    r = a / a.sum(1, keepdims=True)
    assert np.allclose(tr.resp[0], r)
    assert np.allclose(tr.means[1], (r * x[:, None]).sum(0) / r.sum(0))
    ll = np.log(0.5 * norm.pdf(x, 0, 1) + 0.5 * norm.pdf(x, 1, 1)).sum()
    assert np.isclose(tr.log_likelihood[0], ll)


@pytest.mark.parametrize("seed", range(5))
def test_known_variance_log_likelihood_never_decreases(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 3, 60)
    tr = em_known_variance(x, rng.normal(0, 1, 3), sigma=1.0, n_iter=30)
    assert non_decreasing(tr.log_likelihood)
    assert tr.means.shape == (31, 3) and tr.resp.shape == (31, 60, 3)


def test_known_variance_bad_input():
    with pytest.raises(ValueError, match="NaN"):
        em_known_variance([1.0, np.nan], [0.0, 1.0])
    with pytest.raises(ValueError, match="empty"):
        em_known_variance([], [0.0, 1.0])
    with pytest.raises(ValueError, match="sigma"):
        em_known_variance([1.0, 2.0], [0.0, 1.0], sigma=0)
    with pytest.raises(ValueError, match="means_init"):
        em_known_variance(np.ones((4, 2)), [0.0, 1.0])


def test_lower_bound_touches_and_stays_below():
    rng = np.random.default_rng(3)
    x = np.r_[rng.normal(-2, 1, 20), rng.normal(2, 1, 20)]
    old = np.array([0.5, 2.0])
    grid = np.linspace(-4, 4, 81)
    L, B = lower_bound_curves(x, old, 1.0, grid)
    assert np.all(B <= L + 1e-9)
    L0, B0 = lower_bound_curves(x, old, 1.0, [old[0]])
    assert np.isclose(L0[0], B0[0])
    path = one_mean_em_path(x, old, 1.0, 0, 3)
    # the M step maximises the bound: the new mean is its argmax on the grid
    assert abs(grid[np.argmax(B)] - path[1, 0]) <= grid[1] - grid[0]


# ------------------------------------------------------------- Gaussian mixtures
def sklearn_run(X, cov, init, n_iter, reg=0.0):
    from sklearn.mixture import GaussianMixture as SkGM
    c = init["covariances"]
    prec = np.linalg.inv(c) if cov == "full" else 1.0 / c
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SkGM(len(init["weights"]), covariance_type=cov, max_iter=n_iter, tol=0,
                    reg_covar=reg, weights_init=init["weights"], means_init=init["means"],
                    precisions_init=prec, init_params="random", random_state=0).fit(X)


@pytest.mark.parametrize("cov", ["full", "diag", "spherical"])
def test_gaussian_mixture_equals_sklearn(cov):
    X = mixture_data()
    rng = np.random.default_rng(1)
    k = 3
    var = X.var(0)
    covs = {"full": np.repeat(np.cov(X.T, bias=True)[None], k, 0),
            "diag": np.repeat(var[None], k, 0), "spherical": np.full(k, var.mean())}[cov]
    init = {"weights": np.array([0.5, 0.3, 0.2]), "means": X[rng.choice(len(X), k, False)],
            "covariances": covs}
    n_iter = 40
    gm = GaussianMixture(k, covariance=cov, n_iter=n_iter, tol=0, reg=0, init=init).fit(X)
    sk = sklearn_run(X, cov, init, n_iter)
    # sklearn's lower_bounds_[t] is the mean log likelihood computed in the E step of
    # iteration t + 1, i.e. under the parameters after t M steps: our entry t / n.
    assert len(gm.log_likelihoods_) == n_iter + 1
    assert np.allclose(np.array(sk.lower_bounds_), gm.log_likelihoods_[:-1] / len(X),
                       rtol=0, atol=1e-10)
    assert np.allclose(gm.weights_, sk.weights_, atol=1e-10)
    assert np.allclose(gm.means_, sk.means_, atol=1e-10)
    assert np.allclose(gm.covariances_, sk.covariances_, atol=1e-10)
    assert np.isclose(gm.score(X), sk.score(X), atol=1e-10)
    assert np.allclose(gm.predict_proba(X), sk.predict_proba(X), atol=1e-8)


def test_gaussian_mixture_stops_like_sklearn():
    X = mixture_data()
    init = {"weights": np.full(3, 1 / 3), "means": X[[5, 50, 300]],
            "covariances": np.repeat(np.eye(2)[None], 3, 0)}
    from sklearn.mixture import GaussianMixture as SkGM
    for tol in (1e-2, 1e-4):
        gm = GaussianMixture(3, n_iter=500, tol=tol, reg=1e-6, init=init).fit(X)
        sk = SkGM(3, max_iter=500, tol=tol, reg_covar=1e-6, weights_init=init["weights"],
                  means_init=init["means"], precisions_init=init["covariances"],
                  init_params="random").fit(X)
        assert gm.converged_ and sk.converged_
        assert gm.n_iter_ == sk.n_iter_
        assert np.allclose(gm.lower_bounds_, sk.lower_bounds_, rtol=0, atol=1e-10)
        assert np.allclose(np.array(sk.lower_bounds_), gm.log_likelihoods_[:-1] / len(X),
                           atol=1e-10)
        assert np.allclose(gm.means_, sk.means_, atol=1e-10)


def test_gaussian_mixture_equals_sklearn_with_reg():
    X = mixture_data(200, seed=4)
    init = {"weights": np.full(2, 0.5), "means": X[:2],
            "covariances": np.repeat(np.eye(2)[None], 2, 0)}
    gm = GaussianMixture(2, n_iter=15, tol=0, reg=1e-3, init=init).fit(X)
    sk = sklearn_run(X, "full", init, 15, reg=1e-3)
    assert np.allclose(gm.covariances_, sk.covariances_, atol=1e-10)
    assert np.allclose(np.array(sk.lower_bounds_), gm.log_likelihoods_[:-1] / len(X),
                       atol=1e-10)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("cov", ["full", "diag", "spherical"])
def test_gaussian_mixture_log_likelihood_never_decreases(seed, cov):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (80, 3)), rng.normal(2, 0.5, (40, 3)) * [1, 2, 1]]
    gm = GaussianMixture(4, covariance=cov, n_iter=60, tol=0, reg=0, init="random",
                         random_state=seed).fit(X)
    assert non_decreasing(gm.log_likelihoods_)
    # the recorded value is the log likelihood of the final parameters
    assert np.isclose(gm.log_likelihoods_[-1], gm.score_samples(X).sum())


def test_log_likelihood_matches_scipy_and_true_model():
    X = mixture_data(100)
    dens = sum(w * multivariate_normal(m, c).pdf(X) for w, m, c in zip(TRUE_W, TRUE_M, TRUE_C))
    assert np.isclose(mixture_log_likelihood(X, TRUE_W, TRUE_M, TRUE_C), np.log(dens).sum())


def test_gaussian_mixture_recovers_source_model_and_beats_true_likelihood():
    X = mixture_data()
    gm = GaussianMixture(3, n_iter=300, tol=1e-9, reg=0, n_init=5, random_state=0).fit(X)
    order = np.argsort(gm.means_[:, 0])
    assert np.allclose(gm.weights_[order], TRUE_W, atol=0.06)
    assert np.allclose(gm.means_[order], TRUE_M, atol=0.25)
    assert gm.log_likelihoods_[-1] > mixture_log_likelihood(X, TRUE_W, TRUE_M, TRUE_C)
    assert np.allclose(gm.predict_proba(X).sum(1), 1)
    assert gm.predict(X).shape == (500,)


def test_restarts_keep_the_best_run():
    X = mixture_data()
    single = [GaussianMixture(3, n_iter=100, init="random", random_state=s).fit(X)
              .log_likelihoods_[-1] for s in range(3)]
    best = GaussianMixture(3, n_iter=100, init="random", n_init=8, random_state=0).fit(X)
    assert best.log_likelihoods_[-1] >= max(single[:1]) - 1e-9


def test_identical_components_stay_identical():
    X = mixture_data()
    init = {"weights": [0.25, 0.25, 0.5], "means": [[0, 0], [0, 0], [2, 2]],
            "covariances": np.repeat(np.eye(2)[None], 3, 0)}
    gm = GaussianMixture(3, n_iter=50, tol=0, reg=0, init=init).fit(X)
    assert np.allclose(gm.means_[0], gm.means_[1])
    assert np.allclose(gm.covariances_[0], gm.covariances_[1])


def test_collapse_is_reported_and_reg_prevents_it():
    X = np.r_[np.random.default_rng(0).normal(0, 1, (30, 2)), np.full((3, 2), 8.0)]
    init = {"weights": [0.5, 0.5], "means": [[0, 0], [8, 8]],
            "covariances": np.repeat(np.eye(2)[None], 2, 0)}
    with pytest.raises(ValueError, match="reg"):
        GaussianMixture(2, n_iter=10, reg=0, tol=0, init=init).fit(X)
    gm = GaussianMixture(2, n_iter=10, reg=1e-3, tol=0, init=init).fit(X)
    assert np.all(np.isfinite(gm.log_likelihoods_))


def test_gaussian_mixture_bad_input():
    X = mixture_data(50)
    with pytest.raises(ValueError, match="NaN"):
        GaussianMixture(2).fit(np.r_[X, [[np.nan, 0]]])
    with pytest.raises(ValueError, match="empty"):
        GaussianMixture(2).fit(np.empty((0, 2)))
    with pytest.raises(ValueError, match="n_samples"):
        GaussianMixture(60).fit(X)
    with pytest.raises(ValueError, match="covariance"):
        GaussianMixture(2, covariance="tilted").fit(X)
    with pytest.raises(ValueError, match="n_components"):
        GaussianMixture(0).fit(X)
    good = {"weights": [0.5, 0.5], "means": X[:2], "covariances": np.repeat(np.eye(2)[None], 2, 0)}
    with pytest.raises(ValueError, match="means"):
        GaussianMixture(2, init={**good, "means": X[:3]}).fit(X)
    with pytest.raises(ValueError, match="weights"):
        GaussianMixture(2, init={**good, "weights": [1.0]}).fit(X)
    with pytest.raises(ValueError, match="covariances"):
        GaussianMixture(2, init={**good, "covariances": np.eye(2)}).fit(X)
    with pytest.raises(ValueError, match="sum to 1"):
        GaussianMixture(2, init={**good, "weights": [0.7, 0.7]}).fit(X)
    with pytest.raises(ValueError, match="init"):
        GaussianMixture(2, init="spectral").fit(X)
    with pytest.raises(ValueError, match="not fitted"):
        GaussianMixture(2).predict_proba(X)
    with pytest.raises(ValueError, match="features"):
        GaussianMixture(2, random_state=0).fit(X).score(np.ones((3, 3)))


def test_plot_em_2d_returns_a_figure():
    import matplotlib.pyplot as plt
    X = mixture_data(100)
    fig = plot_em_2d(iteration=3, k=2, seed=1, X=X)
    assert len(fig.axes) == 2
    plt.close(fig)
    # the cached history is the run GaussianMixture makes from the same seed
    gm = GaussianMixture(2, n_iter=40, tol=0, reg=1e-6, init="random", random_state=1).fit(X)
    assert np.allclose(em_history(X, 2, 1, 40)[-1][1], gm.means_)
    with pytest.raises(ValueError, match="iteration"):
        plot_em_2d(iteration=99, k=2, seed=1, X=X)


# ----------------------------------------------------------------- candy mixture
def candy_model(n_iter, start=(0.6, 0.6, 0.6, 0.6, 0.4, 0.4, 0.4)):
    X, counts = candy_counts()
    init = candy_parameters(*start)
    return MixtureOfNaiveBayes(2, n_iter=n_iter, tol=0, init=init).fit(X, sample_weight=counts)


def test_candy_counts_table():
    X, counts = candy_counts()
    assert counts.sum() == 1000
    assert counts.tolist() == [273, 93, 104, 90, 79, 100, 94, 167]
    assert X.tolist()[0] == [0, 0, 0] and X.tolist()[-1] == [1, 1, 1]


def test_candy_first_iteration_source_numbers():
    m = candy_model(1)
    th = candy_theta(m)
    expected = {"theta": 0.6124, "F1": 0.6684, "W1": 0.6483, "H1": 0.6558,
                "F2": 0.3887, "W2": 0.3817, "H2": 0.3827}
    for key, value in expected.items():
        assert np.isclose(th[key], value, atol=5e-5), key
    # the contribution of the 273 red-wrapped cherry candies with holes
    m0 = candy_model(0)
    X, counts = candy_counts()
    assert np.isclose(counts[0] / 1000 * m0.predict_proba(X)[0, 0], 0.22797, atol=5e-6)
    assert np.isclose(m.log_likelihoods_[0], -2044, atol=0.5)
    assert np.isclose(m.log_likelihoods_[1], -2021, atol=0.5)


def test_candy_true_model_and_tenth_iteration():
    X, counts = candy_counts()
    true = MixtureOfNaiveBayes(2, n_iter=0, init=candy_parameters(0.5, .8, .8, .8, .3, .3, .3))
    true_ll = true.fit(X, sample_weight=counts).log_likelihoods_[0]
    assert np.isclose(true_ll, -1982.214, atol=5e-4)
    ll = candy_model(120).log_likelihoods_
    assert ll[9] < true_ll < ll[10]
    assert non_decreasing(ll)


def test_candy_all_parameters_equal_is_a_fixed_point():
    X, counts = candy_counts()
    m = candy_model(20, start=(0.5,) * 7)
    th = candy_theta(m)
    assert np.isclose(th["F1"], th["F2"]) and np.isclose(th["F1"], 560 / 1000)
    assert np.isclose(th["W1"], 545 / 1000) and np.isclose(th["H1"], 550 / 1000)
    assert np.isclose(th["theta"], 0.5)
    assert np.allclose(m.log_likelihoods_[1:], m.log_likelihoods_[1])


@pytest.mark.parametrize("seed", range(4))
def test_naive_bayes_mixture_never_decreases_on_random_data(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, [2, 3, 4], size=(200, 3))
    m = MixtureOfNaiveBayes(3, n_iter=50, tol=0, random_state=seed).fit(X)
    assert non_decreasing(m.log_likelihoods_)
    assert np.isclose(m.log_likelihoods_[-1], m.score(X))
    assert np.allclose(m.predict_proba(X).sum(1), 1)


def test_naive_bayes_mixture_brute_force_likelihood():
    X, counts = candy_counts()
    m = candy_model(3)
    p = m.probs_
    ll = 0.0
    for row, c in zip(X, counts):
        px = sum(m.weights_[j] * p[0][j, row[0]] * p[1][j, row[1]] * p[2][j, row[2]]
                 for j in range(2))
        ll += c * np.log(px)
    assert np.isclose(ll, m.log_likelihoods_[-1])


def test_naive_bayes_mixture_bad_input():
    X, counts = candy_counts()
    with pytest.raises(ValueError, match="integer"):
        MixtureOfNaiveBayes(2).fit(X + 0.5)
    with pytest.raises(ValueError, match="NaN"):
        MixtureOfNaiveBayes(2).fit(np.array([[0, np.nan]]))
    with pytest.raises(ValueError, match="empty data"):
        MixtureOfNaiveBayes(2).fit(np.empty((0, 3)))
    with pytest.raises(ValueError, match="X must be a 2-D array"):
        MixtureOfNaiveBayes(2).fit(X[0])
    with pytest.raises(ValueError, match=r"X must hold category codes >= 0, got values from -1"):
        MixtureOfNaiveBayes(2).fit(np.array([[0, -1], [1, 0]]))
    fitted = MixtureOfNaiveBayes(2, random_state=0).fit(X, sample_weight=counts)
    unseen = X.copy()
    unseen[0, 1] = fitted.n_categories_[1]      # a code the model has not seen in fit
    for method in (fitted.predict_proba, fitted.score_samples):
        with pytest.raises(ValueError, match=r"X must hold category codes \(as seen in fit\) in 0\.\.\["):
            method(unseen)
    with pytest.raises(ValueError, match="sample_weight"):
        MixtureOfNaiveBayes(2).fit(X, sample_weight=counts[:3])
    with pytest.raises(ValueError, match="probs"):
        MixtureOfNaiveBayes(2, init={"weights": [0.5, 0.5], "probs": [[[1.0, 0.0]]]}).fit(X)


# ------------------------------------------------------------- bad input, per module
def test_gaussian_mixture_more_bad_input():
    from lib._validation import NotFittedError
    X = mixture_data(60)
    with pytest.raises(NotFittedError, match="not fitted"):
        GaussianMixture(2).predict(X)
    with pytest.raises(NotFittedError):
        GaussianMixture(2).score_samples(X)
    with pytest.raises(ValueError, match="NaN"):
        GaussianMixture(2).fit(np.r_[X, [[np.nan, 0.0]]])
    with pytest.raises(ValueError, match="n_components"):
        GaussianMixture(61).fit(X)
    with pytest.raises(TypeError, match="n_components"):
        GaussianMixture(2.5).fit(X)
    for key, value in (("tol", np.nan), ("tol", -1), ("reg", -1e-3), ("n_iter", -1),
                       ("n_init", 0)):
        with pytest.raises(ValueError, match=key):
            GaussianMixture(2, **{key: value}).fit(X)
    with pytest.raises(TypeError, match="tol"):
        GaussianMixture(2, tol="small").fit(X)
    with pytest.raises(ValueError, match="covariance"):
        GaussianMixture(2, covariance="tied").fit(X)
    init = {"weights": [0.5, 0.5], "means": X[:2], "covariances": np.stack([np.eye(2)] * 2)}
    for bad in ([0.2, 0.3, 0.5], [0.7, 0.7], [1.5, -0.5], [np.nan, 1.0]):
        with pytest.raises(ValueError, match="weights"):
            GaussianMixture(2, init={**init, "weights": bad}).fit(X)
    with pytest.raises(ValueError, match="features"):
        GaussianMixture(2, n_iter=2).fit(X).predict(X[:, :1])


def test_mixture_functions_check_weights_and_shapes():
    X = mixture_data(30)
    good = (TRUE_W, TRUE_M, TRUE_C)
    assert np.isfinite(mixture_log_likelihood(X, *good))
    for bad_w in ([0.5, 0.5], [0.2, 0.3, 0.5, 0.0], [0.3, 0.3, 0.3], [-0.2, 0.7, 0.5]):
        with pytest.raises(ValueError, match="weights"):
            mixture_log_likelihood(X, bad_w, TRUE_M, TRUE_C)
        with pytest.raises(ValueError, match="weights"):
            sample_mixture(5, bad_w, TRUE_M, TRUE_C, 0)
    with pytest.raises(ValueError, match="covariances"):
        mixture_log_likelihood(X, TRUE_W, TRUE_M, TRUE_C[:2])
    with pytest.raises(ValueError, match="means"):
        mixture_log_likelihood(X[:, :1], TRUE_W, TRUE_M, TRUE_C)
    with pytest.raises(ValueError, match="NaN"):
        mixture_log_likelihood(np.r_[X, [[np.nan, 1.0]]], *good)
    with pytest.raises(ValueError, match="n must"):
        sample_mixture(0, *good, 0)
    with pytest.raises(ValueError, match="positive definite"):
        sample_mixture(5, TRUE_W, TRUE_M, -TRUE_C, 0)
    with pytest.raises(ValueError, match="positive definite"):
        mixture_log_likelihood(X, TRUE_W, TRUE_M, -TRUE_C)


def test_known_variance_more_bad_input():
    with pytest.raises(ValueError, match="sigma"):
        em_known_variance([0.0, 1.0], [0.0, 1.0], sigma=0)
    with pytest.raises(TypeError, match="sigma"):
        em_known_variance([0.0, 1.0], [0.0, 1.0], sigma="1")
    with pytest.raises(ValueError, match="NaN"):
        em_known_variance([0.0, np.nan], [0.0, 1.0])
    with pytest.raises(ValueError, match="NaN"):
        em_known_variance([0.0, 1.0], [0.0, np.nan])
    with pytest.raises(TypeError, match="n_iter"):
        em_known_variance([0.0, 1.0], [0.0, 1.0], n_iter=1.5)
    with pytest.raises(ValueError, match="which"):
        lower_bound_curves([0.0, 1.0], [0.0, 1.0], 1.0, [0.0], which=2)


def test_candy_mixture_bad_input():
    from lib._validation import NotFittedError
    X, counts = candy_counts()
    with pytest.raises(NotFittedError):
        MixtureOfNaiveBayes(2).predict_proba(X)
    with pytest.raises(ValueError, match="pseudo_count"):
        MixtureOfNaiveBayes(2, pseudo_count=np.nan).fit(X, sample_weight=counts)
    with pytest.raises(ValueError, match="n_components"):
        MixtureOfNaiveBayes(9).fit(X)
    with pytest.raises(ValueError, match="sample_weight"):
        MixtureOfNaiveBayes(2).fit(X, sample_weight=np.r_[counts[:-1], np.nan])
    with pytest.raises(TypeError, match="integer category codes"):
        MixtureOfNaiveBayes(2).fit(np.array([["a", "b"], ["b", "a"]]))
    init = candy_parameters(0.6, 0.6, 0.6, 0.6, 0.4, 0.4, 0.4)
    for bad_w in ([0.5, 0.6], [1.0], [0.2, 0.3, 0.5]):
        with pytest.raises(ValueError, match="weights"):
            MixtureOfNaiveBayes(2, init={**init, "weights": bad_w}).fit(X, sample_weight=counts)
    with pytest.raises(ValueError, match="one table per feature"):
        MixtureOfNaiveBayes(2, init={**init, "probs": init["probs"][:2]}).fit(X, sample_weight=counts)
    bad_probs = [init["probs"][0], np.array([[0.5, 0.6], [0.5, 0.5]]), init["probs"][2]]
    with pytest.raises(ValueError, match=r"probs'\]\[1\]"):
        MixtureOfNaiveBayes(2, init={**init, "probs": bad_probs}).fit(X, sample_weight=counts)
    with pytest.raises(ValueError, match="init"):
        MixtureOfNaiveBayes(2, init="kmeans").fit(X)


# ---------------------------------------------------------------- variational inference
def _random_spd(d, seed):
    a = np.random.default_rng(seed).standard_normal((d, d))
    return a @ a.T + 0.3 * np.eye(d)


def test_gaussian_kl_against_monte_carlo_with_scipy():
    from scipy.stats import multivariate_normal as mvn

    from lib.em import gaussian_kl

    mq, mp = np.array([0.3, -1.0, 2.0]), np.array([0.0, 0.5, 1.5])
    sq, sp = _random_spd(3, 1), _random_spd(3, 2)
    draws = mvn(mq, sq).rvs(400_000, random_state=3)
    mc = np.mean(mvn(mq, sq).logpdf(draws) - mvn(mp, sp).logpdf(draws))
    assert gaussian_kl(mq, sq, mp, sp) == pytest.approx(mc, abs=0.02)
    assert gaussian_kl(mp, sp, mp, sp) == pytest.approx(0.0, abs=1e-12)
    # one dimension by hand: ln(s_p / s_q) + (s_q^2 + (m_q - m_p)^2) / (2 s_p^2) - 1/2
    expected = np.log(2.0 / 0.5) + (0.25 + 1.0) / 8 - 0.5
    assert gaussian_kl([1.0], [[0.25]], [0.0], [[4.0]]) == pytest.approx(expected, rel=1e-12)


def test_mean_field_matches_a_direct_minimisation_of_the_kl():
    """Coordinate ascent against scipy.optimize over all diagonal Gaussians."""
    from scipy.optimize import minimize

    from lib.em import gaussian_kl, mean_field_gaussian

    d, mean, cov = 4, np.array([1.0, -2.0, 0.5, 0.0]), _random_spd(4, 5)
    mf = mean_field_gaussian(mean, cov, start=np.zeros(d), n_sweeps=300)

    def kl(theta):
        return gaussian_kl(theta[:d], np.diag(np.exp(theta[d:])), mean, cov)

    best = minimize(kl, np.zeros(2 * d), method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose(mf.means[-1], best.x[:d], atol=1e-4)
    np.testing.assert_allclose(mf.variances, np.exp(best.x[d:]), rtol=1e-4)
    assert -mf.elbo[-1] == pytest.approx(best.fun, abs=1e-8)
    # the optimum: the true means, the conditional variances 1 / Lambda_ii, and
    # KL = (ln det Sigma + sum ln Lambda_ii) / 2
    precision = np.linalg.inv(cov)
    np.testing.assert_allclose(mf.means[-1], mean, atol=1e-8)
    np.testing.assert_allclose(mf.variances, 1 / np.diag(precision), rtol=1e-12)
    assert -mf.elbo[-1] == pytest.approx(0.5 * (np.linalg.slogdet(cov)[1]
                                                + np.log(np.diag(precision)).sum()), rel=1e-9)
    assert np.all(mf.variances < np.diag(cov))                  # too small: overconfident
    assert np.all(np.diff(mf.elbo) >= -1e-12) and mf.means.shape == (300 * d + 1, d)


def test_mean_field_on_independent_coordinates_is_exact_after_one_sweep():
    from lib.em import mean_field_gaussian

    mf = mean_field_gaussian([1.0, 2.0], np.diag([0.5, 3.0]), start=[-5.0, 7.0], n_sweeps=1)
    np.testing.assert_allclose(mf.means[-1], [1.0, 2.0])
    np.testing.assert_allclose(mf.variances, [0.5, 3.0])
    assert mf.elbo[-1] == pytest.approx(0.0, abs=1e-12)
    assert mf.elbo[1] > mf.elbo[0]                              # after updating z_1 only
    np.testing.assert_allclose(mf.means[1], [1.0, 7.0])


@pytest.mark.parametrize("call, error, message", [
    (lambda f, k: f([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], [0.0, 0.0]), ValueError,
     "covariance must be symmetric positive definite"),
    (lambda f, k: f([0.0, 0.0], [[1.0]], [0.0, 0.0]), ValueError, "covariance must have shape (2, 2)"),
    (lambda f, k: f([0.0, 0.0], np.eye(2), [0.0]), ValueError, "start must have 2 entries"),
    (lambda f, k: f([0.0, 0.0], np.eye(2), [0.0, 0.0], n_sweeps=-1), ValueError, "n_sweeps"),
    (lambda f, k: f([0.0, np.nan], np.eye(2), [0.0, 0.0]), ValueError, "mean must not contain NaN"),
    (lambda f, k: k([0.0], [[1.0]], [0.0, 0.0], np.eye(2)), ValueError, "q has 1 dimensions but p has 2"),
    (lambda f, k: k([0.0], [[-1.0]], [0.0], [[1.0]]), ValueError, "symmetric positive definite"),
])
def test_variational_bad_input(call, error, message):
    from lib.em import gaussian_kl, mean_field_gaussian

    with pytest.raises(error) as err:
        call(mean_field_gaussian, gaussian_kl)
    assert message in str(err.value)


def test_plot_mean_field_draws():
    from lib.em import mean_field_gaussian
    from lib.plots.em import plot_mean_field

    cov = np.array([[1.0, 0.8], [0.8, 1.0]])
    mf = mean_field_gaussian([0.0, 0.0], cov, start=[1.0, -1.0], n_sweeps=3)
    fig = plot_mean_field([0.0, 0.0], cov, mf)
    assert len(fig.axes) == 2
    np.testing.assert_allclose(fig.axes[1].lines[0].get_ydata(), mf.elbo)


def test_em_known_variance_refuses_a_sigma_whose_square_underflows():
    from lib.em.known_variance import em_known_variance
    with pytest.raises(ValueError, match="sigma must be .*its square"):
        em_known_variance([0.0, 1.0], [0.0, 1.0], sigma=1e-200, n_iter=1)
    # a small sigma whose square is still a normal float: hard, correct assignments
    trace = em_known_variance([0.0, 1.0], [0.0, 1.0], sigma=1e-150, n_iter=1)
    np.testing.assert_array_equal(trace.resp[-1], [[1.0, 0.0], [0.0, 1.0]])
    np.testing.assert_array_equal(trace.means[-1], [0.0, 1.0])


def test_em_known_variance_refuses_data_whose_squared_distances_overflow():
    from lib.em.known_variance import em_known_variance
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="x has values so large .* overflow"):
            em_known_variance([1e200, -1e200], [0.0, 1.0], sigma=1.0, n_iter=1)


def test_factorial_em_exact_and_mean_field():
    from scipy.stats import norm

    from lib.em import factorial_em
    rng = np.random.default_rng(5)
    z = (rng.random((400, 2)) < [0.3, 0.6]).astype(float)
    x = z @ np.array([1.5, -2.0]) + 0.7 * rng.standard_normal(400)
    exact = factorial_em(x, [1.0, -1.0], [0.5, 0.5], 0.7, n_iter=30, mean_field=False)
    vem = factorial_em(x, [1.0, -1.0], [0.5, 0.5], 0.7, n_iter=30, mean_field=True)
    # the log likelihood, written out over the four configurations of z
    w, p = exact.weights[-1], exact.priors[-1]
    lik = sum(np.prod(np.where([a, b], p, 1 - p)) * norm.pdf(x, w @ [a, b], 0.7)
              for a in (0, 1) for b in (0, 1))
    assert exact.log_lik[-1] == pytest.approx(np.log(lik).sum(), rel=1e-10)
    assert np.all(np.diff(exact.log_lik) > -1e-8) and np.allclose(exact.elbo, exact.log_lik[:-1])
    assert np.all(np.diff(vem.elbo) > -1e-8) and np.all(vem.elbo <= vem.log_lik[:-1] + 1e-8)
    assert np.allclose(exact.weights[-1], [1.5, -2.0], atol=0.3)
    with pytest.raises(ValueError, match="priors"):
        factorial_em(x, [1.0, -1.0], [0.0, 0.5], 0.7)
    with pytest.raises(ValueError, match="two numbers"):
        factorial_em(x, [1.0, -1.0, 0.0], [0.5, 0.5], 0.7)
