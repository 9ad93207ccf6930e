"""Bayesian networks over discrete variables: representation, inference, learning.

Chapter 6 ("Bayesian networks") is built on this module; Chapter 7 (EM) uses
:meth:`BayesNet.expected_counts`, :meth:`BayesNet.query` and
:meth:`BayesNet.log_likelihood` on data with missing values.

A network is a list of named variables, each with its states, its parents and its
conditional probability table (CPT). The CPT of a variable with parents
``(U1, ..., Uk)`` is an array of shape ``(|U1|, ..., |Uk|, |X|)``: one row per
configuration of the parents (in C order, last parent fastest) and one column per
state of the variable, so every row sums to one. A table of shape
``(|U1|*...*|Uk|, |X|)``, written row by row as in a textbook, is accepted too.

Data
----
Data are tables of complete or partial assignments, in any of these forms:

* a mapping ``{variable: column}`` (a ``dict`` of lists / arrays, or a pandas
  ``DataFrame``) whose entries are state labels; ``None`` or ``NaN`` marks a missing
  value and a variable without a column is missing in every row (hidden);
* a list of ``{variable: state}`` rows;
* a 2-D integer array of state *codes* (``0 .. n_states-1``, ``-1`` = missing) with
  one column per variable in the order of ``net.names``.

:meth:`BayesNet.encode` turns any of them into the integer array.

Evidence is a ``{variable: state label}`` dict. Distributions returned by inference
are numpy arrays ordered like ``net.states[variable]``.

Example
-------
>>> net = BayesNet([("Rain", ["yes", "no"], [], [0.2, 0.8]),
...                 ("Wet", ["yes", "no"], ["Rain"], [[0.9, 0.1], [0.1, 0.9]])])
>>> net.query("Rain", {"Wet": "yes"}).round(4)
array([0.6923, 0.3077])
"""
import gzip
import math
import re
from collections import namedtuple
from itertools import product
from pathlib import Path

import numpy as np
from scipy.special import logsumexp

__all__ = [
    "BayesNet", "SamplingResult", "read_bif", "hill_climb", "family_score",
    "layered_layout", "plot_network", "plot_evidence_explorer",
    "plot_sampling_convergence",
]

#: Result of a Monte Carlo estimate. ``p``: estimated distribution of the query
#: variable; ``n_effective``: accepted samples (rejection sampling), Kish effective
#: sample size ``(sum w)^2 / sum w^2`` (likelihood weighting) or number of sweeps
#: (Gibbs); ``running``: the estimate after each sample, shape ``(n, n_states)``.
SamplingResult = namedtuple("SamplingResult", "p n_effective running")

_ROW_ATOL = 1e-6  # rows of published networks are rounded to ~1e-7
_MISSING = -1


def _is_missing(value):
    return value is None or (isinstance(value, float) and value != value)


class BayesNet:
    """A Bayesian network over discrete variables.

    Parameters
    ----------
    variables : iterable
        One entry per variable, in any order: a tuple ``(name, states, parents, cpt)``
        (``parents`` and ``cpt`` optional) or a dict with keys ``name``, ``states``,
        ``parents``, ``cpt``. ``cpt=None`` means uniform rows (a structure to be
        fitted with :meth:`fit`).

    Raises
    ------
    ValueError
        Duplicate names, fewer than one state, duplicate states, a parent that is not
        in the network, a cycle, a CPT of the wrong shape, with negative or non-finite
        entries, or with rows that do not sum to one.

    Notes
    -----
    The joint distribution is :math:`P(x_1..x_n) = \\prod_i P(x_i | parents(X_i))`
    (:meth:`joint`). Used in: Chapter 6, all sections; Chapter 7 (EM).
    """

    def __init__(self, variables):
        specs = [self._spec(v) for v in variables]
        if not specs:
            raise ValueError("a Bayesian network needs at least one variable")
        self.names = [s[0] for s in specs]
        if len(set(self.names)) != len(self.names):
            dup = sorted({n for n in self.names if self.names.count(n) > 1})
            raise ValueError(f"duplicate variable names: {dup}")
        self._idx = {n: i for i, n in enumerate(self.names)}
        self.states = {}
        self.parents = {}
        for name, states, parents, _ in specs:
            states = tuple(states)
            if len(states) < 1:
                raise ValueError(f"variable {name!r} needs at least one state")
            if len(set(states)) != len(states):
                raise ValueError(f"variable {name!r} has duplicate states {states}")
            self.states[name] = states
            for p in parents:
                if p not in self._idx:
                    raise ValueError(f"parent {p!r} of {name!r} is not a variable of the network")
                if p == name:
                    raise ValueError(f"variable {name!r} cannot be its own parent (cycle)")
            if len(set(parents)) != len(parents):
                raise ValueError(f"variable {name!r} lists a parent twice: {parents}")
            self.parents[name] = tuple(parents)
        self.card = {n: len(self.states[n]) for n in self.names}
        self.children = {n: tuple(c for c in self.names if n in self.parents[c]) for n in self.names}
        self.order = self._topological_order()
        self._state_code = {n: {s: k for k, s in enumerate(self.states[n])} for n in self.names}
        self.cpts = {}
        for name, _, _, cpt in specs:
            self.set_cpt(name, cpt)

    # ------------------------------------------------------------------ building
    @staticmethod
    def _spec(v):
        if isinstance(v, dict):
            unknown = set(v) - {"name", "states", "parents", "cpt"}
            if unknown:
                raise ValueError(f"unknown keys in variable spec: {sorted(unknown)}")
            if "name" not in v or "states" not in v:
                raise ValueError("a variable spec needs 'name' and 'states'")
            return v["name"], list(v["states"]), list(v.get("parents") or []), v.get("cpt")
        v = tuple(v)
        if not 2 <= len(v) <= 4:
            raise ValueError(f"variable spec must be (name, states[, parents[, cpt]]), got {v!r}")
        name, states = v[0], v[1]
        parents = list(v[2]) if len(v) > 2 and v[2] is not None else []
        cpt = v[3] if len(v) > 3 else None
        if isinstance(states, str):
            raise TypeError(f"states of {name!r} must be a list of labels, not a string")
        return name, list(states), parents, cpt

    @classmethod
    def from_edges(cls, states, edges=()):
        """A network with uniform CPTs from ``states = {name: [states]}`` and
        ``edges = [(parent, child), ...]``; fit its CPTs with :meth:`fit`.

        Used in: Chapter 6, sections "Learning the parameters" and "Learning the structure".
        """
        edges = list(edges)
        for u, v in edges:
            for n in (u, v):
                if n not in states:
                    raise ValueError(f"edge ({u!r}, {v!r}) names {n!r}, which has no states")
        return cls([(n, s, [u for u, v in edges if v == n]) for n, s in states.items()])

    def _topological_order(self):
        indeg = {n: len(self.parents[n]) for n in self.names}
        ready = [n for n in self.names if indeg[n] == 0]
        order = []
        while ready:
            n = ready.pop(0)
            order.append(n)
            for c in self.children[n]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    ready.append(c)
        if len(order) < len(self.names):
            raise ValueError(f"the graph has a cycle: {' -> '.join(self._find_cycle())}")
        return order

    def _find_cycle(self):
        color, stack = {n: 0 for n in self.names}, []

        def visit(n):
            color[n] = 1
            stack.append(n)
            for c in self.children[n]:
                if color[c] == 1:
                    return stack[stack.index(c):] + [c]
                if color[c] == 0:
                    found = visit(c)
                    if found:
                        return found
            color[n] = 2
            stack.pop()
            return None

        for n in self.names:
            if color[n] == 0:
                found = visit(n)
                if found:
                    return found
        return []

    def cpt_shape(self, name):
        """Shape ``(|U1|, ..., |Uk|, |X|)`` of the CPT of ``name``."""
        return tuple(self.card[p] for p in self.parents[name]) + (self.card[name],)

    def set_cpt(self, name, cpt):
        """Validate and store the CPT of ``name`` (``None``: uniform rows).

        Raises ``ValueError`` for an unknown variable, a wrong shape, negative or
        non-finite entries, or rows that do not sum to one (tolerance 1e-6).
        """
        if name not in self._idx:
            raise ValueError(f"unknown variable {name!r}")
        shape = self.cpt_shape(name)
        if cpt is None:
            table = np.full(shape, 1.0 / shape[-1])
        else:
            table = np.array(cpt, dtype=float)
            if table.shape != shape:
                flat = (int(np.prod(shape[:-1])), shape[-1])
                if table.shape == flat or (len(shape) == 1 and table.shape == (1, shape[0])):
                    table = table.reshape(shape)
                else:
                    raise ValueError(
                        f"CPT of {name!r} has shape {table.shape}; expected {shape} "
                        f"(parents {list(self.parents[name])} then the variable itself)")
            if not np.all(np.isfinite(table)):
                raise ValueError(f"CPT of {name!r} has NaN or infinite entries")
            if np.any(table < 0):
                raise ValueError(f"CPT of {name!r} has negative entries")
            sums = table.sum(axis=-1)
            bad = np.abs(sums - 1) > _ROW_ATOL
            if np.any(bad):
                where = np.argwhere(bad)[0]
                cfg = dict(zip(self.parents[name], (self.states[p][k] for p, k in zip(self.parents[name], where))))
                raise ValueError(f"CPT row of {name!r} for parents {cfg} sums to "
                                 f"{sums[tuple(where)]:.6g}, not 1")
        self.cpts[name] = table
        self._cache = None

    def copy(self):
        """An independent copy (CPT arrays copied)."""
        return BayesNet([(n, self.states[n], self.parents[n], self.cpts[n].copy()) for n in self.names])

    def edges(self):
        """The list of directed edges ``(parent, child)``."""
        return [(p, n) for n in self.names for p in self.parents[n]]

    def skeleton(self):
        """The undirected edges, as a set of frozensets ``{parent, child}``."""
        return {frozenset(e) for e in self.edges()}

    def n_parameters(self):
        """Number of independent parameters: sum over variables of
        ``(|X| - 1) * prod(|U| for U in parents)``.

        Used in: Chapter 6, section "Counting parameters" (Figure 20.10: 78 and 708).
        """
        return int(sum((self.card[n] - 1) * math.prod(self.card[p] for p in self.parents[n])
                       for n in self.names))

    def __repr__(self):
        fam = ", ".join(f"{n}|{','.join(self.parents[n])}" if self.parents[n] else n for n in self.names)
        return f"BayesNet({fam})"

    # ----------------------------------------------------------- internal arrays
    def _arrays(self):
        """Integer-indexed views used by the fast code paths (rebuilt after set_cpt)."""
        if self._cache is None:
            c = {}
            c["card"] = np.array([self.card[n] for n in self.names])
            c["par"] = [tuple(self._idx[p] for p in self.parents[n]) for n in self.names]
            c["cpt"] = [self.cpts[n] for n in self.names]
            c["cpt2"] = [t.reshape(-1, t.shape[-1]) for t in c["cpt"]]
            c["cum"] = [np.cumsum(t, axis=1) for t in c["cpt2"]]
            with np.errstate(divide="ignore"):
                c["log2d"] = [np.log(t) for t in c["cpt2"]]
            c["stride"] = [self._strides(c["card"][list(p)]) for p in c["par"]]
            c["topo"] = [self._idx[n] for n in self.order]
            c["children"] = [tuple(self._idx[k] for k in self.children[n]) for n in self.names]
            self._cache = c
        return self._cache

    @staticmethod
    def _strides(cards):
        cards = np.asarray(cards, dtype=np.int64)
        if cards.size == 0:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([np.cumprod(cards[::-1])[::-1][1:], [1]]).astype(np.int64)

    def _code(self, name, state, what="evidence"):
        if name not in self._idx:
            raise ValueError(f"unknown variable {name!r} in {what}")
        table = self._state_code[name]
        if state in table:
            return table[state]
        if not isinstance(state, str) and str(state) in table:
            return table[str(state)]
        raise ValueError(f"unknown state {state!r} of variable {name!r} in {what}; "
                         f"states are {list(self.states[name])}")

    def _evidence(self, evidence):
        if evidence is None:
            return {}
        if not isinstance(evidence, dict):
            raise TypeError("evidence must be a dict {variable: state}")
        out = {}
        for n, s in evidence.items():
            code = self._code(n, s)  # raises for unknown variables and states
            out[self._idx[n]] = code
        return out

    # -------------------------------------------------------------------- data
    def encode(self, data, allow_missing=False):
        """Integer codes of ``data`` (see the module docstring): an ``(n, n_vars)``
        array, columns in ``net.names`` order, ``-1`` for missing values.

        Raises ``ValueError`` for unknown states, empty data, ragged columns, missing
        values when ``allow_missing`` is false, or codes out of range.
        """
        if isinstance(data, np.ndarray) and data.ndim == 2 and data.dtype.kind in "iu":
            X = data.astype(np.int64)
            if X.shape[1] != len(self.names):
                raise ValueError(f"integer data must have {len(self.names)} columns (net.names), got {X.shape[1]}")
            card = self._arrays()["card"]
            if np.any(X >= card) or np.any(X < _MISSING):
                j = int(np.argwhere((X >= card) | (X < _MISSING))[0, 1])
                raise ValueError(f"state code out of range for variable {self.names[j]!r}")
        else:
            if isinstance(data, (list, tuple)):
                if not data:
                    raise ValueError("data are empty")
                if not all(isinstance(r, dict) for r in data):
                    raise TypeError("a list of data must hold {variable: state} rows")
                keys = {k for r in data for k in r}
                data = {k: [r.get(k) for r in data] for k in keys}
            if not hasattr(data, "keys"):
                raise TypeError("data must be a mapping of columns, a list of row dicts "
                                "or a 2-D integer array of state codes")
            unknown = [k for k in data.keys() if k not in self._idx]
            if unknown:
                raise ValueError(f"data have columns that are not variables of the network: {unknown}")
            lengths = {len(data[k]) for k in data.keys()}
            if len(lengths) > 1:
                raise ValueError(f"data columns have different lengths {sorted(lengths)}")
            n = lengths.pop() if lengths else 0
            if n == 0:
                raise ValueError("data are empty")
            X = np.full((n, len(self.names)), _MISSING, dtype=np.int64)
            for j, name in enumerate(self.names):
                if name not in data.keys():
                    continue
                X[:, j] = self._encode_column(name, data[name])
        if X.shape[0] == 0:
            raise ValueError("data are empty")
        if not allow_missing and np.any(X == _MISSING):
            j = int(np.argwhere(X == _MISSING)[0, 1])
            raise ValueError(f"data have missing values (variable {self.names[j]!r}); "
                             "this method needs complete data")
        return X

    def _encode_column(self, name, column):
        """Codes of one column of labels (-1 for None / NaN): one vectorised
        comparison per state; only values matching no state are examined one by one."""
        arr = np.asarray(column)
        if arr.ndim != 1:
            arr = np.asarray(list(column), dtype=object)
        codes = np.full(len(arr), -2, dtype=np.int64)
        for state, k in self._state_code[name].items():
            with np.errstate(all="ignore"):
                hit = np.asarray(arr == state)
            if hit.shape == codes.shape:
                codes[hit & (codes == -2)] = k
        for t in np.flatnonzero(codes == -2):
            v = arr[t].item() if isinstance(arr[t], np.generic) else arr[t]
            codes[t] = _MISSING if _is_missing(v) else self._code(name, v, "data")
        return codes

    def decode(self, X):
        """Inverse of :meth:`encode`: a dict of columns of state labels."""
        X = np.asarray(X)
        out = {}
        for j, n in enumerate(self.names):
            labels = np.array(list(self.states[n]) + [None], dtype=object)
            out[n] = labels[X[:, j]]
            if all(isinstance(s, str) for s in self.states[n]) and not np.any(X[:, j] < 0):
                out[n] = out[n].astype(str)
        return out

    # --------------------------------------------------------- joint probability
    def joint(self, assignment):
        """P(x_1, ..., x_n) of a complete assignment ``{variable: state}``, the
        product of one CPT entry per variable (the chain rule of the network).

        >>> net = BayesNet([("A", [0, 1], [], [0.3, 0.7]), ("B", [0, 1], ["A"], [[0.9, 0.1], [0.2, 0.8]])])
        >>> round(net.joint({"A": 1, "B": 0}), 4)
        0.14

        Used in: Chapter 6, section "The earthquake network".
        """
        ev = self._evidence(assignment)
        missing = [n for n in self.names if self._idx[n] not in ev]
        if missing:
            raise ValueError(f"joint() needs a state for every variable; missing {missing}")
        p = 1.0
        for n in self.names:
            idx = tuple(ev[self._idx[u]] for u in self.parents[n] + (n,))
            p *= float(self.cpts[n][idx])
        return p

    def joint_table(self, max_size=2 ** 22):
        """The full joint distribution as an array with one axis per variable (in
        ``net.names`` order): brute force, for small networks only."""
        a = self._arrays()
        size = int(np.prod(a["card"]))
        if size > max_size:
            raise ValueError(f"the joint table would have {size} entries (> {max_size})")
        n = len(self.names)
        ops = []
        for i in range(n):
            ops += [a["cpt"][i], list(a["par"][i]) + [i]]
        return np.einsum(*ops, list(range(n)))

    # ------------------------------------------------------------- exact inference
    def _check_query(self, variables, evidence):
        if isinstance(variables, str) or not isinstance(variables, (list, tuple)):
            variables = [variables]
        for v in variables:
            if v not in self._idx:
                raise ValueError(f"unknown query variable {v!r}")
        if len(set(variables)) != len(variables):
            raise ValueError("query variables must be distinct")
        ev = self._evidence(evidence)
        q = [self._idx[v] for v in variables]
        both = [self.names[i] for i in q if i in ev]
        if both:
            raise ValueError(f"query variable(s) {both} also appear in the evidence")
        return q, ev

    def query(self, variables, evidence=None, method="elimination"):
        """Posterior distribution ``P(variables | evidence)``.

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

        Raises ``ValueError`` for unknown variables or states, evidence on a query
        variable, or evidence of probability zero.

        Used in: Chapter 6, sections "Exact inference" and "Approximate inference".
        """
        q, ev = self._check_query(variables, evidence)
        if method == "elimination":
            table, _, _ = self._eliminate(q, ev)
        elif method == "enumeration":
            table = self._enumerate(q, ev)
        elif method == "joint":
            joint = self.joint_table()
            idx = tuple(ev.get(i, slice(None)) for i in range(len(self.names)))
            sub = joint[idx]
            free = [i for i in range(len(self.names)) if i not in ev]
            keep = [free.index(i) for i in q]
            other = tuple(k for k in range(len(free)) if k not in keep)
            table = np.transpose(sub.sum(axis=other), np.argsort(np.argsort(keep)))
        else:
            raise ValueError(f"unknown method {method!r}; use 'elimination', 'enumeration' or 'joint'")
        total = table.sum()
        if not total > 0:
            raise ValueError(f"the evidence {evidence} has probability zero")
        return table / total

    def log_evidence(self, evidence):
        """Natural log of P(evidence), by variable elimination (``-inf`` if zero)."""
        ev = self._evidence(evidence)
        table, log_scale, _ = self._eliminate([], ev)
        s = float(table.sum())
        return math.log(s) + log_scale if s > 0 else -math.inf

    def _relevant(self, keep):
        """Ancestors of ``keep`` (inclusive): the other variables are barren."""
        par = self._arrays()["par"]
        seen, stack = set(keep), list(keep)
        while stack:
            for p in par[stack.pop()]:
                if p not in seen:
                    seen.add(p)
                    stack.append(p)
        return seen

    def _factors(self, relevant, ev):
        a = self._arrays()
        factors = []
        for i in sorted(relevant):
            scope = a["par"][i] + (i,)
            table = a["cpt"][i]
            if any(u in ev for u in scope):
                table = table[tuple(ev.get(u, slice(None)) for u in scope)]
                scope = tuple(u for u in scope if u not in ev)
            factors.append((scope, table))
        return factors

    def _order(self, factors, hidden, heuristic="min_fill"):
        """Greedy elimination order (min-fill, ties broken by min-weight) and the
        number of variables / entries of the largest factor it creates. Scores are
        cached and only recomputed around the variable just eliminated."""
        if heuristic not in ("min_fill", "min_weight", "min_neighbors"):
            raise ValueError(f"unknown heuristic {heuristic!r}")
        card = self._arrays()["card"].tolist()
        nb = {}
        for scope, _ in factors:
            for u in scope:
                nb.setdefault(u, set()).update(scope)
        for u in nb:
            nb[u].discard(u)
        hidden = set(hidden)

        def key(h):
            ns = nb.get(h, ())
            weight = math.prod(card[x] for x in ns) * card[h]
            if heuristic == "min_fill":
                fill = 0
                for x in ns:
                    fill += len(ns) - 1 - len(nb[x] & ns)
                return (fill // 2, weight, h)
            if heuristic == "min_weight":
                return (0, weight, h)
            return (len(ns), weight, h)

        scores = {h: key(h) for h in hidden}
        order, widest, biggest = [], 0, 1
        while scores:
            best = min(scores, key=scores.__getitem__)
            biggest = max(biggest, scores.pop(best)[1])
            ns = nb.pop(best, set())
            widest = max(widest, len(ns) + 1)
            for x in ns:
                nb[x].discard(best)
                nb[x].update(ns - {x})
            order.append(best)
            touched = set(ns)
            if heuristic == "min_fill":
                for x in ns:
                    touched |= nb[x]
            for h in touched:
                if h in scores:
                    scores[h] = key(h)
        return order, widest, biggest

    @staticmethod
    def _multiply(factors, keep):
        """Product of factors summed down to the variables ``keep`` (one einsum)."""
        local = {}
        ops = []
        for scope, table in factors:
            ops += [table, [local.setdefault(u, len(local)) for u in scope]]
        out = [local[u] for u in keep]
        if not ops:
            return np.ones(())
        return np.einsum(*ops, out, optimize=len(factors) > 3)

    def _prepare(self, q, ev):
        """Variables and evidence-reduced factors a query needs: barren variables
        (not ancestors of the query or the evidence) are dropped. Parts cut off
        from the query by the evidence are kept: their constant detects evidence of
        probability zero."""
        relevant = self._relevant(list(q) + list(ev))
        factors = self._factors(relevant, ev)
        return relevant, factors

    def _eliminate(self, q, ev, heuristic="min_fill"):
        relevant, factors = self._prepare(q, ev)
        # the plan depends only on which variables are queried / observed
        plans = self.__dict__.setdefault("_plans", {})
        key = (tuple(q), frozenset(ev), heuristic)
        if key not in plans:
            if len(plans) > 10_000:
                plans.clear()
            plans[key] = self._order(factors, relevant - set(q) - set(ev), heuristic)
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
            m = table.max() if table.size else 0.0
            if 0 < m < 1e-100:  # keep long products away from underflow
                table = table / m
                log_scale += math.log(m)
            return scope, table

        factors = [f for f in (absorb(*f) for f in factors) if f is not None]
        for h in order:
            inv = [f for f in factors if h in f[0]]
            factors = [f for f in factors if h not in f[0]]
            scope = tuple(dict.fromkeys(u for s, _ in inv for u in s if u != h))
            new = absorb(scope, self._multiply(inv, scope))
            if new is not None:
                factors.append(new)
        while len(factors) > 16:  # einsum takes a limited number of operands
            head, factors = factors[:8], factors[8:]
            scope = tuple(dict.fromkeys(u for s, _ in head for u in s))
            factors.append((scope, self._multiply(head, scope)))
        table = self._multiply(factors, q)
        if zero:
            table = np.zeros_like(table)
        return table, log_scale, {"order": [self.names[h] for h in order],
                                  "largest_factor_vars": widest,
                                  "largest_factor_size": biggest}

    def elimination_plan(self, variables, evidence=None, heuristic="min_fill"):
        """The elimination order chosen for a query and the size of the largest
        intermediate factor: ``{"order": [...], "largest_factor_vars": k,
        "largest_factor_size": entries, "pruned": [barren variables]}``.

        Used in: Chapter 6, section "Variable elimination".
        """
        q, ev = self._check_query(variables, evidence)
        relevant, factors = self._prepare(q, ev)
        order, widest, biggest = self._order(factors, relevant - set(q) - set(ev), heuristic)
        return {"order": [self.names[h] for h in order], "largest_factor_vars": widest,
                "largest_factor_size": biggest,
                "pruned": [n for n in self.names if self._idx[n] not in relevant]}

    def _enumerate(self, q, ev):
        """Textbook enumeration: for every value of the query variables, sum the
        product of CPT entries over all assignments of the hidden variables (barren
        variables are dropped first)."""
        a = self._arrays()
        relevant = self._relevant(list(q) + list(ev))
        topo = [i for i in a["topo"] if i in relevant]
        cpt, par, card = a["cpt"], a["par"], a["card"]
        x = [None] * len(self.names)

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

    # -------------------------------------------------------- approximate inference
    def _forward(self, n, rng, fixed=None):
        """Forward (prior) sampling in topological order; variables in ``fixed`` are
        clamped and their log likelihoods summed into the returned log weights."""
        a = self._arrays()
        fixed = fixed or {}
        X = np.empty((n, len(self.names)), dtype=np.int64)
        logw = np.zeros(n)
        for i in a["topo"]:
            par = a["par"][i]
            rows = X[:, list(par)] @ a["stride"][i] if par else np.zeros(n, dtype=np.int64)
            if i in fixed:
                X[:, i] = fixed[i]
                logw += a["log2d"][i][rows, fixed[i]]
            else:
                cum = a["cum"][i][rows]
                u = rng.random(n)[:, None]
                X[:, i] = np.minimum((u >= cum).sum(axis=1), a["card"][i] - 1)
        return X, logw

    @staticmethod
    def _rng(rng):
        if rng is None or isinstance(rng, (int, np.integer)):
            return np.random.default_rng(rng)
        if not isinstance(rng, np.random.Generator):
            raise TypeError("rng must be a numpy Generator or an integer seed")
        return rng

    def sample(self, n, rng=None, codes=False):
        """``n`` independent samples from the joint distribution (prior / forward
        sampling: each variable after its parents, from its CPT row).

        Returns a dict of columns of state labels, or (``codes=True``) the integer
        array of :meth:`encode`. Used in: Chapter 6, section "Prior sampling".
        """
        n = int(n)
        if n < 1:
            raise ValueError("n must be at least 1")
        X, _ = self._forward(n, self._rng(rng))
        return X if codes else self.decode(X)

    def _sampling_args(self, variable, evidence, n):
        if not isinstance(variable, str) and isinstance(variable, (list, tuple)):
            raise ValueError("sampling estimates take one query variable")
        q, ev = self._check_query(variable, evidence)
        n = int(n)
        if n < 1:
            raise ValueError("n must be at least 1")
        return q[0], ev, n

    def rejection_sampling(self, variable, evidence, n, rng=None):
        """Estimate ``P(variable | evidence)`` from ``n`` prior samples, keeping those
        that agree with the evidence. ``n_effective`` = number kept (about
        ``n * P(evidence)``). Returns a :class:`SamplingResult` (``p`` is NaN when
        no sample was kept).

        Used in: Chapter 6, section "Approximate inference".
        """
        q, ev, n = self._sampling_args(variable, evidence, n)
        X, _ = self._forward(n, self._rng(rng))
        keep = np.ones(n, dtype=bool)
        for i, s in ev.items():
            keep &= X[:, i] == s
        onehot = (X[:, q][:, None] == np.arange(self.card[variable])) & keep[:, None]
        counts = np.cumsum(onehot, axis=0)
        kept = np.cumsum(keep)
        with np.errstate(invalid="ignore", divide="ignore"):
            running = counts / kept[:, None]
        return SamplingResult(running[-1], int(kept[-1]), running)

    def likelihood_weighting(self, variable, evidence, n, rng=None):
        """Estimate ``P(variable | evidence)`` by likelihood weighting: evidence
        variables are clamped, the others sampled from their CPTs, and each sample
        weighted by the product of ``P(e_i | parents)``. ``n_effective`` is Kish's
        ``(sum w)^2 / sum w^2``.

        Used in: Chapter 6, section "Approximate inference".
        """
        q, ev, n = self._sampling_args(variable, evidence, n)
        X, logw = self._forward(n, self._rng(rng), fixed=ev)
        if np.all(np.isneginf(logw)):
            raise ValueError(f"the evidence {evidence} has probability zero")
        w = np.exp(logw - logw.max())
        onehot = (X[:, q][:, None] == np.arange(self.card[variable])) * w[:, None]
        cw = np.cumsum(w)
        with np.errstate(invalid="ignore", divide="ignore"):
            running = np.cumsum(onehot, axis=0) / cw[:, None]
        ess = w.sum() ** 2 / np.sum(w ** 2)
        return SamplingResult(running[-1], float(ess), running)

    def gibbs_sampling(self, variable, evidence, n, rng=None, burn_in=100):
        """Estimate ``P(variable | evidence)`` with a Gibbs sampler: starting from a
        likelihood-weighting sample, each sweep resamples every non-evidence
        variable from its distribution given its Markov blanket (parents, children,
        children's other parents). ``n`` sweeps are counted after ``burn_in``.

        Used in: Chapter 6, section "Approximate inference".
        """
        q, ev, n = self._sampling_args(variable, evidence, n)
        rng = self._rng(rng)
        a = self._arrays()
        # a start state with positive probability
        X, logw = self._forward(64, rng, fixed=ev)
        if np.all(np.isneginf(logw)):
            raise ValueError(f"the evidence {evidence} has probability zero")
        x = [int(v) for v in X[int(np.argmax(logw))]]
        free = [i for i in a["topo"] if i not in ev]
        plan = []
        for i in free:
            table, blanket = self._blanket_table(i)
            strides = [int(v) for v in self._strides(a["card"][blanket])]
            plan.append((i, list(zip(blanket, strides)), table))
        total = n + int(burn_in)
        u = rng.random((total, len(free))).tolist()
        trace = np.empty(total, dtype=np.int64)
        for t in range(total):
            ut = u[t]
            for k, (i, bs, table) in enumerate(plan):
                row = table[sum(x[m] * st for m, st in bs)]
                r, s = ut[k], 0
                while s < len(row) - 1 and r >= row[s]:
                    s += 1
                x[i] = s
            trace[t] = x[q]
        trace = trace[int(burn_in):]
        onehot = trace[:, None] == np.arange(a["card"][q])
        running = np.cumsum(onehot, axis=0) / np.arange(1, n + 1)[:, None]
        return SamplingResult(running[-1], n, running)

    def _blanket_table(self, i, max_size=1_000_000):
        """Cumulative ``P(x_i | Markov blanket)`` for every blanket configuration:
        the product of the CPT of ``i`` and of its children's CPTs, normalised over
        ``x_i``. Returns (list of cumulative rows, blanket variable indices)."""
        a = self._arrays()
        fams = [i] + list(a["children"][i])
        blanket = sorted({u for c in fams for u in a["par"][c] + (c,)} - {i})
        size = int(np.prod(a["card"][blanket + [i]]))
        if size > max_size:
            raise ValueError(f"the Markov blanket of {self.names[i]!r} is too large for Gibbs sampling")
        table = self._multiply([(a["par"][c] + (c,), a["cpt"][c]) for c in fams], blanket + [i])
        table = table.reshape(-1, a["card"][i])
        tot = table.sum(axis=1, keepdims=True)
        table = np.where(tot > 0, table / np.where(tot > 0, tot, 1), 1.0 / a["card"][i])
        return np.cumsum(table, axis=1).tolist(), blanket

    # ------------------------------------------------------------------- learning
    def _family_counts(self, X, i, parents, weights=None):
        card = self._arrays()["card"]
        fam = list(parents) + [i]
        cards = card[fam]
        idx = X[:, fam] @ self._strides(cards)
        return np.bincount(idx, weights=weights, minlength=int(np.prod(cards))).reshape(cards)

    @staticmethod
    def _normalise(counts, pseudo_count):
        c = counts + pseudo_count
        tot = c.sum(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(tot > 0, c / np.where(tot > 0, tot, 1), 1.0 / c.shape[-1])

    def fit(self, data, pseudo_count=0.0, sample_weight=None):
        """Estimate every CPT from complete data (structure kept):
        ``P(X=x | pa=u) = (count(x, u) + a) / (count(u) + a |X|)``.

        ``pseudo_count=0`` is maximum likelihood (seed 002's formula); ``a > 0`` adds
        ``a`` imaginary observations of every state in every row, the posterior mean
        under a Dirichlet(a, ..., a) prior (``a=1``: Laplace). A parent
        configuration never seen in the data gets a uniform row. ``sample_weight``
        weights the rows (expected counts). Sets ``counts_`` (dict of count arrays
        shaped like the CPTs) and ``n_samples_``; returns ``self``.

        Used in: Chapter 6, section "Learning the parameters".
        """
        if pseudo_count < 0:
            raise ValueError("pseudo_count must be non-negative")
        X = self.encode(data)
        w = None
        if sample_weight is not None:
            w = np.asarray(sample_weight, dtype=float)
            if w.shape != (X.shape[0],) or np.any(w < 0) or not np.all(np.isfinite(w)):
                raise ValueError("sample_weight must be n non-negative finite numbers")
        a = self._arrays()
        counts = {n: self._family_counts(X, i, a["par"][i], w) for i, n in enumerate(self.names)}
        for n in self.names:
            self.cpts[n] = self._normalise(counts[n].astype(float), pseudo_count)
        self._cache = None
        self.counts_ = counts
        self.n_samples_ = X.shape[0] if w is None else float(w.sum())
        return self

    def log_likelihood(self, data, per_row=False):
        """Natural-log likelihood of the data under the network's CPTs.

        Complete rows: the sum over variables of ``log P(x_i | parents)``, i.e. the
        log likelihood decomposes into one term per node (:meth:`node_log_likelihood`).
        Rows with missing values contribute the log of their marginal probability
        (hidden variables summed out). ``per_row=True`` returns one value per row.

        Used in: Chapter 6, section "Learning the parameters"; Chapter 7.
        """
        X = self.encode(data, allow_missing=True)
        if np.any(X == _MISSING):
            if per_row:
                return self._missing_loglik(X, per_row=True)
            return float(self._missing_loglik(X))
        ll = sum(self._node_ll_rows(X, i) for i in range(len(self.names)))
        return ll if per_row else float(ll.sum())

    def _node_ll_rows(self, X, i):
        a = self._arrays()
        par = a["par"][i]
        rows = X[:, list(par)] @ a["stride"][i] if par else np.zeros(len(X), dtype=np.int64)
        return a["log2d"][i][rows, X[:, i]]

    def node_log_likelihood(self, data):
        """``{variable: sum over rows of log P(x_i | parents)}`` for complete data;
        the values add up to :meth:`log_likelihood`."""
        X = self.encode(data)
        return {n: float(self._node_ll_rows(X, i).sum()) for i, n in enumerate(self.names)}

    def score(self, data, score="bic"):
        """Structure score of this network's graph on complete data, with ML
        parameters (the CPTs stored in the network are not used).

        ``"loglik"``: maximised log likelihood (natural log); ``"bic"``: loglik minus
        ``0.5 * ln(N) * n_parameters`` (pgmpy's ``BIC`` convention, higher is
        better); ``"mdl"``: description length in bits, ``-bic / ln 2`` (lower is
        better); ``"aic"``: loglik minus n_parameters.

        Used in: Chapter 6, section "Learning the structure".
        """
        X = self.encode(data)
        a = self._arrays()
        total = sum(family_score(X, i, a["par"][i], a["card"], score if score != "mdl" else "bic")
                    for i in range(len(self.names)))
        if score == "mdl":
            return -total / math.log(2)
        return float(total)

    # ----------------------------------------------- missing data (EM, gradient)
    def expected_counts(self, data, sample_weight=None):
        """Expected family counts ``sum_t P(X_i = x, pa_i = u | v_t)`` under the
        current CPTs, and the log likelihood of the observed values.

        Rows may have missing values (``None`` / ``NaN`` / absent column). For each
        pattern of missing variables the posterior over the missing variables is
        computed exactly, jointly (vectorised over distinct rows) when their
        configurations are few, otherwise by variable elimination per family.
        Returns ``(counts, loglik)`` with ``counts[name]`` shaped like the CPT.
        Raises ``ValueError`` if a row has probability zero under the network.

        Used in: Chapter 6, section "Hidden variables: gradient ascent"; Chapter 7
        (the E step of EM).
        """
        X = self.encode(data, allow_missing=True)
        w = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        if w.shape != (len(X),):
            raise ValueError("sample_weight must have one entry per row")
        a = self._arrays()
        card = a["card"]
        if not np.any(X == _MISSING):  # complete data: plain (weighted) counts
            counts = {n: self._family_counts(X, i, a["par"][i], w).astype(float)
                      for i, n in enumerate(self.names)}
            ll = sum(self._node_ll_rows(X, i) for i in range(len(self.names)))
            if np.any(np.isneginf(ll) & (w > 0)):
                raise ValueError("a data row has probability zero under the network")
            return counts, float(np.dot(w, np.where(w > 0, ll, 0.0)))
        counts = {n: np.zeros(self.cpt_shape(n)) for n in self.names}
        loglik = 0.0
        masks, inv = np.unique(X == _MISSING, axis=0, return_inverse=True)
        inv = inv.ravel()
        for g, mask in enumerate(masks):
            rows = X[inv == g]
            obs, miss = np.flatnonzero(~mask), np.flatnonzero(mask)
            pats, pinv = np.unique(rows[:, obs], axis=0, return_inverse=True)
            pw = np.bincount(pinv.ravel(), weights=w[inv == g], minlength=len(pats))
            if int(np.prod(card[miss])) * len(pats) <= 4_000_000:
                ll = self._estep_joint(pats, obs, miss, pw, counts)
            else:
                ll = self._estep_ve(pats, obs, miss, pw, counts)
            loglik += ll
        return counts, float(loglik)

    def _estep_tables(self, pats, obs, miss):
        """Log joint of every distinct observed pattern with every configuration of
        the missing variables: array ``(n_patterns, *cards of missing)``."""
        a = self._arrays()
        card = a["card"]
        pos = {int(u): k for k, u in enumerate(obs)}
        mset = {int(u): k for k, u in enumerate(miss)}
        P = len(pats)
        logj = np.zeros((P,) + tuple(card[miss]))
        layout = []
        for i in range(len(self.names)):
            fam = list(a["par"][i]) + [i]
            f_obs = [u for u in fam if u in pos]
            f_miss = sorted((u for u in fam if u in mset), key=lambda u: mset[u])
            perm = [fam.index(u) for u in f_obs + f_miss]
            with np.errstate(divide="ignore"):
                t = np.log(a["cpt"][i]).transpose(perm)
            t = t.reshape((int(np.prod(card[f_obs])),) + tuple(card[f_miss]))
            oi = pats[:, [pos[u] for u in f_obs]] @ self._strides(card[f_obs]) if f_obs \
                else np.zeros(P, dtype=np.int64)
            shape = (P,) + tuple(card[u] if u in f_miss else 1 for u in miss)
            logj = logj + t[oi].reshape(shape)
            layout.append((fam, f_obs, f_miss, perm, oi))
        return logj, layout

    def _estep_joint(self, pats, obs, miss, pw, counts):
        a = self._arrays()
        card = a["card"]
        logj, layout = self._estep_tables(pats, obs, miss)
        axes = tuple(range(1, logj.ndim))
        ll_p = logsumexp(logj, axis=axes) if axes else logj
        if np.any(np.isneginf(ll_p)):
            raise ValueError("a data row has probability zero under the network")
        post = np.exp(logj - (ll_p.reshape((-1,) + (1,) * len(axes)))) * pw.reshape((-1,) + (1,) * len(axes))
        mpos = {int(u): k + 1 for k, u in enumerate(miss)}
        for i, (fam, f_obs, f_miss, perm, oi) in enumerate(layout):
            other = tuple(mpos[int(u)] for u in miss if int(u) not in f_miss)
            marg = post.sum(axis=other) if other else post   # (P, *cards f_miss)
            m = int(np.prod(card[f_miss]))
            flat = (oi[:, None] * m + np.arange(m)[None, :]).ravel()
            c = np.bincount(flat, weights=marg.reshape(len(pats), m).ravel(),
                            minlength=int(np.prod(card[f_obs])) * m)
            c = c.reshape(tuple(card[f_obs]) + tuple(card[f_miss]))
            counts[self.names[i]] += c.transpose(np.argsort(perm))
        return float(pw @ ll_p)

    def _estep_ve(self, pats, obs, miss, pw, counts):
        a = self._arrays()
        mset = set(int(u) for u in miss)
        ll = 0.0
        for pat, weight in zip(pats, pw):
            ev = {int(u): int(s) for u, s in zip(obs, pat)}
            table, log_scale, _ = self._eliminate([], ev)
            s = float(table.sum())
            if not s > 0:
                raise ValueError("a data row has probability zero under the network")
            ll += weight * (math.log(s) + log_scale)
            for i, n in enumerate(self.names):
                fam = list(a["par"][i]) + [i]
                f_miss = [u for u in fam if u in mset]
                idx = tuple(ev[u] if u in ev else slice(None) for u in fam)
                if f_miss:
                    t, _, _ = self._eliminate(f_miss, ev)
                    counts[n][idx] += weight * t / t.sum()
                else:
                    counts[n][idx] += weight
        return ll

    def _missing_loglik(self, X, per_row=False):
        card = self._arrays()["card"]
        out = np.zeros(len(X))
        masks, inv = np.unique(X == _MISSING, axis=0, return_inverse=True)
        inv = inv.ravel()
        for g, mask in enumerate(masks):
            sel = np.flatnonzero(inv == g)
            obs, miss = np.flatnonzero(~mask), np.flatnonzero(mask)
            pats, pinv = np.unique(X[sel][:, obs], axis=0, return_inverse=True)
            if int(np.prod(card[miss])) * len(pats) <= 4_000_000:
                logj, _ = self._estep_tables(pats, obs, miss)
                axes = tuple(range(1, logj.ndim))
                ll_p = logsumexp(logj, axis=axes) if axes else logj
            else:
                ll_p = np.array([self.log_evidence({self.names[u]: self.states[self.names[u]][s]
                                                    for u, s in zip(obs, pat)}) for pat in pats])
            out[sel] = ll_p[pinv.ravel()]
        return out if per_row else out.sum()

    def fit_em(self, data, n_iter=50, pseudo_count=0.0, tol=1e-8):
        """A plain EM for data with missing values: E step :meth:`expected_counts`,
        M step the counting formula of :meth:`fit` on expected counts. Records
        ``log_likelihood_trace_`` (observed-data log likelihood before each M step,
        plus the final value). The full treatment is Chapter 7's ``lib.em``.

        Used in: Chapter 6, section "Hidden variables: gradient ascent" (comparison).
        """
        trace = []
        for _ in range(int(n_iter)):
            counts, ll = self.expected_counts(data)
            trace.append(ll)
            if len(trace) > 1 and abs(trace[-1] - trace[-2]) < tol * max(1.0, abs(ll)):
                break
            for n in self.names:
                self.cpts[n] = self._normalise(counts[n], pseudo_count)
            self._cache = None
        else:
            trace.append(self.expected_counts(data)[1])
        self.log_likelihood_trace_ = np.array(trace)
        return self

    def fit_gradient_ascent(self, data, eta=0.05, n_iter=100, rule="projected", floor=1e-6):
        """Gradient ascent on the CPT entries ``w_ijk = P(Y_i = y_ij | U_i = u_ik)``
        (Mitchell's rule, seed 000). The gradient of ``ln P(D | h)`` is
        ``sum_d P_h(y_ij, u_ik | d) / w_ijk`` (expected counts over ``w``). The step
        is scaled by the number of rows ``N``:

        * ``rule="mitchell"``: ``w <- w + (eta/N) * gradient``, then divide each row
          by its sum (the rule as the slides state it);
        * ``rule="projected"``: subtract each row's mean gradient first (the
          gradient projected onto ``sum_j w_ijk = 1``), clip at ``floor``, renormalise.

        Records ``log_likelihood_trace_`` (one value per iteration, plus the final
        value) and returns ``self``.

        Used in: Chapter 6, section "Hidden variables: gradient ascent".
        """
        if rule not in ("projected", "mitchell"):
            raise ValueError("rule must be 'projected' or 'mitchell'")
        X = self.encode(data, allow_missing=True)
        N = len(X)
        trace = []
        for _ in range(int(n_iter)):
            counts, ll = self.expected_counts(X)
            trace.append(ll)
            for n in self.names:
                w = self.cpts[n]
                g = counts[n] / np.maximum(w, 1e-300) / N
                if rule == "projected":
                    g = g - g.mean(axis=-1, keepdims=True)
                    w = np.maximum(w + eta * g, floor)
                else:
                    w = w + eta * g
                self.cpts[n] = w / w.sum(axis=-1, keepdims=True)
            self._cache = None
        trace.append(self.expected_counts(X)[1])
        self.log_likelihood_trace_ = np.array(trace)
        return self

    # ------------------------------------------------------------ structure search
    @classmethod
    def hill_climb(cls, data, states=None, score="bic", start=None, max_parents=None,
                   tabu_length=100, epsilon=1e-4, max_iter=10_000, pseudo_count=0.0,
                   restarts=0, perturb=3, rng=None):
        """Greedy structure search: from ``start`` (default: no edges) repeatedly
        apply the best of all single-edge additions, removals and reversals that
        keep the graph acyclic, until no move improves the score by ``epsilon``
        (recently undone moves are tabu, as in pgmpy's ``HillClimbSearch``).

        Parameters
        ----------
        data : mapping or list of rows (state labels; complete)
        states : dict, optional
            ``{variable: [states]}``; default: the sorted distinct values per column.
        score : {"bic", "mdl", "aic", "loglik"}
            Decomposable score (see :meth:`score`); ``"loglik"`` has no penalty and
            ends in a dense graph.
        restarts, perturb, rng
            After the first climb, ``restarts`` times apply ``perturb`` random
            legal moves to the best graph so far and climb again (keeping the
            result only if it scores better): a cheap way out of local optima.

        Returns a :class:`BayesNet` with ML (or ``pseudo_count``) CPTs and the
        attributes ``score_`` (final score, in the score's own units), ``trace_``
        (score after each move) and ``moves_`` (the applied moves).

        Used in: Chapter 6, section "Learning the structure".
        """
        if score not in ("bic", "mdl", "aic", "loglik"):
            raise ValueError(f"unknown score {score!r}; use 'bic', 'mdl', 'aic' or 'loglik'")
        if states is None:
            if start is not None:
                states = dict(start.states)
            else:
                if isinstance(data, (list, tuple)):
                    data = {k: [r.get(k) for r in data] for k in {k for r in data for k in r}}
                if not hasattr(data, "keys"):
                    raise TypeError("hill_climb needs data as columns of labels, or states=")
                states = {}
                for k in data.keys():
                    col = np.asarray(data[k])
                    if col.size == 0:
                        raise ValueError("data are empty")
                    states[k] = [v.item() if hasattr(v, "item") else v for v in np.unique(col)]
        net = start.copy() if start is not None else cls([(n, s) for n, s in states.items()])
        X = net.encode(data)
        card = net._arrays()["card"]
        n_vars = len(net.names)
        parents = [set(net._idx[p] for p in net.parents[n]) for n in net.names]
        internal = "bic" if score == "mdl" else score
        cache = {}

        def local(i, ps):
            key = (i, frozenset(ps))
            if key not in cache:
                cache[key] = family_score(X, i, sorted(ps), card, internal)
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
            for _ in range(int(max_iter)):
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
        rng = cls._rng(rng)
        for _ in range(int(restarts)):
            # perturb the best graph by random legal moves, climb again, keep the better
            trial = [set(p) for p in parents]
            for _ in range(int(perturb)):
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
        result = cls([(n, net.states[n], [net.names[p] for p in sorted(parents[i])])
                      for i, n in enumerate(net.names)])
        result.fit(X, pseudo_count=pseudo_count)
        conv = (lambda s: -s / math.log(2)) if score == "mdl" else float
        result.score_ = conv(current)
        result.trace_ = np.array([conv(s) for s in trace])
        result.moves_ = moves
        return result


def family_score(X, i, parents, card, score="bic"):
    """Local (per-family) structure score of variable ``i`` with ``parents`` on the
    integer data ``X``: the maximised log likelihood
    ``sum_{u,x} N(u,x) ln(N(u,x)/N(u))`` minus a penalty (``"bic"``:
    ``0.5 ln N (|X|-1) q``, ``"aic"``: ``(|X|-1) q``, ``"loglik"``: none), where
    ``q`` is the number of parent configurations. Natural logs, as in pgmpy.

    Used in: Chapter 6, section "Learning the structure".
    """
    card = np.asarray(card)
    fam = list(parents) + [i]
    cards = card[fam]
    idx = X[:, fam] @ BayesNet._strides(cards)
    counts = np.bincount(idx, minlength=int(np.prod(cards))).reshape(-1, cards[-1]).astype(float)
    row = counts.sum(axis=1, keepdims=True)
    nz = counts > 0
    ll = float(np.sum(counts[nz] * (np.log(counts[nz]) - np.log(np.broadcast_to(row, counts.shape)[nz]))))
    k = (cards[-1] - 1) * int(np.prod(cards[:-1]))
    if score == "bic":
        return ll - 0.5 * math.log(len(X)) * k
    if score == "aic":
        return ll - k
    if score == "loglik":
        return ll
    raise ValueError(f"unknown score {score!r}")


hill_climb = BayesNet.hill_climb


# ---------------------------------------------------------------------- BIF files
def read_bif(path):
    """Read a discrete network in the BIF format (``.bif`` or ``.bif.gz``), as
    published by the bnlearn repository (``data/networks/``).

    Used in: Chapter 6, section "Variable elimination" (the ALARM network) and the tests.
    """
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        text = f.read()
    text = re.sub(r"//[^\n]*", "", text)
    variables = {}
    for m in re.finditer(r"variable\s+([^\s{]+)\s*\{\s*type\s+discrete\s*\[\s*(\d+)\s*\]\s*\{([^}]*)\}", text):
        name, k, states = m.group(1), int(m.group(2)), [s.strip() for s in m.group(3).split(",")]
        if len(states) != k:
            raise ValueError(f"variable {name!r} declares {k} states but lists {len(states)}")
        variables[name] = states
    specs = {}
    for m in re.finditer(r"probability\s*\(\s*([^)|]+?)\s*(?:\|\s*([^)]*))?\)\s*\{([^}]*)\}", text):
        child = m.group(1).strip()
        parents = [p.strip() for p in m.group(2).split(",")] if m.group(2) else []
        if child not in variables:
            raise ValueError(f"probability block for undeclared variable {child!r}")
        body = m.group(3)
        shape = [len(variables[p]) for p in parents] + [len(variables[child])]
        table = np.full(shape, np.nan)
        for line in body.split(";"):
            line = line.strip()
            if not line:
                continue
            if line.startswith("table"):
                vals = [float(v) for v in line[5:].replace(",", " ").split()]
                if parents:
                    # bnlearn's convention: the child's state varies slowest
                    table = np.array(vals).reshape([shape[-1]] + shape[:-1]).transpose(
                        list(range(1, len(shape))) + [0])
                else:
                    table = np.array(vals)
            elif line.startswith("("):
                cfg, vals = line[1:].split(")", 1)
                key = tuple(variables[p].index(s.strip()) for p, s in zip(parents, cfg.split(",")))
                table[key] = [float(v) for v in vals.replace(",", " ").split()]
            elif line.startswith("default"):
                raise ValueError("BIF 'default' entries are not supported")
        if np.any(np.isnan(table)):
            raise ValueError(f"probability block of {child!r} does not cover every parent configuration")
        specs[child] = (parents, table)
    missing = [v for v in variables if v not in specs]
    if missing:
        raise ValueError(f"no probability block for {missing}")
    return BayesNet([(n, variables[n], specs[n][0], specs[n][1]) for n in variables])


# ---------------------------------------------------------------------- drawings
def layered_layout(net):
    """Positions ``{name: (x, y)}`` of a layered drawing: a variable's layer is the
    length of the longest path from a root; nodes within a layer are ordered by
    the mean position of their parents (a few barycentre sweeps)."""
    layer = {}
    for n in net.order:
        layer[n] = 1 + max((layer[p] for p in net.parents[n]), default=-1)
    layers = {}
    for n in net.names:
        layers.setdefault(layer[n], []).append(n)
    x = {}
    for k in sorted(layers):
        for j, n in enumerate(layers[k]):
            x[n] = j - (len(layers[k]) - 1) / 2
    for _ in range(4):
        for k in sorted(layers):
            if k == 0:
                continue
            key = {n: np.mean([x[p] for p in net.parents[n]] or [x[n]]) for n in layers[k]}
            layers[k].sort(key=lambda n: key[n])
            for j, n in enumerate(layers[k]):
                x[n] = j - (len(layers[k]) - 1) / 2 + 0.15 * (key[n] - (j - (len(layers[k]) - 1) / 2))
    depth = max(layers)
    return {n: (x[n], depth - layer[n]) for n in net.names}


def plot_network(net, ax=None, pos=None, node_text=None, colors=None, title=None,
                 figsize=None, fontsize=10, node_width=None):
    """Draw the graph of ``net`` (boxes and arrows) with :func:`layered_layout`.

    ``node_text``: optional ``{name: extra line}`` (e.g. a posterior);
    ``colors``: optional ``{name: facecolor}``. Returns the ``Figure``.

    Used in: Chapter 6, every drawing of a network.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    pos = pos or layered_layout(net)
    if ax is None:
        xs = [p[0] for p in pos.values()]
        ys = [p[1] for p in pos.values()]
        w = max(3.0, 1.6 * (max(xs) - min(xs) + 1.6))
        h = max(1.8, 1.1 * (max(ys) - min(ys) + 1))
        fig, ax = plt.subplots(figsize=figsize or (min(w, 12), min(h, 9)))
    else:
        fig = ax.figure
    node_text = node_text or {}
    colors = colors or {}
    longest = max(len(str(n)) for n in net.names)
    bw = node_width or min(0.9, 0.1 + 0.065 * longest * fontsize / 10)
    bh = 0.34 if not node_text else 0.5
    for n, (x, y) in pos.items():
        label = str(n) + (f"\n{node_text[n]}" if n in node_text else "")
        ax.add_artist(FancyBboxPatch((x - bw / 2, y - bh / 2), bw, bh,
                                    boxstyle="round,pad=0.02,rounding_size=0.08",
                                    fc=colors.get(n, "#e8eef7"), ec="#33415c", lw=1.2, zorder=2))
        ax.text(x, y, label, ha="center", va="center", fontsize=fontsize, zorder=3)
    for u, v in net.edges():
        (x0, y0), (x1, y1) = pos[u], pos[v]
        ax.add_artist(FancyArrowPatch(_box_point(x0, y0, x1, y1, bw, bh),
                                     _box_point(x1, y1, x0, y0, bw, bh),
                                     arrowstyle="-|>", mutation_scale=12, color="#33415c",
                                     lw=1.1, zorder=1, shrinkA=0, shrinkB=0))
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    half = max((max(xs) - min(xs)) / 2 + bw, 1.4)  # narrow graphs keep narrow boxes
    mid = (max(xs) + min(xs)) / 2
    ax.set_xlim(mid - half, mid + half)
    ax.set_ylim(min(ys) - bh, max(ys) + bh)
    ax.set_aspect("auto")
    ax.axis("off")
    if title:
        ax.set_title(title)
    return fig


def _box_point(x0, y0, x1, y1, bw, bh):
    """Where the segment from (x0, y0) to (x1, y1) leaves the box around (x0, y0)."""
    dx, dy = x1 - x0, y1 - y0
    tx = (bw / 2 + 0.03) / abs(dx) if dx else math.inf
    ty = (bh / 2 + 0.03) / abs(dy) if dy else math.inf
    t = min(tx, ty, 0.45)
    return x0 + t * dx, y0 + t * dy


def plot_evidence_explorer(net, n_samples=1000, seed=0, first_state=None, **evidence):
    """Interactive-figure callback: exact posteriors of every unobserved variable
    (variable elimination) next to a likelihood-weighting estimate from
    ``n_samples`` samples (one weighted sample serves every variable).

    ``evidence``: one keyword per variable whose value is a state label or
    ``"unobserved"``. Left: the network, observed nodes shaded, each node showing
    ``P(first state | evidence)``; right: bars of the exact posteriors and markers
    for the estimates. Returns the ``Figure``.

    Used in: Chapter 6, section "Explaining away, interactively".
    """
    import matplotlib.pyplot as plt

    ev = {k: v for k, v in evidence.items() if v not in (None, "unobserved", "?")}
    free = [n for n in net.names if n not in ev]
    first = first_state or {n: net.states[n][0] for n in net.names}
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 3.6), gridspec_kw={"width_ratios": [1.15, 1]})
    fig.subplots_adjust(left=0.01, right=0.98, bottom=0.16, top=0.92, wspace=0.32)
    try:
        exact = {n: float(net.query(n, ev)[net._state_code[n][first[n]]]) for n in free}
        codes = net._evidence(ev)
        X, logw = net._forward(int(n_samples), np.random.default_rng(seed), fixed=codes)
    except ValueError as err:
        ax1.text(0.5, 0.5, str(err), ha="center", va="center", wrap=True)
        ax1.axis("off")
        plot_network(net, ax=ax0)
        return fig
    w = np.exp(logw - logw.max())
    est = {n: float(w @ (X[:, net._idx[n]] == net._state_code[n][first[n]]) / w.sum()) for n in free}
    ess = w.sum() ** 2 / np.sum(w ** 2)
    text = {n: (f"= {ev[n]}" if n in ev else f"P={exact[n]:.3f}") for n in net.names}
    colors = {n: ("#f6c85f" if n in ev else "#e8eef7") for n in net.names}
    plot_network(net, ax=ax0, node_text=text, colors=colors, fontsize=9)
    y = np.arange(len(free))
    ax1.barh(y, [exact[n] for n in free], color="#6f9fd8", label="exact (variable elimination)")
    ax1.plot([est[n] for n in free], y, "k|", ms=18, mew=2.5,
             label=f"likelihood weighting, n={int(n_samples)} (ESS {ess:.0f})")
    ax1.set_yticks(y, [f"P({n}={first[n]})" for n in free])
    ax1.set_ylim(len(free) - 0.5, -0.5)
    ax1.set_xlim(0, 1)
    ax1.set_xlabel("posterior probability given the evidence")
    ax1.legend(loc="upper right", fontsize=8)
    return fig


def plot_sampling_convergence(results, exact, labels, title=None):
    """Running estimates of one probability against the number of samples (log
    axis), one line per sampler, with the exact value as a dashed line.

    ``results``: list of 1-D running-estimate arrays. Returns the ``Figure``.
    Used in: Chapter 6, section "Approximate inference".
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    for r, lab in zip(results, labels):
        r = np.asarray(r)
        idx = np.unique(np.geomspace(1, len(r), 600).astype(int)) - 1  # log-spaced points
        ax.plot(idx + 1, r[idx], label=lab, lw=1.3)
    ax.axhline(exact, color="k", ls="--", lw=1, label=f"exact {exact:.4f}")
    ax.set_xscale("log")
    ax.set_xlabel("number of samples")
    ax.set_ylabel("estimate")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_networks(nets, titles=None, figsize=None, fontsize=9):
    """Several networks side by side (one :func:`plot_network` panel each).

    Used in: Chapter 6, sections "Networks and factorisation" and "Counting parameters".
    """
    import matplotlib.pyplot as plt

    titles = titles or [None] * len(nets)
    fig, axes = plt.subplots(1, len(nets), figsize=figsize or (5 * len(nets), 3.6), squeeze=False)
    for ax, net, title in zip(axes[0], nets, titles):
        plot_network(net, ax=ax, title=title, fontsize=fontsize)
    fig.subplots_adjust(left=0.02, right=0.98, bottom=0.03, top=0.88, wspace=0.15)
    return fig


def plot_curves(x, curves, xlabel, ylabel, hline=None, hline_label=None, logx=False,
                logy=False, title=None, figsize=(7, 3.6), markers=False):
    """A plain line plot of ``curves = {label: y values}`` against ``x`` (or one
    ``x`` array per curve when ``x`` is a dict), with an optional dashed
    reference line. Returns the ``Figure``.

    Used in: Chapter 6 (likelihood traces, structure learning, factor sizes).
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize)
    for label, y in curves.items():
        xs = x[label] if isinstance(x, dict) else x
        ax.plot(xs, y, marker="o" if markers else None, ms=4, lw=1.5, label=label)
    if hline is not None:
        ax.axhline(hline, color="k", ls="--", lw=1, label=hline_label)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def cpt_markdown(net, name, digits=6):
    """The CPT of ``name`` as a Markdown table: one row per parent configuration,
    one column per state (for display in a chapter).

    Used in: Chapter 6, section "The earthquake network".
    """
    parents = net.parents[name]
    head = [str(p) for p in parents] + [f"{name} = {s}" for s in net.states[name]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    table = net.cpts[name].reshape(-1, net.card[name])
    for k, cfg in enumerate(product(*(net.states[p] for p in parents))):
        vals = [f"{v:.{digits}g}" for v in table[k]]
        lines.append("| " + " | ".join([str(c) for c in cfg] + vals) + " |")
    return "\n".join(lines)
