"""Tests of lib/gaussian.py: Iris2 means and covariances of the source notes, the
discriminant functions, Bayes risk decisions, bad input, and oracles (scikit-learn's
QuadraticDiscriminantAnalysis, scipy's multivariate normal)."""
import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.datasets import load_iris
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis

from lib.datasets import load_iris_uci
from lib.gaussian import (
    GaussianClassifier,
    bayes_risk_decision,
    conditional_risk,
    zero_one_loss,
)
from lib.plots.gaussian import plot_risk_boundary

# Seed 001, "Example Parameter Estimation: Iris2" (denominator |D| - 1).
SEED_MEANS = [[1.464, 0.244], [4.260, 1.326], [5.552, 2.026]]
SEED_COVS = [
    [[0.0301, 0.0057], [0.0057, 0.0115]],
    [[0.2208, 0.0731], [0.0731, 0.0391]],
    [[0.3046, 0.0488], [0.0488, 0.0754]],
]


@pytest.fixture(scope="module")
def iris2():
    X, y, _ = load_iris_uci()
    return X, y


def test_iris2_means_and_covariances_match_the_seed(iris2):
    X, y = iris2
    clf = GaussianClassifier().fit(X, y)
    assert clf.classes_.tolist() == ["Iris-setosa", "Iris-versicolor", "Iris-virginica"]
    np.testing.assert_allclose(clf.means_, SEED_MEANS, atol=5e-4)
    np.testing.assert_allclose(clf.covariances_, SEED_COVS, atol=5e-5)


def test_uci_copy_is_sklearn_copy_with_rows_35_and_38_changed(iris2):
    X4, y, _ = load_iris_uci(columns=["sepal_length", "sepal_width", "petal_length", "petal_width"])
    ref = load_iris().data
    differ = np.flatnonzero(np.any(X4 != ref, axis=1))
    assert (differ + 1).tolist() == [35, 38]
    np.testing.assert_array_equal(X4[34], [4.9, 3.1, 1.5, 0.1])
    np.testing.assert_array_equal(X4[37], [4.9, 3.1, 1.5, 0.1])
    np.testing.assert_array_equal(ref[34], [4.9, 3.1, 1.5, 0.2])
    np.testing.assert_array_equal(ref[37], [4.9, 3.6, 1.4, 0.1])


def test_sklearn_copy_does_not_reproduce_the_setosa_numbers():
    d = load_iris()
    clf = GaussianClassifier().fit(d.data[:, 2:], d.target)
    assert not np.allclose(clf.means_[0], SEED_MEANS[0], atol=5e-4)
    np.testing.assert_allclose(clf.means_[0], [1.462, 0.246], atol=5e-4)  # quoted in Chapter 4
    np.testing.assert_allclose(clf.means_[1:], SEED_MEANS[1:], atol=5e-4)


def test_ml_covariance_is_scaled_sample_covariance(iris2):
    X, y = iris2
    a = GaussianClassifier(ddof=1).fit(X, y)
    b = GaussianClassifier(ddof=0).fit(X, y)
    np.testing.assert_allclose(b.covariances_, a.covariances_ * 49 / 50)


def test_discriminant_is_log_joint_without_constant(iris2):
    X, y = iris2
    clf = GaussianClassifier().fit(X, y)
    d = clf.discriminant(X[:5])
    for c in range(3):
        logpdf = multivariate_normal(clf.means_[c], clf.covariances_[c]).logpdf(X[:5])
        np.testing.assert_allclose(d[:, c], logpdf + np.log(clf.priors_[c]) + np.log(2 * np.pi), rtol=1e-10)


@pytest.mark.parametrize("seed", [0, 1])
def test_posteriors_equal_sklearn_qda(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(240, 3))
    y = rng.choice(["u", "v", "w"], 240, p=[0.5, 0.3, 0.2])
    X[y == "v"] = X[y == "v"] @ np.array([[1, 0.5, 0], [0, 1, 0], [0, 0, 2]]) + 1
    Xt = rng.normal(size=(60, 3))
    # scikit-learn 1.9's QDA uses the maximum-likelihood covariance (ddof=0).
    ref = QuadraticDiscriminantAnalysis(store_covariance=True).fit(X, y)
    ours = GaussianClassifier(ddof=0).fit(X, y)
    np.testing.assert_allclose(ours.covariances_, np.array(ref.covariance_), atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), atol=1e-10)
    assert (ours.predict(Xt) == ref.predict(Xt)).all()


def test_sample_covariance_posteriors_equal_scipy():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(90, 2))
    y = np.repeat([0, 1, 2], 30)
    X[y == 1] *= 2
    clf = GaussianClassifier().fit(X, y)
    logp = np.column_stack([
        multivariate_normal(X[y == c].mean(0), np.cov(X[y == c].T)).logpdf(X) + np.log(1 / 3)
        for c in range(3)])
    post = np.exp(logp - logp.max(1, keepdims=True))
    post /= post.sum(1, keepdims=True)
    np.testing.assert_allclose(clf.predict_proba(X), post, atol=1e-12)


def test_one_example_class_and_singular_covariance_errors():
    X = np.array([[0.0, 0.0], [1.0, 0.5], [0.3, 1.0], [5.0, 5.0]])
    with pytest.raises(ValueError, match="class 'b' has 1 example"):
        GaussianClassifier().fit(X, ["a", "a", "a", "b"])
    with pytest.raises(ValueError, match="class 'b'.*singular"):
        GaussianClassifier(ddof=0).fit(X, ["a", "a", "a", "b"])
    clf = GaussianClassifier(ddof=0, reg=0.1).fit(X, ["a", "a", "a", "b"])
    assert clf.predict([[5.0, 5.0]]).tolist() == ["b"]
    Xc = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 1.0], [0.0, 0.0], [1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="class 0.*singular"):
        GaussianClassifier().fit(Xc, [0, 0, 0, 1, 1, 1])


@pytest.mark.parametrize("kwargs, X, y, match", [
    ({}, [[0.0], [1.0]], [0], "one label per row of X"),
    ({}, np.empty((0, 2)), [], "empty"),
    ({}, [[0.0], [np.nan]], [0, 0], "NaN"),
    ({"ddof": 2}, [[0.0], [1.0]], [0, 0], "ddof"),
    ({"priors": [0.9, 0.9]}, [[0.0], [1.0], [3.0], [4.0]], [0, 0, 1, 1], "priors"),
])
def test_bad_input(kwargs, X, y, match):
    with pytest.raises(ValueError, match=match):
        GaussianClassifier(**kwargs).fit(X, y)


def test_not_fitted_and_wrong_width():
    with pytest.raises(ValueError, match="not fitted"):
        GaussianClassifier().predict([[0.0, 1.0]])
    clf = GaussianClassifier().fit([[0.0, 0.0], [1.0, 2.0], [2.0, 1.0]], [0, 0, 0])
    with pytest.raises(ValueError, match="X has 1 features, but GaussianClassifier is expecting 2"):
        clf.predict([[0.0]])


# ---------------------------------------------------------------------------- risk
def test_zero_one_loss_is_map(iris2):
    X, y = iris2
    clf = GaussianClassifier().fit(X, y)
    post = clf.predict_proba(X)
    assert (bayes_risk_decision(post, zero_one_loss(3)) == post.argmax(1)).all()


def test_two_class_rule_and_expected_losses():
    post = np.array([[0.9, 0.1], [0.6, 0.4], [0.2, 0.8]])
    L = np.array([[0.0, 10.0], [1.0, 0.0]])  # L12 = 10, L21 = 1
    np.testing.assert_allclose(conditional_risk(post, L), [[1.0, 0.9], [4.0, 0.6], [8.0, 0.2]])
    # choose class 1 iff L21 P(1|x) > L12 P(2|x)
    expected = np.where(1.0 * post[:, 0] > 10.0 * post[:, 1], 0, 1)
    assert bayes_risk_decision(post, L).tolist() == expected.tolist() == [1, 1, 1]
    assert bayes_risk_decision([0.95, 0.05], L).tolist() == [0]


def test_risk_bad_input():
    with pytest.raises(ValueError, match="posteriors must have each row sum to 1"):
        bayes_risk_decision([[0.5, 0.6]], zero_one_loss(2))
    with pytest.raises(ValueError, match=r"loss \(decisions x classes\) must have shape \(any, 2\), got \(3, 3\)"):
        bayes_risk_decision([[0.5, 0.5]], zero_one_loss(3))
    with pytest.raises(ValueError, match=r"posteriors must hold probabilities in \[0, 1\]"):
        bayes_risk_decision([[1.5, -0.5]], zero_one_loss(2))
    with pytest.raises(ValueError, match="n_classes"):
        zero_one_loss(0)


def test_risk_figure_callback(iris2):
    X, y = iris2
    keep = y != "Iris-setosa"
    clf = GaussianClassifier().fit(X[keep], y[keep])
    fig = plot_risk_boundary(5.0, clf, X[keep], y[keep])
    assert "L12/L21 = 5" in fig.axes[0].get_title()
    with pytest.raises(ValueError, match="positive"):
        plot_risk_boundary(0.0, clf, X[keep], y[keep])


def test_iris_loader_columns():
    X, y, names = load_iris_uci(columns=["sepal_width"])
    assert X.shape == (150, 1) and names == ["sepal_width"] and len(set(y)) == 3
    with pytest.raises(ValueError, match="unknown iris columns"):
        load_iris_uci(columns=["petal_area"])


# ------------------------------------------------------------- bad input, every kind
_X = np.random.default_rng(7).normal(size=(30, 2))
_Y = np.arange(30) % 2


@pytest.mark.parametrize("kwargs, X, y, error, match", [
    ({"reg": np.nan}, _X, _Y, ValueError, "reg must be a real number >= 0, got nan"),
    ({"reg": "0.1"}, _X, _Y, TypeError, "reg must be a real number >= 0, got '0.1'"),
    ({"ddof": "1"}, _X, _Y, TypeError, "ddof must be an integer"),
    ({"priors": [np.nan, 1.0]}, _X, _Y, ValueError, "priors must not contain NaN"),
    ({"priors": [0.5, 0.5, 0.0]}, _X, _Y, ValueError, "priors must have 2 entries, got 3"),
    ({}, np.zeros((30, 0)), _Y, ValueError, r"0 feature\(s\)"),
    ({}, _X, [None] * 30, ValueError, "y must not contain missing labels, got None"),
    ({}, _X, np.linspace(0, 1, 30), ValueError, "continuous"),
    ({}, np.where(_X > 1, np.inf, _X), _Y, ValueError, "X must be finite"),
    ({}, _X.astype(str), _Y, TypeError, "X must hold real numbers"),
    ({}, _X * 1e200, _Y, ValueError, "covariances overflow"),
])
def test_bad_fit_input(kwargs, X, y, error, match):
    with pytest.raises(error, match=match):
        GaussianClassifier(**kwargs).fit(X, y)


def test_far_points_are_refused_by_predict_and_predict_proba_alike():
    clf = GaussianClassifier().fit(_X, _Y)
    for method in ("predict", "predict_proba", "predict_log_proba"):
        with pytest.raises(ValueError, match=r"every class has density zero at example\(s\) \[1\]"):
            getattr(clf, method)([[0.0, 0.0], [1e200, 1e200]])
    P = clf.predict_proba([[30.0, -30.0]])       # far but finite: still a distribution
    np.testing.assert_allclose(P.sum(), 1.0)


def test_zero_prior_class_is_never_chosen():
    clf = GaussianClassifier(priors=[1.0, 0.0]).fit(_X, _Y)
    assert (clf.predict(_X) == 0).all()
    np.testing.assert_allclose(clf.predict_proba(_X)[:, 1], 0.0)


@pytest.mark.parametrize("call, error, match", [
    (lambda: bayes_risk_decision([[np.nan, 1.0]], zero_one_loss(2)), ValueError, "posteriors must not contain NaN"),
    (lambda: bayes_risk_decision([[0.5, 0.5]], [[0, np.inf], [1, 0]]), ValueError, "loss must be finite"),
    (lambda: bayes_risk_decision([[0.5, 0.5]], "01"), TypeError, "loss must hold real numbers"),
    (lambda: zero_one_loss("2"), TypeError, "n_classes must be an integer >= 1, got '2'"),
    (lambda: zero_one_loss(2.5), TypeError, "n_classes must be an integer"),
])
def test_risk_inputs(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_figures_of_the_gaussian_sections_draw(iris2):
    from lib.plots.gaussian import plot_class_densities, plot_decision_regions

    X, y = iris2
    clf = GaussianClassifier().fit(X, y)
    assert plot_class_densities(clf, X, y).axes[0].collections
    assert len(plot_decision_regions([clf, clf], X, y, ["a", "b"]).axes) == 2
