"""Sum-product recursions over long sequences by blocks that run side by side
(Chapter 8, "Making it fast"), the fast path of :mod:`lib.hmm.fast`.

The rescaled forward message forgets where it started: after a few steps of a mixing
chain, two starting distributions lead to the same normalised message. So the
sequence is cut into ``B`` blocks of ``L`` steps and all blocks run at once, one numpy
operation per step over a ``(B, N)`` array (the sequential work of the plain loop,
``T N^2``, but ``L`` loop iterations instead of ``T``). Block 0 starts from the true
message, every other block from a guess (uniform). Then the guesses are corrected:
each block restarts from the end message of the block before it and runs only until
its messages agree again with the stored ones (to 1e-13, entry by entry), checked at
steps 0, 1, 3, 7, ... of the block. A chain that forgets slowly needs more rounds;
after ``MAX_ROUNDS`` the caller falls back to exact block products.

With ``B = 1`` this is the plain recursion (used when ``N`` is large, where one step
is already a sizeable matrix product).
"""
import numpy as np

MAX_ROUNDS = 8
RTOL = 1e-13


def _checkpoints(L):
    return sorted({min(2 ** i - 1, L - 1) for i in range(int(np.log2(max(L, 1))) + 2)})


class NoForgetting(Exception):
    """The blocks did not agree after MAX_ROUNDS corrections."""


def scan(first, left, table, index, n_blocks, weigh_first, keep=True):
    """Normalised messages ``m_s``, ``s = 1..n``, of the recursion (column vectors)

    ``m_s ∝ table[index[s-1]] * (left @ m_{s-1})``  (``weigh_first=False``: forward,
    ``left = A.T``) or ``m_s ∝ left @ (table[index[s-1]] * m_{s-1})``
    (``weigh_first=True``: backward, ``left = A``), from the normalised ``first``.

    Returns ``(messages, log_norms)``: ``messages`` of shape ``(n + 1, N)``, ``first``
    and then the ``n`` messages in step order (None unless ``keep``) and, per block, the sum of the logs of its normalising
    constants (their total is the log of the growth from ``first``). Blocks live on
    the last axis, so that numpy's inner loops run over the many blocks.
    Raises :class:`NoForgetting`.
    """
    n, N = len(index), len(first)
    L = -(-n // n_blocks)
    B = -(-n // L)
    ext = np.ascontiguousarray(np.vstack([table, np.ones(N)]).T)   # (N, M + 1); padding weighs 1
    idx = np.full((L, B), len(table), dtype=np.intp)    # idx[k, b]: symbol at step k of block b
    idx[:, :B - 1] = index[:(B - 1) * L].reshape(B - 1, L).T
    idx[:n - (B - 1) * L, B - 1] = index[(B - 1) * L:]
    out = np.empty((1 + B * L, N)) if keep else None
    if keep:
        out[0] = first
    msgs = out[1:].reshape(B, L, N) if keep else None    # msgs[b, k]: step k of block b
    norms = np.empty((L, B))                           # normalising constant of every step
    marks = _checkpoints(L)
    stored = np.empty((len(marks), N, B))              # messages at the checkpoints

    def run(a, blocks, early):
        """Run ``blocks`` (a slice or an index array) from the messages ``a`` (N, b)."""
        j = 0
        for k in range(L):
            w = np.take(ext, idx[k, blocks], axis=1)
            if weigh_first:
                w *= a
                m = left @ w
            else:
                m = left @ a
                m *= w
            s = m.sum(axis=0)
            m /= s
            norms[k, blocks] = s
            if keep:
                msgs[blocks, k] = m.T
            if k == marks[j]:
                if early:
                    old = stored[j][:, blocks]
                    moving = ~np.all(np.abs(m - old) <= RTOL * old, axis=0)
                    if not moving.all():           # the others agree from here on
                        blocks, m = blocks[moving], m[:, moving]
                        if not blocks.size:
                            return
                stored[j][:, blocks] = m
                j += 1
            a = m

    starts = np.full((N, B), 1.0 / N)
    starts[:, 0] = first
    with np.errstate(divide="ignore", invalid="ignore"):  # (an impossible sequence gives NaN)
        return _corrected(run, starts, first, stored, norms, out, n, B, L, N, keep)


def _corrected(run, starts, first, stored, norms, out, n, B, L, N, keep):
    """The first pass and the correction rounds of :func:`scan`."""
    run(starts, slice(None), early=False)
    for _ in range(MAX_ROUNDS):
        wanted = np.column_stack([first, stored[-1][:, :-1]])   # end of the block before
        todo = np.flatnonzero(~np.all(np.abs(wanted - starts) <= RTOL * starts, axis=0))
        if not todo.size:
            break
        starts[:, todo] = wanted[:, todo]
        run(wanted[:, todo], todo, early=True)
    else:
        raise NoForgetting
    log_norms = np.log(norms, out=norms).sum(axis=0)
    return (out[:n + 1] if keep else None), log_norms
