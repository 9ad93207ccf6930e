"""Tests of lib.em.loop.run_em, the one EM loop, and of the four models that run it: the
Gaussian mixture and the candy bags (Chapter 7), Baum-Welch (Chapter 8) and EM for a
Bayesian network (Chapters 6 and 7). Each records, under the same name, the log
likelihood after every E step, the last one that of the model it returns (computed here
independently of the E step), and each stops by the same rule."""
import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from lib.bn import BayesNet, sample
from lib.datasets import load_network
from lib.em import GaussianMixture, MixtureOfNaiveBayes, candy_counts, candy_parameters, run_em
from lib.em.mixture import sample_mixture
from lib.errors import ConvergenceWarning
from lib.hmm import HMM, casino_model
from lib.hmm.reference import forward


# ---------------------------------------------------------------- the four models
def gaussian_mixture(n_iter, tol):
    X, _ = sample_mixture(300, [0.5, 0.5], [[0, 0], [2, 1]], [np.eye(2), np.eye(2)],
                          rng=np.random.default_rng(0))
    model = GaussianMixture(2, n_iter=n_iter, tol=tol, reg=0, init="random", random_state=1).fit(X)
    truth = np.log(sum(w * multivariate_normal(m, c).pdf(X)
                       for w, m, c in zip(model.weights_, model.means_, model.covariances_))).sum()
    return model, len(X), truth


def candy(n_iter, tol):
    X, counts = candy_counts()
    model = MixtureOfNaiveBayes(2, n_iter=n_iter, tol=tol,
                                init=candy_parameters(0.6, 0.6, 0.6, 0.6, 0.4, 0.4, 0.4))
    model.fit(X, sample_weight=counts)
    per_bag = model.weights_[None] * np.prod(
        [model.probs_[f][:, X[:, f]].T for f in range(X.shape[1])], axis=0)
    return model, counts.sum(), counts @ np.log(per_bag.sum(axis=1))


def baum_welch(n_iter, tol):
    rolls = [casino_model().sample(n, np.random.default_rng(n))[1] for n in (1500, 500)]
    model = HMM([0.5, 0.5], [[0.8, 0.2], [0.2, 0.8]],
                [[0.17, 0.17, 0.17, 0.17, 0.16, 0.16], [0.15, 0.15, 0.15, 0.15, 0.15, 0.25]],
                n_iter=n_iter, tol=tol).fit(rolls)
    truth = sum(forward(model.start, model.transition, model.emission.T[obs])[1] for obs in rolls)
    return model, 2000, truth


def network_em(n_iter, tol):
    asia = load_network("asia")
    data = {k: v.astype(object) for k, v in sample(asia, 400, rng=np.random.default_rng(0)).items()}
    data["lung"][::2] = None
    data["smoke"][1::3] = None
    net = BayesNet([(v, asia.states[v], asia.parents[v]) for v in asia.names]).fit_em(
        data, n_iter=n_iter, tol=tol)
    joint = net.joint_table()                      # brute force: sum the joint over the gaps
    truth = 0.0
    for r in range(400):
        index = tuple(slice(None) if data[v][r] is None else net.states[v].index(data[v][r])
                      for v in net.names)
        truth += np.log(joint[index].sum())
    return net, 400, truth


MODELS = {"gaussian mixture": (gaussian_mixture, 1e-4), "candy": (candy, 1e-6),
          "Baum-Welch": (baum_welch, 1e-5), "network EM": (network_em, 1e-5)}


def assert_stopped_by_the_rule(model, n_obs, n_iter, tol):
    """The rule of lib.em.loop: the gain g_t = (L_t - L_{t-1}) / n_obs of the E step that
    first falls below tol is followed by one more M step (whose E step is recorded
    last); otherwise EM stops after n_iter M steps."""
    lls = np.asarray(model.log_likelihoods_)
    k = model.n_iter_
    assert k == len(lls) - 1 <= n_iter
    gains = np.diff(lls) / n_obs                   # gains[t - 1] is g_t
    if model.converged_:
        assert gains[k - 2] < tol, "it went on after a gain below tol"
        assert np.all(gains[:k - 2] >= tol), "it missed an earlier gain below tol"
    else:
        assert k == n_iter and np.all(gains[:k - 1] >= tol)


@pytest.mark.parametrize("name", MODELS)
def test_the_last_entry_is_the_returned_models_log_likelihood(name):
    fit, tol = MODELS[name]
    model, _, truth = fit(300, tol)
    assert model.converged_
    assert model.log_likelihoods_[-1] == pytest.approx(truth, rel=1e-10)
    assert np.all(np.diff(model.log_likelihoods_) >= -1e-9 * abs(truth))


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("n_iter", [3, 300])
def test_every_model_stops_by_the_same_rule(name, n_iter):
    fit, tol = MODELS[name]
    model, n_obs, _ = fit(n_iter, tol)
    assert model.converged_ == (n_iter == 300)     # 3 iterations are too few for all four
    assert_stopped_by_the_rule(model, n_obs, n_iter, tol)
    exact = fit(4, 0)[0]                           # tol=0: every iteration asked for
    assert exact.n_iter_ == 4 and not exact.converged_ and len(exact.log_likelihoods_) == 5


# ---------------------------------------------------------------- the loop itself
def mean_of_gaussian(x):
    def e_step(mu):
        return float(np.sum(-0.5 * (x - mu) ** 2 - 0.5 * np.log(2 * np.pi))), x
    return e_step


def test_run_em_stops_one_m_step_after_the_first_small_gain():
    x = np.array([1.0, 2.0, 6.0])
    halfway = run_em(mean_of_gaussian(x), lambda mu, xs: (mu + xs.mean()) / 2, 0.0, len(x),
                     n_iter=100, tol=1e-3)
    # mu_t = 3 (1 - 2^-t), so the gain per point is g_t = 13.5 / 4^t: 0.0033 at t = 6,
    # 0.00082 at t = 7, the first below tol; one more M step gives mu_8
    mu = 3 * (1 - 0.5 ** np.arange(9))
    lls = [np.sum(-0.5 * (x - m) ** 2 - 0.5 * np.log(2 * np.pi)) for m in mu]
    np.testing.assert_allclose(np.diff(lls) / 3, 13.5 / 4.0 ** np.arange(1, 9), rtol=1e-9)
    assert halfway.n_iter == 8 and halfway.converged and halfway.params == pytest.approx(mu[8])
    np.testing.assert_allclose(halfway.log_likelihoods, lls, rtol=1e-12)


def test_run_em_warns_when_the_log_likelihood_falls():
    x = np.array([1.0, 2.0, 6.0])
    away = run_em(mean_of_gaussian(x), lambda mu, xs: mu - 1.0, 3.0, len(x), n_iter=2, tol=0,
                  monotone=False)
    assert away.n_iter == 2 and np.all(np.diff(away.log_likelihoods) < 0)
    with pytest.warns(ConvergenceWarning, match="lowered the log likelihood at iteration 1"):
        run_em(mean_of_gaussian(x), lambda mu, xs: mu - 1.0, 3.0, len(x), n_iter=1, tol=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")             # a fall of rounding size is no warning
        run_em(lambda p: (p, None), lambda p, _: p - 1e-12, 0.0, 1.0, n_iter=3, tol=0)


@pytest.mark.parametrize("options, error, message", [
    (dict(n_iter=-1), ValueError, "n_iter"), (dict(n_iter=2.5), TypeError, "n_iter"),
    (dict(tol=-1e-3), ValueError, "tol"), (dict(tol=np.nan), ValueError, "tol"),
    (dict(n_obs=0), ValueError, "n_obs"),
])
def test_run_em_refuses_bad_options(options, error, message):
    x = np.array([1.0, 2.0])
    arguments = dict(n_obs=2, n_iter=5, tol=1e-3) | options
    with pytest.raises(error, match=message):
        run_em(mean_of_gaussian(x), lambda mu, xs: xs.mean(), 0.0, **arguments)
