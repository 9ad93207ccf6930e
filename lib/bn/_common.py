"""Small pieces shared by the modules of :mod:`lib.bn`: the missing-value code, the
refusal of impossible evidence, C-order strides. A missing value in data is what
``lib._validation.is_missing(value, MARKERS)`` says: None, NaN or the source's "?"."""
import numpy as np

from lib.errors import ImpossibleEvidenceError  # noqa: F401  (raised by every inference method)

MISSING = -1
MARKERS = ("?",)   # besides None and NaN, the source's tables write "?" for a missing value


def strides(cards):
    """C-order strides of an array with axis lengths ``cards`` (row index of a CPT)."""
    cards = np.asarray(cards, dtype=np.int64)
    if cards.size == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([np.cumprod(cards[::-1])[::-1][1:], [1]]).astype(np.int64)
