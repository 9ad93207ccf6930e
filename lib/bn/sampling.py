"""Approximate inference in a Bayesian network by sampling.

Chapter 6, section "Approximate inference by sampling": prior (forward) sampling,
rejection sampling, likelihood weighting with Kish's effective sample size, and Gibbs
sampling over Markov blankets; section "Explaining away, interactively" draws a
likelihood-weighting estimate next to the exact posteriors. Every estimator takes a
:class:`lib.bn.BayesNet` first and refuses evidence of probability zero with the
:class:`ImpossibleEvidenceError` of exact inference (checked exactly, by variable
elimination), instead of returning NaN or zero weights.
"""
import math
from typing import NamedTuple

import numpy as np

from lib._validation import check_rng, check_scalar

from ._common import ImpossibleEvidenceError, check_codes, strides
from .inference import eliminate, log_evidence, multiply, query_codes
from .network import check_net

__all__ = ["SamplingResult", "forward_sample", "sample", "rejection_sampling", "likelihood_weighting",
           "gibbs_sampling"]

class SamplingResult(NamedTuple):
    """Result of a Monte Carlo estimate. ``p``: estimated distribution of the query
    variable; ``n_effective``: accepted samples (rejection sampling), Kish effective
    sample size ``(sum w)^2 / sum w^2`` (likelihood weighting) or number of sweeps
    (Gibbs); ``running``: the estimate after each sample, shape ``(n, n_states)``.

    Examples
    --------
    >>> import numpy as np
    >>> from lib.bn import likelihood_weighting
    >>> from lib.datasets import load_network
    >>> result = likelihood_weighting(load_network("asia"), "lung", {"dysp": "yes"}, 20000, rng=np.random.default_rng(0))
    >>> result.p.round(2), result.running.shape
    (array([0.1, 0.9]), (20000, 2))
    """

    p: np.ndarray
    n_effective: float
    running: np.ndarray


def forward_sample(net, n, rng=None, fixed=None):
    """Forward (prior) sampling, in integer codes: each variable after its parents, from
    its CPT row; variables in ``fixed`` are clamped instead and the log of their CPT
    entries summed into each sample's log weight (likelihood weighting).

    The sampler under :func:`sample`, :func:`rejection_sampling`,
    :func:`likelihood_weighting` and the start of :func:`gibbs_sampling`. Used in:
    Chapter 6, sections "Approximate inference by sampling" and "Explaining away,
    interactively".

    Parameters
    ----------
    net : BayesNet
    n : int
        Number of samples.
    rng : None, int or numpy.random.Generator
    fixed : dict, optional
        ``{variable index: state code}``, as :meth:`BayesNet.evidence_codes` gives.

    Returns
    -------
    X : ndarray of int, shape (n, len(net.names))
        State codes, columns in ``net.names`` order (:meth:`BayesNet.decode` gives labels).
    log_weights : ndarray, shape (n,)
        Zero without ``fixed``.

    Examples
    --------
    >>> import numpy as np
    >>> from lib.datasets import load_network
    >>> asia = load_network("asia")
    >>> X, log_w = forward_sample(asia, 4, rng=0, fixed=asia.evidence_codes({"smoke": "yes"}))
    >>> X[:, asia.index["smoke"]], np.exp(log_w)  # clamped to "yes", weighted by P(smoke = yes)
    (array([0, 0, 0, 0]), array([0.5, 0.5, 0.5, 0.5]))
    """
    check_net(net)
    n = check_scalar(n, "n", kind="integer", low=1)
    rng = check_rng(rng)
    a = net.arrays
    _, fixed = check_codes(a.card, [], {} if fixed is None else fixed, names=("", "fixed"))
    X = np.empty((n, len(net.names)), dtype=np.int64)
    logw = np.zeros(n)
    for i in a.topo:
        par = a.parents[i]
        rows = X[:, list(par)] @ a.strides[i] if par else np.zeros(n, dtype=np.int64)
        if i in fixed:
            X[:, i] = fixed[i]
            logw += a.log_rows[i][rows, fixed[i]]
        else:
            cum = a.cumulative_rows[i][rows]
            u = rng.random(n)[:, None]
            X[:, i] = np.minimum((u >= cum).sum(axis=1), a.card[i] - 1)
    return X, logw


def sample(net, n, rng=None, codes=False):
    """``n`` independent samples from the joint distribution (prior / forward
    sampling: each variable after its parents, from its CPT row).

    Returns a dict of columns of state labels, or (``codes=True``) the integer
    array of :meth:`BayesNet.encode`. Used in: Chapter 6, section "Approximate inference by sampling".

    Examples
    --------
    >>> import numpy as np
    >>> from lib.datasets import load_network
    >>> data = sample(load_network("asia"), 5, rng=np.random.default_rng(0))
    >>> data["smoke"].tolist()
    ['no', 'no', 'no', 'no', 'no']
    """
    check_net(net)
    n = check_scalar(n, "n", kind="integer", low=1)
    X, _ = forward_sample(net, n, rng)
    return X if codes else net.decode(X)


def _sampling_args(net, variable, evidence, n):
    check_net(net)
    if isinstance(variable, (list, tuple)):
        raise ValueError(f"sampling estimates take one query variable, got {variable!r}")
    q, ev = query_codes(net, variable, evidence)
    n = check_scalar(n, "n", kind="integer", low=1)
    if log_evidence(net, evidence) == -math.inf:  # the same refusal as exact inference
        raise ImpossibleEvidenceError(evidence)
    return q[0], ev, n


def rejection_sampling(net, variable, evidence, n, rng=None):
    """Estimate ``P(variable | evidence)`` from ``n`` prior samples, keeping those
    that agree with the evidence. ``n_effective`` = number kept (about
    ``n * P(evidence)``). Returns a :class:`SamplingResult`; if no sample agreed
    with the (possible but unlikely) evidence, ``p`` is NaN and ``n_effective`` 0.

    Used in: Chapter 6, section "Approximate inference by sampling".

    Examples
    --------
    >>> import numpy as np
    >>> from lib.datasets import load_network
    >>> result = rejection_sampling(load_network("asia"), "lung", {"dysp": "yes"}, 20000, rng=np.random.default_rng(0))
    >>> result.p.round(2), result.n_effective
    (array([0.1, 0.9]), 8775)
    """
    q, ev, n = _sampling_args(net, variable, evidence, n)
    X, _ = forward_sample(net, n, rng)
    keep = np.ones(n, dtype=bool)
    for i, s in ev.items():
        keep &= X[:, i] == s
    onehot = (X[:, q][:, None] == np.arange(net.card[variable])) & keep[:, None]
    counts = np.cumsum(onehot, axis=0)
    kept = np.cumsum(keep)
    with np.errstate(invalid="ignore", divide="ignore"):
        running = counts / kept[:, None]
    return SamplingResult(running[-1], int(kept[-1]), running)


def likelihood_weighting(net, variable, evidence, n, rng=None):
    """Estimate ``P(variable | evidence)`` by likelihood weighting: evidence
    variables are clamped, the others sampled from their CPTs, and each sample
    weighted by the product of ``P(e_i | parents)``. ``n_effective`` is Kish's
    ``(sum w)^2 / sum w^2``.

    Used in: Chapter 6, section "Approximate inference by sampling".

    Examples
    --------
    >>> import numpy as np
    >>> from lib.datasets import load_network
    >>> result = likelihood_weighting(load_network("asia"), "lung", {"dysp": "yes"}, 20000, rng=np.random.default_rng(0))
    >>> result.p.round(2)
    array([0.1, 0.9])
    """
    q, ev, n = _sampling_args(net, variable, evidence, n)
    X, logw = forward_sample(net, n, rng, fixed=ev)
    if np.all(np.isneginf(logw)):
        raise ValueError(f"none of the {n} samples can produce the evidence {evidence} "
                         "(it is possible, but very unlikely); use more samples")
    w = np.exp(logw - logw.max())
    onehot = (X[:, q][:, None] == np.arange(net.card[variable])) * w[:, None]
    cw = np.cumsum(w)
    with np.errstate(invalid="ignore", divide="ignore"):
        running = np.cumsum(onehot, axis=0) / cw[:, None]
    ess = w.sum() ** 2 / np.sum(w ** 2)
    return SamplingResult(running[-1], float(ess), running)


def gibbs_sampling(net, variable, evidence, n, rng=None, burn_in=100):
    """Estimate ``P(variable | evidence)`` with a Gibbs sampler: starting from a
    likelihood-weighting sample, each sweep resamples every non-evidence
    variable from its distribution given its Markov blanket (parents, children,
    children's other parents). ``n`` sweeps are counted after ``burn_in``.

    Used in: Chapter 6, section "Approximate inference by sampling".

    Examples
    --------
    >>> import numpy as np
    >>> from lib.bn import BayesNet, query
    >>> net = BayesNet([("Rain", ["no", "yes"], [], [0.8, 0.2]),
    ...                 ("Sprinkler", ["off", "on"], [], [0.6, 0.4]),
    ...                 ("Wet", ["no", "yes"], ["Rain", "Sprinkler"],
    ...                  [[[1.0, 0.0], [0.1, 0.9]], [[0.2, 0.8], [0.01, 0.99]]])])
    >>> result = gibbs_sampling(net, "Rain", {"Wet": "yes"}, 20000, rng=np.random.default_rng(0))
    >>> result.p.round(2), query(net, "Rain", {"Wet": "yes"}).round(2)
    (array([0.62, 0.38]), array([0.62, 0.38]))
    """
    q, ev, n = _sampling_args(net, variable, evidence, n)
    burn_in = check_scalar(burn_in, "burn_in", kind="integer", low=0)
    rng = check_rng(rng)
    a = net.arrays
    # a start state of positive probability: the best of 64 weighted samples or, for
    # rare evidence, one draw from the exact posterior (one variable at a time)
    X, logw = forward_sample(net, 64, rng, fixed=ev)
    if np.all(np.isneginf(logw)):
        state = dict(ev)
        for i in a.topo:
            if i not in state:
                table = eliminate(net, [i], state)[0]
                state[i] = int(rng.choice(len(table), p=table / table.sum()))
        x = [state[i] for i in range(len(net.names))]
    else:
        x = [int(v) for v in X[int(np.argmax(logw))]]
    free = [i for i in a.topo if i not in ev]
    plan = []
    for i in free:
        table, blanket = _blanket_table(net, i)
        steps = [int(v) for v in strides(a.card[blanket])]
        plan.append((i, list(zip(blanket, steps)), table))
    total = n + burn_in
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
    trace = trace[burn_in:]
    onehot = trace[:, None] == np.arange(a.card[q])
    running = np.cumsum(onehot, axis=0) / np.arange(1, n + 1)[:, None]
    return SamplingResult(running[-1], n, running)


def _blanket_table(net, i, max_size=1_000_000):
    """Cumulative ``P(x_i | Markov blanket)`` for every blanket configuration:
    the product of the CPT of ``i`` and of its children's CPTs, normalised over
    ``x_i``. Returns (list of cumulative rows, blanket variable indices)."""
    a = net.arrays
    fams = [i] + list(a.children[i])
    blanket = sorted({u for c in fams for u in a.parents[c] + (c,)} - {i})
    size = math.prod(int(c) for c in a.card[blanket + [i]])  # no overflow
    if size > max_size:
        raise ValueError(f"the Markov blanket of {net.names[i]!r} is too large for Gibbs sampling")
    table = multiply([(a.parents[c] + (c,), a.cpt[c]) for c in fams], blanket + [i])
    table = table.reshape(-1, a.card[i])
    tot = table.sum(axis=1, keepdims=True)
    table = np.where(tot > 0, table / np.where(tot > 0, tot, 1), 1.0 / a.card[i])
    return np.cumsum(table, axis=1).tolist(), blanket
