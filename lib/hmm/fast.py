"""Fast versions of the recursions of :mod:`lib.hmm.reference` (Chapter 8, "Making it fast").

They compute the same numbers but process the sequence in about ``sqrt(T)`` blocks of
about ``sqrt(T)`` steps. First, for every block at once, the product of that block's
one-step matrices is built (one batched numpy operation per step *inside* a block);
then a short loop over blocks carries the message from block to block; finally,
knowing the message at the start of every block, all blocks are filled in at once. A
Python loop of ``T`` steps becomes about ``3 sqrt(T)`` loop steps over arrays.

Every function takes a :class:`lib.hmm.HMM` (for its ``start``, ``transition`` and
``emission``) and an already checked observation sequence. The numbers are kept in
range by rescaling, as in the reference versions; models whose entries are so small
that products could underflow are sent to the log-space versions by the model.
"""
import numpy as np

from . import reference

_TINY = np.finfo(float).tiny
VITERBI_SHORTER = 4      # Viterbi blocks are about sqrt(T) / 4 steps long
MAX_ROUNDS = 4           # Viterbi corrections before falling back to the plain loop


def _viterbi_reference(model, obs):
    with np.errstate(divide="ignore"):
        return reference.viterbi(np.log(model.start), np.log(model.transition),
                                 np.log(model.emission.T)[obs])


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


def _parallel(x, y, atol=1e-7):
    """For each column: do ``x`` and ``y`` differ only by a constant (-inf where both are)?"""
    fx, fy = np.isfinite(x), np.isfinite(y)
    both = fx & fy
    with np.errstate(invalid="ignore"):
        diff = x - y
    spread = np.where(both, diff, -np.inf).max(axis=0) - np.where(both, diff, np.inf).min(axis=0)
    return (fx == fy).all(axis=0) & (spread <= atol)


def _viterbi_steps(starts, D, Eb, log_A, r, stop_early):
    """Viterbi scores of all blocks from ``starts`` (N, B) into ``D[k, :, b]``.

    With ``stop_early``, stop at the first step where every block's new scores equal
    the stored ones up to a constant: from there on the stored scores are right.
    """
    N, L, B = Eb.shape
    d = starts.copy()
    for k in range(L):
        nb = B if k < r else B - 1
        new = (d[:, None, :nb] + log_A[:, :, None]).max(axis=0) + Eb[:, k, :nb]
        if stop_early and _parallel(new, D[k, :, :nb]).all():
            return
        d[:, :nb] = new
        D[k, :, :nb] = new


def _trace_back(D, log_A, path, last, end, todo):
    """Trace the best path back again through the blocks ``todo`` from their corrected
    last states ``end``; each stops as soon as it joins its previous trace."""
    live = todo
    state = end.copy()
    for k in range(path.shape[0] - 1, -1, -1):
        active = live[last[live] >= k]                # the last block may be shorter
        going = active[last[active] > k]              # blocks already being traced
        if going.size:
            state[going] = (D[k][:, going] + log_A[:, path[k + 1, going]]).argmax(axis=0)
            joined = going[state[going] == path[k, going]]
            live = np.setdiff1d(live, joined, assume_unique=True)
            active = np.setdiff1d(active, joined, assume_unique=True)
        if not live.size:
            return
        path[k, active] = state[active]



def _blocked(model, obs, table, shorter=1):
    """``table[:, obs[1 + b L + k]]`` as ``out[:, k, b]``, and the block sizes ``(B, L, r)``."""
    B, L, r = _blocks(len(obs) - 1, shorter)
    index = np.zeros((B, L), dtype=np.intp)              # index[b, k] = obs[1 + b L + k]
    index.reshape(-1)[: len(obs) - 1] = obs[1:]
    return np.take(table, index.T, axis=1), (B, L, r)

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


def viterbi(model, obs):
    """Most likely state sequence and its log joint probability (fast, blocked).

    Same result as :func:`lib.hmm.reference.viterbi` (up to exact ties). All blocks run the
    Viterbi recursion at once, each from a guessed starting score (zeros). In
    (max, +) arithmetic the scores soon stop depending on where they started,
    except for an added constant, and such a constant changes no ``argmax``. So
    the guesses are corrected in a few cheap rounds: restart every block from the
    end scores of the block before it, until the new scores agree (up to a
    constant) with the stored ones. The path is traced back the same way: every
    block from a guessed last state, then corrected until the traces join.
    Used in: Chapter 8, section "Making it fast".
    """
    N, T = model.n_states, len(obs)
    with np.errstate(divide="ignore"):
        log_A = np.log(model.transition)
        log_B = np.log(model.emission)
        first = np.log(model.start) + log_B[:, obs[0]]
    if T == 1:
        return np.array([first.argmax()]), float(first.max())
    Eb, (B, L, r) = _blocked(model, obs, log_B, shorter=VITERBI_SHORTER)
    last = np.full(B, L - 1)
    last[-1] = r - 1                                    # last step of each block
    # forward scores D[k, :, b], right up to a constant per (k, b)
    starts = np.zeros((N, B))
    starts[:, 0] = first
    D = np.empty((L, N, B))
    _viterbi_steps(starts, D, Eb, log_A, r, stop_early=False)
    for attempt in range(MAX_ROUNDS + 1):
        wanted = np.column_stack([first, D[last[:-1], :, np.arange(B - 1)].T])
        if _parallel(wanted, starts).all():
            break
        starts = wanted
        _viterbi_steps(starts, D, Eb, log_A, r, stop_early=True)
    else:      # scores that never forget their start (e.g. a state that never changes)
        return _viterbi_reference(model, obs)
    # trace back: D[k, :, b] + log_A[:, j] scores the predecessors of state j
    end = D[last, :, np.arange(B)].argmax(axis=1)       # guessed last state per block
    path = np.empty((L, B), dtype=np.intp)
    state = end.copy()
    for k in range(L - 1, -1, -1):
        if k < L - 1:                                   # best predecessor at step k
            state = (D[k] + log_A[:, state]).argmax(axis=0)
        if k == r - 1:                                  # the last block ends here
            state[-1] = end[-1]
        path[k] = state
    for attempt in range(MAX_ROUNDS + 1):               # correct the guesses
        before = (D[last[:-1], :, np.arange(B - 1)] + log_A[:, path[0, 1:]].T).argmax(axis=1)
        todo = np.flatnonzero(before != end[:-1])
        if not todo.size:
            break
        end[todo] = before[todo]
        _trace_back(D, log_A, path, last, end, todo)
    else:
        return _viterbi_reference(model, obs)
    state_0 = int((first + log_A[:, path[0, 0]]).argmax())
    states = np.concatenate([[state_0], path.T.ravel()[: T - 1]])
    log_p = (first[state_0] + log_A[states[:-1], states[1:]].sum()
             + log_B[states[1:], obs[1:]].sum())
    return states, float(log_p)

