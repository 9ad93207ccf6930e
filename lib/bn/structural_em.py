"""Structural EM: learning the graph of a Bayesian network from data with missing
values or a hidden variable (Friedman 1997, ICML).

Chapter 7, sections "Structural EM" and "Structural EM with a hidden variable".
Hill climbing (:func:`lib.bn.hill_climb`) needs complete data; EM
(:func:`lib.bn.fit_em`) needs a graph. Structural EM alternates: complete the data in
expectation under the current network (each incomplete row becomes all its
completions, weighted by their posterior probability, :func:`complete_data`), search
for the graph that scores best on these expected counts (starting from the current
graph), re-fit its tables with parametric EM, and repeat until the graph no longer
changes. For the BIC score each round cannot lower the BIC of the observed data
(Friedman 1997, "Learning belief networks in the presence of missing values and hidden
variables", ICML; his 1998 UAI paper is the Bayesian variant).

A *hidden* variable (never observed) needs a start that links it to the data: with
no edges its posterior is its prior, the completions say nothing about it and the
search never connects it. :func:`hidden_start` makes it a parent of the observed
variables (a latent-class model), or a child of a few of them and a parent of the
rest; :func:`structural_em` with ``hidden=`` runs from several such starts and keeps
the result with the best BIC of the observed data.
"""
import math

import numpy as np
from scipy.special import logsumexp

from lib._validation import check_rng, check_scalar

from ._common import MISSING, unique_rows
from .learning import estep_tables
from .network import BayesNet, check_net
from .structure import hill_climb

__all__ = ["complete_data", "hidden_start", "structural_em"]


def complete_data(net, data):
    """Expected completion of ``data`` under ``net``: ``(X, weights)`` where ``X`` holds
    integer codes without missing values and ``weights`` the probability of each
    completion given its row's observed values (complete rows keep weight 1;
    identical rows are merged, their weights added). The weighted counts of ``X`` are
    the expected counts of EM. Vectorised over the distinct rows of each pattern of
    missing variables (the joint of E step of :func:`lib.bn.expected_counts`).
    Used in: Chapter 7, section "Structural EM"."""
    check_net(net)
    X = net.encode(data, allow_missing=True)
    card = net.arrays.card
    rows, weights = [], []
    masks, inv = unique_rows(X == MISSING, return_inverse=True)
    for g, mask in enumerate(masks):
        obs, miss = np.flatnonzero(~mask), np.flatnonzero(mask)
        pats, counts = unique_rows(X[inv == g][:, obs], return_counts=True)
        logj = estep_tables(net, pats, obs, miss)[0].reshape(len(pats), -1)
        with np.errstate(invalid="ignore"):
            post = np.exp(logj - logsumexp(logj, axis=1, keepdims=True)) * counts[:, None]
        if not np.all(np.isfinite(post)):
            raise ValueError("a data row has probability zero under the network")
        full = np.empty((len(pats), logj.shape[1], X.shape[1]), dtype=np.int64)
        full[:, :, obs] = pats[:, None, :]
        full[:, :, miss] = np.array(list(np.ndindex(*card[miss]))).reshape(logj.shape[1], len(miss))
        keep = post.ravel() > 0
        rows.append(full.reshape(-1, X.shape[1])[keep])
        weights.append(post.ravel()[keep])
    return np.concatenate(rows), np.concatenate(weights)


def hidden_start(states, hidden, parents=(), rng=None):
    """A start for structural EM with the hidden variable ``hidden``: it is a child of
    ``parents`` and a parent of every other variable, and every CPT is drawn at random
    (rows from a uniform Dirichlet), so that the states of ``hidden`` differ from the
    start (uniform rows would keep them interchangeable). ``parents=()`` is the
    latent-class model (``hidden`` the one parent of everything).

    Used in: Chapter 7, section "Structural EM with a hidden variable".
    """
    rng = check_rng(rng)
    parents = list(parents)
    for p in parents:
        if p not in states or p == hidden:
            raise ValueError(f"start parent {p!r} must be an observed variable of states")
    spec = []
    for n, s in states.items():
        pa = parents if n == hidden else ([] if n in parents else [hidden])
        shape = tuple(len(states[p]) for p in pa)
        spec.append((n, s, pa, rng.dirichlet(np.ones(len(s)), size=shape)))
    return BayesNet(spec)


def _check_hidden(states, hidden, X, names):
    if hidden not in states:
        raise ValueError(f"hidden variable {hidden!r} is not a variable of states {list(states)}")
    if len(states[hidden]) < 2:
        raise ValueError(f"hidden variable {hidden!r} needs at least 2 states, got {list(states[hidden])}")
    seen = int(np.sum(X[:, names.index(hidden)] != MISSING))
    if seen:
        raise ValueError(f"hidden variable {hidden!r} is observed in {seen} rows; a hidden "
                         "variable has no values in the data (drop its column)")
    if len(states) < 3:
        raise ValueError("a hidden variable needs at least two observed variables")


def structural_em(data, states, n_iter=10, score="bic", em_iter=30, start=None, hidden=None,
                  n_starts=8, **search):
    """Structural EM from the graph of ``start`` (default: no edges), or, with a hidden
    variable ``hidden`` (a name of ``states`` without values in ``data``), from
    ``n_starts`` starts of :func:`hidden_start`: the latent-class model, then the
    hidden variable with 1 to ``n_obs // 2`` (at most 3) observed parents drawn at
    random; the result with the best final BIC of the observed data is returned.

    Each round: :func:`complete_data` under the current network, :func:`hill_climb`
    on the weighted completions starting from the current graph, then
    :func:`lib.bn.fit_em` for the tables of the new graph on the observed data.
    Stops when the graph is unchanged or after ``n_iter`` rounds. ``search``: further
    options of :func:`hill_climb` (``restarts``, ``perturb``, ``rng``, ...); ``rng``
    also draws the hidden starts.

    Returns the last :class:`BayesNet`, with ``graphs_`` (edge list after each
    round, the first entry the start) and ``bic_trace_`` (BIC of the observed data,
    ``log P(observed | theta) - 0.5 ln(N) d``, after each round); with ``hidden``
    also ``start_bics_`` (final BIC of the run from each start).

    Used in: Chapter 7, sections "Structural EM" and "Structural EM with a hidden variable".
    """
    n_iter = check_scalar(n_iter, "n_iter", kind="integer", low=1)
    em_iter = check_scalar(em_iter, "em_iter", kind="integer", low=0)
    n_starts = check_scalar(n_starts, "n_starts", kind="integer", low=1)
    if start is not None:
        check_net(start)
        net = start.copy()
    else:
        if not isinstance(states, dict) or not states:
            raise TypeError(f"states must be a dict {{variable: [states]}}, got {states!r}")
        net = BayesNet([(n, s) for n, s in states.items()])
    X = net.encode(data, allow_missing=True)
    if hidden is None:
        return _climb(net, X, n_iter, score, em_iter, search)
    _check_hidden(net.states, hidden, X, net.names)
    if start is not None:
        return _climb(net, X, n_iter, score, em_iter, search)
    rng = search["rng"] = check_rng(search.get("rng"))
    observed = [n for n in net.names if n != hidden]
    runs = []
    for r in range(n_starts):
        size = 0 if r == 0 else int(rng.integers(1, max(1, min(3, len(observed) // 2)) + 1))
        parents = [observed[i] for i in rng.choice(len(observed), size=size, replace=False)]
        runs.append(_climb(hidden_start(net.states, hidden, parents, rng), X, n_iter, score,
                           em_iter, search))
    best = max(runs, key=lambda m: m.bic_trace_[-1])
    best.start_bics_ = np.array([m.bic_trace_[-1] for m in runs])
    return best


def _climb(net, X, n_iter, score, em_iter, search):
    n = len(X)

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
