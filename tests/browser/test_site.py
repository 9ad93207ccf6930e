"""The built website in Chromium: links, maths, figures, explorers, phones, weight, search.

Screenshots of every chapter are saved under `_build/screenshots/`.
"""
import html
import html.parser
import sys
from collections import defaultdict
from urllib.parse import unquote, urlsplit

import pytest
from conftest import ROOT, SITE, Recorder
from site_checks import (
    BAD_MATHS,
    CHAPTERS,
    FIGURE_CELL,
    PAGES,
    PHONE,
    _explorers,
    check_fits,
    check_maths,
    check_reflow,
    html_pages,
    maths_problems,
    parse,
    typeset,
)

sys.path.insert(0, str(ROOT / "_ext"))
import lean_code  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # Chromium (make browser), not make unit


def test_the_maths_check_finds_each_broken_formula(browser, site_url):
    """maths_problems on a page of the site with the formulas of BAD_MATHS added to it:
    it names exactly the broken ones (and nothing else on the page)."""
    path = PAGES[0]
    formulas = "".join(f'<p><span class="math notranslate nohighlight">\\({html.escape(tex)}\\)</span></p>'
                       for tex in BAD_MATHS)
    body = (SITE / path).read_text(encoding="utf-8").replace("</main>", formulas + "</main>", 1)
    context = browser.new_context()
    try:
        page = Recorder(site_url).attach(context.new_page())
        page.route(f"{site_url}/{path}", lambda route: route.fulfill(body=body, content_type="text/html"))
        page.goto(f"{site_url}/{path}", wait_until="networkidle", timeout=90_000)
        typeset(page)
        found = maths_problems(page)
    finally:
        context.close()
    assert found == [(problem, tex) for tex, problem in BAD_MATHS.items() if problem]


def test_maths_of_the_other_pages(open_page):
    """The formulas of the pages test_a11y.test_page_in_chromium does not load (the
    introduction, how to use, instructors, ...), checked as there."""
    others = [p.relative_to(SITE).as_posix() for p in html_pages()
              if p.relative_to(SITE).as_posix() not in PAGES and 'class="math' in p.read_text(encoding="utf-8")]
    for path in others:
        page, _ = open_page(path)
        typeset(page)
        check_maths(page, path)


def test_the_other_pages_fit_a_phone(browser, site_url):
    """The pages test_a11y.test_page_in_chromium does not load (the introduction, how to
    use, instructors, the API reference, notation, bibliography, indexes, search) at phone
    width and at WCAG's reflow width: site_checks.check_fits at each."""
    others = [p.relative_to(SITE).as_posix() for p in html_pages() if p.relative_to(SITE).as_posix() not in PAGES]
    assert {"intro.html", "instructors.html", "api.html", "notation.html"} <= set(others)
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        for path in others:
            page = Recorder(site_url).attach(context.new_page())
            page.goto(f"{site_url}/{path}", wait_until="networkidle", timeout=90_000)
            if page.locator("main .math").count():
                typeset(page)
            for check in (check_fits, check_reflow):
                try:
                    check(page)
                except AssertionError as failure:
                    raise AssertionError(f"{path}: {failure}") from None
            page.close()
    finally:
        context.close()


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
def test_interactive_figures_are_plain_images_without_javascript(open_page, chapter):
    page, _ = open_page(f"chapters/{chapter}.html", javascript=False)
    explorers = _explorers(page)
    assert explorers.count() > 0
    for i in range(explorers.count()):
        explorer = explorers.nth(i)
        figure = explorer.locator(FIGURE_CELL)
        image = figure.locator("figure img")
        assert image.count() == 1, f"interactive figure {i + 1}: no static image before its explorer"
        box = image.bounding_box()
        assert box and box["width"] > 100 and box["height"] > 100
        # no control that would move without changing the figure
        assert explorer.locator("input:visible, select:visible").count() == 0
        assert "live session" in explorer.inner_text()


def test_search_finds_viterbi(open_page):
    page, _ = open_page("search.html?q=Viterbi")
    page.wait_for_selector("#search-results li", timeout=20000)
    hrefs = page.locator("#search-results li a").evaluate_all("links => links.map(a => a.href)")
    assert any("08_hmm" in h for h in hrefs), hrefs


# what a token's text looks like: the properties any stylesheet may set on it
LOOK = """() => [...document.querySelectorAll('#lean-check span')].map(e => {
  const s = getComputedStyle(e);
  return [e.className, ['color', 'font-style', 'font-weight', 'background-color', 'text-decoration-line',
                        'user-select', 'font-size', 'font-family'].map(p => s.getPropertyValue(p)).join('|')];
})"""


def test_code_tokens_merged_look_alike_under_every_stylesheet(browser, site_url):
    """_ext/lean_code.py merges the tokens of a code block whose classes look the same in
    pygments.css, and leaves unwrapped those that look like the block's own text: on a
    page of the site, in light and in dark mode, one span of every class of pygments.css
    (and the block's own text, as a span without a class) drawn alike within each of those groups. And the
    built pages are merged: no span of a class that looks like the block's own text."""
    found = lean_code.site_looks(SITE)
    groups = defaultdict(set)
    for cls, look in found.items():
        groups[look].add(cls)
    assert len(groups[found[""]]) > 1 and any(len(g) > 1 for look, g in groups.items() if look != found[""])
    path = PAGES[-1]
    spans = "".join(f'<span class="{cls}">x</span>' for cls in found)
    body = (SITE / path).read_text(encoding="utf-8").replace(
        "</main>", f'<div id="lean-check"><div class="highlight"><pre>{spans}</pre></div></div></main>', 1)
    context = browser.new_context()
    try:
        page = Recorder(site_url).attach(context.new_page())
        page.route(f"{site_url}/{path}", lambda route: route.fulfill(body=body, content_type="text/html"))
        page.goto(f"{site_url}/{path}", wait_until="networkidle", timeout=90_000)
        for mode in lean_code.MODES:
            page.emulate_media(color_scheme=mode)
            page.wait_for_function("mode => document.documentElement.dataset.theme === mode", arg=mode)
            drawn = dict(page.evaluate(LOOK))
            for group in groups.values():
                assert len({drawn[cls] for cls in group}) == 1, f"{mode} mode: {({c: drawn[c] for c in group})}"
    finally:
        context.close()
    plain = sorted(groups[found[""]] - {""})
    for chapter in CHAPTERS:
        text = (SITE / "chapters" / f"{chapter}.html").read_text(encoding="utf-8")
        assert "<span class=\"k\">" in text and not [c for c in plain if f'<span class="{c}">' in text], chapter
