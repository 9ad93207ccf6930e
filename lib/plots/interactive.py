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
  take a keyword ``live``; every call then gets the same :class:`LiveFigure`, in which
  it keeps its figure and artists and updates them in place. It may also list the
  artists an update changes (``LiveFigure.blit``) with a key of everything else: while
  the key is unchanged only those artists are drawn again, over a copy of the rest.
  Each image carries a description of what it shows (``alt``, :func:`describe_values`).
- **static build** (the website: the environment variable ``BAYES_COURSE_STATIC=1``,
  set by the site's Sphinx extension ``_ext/static_frames.py`` for the kernels the book
  build starts): the figure is also rendered for a curated set of control values
  (``frames``), each as a kernel redraws it (updated in place, at the default image's
  size, box and layout, by :func:`~lib.plots.live.live_png`) but at the website's 2x, so
  a frame is the picture a reader's kernel shows for the same values (a frame whose text
  that layout would cut off or overlap is laid out afresh in the same box); the returned box
  is a small HTML explorer whose plain-JavaScript
  controls (``_static/explorer.js``) swap the precomputed frames. No ipywidgets are
  shown, and without JavaScript the page shows the default frame as an ordinary image.

The function returns the box *without* displaying it: show it as the value of the next
cell (tag ``remove-input``), because a cell that carries figure metadata (caption,
label, alt text) must have exactly one display output.
"""
import base64
import html
import inspect
import itertools
import json
import os
import time
from collections.abc import Mapping

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Image, display

from .export import PIXEL_RATIO, figure_image, figure_png, png_info
from .live import LiveFigure, first_frame, live_png

__all__ = ["interactive_figure", "describe_values", "static_build", "STATIC_ENV", "FRAME_BUDGET", "SWEEP_FRAMES"]

#: The environment variable that asks for the website's kernel-free frames.
STATIC_ENV = "BAYES_COURSE_STATIC"
#: Frames per figure on the website (each ~30-60 KB, ~0.1 s to draw).
FRAME_BUDGET = 48
#: Values of the main control when ``frames`` does not list them.
SWEEP_FRAMES = 21
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


_SELECTIONS = (widgets.Dropdown, widgets.RadioButtons, widgets.Select, widgets.SelectionSlider,
               widgets.ToggleButtons)


def _options(control):
    """``[(label, value), ...]`` of a selection widget, or None for a numeric one.

    Read from the public ``options`` the way ipywidgets reads them: a mapping or a list
    of ``(label, value)`` pairs, or else a list of values labelled by ``str``.
    """
    if not isinstance(control, _SELECTIONS):
        return None
    options = control.options
    if isinstance(options, Mapping):
        options = options.items()
    options = list(options)
    if all(isinstance(o, (list, tuple)) and len(o) == 2 for o in options):
        return [(str(label), value) for label, value in options]
    return [(str(o), o) for o in options]


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


def describe_values(controls, values, alt=None):
    """The description (alt text) of the figure drawn for ``values``.

    ``alt``: a ``str.format`` template over the control names (``"{n} draws"``), a
    callable taking the values as keywords and returning a string, or None for
    ``"Interactive figure: n = 3, prior = uniform"`` (each control's description and
    the label it shows). Used for every frame and live image of :func:`interactive_figure`.
    """
    if alt is None:
        shown = ", ".join(f"{c.description or name} = {_label(c, values[name])}" for name, c in controls.items())
        return f"Interactive figure: {shown}"
    text = alt(**values) if callable(alt) else alt.format(**values)
    if not isinstance(text, str):
        raise TypeError(f"alt must give a string, got {type(text).__name__}")
    return text


def _key(values):
    return json.dumps({k: _plain(v) for k, v in values.items()}, sort_keys=True)


def _accepts_live(plot):
    """Whether ``plot`` takes ``live=`` (a :class:`LiveFigure` to update in place)."""
    try:
        return "live" in inspect.signature(plot).parameters
    except (TypeError, ValueError):  # a builtin or C callable: no signature to read
        return False


class _PNG:
    """A display object: the PNG image plus the values it was drawn for (live mode)."""

    def __init__(self, data, metadata, values, draw_ms=None, alt="interactive figure"):
        self.data, self.metadata, self.values, self.draw_ms, self.alt = data, metadata, values, draw_ms, alt

    def _repr_mimebundle_(self, include=None, exclude=None):
        encoded = base64.b64encode(self.data).decode("ascii")
        values = html.escape(json.dumps({k: _plain(v) for k, v in self.values.items()}, sort_keys=True))
        drawn = "" if self.draw_ms is None else f' data-draw-ms="{self.draw_ms:.1f}"'  # kernel time
        tag = (f'<img src="data:image/png;base64,{encoded}" width="{self.metadata["width"]}" '
               f'data-values="{values}"{drawn} alt="{html.escape(self.alt)}">')
        return {"image/png": encoded, "text/html": tag}, {"image/png": self.metadata}


class StaticExplorer:
    """The website's stand-in for the controls: HTML over precomputed frames."""

    def __init__(self, controls, axes, frames, alts=None):
        self.controls, self.axes, self.frames = controls, axes, frames
        self.alts = alts or [""] * len(frames)  # each frame's description

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
        for (values, data), alt in zip(self.frames, self.alts):
            encoded = base64.b64encode(data).decode("ascii")
            parts.append(f'<span data-values="{html.escape(json.dumps(values, sort_keys=True))}" '
                         f'data-src="data:image/png;base64,{encoded}" data-alt="{html.escape(alt)}"></span>')
        parts.append("</div></div>")
        return "".join(parts)

    def __repr__(self):
        return f"<static explorer over {len(self.frames)} frames>"


def interactive_figure(plot, controls, *, frames=None, alt=None, **fixed):
    """Show ``plot(**defaults, **fixed)`` as an image plus controls that redraw it.

    Parameters
    ----------
    plot : callable
        A ``lib`` function that takes keyword arguments and returns a matplotlib
        ``Figure``. It is called once with the controls' default values (the static
        image) and again, with the new values, whenever a control changes. If it takes
        a keyword ``live``, every call gets the same :class:`LiveFigure`, for the plot
        function to update its figure in place (the fast-update protocol, module docstring).
    controls : dict
        Maps keyword names of ``plot`` to ipywidgets value widgets
        (``IntSlider``, ``Dropdown``, ``ToggleButtons``, ...).
    frames : dict, optional
        For the website: ``{control name: [values]}`` to precompute; every combination
        is drawn (at most ``FRAME_BUDGET``), and each control's default value is always
        included. Controls not named stay at their default. Default: the first control
        over ``SWEEP_FRAMES`` values of its range.
    alt : str or callable, optional
        The description of each frame and live image (see :func:`describe_values`):
        a ``str.format`` template over the control names or a callable taking the
        values; default ``"Interactive figure: n = 3, prior = uniform"``.
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
    if not (alt is None or isinstance(alt, str) or callable(alt)):
        raise TypeError(f"alt must be a str.format template, a callable or None, got {type(alt).__name__}")
    axes = _frame_values(controls, frames)
    defaults = {name: c.value for name, c in controls.items()}
    describe = lambda values: describe_values(controls, values, alt)  # noqa: E731

    start = time.perf_counter()
    live = LiveFigure()
    reuse = _accepts_live(plot)

    def draw(values):  # the figure for ``values`` in ``live``: updated in place, or a new one
        if reuse:
            plot(**values, **fixed, live=live)
        else:
            live.start(plot(**values, **fixed))
        plt.close(live.fig)  # keep pyplot from showing the figure a second time

    draw(defaults)
    shown = {k: _plain(v) for k, v in defaults.items()}  # the default values, as a PNG records them
    if static_build():
        # the default frame as every figure is exported; the others as a reader's kernel
        # redraws them (the default's size, box and layout), at the website's 2x
        data, metadata = figure_image(live.fig, shown)
        display(Image(data=data, format="png", width=metadata["width"], metadata={"alt": describe(defaults)}))
        frame = first_frame(live.fig, data)
        live.freeze()
        rendered, alts = [], []
        for combo in itertools.product(*axes.values()):
            values = dict(zip(axes, combo))
            key = {k: _plain(v) for k, v in values.items()}
            if all(_equal(values[k], defaults[k]) for k in values):
                png = data
            else:
                draw(values)
                png = live_png(live, key, frame, ratio=PIXEL_RATIO)
                if png_info(png).get("lib.layout"):  # the default's layout cannot hold these values
                    fig = plot(**values, **fixed)    # (wider tick labels): laid out afresh in the same box
                    plt.close(fig)
                    png = figure_png(fig, key, size=frame["size"], bbox=frame["bbox"])
            rendered.append((key, png))
            alts.append(describe(values))
        for control in controls.values():
            control.close()
        return StaticExplorer(controls, axes, rendered, alts)

    live.alt = describe(defaults)
    first = _PNG(*figure_image(live.fig, shown, fast=True), defaults,
                 alt=live.alt)
    if time.perf_counter() - start > SLOW_S:
        for control in controls.values():
            if hasattr(control, "continuous_update"):
                control.continuous_update = False
    handle = display(first, display_id=True)
    frame = first_frame(live.fig, first.data)  # redraws keep the first image's size and box
    live.freeze()  # fonts raised, size set and layout done by the first image
    cache = {_key(defaults): first.data}

    def redraw(change):
        start = time.perf_counter()
        values = {name: c.value for name, c in controls.items()}
        key = _key(values)
        data = cache.pop(key, None)
        if data is None:
            draw(values)
            data = live_png(live, {k: _plain(v) for k, v in values.items()}, frame)
        cache[key] = data  # most recent last; the oldest go first
        while len(cache) > LIVE_CACHE:
            del cache[next(iter(cache))]
        live.alt = describe(values)
        handle.update(_PNG(data, first.metadata, values, 1000 * (time.perf_counter() - start), alt=live.alt))

    for control in controls.values():
        control.observe(redraw, names="value")
    return widgets.VBox(list(controls.values()))
