"""Exact block products for the forward and backward passes (Chapter 8, "Making it
fast"): the fallback of :mod:`lib.hmm.fast` for chains that do not forget their start
within a block (a state that never changes, chains that switch once in a million steps).

The sequence is processed in about ``sqrt(T)`` blocks of about ``sqrt(T)`` steps. First,
for every block at once, the product of that block's one-step matrices is built (one
batched numpy operation per step *inside* a block); then a short loop over blocks
carries the message from block to block; finally, knowing the message at the start of
every block, all blocks are filled in at once. This costs ``T N^3`` operations instead
of ``T N^2``, but it never depends on the chain forgetting anything.

Every function takes a :class:`lib.hmm.HMM` and an already checked observation sequence.
"""
import numpy as np

_TINY = np.finfo(float).tiny


def _blocks(n_steps, shorter=1):
    """Split ``n_steps`` transitions into ``B`` blocks of ``L`` steps; the last holds ``r``.

    ``L`` is about ``sqrt(n_steps) / shorter``: the blocks' sequential work is balanced
    against the work done once per block (fewer, longer blocks for the forward pass,
    whose loop over blocks is in Python; more, shorter ones for Viterbi, whose isn't).
    """
    L = max(1, int(np.ceil(np.sqrt(n_steps) / shorter)))
    B = -(-n_steps // L)
    return B, L, n_steps - (B - 1) * L


def _rescale_steps(Eb):
    """Steps of the block products after which rows must be rescaled.

    One step multiplies a row's total by at least ``min_j E_t[j]`` (the rows of the
    transition matrix sum to 1), so rescaling once that bound has fallen below
    ``exp(-300)`` keeps every row far from underflow while skipping most rescalings.
    """
    with np.errstate(divide="ignore"):
        shrink = np.log(Eb.min(axis=(0, 2))).tolist()
    due = np.zeros(len(shrink), dtype=bool)
    bound = 0.0
    for k, s in enumerate(shrink):
        bound += s
        if bound < -300:
            due[k], bound = True, 0.0
    return due


def _ending(last, L):
    """``{k: blocks whose last step is k}`` for the blocks that end before step ``L - 1``."""
    return {int(k): np.flatnonzero(last == k) for k in np.unique(last) if k < L - 1}


def _fold_scales(P, log_scale, top):
    """``exp(log_scale - top)`` folded into the rows of ``P``; ``safe[b]`` is False where
    a row's factor is so small that folding might lose it (then use logarithms)."""
    with np.errstate(invalid="ignore"):
        rel = log_scale - top[:, None]
    return np.exp(rel)[:, :, None] * P, (rel.min(axis=1) > -600).tolist()


def _unblock(blocked, first, T):
    """Messages stored as ``blocked[k, :, b]`` back in time order, with the message at
    time 0 (``first``) put in front: shape ``(T, N)``."""
    L, N, B = blocked.shape
    out = np.empty((B * L + 1, N))
    out[0] = first
    out[1:].reshape(B, L, N)[...] = blocked.transpose(2, 0, 1)
    return out[:T]


def _layout(model, seqs):
    """Blocks of several sequences (each of length >= 2) side by side.

    Returns ``Eb`` (shape ``(N, L, B)``, ``Eb[:, k, b]`` the likelihoods at step
    ``k`` of block ``b``), ``last`` (the last step of each block) and, for each
    sequence, the range ``(b0, b1)`` of its blocks.
    """
    steps = [len(s) - 1 for s in seqs]
    L = max(1, min(int(np.ceil(np.sqrt(sum(steps)))), max(steps)))
    counts = [-(-n // L) for n in steps]
    index = np.zeros((sum(counts), L), dtype=np.intp)   # index[b, k]: the symbol
    last = np.full(sum(counts), L - 1)
    ranges, b0 = [], 0
    for obs, n, c in zip(seqs, steps, counts):
        index[b0:b0 + c].reshape(-1)[:n] = obs[1:]
        last[b0 + c - 1] = n - (c - 1) * L - 1
        ranges.append((b0, b0 + c))
        b0 += c
    return np.take(model.emission, index.T, axis=1), last, ranges


def _block_products(model, Eb, last):
    """Products of the one-step matrices ``A diag(E_t)`` over each block.

    Returns ``(P, log_scale)``, shapes ``(B, N, N)`` and ``(B, N)``: the product for
    block ``b`` is ``diag(exp(log_scale[b])) @ P[b]``; rows of ``P[b]`` sum to 1.
    """
    N, L, B = Eb.shape
    A_T = np.ascontiguousarray(model.transition.T)
    P = np.repeat(np.eye(N)[:, :, None], B, axis=2)    # P[i, j, b], identity at first
    Q = np.empty_like(P)
    log_scale = np.zeros((N, B))
    short = _ending(last, L)                            # blocks ending before step L-1
    due = _rescale_steps(Eb)
    due[list(short) + [L - 1]] = True
    kept = []
    for k in range(L):
        np.matmul(A_T, P, out=Q)                        # Q[i, j] = sum_m P[i, m] A[m, j]
        Q *= Eb[None, :, k, :]
        if due[k]:                                      # rescale each row to sum 1
            s = np.maximum(Q.sum(axis=1), _TINY)        # (a dead row stays 0)
            Q /= s[:, None, :]
            log_scale += np.log(s)
        if k in short:                                  # some blocks end here
            cols = short[k]
            kept.append((cols, Q[:, :, cols].copy(), log_scale[:, cols].copy()))
        P, Q = Q, P
    for cols, P_cols, scale_cols in kept:
        P[:, :, cols], log_scale[:, cols] = P_cols, scale_cols
    return P.transpose(2, 0, 1).copy(), log_scale.T.copy()


def _forward_boundaries(model, firsts, P, log_scale, ranges):
    """Filtered message just before every block, and each sequence's log-likelihood."""
    B = len(P)
    top = log_scale.max(axis=1)
    F, safe = _fold_scales(P, log_scale, top)
    at_start = np.full((B, model.n_states), 1.0 / model.n_states)
    totals = np.ones(B)
    log_likelihoods = []
    for first, (b0, b1) in zip(firsts, ranges):
        total = first.sum()
        alpha = first / max(total, _TINY)
        for b in range(b0, b1):
            if not total > 0:                           # an impossible sequence
                break
            at_start[b] = alpha
            if safe[b]:
                message = alpha @ F[b]
            else:                                       # rows of very different size
                with np.errstate(divide="ignore"):
                    w = np.log(alpha) + log_scale[b]
                message = np.exp(w - w.max()) @ P[b]
                top[b] = w.max()
            total = totals[b] = message.sum()
            alpha = message / max(total, _TINY)
        if total > 0:
            log_likelihoods.append(float(np.log(first.sum()) + np.log(totals[b0:b1]).sum()
                                         + top[b0:b1].sum()))
        else:
            log_likelihoods.append(-np.inf)
    return at_start, log_likelihoods


def _backward_boundaries(model, P, log_scale, ranges):
    """Backward message at the end of every block (rows sum to 1)."""
    F, safe = _fold_scales(P, log_scale, log_scale.max(axis=1))
    at_end = np.empty((len(P), model.n_states))
    for b0, b1 in ranges:
        beta = np.full(model.n_states, 1.0 / model.n_states)
        for b in range(b1 - 1, b0 - 1, -1):
            at_end[b] = beta
            if safe[b]:
                message = F[b] @ beta
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    w = np.log(P[b] @ beta) + log_scale[b]
                    message = np.exp(w - w.max())
            beta = message / max(message.sum(), _TINY)
    return at_end


def _forward_fill(model, Eb, at_start):
    """Filtered messages at every step of every block, all blocks advancing together."""
    N, L, B = Eb.shape
    A_T = np.ascontiguousarray(model.transition.T)
    alpha = np.empty((L, N, B))
    a = np.ascontiguousarray(at_start.T)
    for k in range(L):
        np.matmul(A_T, a, out=alpha[k])
        a = alpha[k]
        a *= Eb[:, k, :]
        a /= np.maximum(a.sum(axis=0), _TINY)
    return alpha


def _backward_fill(model, Eb, last, at_end):
    """Backward messages at every step of every block, and at each block's start."""
    N, L, B = Eb.shape
    beta = np.empty((L, N, B))
    b_ = np.ascontiguousarray(at_end.T)
    short = _ending(last, L)
    for k in range(L - 1, -1, -1):
        if k in short:                                  # these blocks end here
            b_[:, short[k]] = at_end[short[k]].T
        beta[k] = b_
        b_ = model.transition @ (Eb[:, k, :] * b_)
        b_ /= np.maximum(b_.sum(axis=0), _TINY)
    return beta, b_


def forward_backward_many(model, seqs):
    """``[(alpha, beta, log_likelihood), ...]``, one per checked sequence (fast)."""
    results = [None] * len(seqs)
    firsts = [model.start * model.emission[:, obs[0]] for obs in seqs]
    heads = [f / max(f.sum(), _TINY) for f in firsts]
    long_ = [i for i, obs in enumerate(seqs) if len(obs) > 1]
    for i in set(range(len(seqs))) - set(long_):
        with np.errstate(divide="ignore"):
            results[i] = (heads[i][None], np.full((1, model.n_states), 1.0 / model.n_states),
                          float(np.log(firsts[i].sum())))
    if long_:
        Eb, last, ranges = _layout(model, [seqs[i] for i in long_])
        P, log_scale = _block_products(model, Eb, last)
        at_start, log_likelihoods = _forward_boundaries(model, [firsts[i] for i in long_], P, log_scale, ranges)
        alpha = _forward_fill(model, Eb, at_start)
        beta, beta_starts = _backward_fill(model, Eb, last, _backward_boundaries(model, P, log_scale, ranges))
        del Eb, P
        for i, (b0, b1), ll in zip(long_, ranges, log_likelihoods):
            T = len(seqs[i])
            results[i] = (_unblock(alpha[:, :, b0:b1], heads[i], T),
                          _unblock(beta[:, :, b0:b1], beta_starts[:, b0], T), ll)
    return results


def log_likelihood(model, obs):
    """``log P(e_1..e_T)``: only the block products and the pass over blocks."""
    first = model.start * model.emission[:, obs[0]]
    if len(obs) == 1:
        with np.errstate(divide="ignore"):
            return float(np.log(first.sum()))
    Eb, last, ranges = _layout(model, [obs])
    P, log_scale = _block_products(model, Eb, last)
    return _forward_boundaries(model, [first], P, log_scale, ranges)[1][0]


def forward(model, obs):
    """Filtered distributions and log-likelihood, as :func:`lib.hmm.reference.forward`."""
    first = model.start * model.emission[:, obs[0]]
    head = first / max(first.sum(), _TINY)
    if len(obs) == 1:
        with np.errstate(divide="ignore"):
            return head[None], float(np.log(first.sum()))
    Eb, last, ranges = _layout(model, [obs])
    P, log_scale = _block_products(model, Eb, last)
    at_start, log_likelihoods = _forward_boundaries(model, [first], P, log_scale, ranges)
    return _unblock(_forward_fill(model, Eb, at_start), head, len(obs)), log_likelihoods[0]
