"""The :class:`HMM` estimator of Chapter 8: checks its inputs, then runs the fast
recursions of :mod:`lib.hmm.fast` (or, where products could underflow, the log-space
ones of :mod:`lib.hmm.reference`). Its ``*_plain`` methods run the reference versions
that the chapter shows.

Which implementation runs:

* ``forward``/``filter``/``log_likelihood``/``backward``/``smooth``/``fit`` use the fast
  rescaled recursions, and keep their result when no term of any step can have
  fallen below 1e-300 (so nothing was lost to underflow): either by construction (every
  transition possible and the smallest transition and emission ratios far from zero,
  :meth:`HMM._safe_by_construction`), or as checked afterwards on the messages
  (:meth:`HMM._exact`: smallest positive message entry times the smallest step factors).
  Otherwise (entries near 1e-200, or evidence that drives a state's share that low)
  the sequence is redone with the recursions in logarithms, which agree with log-space
  enumeration.
* ``viterbi`` works with logarithms throughout.

Evidence of probability zero (no state path can produce the sequence) raises
:class:`ImpossibleEvidenceError` (a ``ValueError``) from ``filter``, ``forward``,
``backward``, ``smooth``, ``viterbi``, ``predict``, ``predict_proba`` and ``fit``;
``log_likelihood`` returns ``-inf`` for it, which is its exact value.
"""
import numpy as np
from scipy.special import logsumexp

from lib._validation import (NotFittedError, check_array, check_probability_vector, check_rng,
                             check_scalar, check_stochastic_matrix, describe)

from . import fast, reference

_LOG_FLOOR_TERM = np.log(1e-300)   # every positive product in a recursion stays above this
_FLOOR_PRODUCT = 1e-280             # smallest sum of alpha * beta (or of xi) trusted


class ImpossibleEvidenceError(ValueError):
    """The observations have probability zero under the model."""


# ---------------------------------------------------------------------- checks
def _check_symbols(obs, n_symbols, name="obs"):
    """``obs`` as a 1-D integer array of symbols in ``0 .. n_symbols-1``."""
    a = check_array(obs, name, ndim=1, dtype=None)
    if a.dtype.kind == "b":
        raise TypeError(f"{name} must hold integer symbols 0..{n_symbols - 1}, got booleans")
    if a.dtype.kind == "f" and np.any(a != np.round(a)):
        raise ValueError(f"{name} must hold integer symbols 0..{n_symbols - 1}, "
                         f"got {describe(a[a != np.round(a)][0])}")
    if a.min() < 0 or a.max() >= n_symbols:
        raise ValueError(f"{name} must hold symbols in 0..{n_symbols - 1}, "
                         f"got values from {a.min():g} to {a.max():g}")
    return a.astype(np.intp, copy=False)


def _impossible(model, obs, log_alpha=None):
    """The error for a sequence of probability zero, naming the first impossible step."""
    if log_alpha is None:
        log_alpha = model._log_forward(obs)
    t = int(np.argmax(np.all(np.isneginf(log_alpha), axis=1)))
    after = f" after the {t} symbols before it" if t else " as the first symbol"
    return ImpossibleEvidenceError(
        f"obs has probability zero under this model: no state path can produce symbol "
        f"{obs[t]} at position {t}{after}")


def _gamma(alpha, beta, logs, out=None):
    """Smoothed ``P(X_t = i | e_1..e_T)`` from rescaled messages (into ``out`` if given)
    or, when ``logs`` is given, from the unnormalised log messages ``(log_alpha, log_beta)``."""
    if logs is None:
        gamma = np.multiply(alpha, beta, out=out)
        gamma /= gamma.sum(axis=1, keepdims=True)
        return gamma
    log_gamma = logs[0] + logs[1]
    return np.exp(log_gamma - logsumexp(log_gamma, axis=1, keepdims=True))


def _row_dots(left, matrix, right, chunk=1 << 16):
    """``(left[t] @ matrix) . right[t]`` for every row ``t``, a chunk of rows at a time
    (no temporary as large as ``left``)."""
    out = np.empty(len(left))
    for s in range(0, len(left), chunk):
        out[s:s + chunk] = np.einsum("ti,ti->t", left[s:s + chunk] @ matrix, right[s:s + chunk])
    return out


def _min_positive(m):
    """The smallest positive entry of each row of ``m`` (``inf`` for a row of zeros)."""
    return np.where(m > 0, m, np.inf).min(axis=1)


def _normalise_rows(counts, previous):
    """Rows of ``counts`` divided by their sums; a row with no counts keeps ``previous``."""
    sums = counts.sum(axis=1, keepdims=True)
    return np.where(sums > 0, counts / np.where(sums > 0, sums, 1.0), previous)


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
        self._set_parameters(start, transition, emission)

    def _set_parameters(self, start, transition, emission):
        start = check_probability_vector(start, "start")
        n = len(start)
        transition = check_stochastic_matrix(transition, "transition", shape=(n, n))
        emission = check_stochastic_matrix(emission, "emission", shape=(n, None))
        self.start = start / start.sum()                    # exactly normalised
        self.transition = transition / transition.sum(axis=1, keepdims=True)
        self.emission = emission / emission.sum(axis=1, keepdims=True)

    @property
    def n_states(self):
        return len(self.start)

    @property
    def n_symbols(self):
        return self.emission.shape[1]

    def __repr__(self):
        return f"HMM(n_states={self.n_states}, n_symbols={self.n_symbols})"

    def __getattr__(self, name):            # only called for attributes that do not exist
        if name in ("log_likelihoods_", "n_iter_"):
            raise NotFittedError(f"This HMM has no {name} yet: it is set by fit(sequences); "
                                 "call fit first")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _likelihoods(self, obs):
        """``E[t, i] = P(e_t | X_t = i)`` for a checked sequence."""
        return np.ascontiguousarray(self.emission.T)[obs]

    def _logs(self, obs):
        with np.errstate(divide="ignore"):
            return np.log(self.start), np.log(self.transition), np.log(self.emission.T)[obs]

    def _safe_by_construction(self):
        """True when no rescaled message can have a positive entry that is tiny: every
        transition is possible (so every state keeps at least ``min A * (smallest emission
        ratio)`` of the message at every step) and these bounds keep every term of every
        step far above the smallest double. Then nothing needs checking afterwards."""
        A, E = self.transition, self.emission
        if not np.all(A > 0):
            return False
        top = E.max(axis=0)
        positive = np.where(E > 0, E, np.inf)
        used = top > 0
        ratio = (positive.min(axis=0)[used] / top[used]).min()
        return 2 * np.log(A.min()) + np.log(ratio) + np.log(positive.min()) >= _LOG_FLOOR_TERM + 46

    def _exact(self, obs, alpha, beta, ll):
        """Are the rescaled messages free of underflow? True when every positive term
        ``alpha_t(i) A_ij E_{t+1}(j)`` (and ``A_ij E_{t+1}(j) beta_{t+1}(j)``) of every
        step was at least 1e-300, so no term was lost or rounded as a subnormal, and the
        products ``alpha * beta`` behind the smoothed marginals are not too small."""
        if not np.isfinite(ll) or not np.all(np.isfinite(alpha)):
            return False                         # (an impossible sequence is confirmed in logs)
        with np.errstate(divide="ignore"):
            log_E = np.log(_min_positive(self.emission.T))        # per symbol
            log_A = np.log(_min_positive(self.transition.ravel()[None]))[0]
            if np.log(_min_positive(self.start[None]))[0] + log_E[obs[0]] < _LOG_FLOOR_TERM:
                return False
            step = log_A + log_E[obs[1:]]
            for m in (alpha, beta):
                if m is not None and np.any(np.log(_min_positive(m[:-1] if m is alpha else m[1:]))
                                            + step < _LOG_FLOOR_TERM):
                    return False
        if beta is None:
            return True
        return bool(np.all(np.isfinite(beta))) and (alpha * beta).sum(axis=1).min() >= _FLOOR_PRODUCT

    # ------------------------------------------------------------------ sampling
    def sample(self, n_steps, rng=None):
        """Draw ``(states, symbols)``, two integer arrays of length ``n_steps``.

        Used in: Chapter 8, section "The occasionally dishonest casino".
        """
        n_steps = check_scalar(n_steps, "n_steps", kind="integer", low=1)
        rng = check_rng(rng)
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
        """Filtering one time step at a time (:func:`lib.hmm.reference.forward`).

        Returns ``(alpha, log_likelihood)`` where ``alpha[t, i] = P(X_t = i | e_1..e_t)``
        and ``log_likelihood = log P(e_1..e_T)``. Same numbers as :meth:`forward`
        (for models whose products stay above the smallest double).
        Used in: Chapter 8, section "Filtering: the forward algorithm".
        """
        obs = _check_symbols(obs, self.n_symbols)
        return reference.forward(self.start, self.transition, self._likelihoods(obs))

    def backward_plain(self, obs):
        """Backward messages one time step at a time (:func:`lib.hmm.reference.backward`).

        Used in: Chapter 8, section "Smoothing: the forward-backward algorithm".
        """
        obs = _check_symbols(obs, self.n_symbols)
        return reference.backward(self.transition, self._likelihoods(obs))

    def viterbi_plain(self, obs):
        """The most likely path one time step at a time (:func:`lib.hmm.reference.viterbi`).

        Returns ``(path, log_probability)``. Same result as :meth:`viterbi`, except that
        it does not refuse impossible evidence (it returns ``-inf``).
        Used in: Chapter 8, section "The most likely path: Viterbi".
        """
        obs = _check_symbols(obs, self.n_symbols)
        return reference.viterbi(*self._logs(obs))

    # -------------------------------------------------------------- fast versions
    def _log_forward(self, obs):
        return reference.forward_log(*self._logs(obs))

    def _forward_backward_many(self, seqs, need_beta=True):
        """``[(alpha, beta, log_likelihood, logs), ...]`` for checked sequences.

        ``alpha`` and ``beta`` have rows summing to 1 (``beta`` is None without
        ``need_beta``). ``logs`` is None where the fast rescaled recursions were exact;
        otherwise the sequence was redone in logarithms and ``logs`` holds
        ``(log_alpha, log_beta)`` (unnormalised). An impossible sequence has
        ``log_likelihood == -inf``.
        """
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if need_beta:
                results = [r + (None,) for r in fast.forward_backward_many(self, seqs)]
            else:
                results = [(alpha, None, ll, None) for alpha, ll in (fast.forward(self, o) for o in seqs)]
        safe = self._safe_by_construction()
        for i, obs in enumerate(seqs):
            if (safe and np.isfinite(results[i][2]) and self._first_is_exact(obs)) \
                    or self._exact(obs, *results[i][:3]):
                continue
            log_alpha, log_beta = self._log_messages(obs, need_beta)
            ll = float(logsumexp(log_alpha[-1]))
            if not np.isfinite(ll):
                results[i] = (log_alpha, None, -np.inf, None)
                continue
            beta = None if log_beta is None else np.exp(log_beta - logsumexp(log_beta, axis=1, keepdims=True))
            results[i] = (np.exp(log_alpha - logsumexp(log_alpha, axis=1, keepdims=True)), beta, ll,
                          (log_alpha, log_beta))
        return results

    def _log_messages(self, obs, need_beta=True):
        """``(log_alpha, log_beta)``: the unnormalised messages, in logarithms."""
        log_start, log_A, log_E = self._logs(obs)
        log_alpha = reference.forward_log(log_start, log_A, log_E)
        if not need_beta or not np.isfinite(log_alpha[-1]).any():
            return log_alpha, None
        return log_alpha, reference.backward_log(log_A, log_E)

    def _log_transition_counts(self, obs, log_alpha, log_beta):
        """``sum_t P(X_t = i, X_{t+1} = j | e)`` from the log messages, chunk by chunk."""
        _, log_A, log_E = self._logs(obs)
        before, after = log_alpha[:-1], log_E[1:] + log_beta[1:]
        total = logsumexp(log_alpha[-1])
        counts = np.zeros_like(log_A)
        for s in range(0, len(obs) - 1, 4096):
            x = before[s:s + 4096, :, None] + log_A + after[s:s + 4096, None, :]
            counts += np.exp(x - total).sum(axis=0)
        return counts

    def _first_is_exact(self, obs):
        """The first step's products ``start_i * E_1(i)`` are far from underflow."""
        first = self.start * self.emission[:, obs[0]]
        return first.sum() >= 1e-250

    def _checked_forward_backward(self, obs, need_beta=True):
        obs = _check_symbols(obs, self.n_symbols)
        result = self._forward_backward_many([obs], need_beta)[0]
        if result[2] == -np.inf:
            raise _impossible(self, obs, result[0])
        return result

    def log_likelihood(self, obs):
        """``log P(e_1..e_T)`` under the model (``-inf`` for an impossible sequence).

        Used in: Chapter 8, section "Learning the parameters: Baum-Welch".
        """
        obs = _check_symbols(obs, self.n_symbols)
        if self._safe_by_construction() and self._first_is_exact(obs):
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                ll = fast.log_likelihood(self, obs)
            if np.isfinite(ll):
                return ll
        return self._forward_backward_many([obs], need_beta=False)[0][2]

    def forward(self, obs):
        """Filtered distributions and log-likelihood: fast version of :meth:`forward_plain`.

        Returns ``(alpha, log_likelihood)`` with ``alpha[t, i] = P(X_t = i | e_1..e_t)``.
        Used in: Chapter 8, section "Making it fast".
        """
        alpha, _, ll, _ = self._checked_forward_backward(obs, need_beta=False)
        return alpha, ll

    def filter(self, obs):
        """``P(X_t = i | e_1..e_t)`` for every ``t``: an array of shape ``(T, N)``.

        Used in: Chapter 8, section "Filtering: the forward algorithm".
        """
        return self.forward(obs)[0]

    def backward(self, obs):
        """Backward messages, each row rescaled to sum to 1: fast :meth:`backward_plain`.

        Used in: Chapter 8, section "Smoothing: the forward-backward algorithm".
        """
        return self._checked_forward_backward(obs)[1]

    def smooth(self, obs):
        """``P(X_t = i | e_1..e_T)`` for every ``t``: an array of shape ``(T, N)``.

        Used in: Chapter 8, section "Smoothing: the forward-backward algorithm".
        """
        alpha, beta, _, logs = self._checked_forward_backward(obs)
        return _gamma(alpha, beta, logs, out=alpha)

    def viterbi(self, obs):
        """Most likely state sequence and its log joint probability (fast).

        Same result as :meth:`viterbi_plain` (up to exact ties); see
        :func:`lib.hmm.fast.viterbi`. Used in: Chapter 8, section "Making it fast".
        """
        obs = _check_symbols(obs, self.n_symbols)
        path, log_p = fast.viterbi(self, obs)
        if log_p == -np.inf:
            raise _impossible(self, obs)
        return path, log_p

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
        earlier once an iteration gains less than ``tol``. A sequence of probability
        zero under the starting parameters raises :class:`ImpossibleEvidenceError`.

        Parameters
        ----------
        sequences : sequence of int arrays, or one int array
        n_iter : int
        tol : float

        Returns ``self``. Used in: Chapter 8, section "Learning the parameters: Baum-Welch".
        """
        if isinstance(sequences, np.ndarray) and sequences.ndim == 1:
            sequences = [sequences]
        try:
            sequences = list(sequences)
        except TypeError:
            raise TypeError("sequences must be a list of observation sequences, "
                            f"got {type(sequences).__name__}") from None
        if not sequences:
            raise ValueError("fit needs at least one observation sequence, got none")
        sequences = [_check_symbols(s, self.n_symbols, f"sequences[{i}]") for i, s in enumerate(sequences)]
        n_iter = check_scalar(n_iter, "n_iter", kind="integer", low=1)
        tol = check_scalar(tol, "tol", allow_inf=True)
        N, M = self.n_states, self.n_symbols
        history = []
        for _ in range(n_iter):
            start_counts = np.zeros(N)
            transition_counts = np.zeros((N, N))
            emission_counts = np.zeros((N, M))
            total = 0.0
            for obs, (alpha, beta, log_likelihood, logs) in zip(
                    sequences, self._forward_backward_many(sequences)):
                if log_likelihood == -np.inf:
                    raise _impossible(self, obs, alpha)
                total += log_likelihood
                if logs is None and len(obs) > 1:
                    # xi_t(i, j) is proportional to alpha_t(i) A_ij E_{t+1}(j) beta_{t+1}(j)
                    w = self._likelihoods(obs[1:])
                    w *= beta[1:]
                    norm = _row_dots(alpha[:-1], self.transition, w)  # sum_ij alpha A_ij w
                    if norm.min() >= _FLOOR_PRODUCT:
                        alpha[:-1] /= norm[:, None]           # (rows of gamma are renormalised)
                        transition_counts += self.transition * (alpha[:-1].T @ w)
                    else:                                     # too small: use logarithms
                        logs = self._log_messages(obs)
                    del w
                if logs is not None and len(obs) > 1:
                    transition_counts += self._log_transition_counts(obs, *logs)
                gamma = _gamma(alpha, beta, logs, out=alpha)  # smoothed P(X_t = i | all e)
                start_counts += gamma[0]
                for i in range(N):
                    emission_counts[i] += np.bincount(obs, weights=gamma[:, i], minlength=M)
            history.append(total)
            self.start = start_counts / start_counts.sum()
            self.transition = _normalise_rows(transition_counts, self.transition)
            self.emission = _normalise_rows(emission_counts, self.emission)
            if len(history) > 1 and history[-1] - history[-2] < tol:
                break
        self.log_likelihoods_, self.n_iter_ = history, len(history)
        return self
