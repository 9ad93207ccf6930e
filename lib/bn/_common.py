"""Small pieces shared by the modules of :mod:`lib.bn`: the missing-value code, the
refusal of impossible evidence, C-order strides."""
import numpy as np

MISSING = -1


class ImpossibleEvidenceError(ValueError):
    """Evidence of probability zero under the network: raised alike by every exact
    inference and sampling method (a ``ValueError``)."""

    def __init__(self, evidence):
        super().__init__(f"the evidence {evidence} has probability zero under the network; "
                         "no posterior exists")
        self.evidence = evidence


def is_missing(value):
    """None, NaN and the question mark of the source's tables mark a missing value."""
    return value is None or (isinstance(value, float) and value != value) or \
        (isinstance(value, str) and value == "?")


def strides(cards):
    """C-order strides of an array with axis lengths ``cards`` (row index of a CPT)."""
    cards = np.asarray(cards, dtype=np.int64)
    if cards.size == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([np.cumprod(cards[::-1])[::-1][1:], [1]]).astype(np.int64)
