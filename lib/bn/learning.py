"""Parameter learning in a Bayesian network: ML/MAP counting, expected counts, EM and
gradient ascent.

Chapter 6, sections "Learning the parameters from complete data" (:func:`fit`,
:func:`log_likelihood`) and "Hidden variables: gradient ascent on the CPTs"
(:func:`expected_counts`, :func:`fit_gradient_ascent`, :func:`fit_em`); Chapter 7,
section "Bayesian networks with missing values", is built on :func:`fit_em`, the one
EM for networks of the package. Every function takes a :class:`lib.bn.BayesNet` first;
``net.fit(...)``, ``net.fit_em(...)``, ... call them.
"""
import math

import numpy as np
from scipy.special import logsumexp

from lib._validation import check_sample_weight, check_scalar
from lib.em.loop import run_em

from ._common import MISSING, strides, unique_rows
from .inference import eliminate, log_evidence
from .network import check_net

__all__ = ["fit", "log_likelihood", "node_log_likelihood", "expected_counts", "fit_em",
           "fit_gradient_ascent"]


def _family_counts(net, X, i, parents, weights=None):
    card = net.arrays.card
    fam = list(parents) + [i]
    cards = card[fam]
    idx = X[:, fam] @ strides(cards)
    return np.bincount(idx, weights=weights, minlength=int(np.prod(cards))).reshape(cards)


def _normalise(counts, pseudo_count):
    c = counts + pseudo_count
    tot = c.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, c / np.where(tot > 0, tot, 1), 1.0 / c.shape[-1])


def fit(net, data, pseudo_count=0.0, sample_weight=None):
    """Estimate every CPT from complete data (structure kept):
    ``P(X=x | pa=u) = (count(x, u) + a) / (count(u) + a |X|)``.

    ``pseudo_count=0`` is maximum likelihood (relative frequencies); ``a > 0`` adds
    ``a`` imaginary observations of every state in every row, the posterior mean
    under a Dirichlet(a, ..., a) prior (``a=1``: Laplace). A parent
    configuration never seen in the data gets a uniform row. ``sample_weight``
    weights the rows (expected counts). Sets ``counts_`` (dict of count arrays
    shaped like the CPTs) and ``n_samples_``; returns ``net``.

    Used in: Chapter 6, section "Learning the parameters from complete data".
    """
    check_net(net)
    pseudo_count = check_scalar(pseudo_count, "pseudo_count", low=0)
    X = net.encode(data)
    w = None if sample_weight is None else check_sample_weight(sample_weight, len(X))
    a = net.arrays
    counts = {n: _family_counts(net, X, i, a.parents[i], w) for i, n in enumerate(net.names)}
    net.set_cpts({n: _normalise(counts[n].astype(float), pseudo_count) for n in net.names})
    net.counts_ = counts
    net.n_samples_ = X.shape[0] if w is None else float(w.sum())
    return net


def log_likelihood(net, data, per_row=False):
    """Natural-log likelihood of the data under the network's CPTs.

    Complete rows: the sum over variables of ``log P(x_i | parents)``, i.e. the
    log likelihood decomposes into one term per node (:meth:`node_log_likelihood`).
    Rows with missing values contribute the log of their marginal probability
    (hidden variables summed out). ``per_row=True`` returns one value per row.

    Used in: Chapter 6, section "Learning the parameters from complete data"; Chapter 7.
    """
    check_net(net)
    X = net.encode(data, allow_missing=True)
    if np.any(X == MISSING):
        if per_row:
            return _missing_loglik(net, X, per_row=True)
        return float(_missing_loglik(net, X))
    ll = sum(_node_ll_rows(net, X, i) for i in range(len(net.names)))
    return ll if per_row else float(ll.sum())


def _node_ll_rows(net, X, i):
    a = net.arrays
    par = a.parents[i]
    rows = X[:, list(par)] @ a.strides[i] if par else np.zeros(len(X), dtype=np.int64)
    return a.log_rows[i][rows, X[:, i]]


def node_log_likelihood(net, data):
    """``{variable: sum over rows of log P(x_i | parents)}`` for complete data;
    the values add up to :meth:`log_likelihood`."""
    X = net.encode(data)
    return {n: float(_node_ll_rows(net, X, i).sum()) for i, n in enumerate(net.names)}


def expected_counts(net, data, sample_weight=None):
    """Expected family counts ``sum_t P(X_i = x, pa_i = u | v_t)`` under the
    current CPTs, and the log likelihood of the observed values.

    Rows may have missing values (``None`` / ``NaN`` / ``"?"`` / absent column). For each
    pattern of missing variables the posterior over the missing variables is
    computed exactly, jointly (vectorised over distinct rows) when their
    configurations are few, otherwise by variable elimination per family.
    Returns ``(counts, loglik)`` with ``counts[name]`` shaped like the CPT.
    Raises ``ValueError`` if a row has probability zero under the network.

    Used in: Chapter 6, section "Hidden variables: gradient ascent on the CPTs"; Chapter 7
    (the E step of EM).

    Examples
    --------
    >>> import numpy as np
    >>> from lib.bn import BayesNet
    >>> net = BayesNet([("Rain", ["no", "yes"], [], [0.5, 0.5]),
    ...                 ("Wet", ["no", "yes"], ["Rain"], [[0.9, 0.1], [0.2, 0.8]])])
    >>> counts, loglik = expected_counts(net, {"Rain": [None, "yes"], "Wet": ["yes", "yes"]})
    >>> counts["Rain"].round(3), round(loglik, 3)
    (array([0.111, 1.889]), -1.715)
    """
    check_net(net)
    X = net.encode(data, allow_missing=True)
    w = check_sample_weight(sample_weight, len(X))
    a = net.arrays
    if not np.any(X == MISSING):  # complete data: plain (weighted) counts
        counts = {n: _family_counts(net, X, i, a.parents[i], w).astype(float)
                  for i, n in enumerate(net.names)}
        ll = sum(_node_ll_rows(net, X, i) for i in range(len(net.names)))
        if np.any(np.isneginf(ll) & (w > 0)):
            raise ValueError("a data row has probability zero under the network")
        return counts, float(np.dot(w, np.where(w > 0, ll, 0.0)))
    return _pattern_counts(net, X, _missing_patterns(X, w))


def _missing_patterns(X, w=None):
    """The encoded rows ``X`` grouped by which variables they miss: per group the
    observed and missing variables, the distinct observed rows and their total weights
    (``w``, default 1 per row); None for complete data. The data's part of
    :func:`expected_counts`, the same in every E step of a fit."""
    if not np.any(X == MISSING):
        return None
    w = np.ones(len(X)) if w is None else w
    groups = []
    masks, inv = unique_rows(X == MISSING, return_inverse=True)
    for g, mask in enumerate(masks):
        obs, miss = np.flatnonzero(~mask), np.flatnonzero(mask)
        pats, pinv = unique_rows(X[inv == g][:, obs], return_inverse=True)
        groups.append((obs, miss, pats, np.bincount(pinv, weights=w[inv == g], minlength=len(pats))))
    return groups


def _pattern_counts(net, X, groups):
    """:func:`expected_counts` of the rows ``X`` grouped by :func:`_missing_patterns`."""
    if groups is None:
        return expected_counts(net, X)
    card = net.arrays.card
    counts = {n: np.zeros(net.cpt_shape(n)) for n in net.names}
    loglik = 0.0
    for obs, miss, pats, pw in groups:
        if math.prod(int(c) for c in card[miss]) * len(pats) <= 4_000_000:
            ll = _estep_joint(net, pats, obs, miss, pw, counts)
        else:
            ll = _estep_ve(net, pats, obs, miss, pw, counts)
        loglik += ll
    return counts, float(loglik)


def estep_tables(net, pats, obs, miss):
    """Log joint of every distinct observed pattern with every configuration of
    the missing variables: array ``(n_patterns, *cards of missing)``. The E step of
    :func:`fit_em` and of structural EM (:mod:`lib.bn.structural_em`, Chapter 7)."""
    a = net.arrays
    card = a.card
    pos = {int(u): k for k, u in enumerate(obs)}
    mset = {int(u): k for k, u in enumerate(miss)}
    P = len(pats)
    logj = np.zeros((P,) + tuple(card[miss]))
    layout = []
    for i in range(len(net.names)):
        fam = list(a.parents[i]) + [i]
        f_obs = [u for u in fam if u in pos]
        f_miss = sorted((u for u in fam if u in mset), key=lambda u: mset[u])
        perm = [fam.index(u) for u in f_obs + f_miss]
        with np.errstate(divide="ignore"):
            t = np.log(a.cpt[i]).transpose(perm)
        t = t.reshape((int(np.prod(card[f_obs])),) + tuple(card[f_miss]))
        oi = pats[:, [pos[u] for u in f_obs]] @ strides(card[f_obs]) if f_obs \
            else np.zeros(P, dtype=np.int64)
        shape = (P,) + tuple(card[u] if u in f_miss else 1 for u in miss)
        logj = logj + t[oi].reshape(shape)
        layout.append((fam, f_obs, f_miss, perm, oi))
    return logj, layout


def _estep_joint(net, pats, obs, miss, pw, counts):
    a = net.arrays
    card = a.card
    logj, layout = estep_tables(net, pats, obs, miss)
    axes = tuple(range(1, logj.ndim))
    ll_p = logsumexp(logj, axis=axes) if axes else logj
    if np.any(np.isneginf(ll_p)):
        raise ValueError("a data row has probability zero under the network")
    post = np.exp(logj - (ll_p.reshape((-1,) + (1,) * len(axes)))) * pw.reshape((-1,) + (1,) * len(axes))
    mpos = {int(u): k + 1 for k, u in enumerate(miss)}
    for i, (_fam, f_obs, f_miss, perm, oi) in enumerate(layout):
        other = tuple(mpos[int(u)] for u in miss if int(u) not in f_miss)
        marg = post.sum(axis=other) if other else post   # (P, *cards f_miss)
        m = int(np.prod(card[f_miss]))
        flat = (oi[:, None] * m + np.arange(m)[None, :]).ravel()
        c = np.bincount(flat, weights=marg.reshape(len(pats), m).ravel(),
                        minlength=int(np.prod(card[f_obs])) * m)
        c = c.reshape(tuple(card[f_obs]) + tuple(card[f_miss]))
        counts[net.names[i]] += c.transpose(np.argsort(perm))
    return float(pw @ ll_p)


def _estep_ve(net, pats, obs, miss, pw, counts):
    a = net.arrays
    mset = set(int(u) for u in miss)
    ll = 0.0
    for pat, weight in zip(pats, pw):
        ev = {int(u): int(s) for u, s in zip(obs, pat)}
        table, log_scale, _ = eliminate(net, [], ev)
        s = float(table.sum())
        if not s > 0:
            raise ValueError("a data row has probability zero under the network")
        ll += weight * (math.log(s) + log_scale)
        for i, n in enumerate(net.names):
            fam = list(a.parents[i]) + [i]
            f_miss = [u for u in fam if u in mset]
            idx = tuple(ev[u] if u in ev else slice(None) for u in fam)
            if f_miss:
                t, _, _ = eliminate(net, f_miss, ev)
                counts[n][idx] += weight * t / t.sum()
            else:
                counts[n][idx] += weight
    return ll


def _missing_loglik(net, X, per_row=False):
    card = net.arrays.card
    out = np.zeros(len(X))
    masks, inv = unique_rows(X == MISSING, return_inverse=True)
    for g, mask in enumerate(masks):
        sel = np.flatnonzero(inv == g)
        obs, miss = np.flatnonzero(~mask), np.flatnonzero(mask)
        pats, pinv = unique_rows(X[sel][:, obs], return_inverse=True)
        if math.prod(int(c) for c in card[miss]) * len(pats) <= 4_000_000:
            logj, _ = estep_tables(net, pats, obs, miss)
            axes = tuple(range(1, logj.ndim))
            ll_p = logsumexp(logj, axis=axes) if axes else logj
        else:
            ll_p = np.array([log_evidence(net, {net.names[u]: net.states[net.names[u]][s]
                                                for u, s in zip(obs, pat)}) for pat in pats])
        out[sel] = ll_p[pinv.ravel()]
    return out if per_row else out.sum()


def fit_em(net, data, n_iter=50, pseudo_count=0.0, tol=1e-8):
    """EM for the CPTs of ``net`` from data with missing values, in place; the
    current CPTs are the starting point (copy the network to keep them).

    E step: :func:`expected_counts`, ``N(X_i = x, pa_i = u) = sum_t P(x, u | v_t)``
    by exact inference. M step: the counting formula of :func:`fit` on the expected
    counts, ``P(x | u) = (N(x, u) + a) / (N(u) + a |X|)`` with ``a = pseudo_count``
    (``a > 0``: MAP-EM under a Dirichlet prior); a parent configuration without
    expected count keeps its row. The iterations run in the course's one EM loop,
    :func:`lib.em.run_em`, with its stopping rule: at most ``n_iter`` iterations; once
    an iteration gains less than ``tol`` in log likelihood per row, one more M step is
    made and EM stops (``tol=0``: exactly ``n_iter`` iterations).

    Sets ``log_likelihoods_`` (entry ``t``: log likelihood of the observed values
    after ``t`` iterations; the last entry is that of the returned CPTs; it never
    decreases when ``pseudo_count=0``), ``expected_counts_`` (of the last E step),
    ``n_iter_`` and ``converged_``; returns ``net``. Raises ``ValueError`` if a row has
    probability zero under the current CPTs.

    Used in: Chapter 6, section "Hidden variables: gradient ascent on the CPTs"
    (comparison); Chapter 7, section "Bayesian networks with missing values".

    Examples
    --------
    >>> import numpy as np
    >>> from lib.bn import BayesNet, sample
    >>> from lib.datasets import load_network
    >>> asia = load_network("asia")
    >>> data = sample(asia, 2000, rng=np.random.default_rng(0))
    >>> data = {k: v.astype(object) for k, v in data.items()}
    >>> data["lung"][::2] = None  # half the lung column is missing
    >>> net = BayesNet([(v, asia.states[v], asia.parents[v]) for v in asia.names])
    >>> fit_em(net, data) is net
    True
    >>> net.cpts["lung"].round(2)
    array([[0.11, 0.89],
           [0.01, 0.99]])
    """
    check_net(net)
    n_iter = check_scalar(n_iter, "n_iter", kind="integer", low=0)
    pseudo_count = check_scalar(pseudo_count, "pseudo_count", low=0)
    tol = check_scalar(tol, "tol", low=0)
    X = net.encode(data, allow_missing=True)
    groups = _missing_patterns(X)         # the rows grouped once: only the CPTs change

    def e_step(cpts):                     # the network holds ``cpts`` (set by m_step)
        counts, ll = _pattern_counts(net, X, groups)    # = expected_counts(net, X)
        return ll, counts

    def m_step(cpts, counts):
        new = {}
        for name in net.names:
            c = counts[name] + pseudo_count
            total = c.sum(axis=-1, keepdims=True)
            new[name] = np.where(total > 0, c / np.where(total > 0, total, 1.0), cpts[name])
        net.set_cpts(new)
        return dict(net.cpts)

    run = run_em(e_step, m_step, dict(net.cpts), len(X), n_iter, tol, monotone=pseudo_count == 0)
    net.log_likelihoods_, net.n_iter_, net.converged_ = run.log_likelihoods, run.n_iter, run.converged
    net.expected_counts_ = run.stats
    return net


def fit_gradient_ascent(net, data, eta=0.05, n_iter=100, rule="projected", floor=1e-6):
    """Gradient ascent on the CPT entries ``w_ijk = P(Y_i = y_ij | U_i = u_ik)``
    (Mitchell 1997, section 6.11.5). The gradient of ``ln P(D | h)`` is
    ``sum_d P_h(y_ij, u_ik | d) / w_ijk`` (expected counts over ``w``). The step
    is scaled by the number of rows ``N``:

    * ``rule="mitchell"``: ``w <- w + (eta/N) * gradient``, then divide each row
      by its sum (the rule as the slides state it);
    * ``rule="projected"``: subtract each row's mean gradient first (the
      gradient projected onto ``sum_j w_ijk = 1``), clip at ``floor``, renormalise.

    Records ``log_likelihoods_`` (one value per iteration, plus the final
    value, as :func:`fit_em`) and returns ``net``.

    Used in: Chapter 6, section "Hidden variables: gradient ascent on the CPTs".

    Examples
    --------
    >>> import numpy as np
    >>> from lib.bn import BayesNet
    >>> net = BayesNet([("Rain", ["no", "yes"]), ("Wet", ["no", "yes"], ["Rain"])])
    >>> data = {"Rain": ["yes"] * 3 + ["no"] * 7, "Wet": ["yes"] * 3 + ["no"] * 6 + ["yes"]}
    >>> fit_gradient_ascent(net, data, eta=0.1, n_iter=500) is net
    True
    >>> net.cpts["Rain"].round(2)
    array([0.7, 0.3])
    """
    check_net(net)
    if rule not in ("projected", "mitchell"):
        raise ValueError(f"rule must be 'projected' or 'mitchell', got {rule!r}")
    eta = check_scalar(eta, "eta", low=0)
    n_iter = check_scalar(n_iter, "n_iter", kind="integer", low=0)
    floor = check_scalar(floor, "floor", low=0)
    if floor * max(net.card.values()) >= 1:
        raise ValueError(f"floor must be below 1 / (largest number of states), got {floor!r}")
    X = net.encode(data, allow_missing=True)
    N = len(X)
    trace = []
    for _ in range(n_iter):
        counts, ll = expected_counts(net, X)
        trace.append(ll)
        new = {}
        for n in net.names:
            w = net.cpts[n]
            g = counts[n] / np.maximum(w, 1e-300) / N
            if rule == "projected":
                g = g - g.mean(axis=-1, keepdims=True)
                w = np.maximum(w + eta * g, floor)
            else:
                w = w + eta * g
            new[n] = w / w.sum(axis=-1, keepdims=True)
        net.set_cpts(new)
    trace.append(expected_counts(net, X)[1])
    net.log_likelihoods_ = np.array(trace)
    return net

# ------------------------------------------------------------ structure search
