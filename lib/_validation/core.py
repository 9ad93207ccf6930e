"""The scalar, array and label checks of :mod:`lib._validation`."""
import numbers

import numpy as np
import scipy.sparse as sp


def describe(value, limit=60):
    """A short text for the 'got ...' part of a message."""
    if isinstance(value, np.ndarray) and value.size > 6:
        return f"array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


# --------------------------------------------------------------------------- scalars
_BRACKETS = {"both": ("[", "]"), "left": ("[", ")"), "right": ("(", "]"), "neither": ("(", ")")}


def _interval_text(low, high, closed):
    left, right = _BRACKETS[closed]
    if high is None:
        return (">= " if left == "[" else "> ") + f"{low:g}"
    if low is None:
        return ("<= " if right == "]" else "< ") + f"{high:g}"
    return f"in {left}{low:g}, {high:g}{right}"


def check_scalar(value, name, *, kind="real", low=None, high=None, closed="both",
                 allow_inf=False):
    """Check one number: its kind ('real' or 'integer') and the interval it lies in.

    ``closed`` says which bounds are included: 'both', 'left', 'right' or 'neither'.
    Booleans, strings, None and arrays are refused (TypeError); NaN, and infinity
    unless ``allow_inf``, are refused (ValueError). Returns a Python float or int.

    >>> check_scalar(3, "k", kind="integer", low=1)
    3
    >>> check_scalar(0.5, "level", low=0, high=1, closed="neither")
    0.5
    """
    if closed not in _BRACKETS:
        raise ValueError(f"closed must be one of {list(_BRACKETS)}, got {closed!r}")
    if kind not in ("real", "integer"):
        raise ValueError(f"kind must be 'real' or 'integer', got {kind!r}")
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    given = value
    what = "an integer" if kind == "integer" else "a real number"
    if low is not None or high is not None:
        what += " " + _interval_text(low, high, closed)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {what}, got {describe(value)} "
                        f"(type {type(value).__name__})")
    if kind == "integer":
        if isinstance(value, numbers.Integral):
            value = int(value)
        elif np.isfinite(value) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be {what}, got {describe(value)}")
    else:
        value = float(value)
        if np.isnan(value):
            raise ValueError(f"{name} must be {what}, got nan")
        if np.isinf(value) and not allow_inf:
            raise ValueError(f"{name} must be {what} and finite, got {value}")
    lo_ok = low is None or (value >= low if closed in ("both", "left") else value > low)
    hi_ok = high is None or (value <= high if closed in ("both", "right") else value < high)
    if not (lo_ok and hi_ok):
        raise ValueError(f"{name} must be {what}, got {describe(given)}")
    return value


def check_option(value, name, options):
    """Check that ``value`` is one of ``options`` (e.g. a method name); return it.

    >>> check_option("knn", "method", ("knn", "kernel"))
    'knn'
    """
    try:
        ok = value in options
    except (TypeError, ValueError):  # unhashable value, or an array compared elementwise
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {list(options)}, got {describe(value)}")
    return value


# --------------------------------------------------------------------------- arrays
def _issparse(X):
    return sp.issparse(X)


def _check_finite(values, name, allow_nan, allow_inf):
    if (allow_nan and allow_inf) or np.isfinite(values).all():   # one pass when all is well
        return
    if not allow_nan:
        nan = np.isnan(values)
        if nan.any():
            raise ValueError(f"{name} must not contain NaN, got {int(nan.sum())} NaN value(s) "
                             f"(first at index {tuple(int(i) for i in np.argwhere(nan)[0])})")
    if not allow_inf:
        inf = np.isinf(values)
        if inf.any():
            raise ValueError(f"{name} must be finite, got {int(inf.sum())} infinite value(s) "
                             f"(first at index {tuple(int(i) for i in np.argwhere(inf)[0])})")


def check_array(X, name="X", *, ndim=None, dtype=float, allow_nan=False, allow_inf=False,
                min_samples=1, min_features=1, accept_sparse=False):
    """Check a numeric array and return it as a numpy array of ``dtype`` (None keeps it).

    ``ndim``: an int or a tuple of allowed numbers of dimensions (None: any).
    ``min_samples``: least length of axis 0; ``min_features``: least length of axis 1
    (2-D arrays only). NaN and infinity are refused unless allowed. Strings, objects and
    complex numbers raise TypeError. A scipy.sparse matrix raises TypeError unless
    ``accept_sparse`` (then it is returned as CSR, converted to ``dtype`` on the same,
    possibly unsorted, indices, with its stored values checked).

    >>> check_array([[1, 2], [3, 4]], ndim=2).dtype
    dtype('float64')
    """
    if _issparse(X):
        if not accept_sparse:
            raise TypeError(f"{name} must be a dense array, got a scipy.sparse matrix "
                            f"of shape {X.shape}; convert it with {name}.toarray()")
        X = X.tocsr()
        if X.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {X.dtype}")
        if dtype is not None and X.dtype != dtype:
            # the values only: scipy's astype sums duplicates, which sorts the column indices
            # of every row of a non-canonical matrix (CountVectorizer's output is one), most of
            # the time of a naive Bayes fit; sums and products need no sorted indices
            X = type(X)((X.data.astype(dtype), X.indices, X.indptr), shape=X.shape)
        _check_finite(X.data, f"{name} (stored values)", allow_nan, allow_inf)
        arr_shape = X.shape
    else:
        try:
            arr = np.asarray(X)
            if arr.dtype.kind == "O":
                arr = arr.astype(float)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be an array of real numbers (each argument must be a "
                            f"string or a number convertible to float), got {describe(X)}") from None
        if arr.dtype.kind == "c":
            raise ValueError(f"{name} must hold real numbers, got complex values "
                             f"(Complex data not supported)")
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}: "
                            f"{describe(X)}")
        if dtype is not None:
            arr = arr.astype(dtype, copy=False)
        arr_shape = arr.shape
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if len(arr_shape) not in allowed:
            dims = " or ".join(f"{d}-D" for d in allowed)
            hint = ""
            if allowed == (2,) and len(arr_shape) == 1:
                hint = (f"; Reshape your data: {name}.reshape(-1, 1) for one feature or "
                        f"{name}.reshape(1, -1) for one sample")
            raise ValueError(f"{name} must be a {dims} array, got shape {arr_shape}"
                             + (" (a scalar)" if not arr_shape else "") + hint)
    if len(arr_shape) >= 1 and arr_shape[0] < min_samples:
        raise ValueError(f"{name} must have at least {min_samples} row(s)/value(s), "
                         f"got shape {arr_shape} (empty data)")
    if len(arr_shape) == 2 and arr_shape[1] < min_features:
        raise ValueError(f"{name} must have at least {min_features} column(s) (features): found "
                         f"{arr_shape[1]} feature(s) (shape={arr_shape}) while a minimum of "
                         f"{min_features} is required.")
    if _issparse(X):
        return X
    if arr.dtype.kind == "f":
        _check_finite(arr, name, allow_nan, allow_inf)
    return arr


def check_points(X, name="X", d=None):
    """``X`` as a finite float matrix ``(n, d)`` of points, one per row; a 1-D array is
    ``n`` points of one coordinate. ``d``, if given, is the number of coordinates the
    points must have (those of the data they are compared with).

    The data of the EM modules (Chapter 7) and of density estimation (Chapter 9).

    >>> check_points([1.0, 2.0]).shape
    (2, 1)
    >>> check_points([[0.0, 1.0]], "query", d=1)
    Traceback (most recent call last):
    ...
    ValueError: query has 2 dimensions but the data have 1
    """
    a = check_array(X, name, ndim=(1, 2))
    if a.ndim == 1:
        a = a[:, None]
    if d is not None and a.shape[1] != d:
        raise ValueError(f"{name} has {a.shape[1]} dimensions but the data have {d}")
    return a


def check_binary(values, name, *, ndim=None, min_samples=1):
    """0/1 labels (True/False allowed): returned as a bool array.

    >>> check_binary([1, 0, True], "y")
    array([ True, False,  True])
    """
    arr = check_array(values, name, ndim=ndim, dtype=None, min_samples=min_samples)
    bad = arr[~np.isin(arr, (0, 1))]
    if bad.size:
        first = bad[0].item() if isinstance(bad[0], np.generic) else bad[0]
        raise ValueError(f"{name} must hold 0/1 labels (or True/False), got {describe(first)}")
    return arr.astype(bool)


def check_table(X, name="X", *, min_samples=1, min_features=1):
    """Check a 2-D table of nominal values (strings, numbers, any objects).

    Accepts nested lists, arrays and pandas DataFrames; returns an object array of
    shape (rows, columns). Ragged rows, other shapes, no rows or no columns raise
    ValueError; a scipy.sparse matrix or a string raises TypeError. Missing values
    (None, NaN) are left for the caller to handle.

    >>> check_table([["sunny", "hot"], ["rain", "mild"]]).shape
    (2, 2)
    """
    if _issparse(X) or isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be a 2-D table of values (rows = examples), "
                        f"got {describe(X)}")
    if hasattr(X, "to_numpy"):  # a pandas DataFrame
        X = X.to_numpy(dtype=object)
    try:
        arr = np.asarray(X, dtype=object)
    except ValueError:
        raise ValueError(f"{name} must be a 2-D table with rows of equal length, "
                         f"got {describe(X)}") from None
    if arr.ndim != 2 or any(isinstance(v, (list, np.ndarray)) for v in arr.flat):
        hint = (f"; Reshape your data: {name}.reshape(-1, 1) for one attribute or "
                f"{name}.reshape(1, -1) for one example") if arr.ndim == 1 else ""
        raise ValueError(f"{name} must be a 2-D table (examples x attributes) with rows of "
                         f"equal length, got shape {arr.shape}: {describe(X)}{hint}")
    if arr.shape[0] < min_samples:
        raise ValueError(f"{name} must have at least {min_samples} row(s), got shape "
                         f"{arr.shape} (empty data)")
    if arr.shape[1] < min_features:
        raise ValueError(f"{name} must have at least {min_features} column(s) (attributes): "
                         f"found {arr.shape[1]} feature(s) (shape={arr.shape}) while a minimum "
                         f"of {min_features} is required.")
    return arr


def check_counts(X, name="X", *, integer=False, ndim=2, accept_sparse=True, min_samples=1,
                 min_features=1):
    """Check count data: finite, non-negative (and whole numbers if ``integer``).

    Dense input comes back as a float array, sparse input as a float CSR matrix.

    >>> check_counts([[0, 2], [1, 0]], integer=True)
    array([[0., 2.],
           [1., 0.]])
    """
    X = check_array(X, name, ndim=ndim, accept_sparse=accept_sparse, min_samples=min_samples,
                    min_features=min_features)
    values = X.data if _issparse(X) else X
    if values.size and values.min() < 0:
        raise ValueError(f"{name} must hold non-negative counts, got a minimum of "
                         f"{values.min():g} (Negative values in data)")
    if integer and values.size and not np.all(values == np.round(values)):
        bad = values[values != np.round(values)][0]
        raise ValueError(f"{name} must hold whole-number counts, got {bad:g}")
    return X


def check_probabilities(p, name, *, ndim=None, min_samples=1):
    """Check an array of probabilities (each finite and in [0, 1]; no sum constraint).

    >>> check_probabilities([0.2, 1.0], "p")
    array([0.2, 1. ])
    """
    p = check_array(p, name, ndim=ndim, min_samples=min_samples)
    if p.size and (p.min() < 0 or p.max() > 1):
        bad = p[(p < 0) | (p > 1)][0]
        raise ValueError(f"{name} must hold probabilities in [0, 1], got {bad:g}")
    return p


def check_weights_array(values, name, *, sums_to_one=False, at_most_one=False):
    """A non-empty array of finite, non-negative numbers (likelihoods, priors, class
    probabilities): at most 1 if ``at_most_one``, summing to 1 over the last axis
    (within 1e-9) if ``sums_to_one``. Returns it as a float array."""
    arr = check_array(values, name, min_samples=0)
    if arr.ndim == 0 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty array, got {describe(values)}")
    if (arr < 0).any():
        raise ValueError(f"{name} contains a negative probability: {arr.min():g}")
    if at_most_one and (arr > 1 + 1e-12).any():
        raise ValueError(f"{name} contains a probability greater than 1: {arr.max():g}")
    if sums_to_one:
        check = check_probability_vector if arr.ndim == 1 else check_stochastic_matrix
        check(arr, f"{name} (over the last axis)", atol=1e-9)
    return arr


def _check_sums(p, name, atol, what):
    sums = p.sum(axis=-1)
    bad = np.abs(sums - 1.0) > atol
    if bad.any():
        where = "" if p.ndim == 1 else f" (row {tuple(int(i) for i in np.argwhere(bad)[0])})"
        raise ValueError(f"{name} must {what}sum to 1 (tolerance {atol:g}), got a sum of "
                         f"{np.atleast_1d(sums)[bad.ravel()][0]:.6g}{where}")


def check_probability_vector(p, name, *, size=None, atol=1e-6):
    """Check a 1-D probability distribution: finite, non-negative, sums to one.

    ``size``: the required length (None: any non-zero length).

    >>> check_probability_vector([0.25, 0.75], "prior", size=2)
    array([0.25, 0.75])
    """
    p = check_probabilities(p, name, ndim=1)
    if size is not None and p.size != size:
        raise ValueError(f"{name} must have {size} entries, got {p.size}")
    _check_sums(p, name, atol, "")
    return p


def check_stochastic_matrix(P, name, *, shape=None, atol=1e-6):
    """Check a stochastic matrix (or stack): entries in [0, 1], each row sums to one.

    ``shape``: the required shape, None entries are free (e.g. ``(K, None)``).

    >>> check_stochastic_matrix([[0.9, 0.1], [0.5, 0.5]], "transmat", shape=(2, 2)).shape
    (2, 2)
    """
    P = check_probabilities(P, name, ndim=None if shape is None else len(shape))
    if P.ndim < 2:
        raise ValueError(f"{name} must be a matrix (rows = distributions), got shape {P.shape}")
    if shape is not None:
        check_shape(P, name, shape)
    if P.shape[-1] == 0:
        raise ValueError(f"{name} must have at least one column, got shape {P.shape}")
    _check_sums(P, name, atol, "have each row ")
    return P


# --------------------------------------------------------------------------- labels
def is_missing(value, markers=()):
    """Whether one value marks a missing entry: ``None``, a NaN (float, numpy, decimal),
    or one of ``markers`` (the Bayesian-network data of Chapters 6-7 pass ``("?",)``, the
    question mark of the source's tables)."""
    if value is None:
        return True
    try:
        if value != value:  # NaN
            return True
    except (TypeError, ValueError):
        return type(value).__name__ == "NAType"   # pandas.NA: its comparisons are NA
    return isinstance(value, str) and value in markers


def check_labels(y, name="y", *, n_samples=None, min_samples=1, allow_continuous=False):
    """Check class labels: 1-D, hashable, no None/NaN, not a mix of strings and numbers.

    ``n_samples``: the number of rows of X the labels go with. Float labels must be
    whole numbers (1.0, 2.0) unless ``allow_continuous``: a classifier given
    continuous targets (0.37, 1.52, ...) raises ValueError, as in scikit-learn.
    Returns a numpy array (numeric labels keep their dtype; strings and mixed objects
    an object/str array).

    >>> check_labels(["spam", "ham"], n_samples=2)
    array(['spam', 'ham'], dtype='<U4')
    """
    if y is None:
        raise ValueError(f"{name} must be a 1-D sequence of labels, got None (this estimator "
                         f"requires y to be passed, but the target y is None)")
    if _issparse(y):
        raise TypeError(f"{name} must be a 1-D sequence of labels, got a scipy.sparse matrix")
    if isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D sequence of labels, got {describe(y)}")
    arr = np.asarray(y)
    if arr.ndim == 0:
        raise TypeError(f"{name} must be a 1-D sequence of labels, got {describe(y)}")
    if arr.dtype.kind in "US" and not isinstance(y, np.ndarray):
        # numpy turns ["a", 1] or ["a", nan] into strings: look at the original values
        objects = np.empty(len(y), dtype=object)
        objects[:] = list(y)
        _check_label_objects(objects, name)
    if arr.dtype.kind == "O" and arr.ndim > 1:  # ragged or nested objects
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.ndim == 2 and arr.shape[1] == 1:
        raise ValueError(f"{name} must be 1-D, got a column of shape {arr.shape}; "
                         f"use {name}.ravel()")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if n_samples is not None and arr.shape[0] != n_samples:
        raise ValueError(f"{name} must have one label per row of X ({n_samples}), "
                         f"got {arr.shape[0]} labels")
    if arr.shape[0] < min_samples:
        raise ValueError(f"{name} must have at least {min_samples} label(s), got none "
                         f"(empty data)")
    if arr.dtype.kind == "f":
        if np.isnan(arr).any():
            raise ValueError(f"{name} must not contain missing labels, got NaN at index "
                             f"{int(np.flatnonzero(np.isnan(arr))[0])}")
        if np.isinf(arr).any():
            raise ValueError(f"{name} must hold finite labels, got inf")
        if not allow_continuous and not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} must hold class labels, got continuous values such as "
                             f"{arr[arr != np.round(arr)][0]:g} (Unknown label type: continuous)")
    elif arr.dtype.kind == "c":
        raise ValueError(f"{name} must hold class labels, got complex numbers "
                         f"(Complex data not supported)")
    elif arr.dtype.kind == "O":
        _check_label_objects(arr, name)
    return arr


def _check_label_objects(arr, name):
    """Labels of a 1-D object array: present, hashable, not strings mixed with others."""
    kinds = set()
    for i, value in enumerate(arr):
        if is_missing(value):
            raise ValueError(f"{name} must not contain missing labels, got {value!r} "
                             f"at index {i}")
        try:
            hash(value)
        except TypeError:
            raise TypeError(f"{name} must hold hashable labels, got "
                            f"{type(value).__name__} at index {i}") from None
        kinds.add("str" if isinstance(value, (str, bytes, np.str_)) else "other")
    if len(kinds) > 1:
        raise TypeError(f"{name} must not mix strings and other labels, got "
                        f"{describe(list(arr[:6]))}")


def encode_labels(y, classes, name="y"):
    """Positions of the labels ``y`` in ``classes``; a label not in ``classes`` raises.

    >>> encode_labels(["b", "a"], np.array(["a", "b"]))
    array([1, 0])
    """
    y = check_labels(y, name)
    index = {c: i for i, c in enumerate(np.asarray(classes).tolist())}
    codes = [index.get(v, -1) for v in y.tolist()]
    unknown = [v for v, c in zip(y.tolist(), codes) if c < 0]
    if unknown:
        raise ValueError(f"{name} must hold labels among the classes "
                         f"{describe(list(index))}, got unknown label(s) {describe(unknown[:5])}")
    return np.asarray(codes, dtype=int)


def check_scale(value, name):
    """A standard deviation or kernel width: a real number ``> 0`` whose square is a
    normal, finite float (``value ** 2`` neither underflows to 0 nor overflows), so that
    ``x / value ** 2`` and ``log(value ** 2)`` are right. Returns a Python float.

    >>> check_scale(1e-200, "sigma")
    Traceback (most recent call last):
    ...
    ValueError: sigma must be a real number in [1.5e-154, 1.3e+154] (its square must be a finite, normal float), got 1e-200
    """
    value = check_scalar(value, name, low=0, closed="neither")
    low, high = np.sqrt(np.finfo(float).tiny), np.sqrt(np.finfo(float).max)
    if not low <= value <= high:
        raise ValueError(f"{name} must be a real number in [{low:.2g}, {high:.2g}] (its square "
                         f"must be a finite, normal float), got {describe(value)}")
    return value


def check_shape(a, name, shape):
    """Check ``a.shape`` against ``shape`` (None entries are free); return ``a``."""
    actual = np.shape(a)
    if len(actual) != len(shape) or any(s is not None and s != t for s, t in zip(shape, actual)):
        wanted = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
        raise ValueError(f"{name} must have shape {wanted}, got {actual}")
    return a


def check_rng(rng, name="rng", *, seeds=True):
    """A numpy Generator from None, an integer seed or a Generator (anything else: TypeError).

    ``seeds=False`` accepts a Generator only: for functions a chapter calls again and
    again on one stream, where a seed would repeat the same draws every time.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if not seeds:
        raise TypeError(f"{name} must be a numpy.random.Generator, e.g. np.random.default_rng(0), "
                        f"got {describe(rng)}")
    if rng is None or (isinstance(rng, numbers.Integral) and not isinstance(rng, bool)):
        return np.random.default_rng(rng)
    raise TypeError(f"{name} must be None, an integer seed or a numpy.random.Generator "
                    f"(e.g. np.random.default_rng(0)), got {describe(rng)}")
