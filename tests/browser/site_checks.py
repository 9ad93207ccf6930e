"""Checks of a built page in Chromium (maths, figures, explorers, phone layout) and the
site's pages: shared by tests/browser/test_site.py and tests/browser/test_a11y.py (a helper
module, not a test module)."""
import html
import html.parser
import io
import json
import re
from pathlib import Path

from conftest import ROOT, SITE
from PIL import Image

CHAPTERS = sorted(p.stem for p in (ROOT / "chapters").glob("*.md"))
EXERCISES = sorted(p.name for p in (ROOT / "exercises").iterdir() if p.is_dir()) if (ROOT / "exercises").is_dir() else []
PAGES = [f"chapters/{c}.html" for c in CHAPTERS] + [f"_generated/exercises/{e}/{e}.html" for e in EXERCISES]
SHOTS = ROOT / "_build" / "screenshots"
RAW_TEX = re.compile(r"\\(frac|sum|prod|mathbf|mathrm|left|right|begin|argmax|argmin|given|sqrt|log)\b|\$\$")
PHONE = {"width": 390, "height": 844}
# WCAG 2.1's reflow width (SC 1.4.10): 320 CSS px, no scrolling in two directions
REFLOW = {"width": 320, "height": 568}
MIN_TEXT_CSS_PX = 9.0


# the cell before the explorer's cell holds the figure (class "cell" exactly, not "cell_output")
_CELL = "div[contains(concat(' ', normalize-space(@class), ' '), ' cell ')]"
FIGURE_CELL = f"xpath=ancestor::{_CELL}[1]/preceding-sibling::{_CELL}[1]"


# Known, harmless JavaScript errors (each with its reason).
KNOWN_ERRORS = [
    # sphinx-book-theme includes sphinx-thebe's loader script twice on every page.
    "Identifier 'THEBE_JS_URL' has already been declared",
]


def html_pages():
    return sorted(p for p in SITE.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)


class Refs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for key in ("href", "src", "data-src"):
            if attrs.get(key) and not (tag == "link" and attrs.get("rel") in ("preconnect", "dns-prefetch")):
                self.refs.append(attrs[key])


def parse(path):
    parser = Refs()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def png_info(data):
    """The `lib.*` text chunks that lib.plots.export.figure_png writes into every figure."""
    return {k: json.loads(v) for k, v in Image.open(io.BytesIO(data)).text.items() if k.startswith("lib.")}


def fetch(page, url):
    response = page.request.get(url)
    assert response.ok, f"{url}: HTTP {response.status}"
    return response.body()


def typeset(page):
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    page.evaluate("() => MathJax.startup.promise")


# What MathJax made of each formula on the page, once typeset: the problems a reader would
# see. A TeX error is typeset as <merror> (data-mjx-error says why); an unknown macro, by
# MathJax's noundefined package, as its name in red; a control character in the TeX (a
# "\t" of "\textit" that became a TAB on the way in) raises no error at all, the
# letters just lose their macro ("extit"), so the TeX source itself is checked for it.
MATHS_PROBLEMS = r"""() => !document.querySelector('.math') ? [] : Array.from(MathJax.startup.document.math).flatMap(item => {
  const mml = MathJax.startup.toMML(item.root);
  const found = [...mml.matchAll(/<merror\b[^>]*>/g)]
    .map(m => `MathJax error "${(m[0].match(/data-mjx-error="([^"]*)"/) || [])[1]}"`)
    .concat([...mml.matchAll(/<mtext mathcolor="red">(\\[^<]*)<\/mtext>/g)].map(m => `unknown macro ${m[1]}`));
  const control = [...item.math].filter(c => /\p{Cc}/u.test(c) && c !== '\n');
  if (control.length) found.push('control characters ' + JSON.stringify(control.join('')));
  return found.map(problem => [problem, item.math]);
})"""


def maths_problems(page):
    """(problem, TeX) of each formula of a typeset page that a reader would see broken."""
    return [tuple(found) for found in page.evaluate(MATHS_PROBLEMS)]


def check_maths(page, path):
    broken = maths_problems(page)
    assert not broken, f"{path}: broken formulas:\n" + "\n".join(f"{p}: {tex!r}" for p, tex in broken)


# Formulas a page must never show, each with the problem maths_problems names: chapter 6's
# PC section as it was written (TABs where "\t" of \textit and \to had been), a macro
# nobody defined, and TeX that MathJax cannot parse.
BAD_MATHS = {
    "\textit{smoke} \to\n\textit{bronc} \\leftarrow \textit{dysp}": 'control characters "\\t\\t\\t\\t"',
    r"\undefinedmacro x": r"unknown macro \undefinedmacro",
    r"\frac{1}": 'MathJax error "Missing argument for \\frac"',
    r"\E[x] = \argmax_y f(y) \given z": None,  # the book's own macros (_config.yml) are known
}


def check_renders(page, recorder, chapter):
    """A chapter as loaded (maths typeset): maths, figures, explorers, no stray requests or
    errors; a screenshot of its first screen in _build/screenshots. (tests/browser/test_a11y.py runs it
    on the same page load as axe.)"""
    main = page.locator("main")
    # maths: typeset, no TeX source left in the text a reader sees
    assert page.locator("main mjx-container").count() > 0
    leftover = RAW_TEX.search(main.inner_text())
    assert leftover is None, f"raw TeX on the page: {leftover.group(0)!r}"
    # figures: every image loaded, with alt text; every numbered figure has a caption
    images = page.locator("main img")
    for i in range(images.count()):
        img = images.nth(i)
        assert img.evaluate("e => e.complete && e.naturalWidth > 0"), f"image {img.get_attribute('src')} not loaded"
        assert (img.get_attribute("alt") or "").strip(), f"image {img.get_attribute('src')} has no alt text"
    figures = page.locator("main figure")
    assert figures.count() > 0
    for i in range(figures.count()):
        caption = figures.nth(i).locator("figcaption")
        assert caption.count() == 1 and re.match(r"Fig\. \d+\.\d+", caption.inner_text()), "numbered caption"
    # interactive figures: a kernel-free explorer, no ipywidgets (nothing that cannot move)
    assert page.locator("main .lib-explorer").count() > 0, "every chapter has an interactive figure"
    assert page.locator('script[type^="application/vnd.jupyter.widget"]').count() == 0
    assert page.locator("main .jupyter-widgets, main .widget-box").count() == 0
    assert not [u for u in recorder.served + recorder.blocked if "jupyter-widgets" in u or "require" in u], \
        "widget manager requested"
    assert page.locator("main .lib-explorer-controls:visible").count() == page.locator("main .lib-explorer").count()
    # nothing outside the site but the routed CDN assets, and no unexpected JavaScript errors
    assert not recorder.blocked, recorder.blocked
    errors = [e for e in recorder.errors if not any(k in e for k in KNOWN_ERRORS)]
    assert not errors, errors
    # the chapter's first screen (a full page takes 6-8 s of CPU to render and encode: it is
    # taken only when a check of the page fails, test_a11y.test_page_in_chromium)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{chapter}.png"))


def _explorers(page):
    return page.locator("main .lib-explorer")


PHONE_CHECK = """() => {
  const main = document.querySelector('main');
  const right = main.getBoundingClientRect().right, vw = document.documentElement.clientWidth;
  // inside a box that scrolls and fits the screen, maybe through boxes that scroll in it (a
  // box that hides its overflow cuts it off)
  const scrolls = el => { for (let a = el.parentElement; a && a !== main; a = a.parentElement) {
      const s = getComputedStyle(a).overflowX;
      if ((s === 'auto' || s === 'scroll') && a.getBoundingClientRect().right <= vw + 1) return true;
      if (s === 'hidden' || s === 'clip') return false; } return false; };
  const bad = [];
  const describe = el => el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + ' ' +
      (el.textContent || el.getAttribute('src') || '').trim().slice(0, 60);
  for (const el of main.querySelectorAll('div.math, mjx-container, .cell_output, .cell_output *, figure, figure img, table, code, dt')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= vw + 1) continue;
    if (!scrolls(el)) bad.push(describe(el) + ' right=' + Math.round(r.right));
  }
  // the page scrolls sideways: the innermost elements past the screen's edge, outside any scroll box
  const wide = document.documentElement.scrollWidth <= vw + 1 ? [] : [...document.body.querySelectorAll('*')].filter(el => {
    const past = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.right > vw + 1; };
    return past(el) && !scrolls(el) && ![...el.children].some(past) && !el.closest('mjx-assistive-mml')
      && el.checkVisibility({visibilityProperty: true, opacityProperty: true});
  }).slice(0, 10).map(el => describe(el) + ' right=' + Math.round(el.getBoundingClientRect().right));
  const numbers = [];
  for (const n of main.querySelectorAll('div.math span.eqno')) {
    const r = n.getBoundingClientRect(); if (r.right > vw + 1 || r.left < 0) numbers.push(n.textContent.trim());
  }
  return {bad, numbers, wide, pageWidth: document.documentElement.scrollWidth, vw};
}"""


# The page's final layout, a state rather than a pause: its fonts (MathJax's among them)
# loaded, and two frames drawn since.
LAID_OUT = """async () => {
  await document.fonts.ready;
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
}"""


def check_fits(page):
    """At the page's present width: the page does not scroll sideways; a formula (display
    or inline), figure, output, table, code or signature wider than the column scrolls in a
    box of its own that fits the screen (never cut off by a box that hides its overflow);
    equation numbers on screen."""
    page.evaluate(LAID_OUT)
    report = page.evaluate(PHONE_CHECK)
    width = report["vw"]
    assert report["pageWidth"] <= width + 1, (f"the page scrolls sideways at {width} px ({report['pageWidth']} px "
                                              "wide), past the edge:\n" + "\n".join(report["wide"]))
    assert not report["bad"], (f"wider than the column at {width} px without a scroll box:\n"
                               + "\n".join(report["bad"][:20]))
    assert not report["numbers"], f"equation numbers off screen at {width} px: {report['numbers']}"


def check_reflow(page):
    """The page narrowed to WCAG's reflow width (320 CSS px): check_fits there too."""
    page.set_viewport_size(REFLOW)
    check_fits(page)


def check_phone(page, path):
    """A page at phone width (390 CSS px; no image has a srcset, so the device pixel ratio
    changes nothing measured here): check_fits, and figure text at least 9 CSS px."""
    assert page.locator("main img[srcset]").count() == 0, "an image with a srcset: test at a phone's pixel ratio"
    check_fits(page)
    # figure text: the smallest font drawn (pt, read from the PNG) at the displayed scale
    images = page.locator("main figure img, main .cell_output img")
    assert images.count() > 0 or path.startswith("_generated")
    small = []
    for i in range(images.count()):
        img = images.nth(i)
        src = img.evaluate("i => i.currentSrc || i.src")
        if not src.split("?")[0].endswith(".png"):
            continue
        info = png_info(fetch(page, src))
        assert "lib.min_font_pt" in info, f"{src}: a figure not drawn by lib.plots.export.figure_png"
        natural, shown = img.evaluate("i => [i.naturalWidth, i.getBoundingClientRect().width]")
        dpi = 96 * info["lib.pixel_ratio"]
        text_px = info["lib.min_font_pt"] * dpi / 72 * shown / natural
        if text_px < MIN_TEXT_CSS_PX - 0.05:
            small.append(f"{Path(src).name}: {text_px:.1f} CSS px ({shown:.0f} of {natural} px)")
    assert not small, "figure text below 9 CSS px on a 390 px screen:\n" + "\n".join(small)
