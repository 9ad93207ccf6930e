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
* :func:`log_messages`: the forward and backward recursions in logarithms, for the
  sequences where the rescaled ones may have lost precision (see below).

The rescaled loops report whether their result is exact: every positive message entry
(before rescaling) is at least ``SAFE = 1e-280``, so that terms lost to underflow
(each below ``1e-308``) change it by a relative ``1e-28`` at most, and an entry that
came out zero is zero for certain (no positive product of the step could have vanished:
smallest message entry times smallest transition (and emission) at least ``1e-300``).
Only then does :class:`lib.hmm.HMM` keep the result; otherwise it redoes the sequence
with :func:`log_messages`. This happens only where some state's share of a message
falls below about 1e-280 (entries near 1e-200 in the model, say), not on ordinary models.

Output arrays are allocated with numpy before the compiled loop runs; a loop allocates
nothing but a few length-``N`` vectors. Compiled code is cached on disk next to this
file when that is writable (else numba compiles in memory, once per process: about a
second for all loops).
"""
import numba
import numpy as np

FLOOR = 1e-300          # a positive product above this cannot have vanished by underflow
SAFE = 1e-280           # a positive message entry (before rescaling) above this is exact


def _jit(fn=None, **options):
    """``numba.njit`` with an on-disk cache, or without one where no cache directory is
    writable (a read-only installation: numba then compiles once per process)."""
    if fn is None:
        return lambda f: _jit(f, **options)
    try:
        return numba.njit(cache=True, nogil=True, **options)(fn)
    except RuntimeError:                    # "cannot cache function ...: no locator available"
        return numba.njit(nogil=True, **options)(fn)


def _min_positive(v):
    lo = np.inf
    for x in v:
        if 0.0 < x < lo:
            lo = x
    return lo


min_positive = _jit(_min_positive, inline="always")


@_jit(inline="always")
def _vanished(prev, low):
    """Could a positive product have underflowed to zero? (``min prev * low < FLOOR``)"""
    return min_positive(prev) * low < FLOOR


@_jit
def _forward(start, At, Bt, obs, amin, alpha):
    """Rescaled forward pass into ``alpha`` (``T x N``, or ``2 x N`` to keep only the
    last two rows). Returns ``(log_likelihood, exact)``; exact is False when an entry
    (before rescaling) is positive but below ``SAFE``, or zero but maybe by underflow."""
    N, T, keep = len(start), len(obs), len(alpha) == len(obs)
    exact, total, o = True, 0.0, obs[0]
    for j in range(N):
        x = start[j] * Bt[o, j]
        alpha[0, j] = x
        total += x
        if x < SAFE and start[j] > 0.0 and Bt[o, j] > 0.0:
            exact = False
    ll = 0.0
    for t in range(T):
        r = t if keep else t & 1
        if t > 0:
            p, o, total = r - 1 if keep else 1 - r, obs[t], 0.0
            for j in range(N):
                s = 0.0
                for i in range(N):
                    s += alpha[p, i] * At[j, i]
                x = s * Bt[o, j]
                alpha[r, j] = x
                total += x
                if x < SAFE and Bt[o, j] > 0.0 and exact:
                    exact = s == 0.0 and not _vanished(alpha[p], amin)
        if not total > 0.0:
            return -np.inf, False
        inv = 1.0 / total
        for j in range(N):
            alpha[r, j] *= inv
        ll += np.log(total)
    return ll, exact


@_jit(inline="always")
def _backward_step(A, Bt, o, beta, w, out, amin, bmin):
    """``out = A @ (b * beta)`` (not rescaled, ``w = b * beta``, ``b`` the emission of
    symbol ``o``); returns ``(total, exact)``."""
    N = len(beta)
    for j in range(N):
        w[j] = Bt[o, j] * beta[j]
    total, exact = 0.0, True
    for i in range(N):
        s = 0.0
        for j in range(N):
            s += A[i, j] * w[j]
        out[i] = s
        total += s
        if s < SAFE and exact:
            exact = s == 0.0 and not _vanished(beta, bmin * amin)
    return total, exact


@_jit
def _backward(A, Bt, obs, amin, emin, beta):
    """Rescaled backward messages into ``beta`` (``T x N``, rows summing to 1).
    Returns ``exact`` (False also for messages that vanish)."""
    N, T = A.shape[0], len(obs)
    exact, w, out = True, np.empty(N), np.empty(N)
    beta[T - 1] = 1.0 / N
    for t in range(T - 1, 0, -1):
        total, ok = _backward_step(A, Bt, obs[t], beta[t], w, out, amin, emin[obs[t]])
        exact = exact and ok
        if not total > 0.0:
            beta[:t] = 0.0
            return False
        inv = 1.0 / total
        for i in range(N):
            beta[t - 1, i] = out[i] * inv
    return exact


@_jit
def _counts(A, Bt, obs, amin, emin, alpha, floor, transition, emission, start):
    """Add one sequence's expected counts (transition ``N x N`` before multiplying by
    ``A``, emission ``M x N``, start ``N``), from its forward messages ``alpha``.
    Returns False (counts incomplete) where the backward messages lost precision or a
    normaliser fell below ``floor``."""
    N, T = A.shape[0], len(obs)
    beta, w, g = np.full(N, 1.0 / N), np.empty(N), np.empty(N)
    total = 0.0
    for i in range(N):                          # the last step: gamma = alpha
        total += alpha[T - 1, i]
    for i in range(N):
        emission[obs[T - 1], i] += alpha[T - 1, i] / total
    for t in range(T - 1, 0, -1):
        total, ok = _backward_step(A, Bt, obs[t], beta, w, g, amin, emin[obs[t]])
        norm = 0.0                              # norm = sum_ij alpha_i A_ij w_j
        for i in range(N):
            norm += alpha[t - 1, i] * g[i]
        if not ok or norm < floor or not total > 0.0:
            return False
        inv_norm, inv_total, o = 1.0 / norm, 1.0 / total, obs[t - 1]
        for i in range(N):                      # xi_{t-1}(i, j) = alpha_i A_ij w_j / norm
            a = alpha[t - 1, i] * inv_norm
            if a != 0.0:
                for j in range(N):
                    transition[i, j] += a * w[j]
            emission[o, i] += a * g[i]          # gamma_{t-1} = alpha * beta / norm
            beta[i] = g[i] * inv_total
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
    best = np.empty((2, N))                     # scores at the previous and this step
    for j in range(N):
        best[0, j] = log_start[j] + log_Bt[obs[0], j]
    for t in range(1, T):
        p, r, o = (t - 1) & 1, t & 1, obs[t]
        for j in range(N):
            top, arg = best[p, 0] + log_At[j, 0], 0
            for i in range(1, N):
                s = best[p, i] + log_At[j, i]
                if s > top:                     # the first maximum, as numpy's argmax
                    top, arg = s, i
            best[r, j] = top + log_Bt[o, j]
            back[t, j] = arg
    r = (T - 1) & 1
    state, top = 0, best[r, 0]
    for j in range(1, N):
        if best[r, j] > top:
            state, top = j, best[r, j]
    path[T - 1] = state
    for t in range(T - 1, 0, -1):
        state = back[t, state]
        path[t - 1] = state
    return top


@_jit
def _forward_log(log_start, At, log_At, log_Bt, obs, log_alpha):
    """``log P(X_t = i, e_1..e_t)`` into ``log_alpha`` (as :func:`lib.hmm.reference.forward_log`).

    Each step shifts the previous row by its maximum ``top`` and sums
    ``exp(row - top) @ A`` with ordinary products (``N`` exponentials, not ``N^2``);
    an entry whose sum is below ``SAFE`` (terms may have underflowed) is recomputed
    with a log-sum-exp over its own terms."""
    N, T = len(log_start), len(obs)
    e = np.empty(N)
    for j in range(N):
        log_alpha[0, j] = log_start[j] + log_Bt[obs[0], j]
    for t in range(1, T):
        top = -np.inf
        for i in range(N):
            top = max(top, log_alpha[t - 1, i])
        for i in range(N):
            e[i] = np.exp(log_alpha[t - 1, i] - top) if top > -np.inf else 0.0
        for j in range(N):
            s = 0.0
            for i in range(N):
                s += e[i] * At[j, i]
            if s >= SAFE:
                log_alpha[t, j] = np.log(s) + top + log_Bt[obs[t], j]
            else:
                log_alpha[t, j] = _log_dot(log_alpha, t - 1, log_At, j) + log_Bt[obs[t], j]


@_jit
def _backward_log(A, log_A, log_Bt, obs, log_beta):
    """``log P(e_{t+1}..e_T | X_t = i)`` into ``log_beta`` (as :func:`lib.hmm.reference.backward_log`),
    the same way as :func:`_forward_log`."""
    N, T = A.shape[0], len(obs)
    w, e = np.empty((1, N)), np.empty(N)
    log_beta[T - 1] = 0.0
    for t in range(T - 1, 0, -1):
        top = -np.inf
        for j in range(N):
            w[0, j] = log_Bt[obs[t], j] + log_beta[t, j]
            top = max(top, w[0, j])
        for j in range(N):
            e[j] = np.exp(w[0, j] - top) if top > -np.inf else 0.0
        for i in range(N):
            s = 0.0
            for j in range(N):
                s += A[i, j] * e[j]
            log_beta[t - 1, i] = np.log(s) + top if s >= SAFE else _log_dot(w, 0, log_A, i)


@_jit(inline="always")
def _log_dot(x, r, y, s):
    """``log(sum_i exp(x[r, i] + y[s, i]))``, stable, ``-inf`` for an empty sum."""
    top = -np.inf
    for i in range(x.shape[1]):
        top = max(top, x[r, i] + y[s, i])
    if top == -np.inf:
        return -np.inf
    total = 0.0
    for i in range(x.shape[1]):
        total += np.exp(x[r, i] + y[s, i] - top)
    return top + np.log(total)


# ------------------------------------------------------------------ what the model calls
def _arrays(model):
    """The model's arrays in the layouts the loops read row by row, and the smallest
    positive transition and per-symbol emission (for the test that a zero is exact)."""
    A, E = model.transition, model.emission
    amin = float(np.min(A, initial=np.inf, where=A > 0))
    emin = np.min(E, axis=0, initial=np.inf, where=E > 0)
    return np.ascontiguousarray(A.T), np.ascontiguousarray(E.T), amin, emin


def log_likelihood(model, obs):
    """``(log P(e_1..e_T), exact)``; only two rows of forward messages are kept."""
    At, Bt, amin, emin = _arrays(model)
    ll, exact = _forward(model.start, At, Bt, obs, amin, np.empty((2, model.n_states)))
    return float(ll), bool(exact)


def forward(model, obs):
    """``(alpha, log_likelihood, exact)``: the filtered distributions (rows of zeros
    after an impossible step), as :func:`lib.hmm.reference.forward`."""
    At, Bt, amin, emin = _arrays(model)
    alpha = np.zeros((len(obs), model.n_states))
    ll, exact = _forward(model.start, At, Bt, obs, amin, alpha)
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
    trusted (a message entry that lost precision, or a normaliser below ``floor``: redo
    in logarithms).
    Used in: Chapter 8, section "Learning the parameters: Baum-Welch".
    """
    At, Bt, amin, emin = _arrays(model)
    N = model.n_states
    alpha = np.empty((len(obs), N))
    ll, exact = _forward(model.start, At, Bt, obs, amin, alpha)
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
    A = model.transition
    with np.errstate(divide="ignore"):
        log_start, log_A, log_Bt = (np.log(model.start), np.log(A),
                                    np.ascontiguousarray(np.log(model.emission.T)))
    log_alpha = np.empty((len(obs), model.n_states))
    _forward_log(log_start, np.ascontiguousarray(A.T), np.ascontiguousarray(log_A.T), log_Bt, obs, log_alpha)
    if not need_beta:
        return log_alpha, None
    log_beta = np.empty_like(log_alpha)
    _backward_log(A, log_A, log_Bt, obs, log_beta)
    return log_alpha, log_beta
