"""Hidden Markov models with discrete observations: filtering, smoothing, Viterbi and
Baum-Welch (Chapter 8, "Hidden Markov models").

A model has ``N`` hidden states and ``M`` observation symbols ``0 .. M-1``:

* ``start[i] = P(X_1 = i)``, the distribution of the *first observed* time step;
* ``transition[i, j] = P(X_{t+1} = j | X_t = i)``;
* ``emission[i, k] = P(E_t = k | X_t = i)``.

Two implementations of each recursion live here.

* The *plain* ones (:meth:`HMM.forward_plain`, :meth:`HMM.backward_plain`,
  :meth:`HMM.viterbi_plain`) are the textbook loops over time steps, written to be read
  next to the equations of the chapter.
* The *fast* ones (:meth:`HMM.forward`, :meth:`HMM.backward`, :meth:`HMM.viterbi`,
  :meth:`HMM.fit`) give the same numbers but process the sequence in about
  ``sqrt(T)`` blocks of about ``sqrt(T)`` steps. First, for every block at once, the
  product of that block's one-step matrices is built (one batched numpy operation per
  step *inside* a block); then a short loop over blocks carries the message from block
  to block; finally, knowing the message at the start of every block, all blocks are
  filled in at once. A Python loop of ``T`` steps becomes about ``3 sqrt(T)`` loop
  steps over arrays, which is what makes 10^5-step sequences quick.

Both keep numbers in range by rescaling (forward/backward) or by working with
logarithms (Viterbi), so a 10^6-step sequence has a finite log-likelihood.
"""
import numpy as np

_TINY = np.finfo(float).tiny
VITERBI_SHORTER = 4      # Viterbi blocks are about sqrt(T) / 4 steps long
MAX_ROUNDS = 4           # Viterbi corrections before falling back to the plain loop


# ---------------------------------------------------------------------- validation
def _check_stochastic(name, matrix, ndim):
    """``matrix`` as a float array of probabilities whose rows (last axis) sum to 1."""
    try:
        a = np.array(matrix, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers") from None
    if a.ndim != ndim:
        shape = "a vector" if ndim == 1 else "a 2-D matrix"
        raise ValueError(f"{name} must be {shape}, got an array of shape {a.shape}")
    if a.size == 0 or a.shape[-1] == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if np.any(a < 0):
        raise ValueError(f"{name} has negative probabilities")
    sums = a.sum(axis=-1)
    bad = np.flatnonzero(~np.isclose(sums, 1.0, rtol=0, atol=1e-8))
    if bad.size:
        where = "" if ndim == 1 else f" (row {bad[0]} sums to {np.atleast_1d(sums)[bad[0]]:.6g})"
        raise ValueError(f"{name} rows must sum to 1{where}")
    return a / sums[..., None] if ndim == 2 else a / sums


def _check_symbols(obs, n_symbols):
    """``obs`` as a 1-D integer array of symbols in ``0 .. n_symbols-1``."""
    a = np.asarray(obs)
    if a.ndim != 1:
        raise ValueError(f"an observation sequence must be 1-D, got shape {a.shape}")
    if a.size == 0:
        raise ValueError("an observation sequence is empty")
    if a.dtype.kind == "b" or a.dtype.kind not in "iuf":
        raise ValueError(f"observation symbols must be integers, got dtype {a.dtype}")
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)) or np.any(a != np.round(a)):
            raise ValueError("observation symbols must be integers, got non-integer values")
    if a.min() < 0 or a.max() >= n_symbols:
        raise ValueError(f"observation symbols must lie in 0..{n_symbols - 1}, "
                         f"got values from {a.min()} to {a.max()}")
    return a.astype(np.intp, copy=False)


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


class HMM:
    """A hidden Markov model with ``N`` states and ``M`` discrete symbols.

    Parameters
    ----------
    start : array (N,)
        ``P(X_1 = i)``.
    transition : array (N, N)
        ``transition[i, j] = P(X_{t+1} = j | X_t = i)``; rows sum to 1.
    emission : array (N, M)
        ``emission[i, k] = P(E_t = k | X_t = i)``; rows sum to 1.

    :meth:`fit` (Baum-Welch) replaces these three parameters in place and records
    ``log_likelihoods_`` (one per iteration) and ``n_iter_``.

    Used in: Chapter 8, all sections.

    Examples
    --------
    >>> umbrella = HMM([0.5, 0.5], [[0.7, 0.3], [0.3, 0.7]], [[0.1, 0.9], [0.8, 0.2]])
    >>> round(umbrella.filter([1, 1])[1, 0], 3)  # P(rain on day 2 | umbrella, umbrella)
    0.883
    """

    def __init__(self, start, transition, emission):
        self.start = _check_stochastic("start", start, 1)
        self.transition = _check_stochastic("transition", transition, 2)
        self.emission = _check_stochastic("emission", emission, 2)
        n = len(self.start)
        if self.transition.shape != (n, n):
            raise ValueError(f"transition must have shape ({n}, {n}) to match start, "
                             f"got {self.transition.shape}")
        if self.emission.shape[0] != n:
            raise ValueError(f"emission must have {n} rows (one per state), "
                             f"got {self.emission.shape[0]}")

    @property
    def n_states(self):
        return len(self.start)

    @property
    def n_symbols(self):
        return self.emission.shape[1]

    def __repr__(self):
        return f"HMM(n_states={self.n_states}, n_symbols={self.n_symbols})"

    def _likelihoods(self, obs):
        """``E[t, i] = P(e_t | X_t = i)`` for a checked sequence."""
        return np.ascontiguousarray(self.emission.T)[obs]

    # ------------------------------------------------------------------ sampling
    def sample(self, n_steps, rng):
        """Draw ``(states, symbols)``, two integer arrays of length ``n_steps``.

        Used in: Chapter 8, section "The occasionally dishonest casino".
        """
        if int(n_steps) != n_steps or n_steps < 1:
            raise ValueError(f"n_steps must be a positive integer, got {n_steps!r}")
        n_steps = int(n_steps)
        rng = np.random.default_rng(rng)
        N = self.n_states
        # For every state, one pre-drawn successor per time step; then follow the chain.
        cum = np.cumsum(self.transition, axis=1)
        u = rng.random((n_steps, 1))
        successor = np.minimum((u[:, None, :] > cum[None, :, :]).sum(axis=2), N - 1).T.tolist()
        first = int(min(np.searchsorted(np.cumsum(self.start), rng.random(), side="right"), N - 1))
        states = [first]
        for t in range(1, n_steps):
            states.append(successor[states[-1]][t])
        states = np.array(states)
        cum_e = np.cumsum(self.emission, axis=1)[states]
        symbols = np.minimum((rng.random((n_steps, 1)) > cum_e).sum(axis=1), self.n_symbols - 1)
        return states, symbols

    # ------------------------------------------------------------- plain versions
    def forward_plain(self, obs):
        """Filtering, one time step at a time: the readable reference version.

        Returns ``(alpha, log_likelihood)`` where ``alpha[t, i] = P(X_t = i | e_1..e_t)``
        and ``log_likelihood = log P(e_1..e_T)`` (the sum of the logs of the
        normalising constants). Same numbers as :meth:`forward`.
        Used in: Chapter 8, section "Filtering: the forward algorithm".
        """
        obs = _check_symbols(obs, self.n_symbols)
        E = self._likelihoods(obs)
        alpha = np.empty((len(obs), self.n_states))
        log_likelihood = 0.0
        message = self.start * E[0]                              # predict, then weigh
        for t in range(len(obs)):
            if t > 0:
                message = (alpha[t - 1] @ self.transition) * E[t]
            total = message.sum()                                # P(e_t | e_1..e_{t-1})
            with np.errstate(divide="ignore"):
                log_likelihood += np.log(total)
            alpha[t] = message / max(total, _TINY)
        return alpha, log_likelihood

    def backward_plain(self, obs):
        """Backward messages ``beta[t, i]`` proportional to ``P(e_{t+1}..e_T | X_t = i)``.

        Each row is rescaled to sum to 1 (only ratios within a row matter).
        Used in: Chapter 8, section "Smoothing: the forward-backward algorithm".
        """
        obs = _check_symbols(obs, self.n_symbols)
        E = self._likelihoods(obs)
        beta = np.empty((len(obs), self.n_states))
        beta[-1] = 1.0 / self.n_states
        for t in range(len(obs) - 1, 0, -1):
            message = self.transition @ (E[t] * beta[t])
            beta[t - 1] = message / max(message.sum(), _TINY)
        return beta

    def viterbi_plain(self, obs):
        """The most likely state sequence, one time step at a time (in logarithms).

        Returns ``(path, log_probability)``, the path maximising ``P(x_1..x_T, e_1..e_T)``
        and the log of that joint probability. Same result as :meth:`viterbi`.
        Used in: Chapter 8, section "The most likely path: Viterbi".
        """
        obs = _check_symbols(obs, self.n_symbols)
        with np.errstate(divide="ignore"):
            log_A = np.log(self.transition)
            log_E = np.log(self._likelihoods(obs))
            best = np.log(self.start) + log_E[0]      # best log score ending in each state
        back = np.zeros((len(obs), self.n_states), dtype=np.intp)
        for t in range(1, len(obs)):
            scores = best[:, None] + log_A            # scores[i, j]: come from i, go to j
            back[t] = scores.argmax(axis=0)
            best = scores.max(axis=0) + log_E[t]
        path = np.empty(len(obs), dtype=np.intp)
        path[-1] = best.argmax()
        for t in range(len(obs) - 1, 0, -1):
            path[t - 1] = back[t, path[t]]
        return path, float(best.max())

    # -------------------------------------------------------------- fast versions
    # Layout: the one-step likelihoods of all blocks are stored as Eb[:, k, b] (state,
    # step in block, block), so every array handled inside a loop has the blocks on
    # its last axis and numpy's inner loops run over the many blocks. Several sequences
    # are cut into blocks of the same length and processed together; each sequence's
    # last block may be shorter (``last[b]`` is the last step of block ``b``).
    def _blocked(self, obs, table, shorter=1):
        """``table[:, obs[1 + b L + k]]`` as ``out[:, k, b]``, and the block sizes ``(B, L, r)``."""
        B, L, r = _blocks(len(obs) - 1, shorter)
        index = np.zeros((B, L), dtype=np.intp)              # index[b, k] = obs[1 + b L + k]
        index.reshape(-1)[: len(obs) - 1] = obs[1:]
        return np.take(table, index.T, axis=1), (B, L, r)

    def _layout(self, seqs):
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
        return np.take(self.emission, index.T, axis=1), last, ranges

    def _block_products(self, Eb, last):
        """Products of the one-step matrices ``A diag(E_t)`` over each block.

        Returns ``(P, log_scale)``, shapes ``(B, N, N)`` and ``(B, N)``: the product for
        block ``b`` is ``diag(exp(log_scale[b])) @ P[b]``; rows of ``P[b]`` sum to 1.
        """
        N, L, B = Eb.shape
        A_T = np.ascontiguousarray(self.transition.T)
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

    def _forward_boundaries(self, firsts, P, log_scale, ranges):
        """Filtered message just before every block, and each sequence's log-likelihood."""
        B = len(P)
        top = log_scale.max(axis=1)
        F, safe = _fold_scales(P, log_scale, top)
        at_start = np.full((B, self.n_states), 1.0 / self.n_states)
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

    def _backward_boundaries(self, P, log_scale, ranges):
        """Backward message at the end of every block (rows sum to 1)."""
        F, safe = _fold_scales(P, log_scale, log_scale.max(axis=1))
        at_end = np.empty((len(P), self.n_states))
        for b0, b1 in ranges:
            beta = np.full(self.n_states, 1.0 / self.n_states)
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

    def _forward_fill(self, Eb, at_start):
        """Filtered messages at every step of every block, all blocks advancing together."""
        N, L, B = Eb.shape
        A_T = np.ascontiguousarray(self.transition.T)
        alpha = np.empty((L, N, B))
        a = np.ascontiguousarray(at_start.T)
        for k in range(L):
            np.matmul(A_T, a, out=alpha[k])
            a = alpha[k]
            a *= Eb[:, k, :]
            a /= np.maximum(a.sum(axis=0), _TINY)
        return alpha

    def _backward_fill(self, Eb, last, at_end):
        """Backward messages at every step of every block, and at each block's start."""
        N, L, B = Eb.shape
        beta = np.empty((L, N, B))
        b_ = np.ascontiguousarray(at_end.T)
        short = _ending(last, L)
        for k in range(L - 1, -1, -1):
            if k in short:                                  # these blocks end here
                b_[:, short[k]] = at_end[short[k]].T
            beta[k] = b_
            b_ = self.transition @ (Eb[:, k, :] * b_)
            b_ /= np.maximum(b_.sum(axis=0), _TINY)
        return beta, b_

    def _forward_backward_many(self, seqs):
        """``[(alpha, beta, log_likelihood), ...]``, one per checked sequence (fast)."""
        results = [None] * len(seqs)
        firsts = [self.start * self.emission[:, obs[0]] for obs in seqs]
        heads = [f / max(f.sum(), _TINY) for f in firsts]
        long_ = [i for i, obs in enumerate(seqs) if len(obs) > 1]
        for i in set(range(len(seqs))) - set(long_):
            with np.errstate(divide="ignore"):
                results[i] = (heads[i][None], np.full((1, self.n_states), 1.0 / self.n_states),
                              float(np.log(firsts[i].sum())))
        if long_:
            Eb, last, ranges = self._layout([seqs[i] for i in long_])
            P, log_scale = self._block_products(Eb, last)
            at_start, log_likelihoods = self._forward_boundaries([firsts[i] for i in long_], P, log_scale, ranges)
            alpha = self._forward_fill(Eb, at_start)
            beta, beta_starts = self._backward_fill(Eb, last, self._backward_boundaries(P, log_scale, ranges))
            del Eb, P
            for i, (b0, b1), ll in zip(long_, ranges, log_likelihoods):
                T = len(seqs[i])
                results[i] = (_unblock(alpha[:, :, b0:b1], heads[i], T),
                              _unblock(beta[:, :, b0:b1], beta_starts[:, b0], T), ll)
        return results

    def _forward_backward(self, obs):
        """``(alpha, beta, log_likelihood)`` for one checked sequence (fast version)."""
        return self._forward_backward_many([obs])[0]

    def log_likelihood(self, obs):
        """``log P(e_1..e_T)`` under the model (fast; finite for 10^6-step sequences).

        Used in: Chapter 8, section "Learning the parameters: Baum-Welch".
        """
        obs = _check_symbols(obs, self.n_symbols)
        first = self.start * self.emission[:, obs[0]]
        if len(obs) == 1:
            with np.errstate(divide="ignore"):
                return float(np.log(first.sum()))
        Eb, last, ranges = self._layout([obs])
        P, log_scale = self._block_products(Eb, last)
        return self._forward_boundaries([first], P, log_scale, ranges)[1][0]

    def forward(self, obs):
        """Filtered distributions and log-likelihood: fast version of :meth:`forward_plain`.

        Returns ``(alpha, log_likelihood)`` with ``alpha[t, i] = P(X_t = i | e_1..e_t)``.
        Used in: Chapter 8, section "Making it fast".
        """
        obs = _check_symbols(obs, self.n_symbols)
        first = self.start * self.emission[:, obs[0]]
        head = first / max(first.sum(), _TINY)
        if len(obs) == 1:
            with np.errstate(divide="ignore"):
                return head[None], float(np.log(first.sum()))
        Eb, last, ranges = self._layout([obs])
        P, log_scale = self._block_products(Eb, last)
        at_start, log_likelihoods = self._forward_boundaries([first], P, log_scale, ranges)
        return _unblock(self._forward_fill(Eb, at_start), head, len(obs)), log_likelihoods[0]

    def filter(self, obs):
        """``P(X_t = i | e_1..e_t)`` for every ``t``: an array of shape ``(T, N)``.

        Used in: Chapter 8, section "Filtering: the forward algorithm".
        """
        return self.forward(obs)[0]

    def backward(self, obs):
        """Backward messages, each row rescaled to sum to 1: fast :meth:`backward_plain`.

        Used in: Chapter 8, section "Smoothing: the forward-backward algorithm".
        """
        obs = _check_symbols(obs, self.n_symbols)
        return self._forward_backward(obs)[1]

    def smooth(self, obs):
        """``P(X_t = i | e_1..e_T)`` for every ``t``: an array of shape ``(T, N)``.

        Used in: Chapter 8, section "Smoothing: the forward-backward algorithm".
        """
        obs = _check_symbols(obs, self.n_symbols)
        alpha, beta, _ = self._forward_backward(obs)
        gamma = alpha * beta
        return gamma / np.maximum(gamma.sum(axis=1, keepdims=True), _TINY)

    def viterbi(self, obs):
        """Most likely state sequence and its log joint probability (fast, blocked).

        Same result as :meth:`viterbi_plain` (up to exact ties). All blocks run the
        Viterbi recursion at once, each from a guessed starting score (zeros). In
        (max, +) arithmetic the scores soon stop depending on where they started,
        except for an added constant, and such a constant changes no ``argmax``. So
        the guesses are corrected in a few cheap rounds: restart every block from the
        end scores of the block before it, until the new scores agree (up to a
        constant) with the stored ones. The path is traced back the same way: every
        block from a guessed last state, then corrected until the traces join.
        Used in: Chapter 8, section "Making it fast".
        """
        obs = _check_symbols(obs, self.n_symbols)
        N, T = self.n_states, len(obs)
        with np.errstate(divide="ignore"):
            log_A = np.log(self.transition)
            log_B = np.log(self.emission)
            first = np.log(self.start) + log_B[:, obs[0]]
        if T == 1:
            return np.array([first.argmax()]), float(first.max())
        Eb, (B, L, r) = self._blocked(obs, log_B, shorter=VITERBI_SHORTER)
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
            return self.viterbi_plain(obs)
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
            return self.viterbi_plain(obs)
        state_0 = int((first + log_A[:, path[0, 0]]).argmax())
        states = np.concatenate([[state_0], path.T.ravel()[: T - 1]])
        log_p = (first[state_0] + log_A[states[:-1], states[1:]].sum()
                 + log_B[states[1:], obs[1:]].sum())
        return states, float(log_p)

    def predict(self, obs):
        """The Viterbi path (scikit-learn style name for :meth:`viterbi`'s first result)."""
        return self.viterbi(obs)[0]

    def predict_proba(self, obs):
        """The smoothed state probabilities (scikit-learn style name for :meth:`smooth`)."""
        return self.smooth(obs)

    # ------------------------------------------------------------------ learning
    def fit(self, sequences, n_iter=100, tol=1e-6):
        """Baum-Welch (EM): re-estimate all parameters from observation sequences.

        Each iteration computes, with the forward-backward algorithm, the expected
        number of times each transition ``i -> j`` happens, each state emits each
        symbol, and each state starts a sequence, and sets

        ``transition[i, j] <- sum_t N(X_t = i, X_{t+1} = j) / sum_t N(X_t = i)``

        (and likewise for ``emission`` and ``start``). ``log_likelihoods_[k]`` is the
        total log-likelihood of all sequences under the parameters *before* update
        ``k``; EM guarantees that it never decreases. Stops after ``n_iter`` updates, or
        earlier once an iteration gains less than ``tol``.

        Parameters
        ----------
        sequences : sequence of int arrays, or one int array
        n_iter : int
        tol : float

        Returns ``self``. Used in: Chapter 8, section "Learning the parameters: Baum-Welch".
        """
        if isinstance(sequences, np.ndarray) and sequences.ndim == 1:
            sequences = [sequences]
        sequences = [_check_symbols(s, self.n_symbols) for s in sequences]
        if not sequences:
            raise ValueError("fit needs at least one observation sequence")
        if int(n_iter) != n_iter or n_iter < 1:
            raise ValueError(f"n_iter must be a positive integer, got {n_iter!r}")
        N, M = self.n_states, self.n_symbols
        self.log_likelihoods_ = []
        for _ in range(int(n_iter)):
            start_counts = np.zeros(N)
            transition_counts = np.zeros((N, N))
            emission_counts = np.zeros((N, M))
            total = 0.0
            for obs, (alpha, beta, log_likelihood) in zip(sequences, self._forward_backward_many(sequences)):
                total += log_likelihood
                if len(obs) > 1:
                    # xi_t(i, j) is proportional to alpha_t(i) A_ij E_{t+1}(j) beta_{t+1}(j)
                    w = self._likelihoods(obs[1:])
                    w *= beta[1:]
                    norm = np.maximum(np.einsum("ti,ti->t", w @ self.transition.T, alpha[:-1]), _TINY)
                    alpha[:-1] /= norm[:, None]               # (rows of gamma are renormalised)
                    transition_counts += self.transition * (alpha[:-1].T @ w)
                    del w
                gamma = alpha                                 # smoothed P(X_t = i | all e)
                gamma *= beta
                gamma /= np.maximum(gamma.sum(axis=1, keepdims=True), _TINY)
                start_counts += gamma[0]
                for i in range(N):
                    emission_counts[i] += np.bincount(obs, weights=gamma[:, i], minlength=M)
            self.log_likelihoods_.append(total)
            self.start = start_counts / start_counts.sum()
            self.transition = _normalise_rows(transition_counts, self.transition)
            self.emission = _normalise_rows(emission_counts, self.emission)
            if len(self.log_likelihoods_) > 1 and self.log_likelihoods_[-1] - self.log_likelihoods_[-2] < tol:
                break
        self.n_iter_ = len(self.log_likelihoods_)
        return self


def _normalise_rows(counts, previous):
    """Rows of ``counts`` divided by their sums; a row with no counts keeps ``previous``."""
    sums = counts.sum(axis=1, keepdims=True)
    return np.where(sums > 0, counts / np.where(sums > 0, sums, 1.0), previous)


# ---------------------------------------------------------------------- examples
ALPHABET = " abcdefghijklmnopqrstuvwxyz"


def umbrella_model():
    """The umbrella world: state 0 = rain, 1 = no rain; symbol 0 = no umbrella, 1 = umbrella.

    ``P(R_0) = 0.5``, ``P(R_t | R_{t-1}) = 0.7``, ``P(R_t | not R_{t-1}) = 0.3``,
    ``P(U_t | R_t) = 0.9``, ``P(U_t | not R_t) = 0.2``. The start distribution is that
    of day 1 before any evidence, ``P(R_1) = 0.5 * 0.7 + 0.5 * 0.3 = 0.5``.
    Used in: Chapter 8, section "The umbrella world".
    """
    prior_day_0 = np.array([0.5, 0.5])
    transition = np.array([[0.7, 0.3], [0.3, 0.7]])
    return HMM(prior_day_0 @ transition, transition, [[0.1, 0.9], [0.8, 0.2]])


def casino_model():
    """The occasionally dishonest casino: state 0 = fair die, 1 = loaded die (a six half
    of the time); symbols 0..5 stand for faces 1..6. The casino swaps to the loaded die
    with probability 0.05 per roll and back with probability 0.1.
    Used in: Chapter 8, section "The occasionally dishonest casino".
    """
    return HMM([0.5, 0.5], [[0.95, 0.05], [0.10, 0.90]],
               [[1 / 6] * 6, [0.1, 0.1, 0.1, 0.1, 0.1, 0.5]])


def letters_to_symbols(text):
    """Lower-case ``text``, turn every run of non-letters into one space, and code the
    result as symbols ``0..26`` (space, a, ..., z).

    Used in: Chapter 8, section "Vowels and consonants".

    >>> letters_to_symbols("Hi, you!").tolist()
    [8, 9, 0, 25, 15, 21, 0]
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    cleaned = []
    for ch in text.lower():
        if "a" <= ch <= "z":
            cleaned.append(ch)
        elif cleaned and cleaned[-1] != " ":
            cleaned.append(" ")
    return np.array([ALPHABET.index(ch) for ch in cleaned], dtype=np.intp)


def rolls_to_symbols(rolls):
    """A string of die faces such as ``"163666"`` as symbols ``0..5`` (other characters
    are ignored). Used in: Chapter 8, section "Try it: reading the dice"."""
    faces = [int(ch) - 1 for ch in str(rolls) if ch in "123456"]
    if not faces:
        raise ValueError("no die faces (digits 1 to 6) in the sequence")
    return np.array(faces, dtype=np.intp)


# ---------------------------------------------------------------------- plotting
def _new_figure(*args, **kwargs):
    from lib.plotting import new_figure   # matplotlib only when a figure is drawn
    return new_figure(*args, **kwargs)


def plot_unrolled_network(n_steps=4):
    """The HMM as an unrolled dynamic Bayesian network: a chain of hidden states
    ``X_t``, each with one observed child ``E_t`` (Figure 20.14 of the source).
    Used in: Chapter 8, section "The model"."""
    fig = _new_figure((1.6 * n_steps + 0.6, 2.3))
    ax = fig.subplots()
    for t in range(n_steps):
        for y, label, filled in [(1.0, f"$X_{t + 1}$", "white"), (0.0, f"$E_{t + 1}$", "0.85")]:
            ax.add_patch(_circle((t, y), 0.28, filled))
            ax.text(t, y, label, ha="center", va="center", fontsize=12)
        ax.annotate("", (t, 0.28), (t, 0.72), arrowprops=dict(arrowstyle="->", lw=1.4))
        if t + 1 < n_steps:
            ax.annotate("", (t + 0.72, 1.0), (t + 0.28, 1.0), arrowprops=dict(arrowstyle="->", lw=1.4))
    ax.text(n_steps - 0.45, 1.0, r"$\cdots$", va="center", fontsize=14)
    ax.set_xlim(-0.5, n_steps)
    ax.set_ylim(-0.45, 1.45)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


def _circle(centre, radius, colour):
    from matplotlib.patches import Circle
    return Circle(centre, radius, facecolor=colour, edgecolor="black", lw=1.2)


def plot_filter_smooth(model, obs, state=0, state_name="state 0", symbol_labels=None,
                       title=None):
    """Filtered ``P(X_t = state | e_1..e_t)`` and smoothed ``P(X_t = state | e_1..e_T)``
    along one sequence, with the Viterbi path as a band underneath.

    Used in: Chapter 8, sections "Filtering versus smoothing" and "Try it: reading the dice".
    """
    obs = _check_symbols(obs, model.n_symbols)
    T = len(obs)
    filtered, smoothed = model.filter(obs)[:, state], model.smooth(obs)[:, state]
    path, _ = model.viterbi(obs)
    fig = _new_figure((8.0, 3.6))
    ax, band = fig.subplots(2, 1, sharex=True, gridspec_kw=dict(height_ratios=[5, 1]))
    t = np.arange(1, T + 1)
    marker = "o" if T <= 60 else None
    ax.plot(t, filtered, marker=marker, markersize=4, label="filtered (evidence so far)")
    ax.plot(t, smoothed, marker=marker, markersize=4, label="smoothed (all the evidence)")
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel(f"P({state_name})")
    ax.legend(loc="upper left", fontsize=8, ncol=2)
    if symbol_labels is not None and T <= 60:
        for ti, o in zip(t, obs):
            ax.text(ti, -0.12, symbol_labels[o], ha="center", va="top", fontsize=7,
                    transform=ax.get_xaxis_transform())
    if title:
        ax.set_title(title, fontsize=10)
    band.imshow((path == state)[None, :], aspect="auto", cmap="Greys", vmin=0, vmax=1.6,
                extent=(0.5, T + 0.5, 0, 1), interpolation="nearest")
    band.set_yticks([0.5], [f"Viterbi:\n{state_name}"], fontsize=8)
    band.set_xlabel("time step t")
    return fig


def plot_log_likelihood(history, reference=None):
    """Log-likelihood per Baum-Welch iteration (and the true model's, dashed).
    Used in: Chapter 8, section "The occasionally dishonest casino"."""
    fig = _new_figure((6.0, 3.0))
    ax = fig.subplots()
    ax.plot(np.arange(len(history)), history, marker="o", markersize=2)
    if reference is not None:
        ax.axhline(reference, color="k", ls="--", lw=1, label="true parameters")
        ax.legend(loc="lower right")
    ax.set_xlabel("iteration")
    ax.set_ylabel("log-likelihood")
    return fig


def plot_letter_emissions(emission, labels=ALPHABET):
    """Emission probabilities of a two-state model of letters, as paired bars.
    Used in: Chapter 8, section "Vowels and consonants"."""
    emission = np.asarray(emission)
    fig = _new_figure((9.0, 3.0))
    ax = fig.subplots()
    x = np.arange(emission.shape[1])
    for i in range(emission.shape[0]):
        ax.bar(x + (i - 0.5) * 0.4, emission[i], width=0.4, label=f"state {i}")
    ax.set_xticks(x, ["␣" if ch == " " else ch for ch in labels])
    ax.set_ylabel("P(letter | state)")
    ax.legend()
    return fig


CASINO_EXAMPLES = {
    "mostly fair, then a run of sixes": "3512462315423164516623456666166626563661245132" + "4512361523",
    "fair throughout": "3125463214562315462134564213526143652134",
    "one lucky pair of sixes": "2451366315241526343516245316",
    "sixes early, fair later": "6626166366566136265423154231542315452361",
}


def plot_casino_sequence(rolls=CASINO_EXAMPLES["mostly fair, then a run of sixes"], model=None):
    """The interactive figure of Chapter 8: for a string of die rolls, the filtered and
    smoothed probability that the loaded die is in use, and the Viterbi path.
    Used in: Chapter 8, section "Try it: reading the dice"."""
    model = casino_model() if model is None else model
    obs = rolls_to_symbols(rolls)
    return plot_filter_smooth(model, obs, state=1, state_name="loaded",
                              symbol_labels="123456", title=f"{len(obs)} rolls")
