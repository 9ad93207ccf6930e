"""Shared plotting helpers for the chapters' figures.

Chapter plotting functions build a ``matplotlib.figure.Figure`` directly (not through
``pyplot``): no global figure state, nothing shown twice, safe in widget callbacks. Such
a figure is displayed by IPython only if a PNG formatter for ``Figure`` is registered,
which pyplot does lazily on its first figure. :func:`new_figure` registers one itself,
so a figure returned as the last value of a cell, or passed to ``display``, always
appears as an image (Chapter 1, "The candy bags", is the first user).
"""
from io import BytesIO

from matplotlib.figure import Figure

__all__ = ["new_figure", "figure_png"]


def figure_png(fig):
    """The PNG bytes of ``fig`` (tight bounding box), as IPython displays it."""
    buffer = BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()


def _register_png_formatter():
    """Let IPython show bare ``Figure`` objects as PNG images (no-op outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython ships with ipywidgets
        return
    shell = get_ipython()
    if shell is None:
        return
    formatter = shell.display_formatter.formatters["image/png"]
    if Figure not in formatter.type_printers:
        formatter.for_type(Figure, figure_png)


def new_figure(figsize=(6.4, 3.6), **kwargs):
    """A new constrained-layout ``Figure`` that IPython displays as a PNG image.

    Used by every chapter's plotting functions, first in Chapter 1
    (``lib.plots.bayes.plot_candy_posteriors``).

    >>> fig = new_figure((4, 3))
    >>> ax = fig.subplots()
    """
    _register_png_formatter()
    kwargs.setdefault("layout", "constrained")
    return Figure(figsize=figsize, **kwargs)
