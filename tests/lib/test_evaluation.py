"""Tests of lib/evaluation.py: leave-one-out predictions, McNemar's exact test and the
calibration numbers, against scikit-learn (cross_val_predict with LeaveOneOut,
calibration_curve) and hand-computed values."""
from math import comb

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.model_selection import LeaveOneOut, cross_val_predict, cross_val_score
from sklearn.naive_bayes import GaussianNB as SkGaussianNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

from lib.datasets import load_iris_uci, load_playtennis
from lib.evaluation import expected_calibration_error, leave_one_out_predict, mcnemar_exact, reliability_bins
from lib.gaussian import GaussianClassifier
from lib.naive_bayes import CategoricalNB, GaussianNB, MultinomialNB

ALL_FOUR = ("sepal_length", "sepal_width", "petal_length", "petal_width")


# ----------------------------------------------------------------------- leave-one-out
@pytest.mark.parametrize("columns", [("petal_length", "petal_width"), ALL_FOUR, ("sepal_width",)])
def test_loo_gaussian_nb_equals_sklearn(columns):
    X, y, _ = load_iris_uci(columns)
    ours = leave_one_out_predict(GaussianNB(), X, y)
    theirs = cross_val_predict(SkGaussianNB(), X, y, cv=LeaveOneOut())
    assert ours.tolist() == theirs.tolist()
    score = cross_val_score(SkGaussianNB(), X, y, cv=LeaveOneOut()).mean()
    assert np.mean(ours == y) == pytest.approx(score, abs=1e-15)


@pytest.mark.parametrize("columns", [("petal_length", "petal_width"), ALL_FOUR])
def test_loo_full_covariance_equals_sklearn_qda(columns):
    # scikit-learn 1.9's QDA uses maximum-likelihood covariances (ddof=0)
    X, y, _ = load_iris_uci(columns)
    ours = leave_one_out_predict(GaussianClassifier(ddof=0), X, y)
    theirs = cross_val_predict(QuadraticDiscriminantAnalysis(), X, y, cv=LeaveOneOut())
    assert ours.tolist() == theirs.tolist()


def test_loo_chapter_numbers_iris2():
    X, y, _ = load_iris_uci()
    nb = leave_one_out_predict(GaussianNB(), X, y) == y
    full = leave_one_out_predict(GaussianClassifier(), X, y) == y
    assert (nb.sum(), full.sum()) == (144, 145)
    test = mcnemar_exact(nb, full)
    assert (test.only_a, test.only_b, test.p_value) == (0, 1, 1.0)


def test_loo_multinomial_counts_equals_sklearn():
    rng = np.random.default_rng(3)
    X = rng.poisson(rng.uniform(0.2, 3, size=(3, 12))[np.repeat([0, 1, 2], 15)])
    y = np.repeat(["a", "b", "c"], 15)
    ours = leave_one_out_predict(MultinomialNB(alpha=0.5), X, y)
    theirs = cross_val_predict(SkMultinomialNB(alpha=0.5), X, y, cv=LeaveOneOut())
    assert ours.tolist() == theirs.tolist()


def test_loo_nominal_table_and_estimator_left_unfitted():
    X, y, _ = load_playtennis("classic")
    model = CategoricalNB(alpha=1)
    ours = leave_one_out_predict(model, X, y)
    by_hand = [CategoricalNB(alpha=1).fit(np.delete(X, i, axis=0), np.delete(y, i))
               .predict(X[i:i + 1])[0] for i in range(len(y))]
    assert ours.tolist() == by_hand
    assert not hasattr(model, "classes_")  # only copies are fitted


def test_loo_differs_from_resubstitution():
    # a point far inside the other class: right when it is in the training set of a
    # 1-nearest-neighbour-like model, wrong when left out; here Gaussian NB on two
    # clusters with one mislabelled point
    X = np.array([[0.0], [0.1], [0.2], [0.3], [5.0], [5.1], [5.2], [0.15]])
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    loo = leave_one_out_predict(GaussianNB(), X, y)
    assert loo[-1] == 0 and loo[:7].tolist() == y[:7].tolist()


def test_loo_bad_input():
    X, y, _ = load_iris_uci()
    with pytest.raises(TypeError, match="estimator must have fit and predict"):
        leave_one_out_predict(object(), X, y)
    with pytest.raises(ValueError, match="X must be a 2-D table"):
        leave_one_out_predict(GaussianNB(), X[:, 0], y)
    with pytest.raises(ValueError, match="one label per row"):
        leave_one_out_predict(GaussianNB(), X, y[:-1])
    with pytest.raises(ValueError, match="at least 2 examples"):
        leave_one_out_predict(GaussianNB(), X[:1], y[:1])


# ----------------------------------------------------------------------- McNemar
@pytest.mark.parametrize("only_a, only_b, both, neither", [
    (0, 1, 144, 5), (5, 0, 3, 0), (2, 5, 141, 2), (10, 3, 0, 0), (7, 7, 1, 1), (30, 12, 50, 8)])
def test_mcnemar_exact_binomial_p_value(only_a, only_b, both, neither):
    a = np.r_[np.ones(only_a), np.zeros(only_b), np.ones(both), np.zeros(neither)].astype(bool)
    b = np.r_[np.zeros(only_a), np.ones(only_b), np.ones(both), np.zeros(neither)].astype(bool)
    result = mcnemar_exact(a, b)
    n, k = only_a + only_b, min(only_a, only_b)
    # two-sided exact p-value of a fair-coin binomial: twice the smaller tail, at most 1
    expected = min(1.0, 2 * sum(comb(n, i) for i in range(k + 1)) / 2 ** n)
    assert (result.only_a, result.only_b) == (only_a, only_b)
    assert result.p_value == pytest.approx(expected, rel=1e-12)
    assert mcnemar_exact(b, a).p_value == pytest.approx(result.p_value, rel=1e-12)


def test_mcnemar_values_and_no_disagreement():
    assert mcnemar_exact([1, 1, 1, 1, 1, 0], [0] * 6).p_value == 0.0625
    assert mcnemar_exact([1, 0, 1], [1, 0, 1]).p_value == 1.0
    assert mcnemar_exact([True] * 20 + [False], [False] * 20 + [True]).p_value == pytest.approx(44 / 2 ** 21)


def test_mcnemar_bad_input():
    with pytest.raises(ValueError, match="correct_a and correct_b must have the same length"):
        mcnemar_exact([1, 0, 1], [1, 0])
    with pytest.raises(ValueError, match="correct_b must hold 0/1 labels"):
        mcnemar_exact([1, 0], [1, 0.5])
    with pytest.raises(ValueError, match="correct_a"):
        mcnemar_exact([1, np.nan], [1, 0])
    with pytest.raises(ValueError, match="correct_a"):
        mcnemar_exact([[1, 0]], [[1, 0]])


# ----------------------------------------------------------------------- calibration
def _random_case(seed, n=500):
    rng = np.random.default_rng(seed)
    confidence = rng.beta(5, 1, size=n)
    confidence[:20] = np.linspace(0, 1, 11).repeat(2)[:20]  # values on the bin edges
    confidence[20:25] = 1.0
    correct = rng.random(n) < confidence ** 2  # over-confident
    return confidence, correct


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n_bins", [1, 3, 5, 10, 15])
def test_reliability_bins_equal_sklearn_calibration_curve(seed, n_bins):
    confidence, correct = _random_case(seed)
    bins = reliability_bins(confidence, correct, n_bins)
    prob_true, prob_pred = calibration_curve(correct, confidence, n_bins=n_bins, strategy="uniform")
    full = bins.count > 0
    np.testing.assert_allclose(bins.accuracy[full], prob_true, rtol=1e-12)
    np.testing.assert_allclose(bins.confidence[full], prob_pred, rtol=1e-12)
    assert bins.count.sum() == len(confidence) and np.isnan(bins.accuracy[~full]).all()
    np.testing.assert_allclose(bins.edges, np.linspace(0, 1, n_bins + 1))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ece_by_explicit_masks(seed):
    confidence, correct = _random_case(seed)
    edges = np.linspace(0, 1, 11)
    total = 0.0
    for b in range(10):
        low = confidence >= edges[b] if b == 0 else confidence > edges[b]
        inside = low & (confidence <= edges[b + 1])
        if inside.any():
            total += inside.mean() * abs(correct[inside].mean() - confidence[inside].mean())
    assert expected_calibration_error(confidence, correct) == pytest.approx(total, rel=1e-12)


def test_ece_extremes():
    # claims certainty, right 7 times out of 10: ECE 0.3
    assert expected_calibration_error(np.ones(10), [1] * 7 + [0] * 3) == pytest.approx(0.3)
    # right as often as claimed in every bin: 0
    conf = np.r_[np.full(4, 0.75), np.full(10, 0.95) - 0.05]
    assert expected_calibration_error(conf, [1, 1, 1, 0] + [1] * 9 + [0], n_bins=10) == pytest.approx(0.0, abs=1e-12)
    # drawn from the claimed probabilities: close to 0 for a large sample
    rng = np.random.default_rng(0)
    p = rng.uniform(0.3, 1, 200_000)
    assert expected_calibration_error(p, rng.random(p.size) < p) < 0.005
    # the edge 0.5 belongs to the lower bin, as in scikit-learn
    assert reliability_bins([0.5, 0.5000001], [1, 0], n_bins=2).count.tolist() == [1, 1]


def test_calibration_bad_input():
    with pytest.raises(ValueError, match=r"confidence must hold probabilities in \[0, 1\]"):
        reliability_bins([0.5, 1.2], [1, 0])
    with pytest.raises(ValueError, match="confidence"):
        reliability_bins([0.5, np.nan], [1, 0])
    with pytest.raises(ValueError, match="confidence"):
        expected_calibration_error([[0.5, 0.6]], [[1, 0]])
    with pytest.raises(ValueError, match="correct must hold 0/1 labels"):
        reliability_bins([0.5, 0.7], [1, 2])
    with pytest.raises(ValueError, match="confidence and correct must have the same length"):
        reliability_bins([0.5, 0.7, 0.9], [1, 0])
    with pytest.raises(ValueError, match="n_bins"):
        reliability_bins([0.5], [1], n_bins=0)
    with pytest.raises(TypeError, match="n_bins"):
        expected_calibration_error([0.5], [1], n_bins=2.5)
    with pytest.raises(ValueError, match="confidence"):
        reliability_bins([], [])


def test_disagreement_posterior_is_the_beta_update():
    from scipy import integrate

    from lib.evaluation import disagreement_posterior
    a = np.array([1] * 7 + [0] * 2 + [1] * 20 + [0] * 3, bool)   # a wins 7, b wins 2
    b = np.array([0] * 7 + [1] * 2 + [1] * 20 + [0] * 3, bool)
    r = disagreement_posterior(a, b, prior=(2.0, 3.0))
    assert (r.only_a, r.only_b) == (7, 2)
    # P(theta > 1/2) by integrating the normalised likelihood x prior numerically
    kernel = lambda t: t ** (2 + 7 - 1) * (1 - t) ** (3 + 2 - 1)
    total = integrate.quad(kernel, 0, 1)[0]
    assert r.prob_a_better == pytest.approx(integrate.quad(kernel, 0.5, 1)[0] / total, rel=1e-9)
    low, high = r.interval
    assert integrate.quad(kernel, 0, low)[0] / total == pytest.approx(0.025, abs=1e-9)
    assert integrate.quad(kernel, high, 1)[0] / total == pytest.approx(0.025, abs=1e-9)
    # no disagreements: the prior itself
    same = disagreement_posterior(a, a)
    assert same.prob_a_better == pytest.approx(0.5) and same.interval == pytest.approx((0.025, 0.975))
    with pytest.raises(ValueError, match="prior"):
        disagreement_posterior(a, b, prior=(1.0, 0.0))
    with pytest.raises(ValueError, match="level"):
        disagreement_posterior(a, b, level=1.5)


def test_log_loss_and_brier_score_match_scikit_learn():
    from scipy.special import log_softmax
    from sklearn.metrics import brier_score_loss
    from sklearn.metrics import log_loss as sk_log_loss

    from lib.evaluation import brier_score, log_loss
    rng = np.random.default_rng(0)
    for k in (2, 3, 20):
        log_p = log_softmax(rng.normal(scale=3, size=(200, k)), axis=1)
        y = rng.integers(k, size=200)
        assert log_loss(log_p, y) == pytest.approx(sk_log_loss(y, np.exp(log_p), labels=range(k)), rel=1e-9)
        assert brier_score(np.exp(log_p), y) == pytest.approx(
            brier_score_loss(y, np.exp(log_p), labels=range(k), scale_by_half=False), rel=1e-9)
        uniform = np.full((200, k), 1 / k)
        assert log_loss(np.log(uniform), y) == pytest.approx(np.log(k))
        assert brier_score(uniform, y) == pytest.approx(1 - 1 / k)
    # exact where probabilities underflow: a log probability of -800 costs 800 nats
    assert log_loss(np.array([[0.0, -800.0]]), np.array([1])) == pytest.approx(800)
    with pytest.raises(TypeError, match="y"):
        log_loss(np.log([[0.5, 0.5]]), [0.5])
    with pytest.raises(ValueError, match="class indices"):
        log_loss(np.log([[0.5, 0.5]]), [2])
    with pytest.raises(ValueError, match="log probabilities"):
        log_loss([[0.5, 0.5]], [0])


def test_fit_temperature_minimises_the_log_loss():
    from scipy.special import log_softmax

    from lib.evaluation import fit_temperature, log_loss
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(500, 4))
    y = np.array([rng.choice(4, p=p) for p in np.exp(log_softmax(logits, axis=1))])
    over = log_softmax(5 * logits, axis=1)          # five times too confident
    t = fit_temperature(over, y)
    assert 3.5 < t < 7
    best = log_loss(log_softmax(over / t, axis=1), y)
    for other in (0.8 * t, 0.95 * t, 1.05 * t, 1.25 * t):
        assert log_loss(log_softmax(over / other, axis=1), y) > best
    assert fit_temperature(log_softmax(logits, axis=1), y) == pytest.approx(1.0, abs=0.3)


@pytest.mark.parametrize("seed", range(6))
def test_isotonic_regression_matches_scikit_learn(seed):
    from sklearn.isotonic import IsotonicRegression as SkIsotonic

    from lib.evaluation import IsotonicRegression
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 40, size=300).astype(float) if seed % 2 else rng.normal(size=300)
    y = (rng.random(300) < 1 / (1 + np.exp(-x / 4))).astype(float)
    ours, sk = IsotonicRegression().fit(x, y), SkIsotonic(out_of_bounds="clip").fit(x, y)
    grid = np.linspace(x.min() - 1, x.max() + 1, 400)
    np.testing.assert_allclose(ours.predict(grid), sk.predict(grid), atol=1e-12)
    assert np.all(np.diff(ours.y_) >= 0)
    with pytest.raises(ValueError, match="x"):
        IsotonicRegression().fit(x, y[:-1])
