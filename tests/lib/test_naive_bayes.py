"""Tests of lib/naive_bayes/ (and its figures, lib/plots/naive_bayes.py): the source notes' worked example, properties, bad input,
and oracle comparisons with scikit-learn's naive Bayes estimators."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import naive_bayes as sk

from lib.datasets import load_playtennis
from lib.naive_bayes import (
    BernoulliNB,
    CategoricalNB,
    GaussianNB,
    MultinomialNB,
    duplicated_attribute_posteriors,
    log_odds_weights,
    parameter_counts,
    probability_table,
)

QUERIES = [["rain", "cool", "normal", "true"], ["rain", "mild", "high", "false"]]

# The table of the source notes (seed 001, "Naive Bayes Example: Learning"):
# (attribute, value) -> (P(x | good), P(x | bad)) as printed, Laplace smoothed.
SEED_TABLE = {
    ("outlook", "sunny"): ("3/12", "4/8"),
    ("outlook", "overcast"): ("5/12", "1/8"),
    ("outlook", "rain"): ("4/12", "3/8"),
    ("temp", "hot"): ("3/12", "3/8"),
    ("temp", "mild"): ("4/12", "3/8"),
    ("temp", "cool"): ("5/12", "2/8"),
    ("humidity", "high"): ("4/11", "5/7"),
    ("humidity", "normal"): ("7/11", "2/7"),
    ("windy", "true"): ("4/11", "4/7"),
    ("windy", "false"): ("7/11", "3/7"),
}


@pytest.fixture
def seed_model():
    X, y, names = load_playtennis("seed")
    return CategoricalNB(alpha=1).fit(X, y), names


# ------------------------------------------------------------------ the worked example
def test_class_priors_are_9_over_14_and_5_over_14(seed_model):
    nb, _ = seed_model
    prior = dict(zip(nb.classes_, np.exp(nb.class_log_prior_)))
    assert prior["good"] == pytest.approx(9 / 14)
    assert prior["bad"] == pytest.approx(5 / 14)


def test_laplace_table_reproduces_the_seed_exactly(seed_model):
    nb, names = seed_model
    good, bad = list(nb.classes_).index("good"), list(nb.classes_).index("bad")
    table = {(a, v): (cells[good], cells[bad]) for a, v, cells in probability_table(nb, names)}
    assert table == SEED_TABLE
    # and the probabilities themselves, not only the printed strings
    for j, name in enumerate(names):
        for k, value in enumerate(nb.categories_[j]):
            for c, col in ((good, 0), (bad, 1)):
                num, den = map(float, SEED_TABLE[(name, value)][col].split("/"))
                assert np.exp(nb.feature_log_prob_[j][c, k]) == pytest.approx(num / den, rel=1e-12)


def test_four_unnormalised_scores(seed_model):
    nb, _ = seed_model
    scores = nb.predict_joint_proba(QUERIES)
    good, bad = list(nb.classes_).index("good"), list(nb.classes_).index("bad")
    assert scores[0, good] == pytest.approx(0.0207, abs=5e-5)
    assert scores[0, bad] == pytest.approx(0.0055, abs=5e-5)
    assert scores[1, good] == pytest.approx(0.0165, abs=5e-5)
    assert scores[1, bad] == pytest.approx(0.0154, abs=5e-5)
    # exactly the products written out in the notes
    assert scores[0, good] == pytest.approx((9 / 14) * (4 / 12) * (5 / 12) * (7 / 11) * (4 / 11))
    assert scores[1, bad] == pytest.approx((5 / 14) * (3 / 8) * (3 / 8) * (5 / 7) * (3 / 7))
    assert nb.predict(QUERIES).tolist() == ["good", "good"]


def test_classic_copy_differs_only_in_the_good_temperature_rows():
    Xs, ys, _ = load_playtennis("seed")
    Xc, yc, names = load_playtennis("classic")
    assert (ys == yc).all()
    diff = np.argwhere(Xs != Xc)
    assert diff.tolist() == [[11, 1]]  # day 12, temperature
    assert ys[11] == "good"
    classic = CategoricalNB().fit(Xc, yc)
    table = {(a, v): cells for a, v, cells in probability_table(classic, names)}
    g = list(classic.classes_).index("good")
    assert table[("temp", "mild")][g] == "5/12" and table[("temp", "cool")][g] == "4/12"
    scores = classic.predict_joint_proba(QUERIES)[:, g]
    # the two "good" scores trade places
    assert scores[0] == pytest.approx(0.0165, abs=5e-5)
    assert scores[1] == pytest.approx(0.0207, abs=5e-5)


def test_m_estimate_with_m_equal_k_is_laplace():
    X, y, _ = load_playtennis()
    lap = CategoricalNB(alpha=1).fit(X, y)
    for j in range(4):
        k = len(lap.categories_[j])
        mest = CategoricalNB(m=k).fit(X[:, [j]], y)
        np.testing.assert_allclose(mest.feature_log_prob_[0], lap.feature_log_prob_[j])


def test_m_estimate_formula_and_prior_dict():
    X, y, _ = load_playtennis()
    p = [{"sunny": 0.5, "overcast": 0.25, "rain": 0.25}, None, None, None]
    p = [p[0]] + [np.full(len(set(X[:, j])), 1 / len(set(X[:, j]))) for j in (1, 2, 3)]
    nb = CategoricalNB(m=4, p=p).fit(X, y)
    b = list(nb.classes_).index("bad")
    k = list(nb.categories_[0]).index("sunny")
    # N(sunny, bad) = 3, N(bad) = 5: (3 + 4 * 0.5) / (5 + 4)
    assert np.exp(nb.feature_log_prob_[0][b, k]) == pytest.approx(5 / 9)


def test_ml_estimate_has_zero_probabilities_and_laplace_removes_them():
    X, y, _ = load_playtennis()
    ml = CategoricalNB(alpha=0).fit(X, y)
    q = [["overcast", "cool", "high", "true"]]
    assert ml.predict_proba(q)[0, list(ml.classes_).index("bad")] == 0.0
    lap = CategoricalNB(alpha=1).fit(X, y)
    assert 0 < lap.predict_proba(q)[0, list(lap.classes_).index("bad")] < 1


def test_all_classes_zero_raises():
    X = [["a", "x"], ["b", "y"]]
    nb = CategoricalNB(alpha=0).fit(X, [0, 1])
    with pytest.raises(ValueError, match="probability zero"):
        nb.predict_proba([["a", "y"]])


def test_duplicated_attribute_pushes_the_posterior_to_an_extreme():
    X, y, _ = load_playtennis()
    post = duplicated_attribute_posteriors(X, y, ["sunny", "cool", "high", "true"], 0,
                                           [1, 2, 3, 5], "good")
    assert np.all(np.diff(post) < 0)  # sunny is evidence for "bad"; each copy counts again


def test_unknown_category_error_and_ignore():
    X, y, _ = load_playtennis()
    nb = CategoricalNB().fit(X, y)
    with pytest.raises(ValueError, match="unknown category 'snow'"):
        nb.predict([["snow", "cool", "high", "true"]])
    ign = CategoricalNB(handle_unknown="ignore").fit(X, y)
    drop = CategoricalNB().fit(X[:, 1:], y)
    np.testing.assert_allclose(ign.predict_proba([["snow", "cool", "high", "true"]]),
                               drop.predict_proba([["cool", "high", "true"]]))


def test_declared_categories_count_in_k():
    X, y, _ = load_playtennis()
    cats = [["sunny", "overcast", "rain", "snow"], ["hot", "mild", "cool"], ["high", "normal"],
            ["true", "false"]]
    nb = CategoricalNB(categories=cats).fit(X, y)
    g = list(nb.classes_).index("good")
    assert np.exp(nb.feature_log_prob_[0][g, 3]) == pytest.approx(1 / 13)  # (0 + 1) / (9 + 4)


def test_missing_values_are_skipped():
    X, y, _ = load_playtennis()
    nb = CategoricalNB().fit(X, y)
    drop = CategoricalNB().fit(X[:, [0, 2, 3]], y)
    np.testing.assert_allclose(nb.predict_proba([["rain", None, "high", "true"]]),
                               drop.predict_proba([["rain", "high", "true"]]))


def test_integer_and_string_labels_give_the_same_model():
    X, y, _ = load_playtennis()
    a = CategoricalNB().fit(X, y)
    b = CategoricalNB().fit(X, (y == "good").astype(int))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))
    assert b.predict(X).dtype.kind == "i"


def test_single_example_class():
    nb = CategoricalNB().fit([["a"], ["a"], ["b"]], ["x", "x", "y"])
    p = nb.predict_proba([["b"]])[0]
    assert p.sum() == pytest.approx(1) and p[1] > p[0]


@pytest.mark.parametrize("bad, match", [
    (dict(X=[["a"]], y=[]), "one label per row of X"),
    (dict(X=np.empty((0, 2)), y=[]), "empty"),
    (dict(X=[["a"], ["b"]], y=[[0], [1]]), "1-D"),
    (dict(X=["a", "b"], y=[0, 1]), "2-D table"),
    (dict(X=[["a"], ["b"]], y=[0.0, np.nan]), "NaN"),
])
def test_bad_input_categorical(bad, match):
    with pytest.raises(ValueError, match=match):
        CategoricalNB().fit(bad["X"], bad["y"])


def test_bad_parameters():
    with pytest.raises(ValueError, match="alpha"):
        CategoricalNB(alpha=-1).fit([["a"]], [0])
    with pytest.raises(ValueError, match="handle_unknown"):
        CategoricalNB(handle_unknown="skip").fit([["a"]], [0])
    with pytest.raises(ValueError, match="sum to 1"):
        CategoricalNB(m=2, p=[[0.9, 0.9]]).fit([["a"], ["b"]], [0, 1])
    with pytest.raises(ValueError, match="not fitted"):
        CategoricalNB().predict([["a"]])
    with pytest.raises(ValueError, match="X has 1 features, but CategoricalNB is expecting 2"):
        CategoricalNB().fit([["a", "b"]], [0]).predict([["a"]])
    with pytest.raises(ValueError, match="class_prior"):
        CategoricalNB(class_prior=[1.0]).fit([["a"], ["b"]], [0, 1])


# -------------------------------------------------------------------------- oracles
@pytest.mark.parametrize("alpha", [1.0, 0.5, 2.0])
def test_categorical_equals_sklearn(alpha):
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, k, 300) for k in (2, 3, 5, 4)])
    y = rng.integers(0, 3, 300)
    X[:5] = [1, 2, 4, 3]  # make sure every category appears
    ours = CategoricalNB(alpha=alpha).fit(X, y)
    ref = sk.CategoricalNB(alpha=alpha).fit(X, y)
    Xt = np.column_stack([rng.integers(0, k, 50) for k in (2, 3, 5, 4)])
    np.testing.assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), rtol=1e-10)
    np.testing.assert_allclose(ours.predict_joint_log_proba(Xt), ref.predict_joint_log_proba(Xt), rtol=1e-10)
    for a, b in zip(ours.feature_log_prob_, ref.feature_log_prob_):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert (ours.predict(Xt) == ref.predict(Xt)).all()


@pytest.mark.parametrize("sparse", [False, True])
def test_bernoulli_equals_sklearn(sparse):
    rng = np.random.default_rng(1)
    X = (rng.random((200, 30)) < 0.3).astype(float)
    y = rng.choice(["spam", "ham", "news"], 200)
    Xt = (rng.random((40, 30)) < 0.3).astype(float)
    if sparse:
        X, Xt = sp.csr_matrix(X), sp.csr_matrix(Xt)
    ours = BernoulliNB(alpha=0.7).fit(X, y)
    ref = sk.BernoulliNB(alpha=0.7).fit(X, y)
    np.testing.assert_allclose(ours.feature_log_prob_, ref.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_log_proba(Xt), ref.predict_log_proba(Xt), rtol=1e-9)
    assert (ours.predict(Xt) == ref.predict(Xt)).all()


def test_bernoulli_log_odds_are_linear():
    rng = np.random.default_rng(2)
    X = (rng.random((100, 6)) < 0.5).astype(float)
    y = rng.integers(0, 2, 100)
    nb = BernoulliNB().fit(X, y)
    lp = nb.predict_log_proba(X)
    log_odds = lp[:, 1] - lp[:, 0]
    A = np.column_stack([np.ones(len(X)), X])
    coef, *_ = np.linalg.lstsq(A, log_odds, rcond=None)
    np.testing.assert_allclose(A @ coef, log_odds, atol=1e-10)


@pytest.mark.parametrize("alpha", [1.0, 0.01])
def test_multinomial_equals_sklearn_dense_and_sparse(alpha):
    rng = np.random.default_rng(3)
    X = rng.poisson(0.3, (150, 400))
    y = rng.integers(0, 4, 150)
    Xt = rng.poisson(0.3, (30, 400))
    ref = sk.MultinomialNB(alpha=alpha).fit(X, y)
    for fmt in (np.asarray, sp.csr_matrix, sp.csc_matrix):
        ours = MultinomialNB(alpha=alpha).fit(fmt(X), y)
        np.testing.assert_allclose(ours.feature_count_, ref.feature_count_)
        np.testing.assert_allclose(ours.feature_log_prob_, ref.feature_log_prob_, rtol=1e-12)
        np.testing.assert_allclose(ours.class_log_prior_, ref.class_log_prior_)
        np.testing.assert_allclose(ours.predict_log_proba(fmt(Xt)), ref.predict_log_proba(Xt), rtol=1e-9)
        assert (ours.predict(fmt(Xt)) == ref.predict(Xt)).all()


def test_multinomial_long_documents_stay_finite():
    rng = np.random.default_rng(4)
    X = rng.poisson(5.0, (20, 50))
    nb = MultinomialNB().fit(X, rng.integers(0, 2, 20))
    doc = sp.csr_matrix(rng.multinomial(100_000, np.full(50, 1 / 50))[None, :])
    assert np.isfinite(nb.predict_log_proba(doc)).all()
    assert nb.predict_joint_proba(doc).max() == 0.0  # the product itself underflows


def test_multinomial_keeps_sparse_input_sparse_and_rejects_negative_counts():
    X = sp.random(50, 1000, density=0.01, format="csr", random_state=0)
    nb = MultinomialNB().fit(X, np.arange(50) % 2)
    assert nb.predict_log_proba(X).shape == (50, 2)
    with pytest.raises(ValueError, match="non-negative"):
        MultinomialNB().fit(-X, np.arange(50) % 2)
    with pytest.raises(ValueError, match="features"):
        nb.predict(X[:, :10])


def test_multinomial_alpha_zero_handles_unseen_words_without_nan():
    X = np.array([[2, 0, 1], [0, 3, 1]])
    nb = MultinomialNB(alpha=0).fit(X, [0, 1])
    p = nb.predict_proba(np.array([[1, 0, 0], [0, 0, 5]]))
    np.testing.assert_allclose(p[0], [1, 0])
    assert np.isfinite(p).all()


@pytest.mark.parametrize("var_smoothing", [1e-9, 1e-3])
def test_gaussian_nb_equals_sklearn(var_smoothing):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 3)) * [1, 2, 0.5]
    y = rng.choice(["a", "b", "c"], 120)
    X[y == "b"] += 1.5
    ours = GaussianNB(var_smoothing=var_smoothing).fit(X, y)
    ref = sk.GaussianNB(var_smoothing=var_smoothing).fit(X, y)
    np.testing.assert_allclose(ours.theta_, ref.theta_)
    np.testing.assert_allclose(ours.var_, ref.var_)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(ours.predict_joint_log_proba(X), ref.predict_joint_log_proba(X), rtol=1e-10)


def test_gaussian_nb_zero_variance_error():
    X = np.array([[1.0, 0.0], [1.0, 1.0], [2.0, 5.0], [3.0, 6.0]])
    with pytest.raises(ValueError, match="constant within class"):
        GaussianNB(var_smoothing=0).fit(X, [0, 0, 1, 1])
    assert GaussianNB().fit(X, [0, 0, 1, 1]).predict(X).tolist() == [0, 0, 1, 1]


def test_xor_gives_one_half_everywhere():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    y = X[:, 0] ^ X[:, 1]
    for nb in (BernoulliNB(alpha=1), CategoricalNB(alpha=1)):
        p = nb.fit(X, y).predict_proba(np.array([[0, 0], [0, 1], [1, 0], [1, 1]]))
        np.testing.assert_allclose(p, 0.5)


def test_gaussian_nb_class_with_one_example():
    X = np.array([[0.0, 1.0], [0.5, 1.5], [1.0, 0.5], [9.0, 9.0]])
    nb = GaussianNB().fit(X, ["a", "a", "a", "b"])
    assert nb.predict([[9.0, 9.0], [0.4, 1.0]]).tolist() == ["b", "a"]
    with pytest.raises(ValueError, match="class 'b'"):
        GaussianNB(var_smoothing=0).fit(X, ["a", "a", "a", "b"])


def test_table_html_escapes_and_bolds():
    from lib.naive_bayes import Table

    t = Table(["a", "b"], [[1, "<x>"], [2, "y"]], bold=[1])
    html = t._repr_html_()
    assert "&lt;x&gt;" in html and "<b>2</b>" in html and html.count("<tr>") == 3
    assert repr(t).splitlines()[0].split() == ["a", "b"]
    with pytest.raises(ValueError, match="one value per column"):
        Table(["a"], [[1, 2]])


def test_playtennis_loader_rejects_unknown_variant():
    with pytest.raises(ValueError, match="variant"):
        load_playtennis("weka")
    X, y, names = load_playtennis("classic")
    assert X.shape == (14, 4) and sorted(set(y)) == ["bad", "good"] and (y == "good").sum() == 9


# ------------------------------------------------------------- bad input, every kind
_COUNTS = np.array([[1, 0, 2], [0, 3, 1], [2, 2, 0], [0, 1, 4]])
_LABELS = ["a", "b", "a", "b"]


@pytest.mark.parametrize("make", [np.asarray, sp.csr_matrix])
@pytest.mark.parametrize("cls", [MultinomialNB, BernoulliNB])
@pytest.mark.parametrize("bad, error, words", [
    (np.nan, ValueError, ["X", "NaN"]),
    (np.inf, ValueError, ["X", "finite"]),
    (-np.inf, ValueError, ["X", "finite"]),
])
def test_counts_with_nan_or_inf_are_refused_in_fit_and_predict(make, cls, bad, error, words):
    X = _COUNTS.astype(float)
    X[1, 2] = bad
    for call in (lambda: cls().fit(make(X), _LABELS),
                 lambda: cls().fit(_COUNTS, _LABELS).predict(make(X))):
        with pytest.raises(error) as info:
            call()
        assert all(w in str(info.value) for w in words)


@pytest.mark.parametrize("make", [np.asarray, sp.csr_matrix])
def test_negative_counts_are_refused_in_fit_and_predict(make):
    X = _COUNTS.copy()
    X[0, 1] = -2
    with pytest.raises(ValueError, match="X must hold non-negative counts, got a minimum of -2"):
        MultinomialNB().fit(make(X), _LABELS)
    with pytest.raises(ValueError, match="non-negative counts"):
        MultinomialNB().fit(_COUNTS, _LABELS).predict_proba(make(X))


@pytest.mark.parametrize("cls", [MultinomialNB, BernoulliNB, CategoricalNB])
@pytest.mark.parametrize("alpha, error, text", [
    (np.nan, ValueError, "got nan"), (np.inf, ValueError, "got inf"), (-1, ValueError, "got -1"),
    ("1", TypeError, "got '1'"), (None, TypeError, "got None"), ([1.0], TypeError, "got [1.0]"),
    (1e300, ValueError, "got 1e+300"),
])
def test_smoothing_parameters_are_checked(cls, alpha, error, text):
    X = [["x", "y"], ["y", "x"]] if cls is CategoricalNB else _COUNTS[:2]
    with pytest.raises(error, match="alpha must be a real number") as info:
        cls(alpha=alpha).fit(X, [0, 1])
    assert text in str(info.value)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(m=np.nan), ValueError, "m must be a real number >= 0, got nan"),
    (dict(m="2"), TypeError, "m must be a real number >= 0, got '2'"),
    (dict(m=2, p=[[0.5, np.nan]]), ValueError, r"p\[0\] must not contain NaN"),
    (dict(class_prior=[np.nan, 1.0]), ValueError, "class_prior must not contain NaN"),
    (dict(class_prior=[0.7, 0.7]), ValueError, "class_prior must sum to 1"),
])
def test_categorical_parameters_are_checked(kwargs, error, match):
    with pytest.raises(error, match=match):
        CategoricalNB(**kwargs).fit([["x"], ["y"]], [0, 1])


@pytest.mark.parametrize("model, X", [
    (MultinomialNB(), np.zeros((3, 0))), (BernoulliNB(), np.zeros((3, 0))),
    (GaussianNB(), np.zeros((3, 0))), (CategoricalNB(), np.empty((3, 0), dtype=object)),
])
def test_zero_features_are_refused(model, X):
    with pytest.raises(ValueError, match=r"X must have at least 1 column.*0 feature\(s\) \(shape=\(3, 0\)\)"):
        model.fit(X, [0, 1, 0])


@pytest.mark.parametrize("y, error, match", [
    (["a", None, "a", "b"], ValueError, "y must not contain missing labels, got None at index 1"),
    ([0.0, np.nan, 1.0, 0.0], ValueError, "y must not contain missing labels, got NaN at index 1"),
    (["a", 1, "a", "b"], TypeError, "y must not mix strings and other labels"),
    ([0.5, 1.5, 0.5, 1.5], ValueError, "continuous"),
    (None, ValueError, "y must be a 1-D sequence of labels, got None"),
])
@pytest.mark.parametrize("cls", [MultinomialNB, GaussianNB])
def test_bad_labels_are_refused(cls, y, error, match):
    with pytest.raises(error, match=match):
        cls().fit(_COUNTS, y)


@pytest.mark.parametrize("model, X, query", [
    (MultinomialNB(alpha=0), [[1, 0], [0, 1]], [[1, 1]]),
    (BernoulliNB(alpha=0), [[1, 0], [0, 1]], [[1, 1]]),
    (CategoricalNB(alpha=0), [["a", "x"], ["b", "y"]], [["a", "y"]]),
])
def test_predict_and_predict_proba_refuse_the_same_impossible_rows(model, X, query):
    model.fit(X, [0, 1])
    for method in ("predict", "predict_proba", "predict_log_proba"):
        with pytest.raises(ValueError, match=r"every class has probability zero for example\(s\) \[0\]"):
            getattr(model, method)(query)
    # possible rows are still classified
    assert model.predict(X).tolist() == [0, 1]


@pytest.mark.parametrize("X", [
    np.column_stack([np.r_[np.ones(10), np.ones(10) + 1e-15], np.linspace(0, 1, 20)]),
    np.column_stack([np.ones(20), np.linspace(0, 1, 20)]),              # one constant attribute
    np.ones((20, 2)),                                                     # all attributes constant
    np.random.default_rng(1).normal(size=(20, 2)) * 1e-160,              # variances underflow
    np.random.default_rng(2).normal(size=(20, 2)) * 1e150,               # huge but finite
])
def test_gaussian_nb_rows_sum_to_one_for_near_constant_and_extreme_features(X):
    y = np.arange(20) % 2
    nb = GaussianNB().fit(X, y)
    P = nb.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.isfinite(P).all() and (nb.var_ > 0).all()
    assert (nb.predict(X) == nb.classes_[P.argmax(axis=1)]).all()


def test_gaussian_nb_near_constant_feature_matches_sklearn():
    rng = np.random.default_rng(3)
    X = np.column_stack([1 + 1e-9 * rng.normal(size=40), rng.normal(size=40)])
    y = np.arange(40) % 2
    X[y == 1, 1] += 1
    ours, ref = GaussianNB().fit(X, y), sk.GaussianNB().fit(X, y)
    np.testing.assert_allclose(ours.var_, ref.var_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-10)


def test_gaussian_nb_far_points_and_overflow_are_refused_clearly():
    X = np.random.default_rng(4).normal(size=(20, 2))
    nb = GaussianNB().fit(X, np.arange(20) % 2)
    for method in ("predict", "predict_proba"):
        with pytest.raises(ValueError, match="so far from every class"):
            getattr(nb, method)([[1e200, 0.0]])
    with pytest.raises(ValueError, match="variances overflow"):
        GaussianNB().fit(X * 1e200, np.arange(20) % 2)
    with pytest.raises(ValueError, match="var_smoothing must be a real number >= 0, got nan"):
        GaussianNB(var_smoothing=np.nan).fit(X, np.arange(20) % 2)
    with pytest.raises(ValueError, match="priors must sum to 1"):
        GaussianNB(priors=[0.5, 0.6]).fit(X, np.arange(20) % 2)


@pytest.mark.parametrize("call, error, match", [
    (lambda: BernoulliNB(binarize="0").fit(_COUNTS, _LABELS), TypeError, "binarize must be a real number"),
    (lambda: BernoulliNB(binarize=None).fit(_COUNTS, _LABELS), ValueError, "only 0 and 1 when binarize=None, got 2"),
    (lambda: MultinomialNB().fit([["a", "b"]], [0]), TypeError, "X must hold real numbers"),
    (lambda: MultinomialNB().fit(_COUNTS, _LABELS).predict(_COUNTS[:, :2]), ValueError,
     "X has 2 features, but MultinomialNB is expecting 3"),
    (lambda: GaussianNB().fit(_COUNTS, _LABELS).predict([1.0, 2.0, 3.0]), ValueError, "Reshape your data"),
    (lambda: CategoricalNB().fit([["a"], ["b"]], [0, 1], ).predict([["c"]]), ValueError, "unknown category 'c'"),
    (lambda: CategoricalNB(handle_unknown=1).fit([["a"]], [0]), ValueError, "handle_unknown must be one of"),
    (lambda: parameter_counts("3"), TypeError, "n_attributes must be an integer"),
    (lambda: parameter_counts(3, n_values=1), ValueError, "n_values must be an integer >= 2"),
    (lambda: duplicated_attribute_posteriors([["a"], ["b"]], [0, 1], ["a"], 0, [0], 1), ValueError,
     r"copies\[i\] must be an integer >= 1"),
    (lambda: log_odds_weights(CategoricalNB(), 0, 1), ValueError, "not fitted"),
    (lambda: probability_table(CategoricalNB().fit([["a", "b"]], [0]), names=["x"]), ValueError,
     r"names must give one name per attribute \(2\), got 1"),
])
def test_other_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


# --------------------------------------------------------------------------- figures
def test_figures_of_chapter_4_draw():
    from lib.plots.naive_bayes import plot_duplicated_evidence, plot_evidence, plot_posterior_vs_m

    X, y, names = load_playtennis()
    nb = CategoricalNB().fit(X, y)
    figs = [plot_posterior_vs_m(X, y, [QUERIES[0]], "good", [0, 1, 4, 10], marks=[(4, "Laplace")],
                                reference=0.6),
            plot_duplicated_evidence([1, 2, 3], [0.6, 0.5, 0.4], "good"),
            plot_evidence(nb, QUERIES, names, "good", "bad")]
    for fig in figs:
        assert fig.axes and (fig.axes[0].lines or fig.axes[0].patches)


def test_loo_mistakes_figure_rings_the_wrong_examples():
    from lib.plots.naive_bayes import plot_loo_mistakes

    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    y = np.array(["a", "a", "b", "b"])
    fig = plot_loo_mistakes(X, y, [y, np.array(["a", "b", "b", "a"])], ["first", "second"])
    assert [ax.get_title() for ax in fig.axes] == ["first:\n0 wrong of 4", "second:\n2 wrong of 4"]
    rings = fig.axes[1].collections[-1].get_offsets()
    assert np.asarray(rings).tolist() == [[1.0, 0.0], [5.0, 5.0]]


def _unsorted_int_csr(dense, rng, duplicate=True):
    """``dense`` as an int64 CSR matrix with shuffled column indices in every row (the
    layout of CountVectorizer's fit_transform output) and, optionally, each stored value
    split over two entries of the same (row, column)."""
    rows, cols = np.nonzero(dense)
    vals = dense[rows, cols].astype(np.int64)
    if duplicate:
        first = np.minimum(vals, rng.integers(0, 3, vals.size))
        rows, cols = np.r_[rows, rows], np.r_[cols, cols]
        vals = np.r_[first, vals - first]
    order = np.lexsort((rng.random(rows.size), rows))
    rows, cols, vals = rows[order], cols[order], vals[order]
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=dense.shape[0]))]
    X = sp.csr_matrix((vals, cols, indptr), shape=dense.shape)
    assert not X.has_sorted_indices
    return X


@pytest.mark.parametrize("duplicate", [False, True])
def test_multinomial_on_unsorted_integer_csr_equals_sklearn_and_leaves_input_alone(duplicate):
    rng = np.random.default_rng(7)
    dense, dense_t = rng.poisson(0.4, (200, 300)), rng.poisson(0.4, (40, 300))
    y = rng.integers(0, 5, 200)
    X, Xt = _unsorted_int_csr(dense, rng, duplicate), _unsorted_int_csr(dense_t, rng, duplicate)
    before = [a.copy() for a in (X.data, X.indices, X.indptr)]
    ours = MultinomialNB().fit(X, y)
    ref = sk.MultinomialNB().fit(dense, y)
    np.testing.assert_allclose(ours.feature_count_, ref.feature_count_)
    np.testing.assert_allclose(ours.feature_log_prob_, ref.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_log_proba(Xt), ref.predict_log_proba(dense_t),
                               rtol=1e-9)
    assert (ours.predict(Xt) == ref.predict(dense_t)).all()
    for a, b in zip(before, (X.data, X.indices, X.indptr)):
        assert np.array_equal(a, b) and a.dtype == b.dtype   # not sorted or cast in place
    # the prediction product's dense operand needs no copy
    assert ours.feature_log_prob_.T.flags.c_contiguous


def test_gaussian_nb_constant_feature_with_rounding_noise_variance_keeps_the_priors():
    # mean([0.1] * 3) is 0.1 plus rounding, so the computed variance is ~1e-34, not 0;
    # smoothed by 1e-9 times it, every other value underflows alike in both classes and
    # scikit-learn 1.5 returns rows [1, 1]. The feature says nothing: posterior = prior.
    X, y = [[0.1], [0.1], [0.1]], [0, 1, 1]
    nb = GaussianNB().fit(X, y)
    proba = nb.predict_proba([[0.2], [0.1], [0.0]])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(proba, [[1 / 3, 2 / 3]] * 3)
    assert nb.epsilon_ == 1e-9                # every variance is 0: unit scale
    assert nb.predict([[0.2]]).tolist() == [1]


def test_the_predict_triple_is_written_once_for_every_probabilistic_classifier():
    from lib._classifier import ProbabilisticClassifier
    from lib.gaussian import GaussianClassifier
    from lib.text import NaiveBayesText
    for cls in (GaussianNB, MultinomialNB, BernoulliNB, CategoricalNB, GaussianClassifier,
                NaiveBayesText):
        for name in ("predict", "predict_proba", "predict_log_proba"):
            assert getattr(cls, name) is getattr(ProbabilisticClassifier, name), (cls, name)

    class Huge(ProbabilisticClassifier):      # scores whose differences are below rounding
        classes_ = np.array(["a", "b"])

        def _joint_log_likelihood(self, X):
            return np.array([[-1e40 + np.log(0.25), -1e40 + np.log(0.75)]])

    np.testing.assert_allclose(Huge().predict_proba(None).sum(), 1.0)
