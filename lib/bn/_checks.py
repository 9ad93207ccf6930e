"""Argument checks shared by the modules of :mod:`lib.bn` (numbers, seeds)."""
import math

import numpy as np


def check_rng(rng):
    """A numpy Generator from ``rng`` (None, an integer seed or a Generator)."""
    if rng is None or isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(rng)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, an integer seed or None; "
                        f"got {type(rng).__name__}")
    return rng


def check_int(value, name, minimum=0):
    """``value`` as an int, or a ValueError/TypeError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_nonnegative(value, name):
    """``value`` as a finite float >= 0, or a ValueError/TypeError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a finite number >= 0, got {value!r}")
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)
