"""The plain recursions of Chapter 8, one time step per loop iteration.

These are the readable reference versions that the chapter shows next to the equations
(sections "Filtering: the forward algorithm", "Smoothing: the forward-backward
algorithm" and "The most likely path: Viterbi"); :mod:`lib.hmm.fast` computes the same
numbers faster. All functions take the model's arrays and the per-step likelihoods
``E[t, i] = P(e_t | X_t = i)`` (or their logarithms ``log_E``) of an already checked
observation sequence.

Two flavours:

* :func:`forward`, :func:`backward`: rescaled messages (each row sums to 1), as in the
  chapter; :func:`viterbi` works with logarithms.
* :func:`forward_log`, :func:`backward_log`: the same recursions entirely in
  logarithms (log-sum-exp at every step). Slower, but exact even when a product of
  probabilities falls below the smallest double (entries near 1e-200); the model uses
  them for such models and to confirm that a sequence is impossible.
"""
import numpy as np

_TINY = np.finfo(float).tiny


def forward(start, transition, E):
    """Filtering: ``alpha[t, i] = P(X_t = i | e_1..e_t)`` and ``log P(e_1..e_T)``."""
    alpha = np.empty_like(E)
    log_likelihood = 0.0
    message = start * E[0]                                   # predict, then weigh
    for t in range(len(E)):
        if t > 0:
            message = (alpha[t - 1] @ transition) * E[t]
        total = message.sum()                                # P(e_t | e_1..e_{t-1})
        with np.errstate(divide="ignore"):
            log_likelihood += np.log(total)
        alpha[t] = message / max(total, _TINY)
    return alpha, log_likelihood


def backward(transition, E):
    """Backward messages proportional to ``P(e_{t+1}..e_T | X_t = i)``, rows summing to 1."""
    beta = np.empty_like(E)
    beta[-1] = 1.0 / E.shape[1]
    for t in range(len(E) - 1, 0, -1):
        message = transition @ (E[t] * beta[t])
        beta[t - 1] = message / max(message.sum(), _TINY)
    return beta


def viterbi(log_start, log_A, log_E):
    """The most likely state path and the log of its joint probability with the evidence."""
    best = log_start + log_E[0]                    # best log score ending in each state
    back = np.zeros(log_E.shape, dtype=np.intp)
    for t in range(1, len(log_E)):
        scores = best[:, None] + log_A             # scores[i, j]: come from i, go to j
        back[t] = scores.argmax(axis=0)
        best = scores.max(axis=0) + log_E[t]
    path = np.empty(len(log_E), dtype=np.intp)
    path[-1] = best.argmax()
    for t in range(len(log_E) - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return path, float(best.max())


# ---------------------------------------------------------------- in logarithms
def _log_matvec(log_v, log_M):
    """``log(exp(log_v) @ exp(log_M))`` without leaving log space."""
    scores = log_v[:, None] + log_M
    top = scores.max(axis=0)
    finite = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(scores - finite).sum(axis=0)) + finite


def forward_log(log_start, log_A, log_E):
    """``log P(X_t = i, e_1..e_t)`` for every ``t`` (unnormalised, in logarithms)."""
    log_alpha = np.empty_like(log_E)
    log_alpha[0] = log_start + log_E[0]
    for t in range(1, len(log_E)):
        log_alpha[t] = _log_matvec(log_alpha[t - 1], log_A) + log_E[t]
    return log_alpha


def backward_log(log_A, log_E):
    """``log P(e_{t+1}..e_T | X_t = i)`` for every ``t`` (in logarithms)."""
    log_beta = np.zeros_like(log_E)
    log_A_T = log_A.T
    for t in range(len(log_E) - 1, 0, -1):
        log_beta[t - 1] = _log_matvec(log_E[t] + log_beta[t], log_A_T)
    return log_beta
