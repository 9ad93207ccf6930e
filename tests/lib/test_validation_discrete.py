"""Tests of the checks that replaced the modules' own ``_check_*`` helpers (issue 24):
lib/_validation/discrete.py (whole numbers, names, lists of documents, dicts) and the
parameter checks check_weighted_rows and check_hmm. Good input comes back converted,
bad input raises an error naming the argument, the expectation and the value given."""
import numpy as np
import pytest

from lib._validation import (
    check_hmm,
    check_index_map,
    check_integers,
    check_items,
    check_keyed_numbers,
    check_names,
    check_weighted_rows,
)


# ------------------------------------------------------------------ whole numbers
def test_check_integers_converts_whole_numbers():
    out = check_integers([0, 2.0, 1], "obs", what="symbols", high=2)
    assert out.dtype == np.intp and out.flags.c_contiguous and out.tolist() == [0, 2, 1]
    assert check_integers(np.array([1, 0], dtype=object), "obs").tolist() == [1, 0]
    # one bound per column (the category counts of a fitted model)
    X = check_integers([[0, 2], [1, 0]], "X", what="codes", high=np.array([1, 2]), ndim=2)
    assert X.tolist() == [[0, 2], [1, 0]]
    assert check_integers([3, 1], "cards", low=1).tolist() == [3, 1]


@pytest.mark.parametrize("values, kwargs, error, message", [
    ([0, 3], dict(what="symbols", high=2), ValueError, r"^obs must hold symbols in 0\.\.2, got values from 0 to 3$"),
    ([0, -1], dict(what="symbols", high=2), ValueError, r"^obs must hold symbols in 0\.\.2, got values from -1 to 0$"),
    ([0, 0.5], dict(what="symbols", high=2), ValueError, r"^obs must hold integer symbols 0\.\.2, got 0\.5$"),
    ([True, False], dict(what="symbols", high=2), TypeError, r"^obs must hold integer symbols 0\.\.2, got booleans$"),
    (["a", "b"], dict(what="codes"), TypeError, r"^obs must hold integer codes >= 0, got dtype <U1$"),
    ([0, np.nan], {}, ValueError, "obs must not contain NaN"),
    ([[0, 1]], dict(ndim=1), ValueError, r"obs must be a 1-D array, got shape \(1, 2\)"),
    ([], {}, ValueError, "obs must have at least 1"),
    ([[0, 1], [2]], {}, TypeError, "obs must be an array of real numbers"),
    ([0, 1], dict(what="numbers of states", low=1), ValueError,
     r"^obs must hold numbers of states >= 1, got values from 0 to 1$"),
    ([[0, 2]], dict(what="codes", high=np.array([1, 1])), ValueError,
     r"^obs must hold codes in 0\.\.\[1, 1\] \(one bound per column\), got values from 0 to 2$"),
])
def test_check_integers_refuses(values, kwargs, error, message):
    with pytest.raises(error, match=message):
        check_integers(values, "obs", **kwargs)


# ------------------------------------------------------------------ names, documents, dicts
def test_check_names():
    known = {"rain": 0, "sprinkler": 1, "wet": 2}
    assert check_names("rain", "variables", known) == ["rain"]
    assert check_names(("wet", "rain"), "variables", known) == ["wet", "rain"]
    with pytest.raises(ValueError, match=r"variables must name one of \['rain', 'sprinkler', 'wet'\]: "
                                         r"unknown query variable 'snow'"):
        check_names(["rain", "snow"], "variables", known, what="query variable")
    with pytest.raises(ValueError, match=r"variables must hold distinct query variables, got \['rain', 'rain'\]"):
        check_names(["rain", "rain"], "variables", known, what="query variable")
    with pytest.raises(ValueError, match="unknown name"):
        check_names([["rain"]], "variables", known)       # unhashable: not a name


def test_check_items():
    assert check_items(("a b", "c"), "corpus") == ["a b", "c"]
    assert check_items([["a", "b"]], "corpus of sentences", kinds=(str, list)) == [["a", "b"]]
    with pytest.raises(TypeError, match="^corpus must be a list of documents, not a single str$"):
        check_items("a b", "corpus")
    with pytest.raises(TypeError, match="^corpus must be a list of documents, got int$"):
        check_items(5, "corpus")
    with pytest.raises(ValueError, match=r"^corpus must hold at least one document, got none \(empty corpus\)$"):
        check_items([], "corpus")
    with pytest.raises(TypeError, match="^document 1 of the corpus must be a str, got NoneType$"):
        check_items(["a", None], "corpus")
    with pytest.raises(TypeError, match="sequences must be a list of observation sequences, got float"):
        check_items(1.5, "sequences", item="observation sequence", kinds=(object,))


def test_check_index_map():
    vocabulary = {"b": 1, "a": 0}
    assert check_index_map(vocabulary, "vocabulary", size=2) is vocabulary
    with pytest.raises(TypeError, match="vocabulary must be a dict word -> column, got list"):
        check_index_map(["a"], "vocabulary", what="word")
    with pytest.raises(ValueError, match=r"vocabulary must have one word per column \(3\), got 2"):
        check_index_map(vocabulary, "vocabulary", size=3, what="word")
    with pytest.raises(ValueError, match=r"vocabulary must map its words to the distinct columns 0\.\.1, got \[0, 0\]"):
        check_index_map({"a": 0, "b": 0}, "vocabulary", what="word")


def test_check_keyed_numbers():
    assert check_keyed_numbers({"c": 3, "l": np.int64(1), "x": "ignored"}, "counts", ("c", "l"), low=0) == \
        {"c": 3.0, "l": 1.0}
    with pytest.raises(ValueError, match=r"counts must be a dict with the keys \('c', 'l'\), got \{'c': 3\}"):
        check_keyed_numbers({"c": 3}, "counts", ("c", "l"))
    with pytest.raises(ValueError, match=r"counts\['l'\] must be a real number >= 0, got -1"):
        check_keyed_numbers({"c": 3, "l": -1}, "counts", ("c", "l"), low=0)
    with pytest.raises(TypeError, match=r"counts\['c'\] must be a real number"):
        check_keyed_numbers({"c": "3", "l": 1}, "counts", ("c", "l"))


# ------------------------------------------------------------------ model parameters
def test_check_weighted_rows_broadcasts_the_batch():
    w, r = check_weighted_rows([0.4, 0.3, 0.3], [[[1, 0], [0, 1], [0, 1]]] * 4, "posteriors", "class_probs")
    assert w.shape == (4, 3) and r.shape == (4, 3, 2)
    np.testing.assert_array_equal(w[2], [0.4, 0.3, 0.3])
    with pytest.raises(ValueError, match=r"class_probs must have shape \(\.\.\., H, C\) with H = 3 "
                                         r"\(one row per entry of posteriors\), got \(2, 2\)"):
        check_weighted_rows([0.4, 0.3, 0.3], [[1, 0], [0, 1]], "posteriors", "class_probs")
    with pytest.raises(ValueError, match="posteriors .*sum to 1"):
        check_weighted_rows([0.5, 0.6], [[1, 0], [0, 1]], "posteriors", "class_probs")
    with pytest.raises(ValueError, match="class_probs contains a probability greater than 1: 2"):
        check_weighted_rows([0.5, 0.5], [[2, 0], [0, 1]], "posteriors", "class_probs")


def test_check_hmm_normalises_exactly():
    start, transition, emission = check_hmm([0.5, 0.5 + 1e-9], [[0.7, 0.3], [0.3, 0.7]],
                                            [[0.9, 0.1], [0.2, 0.8]])
    given = np.array([0.5, 0.5 + 1e-9])                    # within the tolerance of 1e-6
    np.testing.assert_array_equal(start, given / given.sum())   # divided by its sum
    assert abs(start.sum() - 1) < 1e-15 and start[1] - start[0] == pytest.approx(1e-9, rel=1e-6)
    np.testing.assert_array_equal(transition, [[0.7, 0.3], [0.3, 0.7]])
    with pytest.raises(ValueError, match=r"transition must have shape \(2, 2\), got \(1, 2\)"):
        check_hmm([0.5, 0.5], [[0.5, 0.5]], [[1.0], [1.0]])
    with pytest.raises(ValueError, match=r"emission must have shape \(2, any\), got \(3, 1\)"):
        check_hmm([0.5, 0.5], np.eye(2), [[1.0], [1.0], [1.0]])
    with pytest.raises(ValueError, match="start must sum to 1"):
        check_hmm([0.5, 0.6], np.eye(2), [[1.0], [1.0]])
