"""Fast versions of the recursions of :mod:`lib.hmm.reference` (Chapter 8, "Making it
fast"): the same per-step loops, compiled with numba.

The plain recursions cost ``T N^2`` operations; in Python each of the ``T`` steps also
pays the interpreter's overhead, which dominates for small ``N``. Here the loops of
:mod:`lib.hmm.reference` are compiled (``numba.njit``), so one step costs what its
``N^2`` multiply-adds cost, as in hmmlearn's C++ loops. Which algorithm runs is the
same for every shape: the plain recursion, one step after the other.

* :func:`forward`, :func:`log_likelihood`: rescaled forward messages (rows sum to 1);
  the log-likelihood alone keeps only two rows.
* :func:`backward`: rescaled backward messages.
* :func:`viterbi`: the (max, +) recursion with back pointers stored as the smallest
  integer type that holds a state (``int8`` up to 127 states), then the trace back.
* :func:`expected_counts`: one Baum-Welch E step: the forward pass, then the backward
  pass that adds up the expected transition, emission and start counts on the way
  (no ``T x N x N`` array, no stored backward messages).
* :func:`forward_log`, :func:`backward_log`: the recursions in logarithms, for models
  whose products leave the range of doubles (see :class:`lib.hmm.HMM`).

Every output array is allocated with numpy before the compiled loop runs (so that
tracemalloc sees it); a loop allocates nothing but a few length-``N`` vectors. The
rescaled loops also report whether every term they added stayed above ``FLOOR``
(``1e-300``) so that nothing was lost to underflow; :class:`lib.hmm.HMM` redoes the
sequence in logarithms otherwise. Compiled code is cached on disk next to this file
when that is writable (else numba compiles in memory, once per process).
"""
import numba
import numpy as np

FLOOR = 1e-300          # every positive term of a rescaled step stays above this
_TINY = np.finfo(float).tiny


def _jit(fn):
    """``numba.njit`` with an on-disk cache, or without one where no cache directory is
    writable (a read-only installation: numba then compiles once per process)."""
    try:
        return numba.njit(cache=True, nogil=True)(fn)
    except RuntimeError:                    # "cannot cache function ...: no locator available"
        return numba.njit(nogil=True)(fn)


def _min_positive(v):
    lo = np.inf
    for x in v:
        if 0.0 < x < lo:
            lo = x
    return lo


min_positive = _jit(_min_positive)


@_jit
def _forward(start, At, Bt, obs, amin, emin, alpha):
    """Rescaled forward pass into ``alpha`` (``T x N``, or ``2 x N`` to keep only the
    last rows). Returns ``(log_likelihood, exact)``."""
    N, T, keep = len(start), len(obs), len(alpha) == len(obs)
    b = Bt[obs[0]]
    total = 0.0
    for j in range(N):
        alpha[0, j] = start[j] * b[j]
        total += alpha[0, j]
    exact = min_positive(alpha[0]) >= FLOOR
    if total <= 0.0:
        return -np.inf, False
    for j in range(N):
        alpha[0, j] /= total
    ll = np.log(total)
    for t in range(1, T):
        prev, cur = alpha[(t - 1) if keep else (t - 1) & 1], alpha[t if keep else t & 1]
        b = Bt[obs[t]]
        if exact and min_positive(prev) * amin * emin[obs[t]] < FLOOR:
            exact = False
        total = 0.0
        for j in range(N):
            s = 0.0
            for i in range(N):
                s += prev[i] * At[j, i]
            cur[j] = s * b[j]
            total += cur[j]
        if total <= 0.0:
            return -np.inf, False
        for j in range(N):
            cur[j] /= total
        ll += np.log(total)
    return ll, exact


@_jit
def _backward(A, Bt, obs, amin, emin, beta):
    """Rescaled backward messages into ``beta`` (``T x N``, rows summing to 1).
    Returns ``exact`` (False also for messages that vanish)."""
    N, T = A.shape[0], len(obs)
    exact = True
    w = np.empty(N)
    beta[T - 1] = 1.0 / N
    for t in range(T - 1, 0, -1):
        b = Bt[obs[t]]
        if exact and min_positive(beta[t]) * amin * emin[obs[t]] < FLOOR:
            exact = False
        for j in range(N):
            w[j] = b[j] * beta[t, j]
        total = 0.0
        for i in range(N):
            s = 0.0
            for j in range(N):
                s += A[i, j] * w[j]
            beta[t - 1, i] = s
            total += s
        if total <= 0.0:
            beta[:t] = 0.0
            return False
        for i in range(N):
            beta[t - 1, i] /= total
    return exact


@_jit
def _counts(A, Bt, obs, amin, emin, alpha, floor, transition, emission, start):
    """Add one sequence's expected counts (transition ``N x N`` before multiplying by
    ``A``, emission ``M x N``, start ``N``), from its forward messages ``alpha``.
    Returns False (counts incomplete) where a term or a normaliser became too small."""
    N, T = A.shape[0], len(obs)
    beta, w, g = np.full(N, 1.0 / N), np.empty(N), np.empty(N)
    total = 0.0
    for i in range(N):                          # the last step: gamma = alpha
        total += alpha[T - 1, i]
    for i in range(N):
        emission[obs[T - 1], i] += alpha[T - 1, i] / total
    for t in range(T - 1, 0, -1):
        b = Bt[obs[t]]
        if min_positive(beta) * amin * emin[obs[t]] < FLOOR:
            return False
        for j in range(N):
            w[j] = b[j] * beta[j]
        norm, total = 0.0, 0.0                  # norm = sum_ij alpha_i A_ij w_j
        for i in range(N):
            s = 0.0
            for j in range(N):
                s += A[i, j] * w[j]
            g[i] = s                            # beta_{t-1}, not yet rescaled
            norm += alpha[t - 1, i] * s
            total += s
        if norm < floor or not total > 0.0:
            return False
        for i in range(N):                      # xi_{t-1}(i, j) = alpha_i A_ij w_j / norm
            a = alpha[t - 1, i] / norm
            if a != 0.0:
                for j in range(N):
                    transition[i, j] += a * w[j]
        o = obs[t - 1]
        for i in range(N):                      # gamma_{t-1} = alpha * beta / norm
            emission[o, i] += alpha[t - 1, i] * g[i] / norm
            beta[i] = g[i] / total
    total = 0.0
    for i in range(N):                          # gamma_0 = alpha_0 * beta_0, normalised
        g[i] = alpha[0, i] * beta[i]
        total += g[i]
    for i in range(N):
        start[i] += g[i] / total
    return True


@_jit
def _viterbi(log_start, log_At, log_Bt, obs, back, path):
    """Viterbi with back pointers ``back`` (``T x N``) into ``path``; returns the log
    probability of the best path (``-inf`` if every path is impossible)."""
    N, T = len(log_start), len(obs)
    best, new = np.empty(N), np.empty(N)
    b = log_Bt[obs[0]]
    for j in range(N):
        best[j] = log_start[j] + b[j]
    for t in range(1, T):
        b = log_Bt[obs[t]]
        for j in range(N):
            row = log_At[j]
            top, arg = best[0] + row[0], 0
            for i in range(1, N):
                s = best[i] + row[i]
                if s > top:                     # the first maximum, as numpy's argmax
                    top, arg = s, i
            new[j] = top + b[j]
            back[t, j] = arg
        best, new = new, best
    state, top = 0, best[0]
    for j in range(1, N):
        if best[j] > top:
            state, top = j, best[j]
    path[T - 1] = state
    for t in range(T - 1, 0, -1):
        state = back[t, state]
        path[t - 1] = state
    return top


@_jit
def _forward_log(log_start, log_At, log_Bt, obs, log_alpha):
    """``log P(X_t = i, e_1..e_t)`` into ``log_alpha`` (as :func:`lib.hmm.reference.forward_log`)."""
    N, T = len(log_start), len(obs)
    for j in range(N):
        log_alpha[0, j] = log_start[j] + log_Bt[obs[0], j]
    for t in range(1, T):
        prev = log_alpha[t - 1]
        for j in range(N):
            log_alpha[t, j] = _log_dot(prev, log_At[j]) + log_Bt[obs[t], j]


@_jit
def _backward_log(log_A, log_Bt, obs, log_beta):
    """``log P(e_{t+1}..e_T | X_t = i)`` into ``log_beta`` (as :func:`lib.hmm.reference.backward_log`)."""
    N, T = log_A.shape[0], len(obs)
    w = np.empty(N)
    log_beta[T - 1] = 0.0
    for t in range(T - 1, 0, -1):
        for j in range(N):
            w[j] = log_Bt[obs[t], j] + log_beta[t, j]
        for i in range(N):
            log_beta[t - 1, i] = _log_dot(w, log_A[i])


@_jit
def _log_dot(x, y):
    """``log(sum(exp(x + y)))``, stable, ``-inf`` for an empty sum."""
    top = -np.inf
    for i in range(len(x)):
        if x[i] + y[i] > top:
            top = x[i] + y[i]
    if top == -np.inf:
        return -np.inf
    s = 0.0
    for i in range(len(x)):
        s += np.exp(x[i] + y[i] - top)
    return top + np.log(s)


# ------------------------------------------------------------------ what the model calls
def _arrays(model):
    """The model's arrays in the layouts the loops read row by row, and the smallest
    positive transition and per-symbol emission (for the underflow bound)."""
    A, E = model.transition, model.emission
    amin = float(np.min(A, initial=np.inf, where=A > 0))
    emin = np.min(E, axis=0, initial=np.inf, where=E > 0)
    return np.ascontiguousarray(A.T), np.ascontiguousarray(E.T), amin, emin


def log_likelihood(model, obs):
    """``(log P(e_1..e_T), exact)``; only two rows of forward messages are kept."""
    At, Bt, amin, emin = _arrays(model)
    ll, exact = _forward(model.start, At, Bt, obs, amin, emin, np.empty((2, model.n_states)))
    return float(ll), bool(exact)


def forward(model, obs):
    """``(alpha, log_likelihood, exact)``: the filtered distributions (rows of zeros
    after an impossible step), as :func:`lib.hmm.reference.forward`."""
    At, Bt, amin, emin = _arrays(model)
    alpha = np.zeros((len(obs), model.n_states))
    ll, exact = _forward(model.start, At, Bt, obs, amin, emin, alpha)
    return alpha, float(ll), bool(exact)


def backward(model, obs):
    """``(beta, exact)``: backward messages, rows summing to 1, as
    :func:`lib.hmm.reference.backward`."""
    _, Bt, amin, emin = _arrays(model)
    beta = np.empty((len(obs), model.n_states))
    exact = _backward(model.transition, Bt, obs, amin, emin, beta)
    return beta, bool(exact)


def expected_counts(model, obs, floor):
    """One sequence's Baum-Welch E step with rescaled messages.

    Returns ``(log_likelihood, counts)`` where ``counts`` is ``(start, transition,
    emission)``: ``sum_t P(X_t = i, X_{t+1} = j | e)``, ``sum_{t: e_t = k} P(X_t = i | e)``
    and ``P(X_1 = i | e)``; ``counts`` is None where the rescaled recursions cannot be
    trusted (a term below ``FLOOR`` or a normaliser below ``floor``: redo in logarithms).
    Used in: Chapter 8, section "Learning the parameters: Baum-Welch".
    """
    At, Bt, amin, emin = _arrays(model)
    N = model.n_states
    alpha = np.empty((len(obs), N))
    ll, exact = _forward(model.start, At, Bt, obs, amin, emin, alpha)
    if not exact:
        return float(ll), None
    start, transition, emission = np.zeros(N), np.zeros((N, N)), np.zeros((model.n_symbols, N))
    if not _counts(model.transition, Bt, obs, amin, emin, alpha, floor, transition, emission, start):
        return float(ll), None
    return float(ll), (start, model.transition * transition, emission.T)


def viterbi(model, obs):
    """Most likely state sequence and its log joint probability, as
    :func:`lib.hmm.reference.viterbi` (the same first maximum at ties; ``-inf`` when no
    path can produce the sequence). Used in: Chapter 8, section "Making it fast"."""
    N = model.n_states
    with np.errstate(divide="ignore"):
        log_start, log_At, log_Bt = (np.log(model.start), np.log(model.transition.T),
                                     np.log(model.emission.T))
    kind = np.int8 if N <= 127 else np.int16 if N <= 32767 else np.int32
    back = np.empty((len(obs), N), dtype=kind)
    path = np.empty(len(obs), dtype=np.intp)
    log_p = _viterbi(log_start, np.ascontiguousarray(log_At), np.ascontiguousarray(log_Bt),
                     obs, back, path)
    return path, float(log_p)


def log_messages(model, obs, need_beta=True):
    """``(log_alpha, log_beta)``: unnormalised messages in logarithms (``log_beta`` is
    None without ``need_beta``), as :func:`lib.hmm.reference.forward_log` / ``backward_log``."""
    with np.errstate(divide="ignore"):
        log_start, log_A, log_Bt = (np.log(model.start), np.log(model.transition),
                                    np.ascontiguousarray(np.log(model.emission.T)))
    log_alpha = np.empty((len(obs), model.n_states))
    _forward_log(log_start, np.ascontiguousarray(log_A.T), log_Bt, obs, log_alpha)
    if not need_beta:
        return log_alpha, None
    log_beta = np.empty_like(log_alpha)
    _backward_log(log_A, log_Bt, obs, log_beta)
    return log_alpha, log_beta
