"""Tests of lib/_validation: each check accepts good input unchanged and refuses bad
input with an error naming the argument, the expectation and the value given; and the
library's structure that the layer is part of (what may import what)."""
import ast
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from lib._validation import (
    NotFittedError,
    check_array,
    check_consistent_length,
    check_counts,
    check_is_fitted,
    check_labels,
    check_option,
    check_probabilities,
    check_probability_vector,
    check_rng,
    check_scalar,
    check_shape,
    check_stochastic_matrix,
    encode_labels,
)


# ------------------------------------------------------------------ scalars
@pytest.mark.parametrize("value, kwargs, expected", [
    (3, dict(kind="integer", low=1), 3),
    (np.int64(4), dict(kind="integer"), 4),
    (2.0, dict(kind="integer"), 2),
    (0.5, dict(low=0, high=1, closed="neither"), 0.5),
    (0, dict(low=0), 0.0),
    (1, dict(low=0, high=1, closed="right"), 1.0),
    (np.array(0.25), dict(), 0.25),
    (np.inf, dict(allow_inf=True, low=0), np.inf),
])
def test_check_scalar_accepts(value, kwargs, expected):
    out = check_scalar(value, "x", **kwargs)
    assert out == expected
    assert type(out) is (int if kwargs.get("kind") == "integer" else float)


@pytest.mark.parametrize("value, kwargs, error, words", [
    ("1", {}, TypeError, ["alpha", "real number", "'1'"]),
    (None, {}, TypeError, ["alpha", "None"]),
    (True, {}, TypeError, ["alpha", "True"]),
    ([1.0], {}, TypeError, ["alpha", "[1.0]"]),
    (1 + 2j, {}, TypeError, ["alpha"]),
    (np.nan, {}, ValueError, ["alpha", "nan"]),
    (np.inf, {}, ValueError, ["alpha", "finite", "inf"]),
    (-0.1, dict(low=0), ValueError, ["alpha", ">= 0", "-0.1"]),
    (0, dict(low=0, closed="neither"), ValueError, ["alpha", "> 0", "0"]),
    (1, dict(low=0, high=1, closed="left"), ValueError, ["[0, 1)", "1"]),
    (1.5, dict(kind="integer"), TypeError, ["alpha", "integer", "1.5"]),
    (0, dict(kind="integer", low=1), ValueError, ["alpha", "integer >= 1", "0"]),
])
def test_check_scalar_refuses(value, kwargs, error, words):
    with pytest.raises(error) as info:
        check_scalar(value, "alpha", **kwargs)
    for word in words:
        assert word in str(info.value)


def test_check_option():
    assert check_option("kernel", "method", ("knn", "kernel")) == "kernel"
    with pytest.raises(ValueError, match=r"method must be one of \['knn', 'kernel'\], got 'x'"):
        check_option("x", "method", ("knn", "kernel"))
    with pytest.raises(ValueError, match="method"):
        check_option(["knn"], "method", {"knn", "kernel"})
    with pytest.raises(ValueError, match="method must be one of"):
        check_option(np.array([1, 2]), "method", (1, 2))


# ------------------------------------------------------------------ arrays
def test_check_array_converts_and_checks_shape():
    X = check_array([[1, 2], [3, 4]], ndim=2)
    assert X.dtype == float and X.shape == (2, 2)
    assert check_array([1, 2], ndim=(1, 2)).shape == (2,)
    assert check_array(np.array([1, 2], dtype=object)).dtype == float
    with pytest.raises(ValueError, match=r"X must be a 2-D array, got shape \(3,\); Reshape"):
        check_array([1, 2, 3], ndim=2)
    with pytest.raises(ValueError, match=r"a scalar"):
        check_array(5.0, ndim=1)
    with pytest.raises(ValueError, match="X must have at least 1 row.*empty"):
        check_array(np.zeros((0, 3)), ndim=2)
    with pytest.raises(ValueError, match=r"at least 1 column.*0 feature\(s\) \(shape=\(3, 0\)\)"):
        check_array(np.zeros((3, 0)), ndim=2)
    assert check_array(np.zeros((0,)), min_samples=0).shape == (0,)


@pytest.mark.parametrize("bad, error, words", [
    ([1.0, np.nan], ValueError, ["data", "NaN", "index (1,)"]),
    ([[1.0, 2.0], [np.inf, 0]], ValueError, ["data", "finite", "(1, 0)"]),
    (["a", "b"], TypeError, ["data", "real numbers", "<U1"]),
    ([1 + 1j], ValueError, ["data", "complex"]),
    ([object(), 1], TypeError, ["data", "real numbers"]),
    ([[1, 2], [3]], TypeError, ["data"]),
])
def test_check_array_refuses(bad, error, words):
    with pytest.raises(error) as info:
        check_array(bad, "data")
    for word in words:
        assert word in str(info.value)


def test_check_array_allows_nan_inf_when_asked():
    out = check_array([np.nan, np.inf, -np.inf], allow_nan=True, allow_inf=True)
    assert np.isnan(out[0]) and np.isinf(out[1:]).all()
    with pytest.raises(ValueError, match="finite"):
        check_array([np.nan, np.inf], allow_nan=True)


def test_check_array_sparse():
    X = sp.csr_matrix(np.array([[0, 1.0], [2, 0]]))
    with pytest.raises(TypeError, match=r"X must be a dense array.*toarray"):
        check_array(X)
    out = check_array(sp.coo_matrix(X), accept_sparse=True)
    assert sp.isspmatrix_csr(out) and np.array_equal(out.toarray(), X.toarray())
    Y = X.copy()
    Y.data[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        check_array(Y, accept_sparse=True)


@pytest.mark.parametrize("make", [np.asarray, sp.csr_matrix])
def test_check_counts(make):
    good = check_counts(make(np.array([[0, 3], [1, 0]])), integer=True)
    assert np.array_equal(good.toarray() if sp.issparse(good) else good, [[0, 3], [1, 0]])
    for bad, words in [([[0, -1.0]], ["X", "non-negative", "-1"]),
                       ([[0, 0.5]], ["X", "whole-number", "0.5"]),
                       ([[np.nan, 1.0]], ["X", "NaN"]),
                       ([[np.inf, 1.0]], ["X", "finite"])]:
        with pytest.raises(ValueError) as info:
            check_counts(make(np.array(bad)), integer=True)
        for word in words:
            assert word in str(info.value)
    assert check_counts(make(np.array([[0, 0.5]])))[0, 1] == 0.5   # fractional allowed


def test_check_counts_dense_only():
    with pytest.raises(TypeError, match="dense"):
        check_counts(sp.csr_matrix(np.eye(2)), accept_sparse=False)


# ------------------------------------------------------------------ probabilities
def test_probabilities():
    assert np.array_equal(check_probabilities([0, 0.5, 1], "p"), [0, 0.5, 1])
    with pytest.raises(ValueError, match=r"p must hold probabilities in \[0, 1\], got 1.5"):
        check_probabilities([0.2, 1.5], "p")
    with pytest.raises(ValueError, match="p must not contain NaN"):
        check_probabilities([np.nan], "p")


def test_probability_vector():
    assert np.allclose(check_probability_vector([0.2, 0.3, 0.5], "prior", size=3), [0.2, 0.3, 0.5])
    assert check_probability_vector([1 / 3] * 3, "prior").sum() == pytest.approx(1)
    with pytest.raises(ValueError, match=r"prior must sum to 1 .*got a sum of 2"):
        check_probability_vector([1.0, 1.0], "prior")
    with pytest.raises(ValueError, match="prior must have 3 entries, got 2"):
        check_probability_vector([0.5, 0.5], "prior", size=3)
    with pytest.raises(ValueError, match="prior must be a 1-D array"):
        check_probability_vector([[0.5, 0.5]], "prior")
    with pytest.raises(ValueError, match=r"prior must hold probabilities in \[0, 1\], got 1.5"):
        check_probability_vector([1.5, -0.5], "prior")
    with pytest.raises(ValueError, match="empty"):
        check_probability_vector([], "prior")


def test_stochastic_matrix():
    P = check_stochastic_matrix([[0.9, 0.1], [0.4, 0.6]], "A", shape=(2, 2))
    assert P.shape == (2, 2)
    assert check_stochastic_matrix(np.full((2, 3, 4), 0.25), "cpt").shape == (2, 3, 4)
    with pytest.raises(ValueError, match=r"A must have each row sum to 1.*0.9.*row \(1,\)"):
        check_stochastic_matrix([[0.9, 0.1], [0.4, 0.5]], "A")
    with pytest.raises(ValueError, match=r"A must have shape \(3, any\), got \(2, 2\)"):
        check_stochastic_matrix([[0.9, 0.1], [0.4, 0.6]], "A", shape=(3, None))
    with pytest.raises(ValueError, match="A must be a matrix"):
        check_stochastic_matrix([0.5, 0.5], "A")
    with pytest.raises(ValueError, match="NaN"):
        check_stochastic_matrix([[np.nan, 1.0]], "A")
    # tolerance: a typed table within 1e-6 passes, beyond does not
    check_stochastic_matrix([[0.3333333, 0.6666667]], "A")
    with pytest.raises(ValueError):
        check_stochastic_matrix([[0.33, 0.66]], "A")


# ------------------------------------------------------------------ labels
def test_check_labels_accepts():
    assert check_labels([1, 2, 2], n_samples=3).dtype.kind == "i"
    assert list(check_labels(np.array(["a", "b"], dtype=object))) == ["a", "b"]
    assert list(check_labels((True, False))) == [True, False]
    assert list(check_labels([0.0, 2.0])) == [0.0, 2.0]          # whole-number floats are classes
    assert list(check_labels([0.5, 1.5], allow_continuous=True)) == [0.5, 1.5]


@pytest.mark.parametrize("y, error, words", [
    ([1, None, 2], ValueError, ["y", "missing", "None", "index 1"]),
    ([1.0, np.nan], ValueError, ["y", "missing", "NaN"]),
    (np.array(["a", np.nan], dtype=object), ValueError, ["missing", "nan"]),
    (np.array([[1], [2]]), ValueError, ["1-D", "ravel"]),
    (np.array([[1, 2], [3, 4]]), ValueError, ["1-D", "(2, 2)"]),
    ([1, 2], ValueError, ["one label per row", "3", "2 labels"]),
    (None, ValueError, ["y", "None"]),
    ([0.5, 1.0], ValueError, ["continuous", "0.5"]),
    ([1.0, np.inf], ValueError, ["finite", "inf"]),
    ([], ValueError, ["empty"]),
    ("spam", TypeError, ["1-D sequence", "'spam'"]),
    (5, TypeError, ["1-D sequence"]),
    (np.array([[1], "a"], dtype=object), TypeError, ["hashable", "list"]),
    (np.array(["a", 1], dtype=object), TypeError, ["mix"]),
    (["a", 1], TypeError, ["mix"]),                 # numpy alone would make "1" a string
    (["a", np.nan], ValueError, ["missing", "nan"]),  # ... and NaN the string "nan"
])
def test_check_labels_refuses(y, error, words):
    n = 3 if words[0] == "one label per row" else None
    with pytest.raises(error) as info:
        check_labels(y, n_samples=n)
    for word in words:
        assert word in str(info.value)


def test_encode_labels():
    assert list(encode_labels(["b", "a", "b"], np.array(["a", "b"]))) == [1, 0, 1]
    assert list(encode_labels([3, 1], np.array([1, 2, 3]))) == [2, 0]
    with pytest.raises(ValueError, match=r"y must hold labels among the classes \[1, 2\], got unknown label\(s\) \[5\]"):
        encode_labels([1, 5], np.array([1, 2]))
    with pytest.raises(ValueError, match="unknown"):
        encode_labels(["a"], np.array([1, 2]))


# ------------------------------------------------------------------ models and shapes
class _Model:
    def fit(self):
        self.coef_ = 1
        return self


def test_check_is_fitted():
    with pytest.raises(NotFittedError, match="This _Model instance is not fitted yet"):
        check_is_fitted(_Model())
    assert issubclass(NotFittedError, ValueError) and issubclass(NotFittedError, AttributeError)
    check_is_fitted(_Model().fit())
    check_is_fitted(_Model().fit(), "coef_")
    with pytest.raises(NotFittedError):
        check_is_fitted(_Model().fit(), ["coef_", "classes_"])


def test_sklearn_recognises_not_fitted_error():
    sklearn_exc = pytest.importorskip("sklearn.exceptions")
    # sklearn's own check only demands ValueError or AttributeError: ours is both
    assert issubclass(NotFittedError, (ValueError, AttributeError))
    assert NotFittedError.__mro__[1:3] == (ValueError, AttributeError)
    assert sklearn_exc.NotFittedError.__mro__[1:3] == (ValueError, AttributeError)


def test_consistent_length_and_shape():
    check_consistent_length(X=np.zeros((3, 2)), y=[1, 2, 3])
    with pytest.raises(ValueError, match="X and y must have the same length, got: X has 3, y has 2"):
        check_consistent_length(X=np.zeros((3, 2)), y=[1, 2])
    assert check_shape(np.zeros((2, 3)), "M", (2, None)).shape == (2, 3)
    with pytest.raises(ValueError, match=r"M must have shape \(2, 2\), got \(2, 3\)"):
        check_shape(np.zeros((2, 3)), "M", (2, 2))


def test_check_rng():
    g = np.random.default_rng(0)
    assert check_rng(g) is g
    assert check_rng(1).random() == np.random.default_rng(1).random()
    assert isinstance(check_rng(None), np.random.Generator)
    with pytest.raises(TypeError, match="rng must be None, an integer seed or a numpy.random.Generator"):
        check_rng("seed")
    with pytest.raises(TypeError):
        check_rng(np.random.RandomState(0))


def test_check_table():
    from lib._validation import check_table

    assert check_table([["sunny", 1], ["rain", None]]).shape == (2, 2)
    for bad, words in [([["a"], ["b", "c"]], ["X", "2-D table", "equal length"]),
                       (["a", "b"], ["2-D table", "(2,)"]),
                       (np.empty((0, 2)), ["at least 1 row", "empty"]),
                       (np.empty((2, 0)), ["0 feature(s)", "(2, 0)"])]:
        with pytest.raises(ValueError) as info:
            check_table(bad)
        for word in words:
            assert word in str(info.value)
    with pytest.raises(TypeError, match="2-D table"):
        check_table("abc")


# ------------------------------------------------------------------ architecture
LIB = Path(__file__).resolve().parents[2] / "lib"


def lib_modules():
    """``{module name: source file}`` of every module of lib, read from the tree."""
    modules = {}
    for path in sorted(LIB.rglob("*.py")):
        parts = ("lib",) + path.relative_to(LIB).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def test_algorithm_modules_do_not_import_matplotlib():
    """Figures live in lib/plots/: importing any other module of lib (the grader, the
    glue and the validation layer included) loads no matplotlib."""
    import subprocess
    import sys

    modules = [m for m in lib_modules() if m != "lib.plots" and not m.startswith("lib.plots.")]
    assert {"lib.bn", "lib.bn.sampling", "lib.hmm", "lib.em", "lib.density"} <= set(modules)
    code = (f"import importlib, sys\nfor m in {modules!r}:\n    importlib.import_module(m)\n"
            "    if 'matplotlib' in sys.modules: sys.exit(m + ' imports matplotlib')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr


def private_imports(name, path):
    """``(line, what)`` for each import in module ``name`` of a private name across modules:
    a name starting with ``_`` from another module, or a module under a ``_`` component
    (``lib.naive_bayes._base``) from outside the package that holds it. A private
    module's own names are its package's: ``from ._base import _BaseNB`` inside
    ``lib.naive_bayes`` is fine, and so is ``lib._validation`` anywhere in ``lib``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []

    def hidden(module):  # the private components of a dotted module name this module cannot see
        parts = module.split(".")
        return [p for k, p in enumerate(parts) if p.startswith("_") and not p.startswith("__")
                and not (name + ".").startswith(".".join(parts[:k]) + ".")]

    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            targets = [(base, alias.name) for alias in node.names]
        else:
            continue
        for module, attr in targets:
            if not (module == "lib" or module.startswith("lib.")):
                continue
            if attr is not None and f"{module}.{attr}" in MODULES:  # a submodule
                module, attr = f"{module}.{attr}", None
            if hidden(module):
                found.append((node.lineno, module))
            elif attr and attr.startswith("_") and not attr.startswith("__") and not (
                    module.rpartition(".")[2].startswith("_") and (name + ".").startswith(module.rpartition(".")[0] + ".")):
                found.append((node.lineno, f"{module}.{attr}"))
    return found


MODULES = lib_modules()


@pytest.mark.parametrize("code, name, expected", [
    ("from .inference import _eliminate", "lib.bn.sampling", ["lib.bn.inference._eliminate"]),
    ("from lib.naive_bayes._base import _float_csr", "lib.text.bag_of_words", ["lib.naive_bayes._base"]),
    ("import lib.naive_bayes._base", "lib.text", ["lib.naive_bayes._base"]),
    ("from lib.plots.gaussian import _scatter", "lib.plots.naive_bayes", ["lib.plots.gaussian._scatter"]),
    ("from ._base import _BaseNB, _label\nfrom lib._validation import check_scalar", "lib.naive_bayes.counts", []),
    ("from ._common import strides\nfrom .. import _classifier", "lib.bn.sampling", []),
    ("from numpy import _core\nfrom . import _common", "lib.bn.network", []),
])
def test_private_imports_are_found(tmp_path, code, name, expected):
    path = tmp_path / "module.py"
    path.write_text(code)
    assert [what for _, what in private_imports(name, path)] == expected


def test_no_private_name_crosses_a_module():
    """Modules talk through public names (ARCHITECTURE.md): no module of lib imports a
    private name of another module, or a private module of a package it is not in."""
    found = {name: hits for name, path in MODULES.items() if (hits := private_imports(name, path))}
    assert not found, f"private names imported across modules: {found}"


def test_is_missing_knows_none_nan_pandas_na_and_markers():
    import decimal

    import pandas as pd

    from lib._validation import is_missing
    for value in (None, float("nan"), np.float32("nan"), decimal.Decimal("nan"), pd.NA):
        assert is_missing(value), value
    for value in ("?", "", 0, "a", np.array([1, 2])):
        assert not is_missing(value), value
    assert is_missing("?", markers=("?",)) and not is_missing("x", markers=("?",))
