"""The built site offers no "Live Code" (Thebe) button on any page (see
tests/book/test_no_live_code.py for why it was removed). Reads the HTML; needs no browser."""
import re

import pytest
from conftest import SITE

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # Chromium (make browser), not make unit

BUTTON = re.compile(r"initThebe|thebe-launch-button|btn-launch-thebe|>\s*Live Code\s*<", re.I)


def test_no_built_page_offers_live_code():
    pages = sorted(p for p in SITE.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)
    assert any(p.name == "index.html" for p in pages), f"no site in {SITE}: run `make book` first"
    found = [f"{p.relative_to(SITE)}: {m.group(0)!r}" for p in pages for m in [BUTTON.search(p.read_text())] if m]
    assert not found, "pages offer Live Code:\n" + "\n".join(found)
