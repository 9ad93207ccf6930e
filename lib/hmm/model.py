"""The :class:`HMM` estimator of Chapter 8: checks its inputs, then runs the compiled
recursions of :mod:`lib.hmm.fast`. Its ``*_plain`` methods run the reference versions
of :mod:`lib.hmm.reference` that the chapter shows.

Which implementation runs:

* ``forward``/``filter``/``log_likelihood``/``backward``/``smooth``/``fit`` use the
  compiled rescaled recursions, and keep their result when the loops found it exact:
  every positive message entry at least 1e-280 before rescaling, and no entry zero
  merely by underflow (see :mod:`lib.hmm.fast`). Otherwise (entries near 1e-290 in the
  model, or evidence that drives a state's share that low) the sequence is redone with
  the compiled recursions in logarithms (:func:`lib.hmm.fast.log_messages`), which
  agree with log-space enumeration.
* ``viterbi`` works with logarithms throughout.

Evidence of probability zero (no state path can produce the sequence) raises
:class:`ImpossibleEvidenceError` (a ``ValueError``) from ``filter``, ``forward``,
``backward``, ``smooth``, ``viterbi``, ``predict``, ``predict_proba`` and ``fit``;
``log_likelihood`` returns ``-inf`` for it, which is its exact value.
"""
import numpy as np
from scipy.special import logsumexp

from lib._validation import NotFittedError, check_hmm, check_rng, check_scalar
from lib.em.loop import run_em
from lib.errors import ImpossibleEvidenceError

from . import fast, reference
from .reference import check_sequences, check_symbols

_FLOOR_PRODUCT = 1e-280             # smallest sum of alpha * beta (or of xi) trusted




# ---------------------------------------------------------------------- checks
def _impossible(model, obs, log_alpha=None):
    """The error for a sequence of probability zero, naming the first impossible step."""
    if log_alpha is None:
        log_alpha = fast.log_messages(model, obs, need_beta=False)[0]
    t = int(np.argmax(np.all(np.isneginf(log_alpha), axis=1)))
    after = f" after the {t} symbols before it" if t else " as the first symbol"
    return ImpossibleEvidenceError(
        obs, f"obs has probability zero under this model: no state path can produce symbol "
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


def _normalise_rows(counts, previous):
    """Rows of ``counts`` divided by their sums; a row with no counts keeps ``previous``."""
    sums = counts.sum(axis=1, keepdims=True)
    return np.where(sums > 0, counts / np.where(sums > 0, sums, 1.0), previous)


class HMM:
    """A hidden Markov model with ``N`` states and ``M`` discrete symbols.

    :meth:`fit` (Baum-Welch) replaces the three parameters in place and records
    ``log_likelihoods_`` (one per E step, the last that of the returned model),
    ``n_iter_`` and ``converged_``.

    Used in: Chapter 8, all sections.

    Parameters
    ----------
    start : array (N,)
        ``P(X_1 = i)``.
    transition : array (N, N)
        ``transition[i, j] = P(X_{t+1} = j | X_t = i)``; rows sum to 1.
    emission : array (N, M)
        ``emission[i, k] = P(E_t = k | X_t = i)``; rows sum to 1.
    n_iter : int >= 1
        The largest number of Baum-Welch updates :meth:`fit` makes.
    tol : float >= 0
        :meth:`fit` stops once an update gains less than ``tol`` in log-likelihood per
        symbol (the rule of :func:`lib.em.run_em`; ``tol=0`` makes all ``n_iter``).

    Examples
    --------
    >>> umbrella = HMM([0.5, 0.5], [[0.7, 0.3], [0.3, 0.7]], [[0.1, 0.9], [0.8, 0.2]])
    >>> round(float(umbrella.filter([1, 1])[1, 0]), 3)  # P(rain on day 2 | umbrella, umbrella)
    0.883
    >>> umbrella.predict([1, 1, 0, 1]).tolist()  # the most likely weather (Viterbi)
    [0, 0, 1, 0]
    >>> model = HMM([0.5, 0.5], [[0.6, 0.4], [0.4, 0.6]], [[0.3, 0.7], [0.6, 0.4]])
    >>> model = model.fit([[1, 1, 0, 1, 1, 0, 0, 0, 1, 1]])  # Baum-Welch
    >>> bool(model.log_likelihoods_[-1] > model.log_likelihoods_[0])
    True
    >>> bool(np.isclose(model.log_likelihoods_[-1], model.log_likelihood([1, 1, 0, 1, 1, 0, 0, 0, 1, 1])))
    True
    """

    def __init__(self, start, transition, emission, n_iter=100, tol=1e-6):
        self._set_parameters(start, transition, emission)
        self.n_iter = n_iter
        self.tol = tol

    def _set_parameters(self, start, transition, emission):
        self.start, self.transition, self.emission = check_hmm(start, transition, emission)  # exactly normalised

    @property
    def n_states(self):
        return len(self.start)

    @property
    def n_symbols(self):
        return self.emission.shape[1]

    def __repr__(self):
        return f"HMM(n_states={self.n_states}, n_symbols={self.n_symbols})"

    def __getattr__(self, name):            # only called for attributes that do not exist
        if name in ("log_likelihoods_", "n_iter_", "converged_"):
            raise NotFittedError(f"This HMM has no {name} yet: it is set by fit(sequences); "
                                 "call fit first")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _likelihoods(self, obs):
        """``E[t, i] = P(e_t | X_t = i)`` for a checked sequence."""
        return np.ascontiguousarray(self.emission.T)[obs]

    def _logs(self, obs):
        with np.errstate(divide="ignore"):
            return np.log(self.start), np.log(self.transition), np.log(self.emission.T)[obs]

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
        obs = check_symbols(obs, self.n_symbols)
        return reference.forward(self.start, self.transition, self._likelihoods(obs))

    def backward_plain(self, obs):
        """Backward messages one time step at a time (:func:`lib.hmm.reference.backward`).

        Used in: Chapter 8, section "Smoothing: the forward-backward algorithm".
        """
        obs = check_symbols(obs, self.n_symbols)
        return reference.backward(self.transition, self._likelihoods(obs))

    def viterbi_plain(self, obs):
        """The most likely path one time step at a time (:func:`lib.hmm.reference.viterbi`).

        Returns ``(path, log_probability)``. Same result as :meth:`viterbi`, except that
        it does not refuse impossible evidence (it returns ``-inf``).
        Used in: Chapter 8, section "The most likely path: Viterbi".
        """
        obs = check_symbols(obs, self.n_symbols)
        return reference.viterbi(*self._logs(obs))

    # -------------------------------------------------------------- fast versions
    def _forward_backward_many(self, seqs, need_beta=True):
        """``[(alpha, beta, log_likelihood, logs), ...]`` for checked sequences.

        ``alpha`` and ``beta`` have rows summing to 1 (``beta`` is None without
        ``need_beta``). ``logs`` is None where the fast rescaled recursions were exact;
        otherwise the sequence was redone in logarithms and ``logs`` holds
        ``(log_alpha, log_beta)`` (unnormalised). An impossible sequence has
        ``log_likelihood == -inf``.
        """
        results = []
        for obs in seqs:
            alpha, ll, exact = fast.forward(self, obs)
            beta = None
            if exact and need_beta:
                beta, exact = fast.backward(self, obs)
                exact = exact and np.einsum("ti,ti->t", alpha, beta).min() >= _FLOOR_PRODUCT
            results.append((alpha, beta, ll, None))
            if exact:
                continue
            log_alpha, log_beta = fast.log_messages(self, obs, need_beta)
            ll = float(logsumexp(log_alpha[-1]))
            if not np.isfinite(ll):
                results[-1] = (log_alpha, None, -np.inf, None)
                continue
            beta = None if log_beta is None else np.exp(log_beta - logsumexp(log_beta, axis=1, keepdims=True))
            results[-1] = (np.exp(log_alpha - logsumexp(log_alpha, axis=1, keepdims=True)), beta, ll,
                          (log_alpha, log_beta))
        return results

    def _expected_counts(self, obs):
        """One sequence's E step: ``(log_likelihood, (start, transition, emission))``
        expected counts, from the compiled rescaled recursions (:func:`lib.hmm.fast.expected_counts`)
        or, where those cannot be trusted, from the messages in logarithms."""
        log_likelihood, counts = fast.expected_counts(self, obs, _FLOOR_PRODUCT)
        if counts is not None:
            return log_likelihood, counts
        alpha, beta, log_likelihood, logs = self._forward_backward_many([obs])[0]
        if log_likelihood == -np.inf:
            raise _impossible(self, obs, alpha)
        transition = np.zeros((self.n_states, self.n_states))
        if logs is None and len(obs) > 1:       # (the rescaled messages were exact after all)
            logs = fast.log_messages(self, obs)
        if len(obs) > 1:
            transition = self._log_transition_counts(obs, *logs)
        gamma = _gamma(alpha, beta, logs, out=alpha)          # smoothed P(X_t = i | all e)
        emission = np.stack([np.bincount(obs, weights=g, minlength=self.n_symbols) for g in gamma.T])
        return log_likelihood, (gamma[0], transition, emission)

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

    def _checked_forward_backward(self, obs, need_beta=True):
        obs = check_symbols(obs, self.n_symbols)
        result = self._forward_backward_many([obs], need_beta)[0]
        if result[2] == -np.inf:
            raise _impossible(self, obs, result[0])
        return result

    def log_likelihood(self, obs):
        """``log P(e_1..e_T)`` under the model (``-inf`` for an impossible sequence).

        Used in: Chapter 8, section "Learning the parameters: Baum-Welch".
        """
        obs = check_symbols(obs, self.n_symbols)
        ll, exact = fast.log_likelihood(self, obs)
        if exact:
            return ll
        return float(logsumexp(fast.log_messages(self, obs, need_beta=False)[0][-1]))

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
        obs = check_symbols(obs, self.n_symbols)
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
    def fit(self, sequences):
        """Baum-Welch (EM): re-estimate all parameters from observation sequences.

        Each iteration computes, with the forward-backward algorithm, the expected
        number of times each transition ``i -> j`` happens, each state emits each
        symbol, and each state starts a sequence, and sets

        ``transition[i, j] <- sum_t N(X_t = i, X_{t+1} = j) / sum_t N(X_t = i)``

        (and likewise for ``emission`` and ``start``). The iterations run in the
        course's one EM loop, :func:`lib.em.run_em`, with its stopping rule: at most
        ``n_iter`` updates; once an update gains less than ``tol`` in log-likelihood
        per symbol (over all sequences), one more update is made and Baum-Welch stops.
        ``log_likelihoods_[k]`` is the total log-likelihood of all sequences after
        ``k`` updates (entry 0: the starting parameters; the last entry: the returned
        model); EM guarantees that it never decreases. Sets ``n_iter_`` (the number of
        updates) and ``converged_``. A sequence of probability zero under the starting
        parameters raises :class:`ImpossibleEvidenceError`.

        Used in: Chapter 8, section "Learning the parameters: Baum-Welch".

        Parameters
        ----------
        sequences : sequence of int arrays, or one int array

        Returns
        -------
        HMM
            ``self``.
        """
        if isinstance(sequences, np.ndarray) and sequences.ndim == 1:
            sequences = [sequences]
        sequences = check_sequences(sequences, self.n_symbols)
        n_iter = check_scalar(self.n_iter, "n_iter", kind="integer", low=1)
        N, M = self.n_states, self.n_symbols

        def e_step(params):
            self.start, self.transition, self.emission = params
            total, counts = 0.0, [np.zeros(N), np.zeros((N, N)), np.zeros((N, M))]
            for obs in sequences:
                log_likelihood, sequence_counts = self._expected_counts(obs)
                total += log_likelihood
                for summed, one in zip(counts, sequence_counts):
                    summed += one
            return total, counts

        def m_step(params, counts):
            return (counts[0] / counts[0].sum(), _normalise_rows(counts[1], params[1]),
                    _normalise_rows(counts[2], params[2]))

        run = run_em(e_step, m_step, (self.start, self.transition, self.emission),
                     sum(len(obs) for obs in sequences), n_iter, self.tol)
        self.start, self.transition, self.emission = run.params
        self.log_likelihoods_, self.n_iter_, self.converged_ = (
            run.log_likelihoods, run.n_iter, run.converged)
        return self
