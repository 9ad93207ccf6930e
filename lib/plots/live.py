"""The live-figure object of the interactive figures (:func:`lib.plots.interactive.interactive_figure`).

A plot function that updates its figure in place keeps the figure, its artists and its
blitting state in a :class:`LiveFigure` of its own, never in attributes set on matplotlib
objects (matplotlib's blitting guide, ``BlitManager``, and d2l's ``Animator`` do the same).
Redraws (:func:`live_png`) keep the size and box of the figure's first image: at 1x in a
kernel, and at the website's 2x for the frames of its static explorers, so a frame on the
website is the picture a reader's kernel draws for the same values.
"""
import numpy as np
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.legend import Legend
from matplotlib.text import Text
from PIL import Image as PILImage

from .export import (
    CSS_PX_PER_IN,
    MIN_FONT_PT,
    SITE_COMPRESSION,
    box_in_figure,
    cut_to_box,
    draw_box,
    encode_png,
    layout_problems,
    pixel_box,
    png_info,
    smallest_font_pt,
)

__all__ = ["LiveFigure", "live_png", "first_frame"]


class LiveFigure:
    """A figure that its plot function draws once and then updates in place.

    The state of a live figure lives here, never on the matplotlib objects (as in
    matplotlib's blitting guide, ``BlitManager``, and d2l's ``Animator``). A plot
    function that takes a keyword ``live`` draws through it: ``live.state_for(key)``
    gives back what the plot function kept (its artists, in ``state``) when ``live``
    holds a figure it drew for the same ``key`` (the arguments that fix everything but
    what moves); otherwise it draws the parts that never move, ``live.start(fig, key,
    state)``, and goes on to the same update code as a redraw (one drawing path).
    ``live.blit(moving, background)`` lists the artists an update changes, with a key of
    everything else: while that key is unchanged only they are drawn again, over a copy
    of the rest (``draw``). ``alt`` describes what the figure shows now (for the page).

    First used by Chapter 1's ``lib.plots.bayes.plot_base_rate``; :func:`interactive_figure`
    passes one to every call of such a plot function.
    """

    def __init__(self, fig=None):
        self.fig = self.key = self.state = None
        self.alt = ""
        self.start(fig)

    def state_for(self, key):
        """The plot function's state when this holds a figure drawn for ``key``, else None.

        Keys are compared item by item, objects without ``==`` (a model, a network) by
        identity; a key holds its objects, so no other object can take their ``id``.
        """
        return self.state if self.fig is not None and self.key is not None and _same(self.key, key) else None

    def start(self, fig, key=None, state=None):
        """A new figure, drawn for ``key`` (None: never reused); ``state`` is what its
        updates need. Returns ``state``."""
        self.fig, self.key, self.state = fig, key, state
        self.moving, self.background = [], None
        self.frozen = False   # size, layout and fonts not yet fixed by a first live image
        self._pixels = self._drawn = None
        return state

    def blit(self, moving, background):
        """Only ``moving`` change in an update; ``background`` (hashable) keys the rest."""
        self.moving, self.background = list(moving), background

    def freeze(self):
        """Keep the size and layout of the image just drawn: no layout pass in redraws."""
        self.frozen = True
        if self.fig.get_layout_engine() is not None:
            self.fig.set_layout_engine("none")

    def draw(self):
        """Draw the figure on its Agg canvas; only the moving artists when nothing else changed.

        The moving artists are animated (left out of a canvas draw) only while the
        background is drawn here, so ``savefig`` of the figure still shows all of it.
        """
        fig = self.fig
        if not self.moving:
            fig.canvas.draw()
            return
        if self._drawn != (self.background, fig.dpi):
            animated = [artist.get_animated() for artist in self.moving]
            for artist in self.moving:
                artist.set_animated(True)
            try:
                fig.canvas.draw()  # everything but the moving artists
            finally:
                for artist, was in zip(self.moving, animated):
                    artist.set_animated(was)
            self._pixels = fig.canvas.copy_from_bbox(fig.bbox)
            self._drawn = (self.background, fig.dpi)
        else:
            fig.canvas.restore_region(self._pixels)
        for artist in sorted(self.moving, key=lambda a: a.get_zorder()):
            fig.draw_artist(artist)


def raise_fonts(fig):
    """Text under ``MIN_FONT_PT`` raised to it: what ``figure_png`` does, without making
    the ticks that ``findobj`` would create (ticks made at draw time copy the first one)."""
    texts = list(fig.texts)  # suptitle included
    for ax in fig.axes:
        for child in ax.get_children():  # titles, texts, axis, legend
            if isinstance(child, Text):
                texts.append(child)
            elif isinstance(child, Axis):
                texts += [child.label, child.offsetText]
                for tick in [*child.majorTicks, *child.minorTicks]:
                    texts += [tick.label1, tick.label2]
            elif isinstance(child, Legend):
                texts += [*child.get_texts(), child.get_title()]
    for text in texts:
        if text.get_fontsize() < MIN_FONT_PT:
            text.set_fontsize(MIN_FONT_PT)


def first_frame(fig, data):
    """What every live redraw keeps of the first image ``data`` of ``fig``: figure size,
    box (inches, whole pixels: the first image's pixels exactly), and where the layout put
    the axes and figure texts."""
    info = png_info(data)
    return {"size": info["lib.size_in"], "bbox": info["lib.bbox_in"],
            "positions": [ax.get_position(original=False) for ax in fig.axes],
            "texts": [text.get_position() for text in fig.texts]}


def live_png(live, values, frame, ratio=1):
    """A redraw of ``live.fig`` cut to the first image's box, in one Agg draw without a layout pass.

    ``ratio=1``: a kernel's redraw (1x, fast zlib). ``ratio=PIXEL_RATIO``: a frame of the
    website's explorer, drawn as :func:`~lib.plots.export.figure_png` exports (2x pixels,
    256 colours, what a reader could not read recorded as ``lib.layout``).
    ``frame`` (see ``first_frame``): a new figure takes the first one's size and, when it has
    as many axes, their positions (no layout pass); a figure updated in place keeps its own.
    """
    fig = live.fig
    raise_fonts(fig)  # also text that an update in place has added
    if not live.frozen:
        fig.set_size_inches(frame["size"])
        if len(fig.axes) == len(frame["positions"]):
            for ax, position in zip(fig.axes, frame["positions"]):
                ax.set_position(position)
            if len(fig.texts) == len(frame["texts"]):
                for text, position in zip(fig.texts, frame["texts"]):
                    text.set_position(position)
            fig.set_layout_engine("none")
        live.frozen = True
    dpi = CSS_PX_PER_IN * ratio
    box = pixel_box(frame["bbox"], dpi)
    info, problems = {"css_width": round((box[2] - box[0]) / ratio), "pixel_ratio": ratio}, None
    if ratio > 1 and not box_in_figure(fig, box, dpi):  # the first image shows what lies outside the figure
        pixels, _, problems = draw_box(fig, dpi, frame["bbox"], check=True)  # as savefig draws it
        out = pixels[:, :, :3]
    else:
        fig.set_dpi(dpi)
        if not isinstance(fig.canvas, FigureCanvasAgg):
            FigureCanvasAgg(fig)
        live.draw()
        out = cut_to_box(np.asarray(fig.canvas.buffer_rgba())[:, :, :3], box,
                         fig.get_facecolor())  # the first image's pixels exactly: the box may stick out of the figure
        if ratio > 1:  # what lies outside the figure is not drawn on its canvas: cut off as well
            width, height = fig.canvas.get_width_height(physical=True)
            problems = layout_problems(fig, fig.canvas.get_renderer(),
                                       (max(box[0], 0), max(box[1], 0), min(box[2], width), min(box[3], height)))
    image = PILImage.fromarray(out)
    if ratio > 1:
        image = image.quantize(256, method=PILImage.Quantize.FASTOCTREE)
        info["min_font_pt"] = smallest_font_pt(fig)
    info.update({"size_in": [round(float(v), 4) for v in fig.get_size_inches()], "bbox_in": list(frame["bbox"]),
                 "values": values, "layout": (problems or None) if ratio > 1 else None})
    return encode_png(image, info, compress_level=1 if ratio == 1 else SITE_COMPRESSION)


def _same(a, b):
    """Whether two keys of :meth:`LiveFigure.state_for` are the same."""
    if a is b:
        return True
    if type(a) is tuple and type(b) is tuple:
        return len(a) == len(b) and all(map(_same, a, b))
    try:
        return bool(a == b)
    except ValueError:  # arrays, or tuples of arrays (a NamedTuple of results): not the same object
        return False
