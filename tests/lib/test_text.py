"""Tests of lib/text/ (and its figures, lib/plots/text.py): naive Bayes for text and n-gram language models (Chapter 5).

Oracles: scikit-learn's CountVectorizer, MultinomialNB and BernoulliNB on the same
counts; the real 20 Newsgroups corpus comes from the shared archive.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from matplotlib.figure import Figure

from lib.datasets import find_newsgroups_archive, load_20newsgroups
from lib.plots.text import (
    plot_confusion_matrix,
    plot_event_models,
    plot_learning_curve,
    plot_reliability,
    plot_text_posterior,
)
from lib.text import (
    NaiveBayesText,
    NGramModel,
    classify_naive_bayes_text,
    confusion_matrix,
    count_matrix,
    learn_naive_bayes_text,
    learning_curve,
    most_indicative_words,
    post_body,
    sentences,
    tokenize,
    word_contributions,
)

DOCS = ["the goal the save the puck", "a puck and a goal", "orbit launch the moon", "the moon orbit orbit"]
LABELS = ["hockey", "hockey", "space", "space"]


# ----------------------------------------------------------------- tokens and counts

def test_tokenize():
    assert tokenize("Great skater, and a HARD shot! (x2)") == ["great", "skater", "and", "hard", "shot", "x2"]
    assert tokenize("Café crème") == ["café", "crème"]
    assert tokenize("") == []
    with pytest.raises(TypeError, match="must be a str"):
        tokenize(b"bytes")


def test_count_matrix():
    X, vocab = count_matrix(["the cat sat", "the the dog"])
    assert list(vocab) == ["cat", "dog", "sat", "the"]
    assert sp.issparse(X) and X.toarray().tolist() == [[1, 0, 1, 1], [0, 1, 0, 2]]
    Y, same = count_matrix(["a dog and a zebra", "the end"], vocab)
    assert same is vocab and Y.toarray().tolist() == [[0, 1, 0, 0], [0, 0, 0, 1]]
    with pytest.raises(ValueError, match="empty corpus"):
        count_matrix([])
    with pytest.raises(TypeError, match="not a single str"):
        count_matrix("the cat")


def test_count_matrix_equals_sklearn():
    from sklearn.feature_extraction.text import CountVectorizer
    docs = ["Hello, World! hello", "Naïve Bayes -- 20 newsgroups_x a b", "", "x y zz"]
    X, vocab = count_matrix(docs)
    cv = CountVectorizer()
    expected = cv.fit_transform(docs)
    assert vocab == cv.vocabulary_
    assert (X != expected).nnz == 0


# ----------------------------------------------------------------- the learner

def test_learn_follows_the_pseudo_code():
    model = learn_naive_bayes_text(DOCS, LABELS)
    vocab = model.vocabulary_
    assert sorted(vocab) == ["and", "goal", "launch", "moon", "orbit", "puck", "save", "the"]
    assert model.classes_.tolist() == ["hockey", "space"]
    assert np.allclose(np.exp(model.class_log_prior_), [0.5, 0.5])
    # Text_hockey has n = 9 tokens ("a" is too short to be a token); |Vocabulary| = 8
    p = np.exp(model.feature_log_prob_)
    assert np.isclose(p[0, vocab["the"]], (3 + 1) / (9 + 8))
    assert np.isclose(p[0, vocab["orbit"]], (0 + 1) / (9 + 8))
    # Text_space: "orbit launch the moon the moon orbit orbit", n = 8
    assert np.isclose(p[1, vocab["orbit"]], (3 + 1) / (8 + 8))
    assert np.allclose(p.sum(axis=1), 1)


def test_classify_follows_the_pseudo_code():
    model = learn_naive_bayes_text(DOCS, LABELS)
    assert classify_naive_bayes_text(model, "a puck in the goal") == "hockey"
    assert classify_naive_bayes_text(model, "Orbit of the MOON") == "space"
    # unknown words are skipped: only "moon" counts
    assert classify_naive_bayes_text(model, "zebra zebra zebra moon") == "space"
    # by hand: log P(v) + sum over positions of log P(a_i | v)
    v = model.vocabulary_
    score = model.class_log_prior_ + model.feature_log_prob_[:, [v["the"], v["puck"], v["puck"]]].sum(axis=1)
    assert np.allclose(model.joint_log_likelihood(["the puck, puck!"])[0], score)
    assert model.predict(["the puck, puck!"]).tolist() == [model.classes_[np.argmax(score)]]


def test_long_documents_stay_finite():
    model = learn_naive_bayes_text(DOCS, LABELS)
    doc = " ".join(["orbit launch moon the puck"] * 20000)  # 10^5 tokens
    joint = model.joint_log_likelihood([doc])
    assert np.all(np.isfinite(joint)) and joint.min() < -1e5
    proba = model.predict_proba([doc])
    assert np.all(np.isfinite(proba)) and np.isclose(proba.sum(), 1)
    assert classify_naive_bayes_text(model, doc) == model.predict([doc])[0]


def test_alpha_is_the_dirichlet_pseudo_count():
    model = NaiveBayesText(alpha=0.5).fit(DOCS, LABELS)
    p = np.exp(model.feature_log_prob_)
    assert np.isclose(p[0, model.vocabulary_["the"]], (3 + 0.5) / (9 + 0.5 * 8))


def test_unused_columns_are_outside_the_vocabulary():
    rng = np.random.default_rng(0)
    dense = rng.poisson(0.7, size=(30, 12))
    dense[:, [3, 7]] = 0
    X = sp.csr_matrix(dense)
    y = rng.integers(0, 3, size=30)
    full = NaiveBayesText().fit_counts(X, y)
    kept = np.setdiff1d(np.arange(12), [3, 7])
    restricted = NaiveBayesText().fit_counts(X[:, kept], y)
    assert full.in_vocabulary_.sum() == 10
    assert np.allclose(full.feature_log_prob_[:, kept], restricted.feature_log_prob_)
    assert np.all(full.feature_log_prob_[:, [3, 7]] == 0)
    T = sp.csr_matrix(rng.poisson(1.0, size=(8, 12)))  # test rows may use the unused columns
    assert np.allclose(full.joint_log_likelihood(T), restricted.joint_log_likelihood(T[:, kept]))


@pytest.mark.parametrize("alpha", [1.0, 0.1])
def test_multinomial_matches_sklearn(alpha):
    from sklearn.naive_bayes import MultinomialNB
    rng = np.random.default_rng(1)
    X = rng.poisson(0.5, size=(60, 25))
    y = rng.integers(0, 4, size=60)
    X[:, X.sum(axis=0) == 0] = 1  # every column in the vocabulary, as sklearn assumes
    ours = NaiveBayesText(alpha=alpha).fit_counts(sp.csr_matrix(X), y)
    theirs = MultinomialNB(alpha=alpha).fit(X, y)
    T = rng.poisson(2.0, size=(10, 25))
    assert np.allclose(ours.feature_log_prob_, theirs.feature_log_prob_)
    assert np.allclose(ours.class_log_prior_, theirs.class_log_prior_)
    assert np.allclose(ours.predict_log_proba(T), theirs.predict_log_proba(T))
    assert np.array_equal(ours.predict(T), theirs.predict(T))


def test_bernoulli_matches_sklearn():
    from sklearn.naive_bayes import BernoulliNB
    rng = np.random.default_rng(2)
    X = rng.poisson(0.4, size=(50, 20))
    X[:, X.sum(axis=0) == 0] = 1
    y = rng.integers(0, 3, size=50)
    ours = NaiveBayesText("bernoulli").fit_counts(sp.csr_matrix(X), y)
    theirs = BernoulliNB(alpha=1.0).fit(X > 0, y)
    T = rng.poisson(0.6, size=(10, 20))
    assert np.allclose(ours.feature_log_prob_, theirs.feature_log_prob_)
    assert np.allclose(ours.predict_log_proba(T), theirs.predict_log_proba(T > 0))
    # presence, not counts: repeating a word changes nothing
    assert np.allclose(ours.joint_log_likelihood(T), ours.joint_log_likelihood(5 * T))


def test_bernoulli_uses_absent_words():
    model = NaiveBayesText("bernoulli").fit(DOCS, LABELS)
    # P(x_k = 1 | y) = (docs of y with w_k + 1) / (docs of y + 2)
    p = np.exp(model.feature_log_prob_)
    assert np.isclose(p[0, model.vocabulary_["puck"]], (2 + 1) / (2 + 2))
    assert np.isclose(p[1, model.vocabulary_["puck"]], (0 + 1) / (2 + 2))
    empty = model.joint_log_likelihood([""])[0]
    assert np.allclose(empty, model.class_log_prior_ + model.feature_log_absent_.sum(axis=1))
    with pytest.raises(ValueError, match="multinomial"):
        classify_naive_bayes_text(model, "puck")


def test_bad_input():
    with pytest.raises(ValueError, match="empty corpus"):
        learn_naive_bayes_text([], [])
    with pytest.raises(ValueError, match=r"labels must have one label per row of X \(4\), got 3 labels"):
        learn_naive_bayes_text(DOCS, LABELS[:3])
    with pytest.raises(ValueError, match="labels must have one label per row"):
        NaiveBayesText().fit_counts(sp.csr_matrix(np.ones((3, 2))), [0, 1])
    with pytest.raises(ValueError, match=r"alpha must be a real number in \(0, 1e\+100\], got 0"):
        NaiveBayesText(alpha=0)
    with pytest.raises(ValueError, match="event_model"):
        NaiveBayesText("gaussian")
    with pytest.raises(ValueError, match="not fitted"):
        NaiveBayesText().predict(["text"])
    with pytest.raises(ValueError, match="negative"):
        NaiveBayesText().fit_counts(sp.csr_matrix(np.array([[1, -1]])), [0])
    with pytest.raises(ValueError, match="one column per vocabulary word"):
        learn_naive_bayes_text(DOCS, LABELS).predict(np.ones((1, 3)))
    with pytest.raises(ValueError, match=r"vocabulary must have one word per column \(3\), got 1"):
        NaiveBayesText().fit_counts(np.ones((2, 3)), [0, 1], {"a": 0})
    with pytest.raises(TypeError, match="single str"):
        learn_naive_bayes_text("one document", ["x"])


def test_helpers():
    model = learn_naive_bayes_text(DOCS, LABELS)
    words, contrib = word_contributions(model, "the puck the zebra")
    assert words == ["puck", "the"] and contrib.shape == (2, 2)
    assert np.allclose(model.class_log_prior_ + contrib.sum(axis=1),
                       model.joint_log_likelihood(["the puck the zebra"])[0])
    top = most_indicative_words(model, n_words=2)
    assert set(top["hockey"]) <= {"goal", "puck", "save", "and"} and "orbit" in top["space"]
    cm = confusion_matrix([0, 0, 1, 2], [0, 1, 1, 2], 3)
    assert cm.tolist() == [[1, 1, 0], [0, 1, 0], [0, 0, 1]]
    with pytest.raises(ValueError, match="labels and predicted must have the same length"):
        confusion_matrix([0, 1], [0], 2)


def test_learning_curve():
    rng = np.random.default_rng(3)
    X, _ = count_matrix(DOCS * 5)
    y = np.array(LABELS * 5)
    acc = learning_curve(X, y, np.arange(12), np.arange(12, 20), [2, 6, 12], rng, repeats=2)
    assert acc.shape == (3, 2) and np.all((acc >= 0) & (acc <= 1))
    assert np.all(acc[-1] == 1.0)
    with pytest.raises(ValueError, match=r"sizes\[i\] must be an integer in \[1, 12\], got 13"):
        learning_curve(X, y, np.arange(12), np.arange(12, 20), [13], rng)


def test_plots_return_figures():
    model = learn_naive_bayes_text(DOCS, LABELS)
    assert isinstance(plot_text_posterior("the puck", model), Figure)
    assert isinstance(plot_text_posterior("no known words", model), Figure)
    assert isinstance(plot_confusion_matrix(np.eye(3, dtype=int), ["a", "b", "c"]), Figure)
    curve = np.array([[0.2, 0.3], [0.5, 0.6]])
    assert isinstance(plot_learning_curve({"x": ([10, 100], curve)}, reference=(0.89, "89%")), Figure)
    assert isinstance(plot_event_models([10, 100], {"m": [0.2, 0.4]}), Figure)


def test_reliability_figure_draws_the_bins():
    confidence = np.array([0.95, 0.97, 0.99, 0.55, 0.62, 1.0])
    correct = np.array([1, 0, 1, 1, 0, 1], dtype=bool)
    fig = plot_reliability(confidence, correct, n_bins=5)
    left, right = fig.axes
    heights = [p.get_height() for p in left.patches]
    assert heights == pytest.approx([1.0, 0.0, 0.75])  # the three non-empty bins of width 0.2
    assert [p.get_height() for p in right.patches] == [0, 0, 1, 1, 4]
    # ECE = (1/6)|1 - 0.55| + (1/6)|0 - 0.62| + (4/6)|0.75 - 0.9775| = 0.330
    assert "ECE 0.330" in left.get_title()


# ----------------------------------------------------------------- the real corpus

@pytest.fixture(scope="module")
def newsgroups(tmp_path_factory):
    if find_newsgroups_archive() is None:
        pytest.skip("no 20news-bydate.tar.gz in $BAYES_COURSE_DATA or ../shared/data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BAYES_COURSE_CACHE", str(tmp_path_factory.mktemp("cache")))
        return load_20newsgroups("train", download=False), load_20newsgroups("test", download=False)


def test_20newsgroups_against_sklearn(newsgroups):
    """Same vocabulary, same log probabilities and accuracy within 0.01 of sklearn's."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB
    train, test = newsgroups
    model = learn_naive_bayes_text(train.data, train.target)
    cv = CountVectorizer()
    X_train = cv.fit_transform(train.data)
    assert model.vocabulary_ == cv.vocabulary_ and len(cv.vocabulary_) == 130107
    theirs = MultinomialNB(alpha=1.0).fit(X_train, train.target)
    assert np.allclose(model.feature_log_prob_, theirs.feature_log_prob_)
    X_test = cv.transform(test.data)
    ours_counts, _ = count_matrix(test.data, model.vocabulary_)
    assert (ours_counts != X_test).nnz == 0
    assert np.allclose(model.predict_log_proba(ours_counts[:200]), theirs.predict_log_proba(X_test[:200]))
    ours_acc = model.score(ours_counts, test.target)
    theirs_acc = theirs.score(X_test, test.target)
    assert abs(ours_acc - theirs_acc) < 0.01
    assert abs(ours_acc - 0.773) < 0.005  # reference figure of the shared data README
    sample = train.filenames.index("20news-bydate-train/rec.sport.hockey/52552")
    assert classify_naive_bayes_text(model, train.data[sample]) == train.target[sample]


# ----------------------------------------------------------------- language models

TOY = [["the", "cat", "sat"], ["the", "dog", "sat"]]


def test_bigram_ml_estimates():
    lm = NGramModel(2).fit(TOY)
    assert lm.prob("cat", ["the"]) == 0.5  # C_ij / C_i = 1 / 2
    assert lm.prob("the", []) == 1.0  # every sentence starts with "the"
    assert lm.prob("</s>", ["sat"]) == 1.0
    assert lm.prob("sat", ["the"]) == 0.0  # unseen pair: probability zero
    assert np.isclose(lm.log_prob(["the", "dog", "sat"]), np.log(0.5))
    assert lm.log_prob(["the", "sat"]) == -np.inf
    assert lm.perplexity([["the", "sat"]]) == np.inf
    assert np.isclose(lm.perplexity(TOY), np.exp(-2 * np.log(0.5) / 8))


def test_add_one_and_normalisation():
    lm = NGramModel(2, smoothing=1).fit(TOY)
    # V = 4 words + </s> + <unk> = 6 possible next tokens
    assert lm.n_outcomes_ == 6
    assert np.isclose(lm.prob("cat", ["the"]), (1 + 1) / (2 + 6))
    assert np.isclose(lm.prob("sat", ["the"]), 1 / 8)
    assert np.isclose(lm.prob("zebra", ["the"]), 1 / 8)  # unknown word = <unk>
    outcomes = ["the", "cat", "dog", "sat", "</s>", "<unk>"]
    for context in (["the"], ["cat"], [], ["zebra"]):
        assert np.isclose(sum(lm.prob(w, context) for w in outcomes), 1)
    ml = NGramModel(2).fit(TOY)
    assert np.isclose(sum(ml.prob(w, ["the"]) for w in outcomes), 1)


def test_unigram_and_trigram():
    uni = NGramModel(1).fit(TOY)
    assert np.isclose(uni.prob("the"), 2 / 8) and np.isclose(uni.prob("</s>"), 2 / 8)
    assert np.isclose(uni.log_prob(["cat"]), np.log(1 / 8) + np.log(2 / 8))
    tri = NGramModel(3).fit([["a", "b", "c"], ["a", "b", "d"], ["x", "b", "c"]])
    assert tri.prob("c", ["a", "b"]) == 0.5 and tri.prob("c", ["x", "b"]) == 1.0
    assert tri.prob("a", []) == 2 / 3  # context (<s>, <s>)
    assert tri.n_tokens_ == 12


def test_sentence_log_probs_and_strings():
    lm = NGramModel(2, smoothing=0.5).fit(TOY + [["a", "cat"]])
    corpus = [["the", "cat"], ["dog"], [], ["the", "zebra", "sat"]]
    assert np.allclose(lm.sentence_log_probs(corpus), [lm.log_prob(s) for s in corpus])
    assert lm.log_prob("The cat!") == lm.log_prob(["the", "cat"])
    assert len(lm.token_log_probs(["the", "cat"])) == 3


def test_sampling():
    lm = NGramModel(2).fit(TOY)
    rng = np.random.default_rng(0)
    samples = [tuple(lm.sample(rng)) for _ in range(400)]
    assert set(samples) == {("the", "cat", "sat"), ("the", "dog", "sat")}  # only seen pairs
    share = samples.count(("the", "cat", "sat")) / len(samples)
    assert 0.4 < share < 0.6
    again = [tuple(lm.sample(np.random.default_rng(0))) for _ in range(3)]
    assert again[0] == again[1] == again[2] == samples[0]
    capped = NGramModel(1, smoothing=1).fit(TOY).sample(np.random.default_rng(1), max_words=4)
    assert len(capped) <= 5


def test_ngram_bad_input():
    for n in (0, -1):
        with pytest.raises(ValueError, match=r"n \(1 = unigram, 2 = bigram, ...\) must be an integer >= 1"):
            NGramModel(n)
    for n in (1.5, "two", True, None):
        with pytest.raises(TypeError, match=r"n \(1 = unigram, 2 = bigram, ...\) must be an integer"):
            NGramModel(n)
    with pytest.raises(ValueError, match="smoothing"):
        NGramModel(2, smoothing=-1)
    with pytest.raises(ValueError, match="not fitted"):
        NGramModel(2).perplexity(TOY)
    with pytest.raises(ValueError, match="empty corpus"):
        NGramModel(2).fit([])
    with pytest.raises(ValueError, match="padding symbols"):
        NGramModel(2).fit([["a", "</s>", "b"]])
    with pytest.raises(ValueError, match="too large"):
        NGramModel(40).fit(TOY * 10 + [[str(i) for i in range(200)]])


def test_sentences_and_post_body():
    post = ("From: someone\nSubject: test\n\nIn article <1@x> bob writes:\n> quoted line.\n"
            "I can only comment on the Kings. Great skater!\n\nNew paragraph here")
    body = post_body(post)
    assert "From:" not in body and "quoted" not in body and "writes" not in body
    assert sentences(body) == [["i", "can", "only", "comment", "on", "the", "kings"], ["great", "skater"],
                               ["new", "paragraph", "here"]]
    assert sentences("Don't stop. It's 3 a.m.") == [["don't", "stop"], ["it's", "3", "a", "m"]]
    with pytest.raises(TypeError):
        sentences(None)


# ------------------------------------------------------------- bad input, every kind
@pytest.mark.parametrize("make", [np.asarray, sp.csr_matrix])
@pytest.mark.parametrize("bad, match", [
    (np.nan, "counts.* must not contain NaN"), (np.inf, "counts.* must be finite"),
    (-1.0, "counts must hold non-negative counts, got a minimum of -1"),
])
def test_bad_counts_are_refused(make, bad, match):
    X = np.ones((2, 3))
    X[1, 2] = bad
    with pytest.raises(ValueError, match=match):
        NaiveBayesText().fit_counts(make(X), ["a", "b"])
    model = NaiveBayesText().fit_counts(np.ones((2, 3)), ["a", "b"])
    with pytest.raises(ValueError, match=match.replace("counts", "docs", 1)):
        model.predict(make(X))


@pytest.mark.parametrize("alpha, error", [
    (np.nan, ValueError), (np.inf, ValueError), (0, ValueError), (-1, ValueError),
    ("1", TypeError), (None, TypeError), (True, TypeError),
])
def test_bad_alpha(alpha, error):
    with pytest.raises(error, match="alpha must be a real number in"):
        NaiveBayesText(alpha=alpha)
    with pytest.raises(error, match="alpha must be a real number in"):
        learn_naive_bayes_text(DOCS, LABELS, alpha=alpha)


@pytest.mark.parametrize("smoothing, error", [
    (np.nan, ValueError), (np.inf, ValueError), (-0.5, ValueError), ("1", TypeError), (None, TypeError),
])
def test_bad_ngram_smoothing(smoothing, error):
    with pytest.raises(error, match="smoothing must be a real number"):
        NGramModel(2, smoothing=smoothing)


@pytest.mark.parametrize("call, error, match", [
    (lambda: learn_naive_bayes_text(DOCS, ["hockey", None, "space", "space"]), ValueError,
     "labels must not contain missing labels, got None at index 1"),
    (lambda: learn_naive_bayes_text(DOCS, ["hockey", 1, "space", "space"]), TypeError, "mix strings"),
    (lambda: learn_naive_bayes_text(DOCS[:2] + [3, None], LABELS), TypeError, "document 2 of the corpus must be a str"),
    (lambda: NaiveBayesText().fit_counts(np.ones((2, 3)), ["a", "b"], {"x": 0, "y": 0, "z": 2}), ValueError,
     "distinct columns"),
    (lambda: NaiveBayesText().fit_counts(np.ones((2, 0)), ["a", "b"]), ValueError, r"0 feature\(s\)"),
    (lambda: NaiveBayesText().fit_counts(np.array([["1", "2"]]), ["a"]), TypeError, "counts must hold real numbers"),
    (lambda: NaiveBayesText().predict(["text"]), ValueError, "This NaiveBayesText instance is not fitted"),
    (lambda: classify_naive_bayes_text(NaiveBayesText(), "text"), ValueError, "not fitted"),
    (lambda: most_indicative_words(learn_naive_bayes_text(DOCS, LABELS), n_words=0), ValueError,
     "n_words must be an integer >= 1"),
    (lambda: NGramModel(2).fit([["a", None]]), TypeError, "a sentence must hold words"),
    (lambda: NGramModel(2).fit([["a"], 5]), TypeError, "document 1 of the corpus of sentences"),
    (lambda: NGramModel(2).fit(TOY).prob(None), TypeError, "word must be a str"),
    (lambda: NGramModel(2).fit(TOY).sample(0, max_words=-1), ValueError, "max_words must be an integer >= 0"),
    (lambda: NGramModel(2).fit(TOY).sample("seed"), TypeError, "rng must be"),
    (lambda: NGramModel(2).log_prob(["a"]), ValueError, "This NGramModel instance is not fitted"),
    (lambda: post_body(None), TypeError, "post must be a str"),
])
def test_other_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("labels, predicted, match", [
    ([0, 2], [0, 1], r"labels must hold class numbers in 0..1, got 2 \(at position 1\)"),
    ([0, -1], [0, 1], "labels must hold class numbers in 0..1, got -1"),
    ([0, 1], [5, 1], "predicted must hold class numbers in 0..1, got 5"),
    ([0, 0.5], [0, 1], r"labels must hold class numbers \(integers\), got 0.5"),
    ([0, np.nan], [0, 1], "labels must not contain NaN"),
])
def test_confusion_matrix_refuses_out_of_range_labels(labels, predicted, match):
    with pytest.raises(ValueError, match=match):
        confusion_matrix(labels, predicted, 2)


def test_confusion_matrix_matches_sklearn():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    y, p = rng.integers(4, size=200), rng.integers(4, size=200)
    np.testing.assert_array_equal(confusion_matrix(y, p, 4),
                                  metrics.confusion_matrix(y, p, labels=range(4)))
    assert confusion_matrix([], [], 3).sum() == 0


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
def test_unsorted_integer_counts_with_repeated_entries_equal_their_canonical_form(event_model):
    """CountVectorizer's fit_transform output has unsorted column indices; a CSR matrix
    may also repeat a (row, column). Both must give the canonical matrix's model (and
    the Bernoulli model must count a repeated entry once)."""
    rng = np.random.default_rng(9)
    dense = rng.poisson(0.5, (80, 30))
    dense[:, dense.sum(axis=0) == 0] = 1
    y = rng.integers(0, 3, 80)
    rows, cols = np.nonzero(dense)
    vals = dense[rows, cols]
    first = np.minimum(vals, 1)
    rows, cols, vals = np.r_[rows, rows], np.r_[cols, cols], np.r_[first, vals - first]
    order = np.lexsort((rng.random(rows.size), rows))
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=80))]
    X = sp.csr_matrix((vals[order], cols[order], indptr), shape=dense.shape)
    assert not X.has_sorted_indices and X.dtype.kind == "i"
    ours = NaiveBayesText(event_model).fit_counts(X, y)
    ref = NaiveBayesText(event_model).fit_counts(sp.csr_matrix(dense), y)
    np.testing.assert_allclose(ours.feature_log_prob_, ref.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(ours.joint_log_likelihood(X), ref.joint_log_likelihood(dense),
                               rtol=1e-12)
    assert not X.has_sorted_indices                # the caller's matrix is left as it was
    assert ours.feature_log_prob_.T.flags.c_contiguous


def test_fit_on_documents_without_a_single_token_says_so():
    with pytest.raises(ValueError, match="no token"):
        NaiveBayesText().fit(["a b", "c d"], ["x", "y"])
