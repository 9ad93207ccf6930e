"""Hidden Markov models with discrete observations: filtering, smoothing, Viterbi and
Baum-Welch (Chapter 8, "Hidden Markov models").

A model has ``N`` hidden states and ``M`` observation symbols ``0 .. M-1``:

* ``start[i] = P(X_1 = i)``, the distribution of the *first observed* time step;
* ``transition[i, j] = P(X_{t+1} = j | X_t = i)``;
* ``emission[i, k] = P(E_t = k | X_t = i)``.

The package:

* :mod:`lib.hmm.reference`: the plain recursions, one time step per loop iteration,
  as the chapter shows them (and their log-space versions);
* :mod:`lib.hmm.fast`: the same recursions compiled with numba (and in logarithms,
  for models whose products leave the range of doubles);
* :mod:`lib.hmm.model`: the :class:`HMM` estimator, which checks its inputs and says
  which implementation runs when;
* :mod:`lib.hmm.examples`: the umbrella world, the casino, letters as symbols.

The chapter's figures are :mod:`lib.plots.hmm`.
"""
from .examples import ALPHABET, CASINO_EXAMPLES, casino_model, letters_to_symbols, rolls_to_symbols, umbrella_model
from .model import HMM, ImpossibleEvidenceError, NotFittedError

__all__ = ["HMM", "ImpossibleEvidenceError", "NotFittedError", "ALPHABET", "CASINO_EXAMPLES",
           "umbrella_model", "casino_model", "letters_to_symbols", "rolls_to_symbols"]
