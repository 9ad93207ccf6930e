"""The error classes of ``lib``, each defined once (raised by ``lib._validation``,
:mod:`lib.bn` and :mod:`lib.hmm`, and re-exported where a chapter expects them)."""

__all__ = ["NotFittedError", "ImpossibleEvidenceError", "ConvergenceWarning"]


class NotFittedError(ValueError, AttributeError):
    """An estimator was used before ``fit`` (same bases as scikit-learn's)."""


class ConvergenceWarning(RuntimeWarning):
    """EM lowered the log likelihood by more than rounding (:func:`lib.em.run_em`): an
    E or M step is not exact (same role as scikit-learn's ``ConvergenceWarning``)."""


class ImpossibleEvidenceError(ValueError):
    """Evidence of probability zero under a model (a Bayesian network's evidence, an
    HMM's observation sequence): no posterior exists. ``evidence`` holds what was
    given; a ``ValueError``, so callers that catch bad input catch it too.

    Examples
    --------
    >>> from lib.bn import BayesNet, ImpossibleEvidenceError
    >>> net = BayesNet([("Rain", ["no", "yes"], [], [0.8, 0.2]),
    ...                 ("Wet", ["no", "yes"], ["Rain"], [[1.0, 0.0], [1.0, 0.0]])])
    >>> try:
    ...     net.query("Rain", {"Wet": "yes"})
    ... except ImpossibleEvidenceError as error:
    ...     print(isinstance(error, ValueError), error)
    True the evidence {'Wet': 'yes'} has probability zero under the network; no posterior exists
    """

    def __init__(self, evidence, message=None):
        super().__init__(message or f"the evidence {evidence} has probability zero under the "
                                    "network; no posterior exists")
        self.evidence = evidence
