"""The checks of discrete data of :mod:`lib._validation`: whole numbers (codes, symbols,
numbers of states), names among known ones, lists of documents, dicts of named values."""
import numpy as np

from .core import check_array, check_scalar, describe


def _range_text(low, high):
    if high is None:
        return f">= {low:g}" if low is not None else ""
    if np.ndim(high):
        return f"{low:g}..{describe(np.asarray(high).tolist())} (one bound per column)"
    return f"{low:g}..{high:g}" if low is not None else f"<= {high:g}"


def check_integers(values, name, *, what="whole numbers", low=0, high=None, ndim=None,
                   min_samples=1):
    """An array of whole numbers (integers, or floats such as 2.0) in ``low..high``,
    returned as a C-contiguous ``numpy.intp`` array: category codes, HMM symbols,
    numbers of states. ``high`` may be an array (one bound per column of a 2-D array).
    Booleans and strings raise TypeError, fractions and values out of range ValueError,
    each message naming ``what`` the array holds.

    >>> check_integers([0, 2.0, 1], "obs", what="symbols", high=2)
    array([0, 2, 1])
    >>> check_integers([0, 3], "obs", what="symbols", high=2)
    Traceback (most recent call last):
    ...
    ValueError: obs must hold symbols in 0..2, got values from 0 to 3
    """
    bounds = _range_text(low, high)
    kind = f"integer {what} {bounds}".rstrip()
    try:
        given = np.asarray(values).dtype.kind
    except (TypeError, ValueError):   # ragged: check_array says why
        given = None
    if given in ("b", "U", "S"):
        got = "booleans" if given == "b" else f"dtype {np.asarray(values).dtype}"
        raise TypeError(f"{name} must hold {kind}, got {got}")
    a = check_array(values, name, ndim=ndim, dtype=None, min_samples=min_samples)
    if a.dtype.kind == "f" and np.any(a != np.round(a)):
        raise ValueError(f"{name} must hold {kind}, got {describe(a[a != np.round(a)][0].item())}")
    if a.size and ((low is not None and a.min() < low) or (high is not None and np.any(a > high))):
        where = f"in {bounds}" if low is not None and high is not None else bounds
        raise ValueError(f"{name} must hold {what} {where}, got values from {a.min():g} to {a.max():g}")
    return np.ascontiguousarray(a, dtype=np.intp)


def check_names(values, name, known, *, what="name"):
    """One name, or a list or tuple of distinct names, each among ``known`` (e.g. the
    variables of a network); returned as a list.

    >>> check_names("rain", "variables", ["rain", "sprinkler"], what="query variable")
    ['rain']
    """
    names = [values] if isinstance(values, str) or not isinstance(values, (list, tuple)) else list(values)
    for v in names:
        try:
            ok = v in known
        except TypeError:  # unhashable
            ok = False
        if not ok:
            raise ValueError(f"{name} must name one of {describe(list(known))}: unknown {what} {describe(v)}")
    if len(set(names)) != len(names):
        raise ValueError(f"{name} must hold distinct {what}s, got {describe(names)}")
    return names


def check_items(values, name, *, item="document", kinds=(str,)):
    """A non-empty list of items (documents, sentences), each an instance of ``kinds``;
    one string where a list is expected raises TypeError. Returned as a list.

    >>> check_items(("a b", "c"), "corpus")
    ['a b', 'c']
    """
    if isinstance(values, str):
        raise TypeError(f"{name} must be a list of {item}s, not a single str")
    try:
        values = list(values)
    except TypeError:
        raise TypeError(f"{name} must be a list of {item}s, got {type(values).__name__}") from None
    if not values:
        raise ValueError(f"{name} must hold at least one {item}, got none (empty {name})")
    for i, value in enumerate(values):
        if not isinstance(value, kinds):
            raise TypeError(f"{item} {i} of the {name} must be a "
                            f"{' or '.join(k.__name__ for k in kinds)}, got {type(value).__name__}")
    return values


def check_index_map(mapping, name, *, size=None, what="key"):
    """A dict ``key -> column`` onto the distinct columns ``0 .. len - 1`` (``size``
    of them, if given), such as a vocabulary word -> column. Returns it.

    >>> check_index_map({"b": 1, "a": 0}, "vocabulary", size=2)
    {'b': 1, 'a': 0}
    """
    if not isinstance(mapping, dict):
        raise TypeError(f"{name} must be a dict {what} -> column, got {type(mapping).__name__}")
    if size is not None and len(mapping) != size:
        raise ValueError(f"{name} must have one {what} per column ({size}), got {len(mapping)}")
    positions = sorted(mapping.values())
    if positions != list(range(len(mapping))):
        raise ValueError(f"{name} must map its {what}s to the distinct columns "
                         f"0..{len(mapping) - 1}, got {describe(positions[:8])}")
    return mapping


def check_keyed_numbers(mapping, name, keys, *, low=None):
    """A dict with (at least) ``keys``, each a real number ``>= low``; returns a new dict
    of those keys with Python floats.

    >>> check_keyed_numbers({"c": 3, "l": 1}, "counts", ("c", "l"), low=0)
    {'c': 3.0, 'l': 1.0}
    """
    if not isinstance(mapping, dict) or set(keys) - set(mapping):
        raise ValueError(f"{name} must be a dict with the keys {tuple(keys)}, got {describe(mapping)}")
    return {key: check_scalar(mapping[key], f"{name}[{key!r}]", low=low) for key in keys}
