"""The plain recursions of Chapter 8, one time step per loop iteration.

These are the readable reference versions that the chapter shows next to the equations
(sections "Filtering: the forward algorithm", "Smoothing: the forward-backward
algorithm", "The most likely path: Viterbi" and "Baum-Welch, one step at a time");
:mod:`lib.hmm.fast` and :meth:`lib.hmm.HMM.fit` compute the same numbers faster. All functions take the model's arrays and the per-step likelihoods
``E[t, i] = P(e_t | X_t = i)`` (or their logarithms ``log_E``) of an already checked
observation sequence.

Two flavours:

* :func:`forward`, :func:`backward`: rescaled messages (each row sums to 1), as in the
  chapter; :func:`viterbi` works with logarithms.
* :func:`forward_log`, :func:`backward_log`: the same recursions entirely in
  logarithms (log-sum-exp at every step). Slower, but exact even when a product of
  probabilities falls below the smallest double (entries near 1e-200); the model uses
  them for such models and to confirm that a sequence is impossible.

:func:`baum_welch_step` and :func:`baum_welch` (EM for HMMs, built on :func:`forward`
and :func:`backward`) check their arguments, since a reader calls them directly.
:func:`match_states` finds which learned state is which true one (label switching).
"""
import numpy as np
from scipy.optimize import linear_sum_assignment

from lib._validation import (
    check_hmm,
    check_integers,
    check_items,
    check_scalar,
    check_stochastic_matrix,
)

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


# ---------------------------------------------------------------- Baum-Welch
def baum_welch_step(start, transition, emission, sequences):
    """One Baum-Welch (EM) iteration, one time step per loop iteration.

    E step: for every sequence, the forward and backward messages give the smoothed
    ``gamma[t, i] = P(X_t = i | e_1..e_T)`` and, for every ``t < T``, the pair posterior
    ``xi[i, j] = P(X_t = i, X_{t+1} = j | e_1..e_T)``; their sums over time are the
    expected counts. M step: every row of counts divided by its sum (a state with no
    expected visits keeps its old row). The messages are rescaled, as in
    :func:`forward`: fine unless products of probabilities fall below the smallest
    double (entries near 1e-200), where :meth:`lib.hmm.HMM.fit` switches to logarithms.

    Returns ``(start, transition, emission, log_likelihood)``: the updated parameters
    and the total log-likelihood of the sequences under the parameters *given*.
    Used in: Chapter 8, section "Baum-Welch, one step at a time".
    """
    start, transition, emission = check_hmm(start, transition, emission)
    sequences = check_sequences(sequences, emission.shape[1])
    n_states, n_symbols = emission.shape
    start_counts = np.zeros(n_states)
    transition_counts = np.zeros((n_states, n_states))
    emission_counts = np.zeros((n_states, n_symbols))
    total = 0.0
    for number, obs in enumerate(sequences):
        E = emission.T[obs]                                  # E[t, i] = P(e_t | X_t = i)
        alpha, log_likelihood = forward(start, transition, E)
        if log_likelihood == -np.inf:
            raise ValueError(f"sequences[{number}] has probability zero under the given "
                             "parameters: Baum-Welch cannot start from them")
        beta = backward(transition, E)
        gamma = alpha * beta
        gamma /= gamma.sum(axis=1, keepdims=True)
        for t in range(len(obs) - 1):
            xi = alpha[t][:, None] * transition * (E[t + 1] * beta[t + 1])[None, :]
            transition_counts += xi / xi.sum()
        for t, symbol in enumerate(obs):
            emission_counts[:, symbol] += gamma[t]
        start_counts += gamma[0]
        total += log_likelihood
    return (start_counts / start_counts.sum(), _rows(transition_counts, transition),
            _rows(emission_counts, emission), total)


def baum_welch(start, transition, emission, sequences, n_iter=100, tol=1e-6):
    """Baum-Welch: :func:`baum_welch_step` repeated, recording every iteration.

    Stops after ``n_iter`` updates, or earlier once an update gains less than ``tol``
    in log-likelihood (``tol=-inf``: never early). Returns ``(parameters,
    log_likelihoods)``: ``parameters[k]`` is the triple ``(start, transition,
    emission)`` after ``k`` updates (``parameters[0]`` the one given, ``parameters[-1]``
    the result), and ``log_likelihoods[k]`` the log-likelihood under ``parameters[k]``
    for every ``k`` but the last (as :meth:`lib.hmm.HMM.fit` records it). EM guarantees
    that the log-likelihoods never decrease.
    Used in: Chapter 8, section "Baum-Welch, one step at a time".

    >>> params, lls = baum_welch([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]],
    ...                          [[0.6, 0.4], [0.3, 0.7]], [[0, 0, 1, 1, 1, 0]], n_iter=5)
    >>> len(params), len(lls), bool(lls[0] <= lls[-1])
    (6, 5, True)
    """
    n_iter = check_scalar(n_iter, "n_iter", kind="integer", low=1)
    tol = check_scalar(tol, "tol", allow_inf=True)
    first = check_hmm(start, transition, emission)
    sequences = check_sequences(sequences, first[2].shape[1])
    parameters = [first]
    log_likelihoods = []
    for _ in range(n_iter):
        *updated, log_likelihood = baum_welch_step(*parameters[-1], sequences)
        parameters.append(tuple(updated))
        log_likelihoods.append(log_likelihood)
        if len(log_likelihoods) > 1 and log_likelihoods[-1] - log_likelihoods[-2] < tol:
            break
    return parameters, log_likelihoods


def match_states(emission, true_emission):
    """The permutation that best lines learned states up with true ones.

    EM does not know which state we call which: a learned model is only defined up to
    a relabelling of its states (label switching). ``order[i]`` is the learned state
    that plays the part of true state ``i``, chosen to minimise the total absolute
    difference between emission rows (:func:`scipy.optimize.linear_sum_assignment`).
    Show ``transition[np.ix_(order, order)]`` and ``emission[order]``.
    Used in: Chapter 8, section "Watching Baum-Welch learn".

    >>> match_states([[0.1, 0.9], [0.8, 0.2]], [[0.7, 0.3], [0.2, 0.8]]).tolist()
    [1, 0]
    """
    true_emission = check_stochastic_matrix(true_emission, "true_emission", shape=(None, None))
    emission = check_stochastic_matrix(emission, "emission", shape=true_emission.shape)
    cost = np.abs(true_emission[:, None, :] - emission[None, :, :]).sum(axis=2)
    return linear_sum_assignment(cost)[1]


def _rows(counts, previous):
    """Rows of ``counts`` divided by their sums; a row without counts keeps ``previous``."""
    sums = counts.sum(axis=1, keepdims=True)
    return np.where(sums > 0, counts / np.where(sums > 0, sums, 1.0), previous)


def check_symbols(obs, n_symbols, name="obs"):
    """``obs`` as a 1-D integer array of symbols in ``0 .. n_symbols-1`` (every function of
    :mod:`lib.hmm` that takes observations checks them with this)."""
    return check_integers(obs, name, what="symbols", high=n_symbols - 1, ndim=1)


def check_sequences(sequences, n_symbols, name="sequences"):
    """A non-empty list of observation sequences, each checked by :func:`check_symbols`
    (one 1-D array is refused: wrap it in a list)."""
    if isinstance(sequences, np.ndarray) and sequences.ndim == 1:
        raise TypeError(f"{name} must be a list of observation sequences, got one 1-D array "
                        "(wrap it in a list: [obs])")
    sequences = check_items(sequences, name, item="observation sequence", kinds=(object,))
    return [check_symbols(obs, n_symbols, f"{name}[{i}]") for i, obs in enumerate(sequences)]
