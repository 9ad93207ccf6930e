"""The example models and symbol codings of Chapter 8: the umbrella world, the
occasionally dishonest casino, and letters of English text."""
import numpy as np

from .model import HMM

#: The 27 symbols of the letter models: a space (symbol 0), then a to z.
ALPHABET = " abcdefghijklmnopqrstuvwxyz"


def umbrella_model():
    """The umbrella world: state 0 = rain, 1 = no rain; symbol 0 = no umbrella, 1 = umbrella.

    ``P(R_0) = 0.5``, ``P(R_t | R_{t-1}) = 0.7``, ``P(R_t | not R_{t-1}) = 0.3``,
    ``P(U_t | R_t) = 0.9``, ``P(U_t | not R_t) = 0.2``. The start distribution is that
    of day 1 before any evidence, ``P(R_1) = 0.5 * 0.7 + 0.5 * 0.3 = 0.5``.
    Used in: Chapter 8, section "The umbrella world".
    """
    prior_day_0 = np.array([0.5, 0.5])
    transition = np.array([[0.7, 0.3], [0.3, 0.7]])
    return HMM(prior_day_0 @ transition, transition, [[0.1, 0.9], [0.8, 0.2]])


def casino_model():
    """The occasionally dishonest casino: state 0 = fair die, 1 = loaded die (a six half
    of the time); symbols 0..5 stand for faces 1..6. The casino swaps to the loaded die
    with probability 0.05 per roll and back with probability 0.1.
    Used in: Chapter 8, section "The occasionally dishonest casino".
    """
    return HMM([0.5, 0.5], [[0.95, 0.05], [0.10, 0.90]],
               [[1 / 6] * 6, [0.1, 0.1, 0.1, 0.1, 0.1, 0.5]])


def letters_to_symbols(text):
    """Lower-case ``text``, turn every run of non-letters into one space, and code the
    result as symbols ``0..26`` (space, a, ..., z).

    Used in: Chapter 8, section "Vowels and consonants".

    >>> letters_to_symbols("Hi, you!").tolist()
    [8, 9, 0, 25, 15, 21, 0]
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    cleaned = []
    for ch in text.lower():
        if "a" <= ch <= "z":
            cleaned.append(ch)
        elif cleaned and cleaned[-1] != " ":
            cleaned.append(" ")
    return np.array([ALPHABET.index(ch) for ch in cleaned], dtype=np.intp)


def rolls_to_symbols(rolls):
    """A string of die faces such as ``"163666"`` as symbols ``0..5`` (other characters
    are ignored). Used in: Chapter 8, section "Try it: reading the dice"."""
    faces = [int(ch) - 1 for ch in str(rolls) if ch in "123456"]
    if not faces:
        raise ValueError("no die faces (digits 1 to 6) in the sequence")
    return np.array(faces, dtype=np.intp)


#: The casino's example sequences of die rolls, by name (Chapter 8, "The occasionally
#: dishonest casino").
CASINO_EXAMPLES = {
    "mostly fair, then a run of sixes": "3512462315423164516623456666166626563661245132" + "4512361523",
    "fair throughout": "3125463214562315462134564213526143652134",
    "one lucky pair of sixes": "2451366315241526343516245316",
    "sixes early, fair later": "6626166366566136265423154231542315452361",
}
