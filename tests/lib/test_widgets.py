"""lib.plots.interactive (interactive figures, live and static), lib.plots.live and lib.plots.export
and lib.plots.style (figures for the site),
plus the site's Sphinx extension _ext/static_frames.py that moves the frames out of pages."""
import ast
import html
import inspect
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import ipywidgets as widgets
import matplotlib
import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

import lib.plots.interactive as lw
from lib.plots.export import (
    CSS_PX_PER_IN,
    MIN_FONT_PT,
    PHONE_COLUMN_PX,
    PIXEL_RATIO,
    figure_png,
    max_width_in,
    png_info,
)
from lib.plots.live import LiveFigure, first_frame, live_png
from lib.plots.style import new_figure, use_course_style

ROOT = Path(__file__).resolve().parents[2]


def plot_line(slope=1.0, label="a", width=4.0):
    """A small figure whose drawing depends on every argument."""
    fig = new_figure((width, 2.5))
    ax = fig.subplots()
    ax.plot([0, 1], [0, slope], label=label)
    ax.set_title(f"slope {slope:g}, {label}")
    ax.legend(fontsize=6)
    return fig


def plot_values(slope=1.0, label="a"):
    """The cheapest figure that shows its values: for tests of what an explorer lists or
    describes, not of its images (a frame of plot_line costs 30 times as much to draw)."""
    fig = new_figure((1.5, 0.4), layout=None)
    fig.text(0.5, 0.5, f"{slope:g} {label}", ha="center")
    return fig


def controls():
    return {"slope": widgets.FloatSlider(value=1.0, min=-2, max=2, step=0.5, description="slope"),
            "label": widgets.Dropdown(options=[("first", "a"), ("second", "b")], value="a", description="label")}


@pytest.fixture(autouse=True)
def _course_style_and_close_figures():
    """The chapters' style (their set-up cell calls ``use_course_style``), undone after each
    test; plot functions that draw through pyplot keep their figures open: close them."""
    with matplotlib.rc_context():
        use_course_style()
        yield
    import matplotlib.pyplot as plt
    plt.close("all")


@pytest.fixture
def static(monkeypatch):
    monkeypatch.setenv(lw.STATIC_ENV, "1")
    shown = []
    monkeypatch.setattr(lw, "display", lambda obj, **kw: shown.append(obj))
    return shown


class _Handle:
    """A display handle: its updates go to ``shown``."""

    def __init__(self, shown):
        self.shown = shown

    def update(self, obj):
        self.shown.append(obj)


@pytest.fixture
def shown_live(monkeypatch):
    """A live kernel's display: the images shown and their updates, in order."""
    monkeypatch.delenv(lw.STATIC_ENV, raising=False)
    shown = []
    monkeypatch.setattr(lw, "display", lambda obj, **kw: shown.append(obj) or _Handle(shown))
    return shown


def frames_of(html_text):
    return [(json.loads(html.unescape(v)), src) for v, src in
            re.findall(r'<span data-values="([^"]*)" data-src="([^"]*)"', html_text)]


def test_static_build_follows_the_environment(monkeypatch):
    monkeypatch.delenv(lw.STATIC_ENV, raising=False)
    assert not lw.static_build()
    monkeypatch.setenv(lw.STATIC_ENV, "0")
    assert not lw.static_build()
    monkeypatch.setenv(lw.STATIC_ENV, "1")
    assert lw.static_build()


def test_static_frames_are_the_figures_drawn_for_their_values(static):
    box = lw.interactive_figure(plot_line, controls(), frames={"slope": [-2, 0, 2], "label": ["a", "b"]}, width=4.0)
    assert isinstance(box, lw.StaticExplorer)
    # the default (1.0) is added to the listed slopes: 4 x 2 frames, in control order
    assert box.axes == {"slope": [-2.0, 0.0, 1.0, 2.0], "label": ["a", "b"]}
    frames = frames_of(box._repr_html_())
    assert [v for v, _ in frames] == [{"slope": s, "label": l} for s in (-2.0, 0.0, 1.0, 2.0) for l in "ab"]
    # the default frame is the page's own image, exported as every figure is; it fixes the
    # size, box and layout of the others
    default = plot_line(1.0, "a", width=4.0)
    first = figure_png(default, {"slope": 1.0, "label": "a"})
    frame = first_frame(default, first)
    for values, src in frames:
        data = __import__("base64").b64decode(src.split(",", 1)[1])
        info = png_info(data)
        assert info["lib.values"] == values and info["lib.pixel_ratio"] == PIXEL_RATIO
        assert info["lib.bbox_in"] == png_info(first)["lib.bbox_in"]
        # byte for byte the image of an independent drawing for those values, as a kernel
        # redraws it (in the default's layout) but at the website's 2x; where that layout
        # cuts off the wider tick labels of a negative slope, laid out afresh in the same box
        expected = first if values == {"slope": 1.0, "label": "a"} else \
            live_png(LiveFigure(plot_line(**values, width=4.0)), values, frame, ratio=PIXEL_RATIO)
        if "lib.layout" in png_info(expected):
            expected = figure_png(plot_line(**values, width=4.0), values, size=frame["size"], bbox=frame["bbox"])
        assert data == expected, values
    # distinct values give distinct pictures
    assert len({src for _, src in frames}) == len(frames)
    # the page shows the default frame as an ordinary image (no JavaScript needed)
    assert len(static) == 1 and static[0].format == "png"
    assert png_info(static[0].data)["lib.values"] == {"slope": 1.0, "label": "a"}


def test_a_frame_the_default_layout_cannot_hold_is_laid_out_afresh(static):
    """Drawn in the default's layout, the frame for slope 5000 would cut its wider tick
    labels off at the image's edge (``lib.layout`` says so): the explorer lays it out
    afresh in the same box instead, as ``figure_png`` exports any figure."""
    slope = {"slope": widgets.FloatSlider(value=1.0, min=0, max=5000, description="slope")}
    box = lw.interactive_figure(plot_line, slope, frames={"slope": [5000.0]})
    (_, first), (_, wide) = ((v, __import__("base64").b64decode(src.split(",", 1)[1]))
                             for v, src in frames_of(box._repr_html_()))
    default = plot_line(1.0)
    frame = first_frame(default, figure_png(default, {"slope": 1.0}))
    cut = live_png(LiveFigure(plot_line(5000.0)), {"slope": 5000.0}, frame, ratio=PIXEL_RATIO)
    assert any("cut off at the edge" in p for p in png_info(cut)["lib.layout"])  # the premise
    assert "lib.layout" not in png_info(wide)
    assert wide == figure_png(plot_line(5000.0), {"slope": 5000.0}, size=frame["size"], bbox=frame["bbox"])
    assert _pixels(wide).shape == _pixels(first).shape


def _earthquake():
    """Chapter 6's burglary-earthquake network (its evidence explorer)."""
    from lib.bn import BayesNet
    tf = ["true", "false"]
    return BayesNet([("Q", tf, [], [0.0001, 0.9999]), ("B", tf, [], [0.001, 0.999]),
                     ("R", tf, ["Q"], [[0.999, 0.001], [0.0005, 0.9995]]),
                     ("A", tf, ["Q", "B"], [[0.999, 0.001], [0.8, 0.2], [0.95, 0.05], [0.001, 0.999]]),
                     ("C", tf, ["A"], [[0.9, 0.1], [0.01, 0.99]])])


# (plot, the chapter's default values, other values)
KEEP_LAYOUT = [("plot_beta_update", {}, dict(a=0.5, b=10.0, heads=0, tails=1)),
               ("plot_beta_update", {}, dict(a=10.0, b=10.0, heads=30, tails=1)),
               ("plot_beta_update", {}, dict(a=0.5, b=0.5, heads=10, tails=1)),
               ("plot_version_space", dict(m=3), dict(m=0)), ("plot_version_space", dict(m=3), dict(m=1)),
               ("plot_version_space", dict(m=3), dict(m=2, prior="short intervals")),
               ("plot_evidence_explorer", dict(C="true", n_samples=1000), dict(n_samples=20000)),
               ("plot_evidence_explorer", dict(C="true", n_samples=1000), dict(A="true", C="true", R="true", n_samples=20000))]


@pytest.mark.parametrize("name, default, values", KEEP_LAYOUT)
def test_explorer_frames_keep_the_default_layout(name, default, values):
    """Chapter 2's Beta-update, chapter 1's version-space and chapter 6's evidence
    explorers: frames whose text is wider than the default's (tick labels of densities up
    to 10 or posteriors of 0.015, a value label next to a bar near 1, the estimate's legend
    entry for 20,000 samples) keep the default's layout, in the website's frames and in a
    reader's kernel alike: no text leaves the image, and no frame needs a fresh layout."""
    import lib.plots.bayes
    import lib.plots.bn
    import lib.plots.estimation
    plot = next(getattr(m, name) for m in (lib.plots.bayes, lib.plots.bn, lib.plots.estimation) if hasattr(m, name))
    fixed = {"net": _earthquake(), "seed": 0} if name == "plot_evidence_explorer" else {}
    first = plot(**default, **fixed)
    frame = first_frame(first, figure_png(first, default))
    png = live_png(LiveFigure(plot(**values, **fixed)), values, frame, ratio=PIXEL_RATIO)
    assert "lib.layout" not in png_info(png), png_info(png)["lib.layout"]


def test_static_explorer_html_controls(static):
    box = lw.interactive_figure(plot_values, controls(), frames={"slope": [-2, 2]})
    text = box._repr_html_()
    # controls are hidden until the script shows them: no control that cannot move the figure
    assert '<div class="lib-explorer-controls" hidden>' in text
    assert text.count('type="range"') == 1 and "<select" not in text  # label has one value only
    assert 'data-values="[-2.0, 1.0, 2.0]"' in text and 'value="1"' in text
    assert "live session" in text
    box = lw.interactive_figure(plot_values, controls(), frames={"label": ["a", "b"]})
    text = box._repr_html_()
    assert "<select" in text and ">second</option>" in text and 'type="range"' not in text


def test_default_frames_sweep_the_first_control(static):
    box = lw.interactive_figure(plot_values, {"slope": widgets.IntSlider(value=3, min=0, max=100)})
    assert box.axes["slope"][0] == 0 and box.axes["slope"][-1] == 100 and 3 in box.axes["slope"]
    assert len(box.axes["slope"]) <= lw.SWEEP_FRAMES + 1


def test_frame_declarations_are_checked(static):
    with pytest.raises(ValueError, match="budget"):
        lw.interactive_figure(plot_line, controls(), frames={"slope": list(np.linspace(-2, 2, 41)),
                                                             "label": ["a", "b"], })
    with pytest.raises(ValueError, match="unknown controls"):
        lw.interactive_figure(plot_line, controls(), frames={"intercept": [0]})
    with pytest.raises(ValueError, match="outside"):
        lw.interactive_figure(plot_line, controls(), frames={"slope": [5]})
    with pytest.raises(ValueError, match="not an option"):
        lw.interactive_figure(plot_line, controls(), frames={"label": ["c"]})
    with pytest.raises(TypeError, match="frames must be a dict"):
        lw.interactive_figure(plot_line, controls(), frames=[1, 2])
    with pytest.raises(TypeError, match="values of the control's type"):
        lw.interactive_figure(plot_line, controls(), frames={"slope": ["steep"]})
    with pytest.raises(TypeError, match="not an ipywidgets value widget"):
        lw.interactive_figure(plot_line, {"slope": 1.0})
    with pytest.raises(TypeError, match="plot must be callable"):
        lw.interactive_figure("plot_line", controls())


def test_live_redraws_with_the_latest_values(shown_live):
    updates = shown_live
    c = controls()
    box = lw.interactive_figure(plot_line, c)
    assert isinstance(box, widgets.VBox) and list(box.children) == list(c.values())
    c["slope"].value = 2.0
    c["label"].value = "b"
    assert [u.values for u in updates] == [{"slope": 1.0, "label": "a"}, {"slope": 2.0, "label": "a"},
                                           {"slope": 2.0, "label": "b"}]
    bundle, meta = updates[-1]._repr_mimebundle_()
    assert json.loads(html.unescape(re.search(r'data-values="([^"]*)"', bundle["text/html"]).group(1))) == \
        {"label": "b", "slope": 2.0}
    assert png_info(updates[-1].data)["lib.values"] == {"label": "b", "slope": 2.0}
    assert meta["image/png"]["width"] > 0


def test_figure_png_is_sharp_legible_and_column_wide():
    fig = Figure(figsize=(12, 3))
    axes = fig.subplots(1, 3)
    for ax in axes:
        ax.plot([0, 1], [1, 0])
        ax.set_title("a panel", fontsize=6)
    data = figure_png(fig, {"n": 1})
    info = png_info(data)
    image = Image.open(io.BytesIO(data))
    assert info["lib.pixel_ratio"] == PIXEL_RATIO and abs(image.width - PIXEL_RATIO * info["lib.css_width"]) <= 1
    assert info["lib.min_font_pt"] == MIN_FONT_PT == min(t.get_fontsize() for t in fig.findobj(lambda a: hasattr(a, "get_fontsize") and a.get_text()))
    assert fig.get_size_inches()[0] < 12  # narrowed towards the column
    assert Image.open(io.BytesIO(figure_png(fig))).size == image.size  # shown twice: same size
    assert image.mode == "P"  # 256 colours
    # a figure that fits is not narrowed, and its text at 9 CSS px fits a phone column
    small = new_figure((4, 3))
    small.subplots().plot([0, 1])
    info = png_info(figure_png(small))
    assert small.get_size_inches()[0] == 4
    assert info["lib.css_width"] * 9 / (info["lib.min_font_pt"] * CSS_PX_PER_IN / 72) <= PHONE_COLUMN_PX
    assert max_width_in(9) == pytest.approx(PHONE_COLUMN_PX / 72)


def _quantized(data):
    """The pixels of PNG ``data`` reduced to 256 colours as figure_png reduces them."""
    image = Image.open(io.BytesIO(data)).convert("RGB")
    return np.asarray(image.quantize(256, method=Image.Quantize.FASTOCTREE).convert("RGB"))


@pytest.mark.parametrize("title", ["a title", "a title much wider than this small figure, sticking out on both sides"])
def test_figure_png_gives_the_pixels_savefig_gives_for_its_box(title):
    """figure_png cuts one draw of the whole figure to its box, widened to whole pixels: the
    pixels ``savefig(bbox_inches=box)`` gives, the box's margin beyond the figure included;
    a figure with text sticking out of it is saved with that text. A frame drawn at that
    box (as the website's frames are) also gives savefig's pixels."""
    fig = new_figure((3, 2))
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_title(title)
    box = None  # first the tight box, then a frame drawn at the box the first image stored
    for _ in range(2):
        data = figure_png(fig, {"n": 1}, fit=False, bbox=box)
        info = png_info(data)
        box = info["lib.bbox_in"]
        x0, y0, x1, y1 = (round(v * 192) / 192 for v in info["lib.bbox_in"])  # whole pixels
        assert min(x0, y0) < 0 and Image.open(io.BytesIO(data)).size == (round((x1 - x0) * 192), round((y1 - y0) * 192))
        saved = io.BytesIO()
        fig.savefig(saved, format="png", dpi=192, bbox_inches=matplotlib.transforms.Bbox.from_extents(x0, y0, x1, y1))
        assert np.array_equal(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")), _quantized(saved.getvalue()))
    assert (x1 > 3.2) == (len(title) > 10), "the wide title is in the image, past the figure's 3 inches and margin"


def test_static_frames_extension_moves_frames_and_sets_min_widths(tmp_path):
    sys.path.insert(0, str(ROOT / "_ext"))
    import static_frames
    fig = new_figure((8, 3))
    fig.subplots().plot([0, 1])
    png = figure_png(fig)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "fig.png").write_bytes(png)
    app = SimpleNamespace(outdir=str(tmp_path / "out"), srcdir=str(tmp_path / "src"),
                          env=SimpleNamespace(images={"fig.png": ({"chapters/x"}, "fig.png")}))
    encoded = __import__("base64").b64encode(png).decode()
    body = (f'<img alt="x" src="../_images/fig.png" style="width: 500px;" />'
            f'<span data-values="{{}}" data-src="data:image/png;base64,{encoded}"></span>')
    context = {"body": body, "script_files": []}
    static_frames._move_frames(app, "chapters/x", "page.html", context, None)
    src = re.search(r'data-src="([^"]+)"', context["body"]).group(1)
    assert src.startswith("../_images/frames/") and (tmp_path / "out" / src[3:]).read_bytes() == png
    width = static_frames.min_css_width(tmp_path / "src" / "fig.png")
    info = png_info(png)
    assert width == pytest.approx(info["lib.css_width"] * 9 / (info["lib.min_font_pt"] * 4 / 3), abs=1)
    assert f'style="min-width: {width}px; width: 500px;"' in context["body"]


def plot_counted(slope=1.0, label="a", live=None, calls=None):
    """plot_line with the fast-update protocol: updates its own figure in ``live`` in place."""
    calls.append(live.fig if live is not None else None)
    live = LiveFigure() if live is None else live
    if live.state_for("line") is None:  # the first draw
        fig = new_figure((4.0, 2.5))
        ax = fig.subplots()
        ax.set_ylim(-2, 2)
        live.start(fig, "line", ax.plot([0, 1], [0, 0])[0])
    live.state.set_ydata([0, slope])
    live.state.set_label(label)
    live.state.axes.set_title(f"slope {slope:g}, {label}")
    return live.fig


def test_live_redraws_reuse_the_figure_and_revisits_come_from_the_cache(shown_live):
    updates, calls = shown_live, []
    c = controls()
    lw.interactive_figure(plot_counted, c, calls=calls)
    c["slope"].value = 2.0
    c["slope"].value = -1.5
    assert calls[0] is None and calls[1] is not None and calls[2] is calls[1]  # the same figure each time
    c["slope"].value = 2.0  # drawn before: from the cache, no call
    c["slope"].value = 1.0  # the default: the first image
    assert len(calls) == 3
    assert [u.values["slope"] for u in updates] == [1.0, 2.0, -1.5, 2.0, 1.0]
    assert updates[3].data == updates[1].data and updates[4].data == updates[0].data
    # every image has the first one's size and records the values it was drawn for
    sizes = {Image.open(io.BytesIO(u.data)).size for u in updates}
    assert len(sizes) == 1
    assert png_info(updates[2].data)["lib.values"] == {"slope": -1.5, "label": "a"}
    # a redraw in place shows what a fresh drawing of the same values shows
    fresh = live_png(LiveFigure(plot_counted(-1.5, "a", calls=[])), {"slope": -1.5, "label": "a"},
                     first_frame(calls[1], updates[0].data))
    assert fresh == updates[2].data


def _chapter_figures():
    """(plot, fixed arguments, first values, second values) of the chapters' figures that
    update in place (Chapters 1, 2, 3, 4, 6, 7, 8, 9; Chapter 5's needs the newsgroups)."""
    from lib.datasets import load_network
    from lib.gaussian import GaussianClassifier
    from lib.hmm import HMM
    from lib.hmm.examples import CASINO_EXAMPLES, casino_model
    from lib.plots.bayes import plot_base_rate, plot_candy_experiment, plot_version_space
    from lib.plots.bn import layered_layout, plot_dsep_explorer, plot_evidence_explorer
    from lib.plots.density import plot_density_sliders
    from lib.plots.em import plot_em_2d
    from lib.plots.estimation import plot_beta_update, plot_grid_vs_beta
    from lib.plots.gaussian import plot_risk_boundary
    from lib.plots.hmm import plot_baum_welch, plot_casino_sequence, record_baum_welch
    from lib.plots.mdl import plot_polynomial_mdl
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (60, 2)), rng.normal(4, 1, (60, 2))]
    y = np.repeat(["a", "b"], 60)
    asia = load_network("asia")
    smoke = {"smoke": asia.states["smoke"][0]}
    rolls = list(CASINO_EXAMPLES.values())
    free = {n: "free" for n in asia.names}
    casino = casino_model()
    guess = HMM([0.5, 0.5], rng.dirichlet([5, 5], 2), rng.dirichlet(np.full(6, 20.0), 2))
    run = record_baum_welch(guess, casino.sample(2000, np.random.default_rng(5))[1], casino,
                            n_iter=30, tol=0)
    return [
        (plot_candy_experiment, {}, dict(n_candies=20), dict(n_candies=35, seed=3)),
        (plot_beta_update, {}, dict(heads=3), dict(a=0.5, heads=0, tails=0)),
        (plot_polynomial_mdl, {"seed": 2}, dict(n=30), dict(n=200, noise=0.1)),
        (plot_density_sliders, {"data": rng.random((80, 2))}, dict(k=5), dict(k=12, width=0.2)),
        (plot_em_2d, {"X": X, "true_ll": -500.0}, dict(iteration=2), dict(iteration=9)),
        (plot_risk_boundary, {"model": GaussianClassifier().fit(X, y), "X": X, "y": y},
         dict(loss_ratio=1.0), dict(loss_ratio=20.0)),
        (plot_evidence_explorer, {"net": asia, **smoke}, dict(n_samples=100), dict(n_samples=3000)),
        (plot_casino_sequence, {}, dict(rolls=rolls[0]), dict(rolls=rolls[2])),
        # the figures added with the new sections (issue 16); each control moved at least once
        (plot_base_rate, {}, dict(specificity=0.9), dict(prevalence=0.1, sensitivity=0.8, specificity=0.999)),
        (plot_base_rate, {}, dict(prevalence=0.3), dict(prevalence=0.001)),   # bars of very different heights
        (plot_version_space, {}, dict(m=3), dict(m=16, prior="short intervals")),
        (plot_version_space, {}, dict(m=0), dict(m=1)),       # the empty concept's star comes and goes
        (plot_grid_vs_beta, {}, dict(cherries=7), dict(cherries=30, limes=0)),
        (plot_grid_vs_beta, {}, dict(n_grid=101), dict(n_grid=5, limes=10)),  # other bars
        (plot_dsep_explorer, {"net": asia, "pos": layered_layout(asia)}, dict(x="tub", y="smoke", **free),
         dict(x="tub", y="smoke", **{**free, "either": "observed", "dysp": "observed"})),
        (plot_dsep_explorer, {"net": asia, "pos": layered_layout(asia)}, dict(x="tub", y="smoke", **free),
         dict(x="xray", y="xray", **free)),                  # the "choose two variables" case
        (plot_baum_welch, {"run": run, "state_labels": ["fair", "loaded"], "symbol_labels": "123456"},
         dict(iteration=30), dict(iteration=1)),
    ]


def _fresh(plot, values, fixed):
    """A fresh drawing for ``values``, in a live figure of its own."""
    live = LiveFigure()
    plot(**values, **fixed, live=live)
    return live


@pytest.mark.parametrize("case", range(17))
def test_chapter_figures_update_in_place_as_a_fresh_drawing_would(case):
    plot, fixed, a, b = _chapter_figures()[case]
    live = LiveFigure()
    fig = plot(**a, **fixed, live=live)
    assert live.fig is fig
    frame = first_frame(fig, figure_png(fig, a, fast=True))
    live.freeze()  # as interactive_figure does after the first image
    live_png(live, a, frame)  # drawn live once: a second draw may reuse what did not move
    # updated in place at the same values: a figure that blits keeps the background drawn for them
    assert plot(**a, **fixed, live=live) is fig, f"{plot.__name__} drew a new figure instead of updating its own"
    first = live_png(live, a, frame)
    assert plot(**b, **fixed, live=live) is fig  # drawn over a's background when it blits
    updated = live_png(live, b, frame)
    fresh = live_png(_fresh(plot, b, fixed), b, frame)
    one, two = (np.asarray(Image.open(io.BytesIO(d)).convert("RGB"), float) for d in (updated, fresh))
    assert one.shape == two.shape
    # the same picture (anti-aliasing may differ by a shade on a few pixels)
    assert np.mean(np.abs(one - two) > 40) < 0.002, f"{plot.__name__}: the update differs from a fresh drawing"
    # and not the picture of the first values
    old = np.asarray(Image.open(io.BytesIO(first)).convert("RGB"), float)
    assert np.mean(np.abs(old - two) > 40) > 0.001


@pytest.mark.parametrize("case", range(8, 17))
def test_new_figures_updated_in_place_save_as_a_fresh_drawing(case):
    """Not drawn live (no frozen layout): an update in place, saved, is the fresh figure."""
    plot, fixed, a, b = _chapter_figures()[case]
    live = LiveFigure()
    fig = plot(**a, **fixed, live=live)
    plot(**b, **fixed, live=live)
    assert plot(**b, **fixed, live=live) is fig
    size = tuple(fig.get_size_inches())
    saved, fresh = (np.asarray(Image.open(io.BytesIO(figure_png(f, b, fit=False, size=size))).convert("RGB"), float)
                    for f in (fig, plot(**b, **fixed)))
    assert saved.shape == fresh.shape and np.mean(np.abs(saved - fresh) > 40) < 0.002


def _layout(fig):
    """The layout problems ``figure_png`` finds in ``fig`` and stores in its PNG (``lib.layout``)."""
    return png_info(figure_png(fig)).get("lib.layout", [])


def test_figure_png_records_text_on_text_and_a_legend_over_data():
    fig = new_figure((4, 3))
    ax = fig.subplots()
    x = np.linspace(0, 1, 50)
    ax.plot(x, 0.95 + 0 * x, label="flat line near the top")
    ax.bar([0.5], [0.9], width=1.0, label="a bar")
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left", frameon=False)
    ax.set_title("a title")
    ax.text(0.5, 1.02, "a note on the title", transform=ax.transAxes, ha="center")
    problems = _layout(fig)
    assert "legend entry 'flat line near the top' is drawn over the line 'flat line near the top'" in problems
    assert any(p.startswith("legend entry 'a bar' is drawn over the bar") for p in problems), problems
    assert {"'a title' overlaps 'a note on the title'", "'a note on the title' overlaps 'a title'"} & set(problems)
    ax.get_legend().remove()
    ax.texts[0].remove()
    assert _layout(fig) == []
    assert "lib.layout" not in png_info(figure_png(fig))  # nothing to say: no chunk


def _text_model():
    from lib.text import NaiveBayesText
    docs = ["the shuttle launch orbit satellite", "engine brakes car noise", "goalie hockey game shot",
            "orbit launch rocket", "car engine oil", "hockey goalie puck"]
    return NaiveBayesText().fit(docs, ["space", "autos", "hockey"] * 2)


def _static_frame_cases():
    """(name, plot, fixed, default values, other values): every case of ``_chapter_figures``
    plus Chapter 5's sentence explorer on a small model (with and without known words)."""
    from lib.plots.text import plot_text_posterior
    model = _text_model()
    return [(f"{p.__name__}#{i}", p, fixed, a, b) for i, (p, fixed, a, b) in enumerate(_chapter_figures())] + [
        ("plot_text_posterior#17", plot_text_posterior, {"model": model},
         dict(sentence="the shuttle launch"), dict(sentence="zzzq xxyzz")),
        ("plot_text_posterior#18", plot_text_posterior, {"model": model},
         dict(sentence="the shuttle launch"), dict(sentence="car engine hockey"))]


def _pixels(data):
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), float)


def _controls_for(plot, a, b):
    """A dropdown per argument that ``a`` or ``b`` sets, over its value in each (the plot's
    default where one leaves it out; arrays as tuples, which a dropdown can compare)."""
    parameters = inspect.signature(plot).parameters
    controls = {}
    for name in dict.fromkeys([*a, *b]):
        first, other = (tuple(v) if isinstance(v, np.ndarray) else v
                        for v in (values[name] if name in values else parameters[name].default for values in (a, b)))
        options = [("a", first)] + ([] if lw._equal(first, other) else [("b", other)])
        controls[name] = widgets.Dropdown(options=options, value=first, description=name)
    return controls


@pytest.mark.parametrize("case", range(19))
def test_static_frames_are_what_a_live_figure_draws(case, static):
    """The website's frames (``interactive_figure`` in the static build) are the pictures a
    reader's kernel draws for the same values: the default frame is a fresh drawing exported
    as every figure is, and the other one a fresh drawing for its values in the default's size,
    box and layout (what a kernel's redraw keeps), exported at 2x (laid out afresh in the box
    where that layout would cut text off or overlap it). The kernel's own redraws
    are the same code at 1x (``test_chapter_figures_update_in_place_as_a_fresh_drawing_would``).
    Both frames are readable as the website shows them: no text on another, no legend entry
    over the curves, points or bars, no text cut off at the image's edge (``lib.layout``)."""
    name, plot, fixed, a, b = _static_frame_cases()[case]
    controls = _controls_for(plot, a, b)
    box = lw.interactive_figure(plot, controls, frames={k: [c.options[-1][1]] for k, c in controls.items()}, **fixed)
    a, b = ({k: c.options[i][1] for k, c in controls.items()} for i in (0, -1))
    drawn = {json.dumps(values, sort_keys=True): data for values, data in box.frames}
    shown, other = (drawn[json.dumps({k: lw._plain(v) for k, v in values.items()}, sort_keys=True)] for values in (a, b))
    assert shown == static[0].data  # the page's image is the default frame
    for values, data in [(a, shown), (b, other)]:
        assert png_info(data).get("lib.layout") is None, (name, values, png_info(data)["lib.layout"])
    # an independent drawing of each
    first = _fresh(plot, a, fixed)
    assert figure_png(first.fig, {k: lw._plain(v) for k, v in a.items()}) == shown
    plain, frame = {k: lw._plain(v) for k, v in b.items()}, first_frame(first.fig, shown)
    reference = live_png(_fresh(plot, b, fixed), plain, frame, ratio=PIXEL_RATIO)
    if "lib.layout" in png_info(reference):  # the default's layout cannot hold b: laid out afresh in its box
        reference = figure_png(_fresh(plot, b, fixed).fig, plain, size=frame["size"], bbox=frame["bbox"])
    one, two = _pixels(other), _pixels(reference)
    assert one.shape == two.shape == _pixels(shown).shape, name  # every frame in the default's box
    assert np.mean(np.abs(one - two) > 40) < 0.002, f"{name}: the static frame differs from a fresh drawing"
    # and the comparison sees a change of values
    assert np.mean(np.abs(_pixels(shown) - one) > 40) > 0.001, f"{name}: the comparison sees no change"


def test_every_frame_and_live_image_carries_its_description(static, monkeypatch):
    box = lw.interactive_figure(plot_values, controls(), frames={"slope": [-2, 2], "label": ["a", "b"]})
    spans = re.findall(r'<span data-values="([^"]*)" data-src="[^"]*" data-alt="([^"]*)"></span>', box._repr_html_())
    assert len(spans) == 6
    for values, alt in spans:
        v = json.loads(html.unescape(values))
        label = {"a": "first", "b": "second"}[v["label"]]
        assert html.unescape(alt) == f"Interactive figure: slope = {v['slope']:.3g}, label = {label}"
    assert static[0].metadata["alt"] == "Interactive figure: slope = 1, label = first"
    # a template over the control values, or a callable
    box = lw.interactive_figure(plot_values, controls(), frames={"slope": [-2, 2]}, alt="A line of slope {slope:g} <{label}>")
    alts = [html.unescape(a) for a in re.findall(r'data-alt="([^"]*)"', box._repr_html_())]
    assert alts == ["A line of slope -2 <a>", "A line of slope 1 <a>", "A line of slope 2 <a>"]
    assert "&lt;a&gt;" in box._repr_html_()  # escaped in the page
    box = lw.interactive_figure(plot_values, controls(), frames={"slope": [2]}, alt=lambda slope, label: f"{slope}{label}")
    assert re.findall(r'data-alt="([^"]*)"', box._repr_html_()) == ["1.0a", "2.0a"]
    with pytest.raises(TypeError, match="alt must"):
        lw.interactive_figure(plot_values, controls(), alt=3)
    # live: the description follows the values, and lives on the live figure
    monkeypatch.delenv(lw.STATIC_ENV)
    updates = []
    monkeypatch.setattr(lw, "display", lambda obj, **kw: updates.append(obj) or _Handle(updates))
    c = controls()
    lw.interactive_figure(plot_counted, c, calls=[], alt="slope {slope}")
    c["slope"].value = -1.5
    tags = [u._repr_mimebundle_()[0]["text/html"] for u in updates]
    assert [re.search(r'alt="([^"]*)"', t).group(1) for t in tags] == ["slope 1.0", "slope -1.5"]


def test_selection_options_are_read_from_their_public_options():
    assert lw._options(widgets.Dropdown(options=[("first", "a"), ("second", "b")])) == [("first", "a"), ("second", "b")]
    assert lw._options(widgets.ToggleButtons(options=["x", 2])) == [("x", "x"), ("2", 2)]
    assert lw._options(widgets.SelectionSlider(options={"low": 0.1, "high": 0.9})) == [("low", 0.1), ("high", 0.9)]
    assert lw._options(widgets.IntSlider()) is None


def test_livefigure_keys_compare_objects_by_identity():
    from lib.plots.hmm import BaumWelchRun
    live = LiveFigure(new_figure())
    assert live.state_for("x") is None  # started without a key: never reused
    run = BaumWelchRun(*[np.zeros(3)] * 7)
    live.start(live.fig, (run, ["a"]), "state")
    assert live.state_for((run, ["a"])) == "state"
    assert live.state_for((run._replace(order=np.ones(3)), ["a"])) is None  # another run (arrays)
    assert live.state_for((run, ["b"])) is None


def test_importing_lib_changes_no_global_state():
    """Importing the plotting modules leaves matplotlib's rcParams and IPython's hooks alone;
    ``use_course_style`` applies them."""
    code = """
import matplotlib
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
before = dict(matplotlib.rcParams)
hooks = {e: list(f) for e, f in shell.events.callbacks.items()}
import lib.plots.style, lib.plots.interactive, lib.plots.bayes, lib.plots.bn, lib.plots.hmm
assert dict(matplotlib.rcParams) == before, "rcParams changed at import"
assert {e: list(f) for e, f in shell.events.callbacks.items()} == hooks, "IPython hooks registered at import"
lib.plots.style.use_course_style()
assert matplotlib.rcParams["legend.fontsize"] == 9 and matplotlib.rcParams["figure.titlesize"] == 11
assert any(f.__name__ == "ensure" for f in shell.events.callbacks["pre_run_cell"])
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def _lib_imports():
    """``{module: {lib modules it imports}}`` for every module of ``lib``, read with ``ast``
    (imports inside functions included: a cycle there is still a cycle)."""
    import ast
    modules = {}
    for path in (ROOT / "lib").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = (path, parts[-1] == "__init__")
    graph = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                base = (f"{base}.{node.module}" if node.module else base) if node.level else node.module
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            found |= {t for t in targets if t in modules and t != name}
        graph[name] = found
    return graph


def test_lib_has_no_import_cycle():
    """No module of ``lib`` imports itself through others (``lib.hmm.model`` and
    ``lib.hmm.reference`` did, for the Baum-Welch figure's data, now in ``lib.plots.hmm``)."""
    graph = _lib_imports()
    assert "lib.hmm.reference" in graph["lib.hmm.model"]  # the reader finds the edges
    # a module of a package imports the package's __init__ first; not a cycle of its own
    edges = {m: {t for t in ts if not m.startswith(t + ".")} for m, ts in graph.items()}

    def reach(module):
        seen, todo = set(), [module]
        while todo:
            for target in edges[todo.pop()] - seen:
                seen.add(target)
                todo.append(target)
        return seen

    reached = {m: reach(m) for m in edges}
    cycles = {frozenset(t for t in reached[m] if m in reached[t]) for m in edges if m in reached[m]}
    assert not cycles, sorted(map(sorted, cycles))


CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(?:---\n.*?\n---\n)?(.*?)^```", re.S | re.M)


def interactive_figure_calls(page):
    """``(line of code, has alt=)`` for every ``interactive_figure(...)`` call in the code
    cells of the MyST page text ``page`` (cell options and magics skipped)."""
    calls = []
    for cell in CODE_CELL.findall(page):
        code = "\n".join(line for line in cell.splitlines() if not line.lstrip().startswith((":", "%", "!")))
        for node in ast.walk(ast.parse(code)):
            func = getattr(node, "func", None)
            if getattr(func, "id", getattr(func, "attr", None)) == "interactive_figure":
                alt = [k.value for k in node.keywords if k.arg == "alt"]
                calls.append((ast.unparse(node).splitlines()[0],
                              bool(alt) and not (isinstance(alt[0], ast.Constant) and alt[0].value is None)))
    return calls


def test_interactive_figure_calls_are_found_with_their_alt():
    page = ('```{code-cell} ipython3\n:tags: [hide-input]\nbox = interactive_figure(f, c, alt="{n} draws")\n'
            'lw.interactive_figure(f, c, frames={"n": [1]})\n```\n\ntext\n\n'
            '```{code-cell} ipython3\n---\ntags: [remove-cell]\n---\n%matplotlib inline\n'
            'box = interactive_figure(f, c, alt=None)\n```\n')
    assert [has for _, has in interactive_figure_calls(page)] == [True, False, False]


@pytest.mark.parametrize("chapter", sorted((ROOT / "chapters").glob("*.md")), ids=lambda p: p.stem)
def test_every_chapter_interactive_figure_has_a_description(chapter):
    """Issue 27: every explorer describes each frame (``alt=``), not the generic default."""
    text = chapter.read_text(encoding="utf-8")
    calls = interactive_figure_calls(text)
    assert len(calls) == text.count("interactive_figure("), "a call outside a parsed code cell"
    assert [call for call, has in calls if not has] == []


def test_markdown_table_is_the_one_table_builder_and_checks_its_shape():
    from lib.plots.tables import markdown_table
    assert markdown_table(["a", "$b$"], [[1, "x"], ["", 2.5]], align="lr") == (
        "| a | $b$ |\n| --- | ---: |\n| 1 | x |\n|  | 2.5 |")
    for bad, message in [(dict(align="l"), "one of 'l', 'r', 'c' per column (2), got 'l'"),
                         (dict(align="lx"), "got 'lx'"),
                         (dict(rows=[[1, 2], [3]]), "row 1 has 1 cells, the header 2")]:
        with pytest.raises(ValueError) as info:
            markdown_table(["a", "b"], **{"rows": [[1, 2]], **bad})
        assert message in str(info.value)
