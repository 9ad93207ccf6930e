"""The built website in Chromium: links, maths, figures, explorers, phones, weight, search.

Screenshots of every chapter are saved under `_build/screenshots/`.
"""
import html
import html.parser
from urllib.parse import unquote, urlsplit

import pytest
from conftest import SITE, Recorder
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
