"""The course's figure style and the two ways a chapter's figure is made.

Importing this module changes nothing global: :func:`use_course_style`, called by each
chapter's hidden set-up cell, applies the course's font sizes to matplotlib and has
IPython show every ``Figure`` through :func:`lib.plots.export.figure_png`.

Most plot functions of :mod:`lib.plots` build a ``matplotlib.figure.Figure`` directly
with :func:`new_figure`: no global figure state, nothing shown twice, safe in widget
callbacks. IPython shows such a figure only once a PNG formatter for ``Figure`` is
registered (pyplot registers one lazily, on its first figure), so :func:`new_figure`
registers it itself: the figure appears when it is the last value of a cell or passed
to ``display`` (Chapter 1, "The candy bags", is the first user). The figures of
:mod:`lib.plots.bn`, :mod:`lib.plots.em`, :mod:`lib.plots.gaussian` and
:mod:`lib.plots.naive_bayes` are drawn through pyplot instead (``plt.subplots``,
``plt.figure``; some take an ``ax`` to draw into a figure of the caller's), whose figures the inline backend shows at the end
of the cell; :func:`lib.plots.interactive.interactive_figure` closes them after
drawing so that they are not shown twice. Either way the image is made by
:func:`lib.plots.export.figure_png`.
"""
import matplotlib
import numpy as np
from matplotlib.figure import Figure

from .export import figure_image

__all__ = ["use_course_style", "COURSE_RC", "new_figure", "clear_data", "legend_under", "readable_on"]

#: The course's matplotlib settings (font sizes), applied by :func:`use_course_style`.
COURSE_RC = {"font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "legend.fontsize": 9,
             "xtick.labelsize": 9, "ytick.labelsize": 9, "legend.title_fontsize": 9,
             "figure.titlesize": 11}


def use_course_style():
    """Apply the course's figure style: matplotlib's font sizes (``COURSE_RC``) and, in
    IPython, every ``Figure`` shown through :func:`lib.plots.export.figure_image`.

    Called by the hidden set-up cell of every chapter (Chapter 1 first); the figures of
    the website are drawn with it, so call it before drawing them.
    """
    matplotlib.rcParams.update(COURSE_RC)
    _register_png_formatter()


def _register_png_formatter():
    """Show every ``Figure`` (pyplot's too) through :func:`lib.plots.export.figure_image` in IPython.

    matplotlib's inline backend installs its own formatter when pyplot first draws, so
    ours is put back before and after every cell (no-op outside IPython).
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython ships with ipywidgets
        return
    shell = get_ipython()
    if shell is None:
        return
    formatter = shell.display_formatter.formatters["image/png"]
    try:  # let the inline backend install its formatter now, so that ours replaces it
        import matplotlib_inline.backend_inline  # noqa: F401
    except ImportError:  # pragma: no cover - ipykernel ships it
        pass

    def ensure(*_):
        if formatter.type_printers.get(Figure) is not figure_image:
            for other in shell.display_formatter.formatters.values():
                other.pop(Figure, None)
            formatter.for_type(Figure, figure_image)

    ensure()
    for event in ("pre_run_cell", "post_execute"):
        if ensure.__name__ not in {getattr(f, "__name__", "") for f in shell.events.callbacks[event]}:
            shell.events.register(event, ensure)


def clear_data(*axes):
    """Remove what was drawn on ``axes`` (lines, bars, collections, texts, images, legend)
    but keep the axes themselves: their ticks, labels and place in the figure.

    Much cheaper than ``ax.cla()``; for plot functions that redraw their own figure in
    place (the fast-update protocol of :func:`lib.plots.interactive.interactive_figure`; first
    used by ``lib.plots.estimation.plot_beta_update``).
    """
    for ax in axes:
        for container in list(ax.containers):  # bar charts: their patches too
            container.remove()
        for artist in [*ax.lines, *ax.patches, *ax.collections, *ax.texts, *ax.images]:
            artist.remove()
        if ax.get_legend() is not None:
            ax.get_legend().remove()
        ax.relim()  # data limits from what is drawn next


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


def legend_under(ax, offset=-0.22, **kwargs):
    """A frameless legend centred under ``ax``, its top ``offset`` axes heights below the
    axes (under the x label), for a figure whose data leave no corner free in every setting
    (``lib.plots.export.layout_problems`` reports a legend over data). ``kwargs`` go to
    ``ax.legend`` (``ncol``, ``fontsize``, handles and labels). Returns the legend.

    Used in: Chapter 1, section "An interactive candy bag", and the figures of Chapters 3,
    5, 6 and 7 with many curves or panels on a phone's column.
    """
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, offset), frameon=False, **kwargs)


def readable_on(colour):
    """``"black"`` or ``"white"``, whichever has the higher WCAG contrast ratio with
    ``colour`` (RGB or RGBA in 0-1, e.g. ``image.to_rgba(value)`` of an ``imshow``): the
    colour of a number printed in a heat-map cell.

    >>> readable_on((0.03, 0.19, 0.42)), readable_on((0.78, 0.86, 0.94))
    ('white', 'black')

    Used in: Chapter 5's confusion matrix, Chapter 6's link posteriors (section "Averaging
    over structures") and Chapter 8's Baum-Welch explorer.
    """
    rgb = np.asarray(colour[:3], dtype=float)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    luminance = linear @ [0.2126, 0.7152, 0.0722]
    return "black" if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else "white"
