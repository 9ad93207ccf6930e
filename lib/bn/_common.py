"""Small pieces shared by the modules of :mod:`lib.bn`: the missing-value code, the
refusal of impossible evidence, C-order strides, and :class:`NetworkArrays`, the
integer-indexed arrays of a network that the algorithms work on. A missing value in data is what
``lib._validation.is_missing(value, MARKERS)`` says: None, NaN or the source's "?"."""
import math
from dataclasses import dataclass, field, replace

import numpy as np

from lib.errors import ImpossibleEvidenceError  # noqa: F401  (raised by every inference method)

MISSING = -1
MARKERS = ("?",)   # besides None and NaN, the source's tables write "?" for a missing value


def strides(cards):
    """C-order strides of an array with axis lengths ``cards`` (row index of a CPT)."""
    cards = np.asarray(cards, dtype=np.int64)
    if cards.size == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([np.cumprod(cards[::-1])[::-1][1:], [1]]).astype(np.int64)


def check_codes(card, variables, evidence, names=("variables", "evidence")):
    """Check the integer form of a query: ``variables`` a list of distinct variable
    indices, ``evidence`` a dict ``{variable index: state code}`` (``card[i]`` states of
    variable ``i``), as :meth:`BayesNet.evidence_codes` makes it. Returns both."""
    n, variables = len(card), list(variables)

    def index(i):
        return isinstance(i, (int, np.integer)) and not isinstance(i, bool) and 0 <= i < n

    if not all(map(index, variables)) or len(set(variables)) != len(variables):
        raise ValueError(f"{names[0]} must be distinct variable indices 0..{n - 1} (net.index[name]), "
                         f"got {list(variables)!r}")
    if not isinstance(evidence, dict):
        raise TypeError(f"{names[1]} must be a dict {{variable index: state code}} "
                        f"(net.evidence_codes), got {type(evidence).__name__}")
    for i, code in evidence.items():
        if not (index(i) and isinstance(code, (int, np.integer)) and 0 <= code < card[i]):
            raise ValueError(f"{names[1]} must map variable indices 0..{n - 1} to their state codes "
                             f"(net.evidence_codes), got {i!r}: {code!r}")
    return variables, evidence


def unique_rows(table, return_inverse=False, return_counts=False):
    """``np.unique(table, axis=0, ...)`` for a 2-D array of integer codes or booleans: the
    same sorted distinct rows, inverse (always 1-D) and counts, found by sorting one
    integer per row (the row's mixed-radix code, first column most significant, so that
    the codes sort as the rows do) instead of the rows as records, which numpy does
    about a hundred times slower. EM and structural EM group their data rows by pattern
    with it (Chapter 7); codes that would not fit 62 bits fall back to ``np.unique``.

    >>> rows, inverse, counts = unique_rows([[1, -1], [0, 2], [1, -1]], True, True)
    >>> rows.tolist(), inverse.tolist(), counts.tolist()
    ([[0, 2], [1, -1]], [1, 0, 1], [1, 2])
    """
    table = np.asarray(table)
    if table.ndim != 2:
        raise ValueError(f"unique_rows needs a 2-D array, got {table.ndim} dimensions")
    coded = table.size > 0 and table.dtype.kind in "biu"
    if coded:
        low = table.min(axis=0).astype(np.int64)
        radix = table.max(axis=0).astype(np.int64) - low + 1
        coded = sum(math.log2(r) for r in radix.tolist()) < 62
    if coded:
        codes = (table.astype(np.int64) - low) @ strides(radix)
        _, first, inverse, counts = np.unique(codes, return_index=True, return_inverse=True,
                                              return_counts=True)
        rows = table[first]
    else:
        rows, inverse, counts = np.unique(table, axis=0, return_inverse=True, return_counts=True)
    extra = [v.ravel() for v, wanted in zip((inverse, counts), (return_inverse, return_counts)) if wanted]
    return (rows, *extra) if extra else rows


def _frozen(table):
    """A read-only view of ``table`` (the owner's array stays writeable)."""
    view = np.asarray(table).view()
    view.flags.writeable = False
    return view


@dataclass(frozen=True)
class NetworkArrays:
    """Integer-indexed, read-only arrays of a :class:`BayesNet` (``net.arrays``), the data
    the algorithms of :mod:`lib.bn` work on. Variable ``i`` is ``net.names[i]``; state
    ``k`` of it is ``net.states[name][k]``; each tuple has one entry per variable.

    ``plans`` caches elimination orders (they depend on the graph only, so it survives
    :meth:`BayesNet.set_cpts`).

    Examples
    --------
    >>> from lib.datasets import load_network
    >>> arrays = load_network("asia").arrays
    >>> arrays.card.tolist()
    [2, 2, 2, 2, 2, 2, 2, 2]
    >>> arrays.parents[:3]
    ((), (0,), ())
    """

    card: np.ndarray                 # number of states of each variable
    parents: tuple                   # parent indices of each variable
    children: tuple                  # child indices of each variable
    topo: tuple                      # variable indices in topological order
    strides: tuple                   # parents' state codes @ strides[i] = row of CPT i
    cpt: tuple                       # CPTs, shape (|U1|, ..., |Uk|, |X|)
    rows: tuple                      # CPTs as (parent configurations, states)
    log_rows: tuple                  # log of ``rows`` (-inf for a zero)
    cumulative_rows: tuple           # ``rows`` summed along the states (for sampling)
    plans: dict = field(default_factory=dict, repr=False, compare=False)

    def with_cpts(self, tables):
        """The same structure with the CPTs ``tables`` (one per variable, in order)."""
        rows = tuple(_frozen(t.reshape(-1, t.shape[-1])) for t in tables)
        with np.errstate(divide="ignore"):
            logs = tuple(_frozen(np.log(r)) for r in rows)
        return replace(self, cpt=tuple(_frozen(t) for t in tables), rows=rows, log_rows=logs,
                       cumulative_rows=tuple(_frozen(np.cumsum(r, axis=1)) for r in rows))
