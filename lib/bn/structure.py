"""Structure learning for Bayesian networks: decomposable scores and hill climbing.

Chapter 6, section "Learning the structure": the maximised log likelihood, BIC (and
MDL, its description length in bits) and AIC of a graph on complete data, family by
family (:func:`family_score`), and a greedy tabu search over single-edge moves
(:func:`hill_climb`, as pgmpy's ``HillClimbSearch``).
"""
import math

import numpy as np
from scipy.special import gammaln

from lib._validation import check_option, check_rng, check_sample_weight, check_scalar, is_missing

from ._common import MARKERS, strides
from .network import BayesNet, check_net

__all__ = ["score", "family_score", "hill_climb"]


SCORES = ("bic", "mdl", "aic", "loglik", "bdeu")


def score(net, data, score="bic", equivalent_sample_size=10.0):
    """Structure score of this network's graph on complete data, with ML
    parameters (the CPTs stored in the network are not used).

    ``"loglik"``: maximised log likelihood (natural log); ``"bic"``: loglik minus
    ``0.5 * ln(N) * n_parameters`` (pgmpy's ``BIC`` convention, higher is
    better); ``"mdl"``: description length in bits, ``-bic / ln 2`` (lower is
    better); ``"aic"``: loglik minus n_parameters; ``"bdeu"``: the log marginal
    likelihood ``ln P(D | G)`` under uniform Dirichlet priors whose pseudo-counts add
    up to ``equivalent_sample_size`` in every family (Heckerman et al. 1995; pgmpy's
    ``BDeu``).

    Used in: Chapter 6, sections "Learning the structure" and "Other scores and
    independence tests".

    Examples
    --------
    >>> import numpy as np
    >>> from lib.bn import sample
    >>> from lib.datasets import load_network
    >>> asia = load_network("asia")
    >>> data = sample(asia, 1000, rng=np.random.default_rng(0))
    >>> round(score(asia, data, "loglik"), 1), round(score(asia, data, "bic"), 1)
    (-2216.9, -2279.1)
    """
    check_net(net)
    check_option(score, "score", SCORES)
    X = net.encode(data)
    a = net.arrays
    total = sum(family_score(X, i, a.parents[i], a.card, score if score != "mdl" else "bic",
                             equivalent_sample_size)
                for i in range(len(net.names)))
    if score == "mdl":
        return -total / math.log(2)
    return float(total)


def infer_states(data, caller="infer_states"):
    """``{variable: sorted distinct values}`` of complete data given as columns of
    labels (a dict or DataFrame) or as a list of ``{variable: state}`` rows."""
    if isinstance(data, (list, tuple)) and data and all(isinstance(r, dict) for r in data):
        data = {k: [r.get(k) for r in data] for k in {k for r in data for k in r}}
    if not hasattr(data, "keys"):
        raise TypeError(f"{caller} needs data as columns of labels or a list of "
                        f"{{variable: state}} rows (or states=), got {type(data).__name__}")
    states = {}
    for k in data.keys():
        col = np.asarray(data[k])
        if col.size == 0:
            raise ValueError("data are empty")
        if any(is_missing(v, MARKERS) for v in col.tolist()):
            raise ValueError(f"column {k!r} has missing values; complete data are needed")
        try:
            states[k] = [v.item() if hasattr(v, "item") else v for v in np.unique(col)]
        except TypeError:
            raise TypeError(f"column {k!r} mixes kinds of labels (e.g. numbers and "
                            "strings); pass states= to fix their order") from None
    return states


def hill_climb(data, states=None, score="bic", start=None, max_parents=None,
              tabu_length=100, epsilon=1e-4, max_iter=10_000, pseudo_count=0.0,
              restarts=0, perturb=3, rng=None, equivalent_sample_size=10.0, sample_weight=None):
    """Greedy structure search: from ``start`` (default: no edges) repeatedly
    apply the best of all single-edge additions, removals and reversals that
    keep the graph acyclic, until no move improves the score by ``epsilon``
    (recently undone moves are tabu, as in pgmpy's ``HillClimbSearch``).

    Used in: Chapter 6, section "Learning the structure".

    Parameters
    ----------
    data : mapping or list of rows (state labels; complete)
    states : dict, optional
        ``{variable: [states]}``; default: the sorted distinct values per column.
    score : {"bic", "mdl", "aic", "loglik", "bdeu"}
        Decomposable score (see :func:`score`); ``"loglik"`` has no penalty and
        ends in a dense graph; ``"bdeu"`` uses ``equivalent_sample_size``.
    restarts, perturb, rng
        After the first climb, ``restarts`` times apply ``perturb`` random
        legal moves to the best graph so far and climb again (keeping the
        result only if it scores better): a cheap way out of local optima.
    sample_weight : array, optional
        One non-negative weight per row: the search then runs on weighted counts
        (structural EM searches on the expected counts of completed data).

    Returns
    -------
    BayesNet
        With ML (or ``pseudo_count``) CPTs and the attributes ``score_`` (final
        score, in the score's own units), ``trace_`` (score after each move) and
        ``moves_`` (the applied moves).

    Examples
    --------
    >>> import numpy as np
    >>> from lib.bn import sample
    >>> from lib.datasets import load_network
    >>> learned = hill_climb(sample(load_network("asia"), 2000, rng=np.random.default_rng(1)))
    >>> sorted(learned.edges())  # every link of ASIA but the weak asia -> tub
    [('bronc', 'dysp'), ('either', 'dysp'), ('either', 'xray'), ('lung', 'either'), ('smoke', 'bronc'), ('smoke', 'lung'), ('tub', 'either')]
    """
    check_option(score, "score", SCORES)
    if start is not None:
        check_net(start)
    if max_parents is not None:
        max_parents = check_scalar(max_parents, "max_parents", kind="integer", low=0)
    tabu_length = check_scalar(tabu_length, "tabu_length", kind="integer", low=0)
    max_iter = check_scalar(max_iter, "max_iter", kind="integer", low=0)
    restarts = check_scalar(restarts, "restarts", kind="integer", low=0)
    perturb = check_scalar(perturb, "perturb", kind="integer", low=0)
    epsilon = check_scalar(epsilon, "epsilon", low=0)
    pseudo_count = check_scalar(pseudo_count, "pseudo_count", low=0)
    rng = check_rng(rng)
    if states is None:
        states = dict(start.states) if start is not None else infer_states(data, "hill_climb")
    net = start.copy() if start is not None else BayesNet([(n, s) for n, s in states.items()])
    X = net.encode(data)
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight, len(X), positive_sum=True)
    card = net.arrays.card
    n_vars = len(net.names)
    parents = [set(net.index[p] for p in net.parents[n]) for n in net.names]
    internal = "bic" if score == "mdl" else score
    cache = {}

    def local(i, ps):
        key = (i, frozenset(ps))
        if key not in cache:
            cache[key] = family_score(X, i, sorted(ps), card, internal, equivalent_sample_size,
                                      sample_weight)
        return cache[key]

    def reaches(parents, src, dst):
        """Is there a directed path src -> ... -> dst?"""
        children = [set() for _ in range(n_vars)]
        for c in range(n_vars):
            for p in parents[c]:
                children[p].add(c)
        seen, stack = {src}, [src]
        while stack:
            u = stack.pop()
            if u == dst:
                return True
            for c in children[u]:
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        return False

    def climb(parents):
        current = sum(local(i, parents[i]) for i in range(n_vars))
        trace, moves, tabu = [current], [], []
        for _ in range(max_iter):
            best, best_delta = None, -math.inf
            for u in range(n_vars):
                for v in range(n_vars):
                    if u == v:
                        continue
                    if u in parents[v]:
                        d = local(v, parents[v] - {u}) - local(v, parents[v])
                        if ("remove", u, v) not in tabu and d > best_delta:
                            best, best_delta = ("remove", u, v), d
                        if ("reverse", u, v) not in tabu and \
                                (max_parents is None or len(parents[u]) < max_parents):
                            d = (local(v, parents[v] - {u}) - local(v, parents[v])
                                 + local(u, parents[u] | {v}) - local(u, parents[u]))
                            if d > best_delta:
                                parents[v].discard(u)
                                ok = not reaches(parents, u, v)
                                parents[v].add(u)
                                if ok:
                                    best, best_delta = ("reverse", u, v), d
                    elif v not in parents[u]:
                        if ("add", u, v) in tabu or (max_parents is not None
                                                     and len(parents[v]) >= max_parents):
                            continue
                        d = local(v, parents[v] | {u}) - local(v, parents[v])
                        if d > best_delta and not reaches(parents, v, u):
                            best, best_delta = ("add", u, v), d
            if best is None or best_delta < epsilon:
                break
            op, u, v = best
            apply(parents, op, u, v)
            tabu.append({"add": ("remove", u, v), "remove": ("add", u, v),
                         "reverse": ("reverse", v, u)}[op])
            tabu = tabu[-tabu_length:] if tabu_length else []
            current += best_delta
            trace.append(current)
            moves.append((op, net.names[u], net.names[v]))
        return parents, current, trace, moves

    def apply(parents, op, u, v):
        if op == "add":
            parents[v].add(u)
        elif op == "remove":
            parents[v].discard(u)
        else:
            parents[v].discard(u)
            parents[u].add(v)

    parents, current, trace, moves = climb(parents)
    for _ in range(restarts):
        # perturb the best graph by random legal moves, climb again, keep the better
        trial = [set(p) for p in parents]
        for _ in range(perturb):
            u, v = (int(k) for k in rng.choice(n_vars, size=2, replace=False))
            if u in trial[v]:
                op = "remove" if rng.random() < 0.5 else "reverse"
                if op == "reverse":
                    trial[v].discard(u)
                    ok = not reaches(trial, u, v)
                    trial[v].add(u)
                    if not ok:
                        op = "remove"
            elif v not in trial[u] and not reaches(trial, v, u):
                op = "add"
            else:
                continue
            apply(trial, op, u, v)
        trial, value, t_trace, t_moves = climb(trial)
        if value > current + epsilon:
            parents, current = trial, value
            trace += t_trace
            moves += [("restart", None, None)] + t_moves
    result = BayesNet([(n, net.states[n], [net.names[p] for p in sorted(parents[i])])
                  for i, n in enumerate(net.names)])
    result.fit(X, pseudo_count=pseudo_count, sample_weight=sample_weight)
    conv = (lambda s: -s / math.log(2)) if score == "mdl" else float
    result.score_ = conv(current)
    result.trace_ = np.array([conv(s) for s in trace])
    result.moves_ = moves
    return result


def family_score(X, i, parents, card, score="bic", equivalent_sample_size=10.0,
                 sample_weight=None):
    """Local (per-family) structure score of variable ``i`` with ``parents`` on the
    integer data ``X``: the maximised log likelihood
    ``sum_{u,x} N(u,x) ln(N(u,x)/N(u))`` minus a penalty (``"bic"``:
    ``0.5 ln N (|X|-1) q``, ``"aic"``: ``(|X|-1) q``, ``"loglik"``: none), where
    ``q`` is the number of parent configurations. Natural logs, as in pgmpy.

    ``"bdeu"``: with ``a = equivalent_sample_size``, the Dirichlet-multinomial marginal
    likelihood ``sum_u [lnG(a/q) - lnG(N(u) + a/q) + sum_x (lnG(N(u,x) + a/(q|X|))
    - lnG(a/(q|X|)))]`` (lnG = log gamma).

    ``sample_weight`` (one non-negative weight per row) turns the counts into
    weighted (e.g. expected) counts and ``N`` into their total: the scores of
    structural EM (Chapter 7, section "Structural EM").

    Used in: Chapter 6, sections "Learning the structure" and "Other scores and
    independence tests".

    Examples
    --------
    >>> import numpy as np
    >>> from lib.bn import sample
    >>> from lib.datasets import load_network
    >>> asia = load_network("asia")
    >>> X = asia.encode(sample(asia, 1000, rng=np.random.default_rng(0)))
    >>> card = [asia.card[v] for v in asia.names]
    >>> i, lung = asia.index["either"], asia.index["lung"]
    >>> float(family_score(X, i, [], card)) < float(family_score(X, i, [lung], card))
    True
    """
    check_option(score, "score", ("bic", "aic", "loglik", "bdeu"))
    card = np.asarray(card)
    fam = list(parents) + [i]
    cards = card[fam]
    idx = X[:, fam] @ strides(cards)
    counts = np.bincount(idx, weights=sample_weight,
                         minlength=int(np.prod(cards))).reshape(-1, cards[-1]).astype(float)
    row = counts.sum(axis=1, keepdims=True)
    n = len(X) if sample_weight is None else float(np.sum(sample_weight))
    if score == "bdeu":
        ess = check_scalar(equivalent_sample_size, "equivalent_sample_size", low=0,
                           closed="right")
        a_row, a_cell = ess / counts.shape[0], ess / counts.size
        return float(np.sum(gammaln(a_row) - gammaln(row + a_row))
                     + np.sum(gammaln(counts + a_cell) - gammaln(a_cell)))
    nz = counts > 0
    ll = float(np.sum(counts[nz] * (np.log(counts[nz]) - np.log(np.broadcast_to(row, counts.shape)[nz]))))
    k = (cards[-1] - 1) * int(np.prod(cards[:-1]))
    if score == "bic":
        return ll - 0.5 * math.log(n) * k
    if score == "aic":
        return ll - k
    return ll  # "loglik"
