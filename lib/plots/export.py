"""The PNG export every figure of the course goes through (:func:`figure_png`).

Every figure the notebooks show goes through :func:`figure_png` (in a kernel, through
the PNG formatter that :func:`lib.plots.style.use_course_style` registers), which draws
it for the website's column on any screen:

- no text smaller than ``MIN_FONT_PT`` points (smaller labels are raised to it);
- a figure wider than fits a phone's column with that text at 9 CSS px or more
  (``max_width_in``) is narrowed before drawing (at most to 60%, so that panels keep
  room); the rare figure still too wide gets a minimum display width on the website
  (``_ext/static_frames.py`` reads it from the PNG), and scrolls in its box on a phone;
- the PNG has twice the pixels of its display size (sharp on high-density screens) and
  is reduced to 256 colours, which keeps it about as light as a 1x image; the display
  size (CSS px, 96 per inch) travels in the output's metadata.

The metadata of a PNG (its display width, the figure's size and box, the values it was
drawn for, and what a reader could not read in it, :func:`layout_problems`) are ``lib.*`` text chunks, written by :func:`encode_png` (for these images
and the live redraws of :mod:`lib.plots.live`) and read back by :func:`png_info`: the
website's tests check with them that a static explorer shows the right frame.
"""
import json
import math
import weakref
from io import BytesIO

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PathCollection
from matplotlib.text import Text
from matplotlib.transforms import Bbox
from PIL import Image, PngImagePlugin

__all__ = ["figure_png", "figure_image", "draw_box", "box_in_figure", "smallest_font_pt", "encode_png", "png_info", "layout_problems", "max_width_in", "MIN_FONT_PT",
           "CSS_PX_PER_IN", "PIXEL_RATIO", "PHONE_COLUMN_PX", "SITE_COMPRESSION"]

#: Smallest text drawn in any figure (points).
MIN_FONT_PT = 9.0
#: Display size of a figure inch (CSS px), as browsers define it.
CSS_PX_PER_IN = 96
#: Image pixels per CSS px (high-density screens).
PIXEL_RATIO = 2
#: Text column of the site on a 390 px wide phone (measured).
PHONE_COLUMN_PX = 358
MIN_TEXT_CSS_PX = 9.0    # the smallest text a reader sees on that phone
_FITTED = weakref.WeakKeyDictionary()  # figure -> the size it was first shown at


def max_width_in(min_font_pt=MIN_FONT_PT):
    """Widest figure (inches) whose ``min_font_pt`` text stays >= 9 CSS px on a phone.

    A figure W inches wide shrunk into the phone's column of ``PHONE_COLUMN_PX`` CSS px
    shows a point of text as ``PHONE_COLUMN_PX / (72 W)`` CSS px.
    """
    return PHONE_COLUMN_PX * min_font_pt / (72 * MIN_TEXT_CSS_PX)


def smallest_font_pt(fig):
    """The size of the smallest text drawn in ``fig`` (points): ``lib.min_font_pt`` of its PNG."""
    return min(t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip())


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
    info = Image.open(BytesIO(data)).info  # the chunks before the pixels: no decoding
    return {key: json.loads(value) for key, value in info.items() if key.startswith("lib.")}


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
    pixels, box, problems = draw_box(fig, CSS_PX_PER_IN * ratio, bbox, check=not fast)
    image = Image.fromarray(pixels, "RGBA")
    if fast and values is None:  # a plain live image: no metadata, fast zlib
        buffer = BytesIO()
        image.save(buffer, format="png", compress_level=1)
        return buffer.getvalue()
    if not fast:
        image = image.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE)
    size = [round(float(v), 4) for v in fig.get_size_inches()]
    return encode_png(image, {"css_width": round(image.width / ratio), "pixel_ratio": ratio,
                              "min_font_pt": smallest_font_pt(fig), "size_in": size,
                              "bbox_in": [round(float(v), 4) for v in box], "values": values,
                              "layout": problems or None},
                      compress_level=1 if fast else SITE_COMPRESSION)


def pixel_box(bbox, dpi):
    """``bbox`` (inches) widened to whole pixels at ``dpi``: ``(left, bottom, right, top)`` px.

    A box read back from a PNG's metadata (rounded to 1e-4 inch) gives the same pixels."""
    x0, y0, x1, y1 = (float(v) * dpi for v in bbox)
    return math.floor(x0 + 0.05), math.floor(y0 + 0.05), math.ceil(x1 - 0.05), math.ceil(y1 - 0.05)


def cut_to_box(pixels, box, facecolor):
    """The part of a figure's ``pixels`` (rows from the top, as Agg draws them) inside
    ``box`` (whole pixels from the figure's bottom left, :func:`pixel_box`); where the
    box reaches past the figure, the figure's ``facecolor``, as ``savefig`` fills it."""
    left, bottom, right, top = box
    height = pixels.shape[0]
    out = np.empty((top - bottom, right - left, pixels.shape[2]), np.uint8)
    out[:] = (np.array(matplotlib.colors.to_rgba(facecolor))[:pixels.shape[2]] * 255).round().astype(np.uint8)
    row, col = height - top, left  # the box's first row and column in ``pixels``
    rows = slice(max(row, 0), min(row + out.shape[0], height))
    cols = slice(max(col, 0), min(col + out.shape[1], pixels.shape[1]))
    out[rows.start - row:rows.stop - row, cols.start - col:cols.stop - col] = pixels[rows, cols]
    return out


def box_in_figure(fig, box, dpi):
    """Whether ``box`` (whole pixels at ``dpi``, as ``pixel_box`` gives them) lies on the figure's own
    canvas, up to ``savefig.pad_inches`` around it: else something of the image was drawn
    outside the figure, which only ``savefig`` draws."""
    pad = matplotlib.rcParams["savefig.pad_inches"]
    width, height = fig.get_size_inches()
    return (min(box[0], box[1]) >= -pad * dpi - 1 and box[2] <= (width + pad) * dpi + 1
            and box[3] <= (height + pad) * dpi + 1)


def draw_box(fig, dpi, bbox=None, check=False):
    """``(RGBA pixels, box in inches, layout problems)``: ``fig`` drawn at ``dpi`` and cut to ``bbox``
    (inches; None: the tight box with ``savefig.pad_inches``), widened to whole pixels,
    so that every frame of an interactive figure sits on the same pixel grid.

    One Agg draw: the layout engine runs in it, with the renderer that then draws, so text
    is measured once (``savefig`` lays out with one renderer and draws with another). The
    same pixels as ``savefig(bbox_inches=box)``; a figure with something drawn outside
    its own area (a label sticking out) is saved that way, since a draw of the figure
    alone would cut it off. With ``check``, :func:`layout_problems` of the figure as drawn
    (else None)."""
    inside = lambda box: box_in_figure(fig, box, dpi)  # noqa: E731
    pixels, problems, box = None, None, None if bbox is None else pixel_box(bbox, dpi)
    original, old_dpi = fig.canvas, fig.dpi
    if box is None or inside(box) or check:  # (a figure that savefig draws is measured here)
        canvas = FigureCanvasAgg(fig)  # (a figure shown in a widget keeps its own canvas)
        try:
            fig.dpi = dpi
            canvas.draw()
            if box is None:
                box = pixel_box(fig.get_tightbbox(canvas.get_renderer()).padded(matplotlib.rcParams["savefig.pad_inches"]).extents, dpi)
            if inside(box):
                pixels = cut_to_box(np.asarray(canvas.buffer_rgba()), box, fig.get_facecolor())
            if check:
                problems = layout_problems(fig, canvas.get_renderer(), box)
        finally:
            fig.set_canvas(original)
            fig.dpi = old_dpi
    inches = [v / dpi for v in box]
    if pixels is None:  # drawn with what sticks out of the figure, as savefig does
        buffer = BytesIO()  # uncompressed TIFF: the RGBA pixels without deflating them
        fig.savefig(buffer, format="tiff", dpi=dpi, bbox_inches=Bbox.from_extents(*inches))
        # savefig truncates the box's size (inches times dpi) to whole pixels: a column or
        # row it may leave out (right, top) in the facecolor, so the image is the box
        pixels = cut_to_box(np.asarray(Image.open(buffer).convert("RGBA")),
                            (0, 0, box[2] - box[0], box[3] - box[1]), fig.get_facecolor())
    return pixels, inches, problems


def _covers(box, line):
    """Whether ``box`` (display pixels) covers part of ``line``: its segments, or for a
    line of markers only, one of its markers."""
    path = line.get_path().transformed(line.get_transform())
    if line.get_linestyle() in ("None", "none", "", " "):
        xy = path.vertices
        return bool(np.any((xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1)))
    return path.intersects_bbox(box, filled=False)


def layout_problems(fig, renderer, box=None):
    """What a reader cannot read in ``fig`` as last drawn with ``renderer``, one sentence
    each (``[]``: nothing): two texts on top of each other, a legend entry drawn over a
    line, a point or a bar of its axes (a framed legend: anything under its frame), and,
    given the ``box`` the image is cut to (whole pixels, as ``pixel_box`` gives them), a text that
    reaches past it (a frame drawn in another frame's box, where a longer label would be cut off). Tick
    labels outside their axis' view, or of axes turned off, are not drawn and not counted,
    nor are the tick labels of 3-D axes. Rotated text is measured by its bounding box: turn
    labels by 90 degrees, not 45, where they stand side by side.

    :func:`figure_png` stores them in the PNG (``lib.layout``), and the book's read-back
    (``tools/check_executed.py``) fails on any figure that has them. Used in: every
    chapter's figures.

    >>> from lib.plots.style import new_figure
    >>> fig = new_figure((3, 2))
    >>> ax = fig.subplots()
    >>> _ = ax.axvline(0.4, label="a vertical line")
    >>> _ = ax.set(xlim=(0, 1), title="title")
    >>> _ = ax.legend(loc="upper left", frameon=False)
    >>> canvas = FigureCanvasAgg(fig); canvas.draw()
    >>> layout_problems(fig, canvas.get_renderer())
    ["legend entry 'a vertical line' is drawn over the line 'a vertical line'"]
    """
    undrawn = set()
    for ax in fig.axes:
        axes = [ax.xaxis, ax.yaxis] + ([ax.zaxis] if ax.name == "3d" else [])
        if ax.name == "3d" or not ax.axison:  # 3-D tick labels are placed when drawn; "off": not drawn
            undrawn |= {t for axis in axes for t in axis.get_ticklabels(which="both")}
            continue
        for axis, k in ((ax.xaxis, 0), (ax.yaxis, 1)):
            if not axis.get_visible():
                undrawn |= set(axis.get_ticklabels(which="both"))
                continue
            lo, hi = sorted(axis.get_view_interval())
            slack = 1e-9 * (hi - lo)
            undrawn |= {t for t in axis.get_ticklabels(which="both") if not lo - slack <= t.get_position()[k] <= hi + slack}
    texts = [t for t in dict.fromkeys(fig.findobj(Text)) if t.get_visible() and t.get_text().strip() and t not in undrawn]
    found = []
    if texts:
        x0, y0, x1, y1 = np.array([t.get_window_extent(renderer).extents for t in texts]).T
    if texts and box is not None:
        out = (x0 < box[0] - 1) | (y0 < box[1] - 1) | (x1 > box[2] + 1) | (y1 > box[3] + 1)
        found += [f"{texts[i].get_text()!r} is cut off at the edge of the image" for i in np.flatnonzero(out)]
    if len(texts) > 1:
        wide = np.minimum(x1[:, None], x1) - np.maximum(x0[:, None], x0) > 1
        high = np.minimum(y1[:, None], y1) - np.maximum(y0[:, None], y0) > 1
        found += [f"{texts[i].get_text()!r} overlaps {texts[j].get_text()!r}"
                  for i, j in zip(*np.nonzero(np.triu(wide & high, 1)))]
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        for entry, text in ([(legend, legend.get_texts()[0])] if legend.get_frame_on() else
                            [(t, t) for t in legend.get_texts()]):
            # the part inside the axes: what lies outside covers none of their (clipped) data
            box, name = Bbox.intersection(entry.get_window_extent(renderer), ax.bbox), f"legend entry {text.get_text()!r}"
            if box is None or min(box.size) <= 1:
                continue
            found += [f"{name} is drawn over the line {line.get_label()!r}" for line in ax.get_lines()
                      if line.get_visible() and len(line.get_xydata()) and _covers(box, line)]
            found += [f"{name} is drawn over the bar {patch.get_label()!r}" for patch in ax.patches
                      if patch.get_visible() and Bbox.intersection(patch.get_window_extent(renderer), box) is not None
                      and min(Bbox.intersection(patch.get_window_extent(renderer), box).size) > 1]
            for points in ax.collections:
                if isinstance(points, PathCollection) and points.get_visible() and len(points.get_offsets()):
                    xy = points.get_offset_transform().transform(points.get_offsets())
                    if np.any((xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1)):
                        found.append(f"{name} is drawn over the points {points.get_label()!r}")
    return found


#: zlib level of the website's PNGs: level 9 writes 1.7 % fewer bytes than 8, for 2.4 times
#: the CPU (120 of the site's images and frames, benchmarks/results.md, round 16).
SITE_COMPRESSION = 8


def encode_png(image, info, compress_level=SITE_COMPRESSION):
    """The PNG bytes of ``image`` (a PIL image) with ``info`` as its ``lib.*`` text chunks.

    ``info`` maps a name to a JSON-able value (None: left out), stored as the chunk
    ``lib.<name>``; :func:`png_info` reads them back. The one writer of the course's
    PNG metadata: :func:`figure_png` and the live redraws (:func:`lib.plots.live.live_png`).

    >>> from PIL import Image
    >>> data = encode_png(Image.new("RGB", (4, 2)), {"css_width": 2, "values": {"n": 1}, "bbox_in": None})
    >>> png_info(data)
    {'lib.css_width': 2, 'lib.values': {'n': 1}}
    """
    chunks = PngImagePlugin.PngInfo()
    for name, value in info.items():
        if value is not None:
            chunks.add_text(f"lib.{name}", json.dumps(value, sort_keys=True))
    out = BytesIO()
    image.save(out, format="png", pnginfo=chunks, compress_level=compress_level)
    return out.getvalue()


def figure_image(fig, values=None, **kwargs):
    """``(png_bytes, metadata)`` for IPython: the metadata gives the display width."""
    data = figure_png(fig, values, **kwargs)
    width = png_info(data).get("lib.css_width") or Image.open(BytesIO(data)).width // PIXEL_RATIO
    return data, {"width": width}


