"""Independences read off the graph of a Bayesian network.

Chapter 6, section "d-separation" (:func:`d_separated`, :func:`reachable`,
:func:`active_trails`), section "The Markov blanket" (:func:`markov_blanket`) and
section "Markov equivalence" (:func:`v_structures`, :func:`cpdag`,
:func:`markov_equivalent`). Only the graph matters here, never the CPTs, so every
function takes a :class:`~lib.bn.BayesNet` or a plain list of edges ``[(parent,
child), ...]`` (with ``nodes=`` for variables that have no edge).

References: Pearl (1988) ch. 3; Koller & Friedman (2009) sections 3.3 and 3.4
(Algorithm 3.1, "reachable", is the Bayes-ball search used here); Meek (1995) for the
orientation rules of :func:`cpdag`.
"""
import itertools
from collections import namedtuple
from itertools import combinations

import numpy as np

from ._common import ImpossibleEvidenceError
from .network import BayesNet, check_net

__all__ = ["d_separated", "reachable", "active_trails", "markov_blanket", "v_structures",
           "cpdag", "markov_equivalent", "CPDAG", "dsep_check"]


class _Graph:
    """Parents and children of a DAG given as a BayesNet or as a list of edges."""

    def __init__(self, net_or_edges, nodes=None):
        if isinstance(net_or_edges, BayesNet):
            net = net_or_edges
        else:
            if isinstance(net_or_edges, (str, bytes)) or not hasattr(net_or_edges, "__iter__"):
                raise TypeError("net_or_edges must be a BayesNet or a list of (parent, child) "
                                f"edges, got {type(net_or_edges).__name__}")
            edges = [tuple(e) if hasattr(e, "__iter__") and not isinstance(e, str) else e
                     for e in net_or_edges]
            bad = [e for e in edges if not isinstance(e, tuple) or len(e) != 2]
            if bad:
                raise ValueError(f"an edge must be a pair (parent, child), got {bad[0]!r}")
            names = list(dict.fromkeys([n for e in edges for n in e] + list(nodes or [])))
            if not names:
                raise ValueError("the graph has no nodes: give edges or nodes=")
            # BayesNet validates the graph (self-loops, repeated edges, cycles)
            net = BayesNet([(n, ("-",), [u for u, v in edges if v == n]) for n in names])
        self.names = list(net.names)
        self.parents = {n: set(net.parents[n]) for n in net.names}
        self.children = {n: set(net.children[n]) for n in net.names}

    def node(self, x, what):
        try:
            if x in self.parents:
                return x
        except TypeError:
            pass
        raise ValueError(f"{what} {x!r} is not a node of the graph {sorted(map(str, self.names))}")

    def nodes(self, xs, what):
        if xs is None:
            return set()
        if isinstance(xs, (str, bytes)) or not hasattr(xs, "__iter__"):
            xs = [xs]
        return {self.node(x, what) for x in xs}

    def ancestors(self, zs):
        """``zs`` and all their ancestors."""
        out, stack = set(zs), list(zs)
        while stack:
            for p in self.parents[stack.pop()]:
                if p not in out:
                    out.add(p)
                    stack.append(p)
        return out

    def adjacent(self, a, b):
        return a in self.parents[b] or b in self.parents[a]


def _sets(g, x, y, given):
    xs, ys, zs = g.nodes(x, "x"), g.nodes(y, "y"), g.nodes(given, "given")
    if not xs or not ys:
        raise ValueError("x and y must name at least one node each")
    for a, b, what in ((xs, ys, "x and y"), (xs, zs, "x and given"), (ys, zs, "y and given")):
        if a & b:
            raise ValueError(f"{what} share {sorted(map(str, a & b))}; the sets must be disjoint")
    return xs, ys, zs


def reachable(net_or_edges, x, given=(), nodes=None):
    """The set of nodes connected to ``x`` by an active trail given ``given``
    (``x`` itself and observed nodes excluded).

    Bayes-ball search over (node, direction) pairs (Koller & Friedman 2009,
    Algorithm 3.1): a trail passes an unobserved chain or fork node, and passes a
    collider only when the collider or one of its descendants is observed, i.e. when
    the collider is an ancestor of an observed node. Runs in time linear in the
    size of the graph. Used in: Chapter 6, section "d-separation".

    >>> sorted(reachable([("B", "A"), ("E", "A"), ("A", "C")], "B", given=["C"]))
    ['A', 'E']
    """
    g = net_or_edges if isinstance(net_or_edges, _Graph) else _Graph(net_or_edges, nodes)
    xs, zs = g.nodes(x, "x"), g.nodes(given, "given")
    if xs & zs:
        raise ValueError(f"x and given share {sorted(map(str, xs & zs))}")
    opens = g.ancestors(zs)            # colliders that evidence opens
    todo = [(n, "up") for n in xs]     # "up": reached from a child, "down": from a parent
    seen, found = set(), set()
    while todo:
        n, d = todo.pop()
        if (n, d) in seen:
            continue
        seen.add((n, d))
        if n not in zs:
            found.add(n)
        if d == "up" and n not in zs:
            todo += [(p, "up") for p in g.parents[n]] + [(c, "down") for c in g.children[n]]
        elif d == "down":
            if n not in zs:
                todo += [(c, "down") for c in g.children[n]]
            if n in opens:
                todo += [(p, "up") for p in g.parents[n]]
    return found - xs


def d_separated(net_or_edges, x, y, given=(), nodes=None):
    """True when every trail between ``x`` and ``y`` is blocked by ``given``.

    ``x``, ``y`` and ``given`` are node names or collections of names (disjoint).
    d-separation implies the conditional independence ``X _|_ Y | given`` in every
    distribution that factorises over the graph, whatever the CPTs (Pearl 1988);
    d-connection means the independence fails for some CPTs. Used in: Chapter 6,
    section "d-separation".

    >>> edges = [("B", "A"), ("E", "A"), ("A", "C")]
    >>> d_separated(edges, "B", "E"), d_separated(edges, "B", "E", given=["C"])
    (True, False)
    """
    g = _Graph(net_or_edges, nodes)
    xs, ys, zs = _sets(g, x, y, given)
    return not (reachable(g, xs, zs) & ys)


def active_trails(net_or_edges, x, y, given=(), nodes=None):
    """Every trail (path in the graph, ignoring directions, no node twice) between
    the nodes ``x`` and ``y``, with its status given ``given``.

    Returns a list of ``(trail, blocked_at)``: ``trail`` is the list of nodes from
    ``x`` to ``y``; ``blocked_at`` is ``None`` for an active trail, otherwise
    ``(node, reason)`` for the first blocking node, with reason ``"observed chain"``,
    ``"observed fork"`` or ``"closed collider"`` (a collider with neither itself nor
    a descendant observed). Enumerating trails is exponential in general; this is for
    small graphs and drawings. Used in: Chapter 6, section "d-separation"
    (the interactive figure).

    Examples
    --------
    >>> edges = [("Rain", "Wet"), ("Sprinkler", "Wet"), ("Wet", "Slippery")]
    >>> active_trails(edges, "Rain", "Sprinkler"), active_trails(edges, "Rain", "Sprinkler", ["Slippery"])
    ([(['Rain', 'Wet', 'Sprinkler'], ('Wet', 'closed collider'))], [(['Rain', 'Wet', 'Sprinkler'], None)])
    """
    g = _Graph(net_or_edges, nodes)
    xs, ys, zs = _sets(g, x, y, given)
    if len(xs) != 1 or len(ys) != 1:
        raise ValueError("active_trails needs one node x and one node y")
    (x,), (y,) = xs, ys
    opens = g.ancestors(zs)
    out, path = [], [x]

    def extend(n):
        if n == y:
            out.append((list(path), _blocked(g, path, zs, opens)))
            return
        for m in sorted(g.parents[n] | g.children[n], key=str):
            if m not in path:
                path.append(m)
                extend(m)
                path.pop()

    extend(x)
    return out


def _blocked(g, trail, zs, opens):
    for a, m, b in zip(trail, trail[1:], trail[2:]):
        collider = a in g.parents[m] and b in g.parents[m]
        if collider and m not in opens:
            return (m, "closed collider")
        if not collider and m in zs:
            fork = a in g.children[m] and b in g.children[m]
            return (m, "observed fork" if fork else "observed chain")
    return None


def markov_blanket(net_or_edges, x, nodes=None):
    """Parents, children and the children's other parents of ``x``: given these,
    ``x`` is independent of every other variable of the network. Used in:
    Chapter 6, section "The Markov blanket" (and by Gibbs sampling).

    Examples
    --------
    >>> from lib.datasets import load_network
    >>> sorted(markov_blanket(load_network("asia"), "lung"))
    ['either', 'smoke', 'tub']
    """
    g = _Graph(net_or_edges, nodes)
    x = g.node(x, "x")
    mb = g.parents[x] | g.children[x]
    for c in g.children[x]:
        mb |= g.parents[c]
    return mb - {x}


def v_structures(net_or_edges, nodes=None):
    """The v-structures ``(a, c, b)``: ``a -> c <- b`` with ``a`` and ``b`` not
    adjacent (``a``, ``b`` in sorted order). Used in: Chapter 6, section "Markov
    equivalence".

    Examples
    --------
    >>> from lib.datasets import load_network
    >>> v_structures(load_network("asia"))
    [('bronc', 'dysp', 'either'), ('lung', 'either', 'tub')]
    """
    g = net_or_edges if isinstance(net_or_edges, _Graph) else _Graph(net_or_edges, nodes)
    return sorted((a, c, b) for c in g.names
                  for a, b in combinations(sorted(g.parents[c], key=str), 2)
                  if not g.adjacent(a, b))


CPDAG = namedtuple("CPDAG", ["directed", "undirected"])
CPDAG.__doc__ = """The equivalence class of a DAG: ``directed`` is the set of compelled
edges ``(parent, child)``, ``undirected`` the set of reversible ones (frozensets)."""


def cpdag(net_or_edges, nodes=None):
    """The completed partially directed graph (CPDAG, "essential graph") of a DAG:
    the edges every Markov-equivalent DAG directs the same way (compelled) and the
    others (reversible).

    Start from the skeleton with only the v-structures directed, then apply Meek's
    rules until nothing changes (Meek 1995; Koller & Friedman 2009, section 3.4.3):
    R1 ``a -> b - c`` with ``a``, ``c`` not adjacent gives ``b -> c``; R2 ``a -> c -> b``
    and ``a - b`` gives ``a -> b``; R3 ``a - c -> b``, ``a - d -> b``, ``a - b`` with
    ``c``, ``d`` not adjacent gives ``a -> b``. Used in: Chapter 6, section "Markov
    equivalence".

    Examples
    --------
    >>> from lib.datasets import load_network
    >>> graph = cpdag(load_network("asia"))
    >>> sorted(graph.directed)
    [('bronc', 'dysp'), ('either', 'dysp'), ('either', 'xray'), ('lung', 'either'), ('tub', 'either')]
    >>> sorted(tuple(sorted(e)) for e in graph.undirected)
    [('asia', 'tub'), ('bronc', 'smoke'), ('lung', 'smoke')]
    """
    g = _Graph(net_or_edges, nodes)
    vs = v_structures(g)
    directed = {(a, c) for a, c, _ in vs} | {(b, c) for _, c, b in vs}
    skeleton = {frozenset((p, n)) for n in g.names for p in g.parents[n]}
    return meek_rules(g.names, skeleton, directed, skeleton - {frozenset(e) for e in directed})


def meek_rules(names, skeleton, directed, undirected, ambiguous=()):
    """Apply Meek's rules R1-R3 to the undirected edges until none applies. R1 and R3
    read an unshielded triple ``x - m - y`` as a non-collider; they skip the triples
    in ``ambiguous`` (``(frozenset({x, y}), m)`` pairs, from conservative PC).

    Orients the CPDAG of :func:`cpdag` and of the PC algorithm (:mod:`lib.bn.constraint`);
    Chapter 6, sections "Markov equivalence" and "Learning the structure"."""
    directed, undirected = set(directed), set(undirected)
    ambiguous = set(ambiguous)

    def adjacent(a, b):
        return frozenset((a, b)) in skeleton

    def arrow(a, b):
        return (a, b) in directed

    def line(a, b):
        return frozenset((a, b)) in undirected

    changed = True
    while changed:
        changed = False
        for e in sorted(undirected, key=lambda e: sorted(map(str, e))):
            for a, b in (tuple(e), tuple(e)[::-1]):
                others = [n for n in names if n not in (a, b)]
                r1 = any(arrow(c, a) and not adjacent(c, b)
                         and (frozenset((c, b)), a) not in ambiguous for c in others)
                r2 = any(arrow(a, c) and arrow(c, b) for c in others)
                r3 = any(line(a, c) and line(a, d) and arrow(c, b) and arrow(d, b)
                         and not adjacent(c, d) and (frozenset((c, d)), a) not in ambiguous
                         for c, d in combinations(others, 2))
                if r1 or r2 or r3:
                    undirected.discard(e)
                    directed.add((a, b))
                    changed = True
                    break
    return CPDAG(directed, undirected)


def markov_equivalent(a, b):
    """Do two DAGs (BayesNets or edge lists) define the same independences? True
    exactly when they have the same skeleton and the same v-structures (Verma &
    Pearl 1990). Used in: Chapter 6, section "Markov equivalence".

    Examples
    --------
    >>> markov_equivalent([("A", "B"), ("B", "C")], [("C", "B"), ("B", "A")])
    True
    >>> markov_equivalent([("A", "B"), ("C", "B")], [("B", "A"), ("B", "C")])
    False
    """
    ga, gb = _Graph(a), _Graph(b)
    if set(ga.names) != set(gb.names):
        return False
    skel = [{frozenset((p, n)) for n in g.names for p in g.parents[n]} for g in (ga, gb)]
    return skel[0] == skel[1] and v_structures(a) == v_structures(b)


def dsep_check(net, x, y, given):
    """``(z, gap)``: the first assignment ``z`` of ``given`` (in state order) with
    positive probability and ``gap = max over y, x of |P(x | y, z) - P(x | z)|`` (states
    of ``y`` impossible given ``z`` skipped); 0 when ``x`` and ``y`` are d-separated.
    Used in: Chapter 6, section "d-separation" (the title of the interactive figure).
    Raises :class:`ImpossibleEvidenceError` when every assignment of ``given`` is
    impossible.

    Examples
    --------
    >>> from lib.datasets import load_network
    >>> asia = load_network("asia")
    >>> z, gap = dsep_check(asia, "tub", "smoke", ["either"])
    >>> z, round(gap, 4)
    ({'either': 'yes'}, 0.352)
    """
    from .inference import log_evidence
    check_net(net)
    for zs in itertools.product(*(net.states[g] for g in given)):
        ev = dict(zip(given, zs))
        if log_evidence(net, ev) == -np.inf:
            continue
        base = net.query(x, ev)
        gap = max(float(np.abs(net.query(x, {**ev, y: s}) - base).max())
                  for s in net.states[y] if log_evidence(net, {**ev, y: s}) > -np.inf)
        return ev, gap
    raise ImpossibleEvidenceError(dict.fromkeys(given, "any state"))
