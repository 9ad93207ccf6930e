"""WCAG 2.1 A/AA in Chromium: axe-core on every chapter and exercise page, at desktop and
phone size, in light and dark mode; the explorers followed with the keyboard (the alt
text describes the frame shown, a slider announces the value the page shows, the image is
the one drawn for the values the controls show).

axe-core is the npm package pinned in package.json (`make browser-assets`), injected into
each page from that local copy. A page passes when axe reports no violation of the rules
tagged wcag2a, wcag2aa, wcag21a or wcag21aa. The functions of `_ext/accessible.py` that
rewrite the pages are tested here too, on the HTML that myst-nb, the theme and
sphinx-exercise write.
"""
import contextlib
import json
import sys

import pytest
from conftest import NPM, ROOT, SHOTS, SITE, Recorder
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document
from site_checks import (
    FIGURE_CELL,
    KNOWN_ERRORS,
    PAGES,
    PHONE,
    check_maths,
    check_phone,
    check_reflow,
    check_renders,
    fetch,
    png_info,
    typeset,
)

sys.path.insert(0, str(ROOT / "_ext"))
sys.path.insert(0, str(ROOT / "benchmarks"))
import accessible  # noqa: E402
from page_weight import BUDGET_BYTES, BUDGET_REQUESTS, Weight  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # Chromium (make browser), not make unit

AXE = NPM / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": PHONE}
MODES = ["light", "dark"]
# "1" for an element the browser renders (visibility and opacity included), else "0"
RENDERED = "e => e.checkVisibility({visibilityProperty: true, opacityProperty: true}) ? '1' : '0'"
# The rules of TAGS whose result depends on colours (axe-core's rule list): in a second colour
# scheme only these can change, unless the scheme also shows or hides elements (the theme's
# only-light and only-dark logos), which are then checked with every rule.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
# axe on the page, as failure messages. `baseline`: the rendered/hidden state of every element
# (RENDERED) in the first scheme: then the colour rules on the page, and every rule of TAGS on
# the elements whose state differs (none: that part is skipped).
RUN_AXE = """async ([tags, colourRules, baseline]) => {
  const report = result => result.violations.map(v => `${v.id} (${v.impact}): ${v.help}\\n` + v.nodes.slice(0, 8).map(
      n => `    ${n.target.join(' ')}: ${(n.failureSummary || '').split('\\n').slice(1, 2).join(' ').trim()}`).join('\\n')
      + (v.nodes.length > 8 ? `\\n    ... ${v.nodes.length} elements in all` : ''));
  const all = {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']};
  if (baseline === null) return report(await axe.run(document, all));
  const elements = [...document.querySelectorAll('*')];
  if (elements.length !== baseline.length) return report(await axe.run(document, all));  // another DOM
  const changed = elements.filter((e, i) => (""" + RENDERED + """)(e) !== baseline[i]);
  const out = report(await axe.run(document, {runOnly: {type: 'rule', values: colourRules}, resultTypes: ['violations']}));
  return changed.length ? out.concat(report(await axe.run({include: changed}, all))) : out;
}"""


def open_site_page(browser, site_url, path, viewport, mode, weight=None):
    if not (SITE / path).exists():
        pytest.skip(f"{path} is not in this build")
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `make browser-assets`")
    context = browser.new_context(viewport=viewport, color_scheme=mode,
                                  is_mobile=viewport == PHONE, has_touch=viewport == PHONE)
    recorder = Recorder(site_url)
    page = recorder.attach(context.new_page())
    if weight is not None:  # what the first visit transfers (a new context: a cold cache)
        page.on("response", weight.on_response)
    page.goto(f"{site_url}/{path}", wait_until="networkidle", timeout=90_000)  # a busy 2-core CI machine
    if page.locator("main .math").count():
        typeset(page)
    # the theme follows the reader's colour scheme (prefers-color-scheme)
    assert page.evaluate("document.documentElement.dataset.theme") == mode
    return context, page, recorder


@pytest.mark.browser
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", PAGES)
def test_page_in_chromium(browser, site_url, path, size):
    """Every chapter and exercise page (site_checks.PAGES) at desktop and phone size, each
    loaded once and its maths typeset once, with the checks of that page and size run on it
    in turn:

    * a chapter at desktop size, first: the weight of a first visit (check_weight: the
      page's own load, with a cold cache, measured instead of loading it once more);
    * phone size: the layout and figure-text checks of site_checks.check_phone;
    * desktop size: no broken formula (site_checks.check_maths: no MathJax error, unknown
      macro or control character in the TeX);
    * a chapter at desktop size: site_checks.check_renders (maths, figures, explorers, no
      stray request, a screenshot of its first screen), before anything on the page is
      touched; a failing page is saved whole to _build/screenshots/FAILED-*.png;
    * WCAG 2.1 A/AA (axe) in light mode, then in dark mode: the reader's colour scheme
      switched on the same page (the theme follows it live, as when a phone turns to dark
      mode at dusk), where what the scheme changes is checked again (axe_in_each_mode: the
      colour rules, and every rule on the elements it shows or hides); no formula in the
      Tab order;
    * a chapter at desktop size: the explorers moved by keyboard, each control through
      every position, the image read back at several (check_keyboard);
    * phone size, last: the page narrowed to WCAG's reflow width, 320 CSS px, and
      site_checks.check_fits there (nothing cut off, no sideways scrolling of the page);
    * no JavaScript error but the known ones."""
    chapter = path[len("chapters/"):-len(".html")] if path.startswith("chapters/") else None
    weight = Weight() if chapter and size == "desktop" else None
    context, page, recorder = open_site_page(browser, site_url, path, SIZES[size], MODES[0], weight)
    try:
        if weight is not None:
            check_weight(page, recorder, weight)
        if size == "phone":
            check_phone(page, path)
        else:  # (the formulas are the same at phone size)
            check_maths(page, path)
            if chapter:
                check_renders(page, recorder, chapter)
        for mode, violations in axe_in_each_mode(page):
            assert not violations, f"{path} at {size} in {mode} mode:\n" + "\n".join(violations)
        # math is read from MathJax's MathML, not Tab-stepped formula by formula (README):
        # a formula is a Tab stop only as a scroll box wider than the column
        stops = page.locator("main mjx-container[tabindex='0']:not([data-lib-scroll])").count()
        assert stops == 0, f"{stops} formulas in the Tab order"
        if size == "desktop" and chapter:
            check_keyboard(page, path)
        if size == "phone":  # last: it narrows the page
            check_reflow(page)
        errors = [e for e in recorder.errors if not any(k in e for k in KNOWN_ERRORS)]
        assert not errors, errors
    except Exception:  # the whole page as it was, for the failure's reader
        SHOTS.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(Exception):  # (never in place of the failure itself)
            page.screenshot(path=str(SHOTS / f"FAILED-{path.replace('/', '-')}-{size}.png"), full_page=True)
        raise
    finally:
        context.close()


def axe_in_each_mode(page):
    """``[(mode, violations)]``: axe in light mode, then in dark mode on the same page. In
    dark mode only what the colour scheme can change is checked again: the colour rules on
    the whole page, and every rule on the elements that dark mode shows or hides (a page
    that changes otherwise is checked whole again)."""
    page.add_script_tag(path=str(AXE))
    results, baseline = [], None
    for mode in MODES:
        page.emulate_media(color_scheme=mode)
        page.wait_for_function("mode => document.documentElement.dataset.theme === mode", arg=mode)
        # the colours are final: no CSS transition (buttons fade over 0.15 s) still running
        page.wait_for_function("() => !document.getAnimations().some(a => a instanceof CSSTransition"
                               " && a.playState === 'running')")
        results.append((mode, page.evaluate(RUN_AXE, [TAGS, COLOUR_RULES, baseline])))
        if baseline is None:
            baseline = page.evaluate(f"() => [...document.querySelectorAll('*')].map({RENDERED})")
    return results


def check_weight(page, recorder, weight):
    """A chapter's first visit, typeset, before anything on it is touched: at most 1.5 MB
    (gzip) and 65 requests (benchmarks/page_weight.py, which `make bench` runs, records the
    numbers in benchmarks/results.md)."""
    page.wait_for_load_state("networkidle")  # the typeset maths fetched its fonts
    assert not recorder.blocked, recorder.blocked
    biggest = ", ".join(f"{url.rsplit('/', 1)[-1][:40]} {size / 1e3:.0f} kB" for url, _, _, size in weight.largest(4))
    assert weight.gzip_bytes <= BUDGET_BYTES, f"{weight.gzip_bytes / 1e6:.2f} MB; largest: {biggest}"
    assert len(weight.items) <= BUDGET_REQUESTS, f"{len(weight.items)} requests"


# What a reader's step shows, read in one call once the figure has loaded its image: the
# control's position, what a screen reader announces for it and the label beside it,
# whether the figure's alt text describes the frame it shows (explorer.js marks the figure
# with the values of that frame), the values every control displays and the image's
# address. The wait is bounded only to end a hang.
STEP_STATE = """async ([explorer, img, field]) => {
  for (const end = Date.now() + 60000; !(img.complete && img.naturalWidth > 0); ) {
    if (Date.now() > end) throw new Error('the figure loaded no image in 60 s');
    await new Promise(r => setTimeout(r, 20));
  }
  const spans = [...explorer.querySelectorAll('.lib-explorer-frames > span')];
  const key = v => JSON.stringify(JSON.parse(v || 'null'));
  const shown = spans.find(s => key(img.dataset.values) === key(s.dataset.values));
  let output = field.nextElementSibling;
  while (output && output.tagName !== 'OUTPUT') output = output.nextElementSibling;
  const wanted = {};
  for (const f of explorer.querySelectorAll('[data-control]'))
    wanted[f.dataset.control] = JSON.parse(f.dataset.values)[Number(f.value)];
  return {index: Number(field.value), valuetext: field.getAttribute('aria-valuetext'),
          labels: JSON.parse(field.dataset.labels || 'null'), output: output ? output.innerText : null,
          alt: img.alt, frameAlt: shown ? shown.dataset.alt : null, found: !!shown,
          described: spans.filter(s => (s.dataset.alt || '').trim()).length, frames: spans.length,
          wanted, src: img.currentSrc || img.src};
}"""


def check_step(state, where):
    """The figure's alt text is the description of the frame shown (``state``: STEP_STATE)."""
    assert state["described"] == state["frames"], \
        f"{where}: {state['frames'] - state['described']} of {state['frames']} frames have no data-alt"
    assert state["found"], f"{where}: the figure shows no frame of its explorer"
    assert state["alt"] == state["frameAlt"], f"{where}: alt {state['alt']!r} describes another frame " \
                                              f"than the one shown ({state['frameAlt']!r})"
    return state["alt"]


def check_frame(page, state, where):
    """The image shown was drawn for exactly the values the controls display (``state``:
    STEP_STATE; the values read back from the PNG's ``lib.values``)."""
    drawn_for = png_info(fetch(page, state["src"]))["lib.values"]
    for control, value in state["wanted"].items():
        assert drawn_for[control] == pytest.approx(value) if isinstance(value, float) else drawn_for[control] == value, \
            f"{where}: control {control} shows {value!r}, the figure was drawn for {drawn_for[control]!r}"


def check_keyboard(page, path):
    """Each slider moved with the arrow keys, each menu with the keyboard: the figure's alt
    text is the description of the frame shown, the slider's aria-valuetext is the label
    the page shows next to it; at the first, second, middle and last positions of each
    control, the image shown was drawn for exactly the values the controls display (read
    back from the PNG: check_frame). Each step is one key press (or choice), then one read
    of what the page shows (STEP_STATE)."""
    explorers = page.locator("main .lib-explorer")
    assert explorers.count() > 0
    for e in range(explorers.count()):
        explorer = explorers.nth(e)
        image = explorer.locator(FIGURE_CELL).locator("img").first.element_handle()
        fields = explorer.locator("[data-control]")
        for f in range(fields.count()):
            field = fields.nth(f)
            handles = [explorer.element_handle(), image, field.element_handle()]
            where = f"{path}, explorer {e + 1}, control {field.get_attribute('data-control')}"
            n = len(json.loads(field.get_attribute("data-values")))
            is_range = field.get_attribute("type") == "range"
            field.focus()
            if is_range:  # to the far end and back, so that the figure shows a frame
                page.keyboard.press("End")
                page.keyboard.press("Home")
            else:
                field.select_option(index=n - 1)
                field.select_option(index=0)
            seen = set()
            for index in range(n):
                if index and is_range:  # one step on
                    page.keyboard.press("ArrowRight")
                elif index:
                    field.select_option(index=index)
                state = page.evaluate(STEP_STATE, handles)
                assert state["index"] == index, f"{where}: the keyboard did not move the control"
                if is_range:
                    label = state["labels"][index]
                    assert state["valuetext"] == label and state["output"] == label, (where, state)
                seen.add(check_step(state, where))
                if index in {0, 1 % n, n // 2, n - 1}:  # the image read back at four positions
                    check_frame(page, state, where)
            assert len(seen) == n, f"{where}: {n} positions but {len(seen)} different descriptions"


# A page with one explorer as lib/plots/interactive.py and myst-nb write it, for explorer.js alone.
PIXEL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8"
         "BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
EXPLORER_PAGE = """<!DOCTYPE html><html lang="en"><body><main>
<div class="cell"><div class="cell_output"><figure><img src="{pixel}#a1" alt="default description"></figure></div></div>
<div class="cell"><div class="cell_output"><div class="lib-explorer">
 <div class="lib-explorer-controls" hidden><label class="lib-explorer-control"><span>rate</span>
  <input type="range" min="0" max="2" step="1" value="1" data-control="a" data-values="[0.5, 1.0, 2.0]"
   data-labels='["0.50", "1.00", "2.00"]'><output>1.00</output></label></div>
 <div class="lib-explorer-frames" hidden>{frames}</div>
</div></div></div></main></body></html>"""


def explorer_page(browser, with_alt):
    frames = "".join(f'<span data-values=\'{{"a": {a}}}\' data-src="{PIXEL}#a{a}"'
                     + (f' data-alt="Curve for rate {a}"' if with_alt else "") + "></span>"
                     for a in (0.5, 1.0, 2.0))
    context = browser.new_context()
    page = context.new_page()
    page.set_content(EXPLORER_PAGE.format(pixel=PIXEL, frames=frames))
    page.add_script_tag(path=str(ROOT / "_static" / "explorer.js"))
    return context, page


@pytest.mark.browser
def test_explorer_script_sets_alt_and_valuetext(browser):
    context, page = explorer_page(browser, with_alt=True)
    try:
        slider, img = page.locator("input[type=range]"), page.locator("img")
        assert slider.get_attribute("aria-valuetext") == "1.00"
        assert img.get_attribute("alt") == "default description"  # the page's own, until a move
        slider.focus()
        page.keyboard.press("ArrowLeft")
        assert (slider.input_value(), slider.get_attribute("aria-valuetext")) == ("0", "0.50")
        assert img.get_attribute("alt") == "Curve for rate 0.5"
        page.keyboard.press("End")
        assert slider.get_attribute("aria-valuetext") == "2.00"
        assert img.get_attribute("alt") == "Curve for rate 2.0"
        assert img.get_attribute("src").endswith("#a2.0")
    finally:
        context.close()


@pytest.mark.browser
def test_explorer_script_keeps_alt_of_frames_without_description(browser):
    context, page = explorer_page(browser, with_alt=False)
    try:
        page.locator("input[type=range]").focus()
        page.keyboard.press("ArrowLeft")
        assert page.locator("img").get_attribute("src").endswith("#a0.5")
        assert page.locator("img").get_attribute("alt") == "default description"
    finally:
        context.close()


# Dark mode shows an image without alt text and dims a paragraph below AA contrast; the
# theme's attribute follows the scheme, as the pydata theme's does.
DARK_ONLY_PAGE = """<!DOCTYPE html><html lang="en"><head><title>Modes</title><style>
 .only-dark {{display: none}}
 @media (prefers-color-scheme: dark) {{ .only-dark {{display: inline}} body {{background: #000; color: #fff}}
   p.dim {{color: #333}} }}
</style></head><body><main><h1>Modes</h1><p class="dim">A paragraph</p><p>Another</p>
<img class="only-dark" src="{pixel}" width="20" height="20"></main>
<script>const q = matchMedia('(prefers-color-scheme: dark)');
const set = () => {{ document.documentElement.dataset.theme = q.matches ? 'dark' : 'light'; }};
set(); q.addEventListener('change', set);</script></body></html>"""


@pytest.mark.browser
def test_dark_mode_checks_its_colours_and_the_elements_it_shows(browser):
    """axe_in_each_mode checks in dark mode only the colour rules on the whole page and
    every rule on what dark mode shows or hides: both kinds of violation are still found."""
    context = browser.new_context(color_scheme="light")
    try:
        page = context.new_page()
        page.set_content(DARK_ONLY_PAGE.format(pixel=PIXEL))
        (light, clean), (dark, found) = axe_in_each_mode(page)
        assert (light, clean, dark) == ("light", [], "dark")
        assert sorted(v.split(" ")[0] for v in found) == ["color-contrast", "image-alt"], found
    finally:
        context.close()


# ---- _ext/accessible.py on the HTML the tools write ----

def test_hidden_code_summary_is_named_by_its_visible_text():
    # what myst-nb 1.x writes for a hide-input cell
    body = ('<details class="admonition hide above-input">\n<summary aria-label="Toggle hidden content">\n'
            '<p class="collapsed admonition-title">Show code cell source</p>\n')
    context = {"body": body}
    accessible._fix_body(None, "chapters/x", "page.html", context, None)
    assert "aria-label" not in context["body"] and "<summary>\n" in context["body"]


def test_search_button_is_named_by_its_visible_text():
    # pydata-sphinx-theme's components/search-button-field.html (and the icon-only button)
    field = ('<button class="btn search-button-field search-button__button pst-js-only" title="Search" '
             'aria-label="Search" data-bs-placement="bottom" data-bs-toggle="tooltip">\n'
             ' <i class="fa-solid fa-magnifying-glass"></i>\n <span class="search-button__default-text">Search</span>')
    icon = ('<button class="btn btn-sm pst-navbar-icon search-button search-button__button pst-js-only" '
            'title="Search" aria-label="Search" data-bs-placement="bottom" data-bs-toggle="tooltip">')
    fixed = accessible.fix_search_button(field + icon)
    assert fixed.count('aria-label="Search"') == 1  # the icon-only button keeps its name
    assert fixed.startswith('<button class="btn search-button-field search-button__button pst-js-only" '
                            'title="Search" aria-keyshortcuts="Control+K" data-bs-placement')


def test_output_tables_get_a_named_scroll_box_and_prose_tables_keep_the_themes():
    frame = ('<div class="output text_html"><div>\n<table border="1" class="dataframe">\n<thead>\n'
             '<tr style="text-align: right;"><th></th><th>word</th><th>P(w | spam)</th></tr></thead>'
             '<tbody><tr><th>0</th><td>free</td><td>0.1</td></tr></tbody></table>\n</div></div>')
    prose = '<div class="pst-scrollable-table-container"><table class="table">\n<tr><td>1</td></tr></table>\n</div>'
    body = accessible.wrap_tables(frame + prose)
    assert body.count("lib-table-scroll") == 1
    assert ('<div class="lib-table-scroll" tabindex="0" role="region" aria-label="Table of word, P(w | spam)">'
            '<table border="1" class="dataframe">') in body
    assert prose in body
    assert accessible.wrap_tables(body) == body  # a second pass changes nothing
    captioned = '<table><caption>Counts <em>per</em> class</caption><tr><th>a</th></tr></table>'
    assert 'aria-label="Counts per class"' in accessible.wrap_tables(captioned)


def test_exercise_ids_are_unique_on_a_page():
    document = new_document("page", get_default_settings(Parser))
    for name in ["exercise-content", "solution-content", "exercise-content", "solution-content",
                 "exercise-content", "sec-other"]:
        document += nodes.section(ids=[name])
    accessible._unique_ids(None, document, "page")
    ids = [s["ids"][0] for s in document.findall(nodes.section)]
    assert ids == ["exercise-content", "solution-content", "exercise-content-2", "solution-content-2",
                   "exercise-content-3", "sec-other"]
