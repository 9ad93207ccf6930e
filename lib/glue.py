"""``glue``: hand a computed value to the book, or show it when there is no book build.

The chapters place a few computed tables in their text with MyST-NB's ``glue`` and a
``{glue:md}`` directive (Chapter 1, "The candy bag, step by step"; Chapter 2, "How many
parameters"). A reader's kernel (Binder, Colab, a JupyterHub) does not need MyST-NB:
there ``glue`` shows the value under the cell that computed it, since no front end
renders the ``{glue:md}`` directive.
"""
from IPython.display import display as _display


def glue(name, value, display=True):
    """``myst_nb.glue(name, value, display)`` when MyST-NB is installed, else show ``value``.

    Parameters
    ----------
    name : str
        The key that ``{glue:md}`` (or ``{glue:}``) uses in the chapter's text.
    value : object
        Anything IPython can display (``Markdown``, a number, a figure).
    display : bool
        Passed on to MyST-NB. Without MyST-NB the value is always shown, because the
        directive that would place it in the text is not rendered there.
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string, got {name!r}")
    try:
        from myst_nb import glue as myst_glue
    except ImportError:
        _display(value)
        return
    myst_glue(name, value, display=display)
