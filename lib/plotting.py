"""Shared plotting helpers for the chapters' figures.

Chapter plotting functions build a ``matplotlib.figure.Figure`` directly (not through
``pyplot``): no global figure state, nothing shown twice, safe in widget callbacks. Such
a figure is displayed by IPython only if a PNG formatter for ``Figure`` is registered,
which pyplot does lazily on its first figure. :func:`new_figure` registers one itself,
so a figure returned as the last value of a cell, or passed to ``display``, always
appears as an image (Chapter 1, "The candy bags", is the first user).

Importing this module changes nothing global: :func:`use_course_style`, called by each
chapter's hidden set-up cell, applies the course's font sizes to matplotlib and
registers the PNG formatter.

Every figure the notebooks show (pyplot figures included) goes through
:func:`figure_png`, which draws it for the website's column on any screen:

- no text smaller than ``MIN_FONT_PT`` points (smaller labels are raised to it);
- a figure wider than fits a phone's column with that text at 9 CSS px or more
  (``max_width_in``) is narrowed before drawing (at most to 60%, so that panels keep
  room); the rare figure still too wide gets a minimum display width on the website
  (``_ext/static_frames.py`` reads it from the PNG), and scrolls in its box on a phone;
- the PNG has twice the pixels of its display size (sharp on high-density screens) and
  is reduced to 256 colours, which keeps it about as light as a 1x image; the display
  size (CSS px, 96 per inch) travels in the output's metadata.

The values a figure was drawn for can be stored inside the PNG (a text chunk), which
is how the website's tests check that a static explorer shows the right frame.
"""
import json
import weakref
from io import BytesIO

import matplotlib
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox
from PIL import Image, PngImagePlugin

__all__ = ["use_course_style", "COURSE_RC", "new_figure", "clear_data", "figure_png", "figure_image", "MIN_FONT_PT", "CSS_PX_PER_IN",
           "PIXEL_RATIO", "PHONE_COLUMN_PX", "max_width_in", "png_info"]

#: Smallest text drawn in any figure (points).
MIN_FONT_PT = 9.0
#: Display size of a figure inch (CSS px), as browsers define it.
CSS_PX_PER_IN = 96
#: Image pixels per CSS px (high-density screens).
PIXEL_RATIO = 2
#: Text column of the site on a 390 px wide phone (measured).
PHONE_COLUMN_PX = 358
MIN_TEXT_CSS_PX = 9.0    # the smallest text a reader sees on that phone
#: The course's matplotlib settings (font sizes), applied by :func:`use_course_style`.
COURSE_RC = {"font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "legend.fontsize": 9,
             "xtick.labelsize": 9, "ytick.labelsize": 9, "legend.title_fontsize": 9,
             "figure.titlesize": 11}
_FITTED = weakref.WeakKeyDictionary()  # figure -> the size it was first shown at


def use_course_style():
    """Apply the course's figure style: matplotlib's font sizes (``COURSE_RC``) and, in
    IPython, every ``Figure`` shown through :func:`figure_image`.

    Called by the hidden set-up cell of every chapter (Chapter 1 first); the figures of
    the website are drawn with it, so call it before drawing them.
    """
    matplotlib.rcParams.update(COURSE_RC)
    _register_png_formatter()


def max_width_in(min_font_pt=MIN_FONT_PT):
    """Widest figure (inches) whose ``min_font_pt`` text stays >= 9 CSS px on a phone.

    A figure W inches wide shrunk into the phone's column of ``PHONE_COLUMN_PX`` CSS px
    shows a point of text as ``PHONE_COLUMN_PX / (72 W)`` CSS px.
    """
    return PHONE_COLUMN_PX * min_font_pt / (72 * MIN_TEXT_CSS_PX)


def _texts(fig):
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def _fit_for_column(fig, size=None):
    """Raise small text to ``MIN_FONT_PT`` and narrow the figure to ``max_width_in()``.

    ``size`` (inches), when given, is used as it is: frames of one interactive figure
    take the size worked out for its first frame, which saves a draw per frame.
    """
    for text in fig.findobj(Text):  # tick labels given explicitly exist already
        if text.get_fontsize() < MIN_FONT_PT:
            text.set_fontsize(MIN_FONT_PT)
    if size is None:
        size = _FITTED.get(fig)  # shown before: keep that size
    if size is not None:
        fig.set_size_inches(size)
        return
    width, height = fig.get_size_inches()
    fig.draw_without_rendering()  # lays the figure out (constrained layout, tick labels)
    pad = 2 * matplotlib.rcParams["savefig.pad_inches"]
    drawn = fig.get_tightbbox().width + pad  # the saved image: titles sticking out included
    limit = max_width_in()
    if drawn > limit * 1.005:
        new = max(width - (drawn - limit), 0.6 * width, 0.5 * limit)
        # narrower, and a little less tall so that panels keep a sensible shape
        fig.set_size_inches(new, height * (new / width) ** 0.35)
    _FITTED[fig] = tuple(fig.get_size_inches())


def png_info(data):
    """The text chunks of a PNG made by :func:`figure_png` (``{"values": ..., ...}``)."""
    image = Image.open(BytesIO(data))
    return {key: json.loads(value) for key, value in image.text.items() if key.startswith("lib.")}


def figure_png(fig, values=None, *, fit=True, fast=False, size=None, bbox=None):
    """The PNG bytes of ``fig`` for the website: 2x pixels, 256 colours.

    ``values`` (a JSON-able dict, e.g. the controls the figure was drawn for) is stored
    in the PNG as the text chunk ``lib.values``; :func:`png_info` reads it back.
    ``fit=False`` keeps the figure's own size and fonts; ``fast=True`` draws at 1x
    without colour reduction (a live widget redraw, where time matters more);
    ``size`` and ``bbox`` (inches, as stored in the PNG by a first call: ``lib.size_in``,
    ``lib.bbox_in``) skip working out the size and the tight box: frames of one
    interactive figure are drawn once each, at the same size as its first frame.
    """
    if fit:
        _fit_for_column(fig, size)
    ratio = 1 if fast else PIXEL_RATIO
    buffer = BytesIO()
    box = Bbox.from_extents(*bbox) if bbox is not None else "tight"
    fig.savefig(buffer, format="png", dpi=CSS_PX_PER_IN * ratio, bbox_inches=box,
                pil_kwargs={"compress_level": 1} if fast else {})
    if fast and values is None:
        return buffer.getvalue()
    image = Image.open(BytesIO(buffer.getvalue()))
    if not fast:
        image = image.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE)
    info = PngImagePlugin.PngInfo()
    info.add_text("lib.css_width", json.dumps(round(image.width / ratio)))
    info.add_text("lib.pixel_ratio", json.dumps(ratio))
    info.add_text("lib.min_font_pt", json.dumps(min(t.get_fontsize() for t in _texts(fig))))
    info.add_text("lib.size_in", json.dumps([round(float(v), 4) for v in fig.get_size_inches()]))
    if bbox is None:
        pad = matplotlib.rcParams["savefig.pad_inches"]
        bbox = fig.get_tightbbox().padded(pad).extents
    if bbox is not None:
        info.add_text("lib.bbox_in", json.dumps([round(float(v), 4) for v in bbox]))
    if values is not None:
        info.add_text("lib.values", json.dumps(values, sort_keys=True))
    out = BytesIO()
    image.save(out, format="png", pnginfo=info, compress_level=1 if fast else 9)
    return out.getvalue()


def figure_image(fig, values=None, **kwargs):
    """``(png_bytes, metadata)`` for IPython: the metadata gives the display width."""
    data = figure_png(fig, values, **kwargs)
    width = png_info(data).get("lib.css_width") or Image.open(BytesIO(data)).width // PIXEL_RATIO
    return data, {"width": width}


def _register_png_formatter():
    """Show every ``Figure`` (pyplot's too) through :func:`figure_image` in IPython.

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
    place (the fast-update protocol of :func:`lib.widgets.interactive_figure`; first
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
