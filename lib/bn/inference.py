"""Exact inference in a Bayesian network: enumeration, variable elimination, the full joint.

Chapter 6, section "Exact inference" (subsections "Enumeration" and "Variable
elimination"; "Polytrees are easy, general networks are hard" uses
:func:`elimination_plan`). Every function takes a :class:`lib.bn.BayesNet` first;
``net.query(...)`` calls :func:`query`.

Variable elimination multiplies the CPTs reduced by the evidence and sums out one
hidden variable at a time, in a greedy (min-fill) order. Variables that are neither
ancestors of the query nor of the evidence are barren and dropped first. Factors are
rescaled as they shrink and the last product is formed in log space, so that
posteriors stay finite when P(evidence) is below the smallest double.
"""
import heapq
import math
from itertools import count, product

import numpy as np

from lib._validation import check_names

from ._common import ImpossibleEvidenceError, check_codes

__all__ = ["query", "query_codes", "log_evidence", "eliminate", "elimination_plan", "multiply", "enumerate_query"]


def query_codes(net, variables, evidence):
    """The query's variable indices and the evidence codes ``{index: state code}``: the
    checked arguments of every query (one variable name or a list of distinct ones, none of
    them also observed). Used by :func:`query`, :func:`elimination_plan` and the samplers."""
    names = check_names(variables, "variables", net.index, what="query variable")
    ev = net.evidence_codes(evidence)
    q = [net.index[v] for v in names]
    both = [net.names[i] for i in q if i in ev]
    if both:
        raise ValueError(f"query variable(s) {both} also appear in the evidence")
    return q, ev


def query(net, variables, evidence=None, method="elimination"):
    """Posterior distribution ``P(variables | evidence)``.

    Variable elimination rescales its factors and forms the final product in log space,
    so a posterior stays right when ``P(evidence)`` underflows a double
    (``log_evidence`` gives its logarithm).

    Used in: Chapter 6, sections "Exact inference" and "Approximate inference by sampling".

    Parameters
    ----------
    variables : str or list of str
        One variable (result: 1-D array over its states) or several (result: an
        array with one axis per variable, in the given order).
    evidence : dict, optional
        ``{variable: state}``.
    method : {"elimination", "enumeration", "joint"}
        Variable elimination (fast, the default), enumeration (sum over the
        hidden variables one assignment at a time) or brute-force summation of
        the full joint table (small networks only).

    Raises
    ------
    ValueError
        For unknown variables or states, or evidence on a query variable.
    ImpossibleEvidenceError
        For evidence of probability zero (a subclass of ``ValueError``).

    Examples
    --------
    >>> from lib.datasets import load_network
    >>> asia = load_network("asia")
    >>> query(asia, "lung", {"dysp": "yes"}).round(3)
    array([0.103, 0.897])
    >>> query(asia, ["lung", "tub"], {"dysp": "yes", "xray": "yes"}).round(3)
    array([[0.006, 0.615],
           [0.107, 0.271]])
    """
    q, ev = query_codes(net, variables, evidence)
    if method == "elimination":
        table, _, _ = eliminate(net, q, ev)
    elif method == "enumeration":
        if len(_relevant(net, q + list(ev))) > 500:
            raise ValueError("method='enumeration' recurses once per variable and is meant for "
                             "small networks (at most 500 relevant variables); use 'elimination'")
        table = enumerate_query(net, q, ev)
    elif method == "joint":
        joint = net.joint_table()
        idx = tuple(ev.get(i, slice(None)) for i in range(len(net.names)))
        sub = joint[idx]
        free = [i for i in range(len(net.names)) if i not in ev]
        keep = [free.index(i) for i in q]
        other = tuple(k for k in range(len(free)) if k not in keep)
        table = np.transpose(sub.sum(axis=other), np.argsort(np.argsort(keep)))
    else:
        raise ValueError(f"unknown method {method!r}; use 'elimination', 'enumeration' or 'joint'")
    total = table.sum()
    if not total > 0:
        if method != "elimination" and log_evidence(net, evidence) > -math.inf:
            raise ValueError(f"P(evidence) underflows a double in method={method!r}; "
                             "use method='elimination', which rescales")
        raise ImpossibleEvidenceError(evidence)
    return table / total


def log_evidence(net, evidence):
    """Natural log of P(evidence), by variable elimination (``-inf`` if zero).

    Examples
    --------
    >>> import numpy as np
    >>> from lib.datasets import load_network
    >>> asia = load_network("asia")
    >>> round(float(np.exp(log_evidence(asia, {"dysp": "yes"}))), 4)
    0.436
    """
    ev = net.evidence_codes(evidence)
    table, log_scale, _ = eliminate(net, [], ev)
    s = float(table.sum())
    return math.log(s) + log_scale if s > 0 else -math.inf


def _relevant(net, keep):
    """Ancestors of ``keep`` (inclusive): the other variables are barren."""
    par = net.arrays.parents
    seen, stack = set(keep), list(keep)
    while stack:
        for p in par[stack.pop()]:
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return seen


def _factors(net, relevant, ev):
    a = net.arrays
    factors = []
    for i in sorted(relevant):
        scope = a.parents[i] + (i,)
        table = a.cpt[i]
        if not ev.keys().isdisjoint(scope):
            table = table[tuple([ev.get(u, slice(None)) for u in scope])]
            scope = tuple([u for u in scope if u not in ev])
        factors.append((scope, table))
    return factors


def _order(net, factors, hidden, heuristic="min_fill"):
    """Greedy elimination order (min-fill, ties broken by min-weight) and the
    number of variables / entries of the largest factor it creates. Scores are
    cached and only recomputed around the variable just eliminated."""
    if heuristic not in ("min_fill", "min_weight", "min_neighbors"):
        raise ValueError(f"unknown heuristic {heuristic!r}")
    card = net.arrays.card.tolist()
    nb = {}
    for scope, _ in factors:
        for u in scope:
            nb.setdefault(u, set()).update(scope)
    for u in nb:
        nb[u].discard(u)
    hidden = set(hidden)

    def key(h):
        ns = nb.get(h, ())
        weight = math.prod([card[x] for x in ns]) * card[h]
        if heuristic == "min_fill":
            # missing edges among the neighbours: pairs minus (twice) the edges present
            fill = len(ns) * (len(ns) - 1) - sum([len(nb[x] & ns) for x in ns])
            return (fill // 2, weight, h)
        if heuristic == "min_weight":
            return (0, weight, h)
        return (len(ns), weight, h)

    scores = {h: key(h) for h in hidden}
    heap = list(scores.values())        # (score..., h); outdated entries are skipped
    heapq.heapify(heap)
    order, widest, biggest = [], 0, 1
    while scores:
        entry = heapq.heappop(heap)
        best = entry[-1]
        if scores.get(best) != entry:
            continue
        biggest = max(biggest, scores.pop(best)[1])
        ns = nb.pop(best, set())
        widest = max(widest, len(ns) + 1)
        for x in ns:
            nb[x].discard(best)
            nb[x].update(ns - {x})
        order.append(best)
        touched = set(ns)
        if heuristic == "min_fill":
            # a variable outside ns has a new fill only if two of its neighbours are in
            # ns (the edges just added join members of ns); its neighbours are unchanged
            seen = set()
            for x in ns:
                touched |= nb[x] & seen
                seen |= nb[x]
        for h in touched:
            if h in scores:
                new = key(h)
                if new != scores[h]:
                    scores[h] = new
                    heapq.heappush(heap, new)
    return order, widest, biggest


def multiply(factors, keep):
    """Product of factors summed down to the variables ``keep`` (one einsum).

    No contraction-path search (``optimize=False``): in an elimination step every
    factor contains the variable summed out, so the direct loop over the union of the
    scopes costs what the step itself costs, and numpy's path search (per call, in
    Python) would cost more than the product on networks like ALARM.
    """
    local = {}
    ops = []
    for scope, table in factors:
        ops += [table, [local.setdefault(u, len(local)) for u in scope]]
    out = [local[u] for u in keep]
    if not ops:
        return np.ones(())
    return np.einsum(*ops, out, optimize=False)


def _product(factors, keep):
    """:func:`multiply` for any number of factors: groups of eight are multiplied out
    first and rescaled to a maximum of 1 (einsum takes a limited number of operands,
    and long products underflow). Returns ``(table, log of the scale taken out)``."""
    factors, log_scale = list(factors), 0.0
    while len(factors) > 8:
        head, factors = factors[:8], factors[8:]
        scope = tuple(dict.fromkeys(u for s, _ in head for u in s))
        table = multiply(head, scope)
        top = table.max()
        if top > 0:
            table = table / top
            log_scale += math.log(top)
        factors.append((scope, table))
    return multiply(factors, keep), log_scale



def _prepare(net, q, ev):
    """Variables and evidence-reduced factors a query needs: barren variables
    (not ancestors of the query or the evidence) are dropped. Parts cut off
    from the query by the evidence are kept: their constant detects evidence of
    probability zero."""
    relevant = _relevant(net, list(q) + list(ev))
    factors = _factors(net, relevant, ev)
    return relevant, factors


def eliminate(net, q, ev, heuristic="min_fill"):
    """Variable elimination: the unnormalised table of ``P(q, ev)``, in integer codes.

    The algorithm of :func:`query` and :func:`log_evidence`: the CPTs of the variables
    that are ancestors of the query or the evidence, reduced by the evidence, are
    multiplied and every other variable summed out, one at a time in a greedy order
    (``heuristic``: ``"min_fill"`` or ``"min_degree"``, as :func:`elimination_plan`).

    Used in: Chapter 6, section "Variable elimination"; the samplers
    (:mod:`lib.bn.sampling`) and EM (:mod:`lib.bn.learning`) call it directly.

    Parameters
    ----------
    net : BayesNet
    q : list of int
        Indices (in ``net.names``) of the query variables; empty for ``P(ev)`` alone.
    ev : dict
        ``{variable index: state code}``, as :meth:`BayesNet.evidence_codes` gives.
    heuristic : str
        How the next variable to sum out is chosen.

    Returns
    -------
    table : ndarray
        One axis per query variable, in the order of ``q``: ``P(q, ev)`` up to the factor
        ``exp(log_scale)`` (kept apart so that tiny probabilities do not underflow).
    log_scale : float
    plan : dict
        ``{"order": [...], "largest_factor_vars": k, "largest_factor_size": entries}``.

    Examples
    --------
    >>> import numpy as np
    >>> from lib.datasets import load_network
    >>> asia = load_network("asia")
    >>> table, log_scale, plan = eliminate(asia, [asia.index["lung"]], asia.evidence_codes({"dysp": "yes"}))
    >>> (table * np.exp(log_scale)).round(4)  # P(lung, dysp = yes); normalised, query's answer
    array([0.0448, 0.3912])
    >>> plan["order"], plan["largest_factor_vars"]
    (['asia', 'tub', 'smoke', 'bronc', 'either'], 3)
    """
    q, ev = check_codes(net.arrays.card, q, ev, names=("q", "ev"))
    relevant, factors = _prepare(net, q, ev)
    # the plan depends only on which variables are queried / observed
    plans = net.arrays.plans
    key = (tuple(q), frozenset(ev), heuristic)
    if key not in plans:
        if len(plans) > 10_000:
            plans.clear()
        plans[key] = _order(net, factors, relevant - set(q) - set(ev), heuristic)
    order, widest, biggest = plans[key]
    log_scale, zero = 0.0, False

    def absorb(scope, table):
        """Constant factors go into log_scale; tiny ones are rescaled."""
        nonlocal log_scale, zero
        if not scope:
            v = float(table)
            if v > 0:
                log_scale += math.log(v)
            else:
                zero = True
            return None
        if not table.size or table.flat[0] >= 1e-100:   # then the maximum is too
            return scope, table
        m = table.max()
        if 0 < m < 1e-100:  # keep long products away from underflow
            table = table / m
            log_scale += math.log(m)
        return scope, table

    # a CPT not reduced by evidence on its own variable has rows summing to one: no
    # need to look at its entries (the common case, and one numpy call less each)
    factors = [f if f[0] and f[0][-1] == i else absorb(*f)
               for i, f in zip(sorted(relevant), factors)]
    # live factors by number (never reused), and for each variable the numbers of the
    # factors that mention it (numbers of factors already multiplied out are skipped)
    live, mentions, numbers = {}, {}, count()

    def add(factor):
        k = next(numbers)
        live[k] = factor
        for u in factor[0]:
            mentions.setdefault(u, []).append(k)
    for f in factors:
        if f is not None:
            add(f)
    for h in order:
        inv = [live.pop(k) for k in mentions.pop(h, ()) if k in live]
        scope = tuple(dict.fromkeys(u for s, _ in inv for u in s if u != h))
        table, scale = _product(inv, scope)
        log_scale += scale
        new = absorb(scope, table)
        if new is not None:
            add(new)
    factors = list(live.values())
    # every factor left is over query variables: multiply in log space, rescale once
    card = net.arrays.card
    with np.errstate(divide="ignore"):
        log_table = np.zeros([card[i] for i in q])
        for scope, t in factors:
            axes = [q.index(u) for u in scope]
            shape = [card[u] if u in scope else 1 for u in q]
            perm = sorted(range(len(axes)), key=axes.__getitem__)
            log_table = log_table + np.log(t).transpose(perm).reshape(shape)
    top = log_table.max()
    if zero or top == -math.inf:
        table = np.zeros_like(log_table)
    else:
        table = np.exp(log_table - top)
        log_scale += float(top)
    return table, log_scale, {"order": [net.names[h] for h in order],
                              "largest_factor_vars": widest,
                              "largest_factor_size": biggest}


def elimination_plan(net, variables, evidence=None, heuristic="min_fill"):
    """The elimination order chosen for a query and the size of the largest
    intermediate factor: ``{"order": [...], "largest_factor_vars": k,
    "largest_factor_size": entries, "pruned": [barren variables]}``.

    Used in: Chapter 6, section "Variable elimination".

    Examples
    --------
    >>> from lib.datasets import load_network
    >>> elimination_plan(load_network("asia"), "lung", {"dysp": "yes"})
    {'order': ['asia', 'tub', 'smoke', 'bronc', 'either'], 'largest_factor_vars': 3, 'largest_factor_size': 8, 'pruned': ['xray']}
    """
    q, ev = query_codes(net, variables, evidence)
    relevant, factors = _prepare(net, q, ev)
    order, widest, biggest = _order(net, factors, relevant - set(q) - set(ev), heuristic)
    return {"order": [net.names[h] for h in order], "largest_factor_vars": widest,
            "largest_factor_size": biggest,
            "pruned": [n for n in net.names if net.index[n] not in relevant]}


def enumerate_query(net, q, ev):
    """Textbook enumeration: for every value of the query variables, sum the
    product of CPT entries over all assignments of the hidden variables (barren
    variables are dropped first)."""
    a = net.arrays
    relevant = _relevant(net, list(q) + list(ev))
    topo = [i for i in a.topo if i in relevant]
    cpt, par, card = a.cpt, a.parents, a.card
    x = [None] * len(net.names)

    def enum_all(k):
        if k == len(topo):
            return 1.0
        i = topo[k]
        row = cpt[i][tuple(x[p] for p in par[i])]
        if x[i] is not None:
            return row[x[i]] * enum_all(k + 1)
        total = 0.0
        for s in range(card[i]):
            if row[s] > 0:
                x[i] = s
                total += row[s] * enum_all(k + 1)
        x[i] = None
        return total

    table = np.zeros([card[i] for i in q])
    for i, s in ev.items():
        x[i] = s
    for cfg in product(*(range(card[i]) for i in q)):
        for i, s in zip(q, cfg):
            x[i] = s
        table[cfg] = enum_all(0)
    return table
