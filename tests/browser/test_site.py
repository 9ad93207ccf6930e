"""The built website in Chromium: links, maths, figures, widget snapshots, search.

Screenshots of every chapter are saved under `_build/screenshots/`.
"""
import html.parser
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from conftest import ROOT, SITE

CHAPTERS = sorted(p.stem for p in (ROOT / "chapters").glob("*.md"))
SHOTS = ROOT / "_build" / "screenshots"
RAW_TEX = re.compile(r"\\(frac|sum|prod|mathbf|mathrm|left|right|begin|argmax|argmin|given|sqrt|log)\b|\$\$")
# Known, harmless JavaScript errors (each with its reason).
KNOWN_ERRORS = [
    # sphinx-book-theme includes sphinx-thebe's loader script twice on every page.
    "Identifier 'THEBE_JS_URL' has already been declared",
    # The widget manager (html-manager 1.0.6) typesets widget labels through the MathJax 2
    # API (MathJax.Hub.Queue); the book loads MathJax 3, which has no Hub. Labels without
    # maths (all of ours) are unaffected.
    "Cannot read properties of undefined (reading 'Queue')",
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
        for key in ("href", "src"):
            if attrs.get(key) and not (tag == "link" and attrs.get("rel") in ("preconnect", "dns-prefetch")):
                self.refs.append(attrs[key])


def parse(path):
    parser = Refs()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_no_broken_internal_links_or_images():
    ids = {}
    broken = []
    for page in html_pages():
        for ref in parse(page).refs:
            parts = urlsplit(ref)
            if parts.scheme or ref.startswith(("mailto:", "javascript:", "//")) or not (parts.path or parts.fragment):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(SITE)} -> {ref}")
            elif parts.fragment and target.suffix == ".html":
                if target not in ids:
                    ids[target] = parse(target).ids
                if parts.fragment not in ids[target]:
                    broken.append(f"{page.relative_to(SITE)} -> {ref} (no such anchor)")
    assert not broken, "\n".join(broken[:50])


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_renders_in_chromium(open_page, chapter):
    page, recorder = open_page(f"chapters/{chapter}.html")
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    page.evaluate("() => MathJax.startup.promise")
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
    # widget snapshots: every saved widget view is rendered by the HTML manager
    views = page.locator('script[type="application/vnd.jupyter.widget-view+json"]').count()
    assert views > 0, "every chapter has an interactive figure"
    page.wait_for_function(f"() => document.querySelectorAll('main .jupyter-widgets.widget-container, main .widget-box').length >= {views}")
    # nothing outside the site but the routed CDN assets, and no unexpected JavaScript errors
    assert not recorder.blocked, recorder.blocked
    errors = [e for e in recorder.errors if not any(k in e for k in KNOWN_ERRORS)]
    assert not errors, errors
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{chapter}.png"), full_page=True)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_interactive_figures_have_a_static_image_without_javascript(open_page, chapter):
    page, _ = open_page(f"chapters/{chapter}.html", javascript=False)
    # the cell that displays an interactive figure is followed by the cell holding its
    # controls; without JavaScript the figure must still be an image on the page
    controls = page.locator('div.cell:has(script[type="application/vnd.jupyter.widget-view+json"])')
    assert controls.count() > 0
    for i in range(controls.count()):
        figure = controls.nth(i).locator("xpath=preceding-sibling::div[contains(@class,'cell')][1]")
        image = figure.locator("figure img")
        assert image.count() == 1, f"interactive figure {i + 1}: no static image before its controls"
        box = image.bounding_box()
        assert box and box["width"] > 100 and box["height"] > 100


def test_search_finds_viterbi(open_page):
    if "08_hmm" not in CHAPTERS:
        pytest.skip("chapter 8 (hidden Markov models) does not exist yet")
    page, _ = open_page("search.html?q=Viterbi")
    page.wait_for_selector("#search-results li", timeout=20000)
    hrefs = page.locator("#search-results li a").evaluate_all("links => links.map(a => a.href)")
    assert any("08_hmm" in h for h in hrefs), hrefs
