"""Fast versions of the recursions of :mod:`lib.hmm.reference` (Chapter 8, "Making it
fast"): the same numbers with numpy operations over many time steps at once.

Which algorithm runs (``n = T - 1`` steps, ``N`` states):

* **forward, backward** (``log_likelihood``, ``filter``, ``smooth``, ``fit``): the
  sequence is cut into ``B`` blocks of ``L`` steps that run side by side
  (:func:`lib.hmm.scan.scan`): ``B = min(n / 64, 32768 / N^2)`` blocks (at least one),
  so blocks are at least 64 steps long and one step over all blocks handles about
  ``32768`` products. For small ``N`` and long sequences many blocks run at once; for
  large ``N`` the blocks are few and each step is a sizeable matrix product (``B = 1``
  is the plain recursion). Every block but
  the first starts from a guess that is then corrected, which works because rescaled
  messages forget their start. A chain that does not forget within a few blocks (a
  state that never changes) falls back to exact block products
  (:mod:`lib.hmm.products`, ``T N^3`` work).
* **Viterbi** (:func:`viterbi`): about ``4 sqrt(T)`` blocks (at most ``32768 / N^2``,
  of at least 64 steps) run the
  (max, +) recursion side by side from guessed scores, corrected in a few rounds; if
  they do not agree after ``MAX_ROUNDS`` rounds (a chain that rarely switches), the
  scores at the block starts come from exact (max, +) block products and the last
  state of every block from composed back pointers (``N^3`` work per step, so only up
  to ``EXACT_MAX_STATES`` states; with more, the plain recursion runs).

Every function takes a :class:`lib.hmm.HMM` (for its ``start``, ``transition`` and
``emission``) and an already checked observation sequence. Numbers are kept in range
by rescaling; :class:`lib.hmm.HMM` checks that no product underflowed and otherwise
redoes the sequence in logarithms.
"""
import numpy as np

from . import products, reference
from .scan import NoForgetting, _checkpoints, scan

_TINY = np.finfo(float).tiny
VITERBI_SHORTER = 4      # Viterbi uses about 4 sqrt(T) blocks
MAX_ROUNDS = 4           # Viterbi corrections before falling back to the plain loop
MIN_BLOCK = 64           # forward/backward/Viterbi blocks are at least this long
EXACT_MAX_STATES = 8     # Viterbi's exact fallback: block products up to 8 states, else the plain loop


def n_blocks(n_steps, n_states):
    """How many blocks the forward and backward passes use (see the module docstring)."""
    return int(max(1, min(n_steps // MIN_BLOCK, 32768 // n_states ** 2)))


def _first(model, obs):
    first = model.start * model.emission[:, obs[0]]
    return first, first / max(first.sum(), _TINY)


def log_likelihood(model, obs):
    """``log P(e_1..e_T)`` (only the normalising constants are kept)."""
    first, head = _first(model, obs)
    with np.errstate(divide="ignore"):
        if len(obs) == 1 or not first.sum() > 0:
            return float(np.log(first.sum()))
        try:
            _, log_norms = scan(head, np.ascontiguousarray(model.transition.T), model.emission.T,
                                obs[1:], n_blocks(len(obs) - 1, len(head)), False, keep=False)
        except NoForgetting:
            return products.log_likelihood(model, obs)
        return float(np.log(first.sum()) + log_norms.sum())


def forward(model, obs):
    """Filtered distributions and log-likelihood, as :func:`lib.hmm.reference.forward`."""
    first, head = _first(model, obs)
    with np.errstate(divide="ignore"):
        if len(obs) == 1 or not first.sum() > 0:
            return head[None], float(np.log(first.sum()))
        try:
            alpha, log_norms = scan(head, np.ascontiguousarray(model.transition.T), model.emission.T,
                                    obs[1:], n_blocks(len(obs) - 1, len(head)), False)
        except NoForgetting:
            return products.forward(model, obs)
        return alpha, float(np.log(first.sum()) + log_norms.sum())


def backward(model, obs):
    """Backward messages, rows summing to 1, as :func:`lib.hmm.reference.backward`."""
    N = model.n_states
    uniform = np.full(N, 1.0 / N)
    if len(obs) == 1:
        return uniform[None]
    steps, _ = scan(uniform, model.transition, model.emission.T, obs[:0:-1],
                    n_blocks(len(obs) - 1, N), True)
    return steps[::-1]                                   # (messages from the end backwards)


def forward_backward_many(model, seqs):
    """``[(alpha, beta, log_likelihood), ...]``, one per checked sequence."""
    results = []
    for obs in seqs:
        try:
            alpha, ll = forward(model, obs)
            if not np.isfinite(ll):
                raise NoForgetting             # (an impossible sequence: the exact way)
            results.append((alpha, backward(model, obs), ll))
        except NoForgetting:
            results.append(products.forward_backward_many(model, [obs])[0])
    return results


def _exact_starts(first, Eb, log_A):
    """Viterbi scores at the start of every block, exactly (up to a constant): the
    (max, +) product of each block's step matrices, then one pass over the blocks.
    ``N^3`` work per step: the way for chains that do not forget their start."""
    N, L, B = Eb.shape
    P = np.full((N, N, B), -np.inf)                      # P[i, j, b], the (max, +) identity
    P[np.arange(N), np.arange(N)] = 0.0
    for k in range(L):
        P = (P[:, :, None, :] + log_A[None, :, :, None]).max(axis=1) + Eb(k)[None]
    starts = np.empty((N, B))
    starts[:, 0] = v = first
    for b in range(B - 1):
        v = (v[:, None] + P[:, :, b]).max(axis=0)
        top = v.max()
        v = v - top if np.isfinite(top) else v
        starts[:, b + 1] = v
    return starts


def _exact_ends(D, log_A, r):
    """The last state of the best path in every block, exactly: for every block the map
    from its last state to its first one (back pointers composed over the block), then
    one pass over the blocks from the end."""
    L, N, B = D.shape
    first_of = np.repeat(np.arange(N)[:, None], B, axis=1)   # first_of[s, b]
    for k in range(L - 1, 0, -1):
        pointer = _argmax0(D[k - 1][:, None, :] + log_A[:, :, None])   # (N, B)
        first_of = np.take_along_axis(pointer, first_of, axis=0)
        if k > r - 1:                                   # the last block ends at step r - 1
            first_of[:, -1] = np.arange(N)
    end = np.empty(B, dtype=np.intp)
    end[-1] = D[r - 1, :, -1].argmax()
    for b in range(B - 1, 0, -1):
        s0 = first_of[end[b], b]
        end[b - 1] = (D[L - 1, :, b - 1] + log_A[:, s0]).argmax()
    return end


def _argmax0(x):
    """``x.argmax(axis=0)`` (first maximum), quicker for few rows than numpy's own."""
    if len(x) > 16:
        return x.argmax(axis=0)
    best, where = x[0].copy(), np.zeros(x.shape[1:], dtype=np.intp)
    for i in range(1, len(x)):
        better = x[i] > best
        where[better] = i
        np.maximum(best, x[i], out=best)
    return where


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

    With ``stop_early``, a block stops at the first checkpoint (steps 0, 1, 3, 7, ...)
    where its new scores equal the stored ones up to a constant: from there on the
    stored scores are right. Returns how many blocks ran to their end.
    """
    N, L, B = Eb.shape
    marks = set(_checkpoints(L))
    blocks = np.arange(B)
    buffer = np.empty((N, N, B))                        # scores[i, j, b]: from i to j
    d = starts
    for k in range(L):
        if k == r:                                      # the last block has ended
            keep = blocks < B - 1
            blocks, d = blocks[keep], d[:, keep]
        full = len(blocks) == B or (k >= r and len(blocks) == B - 1)
        cols = slice(0, len(blocks)) if full else blocks
        scores = np.add(d[:, None, :], log_A[:, :, None], out=buffer[:, :, :len(blocks)])
        new = scores.max(axis=0)
        new += Eb(k, cols)
        if stop_early and k in marks:
            moving = ~_parallel(new, D[k][:, cols])
            if not moving.all():
                blocks, new = blocks[moving], new[:, moving]
                cols = blocks
                if not blocks.size:
                    return 0
        D[k][:, cols] = new
        d = new
    return len(blocks)


def _trace_back(D, log_A, path, last, end, todo):
    """Trace the best path back again through the blocks ``todo`` from their corrected
    last states ``end``; each stops as soon as it joins its previous trace."""
    live = np.zeros(path.shape[1], dtype=bool)
    live[todo] = True
    state = end.copy()
    for k in range(path.shape[0] - 1, -1, -1):
        active = np.flatnonzero(live & (last >= k))    # the last block may be shorter
        going = active[last[active] > k]               # blocks already being traced
        if going.size:
            state[going] = _argmax0(D[k][:, going] + log_A[:, path[k + 1, going]])
            joined = going[state[going] == path[k, going]]
            if joined.size:
                live[joined] = False
                active = active[live[active]]
        if not live.any():
            return
        path[k, active] = state[active]


def viterbi_blocks(n_steps, n_states):
    """How many blocks Viterbi uses: about ``4 sqrt(n)``, blocks of at least 64 steps, and
    at most ``32768 / N^2`` of them (one step handles an ``(N, N, B)`` array)."""
    return int(max(1, min(VITERBI_SHORTER * np.sqrt(n_steps), n_steps // MIN_BLOCK,
                           32768 // n_states ** 2)))


class _StepScores:
    """``table[:, obs[1 + b L + k]]`` for step ``k`` of blocks ``cols``, looked up when
    needed (no ``T x N`` array); ``shape`` is ``(N, L, B)``."""

    def __init__(self, table, index):
        self.table, self.index = table, index            # index[k, b]: the symbol
        self.shape = (table.shape[0],) + index.shape

    def __call__(self, k, cols=slice(None)):
        return np.take(self.table, self.index[k, cols], axis=1)


def _blocked(model, obs, table):
    """The step scores of every block (:class:`_StepScores`) and the sizes ``(B, L, r)``."""
    n = len(obs) - 1
    L = -(-n // viterbi_blocks(n, model.n_states))
    B = -(-n // L)
    r = n - (B - 1) * L
    index = np.zeros((B, L), dtype=np.intp)              # index[b, k] = obs[1 + b L + k]
    index.reshape(-1)[:n] = obs[1:]
    return _StepScores(table, np.ascontiguousarray(index.T)), (B, L, r)


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
    Eb, (B, L, r) = _blocked(model, obs, log_B)
    last = np.full(B, L - 1)
    last[-1] = r - 1                                    # last step of each block
    # forward scores D[k, :, b], right up to a constant per (k, b)
    starts = np.zeros((N, B))
    starts[:, 0] = first
    D = np.empty((L, N, B))
    _viterbi_steps(starts, D, Eb, log_A, r, stop_early=False)
    exact = False                                       # scores from exact block products?
    for attempt in range(MAX_ROUNDS + 1):
        wanted = np.column_stack([first, D[last[:-1], :, np.arange(B - 1)].T])
        if _parallel(wanted, starts).all():
            break
        starts = wanted
        moving = _viterbi_steps(starts, D, Eb, log_A, r, stop_early=True)
        if attempt == MAX_ROUNDS or (N <= EXACT_MAX_STATES and moving > B // 8):
            # scores that do not forget their start (a chain that rarely switches)
            if N > EXACT_MAX_STATES:                    # (N^3 per step would cost more)
                with np.errstate(divide="ignore"):
                    return reference.viterbi(np.log(model.start), log_A, log_B.T[obs])
            _viterbi_steps(_exact_starts(first, Eb, log_A), D, Eb, log_A, r, stop_early=True)
            exact = True
            break
    # trace back: D[k, :, b] + log_A[:, j] scores the predecessors of state j
    # (after exact block products the traces will not join either: compose pointers at once)
    end = _exact_ends(D, log_A, r) if exact else _argmax0(D[last, :, np.arange(B)].T)
    path = np.empty((L, B), dtype=np.intp)
    state = end.copy()
    for k in range(L - 1, -1, -1):
        if k < L - 1:                                   # best predecessor at step k
            state = _argmax0(D[k] + log_A[:, state])
        if k == r - 1:                                  # the last block ends here
            state[-1] = end[-1]
        path[k] = state
    for attempt in range(0 if exact else MAX_ROUNDS + 1):   # correct the guesses
        before = _argmax0(D[last[:-1], :, np.arange(B - 1)].T + log_A[:, path[0, 1:]])
        todo = np.flatnonzero(before != end[:-1])
        if not todo.size:
            break
        end[todo] = before[todo]
        _trace_back(D, log_A, path, last, end, todo)
    else:      # traces that do not join within a block
        if not exact:
            end = _exact_ends(D, log_A, r)
            _trace_back(D, log_A, path, last, end, np.arange(B))
    del D, Eb                                           # (only the path is needed now)
    state_0 = int((first + log_A[:, path[0, 0]]).argmax())
    states = np.empty(1 + B * L, dtype=np.intp)
    states[0] = state_0
    states[1:].reshape(B, L)[...] = path.T
    states = states[:T]
    log_p = (first[state_0] + np.take(log_A, states[:-1] * N + states[1:]).sum()      # (flat
             + np.take(log_B, states[1:] * log_B.shape[1] + obs[1:]).sum())      #  indices)
    return states, float(log_p)

