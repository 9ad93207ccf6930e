"""Bayesian networks over discrete variables: the representation.

Chapter 6 ("Bayesian networks"), sections "Networks and factorisation" and "The
earthquake network", is built on this module; Chapter 7 ("Bayesian networks with missing
values") uses its data encoding. The algorithms live in the sibling modules of
:mod:`lib.bn` (inference, sampling, learning, structure, bif, plots) and take a network
as their first argument; they read it through public accessors only: ``net.index``,
``net.evidence_codes(...)``, ``net.encode(...)``, and the read-only array view
``net.arrays`` (a :class:`NetworkArrays`), and replace CPTs with ``net.set_cpts(...)``.
:mod:`lib.bn` gives :class:`BayesNet` one method per algorithm, generated from the
function itself (same signature and docstring), so a chapter can write ``net.query(...)``.

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
  ``DataFrame``) whose entries are state labels; ``None``, ``NaN`` or ``"?"`` (unless
  ``"?"`` is a state of the variable) marks a missing value, and a variable without a
  column is missing in every row (hidden);
* a list of ``{variable: state}`` rows, or a list of rows with one value per variable
  in the order of ``net.names``;
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
import math

import numpy as np

from lib._validation import is_missing

from ._common import MARKERS, MISSING, ImpossibleEvidenceError, NetworkArrays, _frozen, strides

__all__ = ["BayesNet", "NetworkArrays", "ImpossibleEvidenceError"]

_ROW_ATOL = 1e-6  # rows of published networks are rounded to ~1e-7


def check_net(net):
    """Refuse anything but a :class:`BayesNet` as the network argument."""
    if not isinstance(net, BayesNet):
        raise TypeError(f"net must be a lib.bn.BayesNet, got {type(net).__name__}")


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

    Examples
    --------
    >>> from lib.bn import BayesNet
    >>> net = BayesNet([("Rain", ["no", "yes"], [], [0.8, 0.2]),
    ...                 ("Wet", ["no", "yes"], ["Rain"], [[0.9, 0.1], [0.2, 0.8]])])
    >>> net
    BayesNet(Rain, Wet|Rain)
    >>> net.cpt_shape("Wet")
    (2, 2)
    >>> net.query("Rain", {"Wet": "yes"}).round(3)
    array([0.333, 0.667])
    """

    def __init__(self, variables):
        specs = [self._spec(v) for v in variables]
        if not specs:
            raise ValueError("a Bayesian network needs at least one variable")
        self.names = [s[0] for s in specs]
        if len(set(self.names)) != len(self.names):
            dup = sorted({n for n in self.names if self.names.count(n) > 1})
            raise ValueError(f"duplicate variable names: {dup}")
        self.index = {n: i for i, n in enumerate(self.names)}
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
                if p not in self.index:
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
        card = np.array([self.card[n] for n in self.names])
        parents = tuple(tuple(self.index[p] for p in self.parents[n]) for n in self.names)
        self._structure = NetworkArrays(
            card=_frozen(card), parents=parents,
            children=tuple(tuple(self.index[k] for k in self.children[n]) for n in self.names),
            topo=tuple(self.index[n] for n in self.order),
            strides=tuple(_frozen(strides(card[list(p)])) for p in parents),
            cpt=(), rows=(), log_rows=(), cumulative_rows=())
        self.cpts = {}
        self.set_cpts({name: cpt for name, _, _, cpt in specs})

    # ------------------------------------------------------------------ building
    @staticmethod
    def _spec(v):
        if isinstance(v, dict):
            unknown = set(v) - {"name", "states", "parents", "cpt"}
            if unknown:
                raise ValueError(f"unknown keys in variable spec: {sorted(unknown)}")
            if "name" not in v or "states" not in v:
                raise ValueError("a variable spec needs 'name' and 'states'")
            v = (v["name"], v["states"], v.get("parents"), v.get("cpt"))
        if isinstance(v, str) or not isinstance(v, (tuple, list)) or not 2 <= len(v) <= 4:
            raise ValueError(f"variable spec must be (name, states[, parents[, cpt]]), got {v!r}")
        name, states = v[0], v[1]
        parents = v[2] if len(v) > 2 and v[2] is not None else []
        cpt = v[3] if len(v) > 3 else None
        try:
            hash(name)
        except TypeError:
            raise TypeError(f"a variable name must be hashable (a string), got {name!r}") from None
        for what, seq in (("states", states), ("parents", parents)):
            if isinstance(seq, str) or not hasattr(seq, "__iter__"):
                raise TypeError(f"{what} of {name!r} must be a list of labels, not a string "
                                f"or a single value; got {seq!r}")
        return name, list(states), list(parents), cpt

    @classmethod
    def from_edges(cls, states, edges=()):
        """A network with uniform CPTs from ``states = {name: [states]}`` and
        ``edges = [(parent, child), ...]``; fit its CPTs with :meth:`fit`.

        Used in: Chapter 6, sections "Learning the parameters from complete data" and "Learning the structure".
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
        """Validate and store the CPT of ``name`` (``None``: uniform rows); see :meth:`set_cpts`."""
        self.set_cpts({name: cpt})

    def set_cpts(self, tables):
        """Validate and store new CPTs, ``{name: table}`` (``None``: uniform rows); the
        other CPTs are kept, and :attr:`arrays` follows. Nothing is stored if any table
        is refused. The one way to replace CPTs (learning uses it after every step).

        Raises ``ValueError`` for an unknown variable, a wrong shape, negative or
        non-finite entries, or rows that do not sum to one (tolerance 1e-6).
        """
        if not hasattr(tables, "items"):
            raise TypeError(f"set_cpts needs a mapping {{variable: table}}, got {type(tables).__name__}")
        checked = {name: self._checked_cpt(name, cpt) for name, cpt in tables.items()}
        self.cpts.update(checked)
        self._arrays = None

    @property
    def arrays(self):
        """The read-only :class:`NetworkArrays` of the network (rebuilt after :meth:`set_cpts`)."""
        if self._arrays is None:
            self._arrays = self._structure.with_cpts([self.cpts[n] for n in self.names])
        return self._arrays

    def _checked_cpt(self, name, cpt):
        if name not in self.index:
            raise ValueError(f"unknown variable {name!r}")
        shape = self.cpt_shape(name)
        if cpt is None:
            table = np.full(shape, 1.0 / shape[-1])
        else:
            try:
                table = np.array(cpt, dtype=float)
            except (TypeError, ValueError):
                raise TypeError(f"CPT of {name!r} must be an array of probabilities, "
                                f"got {cpt!r}") from None
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
        return table

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

    # ------------------------------------------------------------- evidence
    def state_code(self, name, state, what="evidence"):
        """The code (index in ``net.states[name]``) of ``state``; ValueError if unknown."""
        if name not in self.index:
            raise ValueError(f"unknown variable {name!r} in {what}")
        table = self._state_code[name]
        if state in table:
            return table[state]
        if not isinstance(state, str) and str(state) in table:
            return table[str(state)]
        raise ValueError(f"unknown state {state!r} of variable {name!r} in {what}; "
                         f"states are {list(self.states[name])}")

    def evidence_codes(self, evidence):
        """``{variable index: state code}`` of an evidence dict ``{variable: state}``."""
        if evidence is None:
            return {}
        if not isinstance(evidence, dict):
            raise TypeError("evidence must be a dict {variable: state}")
        out = {}
        for n, s in evidence.items():
            code = self.state_code(n, s)  # raises for unknown variables and states
            out[self.index[n]] = code
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
            card = self.arrays.card
            if np.any(X >= card) or np.any(X < MISSING):
                j = int(np.argwhere((X >= card) | (X < MISSING))[0, 1])
                raise ValueError(f"state code out of range for variable {self.names[j]!r}")
        else:
            if isinstance(data, (list, tuple)):
                if not data:
                    raise ValueError("data are empty")
                if all(isinstance(r, dict) for r in data):
                    keys = {k for r in data for k in r}
                    data = {k: [r.get(k) for r in data] for k in keys}
                elif all(isinstance(r, (list, tuple, np.ndarray)) for r in data):
                    bad = [t for t, r in enumerate(data) if len(r) != len(self.names)]
                    if bad:
                        raise ValueError(f"row {bad[0]} of data has {len(data[bad[0]])} values; "
                                         f"expected one per variable ({len(self.names)}: {self.names})")
                    data = {n: [r[j] for r in data] for j, n in enumerate(self.names)}
                else:
                    raise TypeError("a list of data must hold {variable: state} dicts or rows "
                                    "with one value per variable (in the order of net.names)")
            if not hasattr(data, "keys"):
                raise TypeError("data must be a mapping of columns, a list of row dicts "
                                "or a 2-D integer array of state codes")
            unknown = [k for k in data.keys() if k not in self.index]
            if unknown:
                raise ValueError(f"data have columns that are not variables of the network: {unknown}")
            lengths = {len(data[k]) for k in data.keys()}
            if len(lengths) > 1:
                raise ValueError(f"data columns have different lengths {sorted(lengths)}")
            n = lengths.pop() if lengths else 0
            if n == 0:
                raise ValueError("data are empty")
            X = np.full((n, len(self.names)), MISSING, dtype=np.int64)
            for j, name in enumerate(self.names):
                if name not in data.keys():
                    continue
                X[:, j] = self._encode_column(name, data[name])
        if X.shape[0] == 0:
            raise ValueError("data are empty")
        if not allow_missing and np.any(X == MISSING):
            j = int(np.argwhere(X == MISSING)[0, 1])
            raise ValueError(f"data have missing values (variable {self.names[j]!r}); "
                             "this method needs complete data")
        return X

    def _encode_column(self, name, column):
        """Codes of one column of labels (-1 for a missing value): one vectorised
        comparison per state; only values matching no state are examined one by one."""
        arr = np.asarray(column, dtype=object) if isinstance(column, (list, tuple)) \
            else np.asarray(column)
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
            codes[t] = MISSING if is_missing(v, MARKERS) else self.state_code(name, v, "data")
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
        ev = self.evidence_codes(assignment)
        missing = [n for n in self.names if self.index[n] not in ev]
        if missing:
            raise ValueError(f"joint() needs a state for every variable; missing {missing}")
        p = 1.0
        for n in self.names:
            idx = tuple(ev[self.index[u]] for u in self.parents[n] + (n,))
            p *= float(self.cpts[n][idx])
        return p

    def joint_table(self, max_size=2 ** 22):
        """The full joint distribution as an array with one axis per variable (in
        ``net.names`` order): brute force, for small networks only."""
        a = self.arrays
        size = math.prod(int(c) for c in a.card)  # Python ints: no overflow
        if size > max_size:
            shown = size if size < 10 ** 12 else f"about 1e{len(str(size)) - 1}"
            raise ValueError(f"the joint table would have {shown} entries (> {max_size}); "
                             "use variable elimination")
        n = len(self.names)
        ops = []
        for i in range(n):
            ops += [a.cpt[i], list(a.parents[i]) + [i]]
        return np.einsum(*ops, list(range(n)))
