"""Sphinx extension of the course website: WCAG 2.1 AA fixes at their source.

- **Names that say what a reader sees (2.5.3).** myst-nb writes
  ``<summary aria-label="Toggle hidden content">`` around the visible "Show code cell
  source" of every ``hide-input`` cell, and the theme's search button says "Search Ctrl+K"
  under ``aria-label="Search"``. A speech-input user who says what they see matches
  neither; without the ``aria-label`` both are named by their visible text (the search
  button also announces its shortcut with ``aria-keyshortcuts``).
- **Tables a keyboard can scroll (2.1.1).** A table in a code cell's output (a pandas
  data frame) is wrapped in a scroll box that is in the Tab order and named after the
  table (``role="region"``), so a table wider than the column can be scrolled with the
  arrow keys. Figures and display equations that overflow only at some widths get the
  same from ``_static/explorer.js`` while they overflow.
- **Unique ids.** sphinx-exercise gives every exercise's body the id
  ``exercise-content`` and every solution's ``solution-content``; they are numbered on
  each page (``exercise-content-2``, ...). Nothing links to them.
"""
import html
import re
from collections import Counter

from docutils import nodes

SUMMARY = '<summary aria-label="Toggle hidden content">'
SEARCH_BUTTON = re.compile(r'(<button class="btn search-button-field[^"]*"[^>]*?)\s+aria-label="[^"]*"')
TABLE = re.compile(r"<table\b.*?</table>", re.S)
TAGS = re.compile(r"<[^>]+>")
REPEATED_IDS = ("exercise-content", "solution-content")


def _text(fragment):
    return " ".join(html.unescape(TAGS.sub(" ", fragment)).split())


def table_label(table):
    """The caption of a table, else "Table of" its first column headings."""
    caption = re.search(r"<caption\b.*?</caption>", table, re.S)
    if caption and _text(caption.group(0)):
        return _text(caption.group(0))
    head = re.search(r"<thead\b.*?</thead>", table, re.S) or re.search(r"<tr\b.*?</tr>", table, re.S)
    names = [_text(th) for th in re.findall(r"<th\b.*?</th>", head.group(0), re.S)] if head else []
    names = [n for n in names if n]
    if not names:
        return "Table"
    return "Table of " + ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")


def wrap_tables(body):
    r"""Wrap each table the theme has not already put in its scroll container (the last tag
    before the table: ``pst-scrollable-table-container``, or ours).

    Only the tables themselves are matched: a pattern that also matched the line before
    each table tried every position of the page's long lines (inline images), a minute of
    the book build's CPU.

    >>> wrap_tables('<p>x</p><table><tr><th>a</th></tr></table>')
    '<p>x</p><div class="lib-table-scroll" tabindex="0" role="region" aria-label="Table of a"><table><tr><th>a</th></tr></table></div>'
    >>> wrap_tables('<div class="pst-scrollable-table-container">\n  <table></table></div>')
    '<div class="pst-scrollable-table-container">\n  <table></table></div>'
    """
    out, end = [], 0
    for match in TABLE.finditer(body):
        start, table = match.start(), match.group(0)
        tag = body[max(end, body.rfind("<", end, start)):start]
        out.append(body[end:start])
        if "pst-scrollable-table-container" in tag or "lib-table-scroll" in tag:
            out.append(table)
        else:
            out.append(f'<div class="lib-table-scroll" tabindex="0" role="region" '
                       f'aria-label="{html.escape(table_label(table))}">{table}</div>')
        end = match.end()
    return "".join(out) + body[end:]


def _fix_body(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if not body:
        return
    body = body.replace(SUMMARY, "<summary>")
    if "<table" in body:
        body = wrap_tables(body)
    context["body"] = body


def _unique_ids(app, doctree, docname):
    seen = Counter()
    for section in doctree.findall(nodes.section):
        for i, name in enumerate(section["ids"]):
            if name in REPEATED_IDS:
                seen[name] += 1
                if seen[name] > 1:
                    section["ids"][i] = f"{name}-{seen[name]}"


def fix_search_button(text):
    return SEARCH_BUTTON.sub(r'\1 aria-keyshortcuts="Control+K"', text)


def _fix_pages(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    from pathlib import Path
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        fixed = fix_search_button(text)
        if fixed != text:
            page.write_text(fixed, encoding="utf-8")


def setup(app):
    app.connect("doctree-resolved", _unique_ids)
    app.connect("html-page-context", _fix_body, priority=950)  # after static_frames (900)
    app.connect("build-finished", _fix_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
