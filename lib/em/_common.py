"""Checks shared by the EM modules (data matrices)."""
from lib._validation import check_array


def check_data(X, name="X"):
    """``X`` as a finite float matrix ``(n, d)``; a 1-D array is one feature."""
    X = check_array(X, name, ndim=(1, 2))
    return X[:, None] if X.ndim == 1 else X
