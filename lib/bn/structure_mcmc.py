"""Bayesian averaging over structures: order MCMC and exact enumeration of DAGs.

Chapter 6, section "Averaging over structures" (``sec-bn-averaging``). Instead of the
single best graph, Bayesian model averaging reports the posterior probability of a
feature, here a link ``u -> v``: ``P(u -> v | D) = sum_G [u -> v in G] P(G | D)``.

* :func:`family_scores`: the decomposable score (BDeu or BIC, from
  :func:`lib.bn.structure.family_score`) of every family with at most ``max_parents``
  parents, computed once and cached in an ``(n, 2**n)`` table indexed by parent-set
  bit masks;
* :func:`order_mcmc`: Friedman & Koller's (2003) Metropolis-Hastings chain over
  variable orders. Given an order, the graphs consistent with it factorise, so the sum
  over them is a product over nodes of sums over parent sets; the chain samples orders,
  and each sampled order contributes its exact edge probabilities (Rao-Blackwellised);
* :func:`exact_edge_posterior`: the same edge probabilities by enumerating every DAG
  (25 on 3 variables, 543 on 4, 29 281 on 5), the check of the chain.

The chain's prior over graphs is the *order-modular* one: ``P(G)`` proportional to the
number of orders consistent with ``G`` (``prior="order"`` in the enumeration); the
enumeration can also use the uniform prior over DAGs (``prior="uniform"``).
"""
import itertools
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from lib._validation import check_option, check_rng, check_scalar

from .network import BayesNet
from .structure import family_score, infer_states

__all__ = ["StructurePosterior", "family_scores", "order_mcmc", "exact_edge_posterior"]

MAX_VARIABLES = 12        # the family table has n * 2**n entries
MAX_ENUMERATED = 5        # 3**10 candidate graphs on 5 variables


@dataclass
class StructurePosterior:
    """Posterior edge probabilities: ``edge_prob[u, v] = P(u -> v | D)`` over ``names``.

    ``trace`` (order MCMC): the log score of the chain's order after each step;
    ``acceptance``: the fraction of accepted proposals. ``graphs`` and ``graph_prob``
    (enumeration): every DAG as an adjacency matrix and its posterior probability.
    """
    names: list
    edge_prob: np.ndarray
    trace: np.ndarray = None
    acceptance: float = None
    graphs: np.ndarray = None
    graph_prob: np.ndarray = None

    @property
    def link_prob(self):
        """``P(u and v are linked, either way | D)``: symmetric, at most one."""
        return self.edge_prob + self.edge_prob.T

    def edges(self, threshold=0.5):
        """``(u, v)`` name pairs whose posterior exceeds ``threshold``."""
        return [(self.names[u], self.names[v]) for u, v in zip(*np.nonzero(self.edge_prob > threshold))]


def family_scores(data, states=None, score="bdeu", max_parents=3, equivalent_sample_size=1.0):
    """The local score of every family: returns ``(names, local)`` where
    ``local[i, mask]`` is :func:`~lib.bn.structure.family_score` of variable ``i`` with
    the parents whose bits are set in ``mask`` (bit ``j`` is ``names[j]``), and
    ``-inf`` where ``mask`` holds ``i`` itself or more than ``max_parents`` parents.

    ``score``: ``"bdeu"`` (the log marginal likelihood ``ln P(D | G)``, with
    ``equivalent_sample_size``) or ``"bic"`` (its large-sample approximation).

    Used in: Chapter 6, section "Averaging over structures".
    """
    check_option(score, "score", ("bdeu", "bic"))
    if states is None:
        states = infer_states(data, "family_scores")
    net = BayesNet([(name, s) for name, s in states.items()])
    n = len(net.names)
    if not 2 <= n <= MAX_VARIABLES:
        raise ValueError(f"structure averaging needs 2 to {MAX_VARIABLES} variables "
                         f"(the family table has n * 2**n entries), got {n}")
    max_parents = n - 1 if max_parents is None else max_parents
    max_parents = check_scalar(max_parents, "max_parents", kind="integer", low=0)
    X = net.encode(data)
    card = net.arrays.card
    local = np.full((n, 2 ** n), -np.inf)
    for i in range(n):
        others = [j for j in range(n) if j != i]
        for size in range(min(max_parents, n - 1) + 1):
            for parents in itertools.combinations(others, size):
                local[i, sum(1 << j for j in parents)] = family_score(
                    X, i, list(parents), card, score, equivalent_sample_size)
    return list(net.names), local


def _order_terms(order, local):
    """For one order: its log score ``sum_i ln sum_{U <= pred(i)} exp(local[i, U])`` and
    ``E[i, j] = P(j is a parent of i | order, D)``."""
    n = len(order)
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    pred = (pos[None, :] < pos[:, None]) @ (1 << np.arange(n))   # bits of i's predecessors
    masks = np.arange(local.shape[1])
    allowed = np.where((masks[None, :] & ~pred[:, None]) == 0, local, -np.inf)
    top = allowed.max(axis=1, keepdims=True)                      # logsumexp, written out (speed)
    weights = np.exp(allowed - top)
    total = weights.sum(axis=1, keepdims=True)
    weights /= total                                              # P(parent set | order, D)
    bits = (masks[:, None] >> np.arange(n)) & 1
    return float(np.sum(top + np.log(total))), weights @ bits


def order_mcmc(data, states=None, n_iter=5000, burn_in=1000, max_parents=3, score="bdeu",
               equivalent_sample_size=1.0, rng=None):
    """Posterior edge probabilities by Metropolis-Hastings over variable orders
    (Friedman & Koller 2003): propose swapping two variables of the order, accept with
    probability ``min(1, P(D | new order) / P(D | order))``, and average, over the
    ``n_iter - burn_in`` orders after the burn-in, each order's exact probability of every
    edge (given the order, each node's parent set is independent of the others').

    The implied prior over graphs gives each DAG a weight proportional to its number
    of consistent orders (``exact_edge_posterior(..., prior="order")`` is the same
    posterior, computed exactly on small problems). Graphs are limited to at most
    ``max_parents`` parents per node (``None``: no limit).

    Returns a :class:`StructurePosterior` with ``edge_prob``, ``trace`` and
    ``acceptance``. Same ``rng`` seed, same chain.

    Used in: Chapter 6, section "Averaging over structures".

    >>> rows = {"a": [0, 1] * 20, "b": [0, 1] * 19 + [1, 0], "c": [0, 0, 1, 1] * 10}
    >>> post = order_mcmc(rows, n_iter=300, burn_in=50, rng=0)
    >>> bool(post.link_prob[0, 1] > 0.9 > post.link_prob[0, 2])
    True
    """
    n_iter = check_scalar(n_iter, "n_iter", kind="integer", low=1)
    burn_in = check_scalar(burn_in, "burn_in", kind="integer", low=0)
    if burn_in >= n_iter:
        raise ValueError(f"burn_in ({burn_in}) must be smaller than n_iter ({n_iter}): "
                         "no order would be kept")
    rng = check_rng(rng)
    names, local = family_scores(data, states, score, max_parents, equivalent_sample_size)
    n = len(names)
    order = rng.permutation(n)
    current, edges = _order_terms(order, local)
    total, trace, accepted = np.zeros((n, n)), np.empty(n_iter), 0
    for t in range(n_iter):
        proposal = order.copy()
        a, b = rng.choice(n, size=2, replace=False)
        proposal[[a, b]] = proposal[[b, a]]
        value, proposal_edges = _order_terms(proposal, local)
        if np.log(rng.random()) < value - current:
            order, current, edges = proposal, value, proposal_edges
            accepted += 1
        trace[t] = current
        if t >= burn_in:
            total += edges
    return StructurePosterior(names, total.T / (n_iter - burn_in), trace, accepted / n_iter)


def exact_edge_posterior(data, states=None, prior="uniform", max_parents=None, score="bdeu",
                         equivalent_sample_size=1.0):
    """Exact Bayesian model averaging over every DAG on at most five variables:
    ``P(G | D)`` proportional to ``P(G) exp(score(G))`` with the decomposable score of
    :func:`family_scores`, and ``P(u -> v | D)`` the total posterior of the graphs that
    hold the edge.

    ``prior``: ``"uniform"`` (every DAG equally likely) or ``"order"`` (each DAG
    weighted by its number of consistent variable orders, the prior of
    :func:`order_mcmc`). Graphs with more than ``max_parents`` parents at a node are
    left out.

    Returns a :class:`StructurePosterior` with ``edge_prob``, ``graphs`` (adjacency
    matrices, ``graphs[g, u, v] = 1`` for ``u -> v``) and ``graph_prob``.

    Used in: Chapter 6, section "Averaging over structures" (and exercise set 06).
    """
    check_option(prior, "prior", ("uniform", "order"))
    names, local = family_scores(data, states, score, max_parents, equivalent_sample_size)
    n = len(names)
    if n > MAX_ENUMERATED:
        raise ValueError(f"exact enumeration is for at most {MAX_ENUMERATED} variables "
                         f"(got {n}); use order_mcmc")
    pairs = list(itertools.combinations(range(n), 2))
    codes = np.array(list(itertools.product(range(3), repeat=len(pairs))))   # none, u->v, v->u
    graphs = np.zeros((len(codes), n, n), dtype=np.int64)
    for k, (u, v) in enumerate(pairs):
        graphs[:, u, v] = codes[:, k] == 1
        graphs[:, v, u] = codes[:, k] == 2
    graphs = graphs[~np.linalg.matrix_power(graphs, n).any(axis=(1, 2))]   # acyclic: A**n == 0
    masks = np.einsum("guv,u->gv", graphs, 1 << np.arange(n))             # parent bits per node
    log_post = local[np.arange(n), masks].sum(axis=1)
    if prior == "order":
        orders = np.array(list(itertools.permutations(range(n))))
        pos = np.argsort(orders, axis=1)
        backwards = pos[:, :, None] > pos[:, None, :]                      # u after v in the order
        consistent = np.einsum("guv,puv->gp", graphs, backwards) == 0
        log_post = log_post + np.log(consistent.sum(axis=1))
    keep = np.isfinite(log_post)
    graphs, log_post = graphs[keep], log_post[keep]
    graph_prob = np.exp(log_post - logsumexp(log_post))
    return StructurePosterior(names, np.einsum("g,guv->uv", graph_prob, graphs),
                              graphs=graphs, graph_prob=graph_prob)
