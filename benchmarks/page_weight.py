"""The website's weight: what a first visit of each chapter page transfers.

Serves the built site (``_build/html`` or $BOOK_HTML) on 127.0.0.1 and opens every chapter
in Debian's Chromium (playwright) with a cold cache, the CDN assets routed to their npm
copies exactly as in tests/browser (MathJax from ``make browser-assets``). Every response
is counted at the size it would travel with gzip (text, JavaScript, CSS, JSON, SVG:
gzip level 6; images and fonts as they are); frames of the explorers are fetched only
when a reader touches one, so a first visit does not include them. The page is measured
after MathJax has typeset it and the network is idle.

    .venv/bin/python benchmarks/page_weight.py [--write]   (--write: update results.md)
"""
import argparse
import gzip
import re
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))

BUDGET_BYTES = 1_500_000       # a chapter page's first visit, gzip transfer
BUDGET_REQUESTS = 65      # a ceiling against regressions (was 51-62 before issue 15; 65 since
                          # chapter 6 gained the PC-orders and averaging figures: 62)
COMPRESSIBLE = re.compile(r"text/|javascript|json|css|svg|xml")
SECTION = "## The website's weight"


class Weight:
    """Adds up the responses of one page (gzip sizes for compressible types)."""

    def __init__(self):
        self.items = []

    def on_response(self, response):
        try:
            body = response.body()
        except Exception:  # redirects and aborted requests have no body
            return
        kind = response.headers.get("content-type", "")
        size = len(gzip.compress(body, 6)) if COMPRESSIBLE.search(kind) else len(body)
        self.items.append((response.url, kind, len(body), size))

    @property
    def gzip_bytes(self):
        return sum(size for *_, size in self.items)

    @property
    def raw_bytes(self):
        return sum(raw for _, _, raw, _ in self.items)

    def largest(self, n=5):
        return sorted(self.items, key=lambda item: -item[3])[:n]


def measure(browser, site_url, path, viewport=(1280, 900)):
    """``(Weight, recorder)`` of a first visit of ``path`` (fresh context, cold cache)."""
    from conftest import Recorder
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    try:
        recorder = Recorder(site_url)
        page = recorder.attach(context.new_page())
        weight = Weight()
        page.on("response", weight.on_response)
        page.goto(f"{site_url}/{path}", wait_until="networkidle")
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(300)
        return weight, recorder
    finally:
        context.close()


def write_section(rows):
    results = HERE / "results.md"
    text = results.read_text() if results.exists() else "# Benchmark results\n"
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [SECTION, "",
             f"Written by `benchmarks/page_weight.py --write` on {now} (Chromium, cold cache, "
             "CDN assets from their npm copies; gzip sizes of text/JS/CSS/JSON/SVG, images and "
             "fonts as they are; after MathJax typesetting, network idle). Frames of the "
             "explorers load only when a reader touches one, so they are not in a first visit. "
             f"Budget: {BUDGET_BYTES / 1e6:.1f} MB and {BUDGET_REQUESTS} requests per chapter page "
             "(checked by tests/browser/test_a11y.py, on the load of its desktop check). Before this work (issue 15): 51-62 requests, "
             "8.4-9.0 MB uncompressed per chapter page.", "",
             "| chapter | requests | transferred (gzip) | uncompressed | largest items (gzip) | JavaScript errors | met? |",
             "|---|---|---|---|---|---|---|"]
    for name, weight, errors in rows:
        big = ", ".join(f"{Path(url.split('?')[0]).name} {size / 1e3:.0f} kB" for url, _, _, size in weight.largest(3))
        ok = weight.gzip_bytes <= BUDGET_BYTES and len(weight.items) <= BUDGET_REQUESTS
        lines.append(f"| {name} | {len(weight.items)} | {weight.gzip_bytes / 1e6:.2f} MB | "
                     f"{weight.raw_bytes / 1e6:.2f} MB | {big} | {len(errors)} | {'yes' if ok else 'no'} |")
    lines.append("")
    start = text.find(SECTION)
    if start >= 0:
        end = text.find("\n## ", start + len(SECTION))
        text = text[:start] + "\n".join(lines) + (text[end + 1:] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(lines)
    results.write_text(text)
    print(f"wrote {results}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update benchmarks/results.md")
    args = parser.parse_args()
    import functools
    import http.server
    import threading

    from conftest import CHROMIUM, CHROMIUM_ARGS, SITE, QuietHandler
    from playwright.sync_api import sync_playwright
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    site_url = f"http://127.0.0.1:{server.server_address[1]}"
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for chapter in sorted((ROOT / "chapters").glob("*.md")):
            start = time.perf_counter()
            weight, recorder = measure(browser, site_url, f"chapters/{chapter.stem}.html")
            rows.append((chapter.stem, weight, recorder.errors))
            print(f"{chapter.stem}: {len(weight.items)} requests, {weight.gzip_bytes / 1e6:.2f} MB gzip "
                  f"({weight.raw_bytes / 1e6:.2f} MB raw), blocked {len(recorder.blocked)}, "
                  f"errors {recorder.errors} [{time.perf_counter() - start:.1f} s]")
            for url, _kind, _raw, size in weight.largest(6):
                print(f"    {size / 1e3:8.0f} kB  {url[:110]}")
        browser.close()
    server.shutdown()
    if args.write:
        write_section(rows)


if __name__ == "__main__":
    main()
