"""Constraint-based structure learning: conditional independence tests and the PC
algorithm.

Chapter 6, section "Other scores and independence tests": :func:`ci_test` (the
G-test or Pearson's chi-square test of ``X _|_ Y | Z`` on discrete data, summed over
the configurations of ``Z``, as pgmpy's ``chi_square`` / ``g_sq``) and :func:`pc`
(Spirtes, Glymour & Scheines 2000): remove the link between two variables as soon as
some set of their neighbours makes them independent, then orient the v-structures and
propagate with Meek's rules, which yields the CPDAG of :mod:`lib.bn.independence`.
Section "PC as it is practised" adds the untestable convention, PC-stable and the
conservative and majority orientation rules (Ramsey, Zhang & Spirtes 2006; Colombo &
Maathuis 2014).
"""
import hashlib
import math
from collections import namedtuple
from itertools import combinations

import numpy as np
from scipy.special import chdtrc

from lib._validation import check_scalar

from ._common import strides
from .independence import meek_rules
from .network import BayesNet
from .structure import infer_states

__all__ = ["ci_test", "pc", "CITest", "PCResult"]

CITest = namedtuple("CITest", ["statistic", "dof", "p_value"])
PCResult = namedtuple("PCResult", ["skeleton", "cpdag", "sepsets", "tests", "ambiguous"],
                      defaults=(frozenset(),))
PCResult.__doc__ = """Result of :func:`pc`: the skeleton (set of frozensets), the CPDAG
(:class:`lib.bn.independence.CPDAG`), the separating set found for each removed link
(``{frozenset({x, y}): set}``), the list of tests ``(x, y, given, p_value)`` and the
unshielded triples the orientation rule left undecided (``(frozenset({x, y}), m)``)."""

_METHODS = ("g2", "chi2")
_ORIENT = ("standard", "conservative", "majority")


def _encode(data, states):
    states = infer_states(data, "ci_test") if states is None else states
    net = BayesNet([(n, s) for n, s in states.items()])
    return net, net.encode(data)


def _test_codes(X, card, i, j, given, method):
    """Sum over the configurations of ``given`` of the statistic of the ``X_i`` by
    ``X_j`` table; each table keeps only its non-empty rows and columns, and has
    ``(rows - 1)(columns - 1)`` degrees of freedom."""
    z = X[:, given] @ strides(card[given]) if given else np.zeros(len(X), dtype=int)
    ci, cj = card[i], card[j]
    cells = np.bincount((z * ci + X[:, i]) * cj + X[:, j],
                        minlength=int(z.max() + 1) * ci * cj).reshape(-1, ci, cj)
    stat, dof = 0.0, 0
    for t in cells:
        t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0].astype(float)
        if t.size == 0:
            continue
        e = t.sum(axis=1, keepdims=True) * t.sum(axis=0, keepdims=True) / t.sum()
        if method == "g2":
            nz = t > 0
            stat += 2.0 * float(np.sum(t[nz] * np.log(t[nz] / e[nz])))
        else:
            stat += float(np.sum((t - e) ** 2 / e))
        dof += (t.shape[0] - 1) * (t.shape[1] - 1)
    # chdtrc is scipy.stats.chi2.sf without the distribution machinery (40 times faster)
    return CITest(stat, dof, float(chdtrc(dof, stat)) if dof > 0 else 1.0)


# Tests already done, by data set: PC run over many orders of one sample (Chapter 6,
# "PC as it is practised"; set 06's q12) repeats most of its tests, on the same data.
_DONE = {}
_DONE_MAX = 200_000


def _remembered_test(data_key, X, card, i, j, given, method):
    """:func:`_test_codes` of ``X_i`` and ``X_j`` given ``given`` (a tuple), computed once per
    data set ``data_key`` (a digest of the encoded data, its cardinalities and ``method``)."""
    key = (data_key, i, j, given)
    if key not in _DONE:
        if len(_DONE) >= _DONE_MAX:
            _DONE.clear()
        _DONE[key] = _test_codes(X, card, i, j, list(given), method)
    return _DONE[key]


def ci_test(data, x, y, given=(), states=None, method="g2"):
    """Test ``x _|_ y | given`` on complete discrete data (columns of labels or a list
    of ``{variable: state}`` rows).

    ``method="g2"``: the likelihood-ratio G statistic ``2 sum O ln(O/E)``;
    ``"chi2"``: Pearson's ``sum (O-E)^2/E``. In each configuration of ``given`` the
    expected counts ``E`` are those of independence; statistics and degrees of freedom
    add up over the configurations, and the p-value is the chi-square tail. A small
    p-value is evidence of dependence. Returns ``CITest(statistic, dof, p_value)``.

    Used in: Chapter 6, section "Other scores and independence tests".

    Examples
    --------
    >>> import numpy as np
    >>> from lib.bn import sample
    >>> from lib.datasets import load_network
    >>> data = sample(load_network("asia"), 2000, rng=np.random.default_rng(0))
    >>> ci_test(data, "smoke", "xray").p_value < 0.01
    True
    >>> ci_test(data, "smoke", "xray", ["lung"]).p_value > 0.05
    True
    """
    if method not in _METHODS:
        raise ValueError(f"method must be 'g2' or 'chi2', got {method!r}")
    net, X = _encode(data, states)
    given = [given] if isinstance(given, str) else list(given)
    for v, what in [(x, "x"), (y, "y")] + [(g, "given") for g in given]:
        if v not in net.index:
            raise ValueError(f"{what} {v!r} is not a column of the data {net.names}")
    if x == y or x in given or y in given:
        raise ValueError(f"x, y and given must be distinct, got x={x!r}, y={y!r}, given={given}")
    card = net.arrays.card
    return _test_codes(X, card, net.index[x], net.index[y], [net.index[g] for g in given], method)


def pc(data, states=None, alpha=0.01, max_cond=3, method="g2", untestable="independent",
       stable=False, order=None, orient="standard"):
    """The PC algorithm: start from the complete undirected graph; for
    ``l = 0, 1, ..., max_cond``, remove the link ``x - y`` when a set ``S`` of ``l``
    current neighbours of ``x`` (or of ``y``) gives ``ci_test(x, y, S)`` a p-value
    above ``alpha``, remembering ``S``. Then direct ``x -> c <- y`` for every
    unlinked pair with a common neighbour ``c`` outside their separating set, and
    apply Meek's rules. Returns a :class:`~lib.bn.constraint.PCResult`.

    ``untestable`` says what a test with zero degrees of freedom (no data to test
    with) means: ``"independent"`` (p = 1, the link goes) or ``"dependent"`` (it is
    skipped and cannot remove the link; pgmpy's tests return NaN there and keep it).
    ``stable=True`` is PC-stable (Colombo and Maathuis 2014): the neighbour sets used
    at each level are those at the start of the level, so the skeleton does not depend
    on the order of the variables. The separating sets still can (when sets drawn from
    both ends' neighbours separate a pair, the end visited first supplies the one
    recorded), and with them the v-structures and the CPDAG. The conservative and
    majority rules below decide each triple from the final skeleton alone, so with
    ``stable=True`` their CPDAG does not depend on the order either. ``order`` (a list of the variable
    names) is the order in which the pairs are visited (default: the network's order).

    ``orient`` decides each unshielded triple ``x - m - y`` (``x``, ``y`` unlinked):
    ``"standard"`` makes it a collider ``x -> m <- y`` when ``m`` is not in the one
    separating set recorded for ``x, y``. ``"conservative"`` (Ramsey, Zhang & Spirtes
    2006) and ``"majority"`` (Colombo & Maathuis 2014) test ``x, y`` again given every
    subset (of at most ``max_cond`` variables) of the final neighbours of ``x`` and of
    ``y``, and keep the sets that separate them: conservative PC makes a collider when
    ``m`` is in none of them, a non-collider when it is in all, and leaves the triple
    ambiguous otherwise; majority PC makes a collider when ``m`` is in fewer than half,
    a non-collider when in more than half, and is ambiguous at exactly half. A triple
    with no separating set at all is ambiguous. Ambiguous triples get no arrows, and
    Meek's rules do not read them as non-colliders.

    Used in: Chapter 6, sections "Other scores and independence tests" and "PC as it
    is practised" (its part "Orienting by all the separating sets").

    Examples
    --------
    >>> import numpy as np
    >>> from lib.bn import sample
    >>> from lib.datasets import load_network
    >>> result = pc(sample(load_network("asia"), 2000, rng=np.random.default_rng(1)))
    >>> sorted(tuple(sorted(link)) for link in result.skeleton)  # five of ASIA's eight links
    [('bronc', 'dysp'), ('bronc', 'smoke'), ('either', 'lung'), ('either', 'tub'), ('lung', 'smoke')]
    """
    if method not in _METHODS:
        raise ValueError(f"method must be 'g2' or 'chi2', got {method!r}")
    if untestable not in ("independent", "dependent"):
        raise ValueError(f"untestable must be 'independent' or 'dependent', got {untestable!r}")
    if orient not in _ORIENT:
        raise ValueError(f"orient must be 'standard', 'conservative' or 'majority', got {orient!r}")
    alpha = check_scalar(alpha, "alpha", low=0, high=1, closed="neither")
    max_cond = check_scalar(max_cond, "max_cond", kind="integer", low=0)
    net, X = _encode(data, states)
    card = net.arrays.card
    names = net.names
    if order is None:
        order = list(names)
    if sorted(order) != sorted(names):
        raise ValueError(f"order must list every variable once, got {order!r}")
    rank = [names.index(n) for n in order]
    adj = {i: set(range(len(names))) - {i} for i in range(len(names))}
    sepsets, tests = {}, []

    data_key = (hashlib.blake2b(np.ascontiguousarray(X).tobytes(), digest_size=16).digest(),
                X.shape, tuple(card.tolist()), method)

    def p_value(i, j, s):
        t = _remembered_test(data_key, X, card, i, j, tuple(s), method)
        p = t.p_value if t.dof > 0 or untestable == "independent" else math.nan
        tests.append((names[i], names[j], tuple(names[k] for k in s), p))
        return p

    for level in range(max_cond + 1):
        if all(len(adj[i]) - 1 < level for i in adj):
            break
        frozen = {i: set(adj[i]) for i in adj}          # PC-stable: the level's start
        for i in rank:
            for j in [k for k in rank if k in adj[i]]:
                if j not in adj[i]:
                    continue
                for a, b in ((i, j), (j, i)):
                    found = next((s for s in combinations(sorted((frozen if stable else adj)[a] - {b}), level)
                                  if p_value(i, j, s) > alpha), None)
                    if found is not None:
                        adj[i].discard(j)
                        adj[j].discard(i)
                        sepsets[frozenset((names[i], names[j]))] = {names[k] for k in found}
                        break
    skeleton = {frozenset((names[i], names[j])) for i in adj for j in adj[i]}
    directed, ambiguous = set(), set()
    for c in range(len(names)):
        for a, b in combinations(sorted(adj[c]), 2):
            if b in adj[a]:
                continue
            if orient == "standard":
                share = float(names[c] in sepsets[frozenset((names[a], names[b]))])
            else:                                        # all separating sets, by vote
                candidates = {s for x in (a, b) for size in range(max_cond + 1)
                              for s in combinations(sorted(adj[x] - {a, b}), size)}
                found = [s for s in sorted(candidates) if p_value(a, b, s) > alpha]
                share = np.mean([c in s for s in found]) if found else 0.5
                if share == 0.5 or (orient == "conservative" and 0 < share < 1):
                    ambiguous.add((frozenset((names[a], names[b])), names[c]))
                    continue
            if share < 0.5:
                for u in (a, b):
                    if (names[c], names[u]) not in directed:
                        directed.add((names[u], names[c]))
    undirected = {e for e in skeleton if not any(frozenset(d) == e for d in directed)}
    cpdag = meek_rules(names, skeleton, directed, undirected, ambiguous)
    return PCResult(skeleton, cpdag, sepsets, tests, frozenset(ambiguous))
