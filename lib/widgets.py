"""Interactive figures whose callbacks are plain ``lib`` plotting functions.

Every chapter's interactive figure goes through :func:`interactive_figure`
(Chapter 1, section "An interactive candy bag", is the first user). It works in two
settings, told apart by :func:`static_build`:

- **live** (a kernel with a front-end: JupyterLab, Binder, Colab, nbval): the figure
  at its default settings is displayed as an image and the returned box holds the real
  ipywidgets controls; each change redraws the image in place. A redraw runs while the
  kernel is busy, so the front-end holds back further slider values and then sends only
  the latest one (ipywidgets' message throttling): a drag never queues up redraws.
  A redraw keeps the first image's size and box: one Agg draw at 1x, no layout pass,
  fast zlib; images already drawn come from a cache (``LIVE_CACHE`` per figure). When
  the first draw took over ``SLOW_S`` seconds, sliders update on release only.
  **Fast updates** (issue 17: a key press answered within 150 ms): a plot function may
  take a keyword ``fig``; it is then called with the figure it returned last and may
  update that figure's artists in place and return it (or return a new figure). It may
  also list the artists it changes in ``fig._lib_moving`` with a key of
  everything else in ``fig._lib_background``: while the key is unchanged only those
  artists are drawn again, over a copy of the rest (see ``_draw_live``).
- **static build** (the website: the environment variable ``BAYES_COURSE_STATIC=1``,
  set by the site's Sphinx extension ``_ext/static_frames.py`` for the kernels the book
  build starts): the figure is also rendered for a curated set of control values
  (``frames``), and the returned box is a small HTML explorer whose plain-JavaScript
  controls (``_static/explorer.js``) swap the precomputed frames. No ipywidgets are
  shown, and without JavaScript the page shows the default frame as an ordinary image.

The function returns the box *without* displaying it: show it as the value of the next
cell (tag ``remove-input``), because a cell that carries figure metadata (caption,
label, alt text) must have exactly one display output.
"""
import base64
import html
import inspect
import io
import itertools
import json
import os
import time

import ipywidgets as widgets
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Image, display
from matplotlib.backends.backend_agg import FigureCanvasAgg
from PIL import Image as PILImage, PngImagePlugin

from .plotting import CSS_PX_PER_IN, MIN_FONT_PT, figure_image, png_info

__all__ = ["interactive_figure", "static_build", "STATIC_ENV", "FRAME_BUDGET", "SWEEP_FRAMES"]

STATIC_ENV = "BAYES_COURSE_STATIC"
FRAME_BUDGET = 48   # frames per figure on the website (each ~30-60 KB, ~0.2 s to draw)
SWEEP_FRAMES = 21   # values of the main control when ``frames`` does not list them
SLOW_S = 1.0        # first draw (about 3 renders) slower than this: sliders update on release
LIVE_CACHE = 64     # live images kept per figure, by control values (a drag back and forth)


def static_build():
    """True when the notebook runs inside the website build (no reader, no front-end)."""
    return os.environ.get(STATIC_ENV, "") not in ("", "0")


def _plain(value):
    """A JSON value for a control value (numpy scalars and tuples included)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _options(control):
    """``[(label, value), ...]`` of a selection widget, or None for a numeric one."""
    if isinstance(control, widgets.widget_selection._Selection):
        return [(str(label), value) for label, value in zip(control._options_labels, control._options_values)]
    return None


def _sweep(control, count=SWEEP_FRAMES):
    """About ``count`` values over a control's whole range (always incl. its value)."""
    options = _options(control)
    if options is not None:
        values = [value for _, value in options]
        if len(values) > count:
            picks = np.unique(np.linspace(0, len(values) - 1, count).round().astype(int))
            values = [values[i] for i in picks]
    elif isinstance(control, widgets.FloatLogSlider):
        values = list(control.base ** np.linspace(control.min, control.max, count))
    elif isinstance(control, (widgets.IntSlider, widgets.FloatSlider, widgets.BoundedIntText,
                              widgets.BoundedFloatText)):
        values = list(np.linspace(control.min, control.max, count))
        if isinstance(control, (widgets.IntSlider, widgets.BoundedIntText)):
            values = sorted(set(int(round(v)) for v in values))
    else:
        values = []
    return values


def _frame_values(controls, frames):
    """``{name: [values]}`` for the explorer: every control, each incl. its default."""
    if frames is None:
        first = next(iter(controls))
        frames = {first: _sweep(controls[first])}
    if not isinstance(frames, dict):
        raise TypeError(f"frames must be a dict {{control name: values}}, got {type(frames).__name__}")
    unknown = set(frames) - set(controls)
    if unknown:
        raise ValueError(f"frames names unknown controls {sorted(unknown)}; controls are {list(controls)}")
    axes = {}
    for name, control in controls.items():
        values = list(frames.get(name, []))
        if not all(_same_type(v, control.value) for v in values):
            raise TypeError(f"frames[{name!r}] must hold values of the control's type "
                            f"({type(control.value).__name__}), got {values!r}")
        values = [_snap(control, v) for v in values]
        if not any(_equal(v, control.value) for v in values):
            values.append(control.value)
        unique = []
        for v in values:
            if not any(_equal(v, u) for u in unique):
                unique.append(v)
        options = _options(control)
        if options is None:
            if all(isinstance(v, (int, float, np.number)) for v in unique):
                unique.sort()
        else:
            order = [value for _, value in options]
            unique.sort(key=lambda v: next(i for i, o in enumerate(order) if _equal(o, v)))
        axes[name] = unique
    total = int(np.prod([len(v) for v in axes.values()]))
    if total > FRAME_BUDGET:
        raise ValueError(f"frames ask for {total} frames ({' x '.join(str(len(v)) for v in axes.values())}); "
                         f"the budget is {FRAME_BUDGET} per figure")
    return axes


def _same_type(value, default):
    if isinstance(default, (bool, str)) or isinstance(value, (bool, str)):
        return type(value) is type(default)
    if isinstance(default, (int, float, np.number)):
        return isinstance(value, (int, float, np.number))
    return True


def _equal(a, b):
    if isinstance(a, (float, np.floating)) or isinstance(b, (float, np.floating)):
        return bool(np.isclose(a, b, rtol=1e-9, atol=1e-12))
    return bool(np.all(np.asarray(a, dtype=object) == np.asarray(b, dtype=object))) if not isinstance(a, str) else a == b


def _snap(control, value):
    """``value`` as the control itself would hold it (so frames match what a reader sets)."""
    options = _options(control)
    if options is not None:
        for _, option in options:
            if _equal(option, value):
                return option
        raise ValueError(f"frames value {_plain(value)!r} is not an option of control {control.description!r}")
    if hasattr(control, "min") and not isinstance(control, widgets.FloatLogSlider):
        slack = 1e-9 * (control.max - control.min)
        if not control.min - slack <= value <= control.max + slack:
            raise ValueError(f"frames value {_plain(value)!r} is outside control {control.description!r}'s "
                             f"range [{control.min}, {control.max}]")
        value = min(max(value, control.min), control.max)
    if isinstance(control.value, int) and not isinstance(control.value, bool):
        return int(value)
    if isinstance(control.value, float):
        return float(value)
    return value


def _label(control, value):
    options = _options(control)
    if options is not None:
        return next(label for label, option in options if _equal(option, value))
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def _draw(plot, values, fixed, **png):
    fig = plot(**values, **fixed)
    plt.close(fig)  # keep pyplot from showing the figure a second time
    return figure_image(fig, {k: _plain(v) for k, v in values.items()}, **png)


def _key(values):
    return json.dumps({k: _plain(v) for k, v in values.items()}, sort_keys=True)


def _accepts_fig(plot):
    """Whether ``plot`` takes ``fig=`` (the fast-update protocol, see ``interactive_figure``)."""
    try:
        return "fig" in inspect.signature(plot).parameters
    except (TypeError, ValueError):  # a builtin or C callable: no signature to read
        return False


def _raise_fonts(fig):
    """Text under ``MIN_FONT_PT`` raised to it: what ``figure_png`` does, without making
    the ticks that ``findobj`` would create (ticks made at draw time copy the first one)."""
    texts = list(fig.texts) + [t for t in (getattr(fig, "_suptitle", None),) if t is not None]
    for ax in fig.axes:
        texts += [*ax.texts, ax.title, ax._left_title, ax._right_title]
        legend = ax.get_legend()
        if legend is not None:
            texts += [*legend.get_texts(), legend.get_title()]
        for axis in ax._axis_map.values():
            texts += [axis.label, axis.offsetText]
            for tick in [*axis.majorTicks, *axis.minorTicks]:
                texts += [tick.label1, tick.label2]
    for text in texts:
        if text.get_fontsize() < MIN_FONT_PT:
            text.set_fontsize(MIN_FONT_PT)


def _frame(fig, data):
    """What every live redraw keeps of the first image ``data`` of ``fig``: figure size,
    box (inches), pixel shape, and where the layout put the axes."""
    info = png_info(data)
    shape = PILImage.open(io.BytesIO(data)).size[::-1]
    title = getattr(fig, "_suptitle", None)
    return {"size": info["lib.size_in"], "bbox": info["lib.bbox_in"], "shape": shape,
            "positions": [ax.get_position(original=False) for ax in fig.axes],
            "suptitle": None if title is None else title.get_position()}


def _draw_live(fig):
    """Draw ``fig`` on its Agg canvas; only its moving artists when nothing else changed.

    A plot function that updates its figure in place may list the artists it changes in
    ``fig._lib_moving`` (axes, lines, texts, ...) and describe everything else by a
    hashable ``fig._lib_background``. While that key stays the same, the rest of the
    figure is restored from a copy of its pixels. The moving artists are animated (left
    out of a canvas draw) only while the background is drawn here, so ``savefig`` of
    the figure still shows all of it (an animated axes or suptitle it would leave out).
    """
    moving = getattr(fig, "_lib_moving", None)
    if not moving:
        fig.canvas.draw()
        return
    key = getattr(fig, "_lib_background", None)
    if getattr(fig, "_lib_drawn_background", None) != (key, fig.dpi):
        animated = [artist.get_animated() for artist in moving]
        for artist in moving:
            artist.set_animated(True)
        try:
            fig.canvas.draw()  # everything but the moving artists
        finally:
            for artist, was in zip(moving, animated):
                artist.set_animated(was)
        fig._lib_pixels = fig.canvas.copy_from_bbox(fig.bbox)
        fig._lib_drawn_background = (key, fig.dpi)
    else:
        fig.canvas.restore_region(fig._lib_pixels)
    for artist in sorted(moving, key=lambda a: a.get_zorder()):
        fig.draw_artist(artist)


def _live_png(fig, values, frame):
    """A live redraw: one Agg draw at 1x, cut to the first image's box, fast zlib.

    ``frame`` (see ``_frame``): a new figure takes the first one's size and, when it has
    as many axes, their positions (no layout pass); a figure updated in place by the
    plot function (the fast-update protocol) keeps its own.
    """
    _raise_fonts(fig)  # also text that an update in place has added
    if not getattr(fig, "_lib_live", False):
        fig.set_size_inches(frame["size"])
        if len(fig.axes) == len(frame["positions"]):
            for ax, position in zip(fig.axes, frame["positions"]):
                ax.set_position(position)
            if frame["suptitle"] is not None and getattr(fig, "_suptitle", None) is not None:
                fig._suptitle.set_position(frame["suptitle"])
            fig.set_layout_engine("none")
        fig._lib_live = True
    fig.set_dpi(CSS_PX_PER_IN)
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    _draw_live(fig)
    pixels = np.asarray(fig.canvas.buffer_rgba())
    height = pixels.shape[0]
    x0, y0, x1, y1 = (v * CSS_PX_PER_IN for v in frame["bbox"])
    shape = tuple(frame["shape"])  # the first image's pixels exactly
    out = np.empty(shape + (3,), np.uint8)  # the box may stick out of the figure
    out[:] = (np.array(matplotlib.colors.to_rgb(fig.get_facecolor())) * 255).round().astype(np.uint8)
    top, left = int(round(height - y1)), int(round(x0))
    rows = slice(max(top, 0), min(top + shape[0], height))
    cols = slice(max(left, 0), min(left + shape[1], pixels.shape[1]))
    out[rows.start - top:rows.stop - top, cols.start - left:cols.stop - left] = pixels[rows, cols, :3]
    info = PngImagePlugin.PngInfo()
    info.add_text("lib.css_width", json.dumps(out.shape[1]))
    info.add_text("lib.pixel_ratio", "1")
    info.add_text("lib.size_in", json.dumps([round(float(v), 4) for v in fig.get_size_inches()]))
    info.add_text("lib.bbox_in", json.dumps(list(frame["bbox"])))
    info.add_text("lib.values", json.dumps(values, sort_keys=True))
    buffer = io.BytesIO()
    PILImage.fromarray(out).save(buffer, format="png", pnginfo=info, compress_level=1)
    return buffer.getvalue()


class _PNG:
    """A display object: the PNG image plus the values it was drawn for (live mode)."""

    def __init__(self, data, metadata, values, draw_ms=None):
        self.data, self.metadata, self.values, self.draw_ms = data, metadata, values, draw_ms

    def _repr_mimebundle_(self, include=None, exclude=None):
        encoded = base64.b64encode(self.data).decode("ascii")
        values = html.escape(json.dumps({k: _plain(v) for k, v in self.values.items()}, sort_keys=True))
        drawn = "" if self.draw_ms is None else f' data-draw-ms="{self.draw_ms:.1f}"'  # kernel time
        tag = (f'<img src="data:image/png;base64,{encoded}" width="{self.metadata["width"]}" '
               f'data-values="{values}"{drawn} alt="interactive figure">')
        return {"image/png": encoded, "text/html": tag}, {"image/png": self.metadata}


class StaticExplorer:
    """The website's stand-in for the controls: HTML over precomputed frames."""

    def __init__(self, controls, axes, frames):
        self.controls, self.axes, self.frames = controls, axes, frames

    def _repr_html_(self):
        parts = ['<div class="lib-explorer" data-explorer="1">',
                 '<p class="lib-explorer-note">Precomputed views: choose a setting below to see '
                 'the figure drawn for it. Every other setting, and the full widget, runs in a '
                 'live session (launch this page on Binder, Colab or JupyterHub with the '
                 'rocket button at the top).</p>',
                 '<div class="lib-explorer-controls" hidden>']
        for name, values in self.axes.items():
            if len(values) < 2:
                continue
            control = self.controls[name]
            labels = [_label(control, v) for v in values]
            default = next(i for i, v in enumerate(values) if _equal(v, control.value))
            title = html.escape(control.description or name)
            data = html.escape(json.dumps([_plain(v) for v in values]))
            label_data = html.escape(json.dumps(labels))
            if (_options(control) is not None and not isinstance(control, widgets.SelectionSlider)) \
                    or isinstance(control.value, str):
                options = "".join(f'<option value="{i}"{" selected" if i == default else ""}>'
                                  f'{html.escape(label)}</option>' for i, label in enumerate(labels))
                field = f'<select data-control="{html.escape(name)}" data-values="{data}">{options}</select>'
            else:
                field = (f'<input type="range" min="0" max="{len(values) - 1}" step="1" value="{default}" '
                         f'data-control="{html.escape(name)}" data-values="{data}" data-labels="{label_data}">'
                         f'<output>{html.escape(labels[default])}</output>')
            parts.append(f'<label class="lib-explorer-control"><span>{title}</span>{field}</label>')
        parts.append('</div><div class="lib-explorer-frames" hidden>')
        for values, data in self.frames:
            encoded = base64.b64encode(data).decode("ascii")
            parts.append(f'<span data-values="{html.escape(json.dumps(values, sort_keys=True))}" '
                         f'data-src="data:image/png;base64,{encoded}"></span>')
        parts.append("</div></div>")
        return "".join(parts)

    def __repr__(self):
        return f"<static explorer over {len(self.frames)} frames>"


def interactive_figure(plot, controls, *, frames=None, **fixed):
    """Show ``plot(**defaults, **fixed)`` as an image plus controls that redraw it.

    Parameters
    ----------
    plot : callable
        A ``lib`` function that takes keyword arguments and returns a matplotlib
        ``Figure``. It is called once with the controls' default values (the static
        image) and again, with the new values, whenever a control changes. If it takes
        a keyword ``fig``, live redraws pass the figure it returned before, for it to
        update in place (the fast-update protocol, module docstring).
    controls : dict
        Maps keyword names of ``plot`` to ipywidgets value widgets
        (``IntSlider``, ``Dropdown``, ``ToggleButtons``, ...).
    frames : dict, optional
        For the website: ``{control name: [values]}`` to precompute; every combination
        is drawn (at most ``FRAME_BUDGET``), and each control's default value is always
        included. Controls not named stay at their default. Default: the first control
        over ``SWEEP_FRAMES`` values of its range.
    **fixed
        Further keyword arguments passed to ``plot`` unchanged (data, for example).

    Returns
    -------
    ipywidgets.VBox or StaticExplorer
        The controls (live) or the HTML explorer (static build), not yet displayed:
        end the next cell with it.

    Examples
    --------
    >>> box = interactive_figure(plot_posteriors,  # doctest: +SKIP
    ...                          {"n": widgets.IntSlider(value=3, min=0, max=10)},
    ...                          frames={"n": range(11)})
    >>> box  # in the next cell  # doctest: +SKIP
    """
    if not callable(plot):
        raise TypeError(f"plot must be callable, got {type(plot).__name__}")
    if not isinstance(controls, dict) or not controls:
        raise ValueError("interactive_figure needs a dict with at least one control")
    for name, control in controls.items():
        if not isinstance(control, widgets.ValueWidget):
            raise TypeError(f"control {name!r} is not an ipywidgets value widget")
    axes = _frame_values(controls, frames)
    defaults = {name: c.value for name, c in controls.items()}

    if static_build():
        data, metadata = _draw(plot, defaults, fixed)
        info = png_info(data)  # every frame is drawn at the default's size and box
        size, bbox = info["lib.size_in"], info["lib.bbox_in"]
        display(Image(data=data, format="png", width=metadata["width"]))
        rendered = []
        for combo in itertools.product(*axes.values()):
            values = dict(zip(axes, combo))
            key = {k: _plain(v) for k, v in values.items()}
            png = data if all(_equal(values[k], defaults[k]) for k in values) else _draw(plot, values, fixed, size=size, bbox=bbox)[0]
            rendered.append((key, png))
        for control in controls.values():
            control.close()
        return StaticExplorer(controls, axes, rendered)

    start = time.perf_counter()
    state = {"fig": plot(**defaults, **fixed)}
    plt.close(state["fig"])  # keep pyplot from showing the figure a second time
    first = _PNG(*figure_image(state["fig"], {k: _plain(v) for k, v in defaults.items()}, fast=True), defaults)
    if time.perf_counter() - start > SLOW_S:
        for control in controls.values():
            if hasattr(control, "continuous_update"):
                control.continuous_update = False
    handle = display(first, display_id=True)
    frame = _frame(state["fig"], first.data)  # redraws keep the first image's size and box
    reuse = _accepts_fig(plot)
    state["fig"]._lib_live = True  # fonts raised, size set and layout done by the first image
    if state["fig"].get_layout_engine() is not None:
        state["fig"].set_layout_engine("none")
    cache = {_key(defaults): first.data}

    def redraw(change):
        start = time.perf_counter()
        values = {name: c.value for name, c in controls.items()}
        key = _key(values)
        data = cache.pop(key, None)
        if data is None:
            previous = state["fig"]
            fig = plot(**values, **fixed, fig=previous) if reuse else plot(**values, **fixed)
            plt.close(fig)
            data = _live_png(fig, {k: _plain(v) for k, v in values.items()}, frame)
            state["fig"] = fig
        cache[key] = data  # most recent last; the oldest go first
        while len(cache) > LIVE_CACHE:
            del cache[next(iter(cache))]
        handle.update(_PNG(data, first.metadata, values, 1000 * (time.perf_counter() - start)))

    for control in controls.values():
        control.observe(redraw, names="value")
    return widgets.VBox(list(controls.values()))
