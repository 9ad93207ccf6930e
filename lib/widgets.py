"""Interactive figures whose callbacks are plain ``lib`` plotting functions.

Every chapter's interactive figure goes through :func:`interactive_figure`
(Chapter 1, section "An interactive candy bag", is the first user). The figure at
its default settings is displayed as an ordinary image, so the page stays useful
without a kernel and without JavaScript; once a kernel is attached each change of a
control redraws that same image in place.

The function returns the box of controls *without* displaying it: show it as the
value of the next cell (tag ``remove-input``), because a cell that carries figure
metadata (caption, label, alt text) must have exactly one display output.
"""
import io

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import Image, display


def interactive_figure(plot, controls, **fixed):
    """Show ``plot(**defaults, **fixed)`` as an image plus controls that redraw it.

    Parameters
    ----------
    plot : callable
        A ``lib`` function that takes keyword arguments and returns a matplotlib
        ``Figure``. It is called once with the controls' default values (the static
        image) and again, with the new values, whenever a control changes.
    controls : dict
        Maps keyword names of ``plot`` to ipywidgets value widgets
        (``IntSlider``, ``Dropdown``, ``ToggleButtons``, ...).
    **fixed
        Further keyword arguments passed to ``plot`` unchanged (data, for example).

    Returns
    -------
    ipywidgets.VBox
        The box of controls, not yet displayed: end the next cell with it.

    Examples
    --------
    >>> box = interactive_figure(plot_posteriors,  # doctest: +SKIP
    ...                          {"n": widgets.IntSlider(value=3, min=0, max=10)})
    >>> box  # in the next cell  # doctest: +SKIP
    """
    if not callable(plot):
        raise TypeError(f"plot must be callable, got {type(plot).__name__}")
    if not controls:
        raise ValueError("interactive_figure needs at least one control")
    for name, control in controls.items():
        if not isinstance(control, widgets.ValueWidget):
            raise TypeError(f"control {name!r} is not an ipywidgets value widget")

    def draw():
        fig = plot(**{name: c.value for name, c in controls.items()}, **fixed)
        plt.close(fig)  # keep pyplot from showing the figure a second time
        return Image(data=figure_png(fig), format="png")

    handle = display(draw(), display_id=True)

    def redraw(change):
        handle.update(draw())

    for control in controls.values():
        control.observe(redraw, names="value")
    return widgets.VBox(list(controls.values()))


def figure_png(fig):
    """The PNG bytes of a matplotlib figure, as the notebook's inline backend draws it."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()
