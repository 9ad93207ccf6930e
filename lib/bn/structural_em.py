"""Structural EM: learning the graph of a Bayesian network from data with missing
values (Friedman 1997, ICML).

Chapter 7, section "Structural EM". Hill climbing (:func:`lib.bn.hill_climb`) needs
complete data; EM (:func:`lib.bn.fit_em`) needs a graph. Structural EM alternates:
complete the data in expectation under the current network (each incomplete row
becomes all its completions, weighted by their posterior probability,
:func:`complete_data`), search for the graph that scores best on these expected counts
(starting from the current graph), re-fit its tables with parametric EM, and repeat
until the graph no longer changes. For the BIC score each round cannot lower the BIC
of the observed data (Friedman 1997, "Learning belief networks in the presence of
missing values and hidden variables", ICML; his 1998 UAI paper is the Bayesian variant).
"""
import math

import numpy as np

from lib._validation import check_scalar

from ._common import MISSING
from .inference import query
from .network import BayesNet, check_net
from .structure import hill_climb

__all__ = ["complete_data", "structural_em"]


def complete_data(net, data):
    """Expected completion of ``data`` under ``net``: ``(X, weights)`` where ``X`` holds
    integer codes without missing values and ``weights`` the probability of each
    completion given its row's observed values (complete rows keep weight 1;
    identical rows are merged, their weights added). The weighted counts of ``X`` are
    the expected counts of EM. Used in: Chapter 7, section "Structural EM"."""
    check_net(net)
    X = net.encode(data, allow_missing=True)
    pats, counts = np.unique(X, axis=0, return_counts=True)
    rows, weights = [], []
    for p, c in zip(pats, counts):
        miss = np.flatnonzero(p == MISSING)
        if not miss.size:
            rows.append(p)
            weights.append(float(c))
            continue
        ev = {net.names[i]: net.states[net.names[i]][p[i]] for i in np.flatnonzero(p != MISSING)}
        post = np.asarray(query(net, [net.names[m] for m in miss], ev)).reshape(
            [net.card[net.names[m]] for m in miss])
        for combo in zip(*np.nonzero(post > 0)):
            r = p.copy()
            r[miss] = combo
            rows.append(r)
            weights.append(c * float(post[combo]))
    return np.array(rows, dtype=int), np.array(weights)


def structural_em(data, states, n_iter=10, score="bic", em_iter=30, start=None, **search):
    """Structural EM from the graph of ``start`` (default: no edges).

    Each round: :func:`complete_data` under the current network, :func:`hill_climb`
    on the weighted completions starting from the current graph, then
    :func:`lib.bn.fit_em` for the tables of the new graph on the observed data.
    Stops when the graph is unchanged or after ``n_iter`` rounds. ``search``: further
    options of :func:`hill_climb` (``restarts``, ``perturb``, ``rng``, ...).

    Returns the last :class:`BayesNet`, with ``graphs_`` (edge list after each
    round, the first entry the start) and ``bic_trace_`` (BIC of the observed data,
    ``log P(observed | theta) - 0.5 ln(N) k``, after each round).

    Used in: Chapter 7, section "Structural EM".
    """
    n_iter = check_scalar(n_iter, "n_iter", kind="integer", low=1)
    em_iter = check_scalar(em_iter, "em_iter", kind="integer", low=0)
    if start is not None:
        check_net(start)
        net = start.copy()
    else:
        if not isinstance(states, dict) or not states:
            raise TypeError(f"states must be a dict {{variable: [states]}}, got {states!r}")
        net = BayesNet([(n, s) for n, s in states.items()])
    X = net.encode(data, allow_missing=True)
    n = len(X)
    if n == 0:
        raise ValueError("data are empty")

    def bic(m):
        return m.log_likelihood(X) - 0.5 * math.log(n) * m.n_parameters()

    net.fit_em(X, n_iter=em_iter)
    graphs, trace = [net.edges()], [bic(net)]
    for _ in range(n_iter):
        Xc, w = complete_data(net, X)
        new = hill_climb(Xc, states=net.states, score=score, start=net, sample_weight=w, **search)
        new.fit_em(X, n_iter=em_iter)
        graphs.append(new.edges())
        trace.append(bic(new))
        changed = set(new.edges()) != set(net.edges())
        net = new
        if not changed:
            break
    net.graphs_ = graphs
    net.bic_trace_ = np.array(trace)
    return net
